"""A motion judged against its joint limits: the one judgement ``check``, the viewer and the player share.

:func:`limit_findings` judges each single-valued joint of a motion against its
:class:`~..core.joint_limits.JointLimits`: positions, velocities, accelerations and jerks
(finite differences, second order, of the positions of the frames judged; scaled by the
playback speed for the player), and efforts where the motion has them. A mimic joint is
judged on the value its leader gives it (``multiplier * leader + offset``, the leader held
at 0 when the motion lacks it), whether or not the motion names it, as the robot model
moves it. What the player sends is judged as joint_trajectory_controller plays it: the
velocities a motion states (sent as they are) against the velocity limits, and the positions
the controller's cubic (quintic) through the sent points reaches between two frames, at each
segment's turning points (:func:`sent_rates`). What it returns are
:class:`~.findings.Finding` objects: ``check`` reports them, and the player refuses a
motion with one line made from the first of them (:func:`check_limits`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ..core import timing
from ..core.errors import MotionFormatError
from ..core.hermite import JUMP, segment_accelerations, segment_extremes, segment_fastest, shape_preserving_velocities
from ..core.joint_limits import JointLimits
from ..core.model import JointLimit, Motion
from .findings import Finding, intervals
from .frames import checked_frames

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


def _columns(motion: Motion, limits: JointLimits) -> tuple[list[str], FloatArray, FloatArray | None]:
    """The judged joints, their positions (N, J) and efforts (N, J; NaN where the motion has none):
    the motion's single-valued joints with limits, and each mimic joint (named or not) from its leader."""
    if motion.position is None:
        return [], np.zeros((motion.num_frames, 0)), None
    dims = zip(motion.joint_names, motion.joint_dims, strict=True)
    single = {n: motion.joint_columns(n).start for n, d in dims if d == 1}
    position = np.asarray(motion.position, dtype=np.float64)
    effort = None if motion.effort is None else np.asarray(motion.effort, dtype=np.float64)
    names: list[str] = []
    columns: list[FloatArray] = []
    efforts: list[FloatArray] = []
    nothing = np.full(motion.num_frames, np.nan)
    for name, col in single.items():
        if name in limits and name not in limits.followers:
            names.append(name)
            columns.append(position[:, col])
            efforts.append(nothing if effort is None else effort[:, col])
    # Every column of the motion, in order, and no mimic joint: judged without a copy.
    own = len(names) == len(single) and list(single.values()) == list(range(position.shape[1]))
    for name, f in limits.followers.items():
        if name not in limits or (name not in single and f.leader not in single):
            continue
        lead = position[:, single[f.leader]] if f.leader in single else np.zeros(motion.num_frames)
        names.append(name)
        with np.errstate(over="ignore", invalid="ignore"):  # beyond the float range: inf, beyond any limit
            columns.append(f.multiplier * lead + f.offset)
        efforts.append(nothing if effort is None or name not in single else effort[:, single[name]])
        own = False
    if own:
        return names, position, effort
    stack = np.column_stack(columns) if columns else np.zeros((motion.num_frames, 0))
    return names, stack, None if effort is None else np.column_stack(efforts)


def _stated(limits: JointLimits, names: list[str], attr: str, unstated: float) -> FloatArray:
    """Each joint's limit ``attr`` (``unstated`` where it states none)."""
    values = (getattr(limits[n], attr) for n in names)
    return np.array([unstated if v is None else v for v in values], dtype=np.float64)


def _column_in_time(
    times: FloatArray, value: FloatArray, between: tuple[FloatArray, FloatArray] | None, c: int
) -> tuple[FloatArray, FloatArray]:
    """Column ``c``'s frames ``times``, ``value`` and (``between``: times and values, NaN where
    none) its values between two frames, in time order."""
    if between is None:
        return times, value
    inner = ~np.isnan(between[0][:, c])
    at = np.concatenate([times, between[0][inner, c]])
    order = np.argsort(at, kind="stable")
    return at[order], np.concatenate([value, between[1][inner, c]])[order]


def _magnitudes(
    kind: str,
    names: list[str],
    times: FloatArray,
    values: FloatArray,
    scale: float,
    limit: FloatArray,
    between: tuple[FloatArray, FloatArray] | None = None,
) -> list[Finding]:
    """A finding for each joint whose ``|values| * scale`` (N, J) goes beyond its ``limit`` (NaN: none):
    at a frame, or (``between``: times and values, (M, J) each, NaN where none) between two frames."""
    with np.errstate(invalid="ignore"):
        bad = (np.abs(values) > limit * ((1 + TOLERANCE) / scale)).any(axis=0)  # the bulk of the work: one pass
        if between is not None:
            bad |= (np.abs(between[1]) > limit * ((1 + TOLERANCE) / scale)).any(axis=0)
    found = []
    for c in np.flatnonzero(bad):
        at, value = _column_in_time(times, values[:, c], between, int(c))
        size = np.abs(value) * scale
        f = _finding(kind, names[c], at, size - limit[c] * (1 + TOLERANCE), size, float(limit[c]))
        if f is not None:
            found.append(f)
    return found


def _positions(
    names: list[str],
    times: FloatArray,
    q: FloatArray,
    lower: FloatArray,
    upper: FloatArray,
    between: tuple[FloatArray, FloatArray] | None = None,
) -> list[Finding]:
    """A finding for each joint whose position goes below ``lower`` or above ``upper``: at a frame,
    or (``between``: times and values, (M, J) each, NaN where none) between two frames."""
    found = []
    with np.errstate(invalid="ignore"):
        bad = ((q < lower - TOLERANCE) | (q > upper + TOLERANCE)).any(axis=0)
        if between is not None:
            bad |= ((between[1] < lower - TOLERANCE) | (between[1] > upper + TOLERANCE)).any(axis=0)
    for c in np.flatnonzero(bad):
        at, value = _column_in_time(times, q[:, c], between, int(c))
        excess = np.maximum(lower[c] - value, value - upper[c]) - TOLERANCE
        bound = lower[c] if value[int(np.argmax(excess))] < lower[c] else upper[c]
        f = _finding("position_limit", names[c], at, excess, value, float(bound))
        if f is not None:
            found.append(f)
    return found


def _joint_rates(motion: Motion, limits: JointLimits, names: list[str], channel: FloatArray) -> FloatArray:
    """The columns (N, J) of a rate ``channel`` (velocity, acceleration) for the judged ``names``:
    a mimic joint's from its leader's (``multiplier`` times it; 0 when the motion lacks the leader)."""
    dims = zip(motion.joint_names, motion.joint_dims, strict=True)
    single = {n: motion.joint_columns(n).start for n, d in dims if d == 1}
    columns = []
    for name in names:
        f = limits.followers.get(name)
        if f is None:
            columns.append(channel[:, single[name]])
        elif f.leader in single:
            with np.errstate(over="ignore", invalid="ignore"):
                columns.append(f.multiplier * channel[:, single[f.leader]])
        else:
            columns.append(np.zeros(motion.num_frames))
    return np.column_stack(columns) if columns else np.zeros((motion.num_frames, 0))


@dataclasses.dataclass(frozen=True)
class Sent:
    """What the player sends for a motion's frames, as joint_trajectory_controller receives it.

    Attributes:
        velocities: (N, J) the velocities every point carries (None: linear interpolation).
        stated: The velocities are the motion's own (judged against the velocity limits as they are).
        accelerations: (N, J), or None (no quintic).
    """

    velocities: FloatArray | None
    stated: bool = False
    accelerations: FloatArray | None = None


def sent_rates(
    motion: Motion, limits: JointLimits, names: list[str], q: FloatArray, interpolation: str = "auto"
) -> Sent:
    """The velocities and accelerations the player's trajectory carries for ``motion`` (judged
    joints ``names``, positions ``q``), as ``playback.plan`` chooses them: none for a keyframe
    motion or ``linear``; the motion's own velocities when every one is finite, else
    shape-preserving ones derived from the positions; the last point's 0. Motion time (the
    speed scales velocities and divides times alike: the positions between points stay)."""
    if motion.is_keyframed or interpolation == "linear" or motion.num_frames < 2:
        return Sent(None)
    times = np.asarray(motion.times, dtype=np.float64)
    stated = motion.velocity is not None and bool(np.all(np.isfinite(motion.velocity)))
    if stated:
        assert motion.velocity is not None
        velocities = _joint_rates(motion, limits, names, np.asarray(motion.velocity, dtype=np.float64))
    else:
        velocities = shape_preserving_velocities(q, times)
    velocities[-1] = 0.0
    accelerations = None
    if interpolation == "quintic":
        if motion.acceleration is not None and np.all(np.isfinite(motion.acceleration)):
            accelerations = _joint_rates(motion, limits, names, np.asarray(motion.acceleration, dtype=np.float64))
        else:
            accelerations = timing.derivative(velocities, times)
        accelerations[-1] = 0.0
    return Sent(velocities, stated, accelerations)


def _between(times: FloatArray, q: FloatArray, sent: Sent) -> tuple[FloatArray, FloatArray] | None:
    """The highest and lowest value of each segment strictly between two frames, as the
    controller interpolates the sent points (times and values, (2(N-1), J) each)."""
    if sent.velocities is None:
        return None
    high_at, high, low_at, low = segment_extremes(times, q, sent.velocities, sent.accelerations)
    return np.concatenate([high_at, low_at]), np.concatenate([high, low])


def _fastest_between(times: FloatArray, q: FloatArray, sent: Sent) -> tuple[FloatArray, FloatArray] | None:
    """The fastest velocity of each cubic segment strictly between two frames, as the controller
    plays the sent points (times and values, (N-1, J) each; NaN where it is fastest at an end)."""
    if sent.velocities is None or sent.accelerations is not None:
        return None  # a quintic's speed between points: its samples' differences are judged at the frames
    return segment_fastest(times, q, sent.velocities)


def _accelerations_sent(q: FloatArray, sent: Sent, times: FloatArray) -> FloatArray | None:
    """The largest acceleration (N, J) the controller plays at each sent point: a cubic's
    acceleration is linear in each segment, so its extremes are at the segment's two ends, and
    at a point the segment ending there and the one starting there differ; a quintic's is the
    acceleration its points carry. None: no velocities are sent (a straight line)."""
    if sent.velocities is None:
        return None
    if sent.accelerations is not None:
        return sent.accelerations
    start, end = segment_accelerations(times, q, sent.velocities)
    # a NaN from an overflow (inf - inf) between defined values is beyond every limit, not unknown
    defined = ~(np.isnan(q) | np.isnan(sent.velocities))
    defined = defined[:-1] & defined[1:]
    start = np.where(np.isnan(start) & defined, np.inf, start)
    end = np.where(np.isnan(end) & defined, np.inf, end)
    nothing = np.zeros((1, q.shape[1]))
    before, after = np.concatenate([nothing, end]), np.concatenate([start, nothing])
    return np.where(np.abs(after) > np.abs(before), after, before)


def limit_findings(
    motion: Motion,
    limits: JointLimits,
    speed: float = 1.0,
    linear: Collection[str] = (),
    uniform: npt.NDArray[np.intp] | None = None,
    own: npt.NDArray[np.intp] | None = None,
    interpolation: str = "auto",
    kinds: Sequence[str] | None = None,
) -> list[Finding]:
    """Every limit finding of ``motion`` (times are the motion's own; rates at ``speed`` × its pace).

    What the player sends is judged as joint_trajectory_controller plays it
    (:func:`sent_rates`, by the player's ``interpolation``): the velocities the motion states
    against the velocity limits as they are, and the positions between two frames as the
    controller's cubic (quintic) through the sent points reaches them, at each segment's
    highest and lowest value.

    ``linear`` names the prismatic joints: their findings are in m, m/s …, N (the others' in rad, N·m).
    ``uniform``: the frames velocities, accelerations and jerks are judged on (default: every
    frame); positions and efforts are judged on every frame. ``own``: the motion's own frames
    (its keyframes) when ``uniform`` leaves some out: velocities are judged across them too.
    ``kinds``: the interpolation of each segment between those keyframes (default: the
    motion's own): a ``step`` or ``next`` segment is sent as a jump over :data:`~..core.hermite.JUMP`
    seconds of trajectory time, and its velocity judged as that jump.
    """
    times = np.asarray(motion.times, dtype=np.float64)
    names, q, effort = _columns(motion, limits)
    if not names:
        return []
    found: list[Finding] = []
    lower, upper = _stated(limits, names, "lower", -np.inf), _stated(limits, names, "upper", np.inf)
    sent = sent_rates(motion, limits, names, q, interpolation)
    if np.isfinite(lower).any() or np.isfinite(upper).any():
        found += _positions(names, times, q, lower, upper, _between(times, q, sent))
    rates = [(kind, _stated(limits, names, attr, np.nan)) for kind, attr in _RATES]
    last = max((k for k, (_, lim) in enumerate(rates) if np.isfinite(lim).any()), default=-1)
    value, scale, at = q, 1.0, times
    segments = kinds if kinds is not None else motion.interpolation
    keys = own if own is not None else np.arange(times.size)
    if uniform is not None and last >= 0:
        value, at = q[uniform], times[uniform]
    for k, (kind, limit) in enumerate(rates[: last + 1]):
        value, scale = _beyond_range(timing.derivative(value, at), value), scale * speed
        if np.isfinite(limit).any():
            judged_at, judged = at, value
            if k == 0 and keys.size > 1 and (uniform is not None or segments is not None):
                judged_at, judged = _with_segments(at, value, times[keys], q[keys], segments, speed)
            elif k == 0 and sent.stated and sent.velocities is not None:  # what is sent, at its frames
                judged = _larger(value, sent.velocities)
            elif k == 1 and uniform is None:  # the controller's, at the points sent
                played = _accelerations_sent(q, sent, times)
                if played is not None:
                    judged = _larger(judged, played)
            inner = _fastest_between(times, q, sent) if k == 0 else None
            found += _magnitudes(kind, names, judged_at, judged, scale, limit, inner)
    if effort is not None:
        limit = _stated(limits, names, "effort", np.nan)
        if np.isfinite(limit).any():
            found += _magnitudes("effort_limit", names, times, effort, 1.0, limit)
    return [dataclasses.replace(f, linear=True) if f.joint in linear else f for f in found]


def _larger(a: FloatArray, b: FloatArray) -> FloatArray:
    """Elementwise, ``b`` where it is larger in magnitude than ``a``, else ``a``."""
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(b) > np.abs(a), b, a)


def _with_segments(
    at: FloatArray,
    velocity: FloatArray,
    key_times: FloatArray,
    key_values: FloatArray,
    kinds: Sequence[str] | None,
    speed: float,
) -> tuple[FloatArray, FloatArray]:
    """The velocities at the sampled frames ``at`` together with each keyframe segment's
    velocity as sent (at its start), in time order: a keyframe reached in a millisecond between
    two sampled frames moves its joint at the segment's own pace, which the samples do not see.
    A segment's pace is its mean velocity, or for a ``step`` or ``next`` segment (``kinds``)
    its jump's: the player sends it as two points :data:`~..core.hermite.JUMP` s of trajectory
    time apart (half the segment when that is shorter), motion time ``JUMP * speed``."""
    span = np.diff(key_times)
    if kinds is not None:
        jumps = np.array([kind in ("step", "next") for kind in kinds], dtype=bool)
        span = np.where(jumps, np.minimum(JUMP * speed, span / 2), span)
    with np.errstate(over="ignore", invalid="ignore"):
        slopes = np.diff(key_values, axis=0) / span[:, None]
    slopes = _beyond_range(slopes, key_values[:-1])
    both_at = np.concatenate([at, key_times[:-1]])
    order = np.argsort(both_at, kind="stable")
    return both_at[order], np.concatenate([velocity, slopes])[order]


def _beyond_range(rate: FloatArray, values: FloatArray) -> FloatArray:
    """``rate`` (the derivative of ``values``, N × J) with its NaNs next to an infinite value
    made infinite: a rate taken across a value beyond the float range (a velocity that
    overflowed, a mimic joint's ``multiplier * leader`` beyond it) is beyond every limit, not
    unknown; a NaN would compare false with the limit and hide it."""
    infinite = np.isinf(values)
    if not infinite.any():
        return rate
    near = infinite.copy()
    for shift in (1, 2):  # a second-order difference reaches two frames at the ends
        near[shift:] |= infinite[:-shift]
        near[:-shift] |= infinite[shift:]
    return np.where(np.isnan(rate) & near, np.inf, rate)


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


def check_limits(
    motion: Motion, limits: Mapping[str, JointLimit], speed: float = 1.0, interpolation: str = "auto"
) -> None:
    """Raise :class:`LimitViolationError` for the first thing :func:`limit_findings` finds (the player's refusal).

    ``limits`` is a :class:`JointLimits` or a plain mapping of joint name → limits. A
    non-finite position or velocity of any joint is refused too: resolve them first (core.nonfinite).
    The motion is judged at the frames ``check`` judges it at (:func:`.frames.checked_frames`),
    and between them as the controller interpolates the points sent with ``interpolation``.
    """
    if motion.position is None or not limits:
        return
    problem = _undefined(motion)
    if problem is not None:
        raise problem
    judged = limits if isinstance(limits, JointLimits) else JointLimits(limits)
    frames = checked_frames(motion)
    uniform = None if frames.everything_uniform else frames.uniform
    found = limit_findings(
        frames.motion,
        judged,
        speed,
        uniform=uniform,
        own=frames.own,
        interpolation=interpolation,
        kinds=motion.interpolation,
    )
    if found:
        first = min(found, key=lambda f: f.start)
        raise LimitViolationError(refusal(first, judged, speed), first.joint or "")


__all__ = ["TOLERANCE", "LimitViolationError", "Sent", "check_limits", "limit_findings", "refusal", "sent_rates"]
