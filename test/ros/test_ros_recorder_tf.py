"""Recorder and bag2motion on one scene published by separate processes on real DDS.

An rsp-like publisher (a dozen links at 50 Hz on /tf, fixed links on /tf_static, two
JointState topics), an odometry publisher (odom → base_link at 100 Hz on a known path,
an IMU) and a static map → odom run as separate processes (test/scenepub.py). The
recorder records them; the test process records the same serialized messages into a
rosbag2 bag, which bag2motion converts. Both must give the known path composed with
map → odom, and equal motions (every group, channel and time).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.rosutil import Player, RosSession, requires_ros, ros_session, start_node
from support.scenepub import MAP_ODOM, arm_stamp, head_stamp, odom_pose, yaw_quat

from motion_formats_ros import MotionFile, read, write
from motion_formats_ros.core.spatial import compose

pytestmark = [requires_ros, pytest.mark.ros]

SCENE = Path(__file__).resolve().parents[1] / "support" / "scenepub.py"
TYPES = {
    "/tf": "tf2_msgs/msg/TFMessage",
    "/tf_static": "tf2_msgs/msg/TFMessage",
    "/arm/joint_states": "sensor_msgs/msg/JointState",
    "/head/joint_states": "sensor_msgs/msg/JointState",
    "/imu": "sensor_msgs/msg/Imu",
    "/joint_trajectory": "trajectory_msgs/msg/JointTrajectory",
}


def start_scene(ros: RosSession, *args: str, subscribers: int = 2) -> Player:
    """One scenepub.py publisher as its own process, confined like every DDS process here."""
    log = ros.tmp / f"scene_{args[0]}{len(ros.players)}.log"
    env = {**ros.env, "MFR_SUBSCRIBERS": str(subscribers)}
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, str(SCENE), *args], env=env, stdout=out, stderr=subprocess.STDOUT, text=True
        )
    player = Player(proc, log)
    ros.players.append(player)
    return player


def collect_raw(ros: RosSession) -> list[tuple[str, int, bytes]]:
    """Every serialized message of the scene's topics as the test process receives it (a bag recorder)."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Imu, JointState
    from tf2_msgs.msg import TFMessage
    from trajectory_msgs.msg import JointTrajectory

    received: list[tuple[str, int, bytes]] = []
    reliable = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)
    latched = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    classes: dict[str, Any] = {
        "/tf": TFMessage,
        "/tf_static": TFMessage,
        "/imu": Imu,
        "/joint_trajectory": JointTrajectory,
    }
    for topic in TYPES:
        cls = classes.get(topic, JointState)

        def keep(raw: bytes, topic: str = topic) -> None:
            received.append((topic, ros.node.get_clock().now().nanoseconds, raw))

        ros.node.create_subscription(cls, topic, keep, latched if topic == "/tf_static" else reliable, raw=True)
    return received


def write_raw_bag(path: Path, messages: list[tuple[str, int, bytes]]) -> Path:
    """The messages, as received, in a rosbag2 bag (what ``ros2 bag record`` stores)."""
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_JAZZY)
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conns: dict[str, Any] = {}
        for topic, ns, raw in sorted(messages, key=lambda m: m[1]):
            if topic not in conns:
                conns[topic] = writer.add_connection(topic, TYPES[topic], typestore=store)
            writer.write(conns[topic], ns, raw)
    return path


def expected_root(start_time_ns: int, times: np.ndarray, base: int) -> tuple[np.ndarray, np.ndarray]:
    """The known odometry path at the frame times, composed with map → odom."""
    t = (start_time_ns - base) / 1e9 + times
    poses = [odom_pose(float(x)) for x in t]
    odom = (np.array([p[0] for p in poses]), np.array([yaw_quat(p[1]) for p in poses]))
    (mx, my, mz), myaw = MAP_ODOM
    n = t.size
    map_odom = (np.tile([mx, my, mz], (n, 1)), np.tile(yaw_quat(myaw), (n, 1)))
    return compose(map_odom, odom)


def _run_scene(tmp_path: Path, out: Path, *extra: str, parent: bool = False) -> tuple[Player, list[Any], int]:
    with ros_session(tmp_path) as ros:
        raw = collect_raw(ros)
        recorder = start_node(
            ros,
            "motion_recorder",
            f"output:={out}",
            "topics:=[arm/joint_states, head/joint_states]",
            "imu_topics:=[imu]",
            "target_topic:=joint_trajectory",
            "world_frame:=map",
            "root_frame:=base_link",
            *extra,
            name="recorder",
        )
        base = time.time_ns() // 1_000_000 * 1_000_000
        static = start_scene(ros, "static")
        # The latched map → odom reaches late joiners too, but only while discovery has found
        # its publisher: this process records the bag, so wait until it has it.
        assert ros.spin_until(lambda: any(t == "/tf_static" and b"odom" in m for t, _, m in raw), 20), static.output()
        publishers = [start_scene(ros, "rsp", str(base), "1.0"), start_scene(ros, "odom", str(base), "1.1")]
        if parent:
            publishers.append(start_scene(ros, "parent", str(base), "1.0"))
        assert ros.spin_until(lambda: all(p.proc.poll() is not None for p in publishers), 40)
        for p in publishers:
            assert p.proc.returncode == 0, p.output()
        ros.spin_for(0.3)
        recorder.proc.send_signal(signal.SIGINT)
        assert recorder.wait(30) == 0, recorder.output()
        static.proc.send_signal(signal.SIGINT)
        static.wait(10)
        messages = list(raw)
    return recorder, messages, base


def test_root_pose_from_three_tf_publishers_recorder_and_bag_agree(tmp_path: Path) -> None:
    out = tmp_path / "scene.msgpack"
    recorder, messages, base = _run_scene(tmp_path, out)
    assert "wrote" in recorder.output(), recorder.output()
    recorded = read(out)
    m = recorded.groups["actual"]
    sent_arm, sent_head = 100, 33
    stamps = np.union1d([arm_stamp(base, k) for k in range(sent_arm)], [head_stamp(base, k) for k in range(sent_head)])
    # Relative times, the absolute start apart; every message of both topics is a frame.
    assert recorded.start_time_ns == stamps[0]
    np.testing.assert_array_equal(np.round(m.times * 1e9).astype(np.int64), stamps - stamps[0])
    position, orientation = expected_root(recorded.start_time_ns, m.times, base)
    assert m.root_position is not None and m.root_orientation is not None
    np.testing.assert_allclose(m.root_position, position, atol=1e-6)
    np.testing.assert_allclose(np.abs(np.sum(m.root_orientation * orientation, axis=1)), 1.0, atol=1e-6)
    # Commanded trajectories: each message replaces the rest of the one before (its 150 ms point).
    target = recorded.groups["target"]
    commanded = [
        base + k * 100_000_000 + ms * 1_000_000 for k in range(11) for ms in (0, 50, 150) if ms < 100 or k == 10
    ]
    np.testing.assert_array_equal(np.round(target.times * 1e9).astype(np.int64) + recorded.start_time_ns, commanded)
    # The IMU says it gives no orientation (covariance[0] = -1): absent, not a zero quaternion.
    assert m.imu_names == ("imu",)
    assert np.isnan(m.imus["orientation"]).all()
    np.testing.assert_allclose(m.imus["angular_velocity"][:, 0, 2], 0.3)

    # The same messages, recorded into a bag by this process, through bag2motion.
    bag = write_raw_bag(tmp_path / "scene_bag", messages)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        converted = read(
            bag,
            topics=["/arm/joint_states", "/head/joint_states"],
            imu=["/imu"],
            trajectory=["/joint_trajectory"],
            root="map:base_link",
            hold=True,  # the recorder holds a joint's last value between its messages
        )
    assert not any("disagree" in str(w.message) or "several parents" in str(w.message) for w in caught)
    assert converted.start_time_ns == recorded.start_time_ns
    # As bag2motion writes it: the same format as the recording (OMF shares joint names across groups).
    write(converted, tmp_path / "converted.msgpack")
    _assert_equal_motions(recorded, read(tmp_path / "converted.msgpack"))


def _assert_equal_motions(a: MotionFile, b: MotionFile) -> None:
    assert list(a.groups) == list(b.groups)
    for name, ma in a.groups.items():
        mb = b.groups[name]
        assert ma.joint_names == mb.joint_names, name
        np.testing.assert_array_equal(ma.times, mb.times)
        arrays_a, arrays_b = dict(ma.iter_arrays()), dict(mb.iter_arrays())
        assert sorted(arrays_a) == sorted(arrays_b), name
        for key, value in arrays_a.items():
            np.testing.assert_allclose(value, arrays_b[key], atol=1e-12, err_msg=f"{name}.{key}")
        assert ma.imu_names == mb.imu_names


def test_a_second_parent_of_the_root_is_reported_not_mixed(tmp_path: Path) -> None:
    """Two localisation publishers claim base_link (odom at 100 Hz, world at 20 Hz)."""
    out = tmp_path / "two.msgpack"
    recorder, messages, base = _run_scene(tmp_path, out, parent=True)
    log = recorder.output()
    assert "frame 'base_link' is published with several parents: 'odom' (111 samples), 'world' (20 samples)" in log
    recorded = read(out)
    m = recorded.groups["actual"]
    position, _ = expected_root(recorded.start_time_ns, m.times, base)  # the odom tree, never a mix
    assert m.root_position is not None
    np.testing.assert_allclose(m.root_position, position, atol=1e-6)
    bag = write_raw_bag(tmp_path / "two_bag", messages)
    with pytest.warns(UserWarning, match=r"frame 'base_link' is published with several parents"):
        converted = read(bag, topics=["/arm/joint_states", "/head/joint_states"], root="map:base_link", hold=True)
    assert converted.motion.root_position is not None
    np.testing.assert_allclose(converted.motion.root_position, m.root_position, atol=1e-12)
