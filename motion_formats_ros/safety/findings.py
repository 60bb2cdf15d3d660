"""What a motion check finds: findings with the intervals of motion time where each holds, and the report.

A finding names its ``kind`` (:data:`KINDS`), the ``links`` or the ``joint`` it is
about, the ``intervals`` ``[[start, end], …]`` of motion time (s) where it holds (the
times of the first and last frame of each run of frames), and its worst value with the
time it is reached. Every kind but ``balance`` is an error (the robot or its
surroundings get hurt); ``balance`` is a warning (it rests on a model of the contact
with the ground).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionValueError, fixed

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


class BeyondFloatRangeError(MotionValueError):
    """A quantity the check derives from a motion (a link's place, the centre of mass, the ZMP, a
    joint's velocity …) is beyond the float range at a frame whose values are finite: the
    motion cannot be judged there (its values are too large), so it is refused rather than
    judged on infinities.

    Attributes:
        what: The quantity (``the centre of mass``).
        frame: The first frame where it overflows; ``time`` that frame's time (s).
        cause: What of the motion's values makes it (``the root position there is (1e+308, 0, 0) m``).
        source: The motion's file, when known.
    """

    def __init__(self, what: str, frame: int, time: float, cause: str = "", source: str | None = None) -> None:
        self.what, self.frame, self.time, self.cause, self.source = what, frame, time, cause, source
        where = f"{source}: " if source else ""
        because = f" ({cause})" if cause else ""
        super().__init__(
            f"{where}{what} is beyond the float range at t = {fixed(time)} s (frame {frame}){because}: "
            "the motion's values are too large for it"
        )

    def of(self, source: str) -> BeyondFloatRangeError:
        """The same error naming the motion's file."""
        return BeyondFloatRangeError(self.what, self.frame, self.time, self.cause, source)


def first_overflow(values: npt.ArrayLike, finite: BoolArray, reach: int = 0) -> int | None:
    """The first frame where ``values`` (N, …) are not all finite although every frame within
    ``reach`` of it has ``finite`` inputs (a derivative of order ``reach`` looks that far), or None."""
    arr = np.asarray(values)
    bad = ~np.isfinite(arr.reshape(arr.shape[0], -1)).all(axis=1)
    if not bad.any():
        return None
    missing = np.concatenate([[0], np.cumsum(~finite)])  # inputs not finite before each frame
    n = finite.size
    lo = np.clip(np.arange(n) - reach, 0, n)
    hi = np.clip(np.arange(n) + reach + 1, 0, n)
    clean = missing[hi] - missing[lo] == 0
    hits = np.flatnonzero(bad & clean)
    return int(hits[0]) if hits.size else None


#: Every kind of finding, in the order a report lists them.
KINDS = (
    "self_collision",
    "floor",
    "balance",
    "position_limit",
    "velocity_limit",
    "acceleration_limit",
    "jerk_limit",
    "effort_limit",
    "fall",
)
#: Kinds that are warnings (the others are errors).
WARNING_KINDS = frozenset({"balance"})
#: What the worst value of each kind measures, and its unit.
WORST = {
    "self_collision": ("penetration", "m"),
    "floor": ("depth below the ground", "m"),
    "balance": ("ZMP distance outside the support polygon", "m"),
    "position_limit": ("value", "rad or m"),
    "velocity_limit": ("speed", "rad/s or m/s"),
    "acceleration_limit": ("acceleration", "rad/s² or m/s²"),
    "jerk_limit": ("jerk", "rad/s³ or m/s³"),
    "effort_limit": ("effort", "N·m or N"),
    "fall": ("tilt of the base", "rad"),
}
#: The unit of a limit finding's values: (a turning joint's, a prismatic joint's).
LIMIT_UNITS = {
    "position_limit": ("rad", "m"),
    "velocity_limit": ("rad/s", "m/s"),
    "acceleration_limit": ("rad/s²", "m/s²"),
    "jerk_limit": ("rad/s³", "m/s³"),
    "effort_limit": ("N·m", "N"),
}


def intervals(times: FloatArray, mask: BoolArray) -> tuple[tuple[float, float], ...]:
    """The runs of frames where ``mask`` holds, as (time of the first, time of the last) frame."""
    flags = np.asarray(mask, dtype=bool)
    if not flags.any():
        return ()
    padded = np.concatenate([[False], flags, [False]])
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    starts, ends = edges[0::2], edges[1::2] - 1
    return tuple((float(times[a]), float(times[b])) for a, b in zip(starts, ends, strict=True))


@dataclasses.dataclass(frozen=True)
class Finding:
    """One thing the check found.

    Attributes:
        kind: One of :data:`KINDS`.
        links: The links involved (two for a self-collision, one for the floor, none otherwise).
        joint: The joint of a limit finding, else None.
        intervals: ((start, end), …) motion time in s where the finding holds.
        worst: The worst value (see :data:`WORST` for what it measures).
        worst_time: When the worst value is reached (s).
        limit: The limit that was exceeded (limit findings), the tolerance or margin otherwise.
        first: The value at the first frame beyond the limit (limit findings), else None.
        linear: The joint of a limit finding is prismatic (its values in m, m/s …, N), not turning
            (rad, rad/s …, N·m).
    """

    kind: str
    intervals: tuple[tuple[float, float], ...]
    worst: float
    worst_time: float
    links: tuple[str, ...] = ()
    joint: str | None = None
    limit: float | None = None
    first: float | None = None
    linear: bool = False

    @property
    def level(self) -> str:
        """``error`` or ``warning``."""
        return "warning" if self.kind in WARNING_KINDS else "error"

    @property
    def unit(self) -> str:
        """The unit of :attr:`worst` (and of :attr:`limit` for a limit finding)."""
        units = LIMIT_UNITS.get(self.kind)
        return WORST[self.kind][1] if units is None else units[self.linear]

    @property
    def start(self) -> float:
        return self.intervals[0][0] if self.intervals else self.worst_time

    def message(self) -> str:
        """One line naming the finding and when it first holds, e.g.
        ``self-collision between panda_link0 and panda_hand at t = 0.31 s``."""
        at = f"at t = {f'{self.start:.3f}'.rstrip('0').rstrip('.')} s"  # to the ms, as the player says it
        if self.kind == "self_collision":
            text = f"self-collision between {self.links[0]} and {self.links[1]} {at}"
        elif self.kind == "floor":
            text = f"{self.links[0]} below the ground by {self.worst * 1000:.3g} mm {at}"
        elif self.kind == "balance":
            text = f"ZMP outside the support polygon by {self.worst * 1000:.3g} mm {at}"
        elif self.kind == "fall":
            why = f"{self.links[0]} touched the floor" if self.links else "the base tipped over"
            text = f"the robot fell {at}: {why} (base tilted {np.degrees(self.worst):.0f}°)"
        else:
            what = self.kind.replace("_", " ") + ("" if self.limit is None else f" {self.limit:g} {self.unit}")
            text = f"joint {self.joint} beyond its {what} {at} (worst {self.worst:.6g} {self.unit})"
        spans = len(self.intervals)
        return text + (f" ({spans} intervals)" if spans > 1 else "")

    def to_dict(self) -> dict[str, Any]:
        what = WORST[self.kind][0]
        out: dict[str, Any] = {"kind": self.kind, "level": self.level}
        if self.links:
            out["links"] = list(self.links)
        if self.joint is not None:
            out["joint"] = self.joint
        out["intervals"] = [[a, b] for a, b in self.intervals]
        out["worst"] = {"value": self.worst, "time": self.worst_time, "measure": what, "unit": self.unit}
        if self.limit is not None:
            out["limit"] = self.limit
        out["message"] = self.message()
        return out


@dataclasses.dataclass(frozen=True)
class BalanceSeries:
    """Per-frame values of the balance check: time (N,), com (N, 3), zmp (N, 2) (NaN where undefined),
    and each frame's support polygon (K, 2) x, y on the ground, counter-clockwise (none: (0, 2))."""

    time: FloatArray
    com: FloatArray
    zmp: FloatArray
    support: tuple[FloatArray, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        def rows(a: FloatArray) -> list[Any]:
            return [[None if not np.isfinite(v) else float(v) for v in row] for row in a]

        out = {"time": [float(t) for t in self.time], "com": rows(self.com), "zmp": rows(self.zmp)}
        if self.support:
            out["support"] = [rows(polygon) for polygon in self.support]
        return out


@dataclasses.dataclass
class CheckReport:
    """Everything a check found and how it checked.

    Attributes:
        source: The motion (its file), for messages.
        robot: The robot model's name or file.
        times: The frames checked (s).
        findings: Ordered by kind, then by first time.
        notes: How the check was done where it had to choose (the root's placement, the
            pairs left out, what was not checked and why).
        checked: The kinds that were checked.
        pairs: The link pairs checked for self-collision.
        series: CoM and ZMP per frame (balance checked), else None.
        seconds: What the check cost (wall-clock seconds, model loading included).
    """

    source: str
    robot: str
    times: FloatArray
    findings: list[Finding] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    checked: tuple[str, ...] = ()
    pairs: tuple[tuple[str, str], ...] = ()
    series: BalanceSeries | None = None
    seconds: float = 0.0

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "warning"]

    def of_kind(self, *kinds: str) -> list[Finding]:
        return [f for f in self.findings if f.kind in kinds]

    def to_dict(self, series: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "motion": self.source,
            "robot": self.robot,
            "frames": int(self.times.size),
            "start": float(self.times[0]) if self.times.size else 0.0,
            "end": float(self.times[-1]) if self.times.size else 0.0,
            "checked": list(self.checked),
            "pairs": len(self.pairs),
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "findings": [f.to_dict() for f in self.findings],
            "notes": list(self.notes),
            "seconds": round(self.seconds, 4),
        }
        if series and self.series is not None:
            out["series"] = self.series.to_dict()
        return out

    def lines(self) -> list[str]:
        """The report as text lines (what ``motion-formats check`` prints)."""
        head = f"{self.source}: {self.times.size} frames checked on {self.robot} ({', '.join(self.checked)})"
        out = [head]
        out += [f"note: {n}" for n in self.notes]
        for f in self.findings:
            spans = ", ".join(f"{fixed(a)}-{fixed(b)}" for a, b in f.intervals[:6])
            more = f" … ({len(f.intervals)} in all)" if len(f.intervals) > 6 else ""
            out.append(f"{f.level}: {f.message()} [{spans}{more} s]")
        out.append(f"{len(self.errors)} error(s), {len(self.warnings)} warning(s)" if self.findings else "no findings")
        return out


def sort_findings(findings: Sequence[Finding]) -> list[Finding]:
    """Findings by kind (the order of :data:`KINDS`), then by first time, then by name."""
    return sorted(findings, key=lambda f: (KINDS.index(f.kind), f.start, f.links, f.joint or ""))


__all__ = [
    "KINDS",
    "WARNING_KINDS",
    "WORST",
    "BalanceSeries",
    "BeyondFloatRangeError",
    "CheckReport",
    "Finding",
    "first_overflow",
    "intervals",
    "sort_findings",
]
