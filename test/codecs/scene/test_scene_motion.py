"""Scene → motion, forward kinematics for TF, and the corpus (the corpus's scene files)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import corpus_path

from motion_formats_ros import ReadError, UnknownFormatError, read
from motion_formats_ros.codecs.scene import SceneError, SceneRecord, load_scene, preprocess, scene_to_motion
from motion_formats_ros.codecs.scene.scene_kinematics import SceneKinematics

NOT_SCENES = {"test_request.json"}


@pytest.fixture
def scenes() -> Path:
    return corpus_path("scene_json5")


def dh(theta: float, a: float, s: float, alpha: float) -> np.ndarray:
    ct, st, ca, sa = math.cos(theta), math.sin(theta), math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st], [0, sa, ca, s], [0, 0, 0, 1]])


def matrix(t: np.ndarray, q: np.ndarray) -> np.ndarray:
    x, y, z, w = q
    out = np.eye(4)
    out[:3, :3] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    out[:3, 3] = t
    return out


def two_arms(traj: dict[str, Any] | None = None) -> dict[str, Any]:
    arm = {
        "joints": {"a": {"minValue": -1, "maxValue": 1, "maxVelocity": 2}, "b": {}},
        "links": {
            "l1": {"pose": {"axisAngle": {"axis": "z", "angle": {"joint": "a"}}}},
            "l2": {"parent": "l1", "pose": {"xyz": [1, 0, 0], "axisAngle": {"axis": "z", "angle": {"joint": "b"}}}},
        },
    }
    return {
        "models": {"arm": arm},
        "objects": {
            "left": {"model": "arm", "pose": {"xyz": [0, 1, 0]}, "jointValues": {"a": {"trajectory": "t.0"}, "b": 0.5}},
            "right": {"model": "arm", "jointValues": {"a": {"joint": "b"}, "b": {"trajectory": "t", "index": 1}}},
        },
        "trajectories": {
            "t": traj or {"controlPoints": [{"t": 1, "f": [0, 0], "df": [0, 0]}, {"t": 2, "f": [1, 2], "df": [0, 0]}]}
        },
    }


# ------------------------------------------------------------------------- scene → motion
def test_several_robots_get_prefixed_joint_names_and_the_trajectory_span() -> None:
    motion = scene_to_motion(preprocess(two_arms()))
    assert motion.joint_names == ("left.a", "left.b", "right.a", "right.b")
    assert motion.times[0] == 1.0 and motion.times[-1] == 2.0 and motion.duration == 1.0
    assert motion.loop is None
    at = motion.sample([1.25]).position
    assert at is not None
    np.testing.assert_array_equal(at[0], [0.15625, 0.5, 0.3125, 0.3125])
    assert motion.velocity is not None
    np.testing.assert_array_equal(motion.velocity[0], [0, 0, 0, 0])
    # cubic segments: sampled at >= 100 Hz with the control points included exactly
    assert motion.num_frames == 101 and motion.rate == pytest.approx(100.0)


def test_rate_option_and_linear_trajectories_sampled_at_control_points() -> None:
    linear = {"controlPoints": [{"f": [0, 0]}, {"f": [1, 2]}, {"dt": 0.5, "f": [0, 0]}]}
    scene = preprocess(two_arms(linear))
    motion = scene_to_motion(scene)
    np.testing.assert_array_equal(motion.times, [0, 1, 1.5])
    assert motion.velocity is None  # linear: no exact velocity
    at_50 = scene_to_motion(scene, rate=50.0)
    assert at_50.rate == 50.0 and at_50.num_frames == 76
    assert at_50.position is not None
    np.testing.assert_allclose(at_50.position[25], [0.5, 0.5, 1.0, 1.0])


def test_single_robot_keeps_model_joint_names_and_reports_the_loop(scenes: Path) -> None:
    mf = read(scenes / "waving_robot.json")
    motion = mf.motion
    assert mf.format == "scene" and mf.robot == "ur5e"
    assert motion.joint_names == ("base", "shoulder", "elbow", "wrist1", "wrist2", "wrist3")
    assert motion.loop == (0.0, 2.0)
    assert motion.times[0] == 0.0 and motion.times[-1] == 2.0
    sampled = motion.sample([0.0, 0.25, 1.0, 1.25, 2.0]).position
    assert sampled is not None
    np.testing.assert_array_equal(sampled[:, 2], [0.0, 0.15625, 1.0, 0.84375, 0.0])
    np.testing.assert_array_equal(sampled[:, [0, 1, 3, 4, 5]], np.tile([0.1, 0.2, 0.4, 0.5, 0.6], (5, 1)))
    assert mf.record(SceneRecord).limits["elbow"]["maxValue"] == 3.14159265359
    assert mf.joint_limits["elbow"].upper == 3.14159265359  # the typed fact other layers read
    assert mf.record(SceneRecord).repeat == {"wave": 2.0}
    # root pose of the single robot
    assert motion.root_position is not None
    np.testing.assert_array_equal(motion.root_position[0], [0, 0, 0])


def test_static_scene_gives_one_frame(scenes: Path) -> None:
    motion = read(scenes / "ur5e_cage.json").motion
    assert motion.num_frames == 1 and motion.times[0] == 0.0
    assert motion.position is not None
    np.testing.assert_array_equal(motion.position[0], [1.34691, -0.937951, 1.48945, -0.551496, 1.34691, 0.0])


# ------------------------------------------------------------------------- kinematics
def test_ur5e_tf_tree_static_and_moving_parts(scenes: Path) -> None:
    kin = SceneKinematics.from_file(scenes / "waving_robot.json")
    links = ["base", "shoulder", "upperArm", "forearm", "wrist1", "wrist2", "wrist3"]
    assert kin.frames[:9] == ["world", "robot1"] + [f"robot1/{link}" for link in links]
    assert kin.frames[9:] == ["pillar1", "pillar2", "pillar3", "pillar4"]
    assert [(e.parent, e.child) for e in kin.moving_edges] == [("robot1/upperArm", "robot1/forearm")]
    static = {(s.parent, s.child) for s in kin.static_transforms()}
    assert ("world", "pillar3") in static and ("robot1/forearm", "robot1/wrist1") in static
    assert len(static) == len(kin.edges) - 1
    assert kin.time_range == (0.0, 2.0)
    pillar = next(s for s in kin.static_transforms() if s.child == "pillar3")
    np.testing.assert_array_equal(pillar.translation, [0.5, -0.5, 0])


def test_ur5e_forward_kinematics_matches_dh_by_hand(scenes: Path) -> None:
    kin = SceneKinematics.from_file(scenes / "waving_robot.json")
    times = np.array([0.0, 0.25, 1.0, 1.25])
    poses = kin.world_poses(times)
    half_pi = 1.57079632679
    for i, elbow in enumerate([0.0, 0.15625, 1.0, 0.84375]):
        expected = (
            dh(0.1, 0, 0.1625, half_pi)
            @ dh(0.2, -0.425, 0, 0)
            @ dh(elbow, -0.3922, 0, 0)
            @ dh(0.4, 0, 0.1333, half_pi)
            @ dh(0.5, 0, 0.0997, -half_pi)
            @ dh(0.6, 0, 0.0996, 0)
        )
        t, q = poses["robot1/wrist3"]
        np.testing.assert_allclose(matrix(t[i], q[i]), expected, atol=1e-12)
    moving = kin.moving_transforms(times)
    assert len(moving) == 1 and moving[0].translation.shape == (4, 3) and moving[0].rotation.shape == (4, 4)
    np.testing.assert_allclose(np.linalg.norm(moving[0].rotation, axis=1), 1.0, atol=1e-15)


def test_objects_on_links_and_parent_before_child() -> None:
    scene = two_arms()
    scene["models"]["cup"] = {"kind": "rigidBody"}
    scene["objects"] = {"cup": {"model": "cup", "parent": "left.l2", "pose": {"xyz": [0.5, 0, 0]}}, **scene["objects"]}
    kin = SceneKinematics(preprocess(scene))
    frames = kin.frames
    assert frames.index("left/l2") < frames.index("cup")
    assert next(e for e in kin.edges if e.child == "cup").parent == "left/l2"
    # left.a follows t.0, left.b = 0.5: at t = 2, a = 1 rad
    poses = kin.world_poses([2.0])
    a, b = 1.0, 0.5
    expected = np.array([0, 1, 0]) + np.array([math.cos(a), math.sin(a), 0]) * 1.0
    expected = expected + 0.5 * np.array([math.cos(a + b), math.sin(a + b), 0])
    np.testing.assert_allclose(poses["cup"][0][0], expected, atol=1e-15)


def test_links_option_fills_world_poses() -> None:
    motion = scene_to_motion(preprocess(two_arms()), rate=10.0, links=True)
    assert "left/l2" in motion.link_names and "right" in motion.link_names
    assert motion.links["position"].shape == (11, len(motion.link_names), 3)


# ------------------------------------------------------------------------- corpus
def test_every_corpus_scene_loads_validates_and_reads(scenes: Path) -> None:
    files = sorted(scenes.glob("*.json"))
    assert len(files) >= 10
    for path in files:
        if path.name in NOT_SCENES:
            continue
        scene = load_scene(path)
        assert scene.models and scene.objects, path.name
        assert not [p for p in scene.problems if p.severity == "error"]
        kin = SceneKinematics(scene)
        start, end = kin.time_range
        poses = kin.world_poses(np.linspace(start, end, 5))
        for frame, (t, q) in poses.items():
            assert np.all(np.isfinite(t)) and np.allclose(np.linalg.norm(q, axis=1), 1.0), (path.name, frame)
        motion = read(path).motion
        assert motion.num_frames >= 1 and motion.position is not None
        # the canonical scene is itself valid and stable
        canon = scene.canonical()
        assert preprocess(json.loads(json.dumps(canon))).canonical() == canon


def test_corpus_trajectories(scenes: Path) -> None:
    demo = load_scene(scenes / "demo_scene_motion.json")
    assert demo.trajectories["motion"].times.size == 17 and demo.trajectories["motion"].repeat_at is None
    simple = load_scene(scenes / "simple_test_scene.json")
    assert simple.trajectories["oscillation"].period == 1.0
    assert simple.trajectories["wobble"].period == 1.0  # dtDefault 0: a jump back
    pillars = read(scenes / "robot_with_pillars.json").motion
    assert pillars.num_frames == 1  # its 'path' trajectory drives nothing
    motion = read(scenes / "demo_scene_motion.json").motion
    assert motion.duration == 16.0 and motion.loop is None


def test_the_planning_request_is_not_a_scene(scenes: Path) -> None:
    path = scenes / "test_request.json"
    with pytest.raises(UnknownFormatError, match="content matches none of them"):
        read(path)
    with pytest.raises(SceneError, match="not a scene: no 'models', 'objects' or 'trajectories' key"):
        read(path, format="scene")


def test_missing_file_is_a_read_error(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match="no such file"):
        read(tmp_path / "nothing.json5")


def test_a_control_point_that_is_not_finite_is_named_where_it_drives_a_pose(tmp_path: Path) -> None:
    arm = {
        "joints": {"j1": {}},
        "links": {"base": {}, "upper": {"parent": "base", "pose": {"dh": {"theta": {"joint": "j1"}, "a": 0.5}}}},
    }
    points = [{"t": 0, "f": [0.0]}, {"t": 1, "f": [0.5]}, {"t": 2, "f": [math.nan]}, {"t": 3, "f": [0.0]}]
    scene = {
        "models": {"arm": arm},
        "objects": {"robot": {"model": "arm", "jointValues": {"j1": {"trajectory": "wave.0"}}}},
        "trajectories": {"wave": {"controlPoints": points}},
    }
    path = tmp_path / "nan.json5"
    path.write_text(json.dumps(scene), encoding="utf-8")
    with pytest.raises(ReadError) as info:
        read(path)
    assert info.value.field == "trajectories.wave.controlPoints[2].f[0]"
    assert str(info.value).startswith(
        f"{path}: trajectories.wave.controlPoints[2].f[0]: nan (not a finite number): models.arm.links.upper.pose.dh: "
    )


# ------------------------------------------------------------------------- a spline's peaks
#: One robot of one joint whose cubic Hermite segment peaks at t = 0.5668 s, between the 100 Hz
#: subdivisions of its 1.003 s, at 0.75945 rad.
PEAKING = {
    "models": {
        "arm": {"joints": {"a": {}}, "links": {"l1": {"pose": {"axisAngle": {"axis": "z", "angle": {"joint": "a"}}}}}}
    },
    "objects": {"r": {"model": "arm", "jointValues": {"a": {"trajectory": "t"}}}},
    "trajectories": {"t": {"controlPoints": [{"t": 0, "f": 0, "df": 3}, {"t": 1.003, "f": 0.5, "df": -1}]}},
}


def test_a_hermite_segments_peak_between_its_subdivisions_is_a_frame() -> None:
    motion = scene_to_motion(preprocess(PEAKING))
    from motion_formats_ros.codecs.scene.trajectory import Trajectory

    assert motion.position is not None
    dense = np.linspace(0.0, 1.003, 2_000_001)

    spline = Trajectory(times=[0.0, 1.003], f=[0.0, 0.5], df=[3.0, -1.0])
    exact = spline.evaluate(dense)[:, 0]
    peak = int(np.argmax(exact))
    (turn,) = spline.turning_points()
    assert turn == pytest.approx(dense[peak], abs=1e-6)
    assert turn in motion.times
    assert motion.position[:, 0].max() == pytest.approx(exact[peak], abs=1e-12)
    assert motion.position[:, 0].max() >= exact.max()  # no frame misses the spline's peak


def test_a_segment_without_a_turn_inside_adds_no_frame() -> None:
    """Zero slopes at both ends: the extrema are the control points, the frames stay at 100 Hz."""
    motion = scene_to_motion(preprocess(two_arms()))
    assert motion.num_frames == 101


#: Cubic segments with zero slopes at their control points: the turning point found at the
#: end of the segment from 1 to 2 s is 2e-16 s before the control point at 2 s.
TURNING_AT_A_POINT = {
    "models": {"arm": {"kind": "robot", "joints": {f"j{i}": {} for i in range(6)}, "links": {}}},
    "objects": {"r": {"model": "arm", "jointValues": {f"j{i}": {"trajectory": "m", "index": i} for i in range(6)}}},
    "trajectories": {
        "m": {
            "controlPoints": [
                {"f": f, "df": [0] * 6}
                for f in (
                    [0, -1, 1.6, -0.6, 0.2, 0.2],
                    [0, -1, 1.6, -0.6, 0.2, 0.2],
                    [-0.0594454, -1.19268, 1.5129, -0.275504, -0.0914712, 0.307246],
                    [-0.34929, -1.43175, 1.38916, -0.234983, -0.20061, 0.0244558],
                )
            ]
        }
    },
}


def test_a_turning_point_at_a_control_point_is_that_control_points_frame() -> None:
    motion = scene_to_motion(preprocess(TURNING_AT_A_POINT))
    near = motion.times[np.abs(motion.times - 2.0) < 1e-6]
    np.testing.assert_array_equal(near, [2.0])  # the control point's time, once
    assert np.diff(motion.times).min() > 1e-9
    assert motion.num_frames == 301  # 100 Hz over 3 s


def test_subdivisions_near_another_trajectorys_control_points_are_left_out() -> None:
    from motion_formats_ros.codecs.scene.motion import sample_times

    # a second trajectory whose first control point comes 5e-17 s after the first one's 100 Hz
    # subdivision at 0.3 s
    scene_dict = json.loads(json.dumps(TURNING_AT_A_POINT))
    scene_dict["trajectories"]["n"] = {"controlPoints": [{"t": 0.1 + 0.2, "f": 0}, {"t": 1.7, "f": 1}]}
    times = sample_times(preprocess(scene_dict), {"m", "n"})
    assert np.diff(times).min() > 1e-9
    for point in (0.0, 1.0, 2.0, 3.0, 0.1 + 0.2, 1.7):  # control points are kept at their own times
        assert point in times
    assert 0.3 not in times


def test_control_points_closer_than_a_nanosecond_are_frames_of_their_own() -> None:
    """The scene's own times are kept (a bag writer refuses them, naming them)."""
    scene_dict = json.loads(json.dumps(TURNING_AT_A_POINT))
    scene_dict["trajectories"]["m"]["controlPoints"][2]["t"] = 1.0 + 1e-12
    motion = scene_to_motion(preprocess(scene_dict))
    assert 1.0 in motion.times and 1.0 + 1e-12 in motion.times


def test_every_corpus_scene_reads_into_frames_a_bag_can_hold(scenes: Path) -> None:
    for path in sorted(scenes.glob("*.json")):
        if path.name in NOT_SCENES:
            continue
        times = read(path).motion.times
        assert times.size == 1 or np.diff(np.round(times * 1e9)).min() > 0, path.name
