"""Limits judged on exactly what the player sends: the cubic's acceleration at the points,
a keyframe step's jump, and the start_time..end_time window with the rates derived for it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import cli

from motion_formats_ros import Motion, read
from motion_formats_ros.core.joint_limits import JointLimits
from motion_formats_ros.core.model import JointLimit
from motion_formats_ros.playback.config import PlayerConfig, PlayerError, PlayMode
from motion_formats_ros.playback.plan import Interpolation, evaluate, plan_trajectory
from motion_formats_ros.playback.session import open_session
from motion_formats_ros.safety.limits import LimitViolationError, check_limits, limit_findings


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


# --------------------------------------------------------------------------- the window played
def _one_joint(tmp_path: Path, lower: float, upper: float, velocity: float) -> Path:
    path = tmp_path / "one.urdf"
    path.write_text(
        '<robot name="one"><link name="a"/><link name="b"/><joint name="j1" type="revolute">'
        f'<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
        f'<limit lower="{lower}" upper="{upper}" velocity="{velocity}" effort="10"/></joint></robot>'
    )
    return path


def _played_range(config: PlayerConfig) -> tuple[float, float]:
    """The lowest and highest position the controller plays of the trajectory the player sends."""
    session = open_session(config)
    session.begin()
    plan = session.plan({})
    t = plan.time_from_start
    q = evaluate(t, plan.positions, plan.velocities, plan.accelerations, np.linspace(t[0], t[-1], 200_001))
    return float(q.min()), float(q.max())


def test_the_player_judges_the_window_it_sends_with_its_own_rates(tmp_path: Path) -> None:
    """Cut at 0.12 s, the first segment is 13 ms long: the quintic through the window's derived
    velocities and accelerations swings to 4.7 rad, which the whole motion's rates do not make."""
    csv = tmp_path / "sparse.csv"
    csv.write_text("time,j1.position\n0,0.737\n0.133,0.25\n1.082,0.464\n")
    config = PlayerConfig(
        file=str(csv),
        urdf_file=str(_one_joint(tmp_path, -1, 1, 50)),
        mode=PlayMode.TRAJECTORY,
        trajectory_interpolation=Interpolation.QUINTIC,
    )
    open_session(config)  # the whole motion is within the limits
    window = dataclasses.replace(config, start_time=0.12)
    with pytest.raises(PlayerError, match=r"refusing to play: joint 'j1' above its upper limit 1 .*value 4\.7"):
        open_session(window)
    _, high = _played_range(dataclasses.replace(window, ignore_limits=True))
    assert high == pytest.approx(4.70, abs=0.01)  # what it would send


def test_the_player_judges_the_window_cut_of_stated_velocities(tmp_path: Path) -> None:
    """Stated velocities interpolated at the end_time cut: the cubic to it reaches 1.071 rad."""
    csv = tmp_path / "stated.csv"
    rows = [(0, -0.392, 2.934), (0.196, 0.893, 1.923), (1.121, 0.481, 2.894), (1.656, 0.92, -1.699)]
    csv.write_text("time,j1.position,j1.velocity\n" + "".join(f"{t},{q},{v}\n" for t, q, v in rows))
    config = PlayerConfig(file=str(csv), urdf_file=str(_one_joint(tmp_path, -1, 1.02, 50)), mode=PlayMode.TRAJECTORY)
    window = dataclasses.replace(config, end_time=1.074)
    _, high = _played_range(dataclasses.replace(window, ignore_limits=True))
    assert high == pytest.approx(1.071, abs=1e-3)
    with pytest.raises(PlayerError, match=r"above its upper limit 1\.02"):
        open_session(window)


_sparse = st.lists(st.tuples(st.floats(0.005, 1.0), st.floats(-1.5, 1.5)), min_size=2, max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_sparse, st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.sampled_from(["cubic", "quintic"]))
def test_a_window_the_gate_passes_stays_within_the_limits(
    tmp_path: Path, rows: list[tuple[float, float]], a: float, b: float, rule: str
) -> None:
    """Any sparse motion, any window: when the player's check lets it through, the controller's
    interpolation of the trajectory it sends stays within the position limits."""
    times = [float(t) for t in np.cumsum([0.0] + [step for step, _ in rows[1:]])]
    csv = tmp_path / "random.csv"
    csv.write_text("time,j1.position\n" + "".join(f"{t!r},{q!r}\n" for t, (_, q) in zip(times, rows, strict=True)))
    start, end = sorted((a * times[-1], b * times[-1]))
    config = PlayerConfig(
        file=str(csv),
        urdf_file=str(_one_joint(tmp_path, -1, 1, 1e6)),
        mode=PlayMode.TRAJECTORY,
        trajectory_interpolation=Interpolation(rule),
        start_time=start,
        end_time=end if end > start and end < times[-1] else 0.0,
    )
    try:
        low, high = _played_range(config)
    except PlayerError as exc:
        if "refusing to play" in str(exc):
            return
        raise
    assert low >= -1 - 1e-6 and high <= 1 + 1e-6, (low, high)


def _accumulated() -> Motion:
    """100 Hz frames at times summed 0.01 at a time (0.060000000000000005 …), as a CSV writes them."""
    t, times = 0.0, []
    for _ in range(397):
        times.append(t)
        t += 0.01
    q = 0.5 * np.sin(np.asarray(times))
    return Motion(times=np.asarray(times), joint_names=("j1",), joint_dims=(1,), position=q[:, None])


def test_a_cut_a_rounding_error_from_a_frame_is_that_frame() -> None:
    motion = _accumulated()
    for k in range(396):
        plan = plan_trajectory(motion, start=k * 0.01, approach_time=0.0, tolerance=0.0)
        assert plan.points == 397 - k, k
        plan = plan_trajectory(motion, end=(k + 1) * 0.01, approach_time=0.0, tolerance=0.0)
        assert plan.points == k + 2, k


def test_the_player_cuts_accumulated_times_at_start_time(tmp_path: Path) -> None:
    motion = _accumulated()
    assert motion.position is not None
    csv = tmp_path / "accumulated.csv"
    rows = zip(motion.times.tolist(), motion.position[:, 0].tolist(), strict=True)
    csv.write_text("time,j1.position\n" + "".join(f"{t!r},{q!r}\n" for t, q in rows))
    assert "\n0.060000000000000005," in csv.read_text() and "\n0.5000000000000002," in csv.read_text()
    urdf = _one_joint(tmp_path, -1, 1, 10)
    for start in (0.06, 0.5):
        config = PlayerConfig(file=str(csv), urdf_file=str(urdf), mode=PlayMode.TRAJECTORY, start_time=start)
        session = open_session(config)
        session.begin()
        plan = session.plan({})
        assert plan.positions[0, 0] == pytest.approx(0.5 * np.sin(start), abs=1e-12)
