"""Robot models and their forward kinematics, checked against an independent FK (yourdfpy).

Every link pose for random configurations must equal yourdfpy's within 1e-9: on the
NAO V5 and Panda URDFs of the corpus and on URDFs written here (continuous, prismatic,
planar, floating, mimic chains, odd axes and origins). yourdfpy treats floating and
planar joints as fixed and follows only one step of a mimic chain, so the URDF it is
given states those values the plain way: the floating / planar values as an extra fixed
joint, the chain as a direct mimic of the leader. The Choreonoid ``.body`` models are
checked against a naive per-frame implementation written here from the YAML itself.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import corpus_params, corpus_path
from scipy.spatial.transform import Rotation

from motion_formats_ros.core.errors import MissingDependencyError, ReadError
from motion_formats_ros.core.joint_limits import JointLimits
from motion_formats_ros.core.kinematics import (
    Box,
    Capsule,
    Cylinder,
    Mesh,
    RobotModel,
    Sphere,
    load_robot_model,
)

yourdfpy = pytest.importorskip("yourdfpy", reason="yourdfpy (the test extra) is the independent FK")

TOL = 1e-9


def matrices(translation: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """(..., 3), (..., 4) xyzw → (..., 4, 4)."""
    flat_t = translation.reshape(-1, 3)
    flat_q = rotation.reshape(-1, 4)
    out = np.tile(np.eye(4), (flat_t.shape[0], 1, 1))
    out[:, :3, :3] = Rotation.from_quat(flat_q).as_matrix()
    out[:, :3, 3] = flat_t
    return out.reshape((*translation.shape[:-1], 4, 4))


def peer(urdf_text: str, tmp_path: Path, name: str = "peer.urdf") -> object:
    path = tmp_path / name
    path.write_text(urdf_text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False, load_collision_meshes=False)


def peer_poses(robot: object, cfg: dict[str, float], links: list[str]) -> np.ndarray:
    robot.update_cfg(cfg)  # type: ignore[attr-defined]
    return np.stack([robot.get_transform(link) for link in links])  # type: ignore[attr-defined]


def random_values(names: tuple[str, ...], rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-2.5, 2.5, size=len(names))


# --------------------------------------------------------------------------- corpus URDFs
@pytest.mark.parametrize("path", corpus_params("urdf", "*.urdf"))
def test_corpus_urdf_link_poses_equal_yourdfpy(path: Path, tmp_path: Path) -> None:
    model = load_robot_model(path)
    other = peer(path.read_text(encoding="utf-8"), tmp_path)
    assert set(model.actuated_joints) == set(other.actuated_joint_names)
    assert model.root_link == other.base_link
    links = list(model.link_names)
    assert set(links) == set(other.link_map)
    rng = np.random.default_rng(7)
    names = model.actuated_joints
    configs = np.stack([random_values(names, rng) for _ in range(6)])
    poses = model.link_poses(names, configs)  # all configurations in one call
    assert poses.links == tuple(links)
    ours = matrices(poses.translation, poses.rotation)
    for i, q in enumerate(configs):
        theirs = peer_poses(other, dict(zip(names, q, strict=True)), links)
        assert np.abs(ours[i] - theirs).max() < TOL


def test_nao_has_the_mof_joint_names() -> None:
    model = load_robot_model(corpus_path("urdf", "nao.urdf"))
    assert model.name == "NaoH25V50" and model.root_link == "base_link"
    for joint in ("HeadYaw", "LHipYawPitch", "RAnkleRoll", "LShoulderPitch", "RElbowRoll"):
        assert joint in model.actuated_joints
    visuals = [v for link in model.links for v in link.visuals]
    meshes = [v.geometry for v in visuals if isinstance(v.geometry, Mesh)]
    assert meshes and meshes[0].filename.startswith("package://nao_meshes/")
    assert np.allclose(meshes[0].scale, 0.1)


def test_panda_mimic_and_prismatic() -> None:
    model = load_robot_model(corpus_path("urdf", "panda.urdf"))
    mimics = [j for j in model.joints if j.mimic is not None]
    assert mimics and all(j.type == "prismatic" for j in mimics)
    assert all(j.name not in model.actuated_joints for j in mimics)
    limits = JointLimits.from_urdf(corpus_path("urdf", "panda.urdf").read_text(encoding="utf-8"))
    assert limits["panda_joint1"].upper == pytest.approx(2.8973)


# --------------------------------------------------------------------------- written URDFs
def joint_xml(name: str, kind: str, parent: str, child: str, rng: np.random.Generator, extra: str = "") -> str:
    xyz = " ".join(f"{v:.6f}" for v in rng.uniform(-0.3, 0.3, 3))
    rpy = " ".join(f"{v:.6f}" for v in rng.uniform(-math.pi, math.pi, 3))
    return (
        f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}" rpy="{rpy}"/>{extra}</joint>\n'
    )


def written_robot(rng: np.random.Generator) -> tuple[str, str, list[tuple[str, str, str]]]:
    """Our URDF, the URDF for yourdfpy (mimic chain written directly) and the floating / planar joints.

    The trees branch: a chain of revolute / continuous / prismatic joints with odd,
    unnormalised and default axes, a planar and a floating joint in the middle, a
    mimic chain c -> b -> a and a fixed tip.
    """
    links = [f"l{i}" for i in range(12)]
    ours: list[str] = ['<robot name="written">\n', *(f'<link name="{n}"/>\n' for n in links)]
    peer_: list[str] = list(ours)
    limit = '<limit lower="-3" upper="3" effort="1" velocity="1"/>'

    def both(text: str, peer_text: str | None = None) -> None:
        ours.append(text)
        peer_.append(text if peer_text is None else peer_text)

    both(joint_xml("a", "revolute", "l0", "l1", rng, f'<axis xyz="0 2 0.5"/>{limit}'))
    both(joint_xml("b_cont", "continuous", "l1", "l2", rng))  # default axis 1 0 0
    both(joint_xml("p", "prismatic", "l2", "l3", rng, f'<axis xyz="-1 1 1"/>{limit}'))
    both(joint_xml("plane", "planar", "l3", "l4", rng, '<axis xyz="0 0 1"/>'))
    both(joint_xml("free", "floating", "l4", "l5", rng))
    both(joint_xml("r", "revolute", "l5", "l6", rng, f'<axis xyz="0.3 -0.2 0.9"/>{limit}'))
    both(joint_xml("tip", "fixed", "l6", "l7", rng))
    # A branch from l1: m1 mimics a, m2 mimics m1 (a chain), m3 mimics m2.
    both(
        joint_xml(
            "m1",
            "revolute",
            "l1",
            "l8",
            rng,
            f'<axis xyz="0 0 1"/>{limit}<mimic joint="a" multiplier="2" offset="0.1"/>',
        )
    )
    both(
        joint_xml(
            "m2", "continuous", "l8", "l9", rng, '<axis xyz="1 1 0"/><mimic joint="m1" multiplier="-0.5" offset="0.3"/>'
        ),
        None,
    )
    both(
        joint_xml(
            "m3", "prismatic", "l9", "l10", rng, f'<axis xyz="0 1 0"/>{limit}<mimic joint="m2" multiplier="0.25"/>'
        )
    )
    both(joint_xml("side", "revolute", "l0", "l11", rng, f'<axis xyz="0 0 -3"/>{limit}'))
    # yourdfpy follows one mimic step only: give it m2 and m3 as direct mimics of a.
    # m1 = 2a + 0.1; m2 = -0.5 m1 + 0.3 = -a + 0.25; m3 = 0.25 m2 = -0.25 a + 0.0625
    peer_text = "".join(peer_)
    # yourdfpy slides a prismatic joint by value * axis as written: give it the unit axis we slide along.
    unit = " ".join(repr(v) for v in (np.array([-1.0, 1.0, 1.0]) / math.sqrt(3)).tolist())
    peer_text = peer_text.replace('<axis xyz="-1 1 1"/>', f'<axis xyz="{unit}"/>')
    peer_text = peer_text.replace(
        '<mimic joint="m1" multiplier="-0.5" offset="0.3"/>', '<mimic joint="a" multiplier="-1" offset="0.25"/>'
    )
    peer_text = peer_text.replace(
        '<mimic joint="m2" multiplier="0.25"/>', '<mimic joint="a" multiplier="-0.25" offset="0.0625"/>'
    )
    ours.append("</robot>\n")
    return "".join(ours), peer_text + "</robot>\n", [("plane", "l3", "l4"), ("free", "l4", "l5")]


def freeze(peer_text: str, joint: str, child: str, xyz: np.ndarray, quat: np.ndarray) -> str:
    """The URDF with ``joint``'s values as an extra fixed joint between it and its child."""
    rpy = Rotation.from_quat(quat).as_euler("xyz")
    head, tail = peer_text.split(f'<joint name="{joint}"', 1)
    body, rest = tail.split("</joint>", 1)
    body = body.replace(f'<child link="{child}"/>', f'<child link="{joint}_between"/>').replace(
        'type="floating"', 'type="fixed"'
    )
    body = body.replace('type="planar"', 'type="fixed"')
    xyz_text = " ".join(repr(float(v)) for v in xyz)
    rpy_text = " ".join(repr(float(v)) for v in rpy)
    extra = (
        f'<link name="{joint}_between"/><joint name="{joint}_values" type="fixed"><parent link="{joint}_between"/>'
        f'<child link="{child}"/><origin xyz="{xyz_text}" rpy="{rpy_text}"/></joint>'
    )
    return f'{head}<joint name="{joint}"{body}</joint>{extra}{rest}'


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_written_urdf_link_poses_equal_yourdfpy(seed: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(seed)
    ours_text, peer_text, _ = written_robot(rng)
    model = RobotModel.from_urdf(ours_text, "written.urdf")
    assert model.actuated_joints == ("a", "b_cont", "p", "plane", "free", "r", "side")
    names: list[str] = ["a", "b_cont", "p", "r", "side", "plane/x", "plane/y", "plane/theta"]
    names += [f"free/{v}" for v in ("trans_x", "trans_y", "trans_z", "rot_x", "rot_y", "rot_z", "rot_w")]
    configs = []
    for _ in range(4):
        q = rng.uniform(-2.0, 2.0, size=len(names))
        q[-4:] = Rotation.random(random_state=int(rng.integers(1 << 30))).as_quat() * rng.uniform(0.5, 2.0)
        configs.append(q)
    poses = model.link_poses(names, np.stack(configs))
    assert poses.missing == () and poses.unknown == ()
    ours = matrices(poses.translation, poses.rotation)
    links = list(model.link_names)
    for i, q in enumerate(configs):
        value = dict(zip(names, q, strict=True))
        text = freeze(
            peer_text,
            "plane",
            "l4",
            np.array([value["plane/x"], value["plane/y"], 0.0]),
            Rotation.from_euler("z", value["plane/theta"]).as_quat(),
        )
        quat = np.array([value[f"free/rot_{c}"] for c in "xyzw"])
        text = freeze(
            text, "free", "l5", np.array([value[f"free/trans_{c}"] for c in "xyz"]), quat / np.linalg.norm(quat)
        )
        other = peer(text, tmp_path, f"peer{i}.urdf")
        theirs = peer_poses(other, {k: value[k] for k in ("a", "b_cont", "p", "r", "side")}, links)
        assert np.abs(ours[i] - theirs).max() < TOL, i


def test_planar_joint_about_a_tilted_normal_stays_in_its_plane() -> None:
    urdf = """<robot name="t"><link name="a"/><link name="b"/>
      <joint name="pl" type="planar"><parent link="a"/><child link="b"/><axis xyz="1 1 1"/></joint></robot>"""
    model = RobotModel.from_urdf(urdf)
    rng = np.random.default_rng(3)
    q = rng.normal(size=(50, 3))
    poses = model.link_poses(["pl/x", "pl/y", "pl/theta"], q)
    normal = np.ones(3) / math.sqrt(3)
    t = poses.translation[:, 1]
    assert np.abs(t @ normal).max() < 1e-12
    assert np.allclose(np.linalg.norm(t, axis=1), np.linalg.norm(q[:, :2], axis=1))
    rotvec = Rotation.from_quat(poses.rotation[:, 1]).as_rotvec()
    assert np.allclose(
        rotvec, np.outer(q[:, 2], normal) - np.outer(np.round(q[:, 2] / (2 * math.pi)) * 2 * math.pi, normal), atol=1e-9
    )


def test_root_pose_goes_on_top() -> None:
    model = RobotModel.from_urdf(written_robot(np.random.default_rng(4))[0])
    rng = np.random.default_rng(5)
    q = rng.normal(size=(10, len(model.actuated_joints) - 2))
    names = [n for n in model.actuated_joints if n not in ("plane", "free")]
    root_t = rng.normal(size=(10, 3))
    root_q = Rotation.random(10, random_state=1).as_quat()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = model.link_poses(names, q)
        top = model.link_poses(names, q, root_t, root_q)
    expected = matrices(root_t, root_q)[:, None] @ matrices(base.translation, base.rotation)
    assert np.abs(matrices(top.translation, top.rotation) - expected).max() < TOL


def test_joint_transforms_compose_to_link_poses() -> None:
    model = load_robot_model(corpus_path("urdf", "nao.urdf"))
    rng = np.random.default_rng(2)
    names = model.actuated_joints
    q = rng.normal(size=(20, len(names)))
    static, moving = model.joint_transforms(names, q, frame_prefix="nao/")
    assert len(static) + len(moving) == len(model.joints)
    assert {s.child for s in static} == {"nao/" + j.child for j in model.joints if j.type == "fixed"}
    frames = {"nao/" + model.root_link: np.tile(np.eye(4), (20, 1, 1))}
    edges = [
        (s.parent, s.child, matrices(np.tile(s.translation, (20, 1)), np.tile(s.rotation, (20, 1)))) for s in static
    ]
    edges += [(m.parent, m.child, matrices(m.translation, m.rotation)) for m in moving]
    while edges:
        ready = [e for e in edges if e[0] in frames]
        assert ready
        for e in ready:
            frames[e[1]] = frames[e[0]] @ e[2]
            edges.remove(e)
    poses = model.link_poses(names, q)
    ours = matrices(poses.translation, poses.rotation)
    for i, link in enumerate(poses.links):
        assert np.abs(frames["nao/" + link] - ours[:, i]).max() < TOL


def test_missing_unknown_and_nan_joints_warn_once_each() -> None:
    model = load_robot_model(corpus_path("urdf", "nao.urdf"))
    names = ["HeadYaw", "HeadPitch", "NotAJoint", "AlsoNot"]
    q = np.zeros((5, 4))
    q[2, 0] = np.nan
    q[0, 1] = np.nan
    q[1, 1] = 0.5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        poses = model.link_poses(names, q)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 3, messages
    missing = [m for m in messages if "held at 0" in m]
    assert len(missing) == 1 and "LHipYawPitch" in missing[0] and "HeadYaw," not in missing[0]
    unknown = [m for m in messages if "NotAJoint" in m]
    assert len(unknown) == 1 and "AlsoNot" in unknown[0]
    assert "HeadYaw" in poses.held and "HeadPitch" in poses.held
    assert np.all(np.isfinite(poses.translation)) and np.all(np.isfinite(poses.rotation))
    assert "HeadYaw" not in poses.missing and "RAnkleRoll" in poses.missing
    assert poses.unknown == ("NotAJoint", "AlsoNot")
    # A held value: HeadPitch NaN at frame 0 is 0, HeadYaw NaN at frame 2 keeps frame 1's 0.
    q2 = q.copy()
    q2[0, 1] = 0.0
    q2[2, 0] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = model.link_poses(names, q2, warn=False)
    assert np.array_equal(again.translation, poses.translation)


# --------------------------------------------------------------------------- .body models
def naive_body_poses(path: Path, names: list[str], q: np.ndarray) -> dict[str, np.ndarray]:
    """Every link's 4x4 pose, one frame at a time, straight from the YAML (degree or radian)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    unit = doc.get("angleUnit", doc.get("angle_unit", "degree"))
    scale = math.pi / 180 if unit == "degree" else 1.0
    by_name = {lk["name"]: lk for lk in doc["links"]}

    def rot(spec: object) -> np.ndarray:
        if spec is None:
            return np.eye(3)
        if isinstance(spec[0], list):  # type: ignore[index]
            out = np.eye(3)
            for part in spec:  # type: ignore[union-attr]
                out = out @ rot(part)
            return out
        x, y, z, a = spec  # type: ignore[misc]
        return Rotation.from_rotvec(np.array([x, y, z]) / np.linalg.norm([x, y, z]) * a * scale).as_matrix()

    def axis(lk: dict) -> np.ndarray:
        value = lk.get("jointAxis", lk.get("joint_axis", "Z"))
        if isinstance(value, str):
            v = {"X": [1, 0, 0], "Y": [0, 1, 0], "Z": [0, 0, 1]}[value[-1]]
            return -np.array(v, float) if value.startswith("-") else np.array(v, float)
        return np.array(value, float) / np.linalg.norm(value)

    value = dict(zip(names, q, strict=True))
    poses: dict[str, np.ndarray] = {}

    def pose(name: str) -> np.ndarray:
        if name in poses:
            return poses[name]
        lk = by_name[name]
        if "parent" not in lk:
            poses[name] = np.eye(4)
            return poses[name]
        local = np.eye(4)
        local[:3, 3] = lk.get("translation", [0, 0, 0])
        local[:3, :3] = rot(lk.get("rotation"))
        move = np.eye(4)
        kind = lk.get("jointType", lk.get("joint_type"))
        if kind == "revolute":
            move[:3, :3] = Rotation.from_rotvec(axis(lk) * value.get(name, 0.0)).as_matrix()
        elif kind in ("prismatic", "slide"):
            move[:3, 3] = axis(lk) * value.get(name, 0.0)
        poses[name] = pose(lk["parent"]) @ local @ move
        return poses[name]

    for name in by_name:
        pose(name)
    return poses


@pytest.mark.parametrize("path", corpus_params("choreonoid/model", "*.body"))
def test_body_link_poses_equal_a_naive_implementation(path: Path) -> None:
    model = load_robot_model(path)
    names = list(model.actuated_joints)
    rng = np.random.default_rng(11)
    q = rng.uniform(-1.5, 1.5, size=(4, len(names)))
    poses = model.link_poses(names, q)
    ours = matrices(poses.translation, poses.rotation)
    for i in range(q.shape[0]):
        naive = naive_body_poses(path, names, q[i])
        for k, link in enumerate(poses.links):
            assert np.abs(ours[i, k] - naive[link]).max() < TOL, (i, link)


@pytest.mark.parametrize("path", corpus_params("choreonoid/model", "*.body"))
def test_body_to_urdf_gives_the_same_poses_in_yourdfpy(path: Path, tmp_path: Path) -> None:
    model = load_robot_model(path)
    other = peer(model.to_urdf(), tmp_path)
    names = model.actuated_joints
    rng = np.random.default_rng(12)
    q = rng.uniform(-1.5, 1.5, size=(3, len(names)))
    ours = matrices(*(lambda p: (p.translation, p.rotation))(model.link_poses(names, q)))
    for i in range(q.shape[0]):
        theirs = peer_poses(other, dict(zip(names, q[i], strict=True)), list(model.link_names))
        assert np.abs(ours[i] - theirs).max() < TOL


def test_body_models_names_root_and_visuals() -> None:
    sr1 = load_robot_model(corpus_path("choreonoid", "model", "SR1.body"))
    assert sr1.name == "SR1" and sr1.root_link == "WAIST" and len(sr1.actuated_joints) == 29
    waist = sr1.links[0]
    assert isinstance(waist.visuals[0].geometry, Box) and waist.visuals[0].rgba == (0.8, 0.8, 0.8, 1.0)
    assert np.allclose(waist.visuals[1].origin_xyz, [0, 0, 0.0955])
    # WAIST_P's cylinder stands along y in Choreonoid: its URDF z axis points along y.
    cyl = next(v for v in sr1.links[1].visuals if isinstance(v.geometry, Cylinder))
    assert np.allclose(Rotation.from_quat(cyl.origin_quat).apply([0, 0, 1]), [0, 1, 0]) or np.allclose(
        Rotation.from_quat(cyl.origin_quat).apply([0, 0, 1]), [0, -1, 0]
    )
    gr = load_robot_model(corpus_path("choreonoid", "model", "GR001.body"))
    axes = {j.name: j.axis for j in gr.joints}
    assert gr.root_link == "WAIST" and len(gr.actuated_joints) == 20
    assert any(np.array_equal(a, [0, -1, 0]) for a in axes.values())  # a "-Y" joint axis
    mesh = gr.links[0].visuals[0].geometry
    assert isinstance(mesh, Mesh) and mesh.filename == "parts/WAIST.stl"
    hrp = load_robot_model(corpus_path("choreonoid", "model", "HRP4C.body"))
    kinds = {type(v.geometry) for link in hrp.links for v in link.visuals}
    assert {Mesh, Sphere, Capsule}.issubset(kinds)
    # Collision-only shapes are no visuals: the WAIST's visual node holds one mesh and its spheres.
    assert not any(isinstance(v.geometry, Capsule) for v in hrp.links[hrp.link_names.index("L_HIP_P")].visuals)
    description = hrp.description
    assert "file://" in description and "mesh/WAIST.obj" in description


# --------------------------------------------------------------------------- bad input
BAD_URDF = [
    ("<robot", r"bad\.urdf:1: invalid URDF XML"),
    ("<sdf/>", r"bad\.urdf:1: not a URDF: the root element is <sdf>"),
    (
        '<robot name="r"><link name="a"/><link name="b"/>\n'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>\n'
        '<joint name="k" type="fixed"><parent link="b"/><child link="a"/></joint></robot>',
        r"bad\.urdf:3: joint 'k': link 'a' is already|cycle",
    ),
    (
        '<robot name="r"><link name="a"/><link name="b"/><link name="c"/>\n'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint></robot>',
        r"bad\.urdf: 2 root links .*: a, c",
    ),
    (
        '<robot name="r"><link name="a"/>\n<joint name="j" type="fixed"><parent link="a"/>'
        '<child link="nope"/></joint></robot>',
        r"bad\.urdf:2: joint 'j': its child link 'nope' is not defined",
    ),
    (
        '<robot name="r"><link name="a"/><link name="b"/>\n<joint name="j" type="hinge"><parent link="a"/>'
        '<child link="b"/></joint></robot>',
        r"bad\.urdf:2: <joint>: joint 'j' has the unknown type 'hinge'",
    ),
    (
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed"><parent link="a"/>\n'
        '<child link="b"/>\n<origin xyz="0 zero 0"/></joint></robot>',
        r"bad\.urdf:3: <origin>: xyz='0 zero 0' is not 3 numbers",
    ),
    (
        '<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="revolute"><parent link="a"/>\n'
        '<child link="b"/><axis xyz="0 0 0"/></joint></robot>',
        r"bad\.urdf:2: joint 'j': the axis \[0\.0, 0\.0, 0\.0\] has no direction",
    ),
    (
        '<robot name="r"><link name="a"/><link name="b"/>\n<joint name="j" type="revolute"><parent link="a"/>'
        '<child link="b"/><mimic joint="ghost"/></joint></robot>',
        r"bad\.urdf:2: joint 'j' mimics joint 'ghost', which is not defined",
    ),
    (
        '<robot name="r"><link name="a"/><link name="b"/><link name="c"/>\n'
        '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><mimic joint="k"/></joint>\n'
        '<joint name="k" type="revolute"><parent link="b"/><child link="c"/><mimic joint="j"/></joint></robot>',
        r"bad\.urdf:2: mimic loop: j -> k -> j",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD_URDF, ids=[f"urdf{i}" for i in range(len(BAD_URDF))])
def test_bad_urdf_is_one_read_error_naming_the_place(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.urdf"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReadError, match=message) as info:
        load_robot_model(path)
    assert "\n" not in str(info.value)


BAD_BODY = [
    (
        "links:\n  - {name: A, jointType: free}\n  - {name: B, parent: Z, jointType: revolute}\n",
        r"links\[1\] \(B\)\.parent: the parent link 'Z'",
    ),
    (
        "links:\n  - {name: A, jointType: free}\n  - {name: B, parent: A, jointType: hinge}\n",
        r"links\[1\] \(B\)\.jointType: unknown joint type 'hinge'",
    ),
    (
        "links:\n  - {name: A}\n  - {name: B, parent: A, jointType: revolute, jointAxis: Q}\n",
        r"jointAxis: joint axis 'Q'",
    ),
    ("links: [\n", r"bad\.body:2: invalid YAML"),
    ("name: x\n", "not a Choreonoid body file"),
]


@pytest.mark.parametrize(("text", "message"), BAD_BODY, ids=[f"body{i}" for i in range(len(BAD_BODY))])
def test_bad_body_is_one_read_error(text: str, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.body"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReadError, match=message):
        load_robot_model(path)


def test_body_from_text_in_radians_with_vector_axes() -> None:
    text = """name: t
angleUnit: radian
links:
  - {name: A, jointType: fixed}
  - {name: B, parent: A, jointType: revolute, translation: [0, 0, 1],
     rotation: [0, 0, 1, 1.5707963267948966], jointAxis: [1, 0, 0]}
  - {name: C, parent: B, jointType: slide, jointAxis: -Z, translation: [1, 0, 0]}
"""
    model = RobotModel.from_body(text, source="t.body")
    assert model.actuated_joints == ("B", "C")
    poses = model.link_poses(["B", "C"], [[0.0, 0.5]])
    assert np.allclose(poses.translation[0, 2], [0, 1, 0.5])  # rotated 90° about z, slid down -Z by 0.5


# --------------------------------------------------------------------------- xacro
XACRO = """<?xml version="1.0"?>
<robot name="xr" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="len" value="0.25"/>
  <xacro:macro name="seg" params="n parent">
    <link name="l${n}"/>
    <joint name="j${n}" type="revolute"><parent link="${parent}"/><child link="l${n}"/>
      <origin xyz="0 0 ${len}"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  </xacro:macro>
  <link name="base"/>
  <xacro:seg n="1" parent="base"/>
  <xacro:seg n="2" parent="l1"/>
</robot>
"""


def test_xacro_is_expanded(tmp_path: Path) -> None:
    pytest.importorskip("xacro")
    path = tmp_path / "r.urdf.xacro"
    path.write_text(XACRO, encoding="utf-8")
    model = load_robot_model(path)
    assert model.actuated_joints == ("j1", "j2")
    poses = model.link_poses(["j1", "j2"], [[0.0, 0.0]])
    assert np.allclose(poses.translation[0, -1], [0, 0, 0.5])


def test_xacro_without_the_package_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.urdf.xacro"
    path.write_text(XACRO, encoding="utf-8")
    monkeypatch.setitem(sys.modules, "xacro", None)  # an import of it fails as when it is not installed
    with pytest.raises(MissingDependencyError, match=r"motion_formats_ros\[xacro\]") as info:
        load_robot_model(path)
    assert "\n" not in str(info.value)


def test_xacro_find_of_a_package_nowhere_names_the_file_line_and_how_to_give_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``$(find PKG)`` looks on AMENT_PREFIX_PATH, then in ROS_PACKAGE_PATH's folders (as
    ``package://`` meshes are found); a package in neither is one line at the include."""
    pytest.importorskip("xacro")
    legs = tmp_path / "src" / "legs"
    (legs / "urdf").mkdir(parents=True)
    (legs / "package.xml").write_text("<package><name>legs</name></package>")
    (legs / "urdf" / "legs.xacro").write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
        '  <link name="l1"/>\n  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>\n'
        '  <xacro:include filename="$(find arms)/urdf/arms.xacro"/>\n</robot>\n'
    )
    path = tmp_path / "r.urdf.xacro"
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">\n  <link name="base"/>\n'
        '  <xacro:include filename="$(find legs)/urdf/legs.xacro"/>\n</robot>\n'
    )
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    with pytest.raises(ReadError) as info:
        load_robot_model(path)
    assert str(info.value) == (
        f"{path}:3: $(find legs): no package 'legs' (AMENT_PREFIX_PATH not set; ROS_PACKAGE_PATH not set): "
        "source the workspace that has it, or set ROS_PACKAGE_PATH to a folder holding it"
    )
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "src"))
    with pytest.raises(ReadError) as info:
        load_robot_model(path)
    assert str(info.value).startswith(f"{legs / 'urdf' / 'legs.xacro'}:4: $(find arms): no package 'arms' (")
    assert str(info.value).endswith(f"(expanding {path})")
    (legs / "urdf" / "legs.xacro").write_text(
        (legs / "urdf" / "legs.xacro")
        .read_text()
        .replace('  <xacro:include filename="$(find arms)/urdf/arms.xacro"/>\n', "")
    )
    assert load_robot_model(path).actuated_joints == ("j1",)


def test_to_urdf_round_trips_the_model() -> None:
    text, _, _ = written_robot(np.random.default_rng(9))
    model = RobotModel.from_urdf(text)
    again = RobotModel.from_urdf(model.to_urdf())
    assert again.link_names == model.link_names
    assert [(j.name, j.type, j.parent, j.child, j.mimic) for j in again.joints] == [
        (j.name, j.type, j.parent, j.child, j.mimic) for j in model.joints
    ]
    q = np.random.default_rng(1).normal(size=(3, 5))
    names = ["a", "b_cont", "p", "r", "side"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = model.link_poses(names, q), again.link_poses(names, q)
    assert np.abs(matrices(a.translation, a.rotation) - matrices(b.translation, b.rotation)).max() < TOL


def test_urdf_colours_by_name_and_shapes() -> None:
    urdf = """<robot name="c">
      <link name="a"><visual><origin xyz="1 2 3"/><geometry><box size="1 2 3"/></geometry>
        <material name="blue"><color rgba="0 0 1 1"/></material></visual></link>
      <link name="b"><visual><geometry><cylinder radius="0.1" length="0.5"/></geometry><material name="blue"/></visual>
        <visual><geometry><sphere radius="0.2"/></geometry><material name="red"/></visual>
        <visual><geometry><mesh filename="meshes/b.stl" scale="2 2 2"/></geometry></visual></link>
      <material name="red"><color rgba="1 0 0 0.5"/></material>
      <joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>"""
    model = RobotModel.from_urdf(urdf)
    a, b = model.links
    assert isinstance(a.visuals[0].geometry, Box) and a.visuals[0].origin_xyz.tolist() == [1, 2, 3]
    assert [v.rgba for v in b.visuals] == [(0, 0, 1, 1), (1, 0, 0, 0.5), None]
    assert isinstance(b.visuals[0].geometry, Cylinder) and b.visuals[0].geometry.length == 0.5
    mesh = b.visuals[2].geometry
    assert isinstance(mesh, Mesh) and mesh.filename == "meshes/b.stl" and mesh.scale.tolist() == [2, 2, 2]
    again = RobotModel.from_urdf(model.to_urdf())
    assert [[v.rgba for v in link.visuals] for link in again.links] == [
        [v.rgba for v in link.visuals] for link in model.links
    ]


SPHERE_BODY = """name: r
links:
  - name: base
    jointType: free
    elements:
      - type: Shape
        geometry: {{type: Sphere, radius: {radius}}}
  - name: arm
    parent: base
    jointType: revolute
    elements:
      Shape:
        geometry:
          type: Box
          size: {size}
"""


RADIUS = r":7: links\[0\] \(base\)\.elements\[0\]\.geometry\.radius: "
SIZE = r":15: links\[1\] \(arm\)\.elements\.Shape\.geometry\.size: "


@pytest.mark.parametrize(
    ("radius", "size", "message"),
    [
        (
            ".nan",
            "[1, 1, 1]",
            r":7: links\[0\] \(base\)\.elements\[0\]\.geometry\.radius: expected a size above 0 and at most 1e\+06 m, "
            r"got nan$",
        ),
        (
            "-1",
            "[1, 1, 1]",
            r":7: links\[0\] \(base\)\.elements\[0\]\.geometry\.radius: expected a size above 0 and at most 1e\+06 m, "
            r"got -1$",
        ),
        (
            "1e300",
            "[1, 1, 1]",
            r":7: links\[0\] \(base\)\.elements\[0\]\.geometry\.radius: expected a size above 0 and at most 1e\+06 m, "
            r"got 1e\+300$",
        ),
        (
            "9" * 400,
            "[1, 1, 1]",
            r":7: links\[0\] \(base\)\.elements\[0\]\.geometry\.radius: expected a size above 0 and at most 1e\+06 m, "
            r"got an integer of about 401 digits$",
        ),
        (
            "0.1",
            "[1, 1e300, 1]",
            r":15: links\[1\] \(arm\)\.elements\.Shape\.geometry\.size: expected sizes above 0 and at most 1e\+06 m, "
            r"got \[1, 1e\+300, 1\]$",
        ),
        ("0.1", "[1, .inf, 1]", r":15: links\[1\] \(arm\)\.elements\.Shape\.geometry\.size: expected 3 finite numbers"),
        (
            "0.1",
            "[1, 0, 1]",
            r":15: links\[1\] \(arm\)\.elements\.Shape\.geometry\.size: expected sizes above 0 and at most",
        ),
    ],
)
def test_body_sizes_must_be_finite_and_above_zero(tmp_path: Path, radius: str, size: str, message: str) -> None:
    path = tmp_path / "bad.body"
    path.write_text(SPHERE_BODY.format(radius=radius, size=size), encoding="utf-8")
    with pytest.raises(ReadError, match=r"bad\.body" + message):
        load_robot_model(path)


def test_body_numbers_are_read_as_yaml_1_2_floats(tmp_path: Path) -> None:
    path = tmp_path / "floats.body"
    path.write_text(
        "name: r\nlinks:\n  - {name: base, jointType: free}\n"
        "  - {name: arm, parent: base, jointType: revolute, translation: [1e-3, 0, 0.1], jointRange: [-1.5e2, 15E1]}\n",
        encoding="utf-8",
    )
    model = load_robot_model(path)
    np.testing.assert_array_equal(model.joint("arm").origin_xyz, [0.001, 0.0, 0.1])
    limit = model.joint("arm").limit
    assert limit is not None and limit.upper == pytest.approx(math.radians(150.0))


def test_an_axis_error_shows_plain_numbers(tmp_path: Path) -> None:
    path = tmp_path / "axis.body"
    path.write_text(
        "name: r\nlinks:\n  - {name: base, jointType: free}\n"
        "  - {name: arm, parent: base, jointType: revolute, jointAxis: [0, 0, 0]}\n",
        encoding="utf-8",
    )
    with pytest.raises(ReadError, match=r"the axis \[0\.0, 0\.0, 0\.0\] has no direction$"):
        load_robot_model(path)


def test_joints_a_model_lacks_by_the_thousand_make_short_warnings() -> None:
    from motion_formats_ros.core.examples import biped_urdf
    from motion_formats_ros.core.kinematics import RobotModel

    model = RobotModel.from_urdf(biped_urdf())
    names = tuple(f"extra_{i}" for i in range(5000))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.link_poses(names, np.zeros((2, len(names))))
    said = [str(w.message) for w in caught]
    assert any("extra_0" in s and "more" in s for s in said), said
    assert all(len(s) < 1000 for s in said), [len(s) for s in said]
