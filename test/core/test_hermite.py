"""core.hermite: the controller's polynomials, the derived velocities that never overshoot, segment extremes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from motion_formats_ros import Motion
from motion_formats_ros.core.hermite import (
    hermite,
    segment_accelerations,
    segment_extremes,
    segment_fastest,
    shape_preserving_velocities,
)
from motion_formats_ros.playback.plan import evaluate, plan_trajectory

#: Dense fractions of a segment, ends included.
U = np.linspace(0.0, 1.0, 2001)[:, None]

_steps = st.lists(st.floats(0.001, 2.0), min_size=1, max_size=12)
_values = st.floats(-3.0, 3.0, allow_nan=False)


def _data(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    steps = draw(_steps)
    times = np.concatenate([[0.0], np.cumsum(steps)])
    values = np.array([draw(_values) for _ in times])
    return times, values


@st.composite
def positions(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Frames at uneven times: anywhere within ±3 (rad), or (half the time) rising or falling."""
    times, values = _data(draw)
    if draw(st.booleans()):
        values = np.sort(values)[:: draw(st.sampled_from([1, -1]))]
    return times, values


def _slack(values: np.ndarray) -> float:
    return 1e-12 * max(1.0, float(np.abs(values).max()))


@settings(max_examples=300, deadline=None)
@given(positions(), st.booleans())
def test_derived_velocities_never_leave_a_segments_ends(data: tuple[np.ndarray, np.ndarray], stop: bool) -> None:
    times, q = data
    v = shape_preserving_velocities(q[:, None], times)
    if stop:
        v[-1] = 0.0  # the player's last point, at rest
    span = np.diff(times)
    for k in range(times.size - 1):
        path = hermite(U, span[k], q[k : k + 1], q[k + 1 : k + 2], v[k], v[k + 1])
        low, high = min(q[k], q[k + 1]), max(q[k], q[k + 1])
        assert path.min() >= low - _slack(q) and path.max() <= high + _slack(q), (k, path.min(), path.max())
    _, top, _, bottom = segment_extremes(times, q[:, None], v)
    ends_high = np.maximum(q[:-1], q[1:])
    ends_low = np.minimum(q[:-1], q[1:])
    assert np.all(np.isnan(top[:, 0]) | (top[:, 0] <= ends_high + _slack(q)))
    assert np.all(np.isnan(bottom[:, 0]) | (bottom[:, 0] >= ends_low - _slack(q)))


@settings(max_examples=200, deadline=None)
@given(positions())
def test_the_player_sends_nothing_beyond_its_frames(data: tuple[np.ndarray, np.ndarray]) -> None:
    """Derived velocities and the reduction to fewer points together: what the controller plays
    stays between the lowest and highest frame (so within any limit the frames are within)."""
    times, q = data
    if times.size < 2:
        return
    plan = plan_trajectory(Motion(times=times, joint_names=("a",), position=q[:, None]), approach_time=0.0)
    t = plan.time_from_start
    played = evaluate(t, plan.positions, plan.velocities, plan.accelerations, np.linspace(t[0], t[-1], 20001))
    assert played.min() >= q.min() - 1e-9 and played.max() <= q.max() + 1e-9, (played.min(), played.max())


@settings(max_examples=200, deadline=None)
@given(positions(), st.integers(0, 2**32 - 1), st.booleans())
def test_segment_extremes_are_the_polynomials_own(
    data: tuple[np.ndarray, np.ndarray], seed: int, quintic: bool
) -> None:
    """Against dense samples of any cubic (quintic) segment: the analytic extremes are the true ones."""
    times, q = data
    if times.size < 2:
        return
    rng = np.random.default_rng(seed)
    v = rng.normal(scale=5.0, size=(times.size, 1))
    a = rng.normal(scale=20.0, size=(times.size, 1)) if quintic else None
    high_at, high, low_at, low = segment_extremes(times, q[:, None], v, a)
    span = np.diff(times)
    for k in range(times.size - 1):
        ends = (None, None) if a is None else (a[k], a[k + 1])
        path = hermite(U, span[k], q[k : k + 1], q[k + 1 : k + 2], v[k], v[k + 1], *ends)[:, 0]
        top = np.nanmax([high[k, 0], q[k], q[k + 1]])
        bottom = np.nanmin([low[k, 0], q[k], q[k + 1]])
        size = max(1.0, float(np.abs(path).max()))
        scale = 1e-9 * size
        if quintic:  # sampled 64 times a segment: near the dense samples' extremes
            assert abs(top - path.max()) <= 1e-2 * size and abs(bottom - path.min()) <= 1e-2 * size
        else:  # exact: no sample beyond them, and samples (2000 a segment) come close to them
            assert path.max() <= top + scale and path.min() >= bottom - scale, (k, top, path.max())
            assert top - path.max() <= 1e-5 * size and path.min() - bottom <= 1e-5 * size, (k, top, path.max())
        for at, value in ((high_at[k, 0], high[k, 0]), (low_at[k, 0], low[k, 0])):
            if not np.isnan(at):  # the time is where the polynomial has that value
                assert times[k] < at < times[k + 1]
                u = np.array([[(at - times[k]) / span[k]]])
                again = hermite(u, span[k], q[k : k + 1], q[k + 1 : k + 2], v[k], v[k + 1], *ends)[0, 0]
                assert abs(again - value) <= scale


def test_extremes_of_a_known_cubic() -> None:
    # 0 → 0 in 1 s, from rest, arriving at 3: 3(u³ − u²), one turn inside, at u = 2/3 (−4/9).
    high_at, high, low_at, low = segment_extremes(np.array([0.0, 1.0]), np.zeros((2, 1)), np.array([[0.0], [3.0]]))
    assert abs(low_at[0, 0] - 2 / 3) < 1e-15 and abs(low[0, 0] + 4 / 9) < 1e-15
    assert (high_at[0, 0], high[0, 0]) == (low_at[0, 0], low[0, 0])
    # Monotone (1 → 2 at the secant's pace): no turn inside.
    high_at, high, low_at, low = segment_extremes(np.array([0.0, 1.0]), np.array([[1.0], [2.0]]), np.ones((2, 1)))
    assert np.isnan([high_at[0, 0], high[0, 0], low_at[0, 0], low[0, 0]]).all()


@settings(max_examples=200, deadline=None)
@given(positions(), st.integers(0, 2**32 - 1))
def test_segment_fastest_is_the_cubics_own(data: tuple[np.ndarray, np.ndarray], seed: int) -> None:
    """Against the dense differences of any cubic segment: no speed beyond the fastest of its
    ends and the analytic inner extreme, and the dense samples come close to that bound."""
    times, q = data
    if times.size < 2:
        return
    v = np.random.default_rng(seed).normal(scale=5.0, size=(times.size, 1))
    at, fastest = segment_fastest(times, q[:, None], v)
    span = np.diff(times)
    for k in range(times.size - 1):
        path = hermite(U, span[k], q[k : k + 1], q[k + 1 : k + 2], v[k], v[k + 1])[:, 0]
        speed = np.abs(np.diff(path)) / (span[k] / (U.size - 1))  # mean speeds between dense samples
        bound = np.nanmax([abs(fastest[k, 0]), abs(v[k, 0]), abs(v[k + 1, 0])])
        slack = 1e-6 * max(1.0, bound)
        assert speed.max() <= bound + slack, (k, speed.max(), bound)
        assert bound - speed.max() <= 1e-2 * max(1.0, bound), (k, speed.max(), bound)
        if not np.isnan(at[k, 0]):
            assert times[k] < at[k, 0] < times[k + 1]


@settings(max_examples=200, deadline=None)
@given(positions(), st.integers(0, 2**32 - 1))
def test_segment_accelerations_are_the_cubics_own(data: tuple[np.ndarray, np.ndarray], seed: int) -> None:
    """Against the dense second differences of any cubic segment: its acceleration runs
    linearly from the start value to the end value, so none is beyond the larger of the two."""
    times, q = data
    if times.size < 2:
        return
    v = np.random.default_rng(seed).normal(scale=5.0, size=(times.size, 1))
    start, end = segment_accelerations(times, q[:, None], v)
    span = np.diff(times)
    h = 1.0 / (U.size - 1)
    for k in range(times.size - 1):
        path = hermite(U, span[k], q[k : k + 1], q[k + 1 : k + 2], v[k], v[k + 1])[:, 0]
        second = np.diff(path, 2) / (span[k] * h) ** 2  # at the inner dense samples
        bound = max(abs(start[k, 0]), abs(end[k, 0]))
        slack = 1e-5 * max(1.0, bound) + 1e-6 / span[k] ** 2
        assert np.abs(second).max() <= bound + slack, (k, np.abs(second).max(), bound)
        assert abs(second[0] - start[k, 0]) <= 1e-2 * max(1.0, bound) + slack
        assert abs(second[-1] - end[k, 0]) <= 1e-2 * max(1.0, bound) + slack
