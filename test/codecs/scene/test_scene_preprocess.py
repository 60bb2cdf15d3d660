"""The scene preprocessor: one test per kind of bad input (with JSON paths), canonical scene."""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest

from motion_formats_ros.codecs.scene import Ref, SceneError, preprocess


def base() -> dict[str, Any]:
    """A small valid scene: a 2-joint arm, a box on a link, a trajectory."""
    return {
        "models": {
            "arm": {
                "kind": "robot",
                "joints": {"j1": {"minValue": -2, "maxValue": 2}, "j2": {}},
                "links": {
                    "base": {"parent": "ROOT", "pose": {"xyz": [0, 0, 0.1]}, "parts": ["basePart"]},
                    "upper": {"parent": "base", "pose": {"dh": {"theta": {"joint": "j1"}, "a": 0.5}}},
                    "lower": {"parent": "upper", "pose": {"axisAngle": {"axis": "y", "angle": {"joint": "j2"}}}},
                },
                "partModels": {"basePart": {"mass": 1, "shapes": {"s": {"kind": "sphere", "radius": 0.1}}}},
                "collisionIgnoreGroups": {"g": ["base", "upper"]},
                "constraints": {"c": {"j1": 1.0, "j2": -1.0}},
            },
            "box": {"kind": "rigidBody", "mass": 2, "shapes": {"b": {"kind": "box", "size": [1, 1, 1]}}},
        },
        "objects": {
            "robot": {"model": "arm", "jointValues": {"j1": {"trajectory": "path.0"}, "j2": 0.5}},
            "cargo": {"model": "box", "parent": "robot.lower", "pose": {"xyz": [0, 0, 0.2]}},
        },
        "collisionIgnoreGroups": {"all": ["robot", "cargo", "robot.base"]},
        "trajectories": {"path": {"controlPoints": [{"f": [0, 1]}, {"f": [1, 0]}]}},
    }


def errors_of(scene: dict[str, Any]) -> list[str]:
    with pytest.raises(SceneError) as info:
        preprocess(scene, "scene.json5")
    return [str(p) for p in info.value.problems if p.severity == "error"]


def assert_error(scene: dict[str, Any], path: str, text: str) -> None:
    found = errors_of(scene)
    assert any(e.startswith(path + ":") and text in e for e in found), found


def test_base_scene_is_valid_and_defaults_are_filled() -> None:
    scene = preprocess(base())
    arm = scene.models["arm"]
    assert list(arm.links) == ["base", "upper", "lower"]
    assert arm.joints["j2"].min_value == -math.inf and arm.joints["j2"].max_velocity == math.inf
    assert scene.objects["robot"].joint_values == {"j1": Ref("trajectory", "path", 0), "j2": 0.5}
    assert scene.objects["cargo"].parent == "robot" and scene.objects["cargo"].parent_link == "lower"
    canon = scene.canonical()
    shape = canon["models"]["arm"]["partModels"]["basePart"]["shapes"]["s"]
    assert shape == {
        "kind": "sphere",
        "center": [0.0, 0.0, 0.0],
        "radius": 0.1,
        "collides": True,
        "margin": 0.0,
        "stickyForce": 0.0,
    }
    assert "pose" not in canon["objects"]["robot"]  # none given: the robot has no root pose
    assert canon["objects"]["cargo"]["pose"] == {"xyz": [0.0, 0.0, 0.2], "qxyzw": [0.0, 0.0, 0.0, 1.0]}
    assert canon["objects"]["robot"]["parent"] == "__WORLD__"
    assert canon["objects"]["robot"]["jointValues"]["j1"] == {"trajectory": "path", "index": 0}
    assert canon["models"]["arm"]["links"]["upper"]["pose"] == {
        "chain": [{"dh": {"a": 0.5, "alpha": 0.0, "theta": {"joint": "j1"}, "s": 0.0}}]
    }
    assert canon["trajectories"]["path"]["controlPoints"][1] == {"t": 1.0, "f": [1.0, 0.0]}
    assert canon["trajectories"]["path"]["repeat"] is False
    # the canonical scene is itself a valid scene with the same canonical form
    assert preprocess(copy.deepcopy(canon)).canonical() == canon


def test_kind_is_inferred() -> None:
    scene = base()
    del scene["models"]["arm"]["kind"]
    del scene["models"]["box"]["kind"]
    out = preprocess(scene)
    assert out.models["arm"].kind == "robot" and out.models["box"].kind == "rigidBody"


def test_missing_joint_values_default_to_zero() -> None:
    scene = base()
    del scene["objects"]["robot"]["jointValues"]["j2"]
    assert preprocess(scene).objects["robot"].joint_values["j2"] == 0.0


# ------------------------------------------------------------------------- one test per kind
def test_wrong_type() -> None:
    scene = base()
    scene["objects"]["robot"]["jointValues"]["j2"] = "half"
    assert_error(scene, "objects.robot.jointValues.j2", "expected a number or a Value reference, got a string")


def test_wrong_type_of_a_section() -> None:
    scene = base()
    scene["models"] = []
    assert_error(scene, "models", "expected an object of models, got an array")


def test_unknown_transform_key() -> None:
    scene = base()
    scene["objects"]["cargo"]["pose"] = {"xyz": [0, 0, 0], "quaternion": [0, 0, 0, 1]}
    assert_error(scene, "objects.cargo.pose.quaternion", "unknown transform key 'quaternion'")


def test_unknown_model() -> None:
    scene = base()
    scene["objects"]["cargo"]["model"] = "crate"
    assert_error(scene, "objects.cargo.model", "unknown model 'crate'; models: arm, box")


def test_unknown_joint_in_joint_values() -> None:
    scene = base()
    scene["objects"]["robot"]["jointValues"]["j3"] = 1
    assert_error(scene, "objects.robot.jointValues.j3", "unknown joint 'j3'")


def test_unknown_joint_in_a_link_pose() -> None:
    scene = base()
    scene["models"]["arm"]["links"]["upper"]["pose"]["dh"]["theta"] = {"joint": "elbow"}
    assert_error(scene, "models.arm.links.upper.pose.dh[2]", "unknown joint 'elbow'")


def test_unknown_trajectory() -> None:
    scene = base()
    scene["objects"]["robot"]["jointValues"]["j2"] = {"trajectory": "wave"}
    assert_error(scene, "objects.robot.jointValues.j2", "unknown trajectory 'wave'; trajectories: path")


def test_trajectory_index_out_of_range() -> None:
    scene = base()
    scene["objects"]["robot"]["jointValues"]["j2"] = {"trajectory": "path", "index": 2}
    assert_error(scene, "objects.robot.jointValues.j2", "index 2 out of range: trajectory 'path' has 2 dimension(s)")


def test_vector_trajectory_without_index() -> None:
    scene = base()
    scene["objects"]["robot"]["jointValues"]["j2"] = {"trajectory": "path"}
    assert_error(scene, "objects.robot.jointValues.j2", "trajectory 'path' has 2 dimensions: give an index")


def test_unknown_parent_link() -> None:
    scene = base()
    scene["models"]["arm"]["links"]["lower"]["parent"] = "middle"
    assert_error(scene, "models.arm.links.lower.parent", "unknown parent link 'middle'")


def test_link_parents_must_form_a_tree() -> None:
    scene = base()
    scene["models"]["arm"]["links"]["base"]["parent"] = "lower"
    assert_error(scene, "models.arm.links.base.parent", "link parents form a cycle: base → lower → upper → base")


def test_unknown_part_model() -> None:
    scene = base()
    scene["models"]["arm"]["links"]["upper"]["parts"] = ["gripper"]
    assert_error(scene, "models.arm.links.upper.parts[0]", "unknown part model 'gripper'")


def test_unknown_object_parent_and_link() -> None:
    scene = base()
    scene["objects"]["cargo"]["parent"] = "robot.hand"
    assert_error(scene, "objects.cargo.parent", "object 'robot' has no link 'hand'")
    scene["objects"]["cargo"]["parent"] = "table"
    assert_error(scene, "objects.cargo.parent", "unknown parent 'table'")


def test_object_parents_must_not_cycle() -> None:
    scene = base()
    scene["objects"]["robot"]["parent"] = "cargo"
    scene["objects"]["cargo"]["parent"] = "robot"
    assert_error(scene, "objects.robot.parent", "object parents form a cycle")


def test_negative_mass() -> None:
    scene = base()
    scene["models"]["box"]["mass"] = -1
    assert_error(scene, "models.box.mass", "negative mass -1")


def test_negative_inertia_and_radius() -> None:
    scene = base()
    scene["models"]["box"]["inertia"] = {"ixx": -1}
    scene["models"]["arm"]["partModels"]["basePart"]["shapes"]["s"]["radius"] = -0.1
    found = errors_of(scene)
    assert "models.box.inertia.ixx: must be at least 0, got -1" in found
    assert "models.arm.partModels.basePart.shapes.s.radius: must be at least 0, got -0.1" in found


def test_min_greater_than_max() -> None:
    scene = base()
    scene["models"]["arm"]["joints"]["j1"] = {"minValue": 3, "maxValue": 1}
    assert_error(scene, "models.arm.joints.j1", "minValue 3 is greater than maxValue 1")


def test_unknown_shape_kind_and_bad_mesh_face() -> None:
    scene = base()
    shapes = scene["models"]["box"]["shapes"]
    shapes["c"] = {"kind": "cone"}
    shapes["m"] = {"vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "faces": [[0, 1, 3]]}
    found = errors_of(scene)
    assert any(e.startswith("models.box.shapes.c.kind: unknown shape kind 'cone'") for e in found)
    assert any(e.startswith("models.box.shapes.m.faces[0]: expected vertex indices 0..2") for e in found)


def test_box_pose_must_be_static() -> None:
    scene = base()
    scene["models"]["box"]["shapes"]["b"]["pose"] = {"xyz": [{"trajectory": "path.0"}, 0, 0]}
    assert_error(scene, "models.box.shapes.b.pose.xyz", "must be static here")


def test_joint_value_reference_cycle() -> None:
    scene = base()
    scene["objects"]["robot"]["jointValues"] = {"j1": {"joint": "j2"}, "j2": {"joint": "j1"}}
    assert_error(scene, "objects.robot.jointValues.j1", "joint values refer to each other in a cycle: j1 → j2 → j1")


def test_joint_values_on_a_rigid_body() -> None:
    scene = base()
    scene["objects"]["cargo"]["jointValues"] = {"x": 1}
    assert_error(scene, "objects.cargo.jointValues", "is a rigid body: it has no joints")


def test_bad_trajectory_inside_a_scene() -> None:
    scene = base()
    scene["trajectories"]["path"]["controlPoints"][1]["t"] = -1
    assert_error(scene, "trajectories.path.controlPoints[1]", "time goes backwards")


def test_not_a_scene() -> None:
    found = errors_of({"motionTest": "x", "start": [0]})
    assert found == ["(top level): not a scene: no 'models', 'objects' or 'trajectories' key (keys: motionTest, start)"]


def test_every_problem_is_reported_at_once() -> None:
    scene = base()
    scene["models"]["box"]["mass"] = -1
    scene["models"]["arm"]["joints"]["j1"]["minValue"] = 5
    scene["objects"]["cargo"]["pose"] = {"rotvec": [0, 0]}
    scene["trajectories"]["path"]["controlPoints"][0]["ddf"] = [0, 0]
    with pytest.raises(SceneError) as info:
        preprocess(scene, "scene.json5")
    assert info.value.paths == [
        "trajectories.path.controlPoints[0].ddf",
        "models.arm.joints.j1",
        "models.box.mass",
        "objects.cargo.pose.rotvec",
    ]
    assert str(info.value).startswith(
        "scene.json5: 4 problems:\n  trajectories.path.controlPoints[0].ddf: ddf without df"
    )


def test_warnings_do_not_fail() -> None:
    scene = base()
    scene["objects"]["robot"]["jointValues"]["j1"] = 3.0  # beyond [-2, 2]
    scene["objects"]["robot"]["colour"] = "red"
    scene["collisionIgnoreGroups"]["all"].append("ghost")
    out = preprocess(scene)
    messages = [str(p) for p in out.problems]
    assert "objects.robot.jointValues.j1: warning: values 3..3 go beyond the joint limits [-2, 2]" in messages
    assert any(m.startswith("objects.robot.colour: warning: unknown object key 'colour'") for m in messages)
    assert any(m.startswith("collisionIgnoreGroups.all[3]: warning: unknown object") for m in messages)
    assert out.objects["robot"].extras == {"colour": "red"}
