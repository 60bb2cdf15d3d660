"""playback.plan: one JointTrajectory per motion, within a tolerance by JTC's own interpolation.

Every bound is checked with test/jtcsim.py, a separate implementation of what
joint_trajectory_controller does with the points (polynomial coefficients per segment).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from support.jtcsim import Controller, segment

from motion_formats_ros import Motion
from motion_formats_ros.core.examples import smooth_motion
from motion_formats_ros.playback.plan import (
    approach_speeds,
    chunk_count,
    evaluate,
    plan_trajectory,
    reduce,
    split_chunks,
)


def _points(plan):  # type: ignore[no-untyped-def]
    return [
        (
            float(t) / 1e9,
            plan.positions[k],
            None if plan.velocities is None else plan.velocities[k],
            None if plan.accelerations is None else plan.accelerations[k],
        )
        for k, t in enumerate(plan.time_from_start_ns)
    ]


def executed(plan, frame_times: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """What the JTC stand-in commands at ``frame_times`` (s from the trajectory start)."""
    jtc = Controller(plan.joint_names, plan.positions[0])
    jtc.receive(0, plan.joint_names, _points(plan), at=0.0)
    return jtc.positions(frame_times)


@pytest.mark.parametrize("rule", ["linear", "cubic", "quintic"])
def test_evaluate_is_jtcs_interpolation(rule: str) -> None:
    rng = np.random.default_rng(1)
    t = np.cumsum(rng.uniform(0.05, 0.4, 8))
    p = rng.normal(size=(8, 3))
    v = rng.normal(size=(8, 3)) if rule != "linear" else None
    a = rng.normal(size=(8, 3)) if rule == "quintic" else None
    query = np.linspace(t[0], t[-1], 500)
    expected = np.vstack(
        [
            segment(
                (t[k], p[k], None if v is None else v[k], None if a is None else a[k]),
                (t[k + 1], p[k + 1], None if v is None else v[k + 1], None if a is None else a[k + 1]),
                np.array([q - t[k]]),
            )
            for q in query
            for k in [min(int(np.searchsorted(t, q, side="right")) - 1, t.size - 2)]
        ]
    )
    np.testing.assert_allclose(evaluate(t, p, v, a, query), expected, atol=1e-9)


@pytest.mark.parametrize("rule", ["linear", "cubic", "quintic"])
def test_reduction_keeps_every_frame_within_the_tolerance(rule: str) -> None:
    m = smooth_motion(duration=6.0, rate=500.0, joints=6, seed=3).motion
    plan = plan_trajectory(m, approach_time=0.5, interpolation=rule, tolerance=1e-3)
    assert plan.rule == rule and plan.frames == m.num_frames
    assert plan.points < m.num_frames / 5
    assert plan.fields == {"linear": ("positions",), "cubic": ("positions", "velocities")}.get(
        rule, ("positions", "velocities", "accelerations")
    )
    rel = (m.times - m.times[0]) + 0.5
    got = executed(plan, np.round(rel * 1e9) / 1e9)
    assert m.position is not None
    worst = np.abs(got - m.position).max()
    assert worst <= 1e-3 + 1e-12
    assert plan.deviation.value == pytest.approx(worst, abs=1e-9)
    joint, frame = np.unravel_index(np.argmax(np.abs(got - m.position)), got.shape)[::-1]
    assert plan.deviation.joint == m.joint_names[joint]
    assert plan.deviation.time == pytest.approx(m.times[frame])
    # Exactly the file's values at the points, and at rest at the end as JTC requires.
    assert plan.time_from_start_ns[0] == 500_000_000
    np.testing.assert_array_equal(plan.positions[-1], m.position[-1])
    if plan.velocities is not None:
        np.testing.assert_array_equal(plan.velocities[-1], 0.0)
    if plan.accelerations is not None:
        np.testing.assert_array_equal(plan.accelerations[-1], 0.0)


def test_sixty_seconds_at_500_hz_of_30_joints_is_one_small_trajectory() -> None:
    m = smooth_motion(duration=60.0, rate=500.0, joints=30).motion
    assert m.num_frames == 30001
    plan = plan_trajectory(m, approach_time=1.0)
    assert plan.rule == "cubic"
    assert plan.points < 2000  # against 30001 frames
    got = executed(plan, np.round((m.times + 1.0) * 1e9) / 1e9)
    assert m.position is not None
    assert np.abs(got - m.position).max() <= 1e-3 + 1e-12


def test_a_kink_and_a_jump_keep_the_bound() -> None:
    t = np.arange(1001) / 100.0
    q = np.column_stack([np.abs(t - 5.0), np.where(t < 3.0, 0.0, 1.0), np.sin(t)])
    for rule in ("linear", "cubic", "quintic"):
        plan = plan_trajectory(Motion(times=t, joint_names=("k", "j", "s"), position=q), interpolation=rule)
        got = executed(plan, np.round((t + 1.0) * 1e9) / 1e9)
        assert np.abs(got - q).max() <= 1e-3 + 1e-12, rule


def test_reduce_honours_forced_frames_and_zero_tolerance() -> None:
    t = np.arange(101) / 100.0
    line = (2.0 * t)[:, None]
    assert reduce(t, line, tolerance=1e-12).indices.tolist() == [0, 100]
    assert reduce(t, line, tolerance=1e-12, keep=[37]).indices.tolist() == [0, 37, 100]
    curve = (t**2)[:, None]
    assert reduce(t, curve, tolerance=0.0).indices.tolist() == list(range(101))
    with pytest.raises(ValueError, match="accelerations without velocities"):
        reduce(t, curve, None, curve)


def test_speed_and_slice() -> None:
    m = smooth_motion(duration=4.0, rate=100.0, joints=2, seed=5).motion
    assert m.position is not None and m.velocity is not None
    plan = plan_trajectory(m, start=1.005, end=3.0, speed=2.0, approach_time=0.25)
    # The slice starts exactly at 1.005 s (between frames: interpolated) and lasts 1 s at 2x.
    assert plan.time_from_start_ns[0] == 250_000_000
    assert plan.time_from_start_ns[-1] == 250_000_000 + 997_500_000
    np.testing.assert_allclose(plan.positions[0], 0.5 * (m.position[100] + m.position[101]))
    assert plan.velocities is not None
    np.testing.assert_allclose(plan.velocities[0], 2.0 * 0.5 * (m.velocity[100] + m.velocity[101]))
    got = executed(plan, np.round((0.25 + (m.times[101:301] - 1.005) / 2.0) * 1e9) / 1e9)
    assert np.abs(got - m.position[101:301]).max() <= 1e-3 + 1e-12
    with pytest.raises(ValueError, match="no frames between"):
        plan_trajectory(m, start=3.0, end=2.0)


def test_keyframes_stay_keyframes_and_steps_are_two_points() -> None:
    m = Motion(
        times=[0.0, 1.0, 2.0, 3.0],
        joint_names=("a",),
        position=[[0.0], [1.0], [5.0], [2.0]],
        interpolation=("step", "linear", "next"),
    )
    plan = plan_trajectory(m, approach_time=0.5, interpolation="cubic")
    assert plan.rule == "linear" and plan.velocities is None
    assert "linear" in plan.notes[0]
    np.testing.assert_array_equal(
        plan.time_from_start_ns,
        [500_000_000, 1_499_000_000, 1_500_000_000, 2_500_000_000, 2_501_000_000, 3_500_000_000],
    )
    np.testing.assert_array_equal(plan.positions[:, 0], [0.0, 0.0, 1.0, 5.0, 2.0, 2.0])
    assert plan.deviation.value == 0.0
    # The format's own interpolation, sampled densely, is what the controller does, but for
    # the millisecond before the step (at 1 s) and after the jump (at 2 s).
    dense = np.arange(0, 30001) / 10000.0
    got = executed(plan, np.round((dense + 0.5) * 1e9) / 1e9)[:, 0]
    expected = m.sample(dense).position[:, 0]  # type: ignore[index]
    off = dense[np.abs(got - expected) > 1e-9]
    assert off.size > 10
    assert np.all(((off > 0.999) & (off < 1.0)) | ((off > 2.0) & (off < 2.001)))


def test_chunks_and_approach() -> None:
    m = smooth_motion(duration=6.0, rate=100.0, joints=2).motion
    plan = plan_trajectory(m, approach_time=1.0, interpolation="linear", tolerance=0.0)
    chunks = split_chunks(plan, 2.0)
    assert len(chunks) == 4 and chunks[0][0] == 0 and chunks[-1][1] == plan.points
    assert split_chunks(plan, 0.0) == [(0, plan.points)]
    first = plan.positions[0]
    speeds = approach_speeds(plan, {m.joint_names[0]: float(first[0]) + 0.5})
    assert speeds == {m.joint_names[0]: pytest.approx(0.5)}  # linear: 0.5 rad in 1 s
    cubic = plan_trajectory(m, approach_time=1.0)
    assert cubic.velocities is not None
    cubic.velocities[0] = 0.0
    speeds = approach_speeds(cubic, {m.joint_names[0]: float(first[0]) + 0.5})
    assert speeds[m.joint_names[0]] == pytest.approx(0.75, rel=1e-3)  # cubic from rest to rest: 1.5x


def test_refusals() -> None:
    with pytest.raises(ValueError, match="multi-DOF"):
        plan_trajectory(Motion(times=[0, 1], joint_names=("hip",), joint_dims=(3,), position=np.zeros((2, 3))))
    with pytest.raises(ValueError, match="non-finite"):
        plan_trajectory(Motion(times=[0, 1], joint_names=("a",), position=[[0.0], [np.nan]]))
    with pytest.raises(ValueError, match="interpolation must be one of"):
        plan_trajectory(Motion(times=[0, 1], joint_names=("a",), position=[[0.0], [1.0]]), interpolation="spline")


def test_chunks_shorter_than_the_points_hold_a_point_each_without_a_list_of_every_multiple() -> None:
    """A chunk_duration far below the points' spacing: one chunk per point, in memory of the points' size
    (a list of every multiple of 1e-9 s over a 7 s plan would be 56 GB)."""
    m = smooth_motion(duration=6.0, rate=100.0, joints=2).motion
    plan = plan_trajectory(m, approach_time=1.0, interpolation="linear", tolerance=0.0)
    chunks = split_chunks(plan, 1e-9)
    assert chunks == [(k, k + 1) for k in range(plan.points)]
    assert chunk_count(plan, 1e-9) == plan.points and chunk_count(plan, 0.0) == 1
    # Chunks of 2 s start at the first point at or after 2, 4 and 6 s.
    rel = plan.time_from_start
    starts = [first for first, _ in split_chunks(plan, 2.0)]
    assert starts == [0, *(int(np.searchsorted(rel, edge)) for edge in (2.0, 4.0, 6.0))]


def test_messages_a_process_cannot_hold_are_refused_naming_chunk_duration() -> None:
    """Under an address-space limit of 1 GiB, 300,000 points of 100 joints in messages of 10 ms
    would need several GiB: one line naming chunk_duration, before any message exists."""
    code = (
        "import resource\n"
        "import numpy as np\n"
        "from motion_formats_ros.core.errors import OutOfRangeError\n"
        "from motion_formats_ros.playback.plan import Deviation, TrajectoryPlan, check_message_room\n"
        "n, j = 300_000, 100\n"
        "plan = TrajectoryPlan(joint_names=tuple(f'j{k}' for k in range(j)),"
        " time_from_start_ns=np.arange(1, n + 1, dtype=np.int64) * 10_000_000,"
        " positions=np.zeros((n, j)), velocities=None, accelerations=None, rule='linear', frames=n,"
        " tolerance=0.0, deviation=Deviation(0.0, 'j0', 0.0))\n"
        "check_message_room(plan, 0.0)\n"  # one message: the points' own size, which fits
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "try:\n"
        "    check_message_room(plan, 0.01)\n"
        "except OutOfRangeError as exc:\n"
        "    print(exc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("chunk_duration 0.01 s: 300,000 message(s) of 100 joints, 300,000 points would need ")
    assert "more than the" in proc.stdout
