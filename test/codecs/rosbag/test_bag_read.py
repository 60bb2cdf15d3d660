"""Bag → motion on bags written with rosbags' Writer: merging, stamps, TF, IMU, trajectories."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin
from support.bags import JS, TF, T, header, joint_state, stamp, tf_message, transform, write_bag

from motion_formats_ros import read
from motion_formats_ros.codecs.rosbag import BagMotionRecord

S = 1_000_000_000
BASE = 1_700_000_000 * S


def _quiet_read(path: Path, **options: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read(path, **options)


def _two_topics(tmp_path: Path) -> Path:
    msgs = []
    for k in range(4):
        ns = BASE + k * 10_000_000
        msgs.append(("/arm/joint_states", JS, ns, joint_state(ns, ["a1", "a2"], [k, 10 + k])))
    # the gripper publishes later, at other times, and names its joints in another order
    for k in range(2):
        ns = BASE + 15_000_000 + k * 10_000_000
        msgs.append(("/gripper/joint_states", JS, ns, joint_state(ns, ["g2", "g1"], [200 + k, 100 + k])))
    # a joint that appears later on the arm topic
    ns = BASE + 40_000_000
    msgs.append(("/arm/joint_states", JS, ns, joint_state(ns, ["a2", "a1", "a3"], [14, 4, 40])))
    msgs.sort(key=lambda m: m[2])
    return write_bag(tmp_path / "two", msgs)


def test_bag_read_merges_topics_by_joint_name_with_nan(tmp_path: Path) -> None:
    bag = _two_topics(tmp_path)
    mf = read(bag, topics=["/arm/joint_states", "/gripper/joint_states"])
    m = mf.groups["actual"]
    assert m.joint_names == ("a1", "a2", "a3", "g2", "g1")  # topic order, then first appearance
    assert np.allclose(m.times, [0, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04])
    p = m.position
    assert p is not None
    assert p[0, 0] == 0 and p[0, 1] == 10 and math.isnan(p[0, 2]) and math.isnan(p[0, 4])
    assert p[2, 4] == 100 and p[2, 3] == 200 and math.isnan(p[2, 0])
    assert list(p[6, [0, 1, 2]]) == [4, 14, 40]  # reordered names land on their joints
    assert m.velocity is None


def test_bag_read_hold_fills_from_the_last_sample(tmp_path: Path) -> None:
    bag = _two_topics(tmp_path)
    m = read(bag, topics=["/arm/joint_states", "/gripper/joint_states"], hold=True).groups["actual"]
    p = m.position
    assert p is not None
    assert p[2, 0] == 1 and p[2, 1] == 11  # arm held from t=0.01 at t=0.015
    assert math.isnan(p[0, 4])  # nothing to hold before the gripper's first message
    assert p[6, 4] == 101 and p[6, 3] == 201  # gripper held to the end
    assert np.isnan(p[:6, 2]).all() and p[6, 2] == 40


def test_bag_read_default_topic_and_joint_selection(tmp_path: Path) -> None:
    bag = _two_topics(tmp_path)
    # no /joint_states: every JointState topic is merged
    m = _quiet_read(bag).groups["actual"]  # type: ignore[attr-defined]
    assert set(m.joint_names) == {"a1", "a2", "a3", "g1", "g2"}
    m = read(bag, topics=["/arm/joint_states"], joints=["a2", "a1"], start=0.005, end=0.035).groups["actual"]
    assert m.joint_names == ("a2", "a1")
    assert np.allclose(m.times, [0.01, 0.02, 0.03])
    m = read(bag, topics=["/arm/joint_states"], rate=100.0).groups["actual"]
    assert m.rate == 100.0 and m.num_frames == 5


def test_bag_read_stamp_modes(tmp_path: Path) -> None:
    msgs = []
    for k in range(3):
        recv = BASE + k * S
        msgs.append(("/joint_states", JS, recv, joint_state(BASE + k * 500_000_000 + 7, ["j"], [k])))
    bag = write_bag(tmp_path / "s", msgs)
    header_times = read(bag).motion.times
    receive_times = read(bag, stamps="receive").motion.times
    assert np.allclose(header_times, [0, 0.5, 1.0])
    assert np.allclose(receive_times, [0, 1.0, 2.0])
    assert read(bag).motion.record(BagMotionRecord).time_origin_ns == BASE + 7
    with pytest.raises(ValueError, match="stamps"):
        read(bag, stamps="bogus")


def test_bag_read_root_composed_over_dynamic_hops_and_static(tmp_path: Path) -> None:
    half = math.sqrt(0.5)
    msgs: list[tuple[str, str, int, object]] = [
        ("/tf_static", TF, BASE, tf_message(transform(BASE, "base_link", "sensor", [0, 0, 1]))),
    ]
    for k in range(3):
        ns = BASE + k * 100_000_000
        msgs.append(
            (
                "/tf",
                TF,
                ns,
                tf_message(
                    transform(ns, "map", "odom", [k, 0, 0], [0, 0, half, half]),  # 90 deg about z
                    transform(ns, "odom", "base_link", [1, 0, 0]),
                ),
            )
        )
        msgs.append(("/joint_states", JS, ns, joint_state(ns, ["j"], [k])))
    bag = write_bag(tmp_path / "tf", msgs)
    m = read(bag, root="map:sensor").motion
    assert np.allclose(m.root_position, [[0, 1, 1], [1, 1, 1], [2, 1, 1]])  # type: ignore[arg-type]
    assert np.allclose(np.abs(m.root_orientation), [[0, 0, half, half]] * 3)  # type: ignore[arg-type]
    # the pose of a parent in its child: the inverse
    inv = read(bag, root="sensor:map").motion
    assert np.allclose(inv.root_position[0], [-1, 0, -1])  # type: ignore[index]
    # links in the root's parent frame
    m = read(bag, root="map:base_link", links=["odom", "sensor"]).motion
    assert m.link_names == ("odom", "sensor")
    assert np.allclose(m.links["position"][2], [[2, 0, 0], [2, 1, 1]])


def test_bag_read_imu_and_trajectory_groups(tmp_path: Path) -> None:
    msgs: list[tuple[str, str, int, object]] = []
    vec, quat = T["geometry_msgs/msg/Vector3"], T["geometry_msgs/msg/Quaternion"]
    for k in range(3):
        ns = BASE + k * 100_000_000
        msgs.append(("/joint_states", JS, ns, joint_state(ns, ["a", "b"], [k, -k])))
        cov = np.zeros(9)
        missing = np.zeros(9)
        missing[0] = -1
        imu = T["sensor_msgs/msg/Imu"](
            header=header(ns, "imu_link"),
            orientation=quat(x=0.0, y=0.0, z=0.0, w=1.0),
            orientation_covariance=missing,
            angular_velocity=vec(x=float(k), y=0.0, z=0.0),
            angular_velocity_covariance=cov,
            linear_acceleration=vec(x=0.0, y=0.0, z=9.81),
            linear_acceleration_covariance=cov,
        )
        msgs.append(("/imu/data", "sensor_msgs/msg/Imu", ns, imu))
    point = T["trajectory_msgs/msg/JointTrajectoryPoint"]
    dur = T["builtin_interfaces/msg/Duration"]

    def traj(ns: int, offsets: list[int]) -> object:
        return T["trajectory_msgs/msg/JointTrajectory"](
            header=header(ns),
            joint_names=["b", "a"],
            points=[
                point(
                    positions=np.array([o, -o], dtype=float),
                    velocities=np.zeros(0),
                    accelerations=np.zeros(0),
                    effort=np.zeros(0),
                    time_from_start=dur(sec=0, nanosec=o * 50_000_000),
                )
                for o in offsets
            ],
        )

    # the second trajectory replaces the rest of the first from its own start
    msgs.append(("/arm/joint_trajectory", "trajectory_msgs/msg/JointTrajectory", BASE, traj(BASE, [0, 1, 2, 3])))
    ns = BASE + 100_000_000
    msgs.append(("/arm/joint_trajectory", "trajectory_msgs/msg/JointTrajectory", ns, traj(ns, [0, 1])))
    msgs.sort(key=lambda m: m[2])
    bag = write_bag(tmp_path / "it", msgs)
    mf = read(bag)
    m = mf.groups["actual"]
    assert m.imu_names == ("imu/data",)
    assert np.isnan(m.imus["orientation"]).all()  # covariance[0] == -1: no estimate
    assert np.allclose(m.imus["angular_velocity"][:, 0, 0], [0, 1, 2])
    assert np.allclose(m.imus["linear_acceleration"][:, 0, 2], 9.81)
    target = mf.groups["target"]
    assert target.joint_names == ("b", "a")
    assert np.allclose(target.times, [0, 0.05, 0.1, 0.15])
    assert np.allclose(target.position[:, 0], [0, 1, 0, 1])  # type: ignore[index]
    assert "target" not in read(bag, trajectory=[]).groups


def test_bag_read_stamp_zero_trajectory_starts_on_receipt(tmp_path: Path) -> None:
    point = T["trajectory_msgs/msg/JointTrajectoryPoint"]
    msg = T["trajectory_msgs/msg/JointTrajectory"](
        header=T["std_msgs/msg/Header"](stamp=stamp(0), frame_id=""),
        joint_names=["a"],
        points=[
            point(
                positions=np.array([1.0]),
                velocities=np.zeros(0),
                accelerations=np.zeros(0),
                effort=np.zeros(0),
                time_from_start=T["builtin_interfaces/msg/Duration"](sec=1, nanosec=0),
            )
        ],
    )
    bag = write_bag(
        tmp_path / "z",
        [
            ("/joint_states", JS, BASE, joint_state(BASE, ["a"], [0.0])),
            ("/joint_trajectory", "trajectory_msgs/msg/JointTrajectory", BASE + S, msg),
        ],
        StoragePlugin.SQLITE3,
    )
    target = read(bag).groups["target"]
    assert np.allclose(target.times, [2.0])  # received 1 s after the first joint state, +1 s
