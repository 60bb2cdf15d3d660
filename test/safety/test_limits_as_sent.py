"""Limits judged on exactly what the player sends: the cubic's acceleration at the points,
a keyframe step's jump, and the start_time..end_time window with the rates derived for it."""

from __future__ import annotations

import numpy as np
import pytest

from motion_formats_ros import Motion
from motion_formats_ros.core.model import JointLimit
from motion_formats_ros.playback.plan import evaluate, plan_trajectory
from motion_formats_ros.safety.limits import LimitViolationError, check_limits, limit_findings
from motion_formats_ros.core.joint_limits import JointLimits


def _ramp() -> Motion:
    """At rest, then 0.9 rad/s from 1 s to 2 s, then at rest (100 Hz)."""
    t = np.round(np.arange(301) * 0.01, 10)
    q = np.clip(0.9 * (t - 1.0), 0.0, 0.9)
    return Motion(times=t, joint_names=("j1",), joint_dims=(1,), position=q[:, None], rate=100.0)


def _played_acceleration(motion: Motion) -> float:
    """The largest acceleration of the controller's cubic through the points the player plans."""
    plan = plan_trajectory(motion, approach_time=0.0, tolerance=0.0)
    t = plan.time_from_start
    dense = np.linspace(t[0], t[-1], 300_001)
    q = evaluate(t, plan.positions, plan.velocities, plan.accelerations, dense)[:, 0]
    h = dense[1] - dense[0]
    return float(np.abs(np.diff(q, 2)).max() / h**2)


def test_the_cubics_acceleration_at_the_points_is_judged() -> None:
    """The derived velocities go from 0 to 0.9 rad/s within one 10 ms segment: the controller's
    cubic accelerates at 360 rad/s² there, which the frames' second differences (45) do not show."""
    motion = _ramp()
    played = _played_acceleration(motion)
    assert played == pytest.approx(360.0, rel=1e-2)
    with pytest.raises(LimitViolationError, match=r"acceleration limit 100 .*acceleration 360"):
        check_limits(motion, {"j1": JointLimit(acceleration=100.0)})
    found = limit_findings(motion, JointLimits({"j1": JointLimit(acceleration=100.0)}))
    assert [f.kind for f in found] == ["acceleration_limit"]
    assert found[0].worst == pytest.approx(played, rel=1e-2)
    check_limits(motion, {"j1": JointLimit(acceleration=played * 1.01)})  # what is played, no more
    check_limits(motion, {"j1": JointLimit(acceleration=100.0)}, interpolation="linear")  # a straight line
