"""A motion judged against its joint limits: the one judgement ``check``, the viewer and the player share.

:func:`limit_findings` judges each single-valued joint of a motion against its
:class:`~..core.joint_limits.JointLimits`: positions, velocities, accelerations and jerks
(finite differences, second order, of the positions of the frames judged; scaled by the
playback speed for the player), and efforts where the motion has them. A mimic joint is
judged on the value its leader gives it (``multiplier * leader + offset``, the leader held
at 0 when the motion lacks it), whether or not the motion names it, as the robot model
moves it. What it returns are :class:`~.findings.Finding` objects: ``check`` reports them,
and the player refuses a motion with one line made from the first of them
(:func:`check_limits`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionFormatError
from ..core.joint_limits import JointLimits
from ..core.model import JointLimit, Motion
from .findings import Finding, intervals

FloatArray = npt.NDArray[np.float64]

#: Relative slack before a rate counts as beyond its limit, absolute slack for positions.
TOLERANCE = 1e-6

#: The rate findings in the order they are derived (each the time derivative of the one before).
_RATES = (("velocity_limit", "velocity"), ("acceleration_limit", "acceleration"), ("jerk_limit", "jerk"))


class LimitViolationError(MotionFormatError, ValueError):
    """The motion exceeds a joint limit; the message names joint, time and value.

    Attributes:
        joint: The joint beyond its limit.
    """

    def __init__(self, message: str, joint: str = "") -> None:
        super().__init__(message)
        self.joint = joint


def _rate(values: FloatArray, times: FloatArray) -> FloatArray:
    if times.size < 2:
        return np.zeros_like(values)
    return np.asarray(np.gradient(values, times, axis=0, edge_order=2 if times.size > 2 else 1))


def _finding(
    kind: str, joint: str, times: FloatArray, excess: FloatArray, value: FloatArray, limit: float
) -> Finding | None:
    bad = excess > 0
    if not bad.any():
        return None
    i = int(np.argmax(excess))
    first = int(np.argmax(bad))
    return Finding(
        kind,
        intervals(times, bad),
        float(value[i]),
        float(times[i]),
        joint=joint,
        limit=limit,
        first=float(value[first]),
    )


def _columns(motion: Motion, limits: JointLimits) -> dict[str, tuple[FloatArray, FloatArray | None]]:
    """Each judged joint's positions and efforts: the motion's single-valued joints with limits,
    a mimic joint (named or not) from its leader."""
    if motion.position is None:
        return {}
    dims = zip(motion.joint_names, motion.joint_dims, strict=True)
    single = {n: motion.joint_columns(n).start for n, d in dims if d == 1}
    position = np.asarray(motion.position, dtype=np.float64)
    effort = None if motion.effort is None else np.asarray(motion.effort, dtype=np.float64)
    out: dict[str, tuple[FloatArray, FloatArray | None]] = {}
    for name, col in single.items():
        if name in limits and name not in limits.followers:
            out[name] = (position[:, col], None if effort is None else effort[:, col])
    for name, f in limits.followers.items():
        if name not in limits or (name not in single and f.leader not in single):
            continue
        lead = position[:, single[f.leader]] if f.leader in single else np.zeros(motion.num_frames)
        own = None if effort is None or name not in single else effort[:, single[name]]
        out[name] = (f.multiplier * lead + f.offset, own)
    return out


def limit_findings(motion: Motion, limits: JointLimits, speed: float = 1.0) -> list[Finding]:
    """Every limit finding of ``motion`` (times are the motion's own; rates at ``speed`` × its pace)."""
    times = np.asarray(motion.times, dtype=np.float64)
    found: list[Finding] = []
    for name, (q, effort) in _columns(motion, limits).items():
        lim = limits[name]
        if lim.lower is not None or lim.upper is not None:
            lower = -np.inf if lim.lower is None else lim.lower
            upper = np.inf if lim.upper is None else lim.upper
            excess = np.maximum(lower - q, q - upper) - TOLERANCE
            bound = lower if q[int(np.argmax(excess))] < lower else upper
            f = _finding("position_limit", name, times, excess, q, float(bound))
            if f is not None:
                found.append(f)
        if any(getattr(lim, attr) is not None for _, attr in _RATES):
            value, scale = q, 1.0
            for kind, attr in _RATES:
                value, scale = _rate(value, times), scale * speed
                limit = getattr(lim, attr)
                if limit is not None:
                    size = np.abs(value) * scale
                    f = _finding(kind, name, times, size - limit * (1 + TOLERANCE), size, limit)
                    if f is not None:
                        found.append(f)
        if lim.effort is not None and effort is not None:
            size = np.abs(effort)
            f = _finding("effort_limit", name, times, size - lim.effort * (1 + TOLERANCE), size, lim.effort)
            if f is not None:
                found.append(f)
    return found


def refusal(finding: Finding, limits: Mapping[str, JointLimit], speed: float = 1.0) -> str:
    """The player's line for a limit finding: the joint, the limit, when it is first beyond it and the value then."""
    name, at = finding.joint, f"at t = {finding.start:.6g} s"
    value = finding.worst if finding.first is None else finding.first
    if finding.kind == "position_limit":
        lim = limits[name or ""]
        if lim.lower is not None and value < lim.lower:
            return f"joint {name!r} below its lower limit {lim.lower:g} {at} (value {value:.6g})"
        return f"joint {name!r} above its upper limit {lim.upper:g} {at} (value {value:.6g})"
    if finding.kind == "velocity_limit":
        return (
            f"joint {name!r} faster than its velocity limit {finding.limit:g} rad/s {at} "
            f"(speed {value:.6g} at playback rate {speed:g})"
        )
    if finding.kind == "effort_limit":
        return f"joint {name!r} beyond its effort limit {finding.limit:g} {at} (effort {value:.6g})"
    what = finding.kind.replace("_limit", "")
    rate = f"at playback rate {speed:g}"
    return f"joint {name!r} beyond its {what} limit {finding.limit:g} {at} ({what} {value:.6g} {rate})"


def _undefined(motion: Motion) -> LimitViolationError | None:
    """The first NaN or infinite position or velocity (NaN compares false with every limit)."""
    for label, channel in (("value", motion.position), ("velocity", motion.velocity)):
        if channel is None:
            continue
        bad = ~np.isfinite(channel)
        if bad.any():
            i, j = (int(v[0]) for v in np.nonzero(bad))
            name = motion.joint_names[int(np.searchsorted(np.cumsum(motion.joint_dims), j, side="right"))]
            kind = "NaN" if np.isnan(channel[i, j]) else "infinite"
            return LimitViolationError(
                f"joint {name!r} has an undefined {label} ({kind}) at t = {motion.times[i]:.6g} s", name
            )
    return None


def check_limits(motion: Motion, limits: Mapping[str, JointLimit], speed: float = 1.0) -> None:
    """Raise :class:`LimitViolationError` for the first thing :func:`limit_findings` finds (the player's refusal).

    ``limits`` is a :class:`JointLimits` or a plain mapping of joint name → limits. A
    non-finite position or velocity of any joint is refused too: resolve them first (core.nonfinite).
    """
    if motion.position is None or not limits:
        return
    problem = _undefined(motion)
    if problem is not None:
        raise problem
    judged = limits if isinstance(limits, JointLimits) else JointLimits(limits)
    found = limit_findings(motion, judged, speed)
    if found:
        first = min(found, key=lambda f: f.start)
        raise LimitViolationError(refusal(first, judged, speed), first.joint or "")


__all__ = ["TOLERANCE", "LimitViolationError", "check_limits", "limit_findings", "refusal"]
