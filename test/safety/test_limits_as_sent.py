"""Limits judged on exactly what the player sends: the cubic's acceleration at the points,
a keyframe step's jump, and the start_time..end_time window with the rates derived for it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import Motion, read
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


def _jump_mof(tmp_path: Path) -> Path:
    """HeadYaw at 0°, then (Int 0: no interpolation) a jump to 3° (0.052 rad) 500 ms later, held."""

    def row(head_yaw: float, interpolation: int, ms: int) -> str:
        return f"{head_yaw:g} " + " ".join(["0"] * 21) + f" {interpolation} {ms}"

    (tmp_path / "extern.mof").write_text("motion_id = extern\nlabel start\ntransition allMotions extern start\n")
    path = tmp_path / "jump.mof"
    rows = [row(0, 1, 100), row(3, 0, 500), row(3, 1, 500)]
    path.write_text("motion_id = jump\nlabel start\n" + "\n".join(rows) + "\ntransition allMotions extern start\n")
    return path


#: HeadYaw alone, ±2 rad, 8.3 rad/s.
HEAD = """<?xml version="1.0"?>
<robot name="head">
  <link name="torso"/><link name="neck"/>
  <joint name="HeadYaw" type="revolute"><parent link="torso"/><child link="neck"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" velocity="8.3" effort="10"/></joint>
</robot>
"""


def test_a_keyframe_jump_is_judged_as_the_player_sends_it(tmp_path: Path) -> None:
    """The player sends the jump as two points a millisecond apart: 52 rad/s, not the 5.2 rad/s
    of the 100 Hz samples nor the segment's mean 0.1 rad/s."""
    motion = read(_jump_mof(tmp_path), joint_map="nao_22").motion
    assert motion.interpolation is not None and "next" in motion.interpolation
    plan = plan_trajectory(motion, approach_time=0.0)
    col = plan.joint_names.index("HeadYaw")
    sent = np.abs(np.diff(plan.positions[:, col]) / np.diff(plan.time_from_start)).max()
    assert sent == pytest.approx(np.radians(3) / 1e-3, rel=1e-3)
    with pytest.raises(LimitViolationError, match=r"'HeadYaw' faster than its velocity limit 8.3 .*speed 52\.3"):
        check_limits(motion, {"HeadYaw": JointLimit(velocity=8.3)})
    check_limits(motion, {"HeadYaw": JointLimit(velocity=sent * 1.01)})
    urdf = tmp_path / "head.urdf"
    urdf.write_text(HEAD)
    code, out, _, _ = cli("check", tmp_path / "jump.mof", "--urdf", urdf, "--joint-map", "nao_22")
    assert code == 3
    assert "HeadYaw beyond its velocity limit 8.3 rad/s" in out, repr(out)
    assert "(worst 52.3599 rad/s)" in out, repr(out)
