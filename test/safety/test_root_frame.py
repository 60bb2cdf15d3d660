"""The check computes in a frame near the first frame's root x, y.

Collisions, the floor and balance do not change when the robot is moved along the ground;
floats do: at x = 1e15 m they are 0.125 m apart, at 1e17 m 16 m. A robot standing still far
from the origin was found colliding with itself and off balance; now it gets what it gets at
the origin, and a root too far for micrometres (beyond 2**33 m from that frame) is refused.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.examples import biped_urdf, biped_walk
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Motion
from motion_formats_ros.safety import Checker, balance_series
from motion_formats_ros.safety.check import FARTHEST_ROOT

pytest.importorskip("coal")


@pytest.fixture(scope="module")
def robot() -> RobotModel:
    return RobotModel.from_urdf(biped_urdf())


@pytest.fixture(scope="module")
def checker(robot: RobotModel) -> Checker:
    return Checker(robot)


def _walk() -> Motion:
    return biped_walk().groups["target"]


def _moved(m: Motion, x: float = 0.0, y: float = 0.0, z: float = 0.0) -> Motion:
    root = np.array(m.root_position, dtype=np.float64)
    root += [x, y, z]
    return dataclasses.replace(m, root_position=root)


def _standing(n: int = 50) -> Motion:
    """The walk's first frame held still, the root at x = y = 0."""
    m = _walk()
    root = np.array(m.root_position[0], dtype=np.float64)  # type: ignore[index]
    root[:2] = 0.0
    return Motion(
        times=np.arange(n) / 100.0,
        joint_names=m.joint_names,
        position=np.tile(m.position[0], (n, 1)),  # type: ignore[index]
        root_position=np.tile(root, (n, 1)),
        root_orientation=np.tile(m.root_orientation[0], (n, 1)),  # type: ignore[index]
    )


def _said(checker: Checker, m: Motion) -> list[tuple[str, tuple[str, ...], tuple[tuple[float, float], ...]]]:
    return [(f.kind, f.links, f.intervals) for f in checker.check(m).findings]


@pytest.mark.parametrize("x", [1e15, 1e17, -3e16])
def test_a_robot_standing_far_along_the_ground_gets_what_it_gets_at_the_origin(checker: Checker, x: float) -> None:
    still = _standing()
    assert _said(checker, _moved(still, x=x, y=x / 2)) == _said(checker, still)


@pytest.mark.parametrize(("x", "y"), [(3.25, -1.5), (1000.5, -2000.25)])
def test_findings_and_series_of_the_walk_moved_along_the_ground(checker: Checker, x: float, y: float) -> None:
    walk = _walk()
    here = checker.check(walk, series=True)
    there = checker.check(_moved(walk, x, y), series=True)
    assert [(f.kind, f.links, f.intervals, f.start) for f in there.findings] == [
        (f.kind, f.links, f.intervals, f.start) for f in here.findings
    ]
    np.testing.assert_allclose([f.worst for f in there.findings], [f.worst for f in here.findings], rtol=0, atol=1e-9)
    assert here.series is not None and there.series is not None
    # The series are given in the motion's frame: moved with it.
    spacing = np.spacing(max(abs(x), abs(y)))
    offset = np.array([x, y, 0.0])
    np.testing.assert_allclose(there.series.com, here.series.com + offset, rtol=0, atol=1e-9 + spacing)
    np.testing.assert_allclose(there.series.zmp, here.series.zmp + offset[:2], rtol=0, atol=1e-9 + spacing)
    for a, b in zip(there.series.support, here.series.support, strict=True):  # the same corners (any first)
        assert a.shape == b.shape
        gap = np.abs(a[:, None, :] - (b + offset[:2])[None, :, :]).max(axis=2)
        assert (gap.min(axis=1) <= 1e-9 + spacing).all()


def test_the_balance_series_is_computed_near_the_origin_and_given_in_the_motion_frame(robot: RobotModel) -> None:
    still = _standing()
    com, zmp = balance_series(robot, still)
    far_com, far_zmp = balance_series(robot, _moved(still, x=1e15))
    np.testing.assert_allclose(far_com - [1e15, 0.0, 0.0], com, rtol=0, atol=0.25)  # 1e15's own spacing: 0.125
    assert np.all(np.abs(far_zmp[:, 1] - zmp[:, 1]) < 1e-9)  # y is near 0: to the nanometre
    assert np.all(np.abs(far_com[:, 2] - com[:, 2]) < 1e-9)


@pytest.mark.parametrize(
    ("axis", "value", "said"),
    [
        (2, 1e17, "at frame 0 (t = 0 s), z = 1e+17 m is 1e+17 m from the ground (z = 0)"),
        (
            0,
            2 * FARTHEST_ROOT,
            "at frame 20 (t = 0.2 s), x = 1.71799e+10 m is 1.72e+10 m from the check's origin (x = 0 m)",
        ),
    ],
)
def test_a_root_too_far_for_micrometres_is_refused_in_one_line(
    checker: Checker, robot: RobotModel, axis: int, value: float, said: str
) -> None:
    m = _standing()
    root = np.array(m.root_position, dtype=np.float64)
    root[20 if axis == 0 else slice(None), axis] = value
    m = dataclasses.replace(m, root_position=root)
    for run in (lambda: checker.check(m, source="far.seq"), lambda: balance_series(robot, m, source="far.seq")):
        with pytest.raises(ReadError) as refused:
            run()
        text = str(refused.value)
        assert len(text.splitlines()) == 1
        assert text.startswith(f"far.seq: root position: {said}"), text


def test_a_motion_near_the_origin_is_computed_as_it_is_to_the_bit(checker: Checker, robot: RobotModel) -> None:
    """Within 512 m of the origin the check's frame is the motion's: its series are the kinematics'
    own centre of mass and ZMP, bit for bit."""
    from motion_formats_ros.safety.dynamics import Masses, zmp

    walk = _moved(_walk(), x=300.0, y=-200.0)
    poses = robot.link_poses(walk.joint_names, walk.position, walk.root_position, walk.root_orientation, warn=False)
    com, point = zmp(Masses.of(robot), poses.rotation, poses.translation, walk.times)
    series = checker.check(walk, series=True).series
    assert series is not None
    assert series.com.tobytes() == com.tobytes() and series.zmp.tobytes() == point.tobytes()
    got = balance_series(robot, walk)
    assert got[0].tobytes() == com.tobytes() and got[1].tobytes() == point.tobytes()
