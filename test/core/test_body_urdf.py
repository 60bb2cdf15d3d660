"""The URDF made from a Choreonoid ``.body`` (what /robot_description carries for it) holds what
the body states: every link's mass, centre of mass and inertia, its collision shapes, and its
joints' limits; where the body states no velocity or effort limit, a value no tool reads as a
limit (URDF requires both; 0 reads as a limit of zero), with a notice.

The reference is built here from the ``.body`` YAML itself, read as Choreonoid's body file
reference describes it (``mass`` in kg; ``center_of_mass`` in the link's own frame;
``inertia`` nine numbers row by row, or the six of its upper triangle, about the centre of
mass; ``joint_range`` in degrees under the default ``angleUnit``), and the URDF is read back
by the package's reader and by pinocchio.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from conftest import corpus_path

from motion_formats_ros.core.kinematics import Mesh, RobotModel, load_robot_model
from motion_formats_ros.core.kinematics.urdf import UNLIMITED
from motion_formats_ros.core.notices import NoticeKind, collect
from motion_formats_ros.core.spatial import quat_to_matrix

pin = pytest.importorskip("pinocchio", reason="pinocchio (the test extra) is the independent URDF reader")


def body_reference(path: Path) -> dict[str, dict[str, Any]]:
    """Each link's mass, centre of mass, inertia and joint range (rad), from the YAML as written."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    degrees = str(doc.get("angleUnit", doc.get("angle_unit", "degree"))) == "degree"
    out: dict[str, dict[str, Any]] = {}
    for link in doc["links"]:
        tensor = np.asarray(link.get("inertia", np.zeros(9)), dtype=np.float64)
        if tensor.size == 6:  # the upper triangle: xx, xy, xz, yy, yz, zz
            xx, xy, xz, yy, yz, zz = tensor
            tensor = np.array([xx, xy, xz, xy, yy, yz, xz, yz, zz])
        rng = link.get("joint_range", link.get("jointRange"))
        if rng is not None:
            rng = [math.radians(v) if degrees else v for v in (rng if isinstance(rng, list) else [-rng, rng])]
        out[link["name"]] = {
            "mass": float(link.get("mass", 0.0)),
            "com": np.asarray(link.get("center_of_mass", link.get("centerOfMass", [0, 0, 0])), dtype=np.float64),
            "inertia": tensor.reshape(3, 3),
            "range": rng,
        }
    return out


@pytest.fixture(scope="module")
def sr1() -> tuple[Path, RobotModel, str, list[Any]]:
    """SR1.body, its model, the URDF /robot_description carries for it and the notices of writing it."""
    path = corpus_path("choreonoid", "model", "SR1.body")
    model = load_robot_model(path)
    with collect(warn=False) as report:
        text = model.description
    return path, model, text, report.notices


def test_sr1_urdf_weighs_what_the_body_states(sr1: tuple[Path, RobotModel, str, list[Any]]) -> None:
    path, _, text, _ = sr1
    reference = body_reference(path)
    assert len(reference) == 30
    assert math.isclose(sum(r["mass"] for r in reference.values()), 130.8, abs_tol=1e-9)
    ours = RobotModel.from_urdf(text)
    assert math.isclose(sum(link.inertial.mass for link in ours.links if link.inertial), 130.8, abs_tol=1e-9)
    for link in ours.links:
        ref = reference[link.name]
        assert link.inertial is not None, link.name
        assert link.inertial.mass == ref["mass"], link.name
        assert np.allclose(link.inertial.com, ref["com"], rtol=0, atol=1e-12), link.name
        assert np.allclose(link.inertial.inertia, ref["inertia"], rtol=0, atol=1e-12), link.name
    model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    assert math.isclose(sum(inertia.mass for inertia in model.inertias), 130.8, abs_tol=1e-9)
    for joint_id in range(1, model.njoints):  # each joint's body is one link (no fixed joints in SR1)
        name = model.names[joint_id]
        ref = reference["WAIST" if name == "root_joint" else name]
        inertia = model.inertias[joint_id]
        assert inertia.mass == ref["mass"], name
        assert np.allclose(inertia.lever, ref["com"], rtol=0, atol=1e-12), name
        assert np.allclose(inertia.inertia, ref["inertia"], rtol=0, atol=1e-12), name


def test_sr1_urdf_has_every_link_s_collision_shapes(sr1: tuple[Path, RobotModel, str, list[Any]]) -> None:
    """SR1 has no Visual or Collision nodes: every shape is both, so each link collides as it is drawn."""
    _, body, text, _ = sr1
    model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    per_link = {}
    for kind in (pin.GeometryType.COLLISION, pin.GeometryType.VISUAL):
        geometry = pin.buildGeomFromUrdfString(model, text, kind)
        names = [str(model.frames[g.parentFrame].name) for g in geometry.geometryObjects]
        per_link[kind] = {name: names.count(name) for name in names}
    assert len(per_link[pin.GeometryType.COLLISION]) == 30
    assert per_link[pin.GeometryType.COLLISION] == per_link[pin.GeometryType.VISUAL]
    again = RobotModel.from_urdf(text)
    assert [len(link.collisions) for link in again.links] == [len(link.visuals) for link in again.links]
    assert sum(len(link.collisions) for link in body.links) == 49  # boxes and cylinders: one URDF shape each
    assert sum(per_link[pin.GeometryType.COLLISION].values()) == 49


def test_sr1_urdf_keeps_the_forward_kinematics(sr1: tuple[Path, RobotModel, str, list[Any]]) -> None:
    """Every link's pose for 20 random configurations (and root poses): the ``.body`` model's and
    pinocchio's on the URDF written from it."""
    _, body, text, _ = sr1
    model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    data = model.createData()
    names = body.actuated_joints
    rng = np.random.default_rng(20)
    q = rng.uniform(-1.5, 1.5, size=(20, len(names)))
    root_xyz = rng.uniform(-1.0, 1.0, size=(20, 3))
    root_quat = rng.normal(size=(20, 4))
    root_quat /= np.linalg.norm(root_quat, axis=1, keepdims=True)
    poses = body.link_poses(names, q, root_xyz, root_quat)
    for i in range(20):
        config = pin.neutral(model)
        config[:3], config[3:7] = root_xyz[i], root_quat[i]
        for name, value in zip(names, q[i], strict=True):
            config[model.joints[model.getJointId(name)].idx_q] = value
        pin.framesForwardKinematics(model, data, config)
        for k, link in enumerate(poses.links):
            placement = data.oMf[model.getFrameId(link, pin.FrameType.BODY)]
            assert np.abs(placement.translation - poses.translation[i, k]).max() < 1e-9, (i, link)
            assert np.abs(placement.rotation - quat_to_matrix(poses.rotation[i, k])).max() < 1e-9, (i, link)


def test_sr1_urdf_limits_are_the_body_s_and_none_is_zero(sr1: tuple[Path, RobotModel, str, list[Any]]) -> None:
    path, _, text, notices = sr1
    reference = body_reference(path)
    limits = ET.fromstring(text).findall("joint/limit")
    assert len(limits) == 29
    assert 'velocity="0"' not in text and 'effort="0"' not in text
    assert {(el.get("velocity"), el.get("effort")) for el in limits} == {(repr(UNLIMITED), repr(UNLIMITED))}
    model = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    for name, ref in reference.items():
        if ref["range"] is None:
            continue
        idx = model.joints[model.getJointId(name)].idx_q
        assert math.isclose(model.lowerPositionLimit[idx], ref["range"][0], abs_tol=1e-12), name
        assert math.isclose(model.upperPositionLimit[idx], ref["range"][1], abs_tol=1e-12), name
        assert model.velocityLimit[idx - 1] == model.effortLimit[idx - 1] == UNLIMITED, name  # idx_v: no quaternion
    said = [n for n in notices if n.kind is NoticeKind.MISSING]
    assert len(notices) == len(said) == 1
    assert said[0].file == str(path)
    assert said[0].message.startswith("29 joints state neither a velocity nor an effort limit (WAIST_P, WAIST_R, ")
    assert "gives them 1e+09, which no tool reads as a limit" in said[0].message


ARM_BODY = """format: ChoreonoidBody
formatVersion: 1.0
angleUnit: degree
name: arm
links:
  - name: base
    jointType: fixed
    mass: 2.0
    inertia: [ 0.1, 0.01, 0, 0.2, 0, 0.3 ]
    elements:
      - type: Visual
        elements:
          - type: Shape
            geometry: { type: Box, size: [ 0.2, 0.2, 0.1 ] }
      - type: Collision
        elements:
          - type: Resource
            uri: "meshes/base hull.stl"
  - name: turn
    parent: base
    jointType: revolute
    jointAxis: Z
    maxJointVelocity: 90
    mass: 1.0
    centerOfMass: [ 0, 0, 0.1 ]
    inertia: [ 0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.02 ]
    elements:
      type: Resource
      uri: "package:///armpkg/meshes/turn.stl"
  - name: slide
    parent: turn
    jointType: prismatic
    jointAxis: X
    jointRange: [ -0.1, 0.2 ]
    elements:
      type: Shape
      geometry: { type: Capsule, radius: 0.02, height: 0.1 }
"""


def test_body_urdf_writes_collisions_with_the_meshes_named_as_ros_reads_them(tmp_path: Path) -> None:
    """Collision meshes take the visuals' names: relative ones as absolute ``file://`` URIs, a
    ``package:///`` one as ``package://``; a joint states what it states (a turn without a range is
    continuous, with the velocity it states and an effort no tool reads as a limit)."""
    path = tmp_path / "arm robot" / "arm.body"
    path.parent.mkdir()
    path.write_text(ARM_BODY, encoding="utf-8")
    with collect(warn=False) as report:
        model = load_robot_model(path)
        text = model.description
    assert [n.kind for n in report.notices] == [NoticeKind.READ_CHOICE, NoticeKind.MISSING]
    assert report.notices[1].message.startswith(
        "1 joint states no velocity limit (slide) and 2 joints state no effort limit (turn, slide): "
    )
    root = ET.fromstring(text)
    links = {el.get("name"): el for el in root.findall("link")}
    base_collision = links["base"].find("collision/geometry/mesh")
    assert base_collision is not None and links["base"].find("visual/geometry/box") is not None
    assert base_collision.get("filename") == (path.parent / "meshes" / "base hull.stl").as_uri()
    assert [el.get("filename") for el in links["turn"].findall("*/geometry/mesh")] == [
        "package://armpkg/meshes/turn.stl"
    ] * 2
    assert len(links["slide"].findall("collision")) == 3  # the capsule: a cylinder and two spheres
    inertial = links["base"].find("inertial")
    assert inertial is not None and inertial.find("mass").get("value") == "2.0"  # type: ignore[union-attr]
    tensor = inertial.find("inertia").attrib  # type: ignore[union-attr]
    assert {k: float(v) for k, v in tensor.items()} == {
        "ixx": 0.1, "ixy": 0.01, "ixz": 0.0, "iyy": 0.2, "iyz": 0.0, "izz": 0.3
    }  # fmt: skip
    assert links["slide"].find("inertial") is None  # it states no mass
    joints = {el.get("name"): el for el in root.findall("joint")}
    assert joints["turn"].get("type") == "continuous"
    assert joints["turn"].find("limit").attrib == {  # type: ignore[union-attr]
        "effort": repr(UNLIMITED), "velocity": repr(math.pi / 2)
    }  # fmt: skip
    assert joints["slide"].find("limit").attrib == {  # type: ignore[union-attr]
        "lower": "-0.1", "upper": "0.2", "effort": repr(UNLIMITED), "velocity": repr(UNLIMITED)
    }  # fmt: skip
    again = RobotModel.from_urdf(text)
    mesh = again.links[0].collisions[0].geometry
    assert isinstance(mesh, Mesh) and mesh.filename.startswith("file://")


def test_a_continuous_joint_that_states_no_limit_gets_none(tmp_path: Path) -> None:
    """URDF's ``<limit>`` is optional on a continuous joint: none is written rather than a made-up one."""
    urdf = (
        '<robot name="r"><link name="a"/><link name="b"/>'
        '<joint name="spin" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint></robot>'
    )
    with collect(warn=False) as report:
        text = RobotModel.from_urdf(urdf).to_urdf()
    assert report.notices == []
    assert ET.fromstring(text).find("joint/limit") is None
