"""A root orientation is a rotation at any finite non-zero scale; zero or infinite is refused.

A quaternion's rotation does not depend on its length: one whose components are 1e200 or
1e-200 times a unit quaternion is that rotation. Its squared length overflows (or
underflows), so a plain ``q / |q|`` loses it; the robot then stood upright in ``check``,
the roll-pitch-yaw layout wrote a made-up pitch, and the simulator overflowed.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read, write
from motion_formats_ros.core.errors import MotionFormatError, ReadError
from motion_formats_ros.core.examples import biped_urdf, biped_walk
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.core.spatial import quat_to_rpy, require_rotations, unit_quaternions, unit_rows

ROLL = math.radians(40.0)
TILT = np.array([math.sin(ROLL / 2), 0.0, 0.0, math.cos(ROLL / 2)])
SCALES = (1e200, 1e300, 1e-200, 1e-300)


@pytest.mark.parametrize("scale", SCALES)
def test_any_finite_scale_normalises_to_the_same_rotation(scale: float) -> None:
    np.testing.assert_allclose(unit_quaternions(TILT * scale), TILT, rtol=0, atol=1e-15)
    np.testing.assert_allclose(quat_to_rpy(TILT * scale), [ROLL, 0.0, 0.0], rtol=0, atol=1e-12)


def test_a_row_in_the_plain_range_is_divided_as_before() -> None:
    rng = np.random.default_rng(3)
    q = rng.normal(size=(50, 4))
    np.testing.assert_array_equal(unit_quaternions(q), q / np.linalg.norm(q, axis=1, keepdims=True))


def test_zero_and_infinite_rows_have_no_direction() -> None:
    unit, norm = unit_rows(np.array([[0.0, 0, 0, 0], [math.inf, 0, 0, 1], [1e308, 1e308, 0, 0]]))
    assert np.isnan(unit[:2]).all() and list(norm[:2]) == [0.0, math.inf]
    np.testing.assert_allclose(unit[2], [math.sqrt(0.5), math.sqrt(0.5), 0, 0])
    assert norm[2] == pytest.approx(math.sqrt(2) * 1e308)


@pytest.fixture(scope="module")
def robot() -> RobotModel:
    return RobotModel.from_urdf(biped_urdf())


def _tilted(scale: float) -> Motion:
    walk = biped_walk().groups["target"]
    assert walk.root_orientation is not None
    return dataclasses.replace(walk, root_orientation=np.tile(TILT * scale, (walk.num_frames, 1)))


@pytest.mark.parametrize("scale", SCALES)
def test_link_poses_of_a_scaled_root_orientation_are_the_tilted_robot(robot: RobotModel, scale: float) -> None:
    plain, scaled = _tilted(1.0), _tilted(scale)
    args = (plain.joint_names, plain.position, plain.root_position)
    want = robot.link_poses(*args, plain.root_orientation, warn=False)
    got = robot.link_poses(*args, scaled.root_orientation, warn=False)
    np.testing.assert_allclose(got.translation, want.translation, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.rotation, want.rotation, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("row", "what"), [([0.0, 0.0, 0.0, 0.0], "all zero"), ([0.0, math.inf, 0.0, 1.0], "infinite")])
def test_link_poses_refuse_a_root_orientation_that_is_no_rotation(
    robot: RobotModel, row: list[float], what: str
) -> None:
    m = _tilted(1.0)
    quat = m.root_orientation.copy()  # type: ignore[union-attr]
    quat[7] = row
    with pytest.raises(MotionFormatError, match=rf"walk\.seq: root orientation: at frame 7, .*{what}, no rotation"):
        robot.link_poses(m.joint_names, m.position, m.root_position, quat, warn=False, motion="walk.seq")


def test_an_absent_orientation_still_holds_the_last_one(robot: RobotModel) -> None:
    m = _tilted(1.0)
    quat = m.root_orientation.copy()  # type: ignore[union-attr]
    quat[7] = np.nan
    poses = robot.link_poses(m.joint_names, m.position, m.root_position, quat, warn=False)
    np.testing.assert_array_equal(poses.rotation[7, 0], poses.rotation[6, 0])


def test_require_rotations_names_file_frame_time_and_field() -> None:
    q = np.tile([0.0, 0.0, 0.0, 1.0], (4, 1))
    q[2] = 0.0
    with pytest.raises(ReadError) as info:
        require_rotations(q, "m.seq", "root orientation", np.arange(4) * 0.5)
    assert str(info.value).splitlines() == [
        "m.seq: root orientation: at frame 2 (t = 1 s), [0.0, 0.0, 0.0, 0.0] (x, y, z, w): all zero, no rotation"
    ]
    require_rotations(np.where(np.arange(4)[:, None] == 2, np.nan, q), "m.seq", "root orientation")  # absent: no error


@pytest.mark.parametrize("row", [[0.0, 0.0, 0.0, 0.0], [math.inf, 0.0, 0.0, 1.0]])
def test_reading_a_file_whose_root_orientation_is_no_rotation_is_refused(tmp_path: Path, row: list[float]) -> None:
    m = _tilted(1.0)
    q = m.root_orientation.copy()  # type: ignore[union-attr]
    q[3] = [0.5, 0.5, 0.5, 0.5]  # a rotation the writer takes, then made no rotation in the text
    path = tmp_path / "walk.csv"
    write(MotionFile(groups={"walk": dataclasses.replace(m, root_orientation=q)}), path)
    text = path.read_text()
    assert text.count(",0.5,0.5,0.5,0.5") == 1
    path.write_text(text.replace(",0.5,0.5,0.5,0.5", "," + ",".join(repr(x) for x in row)))
    with pytest.raises(ReadError, match=r"walk\.csv: root orientation: at frame 3 \(t = 0\.03 s\)"):
        read(path)


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_roll_pitch_yaw_layout_keeps_the_roll_of_a_scaled_quaternion(tmp_path: Path, scale: float) -> None:
    m = _tilted(scale)
    out = tmp_path / "t.seq"
    write(MotionFile(groups={"walk": m}), out, se3_format="XYZRPY")
    back = read(out).groups
    got = next(iter(back.values())).root_orientation
    np.testing.assert_allclose(quat_to_rpy(got), np.tile([ROLL, 0.0, 0.0], (m.num_frames, 1)), rtol=0, atol=1e-8)


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_check_finds_on_a_scaled_root_orientation_what_it_finds_on_the_unit_one(
    robot: RobotModel, scale: float
) -> None:
    pytest.importorskip("coal")
    from motion_formats_ros.safety import Checker

    checker = Checker(robot)
    want = [f.message() for f in checker.check(_tilted(1.0)).findings]
    assert any("below the ground" in text for text in want)  # tilted 40°: a foot sinks
    assert [f.message() for f in checker.check(_tilted(scale)).findings] == want
