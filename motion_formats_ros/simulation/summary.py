"""What a simulation found: whether the robot stayed up, how closely it tracked, what it asked of its motors.

The findings are the motion check's (:class:`..safety.findings.Finding`) with two kinds of
their own: ``fall`` (when the robot fell, and why) and ``effort_limit`` (a joint whose
servo asked for more than the model's effort limit). The report adds per-joint tracking
error and effort, the floor's reaction, where the base went, and how fast it ran.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ..safety.findings import Finding

FloatArray = npt.NDArray[np.float64]


def _json_safe(value: Any) -> Any:
    """``value`` with every float that is not finite made None (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


@dataclasses.dataclass(frozen=True)
class JointStats:
    """One driven joint: tracking error (rad or m) and effort (N·m or N).

    Attributes:
        joint: Its name.
        error_max, error_rms: Largest and root-mean-square the absolute difference simulated − planned.
        error_time: When the largest error is reached (motion time, s).
        effort_peak, effort_rms: Largest and root-mean-square the absolute effort its servo gave.
        effort_time: When the peak effort is reached (motion time, s).
        effort_limit: The model's effort limit (None: not stated).
    """

    joint: str
    error_max: float
    error_rms: float
    error_time: float
    effort_peak: float
    effort_rms: float
    effort_time: float
    effort_limit: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "joint": self.joint,
            "error": {"max": self.error_max, "rms": self.error_rms, "time": self.error_time, "unit": "rad or m"},
            "effort": {
                "peak": self.effort_peak,
                "rms": self.effort_rms,
                "time": self.effort_time,
                "limit": self.effort_limit,
                "unit": "N·m or N",
            },
        }


@dataclasses.dataclass
class SimulationReport:
    """Everything a simulation found.

    Attributes:
        source: The motion (its file), for messages.
        robot: The robot model's name and file.
        duration: Simulated time (s) and ``steps`` taken at ``timestep`` (s).
        speed: The playback speed factor.
        floating: Whether the base floated.
        gains: The gains used, per joint: (p, d).
        findings: ``fall``, ``effort_limit`` and nothing else, by kind then time.
        joint_stats: Tracking and effort per driven joint (model order).
        floor_force_peak, floor_force_mean: The floor's vertical reaction (N).
        base_start, base_end: The base's position at the start and end (m).
        planned_end: The motion's own root position at the end (None: it has no root pose).
        real_time_factor: Simulated seconds per wall-clock second of the physics loop.
        seconds: Wall-clock seconds of the whole simulation, model building included.
        notes: How it was done where it had to choose.
    """

    source: str
    robot: str
    duration: float
    steps: int
    timestep: float
    speed: float
    floating: bool
    gains: dict[str, tuple[float, float]]
    findings: list[Finding] = dataclasses.field(default_factory=list)
    joint_stats: list[JointStats] = dataclasses.field(default_factory=list)
    floor_force_peak: float = 0.0
    floor_force_mean: float = 0.0
    base_start: FloatArray = dataclasses.field(default_factory=lambda: np.zeros(3))
    base_end: FloatArray = dataclasses.field(default_factory=lambda: np.zeros(3))
    planned_end: FloatArray | None = None
    real_time_factor: float = 0.0
    seconds: float = 0.0
    notes: list[str] = dataclasses.field(default_factory=list)

    #: What was looked for (as a check report says it).
    checked: tuple[str, ...] = ("fall", "effort_limit")
    #: No per-frame balance series (a check report's), for the viewer.
    series: None = None

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "warning"]

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]

    @property
    def fell(self) -> bool:
        return any(f.kind == "fall" for f in self.findings)

    @property
    def fall_time(self) -> float | None:
        return next((f.worst_time for f in self.findings if f.kind == "fall"), None)

    @property
    def displacement(self) -> FloatArray:
        """How far the base moved on the ground (x, y; m)."""
        return np.asarray(self.base_end[:2] - self.base_start[:2])

    @property
    def drift(self) -> float | None:
        """How far (m, on the ground) the base ended from the motion's own root position (None: no root pose)."""
        if self.planned_end is None:
            return None
        return float(np.linalg.norm(self.base_end[:2] - self.planned_end[:2]))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "motion": self.source,
            "robot": self.robot,
            "duration": self.duration,
            "steps": self.steps,
            "timestep": self.timestep,
            "speed": self.speed,
            "floating_base": self.floating,
            "stood": not self.fell,
            "fall_time": self.fall_time,
            "errors": len(self.errors),
            "findings": [f.to_dict() for f in self.findings],
            "joints": [j.to_dict() for j in self.joint_stats],
            "floor_force": {"peak": self.floor_force_peak, "mean": self.floor_force_mean, "unit": "N"},
            "base": {
                "start": [float(v) for v in self.base_start],
                "end": [float(v) for v in self.base_end],
                "displacement": float(np.linalg.norm(self.displacement)),
                "planned_end": None if self.planned_end is None else [float(v) for v in self.planned_end],
                "drift": self.drift,
            },
            "gains": {name: {"p": p, "d": d} for name, (p, d) in self.gains.items()},
            "real_time_factor": self.real_time_factor,
            "seconds": round(self.seconds, 4),
            "notes": list(self.notes),
        }
        safe: dict[str, Any] = _json_safe(out)
        return safe

    def row(self) -> dict[str, Any]:
        """The verdict in one flat row (a line of ``batch --simulate``'s table)."""
        worst = max(self.joint_stats, key=lambda j: j.error_max) if self.joint_stats else None
        hardest = max(self.joint_stats, key=lambda j: j.effort_peak) if self.joint_stats else None
        return {
            "stood": not self.fell,
            "fall_time": self.fall_time,
            "error_max": worst.error_max if worst else None,
            "error_joint": worst.joint if worst else None,
            "effort_peak": hardest.effort_peak if hardest else None,
            "effort_joint": hardest.joint if hardest else None,
            "effort_limit_findings": sum(f.kind == "effort_limit" for f in self.findings),
            "displacement": float(np.linalg.norm(self.displacement)),
            "drift": self.drift,
            "real_time_factor": self.real_time_factor,
        }

    def lines(self) -> list[str]:
        """The report as text lines (what ``motion-formats simulate`` prints)."""
        state = f"FELL at t = {self.fall_time:.3g} s" if self.fell else "stood"
        out = [
            f"{self.source}: {self.duration:.3g} s simulated on {self.robot} "
            f"({'floating' if self.floating else 'fixed'} base, speed {self.speed:g}): {state}"
        ]
        out += [f"  error: {f.message()}" for f in self.errors]
        moved = float(np.linalg.norm(self.displacement))
        base = f"  base moved {moved:.3f} m on the ground"
        if self.drift is not None:
            base += f", {self.drift:.3f} m from the motion's own root at the end"
        out.append(base)
        if self.joint_stats:
            worst = max(self.joint_stats, key=lambda j: j.error_max)
            hardest = max(self.joint_stats, key=lambda j: j.effort_peak)
            out.append(
                f"  tracking: worst {worst.joint} {worst.error_max:.4f} rad at t = {worst.error_time:.3g} s; "
                f"RMS over joints {float(np.sqrt(np.mean([j.error_rms**2 for j in self.joint_stats]))):.4f}"
            )
            out.append(
                f"  effort: peak {hardest.joint} {hardest.effort_peak:.4g} N·m at t = {hardest.effort_time:.3g} s"
            )
        out.append(f"  floor reaction: peak {self.floor_force_peak:.4g} N, mean {self.floor_force_mean:.4g} N")
        out.append(f"  {self.real_time_factor:.3g}x real time")
        out += [f"  note: {n}" for n in self.notes]
        return out

    def table(self) -> list[str]:
        """Per-joint tracking and effort, one line each."""
        rows = [f"  {'joint':<24} {'err max':>9} {'err rms':>9} {'effort pk':>10} {'effort rms':>10} {'limit':>8}"]
        for j in self.joint_stats:
            limit = "-" if j.effort_limit is None else f"{j.effort_limit:.4g}"
            rows.append(
                f"  {j.joint:<24} {j.error_max:>9.4f} {j.error_rms:>9.4f} {j.effort_peak:>10.4g} "
                f"{j.effort_rms:>10.4g} {limit:>8}"
            )
        return rows


__all__ = ["JointStats", "SimulationReport"]
