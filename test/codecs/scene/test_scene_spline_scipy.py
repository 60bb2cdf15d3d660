"""Scene spline evaluation against scipy's ``BPoly`` / ``CubicHermiteSpline``.

Where both describe the same spline they must agree: a trajectory whose points all
have ``f, df`` is scipy's CubicHermiteSpline; each segment of any trajectory is the
Hermite polynomial ``BPoly.from_derivatives`` builds from the derivatives both its
ends share (f: linear, f + df: cubic, f + df + ddf: quintic), first and second time
derivatives included; a repeating trajectory is the same with its closing segment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.interpolate import BPoly, CubicHermiteSpline

from motion_formats_ros.codecs.scene.trajectory import Trajectory

VALUES = st.floats(-10.0, 10.0, allow_nan=False)


@st.composite
def trajectory(draw: Any, all_levels: int | None = None) -> tuple[Trajectory, np.ndarray]:
    k = draw(st.integers(2, 6))
    d = draw(st.integers(1, 3))
    steps = draw(st.lists(st.floats(0.05, 3.0), min_size=k - 1, max_size=k - 1))
    times = draw(st.floats(-5.0, 5.0)) + np.concatenate([[0.0], np.cumsum(steps)])
    levels = np.array([all_levels or draw(st.integers(1, 3)) for _ in range(k)])  # 1: f, 2: f df, 3: f df ddf
    f, df, ddf = (np.array(draw(st.lists(VALUES, min_size=k * d, max_size=k * d))).reshape(k, d) for _ in range(3))
    df[levels < 2] = np.nan
    ddf[levels < 3] = np.nan
    repeat_at = float(times[-1] + draw(st.floats(0.05, 2.0))) if draw(st.booleans()) else None
    return Trajectory(times, f, df, ddf, repeat_at=repeat_at), levels


def reference_segments(traj: Trajectory, levels: np.ndarray) -> list[BPoly]:
    """One BPoly per segment from the derivatives both of its ends have."""
    knots, f, df, ddf = traj.times, traj.f, traj.df, traj.ddf
    assert df is not None and ddf is not None
    if traj.repeat_at is not None:  # the closing segment goes back to the first point
        knots = np.append(knots, traj.repeat_at)
        f, df, ddf = (np.vstack([a, a[:1]]) for a in (f, df, ddf))
        levels = np.append(levels, levels[:1])
    out = []
    for i in range(knots.size - 1):
        n = int(min(levels[i], levels[i + 1]))
        ends = [np.stack([f[j], df[j], ddf[j]])[:n] for j in (i, i + 1)]
        out.append(BPoly.from_derivatives(knots[i : i + 2], ends))
    return out


def assert_close(ours: np.ndarray, theirs: np.ndarray, scale: float) -> None:
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9 * scale)


@settings(max_examples=150, deadline=None)
@given(trajectory(), st.lists(st.floats(0.0, 1.0, exclude_max=True), min_size=1, max_size=8))
def test_every_segment_is_scipys_hermite_polynomial(case: tuple[Trajectory, np.ndarray], where: list[float]) -> None:
    traj, levels = case
    knots = traj.knots
    for i, poly in enumerate(reference_segments(traj, levels)):
        t0, t1 = knots[i], knots[i + 1]
        u = t0 + np.asarray(where) * (t1 - t0)
        # Repeating: compare at the times inside the period the wrap gives (t0 + (u - t0) mod period
        # may round across a knot); at the next knot the next segment is the one evaluated.
        u = traj.wrap(u)
        u = u[(u >= t0) & (u < t1)]
        scale = 1.0 + float(np.abs(poly.c).max()) / min(1.0, t1 - t0) ** 2
        for derivative in (0, 1, 2):
            theirs = poly(u, nu=derivative).reshape(u.size, traj.dims)
            assert_close(traj.evaluate(u, derivative), theirs, scale)


def _wrap_case() -> tuple[Trajectory, np.ndarray]:
    """A repeating cubic whose second derivative jumps where the period closes."""
    df = np.zeros((3, 2))
    df[2] = [0.0, 1.0]
    traj = Trajectory(np.array([0.0, 1.0, 2.0]), np.zeros((3, 2)), df, np.full((3, 2), np.nan), repeat_at=3.0)
    return traj, np.full(3, 2)


@settings(max_examples=100, deadline=None)
@given(trajectory(all_levels=2), st.lists(st.floats(-1.0, 12.0), min_size=1, max_size=20))
@example(_wrap_case(), [10.0])  # evaluated exactly where the period ends
def test_cubic_trajectory_is_cubic_hermite_spline(case: tuple[Trajectory, np.ndarray], ts: list[float]) -> None:
    traj, _ = case
    knots = traj.knots
    values = np.vstack([traj.f, traj.f[:1]]) if traj.repeat_at is not None else traj.f
    slopes = np.vstack([traj.df, traj.df[:1]]) if traj.repeat_at is not None else traj.df
    spline = CubicHermiteSpline(knots, values, slopes)
    u = knots[0] + np.asarray(ts) * (knots[-1] - knots[0]) / 10.0
    inside = u[(u >= knots[0]) & (u <= knots[-1])]
    scale = 1.0 + float(np.abs(spline.c).max()) / min(1.0, float(np.diff(knots).min())) ** 2
    for derivative in (0, 1, 2):
        theirs = spline(inside, nu=derivative)
        if traj.repeat_at is not None:
            # The end of a period is the start of the next: like every knot, it takes the
            # segment that begins there. A cubic Hermite spline is only C1 across the wrap,
            # so the second derivative is the first segment's at its start, not the closing
            # segment's at its end (scipy's one-sided value there).
            theirs[inside == knots[-1]] = spline(knots[0], nu=derivative)
        assert_close(traj.evaluate(inside, derivative), theirs, scale)
    before = u[u < knots[0]]
    if before.size:  # held before the first point
        np.testing.assert_array_equal(traj.evaluate(before), np.broadcast_to(traj.f[0], (before.size, traj.dims)))
    if traj.repeat_at is not None:  # one period later, the same values
        period = knots[-1] - knots[0]
        assert_close(traj.evaluate(inside + period), spline(inside), 1.0 + float(np.abs(spline.c).max()))
