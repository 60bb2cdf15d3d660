"""What the check finds on real robots in motions made for it: balance, floor, default poses."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.robots import PANDA_SRDF, PANDA_URDF, TALOS_SRDF, TALOS_URDF, group_state, robot_file, share

from motion_formats_ros import write
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.core.spatial import quat_to_matrix
from motion_formats_ros.safety import Checker
from motion_formats_ros.safety.findings import intervals
from motion_formats_ros.safety.shapes import shape_poses

pytest.importorskip("coal")


@pytest.fixture(scope="module")
def talos() -> Checker:
    return Checker(robot_file(*TALOS_URDF), srdf=robot_file(*TALOS_SRDF), package_paths=[share()])


def standing(checker: Checker, n: int = 200, rate: float = 100.0) -> Motion:
    """TALOS in its half-sitting pose, the soles on the ground, for ``n`` frames."""
    pose = group_state(robot_file(*TALOS_SRDF), "half_sitting")
    names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
    values = np.array([pose.get(name, 0.0) for name in names])
    poses = checker.model.link_poses(names, values[None, :], warn=False)
    rotation, translation = shape_poses(checker.shapes, quat_to_matrix(poses.rotation), poses.translation)
    lowest = min(
        float((translation[0, k, 2] + rotation[0, k, 2] @ s.hull.T).min()) for k, s in enumerate(checker.shapes)
    )
    t = np.arange(n) / rate
    root = np.tile([0.0, 0.0, -lowest], (n, 1))
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    return Motion(
        times=t, joint_names=names, position=np.tile(values, (n, 1)), root_position=root, root_orientation=quat
    )


def test_default_pose_gives_no_finding(talos: Checker) -> None:
    report = talos.check(standing(talos), series=True)
    assert report.findings == []
    assert "balance" in report.checked
    assert report.series is not None
    # Standing still: the ZMP is the centre of mass's ground point.
    np.testing.assert_allclose(report.series.zmp, report.series.com[:, :2], atol=1e-6)
    # The support polygon: both soles, around the ZMP.
    polygon = report.series.support[0]
    assert len(report.series.support) == report.times.size and polygon.shape[0] >= 4
    from matplotlib.path import Path as Outline

    assert Outline(polygon).contains_point(report.series.zmp[0])
    width = polygon[:, 1].max() - polygon[:, 1].min()
    assert 0.2 < width < 0.5  # two feet side by side


def test_shaken_base_loses_balance(talos: Checker) -> None:
    motion = standing(talos, n=300, rate=200.0)
    assert motion.root_position is not None
    shake = 0.03 * np.sin(2 * math.pi * 3.0 * motion.times)  # 3 Hz, ±3 cm: ±10.7 m/s²
    motion.root_position[:, 0] += shake
    report = talos.check(motion)
    balance = report.of_kind("balance")
    assert len(balance) == 1
    assert balance[0].level == "warning" and balance[0].worst > 0.3
    assert not report.errors  # the soles slide on the ground; nothing sinks or collides


def test_sunk_base_touches_the_floor_with_a_leg(talos: Checker) -> None:
    motion = standing(talos, n=50)
    assert motion.root_position is not None
    motion.root_position[25:, 2] -= 0.3
    report = talos.check(motion)
    floor = report.of_kind("floor")
    assert floor, report.lines()
    assert all(f.links[0].startswith("leg_") for f in floor)
    assert {f.intervals for f in floor} == {((0.25, 0.49),)}
    assert max(f.worst for f in floor) == pytest.approx(0.3, abs=1e-6)
    assert "floor" in floor[0].message() or "below the ground" in floor[0].message()


def test_panda_default_pose_no_finding_without_srdf_says_which_pairs() -> None:
    checker = Checker(robot_file(*PANDA_URDF), package_paths=[share()])
    pose = group_state(robot_file(*PANDA_SRDF), "default")
    names = tuple(pose)
    motion = Motion(times=np.arange(10) * 0.1, joint_names=names, position=np.tile(list(pose.values()), (10, 1)))
    report = checker.check(motion)
    assert report.findings == []
    text = " ".join(report.notes)
    assert "no SRDF" in text and "adjacent" in text and "zero pose" in text
    assert "placed upright" in text and "balance not checked" in text
    # Adjacent pairs are left out; a non-adjacent pair is kept.
    assert ("panda_link1", "panda_link2") not in checker.pairs
    assert ("panda_link0", "panda_hand") in checker.pairs


def test_intervals() -> None:
    t = np.arange(8) * 0.5
    assert intervals(t, np.array([0, 1, 1, 0, 0, 1, 0, 1], dtype=bool)) == ((0.5, 1.0), (2.5, 2.5), (3.5, 3.5))
    assert intervals(t, np.zeros(8, dtype=bool)) == ()


def test_cli_series_of_a_shaken_robot(talos: Checker, tmp_path: Path) -> None:
    motion = standing(talos, n=120, rate=200.0)
    assert motion.root_position is not None
    motion.root_position[:, 1] += 0.03 * np.sin(2 * math.pi * 3.0 * motion.times)
    path = tmp_path / "shaken.csv"
    write(MotionFile.single(motion), path)
    args = ["--urdf", robot_file(*TALOS_URDF), "--srdf", robot_file(*TALOS_SRDF), "--package-path", share()]
    status, out, err, _ = cli("check", path, *args, "--json", "--series", blocked=())
    assert status == 0, err  # balance is a warning
    report = json.loads(out)
    assert [f["kind"] for f in report["findings"]] == ["balance"]
    series = report["series"]
    assert len(series["time"]) == len(series["com"]) == len(series["zmp"]) == 120
    zmp_y = np.array([row[1] for row in series["zmp"]])
    com_y = np.array([row[1] for row in series["com"]])
    assert np.ptp(zmp_y) > 5 * np.ptp(com_y)  # the shaking moves the ZMP far more than the CoM


def test_strict_check_fails_on_a_balance_warning(talos: Checker, tmp_path: Path) -> None:
    """``--strict`` fails on any warning, as its help says: a balance finding too."""
    motion = standing(talos, n=120, rate=200.0)
    assert motion.root_position is not None
    motion.root_position[:, 1] += 0.03 * np.sin(2 * math.pi * 3.0 * motion.times)
    path = tmp_path / "shaken.csv"
    write(MotionFile.single(motion), path)
    args = ["--urdf", robot_file(*TALOS_URDF), "--srdf", robot_file(*TALOS_SRDF), "--package-path", share()]
    status, out, err, _ = cli("check", path, *args, blocked=())
    assert status == 0, err  # without --strict a warning is a warning
    status, strict_out, err, _ = cli("check", path, *args, "--strict", blocked=())
    assert status == 3, err
    assert strict_out == out and "balance" in out  # the same report, failing
    status, out, err, _ = cli("check", "--help", blocked=())
    assert status == 0 and "--strict" in out and "balance" in " ".join(out.split())


def test_motion2bag_writes_com_and_zmp(talos: Checker, tmp_path: Path) -> None:
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import Stores, get_typestore

    from motion_formats_ros.safety import balance_series

    motion = standing(talos, n=100, rate=100.0)
    assert motion.root_position is not None
    motion.root_position[:, 0] += 0.02 * np.sin(2 * math.pi * 1.0 * motion.times)
    path = tmp_path / "sway.csv"
    write(MotionFile.single(motion), path)
    bag = tmp_path / "sway_bag"
    status, _, err, _ = cli("motion2bag", path, bag, "--urdf", robot_file(*TALOS_URDF), "--balance-series", blocked=())
    assert status == 0, err
    com, zmp = balance_series(talos.model, motion)
    with AnyReader([bag], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        topics = {c.topic: c.msgtype for c in reader.connections}
        assert topics["/com"] == topics["/zmp"] == "geometry_msgs/msg/PointStamped"
        got: dict[str, list[list[float]]] = {"/com": [], "/zmp": []}
        for conn, _, raw in reader.messages(connections=[c for c in reader.connections if c.topic in got]):
            msg = reader.deserialize(raw, conn.msgtype)
            got[conn.topic].append([msg.point.x, msg.point.y, msg.point.z])
            assert msg.header.frame_id == "world"
    # (the CSV file holds the motion to its printed digits; the reference had the exact values)
    np.testing.assert_allclose(np.array(got["/com"]), com, atol=1e-6)
    np.testing.assert_allclose(np.array(got["/zmp"])[:, :2], zmp, atol=1e-6)
    assert np.ptp(zmp[:, 0]) > np.ptp(com[:, 0])  # the sway's acceleration moves the ZMP further
    status, _, err, _ = cli("motion2bag", path, tmp_path / "b2", "--balance-series", blocked=())
    assert status == 1 and "--urdf" in err
