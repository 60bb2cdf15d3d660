"""``motion-formats bag2motion`` / ``motion2bag`` / ``info BAG`` / ``convert`` with bags."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.bags import corpus_bag

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs.rosbag import BagMotionRecord, BagRecord


def _motion_file(tmp_path: Path) -> Path:
    m = Motion(
        times=np.arange(20) / 50.0,
        joint_names=("a", "b"),
        position=np.arange(40.0).reshape(20, 2),
        velocity=np.ones((20, 2)),
    )
    path = tmp_path / "m.omf.json"
    write(MotionFile.single(m, group="actual"), path)
    return path


def test_bag_cli_motion2bag_then_bag2motion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _motion_file(tmp_path)
    bag = tmp_path / "rec"
    assert main(["motion2bag", str(src), str(bag), "--storage", "sqlite3", "--distro", "humble"]) == 0
    assert any(p.suffix == ".db3" for p in bag.iterdir())
    out = tmp_path / "back.omf.json"
    assert main(["bag2motion", str(bag), str(out), "--joints", "b", "--end", "0.2"]) == 0
    m = read(out).groups["actual"]
    assert m.joint_names == ("b",) and m.num_frames == 11
    assert np.array_equal(m.position[:, 0], np.arange(1.0, 23.0, 2.0))  # type: ignore[index]
    assert "wrote" in capsys.readouterr().out
    # never clobbers without --overwrite
    assert main(["motion2bag", str(src), str(bag)]) == 1
    assert "already exists" in capsys.readouterr().err


def test_bag_cli_start_time_and_topic_names(tmp_path: Path) -> None:
    src = _motion_file(tmp_path)
    bag = tmp_path / "rec"
    args = ["motion2bag", str(src), str(bag), "--start-time", "2024-01-01T00:00:00+00:00"]
    args += ["--joint-topic", "/arm/joint_states", "--trajectory-topic", "none"]
    assert main(args) == 0
    mf = read(bag)
    assert mf.motion.record(BagMotionRecord).time_origin_ns == 1_704_067_200 * 1_000_000_000
    assert mf.motion.record(BagMotionRecord).topics == ["/arm/joint_states"]
    assert "/joint_trajectory" not in mf.record(BagRecord).topics


def test_bag_cli_info_lists_convertible_topics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(corpus_bag("ros1/tf_example.bag"))]) == 0
    text = capsys.readouterr().out
    assert "convertible topics (2)" in text and "/tf_static" in text and "517 msgs" in text
    assert main(["info", "--json", str(corpus_bag("ros2/plotjuggler_rosbag2_test"))]) == 0
    info = json.loads(capsys.readouterr().out)
    imu = next(t for t in info["topics"] if t["topic"] == "/imu")
    assert imu["messages"] == 1565 and imu["converts_to"] == "IMU"
    battery = next(t for t in info["topics"] if t["topic"] == "/battery")
    assert battery["converts_to"] is None


def test_bag_cli_errors_are_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bag = corpus_bag("ros2/plotjuggler_rosbag2_test")
    assert main(["bag2motion", str(bag), str(tmp_path / "x.omf.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "no such topic '/joint_states'" in err
    assert not (tmp_path / "x.omf.json").exists()
    assert main(["bag2motion", str(corpus_bag("ros1/fake_joint_state.bag")), str(tmp_path / "y.omf.json"),
                 "--topics", "/nope"]) == 1  # fmt: skip
    assert "/fake_joints_state (sensor_msgs/msg/JointState)" in capsys.readouterr().err


def test_bag_cli_convert_uses_the_codec(tmp_path: Path) -> None:
    out = tmp_path / "fake.omf.json"
    assert main(["convert", str(corpus_bag("ros1/fake_joint_state.bag")), str(out), "--rate", "100"]) == 0
    m = read(out).motion
    assert m.rate == 100.0 and m.joint_names == tuple(f"joint_{i}" for i in range(6))
    bag = tmp_path / "again.mcap"
    assert main(["convert", str(out), str(bag)]) == 0
    assert read(bag).motion.num_frames == m.num_frames


ARM_URDF = """<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/><link name="upper"/>
  <joint name="a" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
</robot>
"""


def _description_messages(bag: Path) -> list[str]:
    """The /robot_description messages of ``bag``, read with rosbags' own reader."""
    from rosbags.rosbag2 import Reader
    from rosbags.typesys import Stores, get_typestore

    ts = get_typestore(Stores.ROS2_JAZZY)
    with Reader(bag) as reader:
        conns = [c for c in reader.connections if c.topic == "/robot_description"]
        return [ts.deserialize_cdr(raw, c.msgtype).data for c, _, raw in reader.messages(connections=conns)]


@pytest.mark.parametrize("suffix", [".msgpack", ".omf.yaml", ".omf.json"])
def test_bag_to_omf_to_bag_keeps_the_robot(tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM_URDF, encoding="utf-8")
    bag = tmp_path / "robot"
    assert main(["motion2bag", str(_motion_file(tmp_path)), str(bag), "--urdf", str(urdf)]) == 0
    omf = tmp_path / f"back{suffix}"
    capsys.readouterr()
    assert main(["bag2motion", str(bag), str(omf)]) == 0
    assert "robot description" not in capsys.readouterr().err
    assert read(omf).robot_description == ARM_URDF
    again = tmp_path / "again.mcap"
    assert main(["motion2bag", str(omf), str(again)]) == 0  # no model given: the file's description
    assert _description_messages(again) == [ARM_URDF]
    assert read(again).robot_description == ARM_URDF
    # a bag to a bag keeps it too
    copy = tmp_path / "copy"
    assert main(["convert", str(bag), str(copy), "--to", "rosbag"]) == 0
    assert _description_messages(copy) == [ARM_URDF]


def test_bag2motion_says_where_the_robot_description_is_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM_URDF, encoding="utf-8")
    bag = tmp_path / "robot.mcap"
    assert main(["motion2bag", str(_motion_file(tmp_path)), str(bag), "--urdf", str(urdf)]) == 0
    capsys.readouterr()
    out = tmp_path / "m.seq"
    assert main(["bag2motion", str(bag), str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("robot description") == 1 and f"warning: {out}" in err and "dropped" in err
    # a bag without one: no such word
    plain = tmp_path / "plain.mcap"
    assert main(["motion2bag", str(tmp_path / "m.omf.json"), str(plain)]) == 0
    capsys.readouterr()
    assert main(["bag2motion", str(plain), str(tmp_path / "p.seq")]) == 0
    assert "robot description" not in capsys.readouterr().err


def test_the_reference_omf_library_reads_the_kept_description(tmp_path: Path) -> None:
    otter = pytest.importorskip("otter_motion_format")
    f = read(_motion_file(tmp_path))
    f.robot_description = ARM_URDF
    write(f, tmp_path / "with.msgpack")
    assert otter.load(tmp_path / "with.msgpack").basic["robot_description"] == ARM_URDF


def _standard_bag(tmp_path: Path, kind: str) -> Path:
    """A bag of JointState, TFMessage and a robot description, as a rosbag2 folder or a bare file."""
    from rosbags.rosbag2 import StoragePlugin
    from support.bags import JS, TF, TS, joint_state, tf_message, transform, write_bag

    messages = [("/robot_description", "std_msgs/msg/String", 0, TS.types["std_msgs/msg/String"](data=ARM_URDF))]
    for i in range(20):
        ns = 1_000_000_000 + i * 20_000_000
        messages.append(("/joint_states", JS, ns, joint_state(ns, ["a", "b"], [0.1 * i, -0.1 * i])))
        messages.append(("/tf", TF, ns, tf_message(transform(ns, "world", "base", [0.0, 0.0, 0.01 * i]))))
    storage = StoragePlugin.SQLITE3 if kind == "db3" else StoragePlugin.MCAP
    folder = write_bag(tmp_path / "rec", messages, storage)
    if kind != "bare":
        return folder
    return next(folder.glob("*.mcap"))


@pytest.mark.parametrize("kind", ["mcap", "bare", "db3"])
def test_bag2motion_of_standard_messages_loads_no_rosbags(tmp_path: Path, kind: str) -> None:
    from support.cli import cli

    bag = _standard_bag(tmp_path, kind)
    out = tmp_path / "out.msgpack"
    status, _, err, modules = cli("bag2motion", bag, out)
    assert status == 0, err
    assert read(out).motion.num_frames == 20
    assert not sorted(m for m in modules if m.split(".")[0] == "rosbags")
