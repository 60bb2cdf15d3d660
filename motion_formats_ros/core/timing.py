"""Time bases, rate detection and interpolation (ROS-free, vectorised).

The functions here work on whole arrays whose first axis is time, so that a motion of
any shape (joints, links, IMUs) is resampled with the same few numpy operations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .spatial import unit_quaternions

FloatArray = npt.NDArray[np.float64]

#: Relative tolerance on frame intervals for a motion to count as uniform.
RATE_RTOL = 1e-6

#: The highest frame rate a file may declare (Hz): a frame per microsecond. Recordings run at a
#: few kHz at most; a larger rate only packs frames closer than any clock or controller tells apart.
MAX_RATE = 1e6


def rate_beyond(rate: float) -> str | None:
    """Why a finite, positive ``rate`` a file declares is refused (beyond :data:`MAX_RATE`), or None."""
    if rate <= MAX_RATE:
        return None
    return f"{rate:g} Hz is beyond the highest frame rate read, {MAX_RATE:g} Hz (a frame per microsecond)"


def empty_window(times: np.ndarray, start: float | None, end: float | None) -> str:
    """What to say when no frame of ``times`` lies in the window ``[start, end]`` (either may be
    None: open): ``no frames after 5 s (the motion ends at 3 s)``."""
    if start is not None and end is not None:
        window = f"between {start:g} and {end:g} s"
    else:
        window = f"after {start:g} s" if start is not None else f"before {end:g} s"
    if times.size == 0:
        return f"no frames {window} (the motion has none)"
    first, last = float(times[0]), float(times[-1])
    if start is not None and start > last:
        where = f"the motion ends at {last:g} s"
    elif end is not None and end < first:
        where = f"the motion starts at {first:g} s"
    else:
        where = f"the motion's frames are from {first:g} to {last:g} s, none in between"
    return f"no frames {window} ({where})"


def detect_rate(times: np.ndarray, rate: float | None = None) -> float | None:
    """The frame rate of uniform ``times``, or None when intervals vary.

    With ``rate`` given, checks that ``times`` are uniform at that rate instead (returns
    ``rate`` or None). A detected rate within 1e-6 of an integer is snapped to it, so
    ``arange(n) / 30`` gives exactly 30.0.
    """
    t = np.asarray(times, dtype=np.float64)
    if t.size < 2:
        return rate
    step = (t[-1] - t[0]) / (t.size - 1)
    if step <= 0:
        return None
    tol = RATE_RTOL * step + 8 * np.finfo(np.float64).eps * max(abs(t[0]), abs(t[-1]))
    if np.max(np.abs(np.diff(t) - step)) > tol:
        return None
    if rate is not None:
        return rate if abs(step * rate - 1.0) <= RATE_RTOL else None
    with np.errstate(over="ignore"):
        detected = float(1.0 / step)
    if not math.isfinite(detected):  # a step of a few subnormals: no rate a file can state
        return None
    nearest = round(detected)
    if nearest > 0 and abs(detected - nearest) <= RATE_RTOL * detected:
        return float(nearest)
    return float(f"{detected:.12g}")


def snap_to_rate(times: np.ndarray, rate: float) -> tuple[FloatArray, float, int]:
    """``times`` put on the uniform grid ``times[0] + k / rate``: (grid, largest deviation in s, its frame)."""
    t = np.asarray(times, dtype=np.float64)
    grid = t[0] + np.arange(t.size, dtype=np.float64) / rate if t.size else t.copy()
    if not t.size:
        return grid, 0.0, 0
    deviation = np.abs(t - grid)
    worst = int(np.argmax(deviation))
    return grid, float(deviation[worst]), worst


def uniform_times(start: float, end: float, rate: float) -> FloatArray:
    """``start + k / rate`` for every k that stays within ``end`` (inclusive, 1e-9 slack)."""
    count = math.floor((end - start) * rate + 1e-9) + 1
    return start + np.arange(max(count, 1), dtype=np.float64) / rate


def hold_rows(times: np.ndarray, rate: float) -> npt.NDArray[np.intp]:
    """Source row for every output frame under Choreonoid's import semantics.

    Row i goes to frame ``int((t_i - t0) * rate)``; when several rows land on one frame
    the later wins; frames no row lands on repeat the previous frame.
    """
    t = np.asarray(times, dtype=np.float64)
    frames = ((t - t[0]) * rate).astype(np.int64)  # truncation, as C++'s int() does
    rows = np.full(int(frames[-1]) + 1, -1, dtype=np.intp)
    np.maximum.at(rows, frames, np.arange(t.size, dtype=np.intp))
    return np.maximum.accumulate(rows)


class Location(NamedTuple):
    """Where query times fall among sample times: segment and fraction in it."""

    segment: npt.NDArray[np.intp]
    fraction: FloatArray


def locate(times: np.ndarray, query: np.ndarray, interpolation: Sequence[str] | None = None) -> Location:
    """Segment and fraction of every query time; held at both ends.

    ``interpolation`` gives a kind per segment; ``step`` segments get fraction 0 (the
    segment's start value is held until the next sample time); ``next`` segments get
    fraction 1 after their start (the end value is reached at once and held); ``cosine``
    segments ease in and out: fraction (1 − cos πr)/2 at the elapsed fraction r.
    """
    t = np.asarray(times, dtype=np.float64)
    q = np.asarray(query, dtype=np.float64)
    if t.size == 1:
        return Location(np.zeros(q.shape, dtype=np.intp), np.zeros(q.shape))
    index = np.clip(np.searchsorted(t, q, side="right") - 1, 0, t.size - 2)
    span = t[index + 1] - t[index]
    fraction = np.clip((q - t[index]) / span, 0.0, 1.0)
    if interpolation is not None:
        step = np.array([kind == "step" for kind in interpolation], dtype=bool)
        if step.any():
            fraction = np.where(step[index] & (fraction < 1.0), 0.0, fraction)
        jump = np.array([kind == "next" for kind in interpolation], dtype=bool)
        if jump.any():
            fraction = np.where(jump[index] & (fraction > 0.0), 1.0, fraction)
        eased = np.array([kind == "cosine" for kind in interpolation], dtype=bool)
        if eased.any():
            fraction = np.where(eased[index], (1.0 - np.cos(np.pi * fraction)) / 2.0, fraction)
    return Location(index.astype(np.intp), fraction)


def derivative(values: np.ndarray, times: np.ndarray) -> FloatArray:
    """The time derivative of ``values`` along axis 0, as :func:`numpy.gradient` gives it
    (second order inside and at the ends; zeros for a single sample).

    Where its weights overflow (values or time steps near the end of the float range) the
    steeper of the two one-sided differences stands in: ``inf`` where finite values change
    faster than the float range holds, never a NaN that hides a limit passed, and no numpy
    warning.
    """
    values = np.asarray(values, dtype=np.float64)
    times = np.asarray(times, dtype=np.float64)
    if times.size < 2:
        return np.zeros_like(values)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = np.asarray(np.gradient(values, times, axis=0, edge_order=2 if times.size > 2 else 1))
        lost = ~np.isfinite(out) & np.isfinite(values)
        if not lost.any():
            return out
        step = np.diff(values, axis=0) / np.diff(times).reshape(-1, *([1] * (values.ndim - 1)))
        forward = np.concatenate([step, step[-1:]])
        backward = np.concatenate([step[:1], step])
        steeper = np.where(np.abs(forward) >= np.abs(backward), forward, backward)
    return np.asarray(np.where(lost & ~np.isnan(steeper), steeper, out))


#: Query times interpolated at once: the temporaries stay small, and no single native
#: operation runs long enough to keep a signal's handler waiting (SIGTERM ends a command
#: within 2 s, also while it resamples millions of frames).
BLOCK = 1 << 16


def interpolate(values: np.ndarray, where: Location, kind: str = "value") -> np.ndarray:
    """``values`` (time first) evaluated at ``where``.

    kind ``"value"``: linear; ``"quaternion"``: slerp over the last axis (x, y, z, w);
    ``"state"``: the value at the segment start (held; the end at fraction 1).
    Sample times reproduce the samples exactly, NaN neighbours included. Done
    :data:`BLOCK` query times at a time.
    """
    n = where.segment.size
    if n <= BLOCK:
        return _interpolate_block(values, where, kind)
    out: np.ndarray | None = None
    for lo in range(0, n, BLOCK):
        hi = min(n, lo + BLOCK)
        part = _interpolate_block(values, Location(where.segment[lo:hi], where.fraction[lo:hi]), kind)
        if out is None:
            out = np.empty((n, *part.shape[1:]), dtype=part.dtype)
        out[lo:hi] = part
    assert out is not None
    return out


def _interpolate_block(values: np.ndarray, where: Location, kind: str) -> np.ndarray:
    if values.shape[0] == 1:
        return np.repeat(values, where.segment.size, axis=0)
    i, f = where.segment, where.fraction
    a, b = values[i], values[i + 1]
    if kind == "state":
        return np.where(_expand(f >= 1.0, a), b, a)
    fx = _expand(f, a)
    if kind == "quaternion":
        mixed = slerp(a, b, fx)
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            step = b - a
            mixed = a + step * fx
            # Neighbours of opposite sign near the end of the float range: their difference
            # overflows, their weighted sum never leaves the range between them.
            wide = np.isinf(step) & np.isfinite(a) & np.isfinite(b)
            if wide.any():
                mixed = np.where(wide, a * (1.0 - fx) + b * fx, mixed)
    mixed = np.where(fx == 0.0, a, mixed)
    return np.where(fx == 1.0, b, mixed)


def _expand(f: np.ndarray, like: np.ndarray) -> np.ndarray:
    return f.reshape(f.shape + (1,) * (like.ndim - 1))


def slerp(q0: np.ndarray, q1: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Spherical linear interpolation of x,y,z,w quaternions (last axis), shortest path.

    ``f`` broadcasts against the quaternions without their last axis (plus a trailing 1).
    """
    q0, q1 = unit_quaternions(q0), unit_quaternions(q1)  # any finite non-zero scale: no square overflows
    dot = np.sum(q0 * q1, axis=-1, keepdims=True)
    q1 = np.where(dot < 0.0, -q1, q1)
    dot = np.abs(dot)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.arccos(np.clip(dot, -1.0, 1.0))
        sin_theta = np.sin(theta)
        small = sin_theta < 1e-9
        w0 = np.where(small, 1.0 - f, np.sin((1.0 - f) * theta) / np.where(small, 1.0, sin_theta))
        w1 = np.where(small, f, np.sin(f * theta) / np.where(small, 1.0, sin_theta))
        out = w0 * q0 + w1 * q1
    unit = unit_quaternions(out)
    return np.asarray(np.where(np.isfinite(unit), unit, out))
