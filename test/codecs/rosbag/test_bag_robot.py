"""``motion2bag --urdf / --body``: /robot_description and every link's TF, as robot_state_publisher makes them.

The bags are read back with rosbags' own reader; link poses composed from the bag's TF
are compared with yourdfpy's forward kinematics (an independent implementation).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import corpus_path
from scipy.spatial.transform import Rotation

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs.rosbag import BagMotionRecord
from motion_formats_ros.core.kinematics import RobotModel, load_robot_model

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/><link name="upper"/><link name="lower"/><link name="hand"/><link name="finger"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.3" rpy="0 0.2 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="lower"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="wrist" type="fixed"><parent link="lower"/><child link="hand"/>
    <origin xyz="0.3 0 0" rpy="0.1 0 0"/></joint>
  <joint name="grip" type="prismatic"><parent link="hand"/><child link="finger"/>
    <axis xyz="1 0 0"/><limit lower="0" upper="0.05" effort="1" velocity="1"/>
    <mimic joint="elbow" multiplier="0.01"/></joint>
</robot>
"""


def read_bag(path: Path) -> tuple[dict[str, list[tuple[int, Any]]], dict[str, Any], dict[str, list[bytes]]]:
    """Messages per topic (receive time, decoded), each topic's offered QoS, raw payloads."""
    from rosbags.rosbag2 import Reader
    from rosbags.typesys import Stores, get_typestore

    ts = get_typestore(Stores.ROS2_JAZZY)
    messages: dict[str, list[tuple[int, Any]]] = {}
    raws: dict[str, list[bytes]] = {}
    with Reader(path) as reader:
        qos = {c.topic: c.ext.offered_qos_profiles for c in reader.connections}
        for conn, t, raw in reader.messages():
            messages.setdefault(conn.topic, []).append((t, ts.deserialize_cdr(raw, conn.msgtype)))
            raws.setdefault(conn.topic, []).append(bytes(raw))
    return messages, qos, raws


def matrix(tr: Any) -> np.ndarray:
    t, r = tr.transform.translation, tr.transform.rotation
    out = np.eye(4)
    out[:3, :3] = Rotation.from_quat([r.x, r.y, r.z, r.w]).as_matrix()
    out[:3, 3] = [t.x, t.y, t.z]
    return out


def world_frames(static: list[Any], moving: list[Any], root: str) -> dict[str, np.ndarray]:
    """Every frame's pose in ``root``'s tree composed from one frame's transforms."""
    edges = {tr.child_frame_id: (tr.header.frame_id, matrix(tr)) for tr in [*static, *moving]}
    poses = {root: np.eye(4)}

    def pose(frame: str) -> np.ndarray:
        if frame not in poses:
            parent, m = edges[frame]
            poses[frame] = pose(parent) @ m
        return poses[frame]

    for frame in edges:
        pose(frame)
    return poses


def is_transient_local(profiles: Any) -> bool:
    from rosbags.interfaces import QosDurability

    return bool(profiles) and all(p.durability == QosDurability.TRANSIENT_LOCAL for p in profiles)


def arm_motion(n: int = 30, root: bool = False) -> MotionFile:
    rng = np.random.default_rng(3)
    m = Motion(
        times=np.arange(n) / 50.0,
        joint_names=("shoulder", "elbow", "extra"),
        position=rng.uniform(-1, 1, size=(n, 3)),
        root_position=rng.normal(size=(n, 3)) if root else None,
        root_orientation=Rotation.random(n, random_state=2).as_quat() if root else None,
    )
    return MotionFile.single(m, group="actual")


# --------------------------------------------------------------------------- written model
def test_arm_bag_has_the_description_and_every_link_frame(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM, encoding="utf-8")
    src = tmp_path / "m.omf.json"
    write(arm_motion(), src)
    bag = tmp_path / "bag"
    assert main(["motion2bag", str(src), str(bag), "--urdf", str(urdf), "--frame-prefix", "r1/"]) == 0
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and "no joint(s) extra" in err  # the joint the model lacks, once
    messages, qos, _ = read_bag(bag)
    (t0, desc), *more = messages["/robot_description"]
    assert not more and desc.data == ARM and is_transient_local(qos["/robot_description"])
    assert is_transient_local(qos["/tf_static"])
    states = messages["/joint_states"]
    assert t0 == states[0][0]
    (_, static), *more = messages["/tf_static"]
    assert not more and [(s.header.frame_id, s.child_frame_id) for s in static.transforms] == [("r1/lower", "r1/hand")]
    tf = messages["/tf"]
    assert len(tf) == len(states) == 30
    model = RobotModel.from_urdf(ARM)
    for (t, msg), (ts, state) in zip(tf, states, strict=True):
        assert t == ts
        assert all(tr.header.stamp == state.header.stamp for tr in msg.transforms)
        children = {tr.child_frame_id for tr in msg.transforms} | {"r1/hand"}
        assert children == {"r1/" + n for n in model.link_names if n != model.root_link}
        frames = world_frames(static.transforms, msg.transforms, "r1/base")
        q = dict(zip(state.name, state.position, strict=True))
        shoulder = np.eye(4)
        shoulder[:3, :3] = Rotation.from_euler("y", 0.2 + q["shoulder"]).as_matrix()
        shoulder[:3, 3] = [0, 0, 0.3]
        elbow = np.eye(4)
        elbow[:3, :3] = Rotation.from_euler("z", q["elbow"]).as_matrix()
        elbow[:3, 3] = [0.4, 0, 0]
        hand = np.eye(4)
        hand[:3, :3] = Rotation.from_euler("x", 0.1).as_matrix()
        hand[:3, 3] = [0.3, 0, 0]
        finger = np.eye(4)
        finger[0, 3] = 0.01 * q["elbow"]  # the mimic joint follows the elbow
        expected = shoulder @ elbow @ hand @ finger
        assert np.abs(frames["r1/finger"] - expected).max() < 1e-9


def test_bulk_tf_equals_rosbags_serialization(tmp_path: Path) -> None:
    model = RobotModel.from_urdf(ARM)
    mf = arm_motion(root=True)
    a, b = tmp_path / "a", tmp_path / "b"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(mf, a, format="rosbag", robot_model=model, start_time=10.0)
        write(mf, b, format="rosbag", robot_model=model, start_time=10.0, bulk=False)
    raw_a, raw_b = read_bag(a)[2], read_bag(b)[2]
    assert raw_a["/tf"] == raw_b["/tf"] and len(raw_a["/tf"]) == 30
    # The root pose goes to the model's root link, in the same messages.
    messages = read_bag(a)[0]
    first = messages["/tf"][0][1].transforms
    assert (first[0].header.frame_id, first[0].child_frame_id) == ("world", "base")


def test_a_bag_with_link_frames_converts_back_to_the_same_motion(tmp_path: Path) -> None:
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM, encoding="utf-8")
    for root in (False, True):
        mf = arm_motion(root=root)
        bag = tmp_path / f"bag{root}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write(mf, bag, format="rosbag", robot_model=str(urdf))
            back = read(bag).groups["actual"]
        m = mf.groups["actual"]
        assert back.joint_names == m.joint_names
        assert np.array_equal(back.position, m.position)
        assert back.link_names == ()
        if root:
            assert np.abs(back.root_position - m.root_position).max() < 1e-12  # type: ignore[operator]
            one_by_one = read(bag, bulk=False).groups["actual"]  # rosbags' deserializer, message by message
            assert np.array_equal(one_by_one.root_position, back.root_position)  # type: ignore[arg-type]
            assert np.array_equal(one_by_one.root_orientation, back.root_orientation)  # type: ignore[arg-type]
            assert back.record(BagMotionRecord).root == "world:base"
        else:
            assert back.root_position is None and back.root_orientation is None


def test_info_lists_the_description_as_not_converted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM, encoding="utf-8")
    src = tmp_path / "m.omf.json"
    write(arm_motion(), src)
    bag = tmp_path / "bag.mcap"
    assert main(["motion2bag", str(src), str(bag), "--urdf", str(urdf)]) == 0
    capsys.readouterr()
    assert main(["info", str(bag)]) == 0
    out = capsys.readouterr().out
    other = out.split("other topics", 1)[1]
    assert "/robot_description" in other and "std_msgs/msg/String" in other


BAD_MODELS = [
    ("bad.urdf", "<robot name='r'><link name='a'/>\n<joint name='j' type='hinge'/></robot>", r"bad\.urdf:2: .*'hinge'"),
    ("bad.urdf", "not xml at all", r"bad\.urdf:1: invalid URDF XML"),
    (
        "bad.body",
        "links:\n  - {name: A}\n  - {name: B, parent: C, jointType: revolute}\n",
        r"bad\.body: .*parent link 'C'",
    ),
    (
        "bad.body",
        "links:\n  - {name: A}\n  - {name: B, parent: A, jointType: spin}\n",
        r"bad\.body: .*joint type 'spin'",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "message"), BAD_MODELS, ids=["urdf-type", "urdf-xml", "body-parent", "body-type"]
)
def test_a_bad_model_is_one_line_and_writes_nothing(
    name: str, text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / name
    model.write_text(text, encoding="utf-8")
    src = tmp_path / "m.omf.json"
    write(arm_motion(), src)
    bag = tmp_path / "bag"
    flag = "--body" if name.endswith(".body") else "--urdf"
    assert main(["motion2bag", str(src), str(bag), flag, str(model)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ")
    import re

    assert re.search(message, err), err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([name, "m.omf.json"])


def test_frame_prefix_without_a_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.omf.json"
    write(arm_motion(), src)
    assert main(["motion2bag", str(src), str(tmp_path / "bag"), "--frame-prefix", "r1/"]) == 1
    assert "--urdf FILE or --body FILE" in capsys.readouterr().err
    assert not (tmp_path / "bag").exists()


# --------------------------------------------------------------------------- corpus: NAO and SR1
def held(values: np.ndarray) -> np.ndarray:
    """NaN → the last finite value of the column (0 before it), one frame at a time."""
    out = values.copy()
    last = np.zeros(values.shape[1])
    for i in range(values.shape[0]):
        for k in range(values.shape[1]):
            if np.isfinite(values[i, k]):
                last[k] = values[i, k]
            out[i, k] = last[k]
    return out


def yourdfpy_robot(text: str, tmp_path: Path) -> Any:
    yourdfpy = pytest.importorskip("yourdfpy", reason="yourdfpy (the test extra) is the independent FK")
    path = tmp_path / "peer.urdf"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False, load_collision_meshes=False)


def test_nao_mof_with_the_nao_urdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mof = corpus_path("mof", "bhuman2009", "standUpBackNao.mof")
    urdf = corpus_path("urdf", "nao.urdf")
    bag = tmp_path / "getup"
    assert main(["motion2bag", str(mof), str(bag), "--urdf", str(urdf)]) == 0
    err = capsys.readouterr().err
    assert err.count("held at 0") == 1 and "LWristYaw" in err  # the .mof's 2009 nets have no wrists
    messages, qos, _ = read_bag(bag)
    assert is_transient_local(qos["/robot_description"])
    assert messages["/robot_description"][0][1].data == urdf.read_text(encoding="utf-8")
    model = load_robot_model(urdf)
    peer = yourdfpy_robot(urdf.read_text(encoding="utf-8"), tmp_path)
    static = messages["/tf_static"][0][1].transforms
    states = messages["/joint_states"]
    positions = held(np.array([s.position for _, s in states]))
    assert len(messages["/tf"]) == len(states) > 1
    for i, ((_, tf), (_, state)) in enumerate(zip(messages["/tf"], states, strict=True)):
        frames = world_frames(static, tf.transforms, model.root_link)
        assert set(frames) == set(model.link_names)  # a TF for every link at every frame
        peer.update_cfg({n: v for n, v in zip(state.name, positions[i], strict=True) if n in peer.actuated_joint_names})
        for link in model.link_names:
            assert np.abs(frames[link] - peer.get_transform(link)).max() < 1e-9, (i, link)


@pytest.mark.slow
def test_sr1_walk_with_the_sr1_body(tmp_path: Path) -> None:
    motion = corpus_path("choreonoid", "v1", "SR1WalkPattern2.yaml")
    body = corpus_path("choreonoid", "model", "SR1.body")
    bag = tmp_path / "walk"
    assert main(["motion2bag", str(motion), str(bag), "--body", str(body)]) == 0
    messages, _, _ = read_bag(bag)
    description = messages["/robot_description"][0][1].data
    model = load_robot_model(body)
    assert RobotModel.from_urdf(description).link_names == model.link_names
    states = messages["/joint_states"]
    tf = messages["/tf"]
    assert len(tf) == len(states) == 7146
    expected = {"WAIST", *(n for n in model.link_names if n != "WAIST")}
    peer = yourdfpy_robot(description, tmp_path)
    for i in range(len(tf)):
        transforms = tf[i][1].transforms
        assert {t.child_frame_id for t in transforms} == expected  # root pose + every joint
        if i % 700:
            continue
        frames = world_frames([], transforms, "world")
        state = states[i][1]
        peer.update_cfg(dict(zip(state.name, state.position, strict=True)))
        root = frames["WAIST"]
        for link in model.link_names:
            assert np.abs(frames[link] - root @ peer.get_transform(link)).max() < 1e-9, (i, link)
    out = tmp_path / "back.omf.json"
    assert main(["bag2motion", str(bag), str(out)]) == 0
    back = read(out).motion
    original = read(motion, body=body).motion
    assert back.joint_names == original.joint_names
    assert np.array_equal(back.position, original.position)
    assert np.abs(back.root_position - original.root_position).max() < 1e-12  # type: ignore[operator]


def test_bulk_tf_decode_equals_rosbags_and_refuses_irregular_batches() -> None:
    from rosbags.typesys import Stores, get_typestore

    from motion_formats_ros.codecs.rosbag.storage import tf_bulk as _tf_bulk

    ts = get_typestore(Stores.ROS2_JAZZY)
    t = ts.types
    rng = np.random.default_rng(4)

    def message(sec: int, frames: list[tuple[str, str]]) -> bytes:
        transforms = [
            t["geometry_msgs/msg/TransformStamped"](
                header=t["std_msgs/msg/Header"](stamp=t["builtin_interfaces/msg/Time"](sec=sec, nanosec=7), frame_id=p),
                child_frame_id=c,
                transform=t["geometry_msgs/msg/Transform"](
                    translation=t["geometry_msgs/msg/Vector3"](*rng.normal(size=3)),
                    rotation=t["geometry_msgs/msg/Quaternion"](*rng.normal(size=4)),
                ),
            )
            for p, c in frames
        ]
        return bytes(ts.serialize_cdr(t["tf2_msgs/msg/TFMessage"](transforms=transforms), "tf2_msgs/msg/TFMessage"))

    frames = [("world", "base"), ("base", "a_long_link_name"), ("a_long_link_name", "x")]
    raws = [message(100 + i, frames) for i in range(5)]
    decoded = _tf_bulk.decode(raws)
    assert decoded is not None
    names, stamps, values = decoded
    assert names == frames
    for i, raw in enumerate(raws):
        msg = ts.deserialize_cdr(raw, "tf2_msgs/msg/TFMessage")
        for k, tr in enumerate(msg.transforms):
            assert stamps[i, k] == tr.header.stamp.sec * 1_000_000_000 + 7
            tt, rr = tr.transform.translation, tr.transform.rotation
            assert values[i, k].tolist() == [tt.x, tt.y, tt.z, rr.x, rr.y, rr.z, rr.w]
    # Other frame names of the same length, another count, a cut message: not one batch.
    assert _tf_bulk.decode([*raws, message(1, [("world", "BASE"), *frames[1:]])]) is None
    assert _tf_bulk.decode([*raws, message(1, frames[:2])]) is None
    assert _tf_bulk.decode([raws[0][:-3]]) is None


def test_a_model_fixed_to_world_carries_the_root_pose_in_its_floating_joint(tmp_path: Path) -> None:
    floating = ARM.replace(
        '<link name="base"/>',
        '<link name="world"/><link name="base"/><joint name="float" type="floating"><parent link="world"/>'
        '<child link="base"/></joint>',
    )
    model = RobotModel.from_urdf(floating)
    assert model.root_link == "world"
    mf = arm_motion(root=True)
    bag = tmp_path / "bag"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(mf, bag, format="rosbag", robot_model=model)
        back = read(bag).motion
    messages = read_bag(bag)[0]
    m = mf.motion
    for i, (_, tf) in enumerate(messages["/tf"]):
        pairs = [(tr.header.frame_id, tr.child_frame_id) for tr in tf.transforms]
        assert ("world", "world") not in pairs and pairs.count(("world", "base")) == 1
        frames = world_frames(messages["/tf_static"][0][1].transforms, tf.transforms, "world")
        assert np.abs(frames["base"][:3, 3] - m.root_position[i]).max() < 1e-12  # type: ignore[index]
    assert np.abs(back.root_position - m.root_position).max() < 1e-12  # type: ignore[operator]
    assert np.array_equal(back.position, m.position)
    # Fixed to the world without a floating joint: the root pose cannot go anywhere, and says so.
    fixed = floating.replace('type="floating"', 'type="fixed"')
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*not used")  # the motion's joint the model lacks
        with pytest.warns(UserWarning, match=r"the root pose \(the model is fixed to its root link 'world'\)"):
            write(mf, tmp_path / "fixed", format="rosbag", robot_model=RobotModel.from_urdf(fixed))


def test_a_bag_never_replaces_a_file_its_xacro_model_includes(tmp_path: Path) -> None:
    """The files a model was read from are inputs of the write, through the Python API too."""
    pytest.importorskip("xacro")
    from motion_formats_ros.core.errors import WriteError
    from motion_formats_ros.core.examples import biped_urdf, biped_walk

    urdf = biped_urdf()
    links = urdf[urdf.index(">", urdf.index("<robot")) + 1 : urdf.rindex("</robot>")]
    (tmp_path / "part.mcap").write_text(f'<robot xmlns:xacro="http://www.ros.org/wiki/xacro">{links}</robot>\n')
    (tmp_path / "r.urdf.xacro").write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="b"><xacro:include filename="part.mcap"/></robot>\n'
    )
    before = (tmp_path / "part.mcap").read_bytes()
    with pytest.raises(WriteError, match=r"part\.mcap: is the input .*part\.mcap'"):
        write(
            biped_walk(rate=10.0, cycles=1),
            tmp_path / "part.mcap",
            robot_model=tmp_path / "r.urdf.xacro",
            overwrite=True,
        )
    assert (tmp_path / "part.mcap").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part.mcap", "r.urdf.xacro"]  # no temporary left
