"""Joint limits checked before playing (the player's refusal), and the limits a URDF states."""

from __future__ import annotations

import pytest

from motion_formats_ros import Motion, ReadError
from motion_formats_ros.core.examples import biped_urdf
from motion_formats_ros.core.joint_limits import JointLimits
from motion_formats_ros.core.model import JointLimit
from motion_formats_ros.safety.limits import LimitViolationError, check_limits


def test_limits_name_joint_time_and_value() -> None:
    m = Motion(times=[0.0, 0.5, 1.0], joint_names=("a", "b"), position=[[0, 0], [0.2, 1.5], [0.4, 0.1]])
    check_limits(m, {"a": JointLimit(-1, 1, 10.0)})
    with pytest.raises(LimitViolationError, match=r"joint 'b' above its upper limit 1 at t = 0\.5 s \(value 1\.5\)"):
        check_limits(m, {"b": JointLimit(-1, 1)})
    with pytest.raises(LimitViolationError, match=r"joint 'b' below its lower limit 0\.2 at t = 0 s"):
        check_limits(m, {"b": JointLimit(0.2, 2)})
    with pytest.raises(LimitViolationError, match=r"joint 'b' faster than its velocity limit 2 rad/s"):
        check_limits(m, {"b": JointLimit(velocity=2.0)})
    # a: 0.4 rad/s between frames, and up to 0.533 rad/s in the cubic that brings it to rest at the end
    check_limits(m, {"a": JointLimit(velocity=0.6)})
    with pytest.raises(LimitViolationError, match=r"at t = 0\.666667 s \(speed 0\.533333 at playback rate 1\)"):
        check_limits(m, {"a": JointLimit(velocity=0.5)})
    with pytest.raises(LimitViolationError, match="at playback rate 2"):
        check_limits(m, {"a": JointLimit(velocity=0.6)}, speed=2.0)


def test_urdf_limits() -> None:
    limits = JointLimits.from_urdf(biped_urdf())
    assert limits["left_knee"] == JointLimit(0.0, 2.2, 6.0, effort=12.0)
    urdf = """<robot name="r"><joint name="c" type="continuous"><limit velocity="3" effort="1"/></joint>
    <joint name="f" type="fixed"/><joint name="p" type="prismatic"><limit upper="0.2" velocity="1"/></joint></robot>"""
    limits = JointLimits.from_urdf(urdf)
    assert dict(limits) == {"c": JointLimit(velocity=3.0, effort=1.0), "p": JointLimit(0.0, 0.2, 1.0)}
    with pytest.raises(ReadError, match=r"r\.urdf:1: invalid URDF XML"):
        JointLimits.from_urdf("<robot", "r.urdf")
    with pytest.raises(ReadError, match="expected <robot>"):
        JointLimits.from_urdf("<sdf/>", "x")
