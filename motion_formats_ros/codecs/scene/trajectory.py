"""Spline trajectories: control points, Hermite segments, repeat, vectorised evaluation.

Control point times: a running t starts at 0; a point's ``t`` is absolute and wins,
else its ``dt`` is added, else the trajectory's ``dtDefault`` (default 1.0). The first
point without ``t`` is at 0. Times must strictly increase.

A segment is a quintic Hermite spline when both its ends have ``f, df, ddf``, a cubic
Hermite spline when both have ``f, df``, else linear. Before the first point (and, when
the trajectory does not repeat, after the last one) the end value is held.

``repeat: true`` adds a closing segment from the last point back to the first point's
values lasting ``dtDefault``; ``{dt: D}`` one lasting D; ``{t: T}`` makes the motion
start again at absolute time T. The period is T − t_first. A closing segment of length
0 is a jump back to the first point.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.errors import MotionValueError
from .problems import PathPart, Problems

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

DEFAULT_DT = 1.0
_POINT_KEYS = ("t", "dt", "f", "df", "ddf")


class SplineOverflowError(MotionValueError):
    """Control points whose spline goes beyond the float range (values or derivatives of a segment).

    Attributes:
        segment: The first such segment (from control point ``segment`` to the next).
        column: The first dimension of the trajectory that overflows in that segment.
        start, end: The segment's times.
    """

    def __init__(self, segment: int, start: float, end: float, column: int = 0) -> None:
        super().__init__(f"the spline from t = {start:g} to {end:g} overflows (values beyond the float range)")
        self.segment = segment
        self.column = column
        self.start = start
        self.end = end


@dataclasses.dataclass(eq=False)
class Trajectory:
    """A trajectory: control points (times, values, optional derivatives) and repeat.

    Attributes:
        times: (K,) strictly increasing control point times.
        f: (K, D) values.
        df: (K, D) first derivatives, NaN rows where a point has none.
        ddf: (K, D) second derivatives, NaN rows where a point has none.
        repeat_at: Absolute time at which the motion starts again, or None.
        scalar: The values were written as scalars (D = 1).
        dt_default: The file's ``dtDefault``.
        name: The trajectory's name in the scene.
    """

    times: FloatArray
    f: FloatArray
    df: FloatArray | None = None
    ddf: FloatArray | None = None
    repeat_at: float | None = None
    scalar: bool = False
    dt_default: float = DEFAULT_DT
    name: str = ""

    def __post_init__(self) -> None:
        self.times = np.asarray(self.times, dtype=np.float64).reshape(-1)
        f = np.asarray(self.f, dtype=np.float64)
        if f.ndim == 1:
            f = f[:, None]
        self.f = f
        k = self.times.size
        if k == 0:
            raise ValueError("a trajectory needs at least one control point")
        if f.shape[0] != k:
            raise ValueError(f"f has {f.shape[0]} rows for {k} control points")
        if np.any(np.diff(self.times) <= 0):
            raise ValueError("control point times must strictly increase")
        for name in ("df", "ddf"):
            value = getattr(self, name)
            if value is not None:
                arr = np.asarray(value, dtype=np.float64).reshape(f.shape)
                setattr(self, name, arr)
        if self.ddf is not None:
            no_df = ~self.has_df & self.has_ddf
            if np.any(no_df):
                raise ValueError(f"control point {int(np.flatnonzero(no_df)[0])} has ddf without df")
        if self.repeat_at is not None:
            self.repeat_at = float(self.repeat_at)
            if self.repeat_at < self.times[-1]:
                raise ValueError(f"repeat time {self.repeat_at} is before the last control point {self.times[-1]}")
            if not self.repeat_at > self.times[0]:
                raise ValueError("a repeating trajectory needs a positive period")
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is found and refused below
            self._build()
            self._check_range()

    # ------------------------------------------------------------------ properties
    @property
    def dims(self) -> int:
        """Number of dimensions D."""
        return int(self.f.shape[1])

    @property
    def has_df(self) -> BoolArray:
        """(K,) which points have df."""
        if self.df is None:
            return np.zeros(self.times.size, dtype=bool)
        out: BoolArray = np.asarray(~np.isnan(self.df).all(axis=1), dtype=bool)
        return out

    @property
    def has_ddf(self) -> BoolArray:
        """(K,) which points have ddf."""
        if self.ddf is None:
            return np.zeros(self.times.size, dtype=bool)
        out: BoolArray = np.asarray(~np.isnan(self.ddf).all(axis=1), dtype=bool)
        return out

    @property
    def start(self) -> float:
        """Time of the first control point."""
        return float(self.times[0])

    @property
    def end(self) -> float:
        """Time the trajectory ends: the repeat time, or the last control point."""
        return float(self.repeat_at) if self.repeat_at is not None else float(self.times[-1])

    @property
    def period(self) -> float | None:
        """Repeat period, or None."""
        return None if self.repeat_at is None else float(self.repeat_at - self.times[0])

    @property
    def knots(self) -> FloatArray:
        """Segment boundaries (the control point times plus the repeat time)."""
        return self._knots

    @property
    def orders(self) -> tuple[int, ...]:
        """Polynomial order of each segment (1 linear, 3 cubic, 5 quintic), closing one included."""
        return tuple(int(o) for o in self._orders)

    # ------------------------------------------------------------------ evaluation
    def _build(self) -> None:
        f = self.f
        df = self.df if self.df is not None else np.full_like(f, np.nan)
        ddf = self.ddf if self.ddf is not None else np.full_like(f, np.nan)
        has_df, has_ddf = self.has_df, self.has_ddf
        knots = self.times
        if self.repeat_at is not None:
            knots = np.append(knots, self.repeat_at)
            f = np.vstack([f, f[:1]])
            df = np.vstack([df, df[:1]])
            ddf = np.vstack([ddf, ddf[:1]])
            has_df = np.append(has_df, has_df[:1])
            has_ddf = np.append(has_ddf, has_ddf[:1])
        self._knots = knots
        self._last = f[-1]
        self._given = (df, ddf)  # the derivatives at the knots, as the control points give them
        nseg = knots.size - 1
        d = f.shape[1]
        coeffs = np.zeros((max(nseg, 1), 6, d))
        orders = np.ones(nseg, dtype=np.int64)
        if nseg == 0:
            coeffs[0, 0] = f[0]
            self._coeffs, self._orders, self._h = coeffs, orders, np.ones(1)
            return
        h = np.diff(knots)
        cubic = has_df[:-1] & has_df[1:]
        quintic = cubic & has_ddf[:-1] & has_ddf[1:]
        orders[cubic] = 3
        orders[quintic] = 5
        f0, f1 = f[:-1], f[1:]
        hh = h[:, None]
        v0 = np.where(cubic[:, None], df[:-1], 0.0) * hh
        v1 = np.where(cubic[:, None], df[1:], 0.0) * hh
        a0 = np.where(quintic[:, None], ddf[:-1], 0.0) * hh * hh
        a1 = np.where(quintic[:, None], ddf[1:], 0.0) * hh * hh
        lin = orders == 1
        cub = orders == 3
        qui = orders == 5
        coeffs[:, 0] = f0
        coeffs[lin, 1] = (f1 - f0)[lin]
        coeffs[cub, 1] = v0[cub]
        coeffs[cub, 2] = (-3 * f0 - 2 * v0 + 3 * f1 - v1)[cub]
        coeffs[cub, 3] = (2 * f0 + v0 - 2 * f1 + v1)[cub]
        coeffs[qui, 1] = v0[qui]
        coeffs[qui, 2] = (0.5 * a0)[qui]
        coeffs[qui, 3] = (-10 * f0 - 6 * v0 - 1.5 * a0 + 0.5 * a1 - 4 * v1 + 10 * f1)[qui]
        coeffs[qui, 4] = (15 * f0 + 8 * v0 + 1.5 * a0 - a1 + 7 * v1 - 15 * f1)[qui]
        coeffs[qui, 5] = (-6 * f0 - 3 * v0 - 0.5 * a0 + 0.5 * a1 - 3 * v1 + 6 * f1)[qui]
        self._coeffs, self._orders, self._h = coeffs, orders, np.where(h > 0, h, 1.0)

    def _check_range(self) -> None:
        """Refuse segments whose values or derivatives overflow where their control points are finite.

        With s in [0, 1], a segment's value is at most the sum of its coefficients' sizes, its
        derivatives at most the sums weighted by the powers' factors over h and h²; where those
        bounds are finite, evaluating it cannot overflow.
        """
        c = np.abs(self._coeffs)
        h = self._h[:, None]
        k = np.arange(6, dtype=np.float64)[None, :, None]
        bounds = (c.sum(axis=1), (k * c).sum(axis=1) / h, (k * (k - 1) * c).sum(axis=1) / (h * h))
        ends = np.vstack([self.f, self.f[:1]]) if self.repeat_at is not None else self.f
        given = np.isfinite(ends[:-1]) & np.isfinite(ends[1:]) if len(ends) > 1 else np.isfinite(ends)
        bad = np.zeros(given.shape, dtype=bool)
        for bound in bounds:
            bad |= given & ~np.isfinite(bound)
        rows = np.flatnonzero(bad.any(axis=1))
        if rows.size:
            i = int(rows[0])
            end = self._knots[i + 1] if self._knots.size > 1 else self._knots[i]
            column = int(np.flatnonzero(bad[i])[0])
            raise SplineOverflowError(i, float(self._knots[i]), float(end), column)

    def wrap(self, t: npt.ArrayLike) -> FloatArray:
        """Times mapped into one period (unchanged when the trajectory does not repeat)."""
        u = np.asarray(t, dtype=np.float64)
        if self.repeat_at is None:
            return u
        t0 = self.times[0]
        period = self.repeat_at - t0
        wrapped: FloatArray = np.where(u >= t0, t0 + np.mod(u - t0, period), u)
        return wrapped

    def evaluate(self, t: npt.ArrayLike, derivative: int = 0) -> FloatArray:
        """Values (or the ``derivative``-th time derivative, 0–2) at times ``t``: (N, D).

        A scalar ``t`` gives (D,).
        """
        if derivative not in (0, 1, 2):
            raise ValueError(f"derivative must be 0, 1 or 2, got {derivative}")
        scalar_t = np.ndim(t) == 0
        u = np.atleast_1d(self.wrap(t)).astype(np.float64, copy=False)
        knots = self._knots
        nseg = knots.size - 1
        if nseg == 0:
            row = self.f[0] if derivative == 0 else np.zeros(self.dims)
            out: FloatArray = np.array(np.broadcast_to(row, (u.size, self.dims)), dtype=np.float64)
            return np.asarray(out[0]) if scalar_t else out
        idx = np.clip(np.searchsorted(knots, u, side="right") - 1, 0, nseg - 1)
        h = self._h[idx]
        s = np.clip((u - knots[idx]) / h, 0.0, 1.0)
        c = self._coeffs
        ss = s[:, None]
        if derivative == 0:
            acc = c[idx, 5]
            for k in (4, 3, 2, 1, 0):
                acc = acc * ss + c[idx, k]
        elif derivative == 1:
            acc = 5 * c[idx, 5]
            for k in (4, 3, 2, 1):
                acc = acc * ss + k * c[idx, k]
            acc = acc / h[:, None]
        else:
            acc = 20 * c[idx, 5]
            for k in (4, 3, 2):
                acc = acc * ss + (k * (k - 1)) * c[idx, k]
            acc = acc / (h * h)[:, None]
        if derivative:
            self._given_at_knots(acc, u, idx, derivative)
        outside = (u < knots[0]) | (u > knots[-1])
        if derivative and np.any(outside):
            acc[outside] = 0.0
        if derivative == 0:
            # The end of the last segment is its control point exactly (s = 1 may round).
            acc[u >= knots[-1]] = self._last
        result: FloatArray = np.asarray(acc[0] if scalar_t else acc, dtype=np.float64)
        return result

    def _given_at_knots(self, acc: FloatArray, u: FloatArray, idx: npt.NDArray[np.intp], derivative: int) -> None:
        """At a control point, the derivative it gives (``df``, ``ddf``) rather than the polynomial's
        ``(df h) / h``, which may differ in the last bit: a scene read and written again keeps them.

        That is where the segment starting there (ending there, at the last point) is of an order
        that takes the derivative from its points: cubic for ``df``, quintic for ``ddf``.
        """
        knots, order = self._knots, 1 + 2 * derivative
        given = self._given[derivative - 1]
        start = (u == knots[idx]) & (self._orders[idx] >= order)
        acc[start] = given[idx[start]]
        end = (u == knots[-1]) & (self._orders[-1] >= order)
        acc[end] = given[-1]

    def __call__(self, t: npt.ArrayLike) -> FloatArray:
        return self.evaluate(t)

    def turning_points(self) -> FloatArray:
        """The times inside its cubic and quintic segments where a dimension's value turns: the
        roots of its derivative strictly between the segment's ends (a value's extrema between
        control points; a linear segment's are at its ends). Sorted, each time once."""
        found: list[float] = []
        for i in np.flatnonzero(self._orders > 1):
            start, h = float(self._knots[i]), float(self._knots[i + 1] - self._knots[i])
            if not h > 0:
                continue
            for d in range(self.dims):
                c = self._coeffs[i, : int(self._orders[i]) + 1, d]
                slope = (np.arange(1, c.size) * c[1:])[::-1]  # the derivative in s, highest power first
                if not np.isfinite(slope).all():
                    continue
                nonzero = np.flatnonzero(slope)
                if nonzero.size < 2:  # constant or no derivative: no root to find
                    continue
                roots = np.roots(slope[nonzero[0] :])
                real = roots.real[np.abs(roots.imag) <= 1e-9 * (1.0 + np.abs(roots.real))]
                found += [start + h * float(r) for r in real if 0.0 < r < 1.0]
        return np.unique(np.asarray(found, dtype=np.float64))

    # ------------------------------------------------------------------ output
    def canonical(self) -> dict[str, Any]:
        """Control points with absolute ``t`` and a ``repeat`` of ``false`` or ``{t: T}``."""
        has_df, has_ddf = self.has_df, self.has_ddf
        points = []
        for i, t in enumerate(self.times):
            point: dict[str, Any] = {"t": float(t), "f": self._row(self.f[i])}
            if has_df[i] and self.df is not None:
                point["df"] = self._row(self.df[i])
            if has_ddf[i] and self.ddf is not None:
                point["ddf"] = self._row(self.ddf[i])
            points.append(point)
        repeat: Any = False if self.repeat_at is None else {"t": self.repeat_at}
        return {"controlPoints": points, "dtDefault": self.dt_default, "repeat": repeat}

    def _row(self, row: FloatArray) -> Any:
        return float(row[0]) if self.scalar else [float(x) for x in row]


# --------------------------------------------------------------------------- parsing
_NUMERIC = frozenset((int, float))


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _nonfinite(problems: Problems, where: Sequence[PathPart], key: str, value: float) -> None:
    """A value (NaN: e.g. a joint a motion switches off) is kept with a warning; a derivative
    that is not finite has no meaning for the spline: an error."""
    if key == "f":
        problems.warning(where, f"{value} (not a finite number): the trajectory is not finite around this point")
    else:
        problems.error(where, f"expected a finite number, got {value}")


def _check_vector(v: Any, key: str, i: int, parts: Sequence[PathPart], problems: Problems, shape: list[Any]) -> bool:
    """``shape`` is [scalar?, length] of the first point, filled in on first use."""
    where = [*parts, "controlPoints", i, key]
    if _number(v):
        if not math.isfinite(v):
            _nonfinite(problems, where, key, v)
            if key != "f":
                return False
        scalar, length = True, 1
    elif (
        type(v) is list and v and (_NUMERIC.issuperset(map(type, v)) or all(_number(x) for x in v))
    ):  # the first check runs at C speed; the second accepts numpy floats from in-memory scenes
        scalar, length = False, len(v)
        # One sum at C speed; only a non-finite (or overflowing) one needs the values looked at.
        bad = [] if math.isfinite(sum(v)) else [j for j, x in enumerate(v) if not math.isfinite(x)]
        for j in bad[:3]:
            _nonfinite(problems, [*where, j], key, v[j])
        if bad and key != "f":
            return False
    else:
        problems.error(where, "expected a number or a non-empty array of numbers")
        return False
    if not shape:
        shape.extend([scalar, length])
    elif shape != [scalar, length]:

        def desc(sc: bool, n: int) -> str:
            return "a scalar" if sc else f"{n} values"

        problems.error(where, f"has {desc(scalar, length)} but f of the first point has {desc(shape[0], shape[1])}")
        return False
    return True


def _point_time(
    p: dict[str, Any], i: int, where: list[PathPart], running: float, dt_default: float, problems: Problems
) -> tuple[Any, bool]:
    """A control point's time (its ``t``, else the previous one's plus ``dt``) and whether it is valid."""
    if "t" in p:
        t = p["t"]
        ok = True
        if not _number(t) or not math.isfinite(t):
            problems.error([*where, "t"], f"expected a finite number, got {t!r}")
            ok = False
            t = running
        if "dt" in p:
            problems.warning(where, "both t and dt given: t wins")
        return t, ok
    if i == 0:
        if "dt" in p:
            problems.warning([*where, "dt"], "dt of the first control point is ignored (it is at 0)")
        return 0.0, True
    dt = p.get("dt", dt_default)
    if not _number(dt) or not math.isfinite(dt):
        problems.error([*where, "dt"], f"expected a finite number, got {dt!r}")
        return running + dt_default, False
    return running + dt, True


def _repeat_at(
    repeat: Any, parts: list[PathPart], problems: Problems, last: float, dt_default: float
) -> tuple[float | None, bool]:
    """When a trajectory starts again (``repeat``: true, false, ``{t: T}`` or ``{dt: D}``), and whether it is valid."""
    if repeat is True:
        return last + dt_default, True
    if repeat is False or repeat is None:
        return None, True
    if isinstance(repeat, dict) and len(repeat) == 1 and ("t" in repeat or "dt" in repeat):
        key, value = next(iter(repeat.items()))
        if not _number(value) or not math.isfinite(value):
            problems.error([*parts, "repeat", key], f"expected a finite number, got {value!r}")
            return None, False
        if key == "dt":
            if value < 0:
                problems.error([*parts, "repeat", "dt"], f"the closing segment cannot last {value:g} s")
                return last + float(value), False
            return last + float(value), True
        if value < last:
            problems.error(
                [*parts, "repeat", "t"], f"repeat time {value:g} is before the last control point ({last:g})"
            )
            return float(value), False
        return float(value), True
    problems.error([*parts, "repeat"], f"expected true, false, {{t: T}} or {{dt: D}}, got {repeat!r}")
    return None, False


def parse_trajectory(node: Any, parts: Sequence[PathPart], problems: Problems, name: str = "") -> Trajectory | None:
    """Parse a Trajectory object, recording every problem (None when invalid)."""
    parts = list(parts)
    if not isinstance(node, dict):
        problems.error(parts, "expected a trajectory object {controlPoints: [...], dtDefault, repeat}")
        return None
    ok = True
    for key in node:
        if key not in ("controlPoints", "dtDefault", "repeat"):
            problems.warning([*parts, key], f"unknown trajectory key {key!r} (ignored)")
    dt_default = node.get("dtDefault", DEFAULT_DT)
    if not _number(dt_default) or not math.isfinite(dt_default) or dt_default < 0:
        problems.error([*parts, "dtDefault"], f"expected a non-negative number, got {dt_default!r}")
        ok = False
        dt_default = DEFAULT_DT
    dt_default = float(dt_default)
    points = node.get("controlPoints")
    if not isinstance(points, list) or not points:
        problems.error([*parts, "controlPoints"], "expected a non-empty array of control points")
        return None
    k = len(points)
    times = np.empty(k)
    f_rows: list[Any] = []
    df_rows: list[Any] = []
    ddf_rows: list[Any] = []
    has_df = np.zeros(k, dtype=bool)
    has_ddf = np.zeros(k, dtype=bool)
    shape: list[Any] = []
    running = 0.0
    for i, p in enumerate(points):
        where = [*parts, "controlPoints", i]
        if type(p) is not dict:
            problems.error(where, "expected a control point object {t or dt, f, df, ddf}")
            ok = False
            continue
        for key in p:
            if key not in _POINT_KEYS:
                problems.error([*where, key], f"unknown control point key {key!r}; known: {list(_POINT_KEYS)}")
                ok = False
        if "f" not in p:
            problems.error(where, "missing f")
            ok = False
            continue
        t, time_ok = _point_time(p, i, where, running, dt_default, problems)
        ok = ok and time_ok
        if i > 0 and not t > running:
            problems.error(
                where,
                f"time goes backwards or stands still: t = {t:g} after {running:g} (times must strictly increase)",
            )
            ok = False
        times[i] = running = float(t)
        # values
        f = p["f"]
        if not _check_vector(f, "f", i, parts, problems, shape):
            ok = False
            continue
        f_rows.append(f)
        if "ddf" in p and "df" not in p:
            problems.error([*where, "ddf"], "ddf without df (a quintic segment needs f, df and ddf)")
            ok = False
        for key, rows, flags in (("df", df_rows, has_df), ("ddf", ddf_rows, has_ddf)):
            if key in p:
                if _check_vector(p[key], key, i, parts, problems, shape):
                    rows.append(p[key])
                    flags[i] = True
                else:
                    ok = False
                    rows.append(None)
            else:
                rows.append(None)
    repeat_at, repeat_ok = _repeat_at(
        node.get("repeat", False), parts, problems, float(times[-1]) if k else 0.0, dt_default
    )
    ok = ok and repeat_ok
    if ok and repeat_at is not None and not repeat_at > times[0]:
        problems.error([*parts, "repeat"], "a repeating trajectory needs a positive period")
        ok = False
    if not ok:
        return None
    scalar, d = shape
    f_arr = np.array(f_rows, dtype=np.float64).reshape(k, d)
    df_arr = _optional(df_rows, has_df, k, d)
    ddf_arr = _optional(ddf_rows, has_ddf, k, d)
    try:
        return Trajectory(times, f_arr, df_arr, ddf_arr, repeat_at, bool(scalar), dt_default, name)
    except SplineOverflowError as exc:
        ends = [exc.segment, (exc.segment + 1) % k]
        sizes = [
            max(float(np.nanmax(np.abs(a[i]), initial=0.0)) for a in (f_arr, df_arr, ddf_arr) if a is not None)
            for i in ends
        ]
        point = ends[int(np.argmax(sizes))]
        problems.error([*parts, "controlPoints", point], f"{exc}: its largest value is {max(sizes):g}")
        return None


def _optional(rows: list[Any], flags: BoolArray, k: int, d: int) -> FloatArray | None:
    if not flags.any():
        return None
    if flags.all():
        return np.array(rows, dtype=np.float64).reshape(k, d)
    out = np.full((k, d), np.nan)
    for i in np.flatnonzero(flags):
        out[i] = rows[i]
    return out
