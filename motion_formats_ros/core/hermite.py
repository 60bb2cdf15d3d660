"""The Hermite polynomials joint_trajectory_controller plays between two trajectory points.

ros2_control's joint_trajectory_controller (JTC) joins consecutive points of a trajectory
by the fields they carry: positions only, a straight line; positions and velocities, a
cubic Hermite polynomial; accelerations too, a quintic one. The player sends such points
and the motion check judges what the controller makes of them, so the polynomial has one
home, here:

- :func:`hermite`: the polynomial at fractions of its segments;
- :func:`shape_preserving_velocities`: the velocities the player derives for a motion that
  states none, limited (after Fritsch and Carlson) so that no cubic segment leaves the
  range of its two end points: zero at a local extremum or a flat stretch, and at most
  three times either neighbouring secant slope elsewhere;
- :func:`segment_extremes`: each segment's highest and lowest value strictly between its
  points where it turns, and when (a cubic's from the roots of its derivative, a quadratic;
  a quintic's from samples);
- :func:`segment_fastest`: where a cubic segment moves fastest between its points, and how fast;
- :func:`segment_accelerations`: a cubic segment's acceleration at its two ends (its extremes:
  a cubic's acceleration is linear in time);
- :data:`JUMP`: how long the player's step (a hold, then a jump) takes the controller.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .timing import derivative

FloatArray = npt.NDArray[np.float64]

#: Seconds between the two points the player sends for a step or a jump of a keyframe motion
#: (trajectory time: the jump takes this long whatever the playback speed, or half its segment
#: when that is shorter).
JUMP = 1e-3
#: Samples per segment at which a quintic is searched for its extremes (its derivative is a quartic).
QUINTIC_SAMPLES = 64
#: Segments × columns of a quintic sampled at once (bounded temporaries).
_BLOCK = 1 << 14


def hermite(
    u: FloatArray,
    span: FloatArray | float,
    p0: FloatArray,
    p1: FloatArray,
    v0: FloatArray | None,
    v1: FloatArray | None,
    a0: FloatArray | None = None,
    a1: FloatArray | None = None,
) -> FloatArray:
    """The interpolation at fractions ``u`` (0 … 1) of segments ``span`` seconds long.

    Positions ``p0``, ``p1``, velocities ``v0``, ``v1`` (None: linear) and accelerations
    ``a0``, ``a1`` (None: cubic) at the segments' ends; every argument broadcasts against
    the others (e.g. ``u`` (L, 1) and the ends (D,), or all (S, D)).
    """
    if v0 is None or v1 is None:
        return p0 + (p1 - p0) * u
    u2 = u * u
    u3 = u2 * u
    if a0 is None or a1 is None:
        return (
            p0 * (2 * u3 - 3 * u2 + 1)
            + (span * v0) * (u3 - 2 * u2 + u)
            + p1 * (3 * u2 - 2 * u3)
            + (span * v1) * (u3 - u2)
        )
    u4 = u3 * u
    u5 = u4 * u
    s2 = span * span
    return (
        p0 * (1 - 10 * u3 + 15 * u4 - 6 * u5)
        + (span * v0) * (u - 6 * u3 + 8 * u4 - 3 * u5)
        + (s2 * a0) * (0.5 * u2 - 1.5 * u3 + 1.5 * u4 - 0.5 * u5)
        + p1 * (10 * u3 - 15 * u4 + 6 * u5)
        + (span * v1) * (-4 * u3 + 7 * u4 - 3 * u5)
        + (s2 * a1) * (0.5 * u3 - u4 + 0.5 * u5)
    )


def shape_preserving_velocities(values: npt.ArrayLike, times: npt.ArrayLike) -> FloatArray:
    """Velocities (N, …) at the samples ``values`` (N, …) for a cubic Hermite interpolation
    that never overshoots them.

    Start from the time derivative (:func:`.timing.derivative`, second order), then, at each
    sample: 0 where the secant slopes on either side differ in sign or one is 0 (a local
    extremum, a flat stretch) or where the derivative's sign disagrees with theirs; else the
    derivative limited to three times the smaller of the two secants. A segment whose end
    velocities are each at most three times its secant, in its direction, is monotone
    (Fritsch and Carlson's sufficient square), so it stays between its two end values. At
    the first and last sample the one secant there stands for both. Slopes beyond the float
    range stay infinite (as the derivative gives them), never NaN.
    """
    q = np.asarray(values, dtype=np.float64)
    t = np.asarray(times, dtype=np.float64)
    slope = derivative(q, t)
    if t.size < 2:
        return slope
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        secant = np.diff(q, axis=0) / np.diff(t).reshape(-1, *([1] * (q.ndim - 1)))
        before = np.concatenate([secant[:1], secant])
        after = np.concatenate([secant, secant[-1:]])
        direction = np.sign(after)
        agree = (np.sign(before) == direction) & (direction != 0) & (np.sign(slope) == direction)
        bound = 3.0 * np.minimum(np.abs(before), np.abs(after))
        limited = direction * np.minimum(np.abs(slope), bound)
    return np.asarray(np.where(agree, limited, 0.0))


def _cubic_turns(
    span: FloatArray | float, p0: FloatArray, p1: FloatArray, v0: FloatArray, v1: FloatArray
) -> list[tuple[FloatArray, FloatArray]]:
    """The fractions and values (each NaN where there is none in (0, 1)) where cubic Hermite
    segments turn: the roots of the derivative, a quadratic, taken in their stable form."""
    m0, m1 = span * v0, span * v1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        c3 = 2.0 * p0 + m0 - 2.0 * p1 + m1  # p(u) = c3 u³ + c2 u² + m0 u + p0
        c2 = -3.0 * p0 - 2.0 * m0 + 3.0 * p1 - m1
        a, b = 3.0 * c3, 2.0 * c2  # p'(u) = a u² + b u + m0
        disc = b * b - 4.0 * a * m0
        root = np.sqrt(np.where(disc >= 0, disc, np.nan))
        k = -0.5 * (b + np.where(b >= 0, root, -root))  # the pair: k / a and m0 / k
        turns = []
        for u in (np.where(a != 0, k / a, np.nan), np.where(k != 0, m0 / k, np.nan)):
            u = np.where((u > 0) & (u < 1), u, np.nan)
            turns.append((u, ((c3 * u + c2) * u + m0) * u + p0))
    return turns


def cubic_turn_range(
    span: float, p0: FloatArray, p1: FloatArray, v0: FloatArray, v1: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The highest and lowest value (D,) where one cubic Hermite segment turns inside (NaN: it
    does not turn, its extremes are its ends); a single segment's :func:`segment_extremes`."""
    (_, first), (_, second) = _cubic_turns(span, p0, p1, v0, v1)
    return np.fmax(first, second), np.fmin(first, second)


def _pick(
    u: FloatArray, value: FloatArray, best_u: FloatArray, best: FloatArray, higher: bool
) -> tuple[FloatArray, FloatArray]:
    """``best`` and its fraction replaced where ``value`` (NaN: not a candidate) is beyond it."""
    better = (value > best) if higher else (value < best)
    better |= np.isnan(best) & ~np.isnan(value)
    return np.where(better, u, best_u), np.where(better, value, best)


def segment_extremes(
    times: npt.ArrayLike,
    positions: FloatArray,
    velocities: FloatArray,
    accelerations: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Each segment's highest and lowest turning value strictly between its two points.

    Args:
        times: (N,) seconds, increasing.
        positions, velocities: (N, D) at those times.
        accelerations: (N, D), or None for the cubic.

    Returns:
        ``(high_time, high, low_time, low)``, each (N-1, D): the time and value of the
        largest and of the smallest of the segment's values where it turns (its derivative
        0; the same one when it turns once), NaN where it does not turn inside: it is
        monotone there, its extremes are its end points. A quintic's are its highest and
        lowest of :data:`QUINTIC_SAMPLES` samples inside.
    """
    t = np.asarray(times, dtype=np.float64)
    span = np.diff(t)[:, None]
    p0, p1, v0, v1 = positions[:-1], positions[1:], velocities[:-1], velocities[1:]
    if accelerations is None:
        candidates = _cubic_turns(span, p0, p1, v0, v1)
    else:
        candidates = _quintic_samples(span, p0, p1, v0, v1, accelerations[:-1], accelerations[1:])
    nothing = np.full(p0.shape, np.nan)
    high_u, high, low_u, low = nothing, nothing, nothing, nothing
    for u, value in candidates:
        high_u, high = _pick(u, value, high_u, high, True)
        low_u, low = _pick(u, value, low_u, low, False)
    start = t[:-1, None]
    return start + high_u * span, high, start + low_u * span, low


def segment_fastest(
    times: npt.ArrayLike, positions: FloatArray, velocities: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Each cubic segment's velocity where it is fastest strictly between its two points.

    A cubic's velocity is a quadratic in the fraction ``u``; its one extreme is where the
    acceleration is 0, at ``u = -b / 2a``. Returns ``(time, velocity)``, each (N-1, D), NaN
    where that point is not inside the segment (the segment is fastest at an end point,
    whose velocity is the one sent).
    """
    t = np.asarray(times, dtype=np.float64)
    span = np.diff(t)[:, None]
    p0, p1, v0, v1 = positions[:-1], positions[1:], velocities[:-1], velocities[1:]
    m0, m1 = span * v0, span * v1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        a = 3.0 * (2.0 * p0 + m0 - 2.0 * p1 + m1)  # p'(u) = a u² + b u + m0
        b = 2.0 * (-3.0 * p0 - 2.0 * m0 + 3.0 * p1 - m1)
        u = np.where(a != 0, -b / (2.0 * a), np.nan)
        u = np.where((u > 0) & (u < 1), u, np.nan)
        velocity = ((a * u + b) * u + m0) / span
    return t[:-1, None] + u * span, velocity


def segment_accelerations(
    times: npt.ArrayLike, positions: FloatArray, velocities: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Each cubic segment's acceleration at its start and at its end, ``(start, end)``, each (N-1, D).

    With ``p(u) = c3 u³ + c2 u² + m0 u + p0`` over a segment ``span`` seconds long, the
    acceleration ``(6 c3 u + 2 c2) / span²`` is linear in time, so these two are the segment's
    largest and smallest; at a point the segment ending there and the one starting there
    differ (the controller's acceleration jumps).
    """
    t = np.asarray(times, dtype=np.float64)
    span = np.diff(t)[:, None]
    p0, p1, v0, v1 = positions[:-1], positions[1:], velocities[:-1], velocities[1:]
    m0, m1 = span * v0, span * v1
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        c3 = 2.0 * p0 + m0 - 2.0 * p1 + m1
        c2 = -3.0 * p0 - 2.0 * m0 + 3.0 * p1 - m1
        s2 = span * span
        return 2.0 * c2 / s2, (6.0 * c3 + 2.0 * c2) / s2


def _quintic_samples(
    span: FloatArray, p0: FloatArray, p1: FloatArray, v0: FloatArray, v1: FloatArray, a0: FloatArray, a1: FloatArray
) -> list[tuple[FloatArray, FloatArray]]:
    """A quintic's highest and lowest sample strictly inside each segment (as two candidates),
    sampled :data:`QUINTIC_SAMPLES` times per segment a block of segments at a time."""
    segments, columns = p0.shape
    fractions = np.arange(1, QUINTIC_SAMPLES) / QUINTIC_SAMPLES
    high_u, high = np.full(p0.shape, np.nan), np.full(p0.shape, np.nan)
    low_u, low = np.full(p0.shape, np.nan), np.full(p0.shape, np.nan)
    step = max(1, _BLOCK // max(1, columns))
    for lo in range(0, segments, step):
        part = slice(lo, min(segments, lo + step))
        with np.errstate(over="ignore", invalid="ignore"):
            values = hermite(
                fractions[:, None, None],
                span[part],
                p0[part],
                p1[part],
                v0[part],
                v1[part],
                a0[part],
                a1[part],
            )  # (samples, segments, columns)
        for pick, out_u, out in ((np.nanargmax, high_u, high), (np.nanargmin, low_u, low)):
            finite = np.asarray(~np.isnan(values).all(axis=0))
            k = pick(np.where(finite[None], values, 0.0), axis=0)
            out_u[part] = np.where(finite, fractions[k], np.nan)
            out[part] = np.where(finite, np.take_along_axis(values, k[None], axis=0)[0], np.nan)
    return [(high_u, high), (low_u, low)]


__all__ = [
    "JUMP",
    "QUINTIC_SAMPLES",
    "cubic_turn_range",
    "hermite",
    "segment_accelerations",
    "segment_extremes",
    "segment_fastest",
    "shape_preserving_velocities",
]
