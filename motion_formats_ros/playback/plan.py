"""JointTrajectory content that joint_trajectory_controller executes as the file says.

ros2_control's joint_trajectory_controller (JTC) replaces its running trajectory with
every message it receives, so a motion goes out as **one** message however long, and
JTC interpolates between consecutive points by the fields they carry:

- positions only: linear;
- positions and velocities: cubic Hermite (position and velocity at both ends);
- positions, velocities and accelerations: quintic Hermite.

:func:`plan_trajectory` chooses the fields, then keeps the fewest frames it can (a
greedy farthest reach from each kept frame) such that that interpolation of what is sent
reproduces **every** frame of the file within a tolerance; :func:`evaluate` is the
interpolation, :func:`reduce` the reduction. Velocities are the file's, or derived from
its positions so that no cubic segment overshoots its frames
(:func:`..core.hermite.shape_preserving_velocities`); a kept segment never reaches beyond
what the interpolation through every frame reaches between its ends, which is what the
limit check judges. Keyframed motions (``.mof``, ``.mtn``,
``.pseq``) keep their keyframes and go out linear, which is their own interpolation; a
``step`` segment (hold, then jump) and a ``next`` segment (jump, then hold) become two
points a millisecond apart.

Times are whole nanoseconds, as ``builtin_interfaces/Duration`` carries them, and the
reduction checks the interpolation at exactly those times.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from ..core import timing
from ..core.hermite import JUMP, cubic_turn_range, hermite, segment_extremes, shape_preserving_velocities
from ..core.memory import require_room
from ..core.model import Motion
from ..core.options import ChoiceEnum

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: JTC's interpolation rules, by the fields every point carries.
RULES = ("linear", "cubic", "quintic")


class Interpolation(ChoiceEnum):
    """The ``interpolation`` of :func:`plan_trajectory`: ``auto``, or one of :data:`RULES`."""

    AUTO = "auto"
    LINEAR = "linear"
    CUBIC = "cubic"
    QUINTIC = "quintic"


#: ``interpolation`` choices of :func:`plan_trajectory`.
CHOICES = Interpolation.values()
#: Seconds (of motion time) between the points that trace a cosine-eased keyframe segment,
#: which the controller would otherwise play as a straight line.
COSINE_POINT_SPACING = 0.02
#: When the approach time is 0, the first point still comes this long after the start.
FIRST_POINT = 1e-3
#: The latest time from start a point can have (s): a ROS Duration's seconds are an int32.
LATEST_POINT = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class Deviation:
    """The largest distance of the controller's interpolation from a frame of the file."""

    value: float
    joint: str
    time: float  # motion time of the frame (s)


@dataclasses.dataclass
class TrajectoryPlan:
    """What one JointTrajectory carries, and how well it matches the file.

    Attributes:
        joint_names: One name per column.
        time_from_start_ns: (K,) strictly increasing integer nanoseconds.
        positions: (K, D).
        velocities, accelerations: (K, D), or None when the rule does not send them.
        rule: ``linear``, ``cubic`` or ``quintic`` (what JTC does with these fields).
        frames: Frames of the file (or of the played slice) the points stand for.
        tolerance: The bound the reduction kept (rad or m).
        deviation: The largest deviation of ``rule`` over the sent points from any frame.
        notes: Things worth telling the user (choices made for them).
    """

    joint_names: tuple[str, ...]
    time_from_start_ns: IntArray
    positions: FloatArray
    velocities: FloatArray | None
    accelerations: FloatArray | None
    rule: str
    frames: int
    tolerance: float
    deviation: Deviation
    notes: tuple[str, ...] = ()

    @property
    def time_from_start(self) -> FloatArray:
        return self.time_from_start_ns / 1e9

    @property
    def points(self) -> int:
        return int(self.time_from_start_ns.size)

    @property
    def duration(self) -> float:
        return float(self.time_from_start_ns[-1]) / 1e9 if self.time_from_start_ns.size else 0.0

    @property
    def fields(self) -> tuple[str, ...]:
        return (
            ("positions",)
            + (("velocities",) if self.velocities is not None else ())
            + (("accelerations",) if self.accelerations is not None else ())
        )


@dataclasses.dataclass(frozen=True)
class Reduction:
    """Frames kept by :func:`reduce` and the largest deviation over all frames."""

    indices: npt.NDArray[np.intp]
    deviation: float
    frame: int
    column: int


# --------------------------------------------------------------------------- interpolation
def evaluate(
    times: npt.ArrayLike,
    positions: FloatArray,
    velocities: FloatArray | None,
    accelerations: FloatArray | None,
    query: npt.ArrayLike,
) -> FloatArray:
    """Positions (Q, D) that JTC's rule for the given fields produces at ``query`` times.

    ``times`` and ``query`` are seconds. Before the first point the first is held, after
    the last the last (JTC itself starts from the robot's state before the first point).
    """
    t = np.asarray(times, dtype=np.float64)
    q = np.asarray(query, dtype=np.float64)
    if t.size == 1:
        return np.repeat(positions[:1], q.size, axis=0)
    if accelerations is not None and velocities is None:
        raise ValueError("accelerations without velocities: JTC would interpolate linearly")
    i = np.clip(np.searchsorted(t, q, side="right") - 1, 0, t.size - 2)
    span = (t[i + 1] - t[i])[:, None]
    u = np.clip((q - t[i])[:, None] / span, 0.0, 1.0)
    v0 = velocities[i] if velocities is not None else None
    v1 = velocities[i + 1] if velocities is not None else None
    a0 = accelerations[i] if accelerations is not None else None
    a1 = accelerations[i + 1] if accelerations is not None else None
    return hermite(u, span, positions[i], positions[i + 1], v0, v1, a0, a1)


# --------------------------------------------------------------------------- reduction
#: How far (rad or m) a kept segment may reach beyond what the interpolation through every
#: frame reaches over the frames it spans (floating-point rounding, far below the limits' slack).
REACH_SLACK = 1e-9


def _reach(
    t: FloatArray, positions: FloatArray, velocities: FloatArray | None, accelerations: FloatArray | None
) -> Callable[[int, int], bool]:
    """Whether the interpolation from frame i straight to frame j reaches beyond the values the
    interpolation through every frame reaches between them (``False`` for a straight line, which
    never does). A longer segment with the same end velocities can overshoot where every frame
    between is met: the motion check judges the interpolation through every frame, so what is
    sent stays within it."""
    if velocities is None:
        return lambda i, j: False
    with np.errstate(over="ignore", invalid="ignore"):
        _, high, _, low = segment_extremes(t, positions, velocities, accelerations)
        ends_high = np.maximum(positions[:-1], positions[1:])
        ends_low = np.minimum(positions[:-1], positions[1:])
    high = np.fmax(high, ends_high)  # (N-1, D): each frame segment's highest value, ends included
    low = np.fmin(low, ends_low)

    def beyond(i: int, j: int) -> bool:
        if accelerations is None:
            top, bottom = cubic_turn_range(float(t[j] - t[i]), positions[i], positions[j], velocities[i], velocities[j])
        else:
            pick = [i, j]
            _, tops, _, bottoms = segment_extremes(t[pick], positions[pick], velocities[pick], accelerations[pick])
            top, bottom = tops[0], bottoms[0]
        with np.errstate(invalid="ignore"):
            over = top > high[i:j].max(axis=0) + REACH_SLACK
            under = bottom < low[i:j].min(axis=0) - REACH_SLACK
        return bool(over.any() or under.any())

    return beyond


def _stops(n: int, keep: npt.ArrayLike | None) -> npt.NDArray[np.intp]:
    """The frames every reduction of ``n`` frames keeps: the first, the last and ``keep``."""
    forced = np.zeros(n, dtype=bool)
    if keep is not None:
        k = np.asarray(keep)
        if k.dtype == bool:
            forced |= k
        else:
            forced[k.astype(np.intp)] = True
    forced[0] = forced[-1] = True
    return np.flatnonzero(forced)


def reduce(
    times: npt.ArrayLike,
    positions: FloatArray,
    velocities: FloatArray | None = None,
    accelerations: FloatArray | None = None,
    tolerance: float = 1e-3,
    keep: npt.ArrayLike | None = None,
) -> Reduction:
    """The frames to send so that JTC's interpolation stays within ``tolerance`` of every frame.

    From each kept frame the reduction reaches as far as it can: it tries the length of the
    previous segment, doubles it while the whole segment stays within the tolerance, then
    bisects. Every accepted segment has been checked at every frame it spans, so the bound
    holds whatever the data (a segment between neighbouring frames spans none). Frames in
    ``keep`` (indices or a boolean mask) are always sent.

    Args:
        times: (N,) seconds, strictly increasing (the times the points will carry).
        positions: (N, D) values at those times.
        velocities: (N, D) velocities to send, or None (linear).
        accelerations: (N, D) accelerations to send (needs velocities), or None.
        tolerance: Largest allowed absolute difference between the interpolation and a frame (rad or m).
        keep: Frames that must be points.
    """
    t = np.asarray(times, dtype=np.float64)
    n = t.size
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance}")
    if accelerations is not None and velocities is None:
        raise ValueError("accelerations without velocities: JTC would interpolate linearly")
    if n <= 2:
        return Reduction(np.arange(n, dtype=np.intp), 0.0, 0, 0)
    stops = _stops(n, keep)
    beyond = _reach(t, positions, velocities, accelerations)

    def error(i: int, j: int) -> tuple[float, int, int]:
        """Largest deviation on the frames strictly inside segment i..j (value, frame, column);
        infinite where the segment reaches beyond the interpolation through every frame."""
        if j - i < 2:
            return 0.0, i, 0
        inner = slice(i + 1, j)
        span = t[j] - t[i]
        u = ((t[inner] - t[i]) / span)[:, None]
        with np.errstate(over="ignore", invalid="ignore"):  # values near ±1e308: inf, the segment too long
            est = hermite(
                u,
                float(span),
                positions[i],
                positions[j],
                None if velocities is None else velocities[i],
                None if velocities is None else velocities[j],
                None if accelerations is None else accelerations[i],
                None if accelerations is None else accelerations[j],
            )
            diff = np.abs(est - positions[inner])
        flat = int(np.argmax(diff))
        row, col = divmod(flat, diff.shape[1]) if diff.shape[1] else (0, 0)
        value = float(diff.flat[flat]) if diff.size else 0.0
        if not math.isfinite(value) or (value <= tolerance and beyond(i, j)):
            value = math.inf
        return value, i + 1 + row, col

    kept = [0]
    worst = (0.0, 0, 0)
    guess = 4
    i = 0
    while i < n - 1:
        limit = int(stops[np.searchsorted(stops, i, side="right")])  # the next forced frame
        j = min(i + guess, limit)
        best = error(i, j)
        if best[0] <= tolerance:
            good, bad = j, None
            while good < limit:
                cand = min(i + 2 * (good - i), limit)
                e = error(i, cand)
                if e[0] <= tolerance:
                    good, best = cand, e
                else:
                    bad = cand
                    break
        else:
            good, bad = i + 1, j
            best = (0.0, i, 0)
        while bad is not None and bad - good > 1:
            mid = (good + bad) // 2
            e = error(i, mid)
            if e[0] <= tolerance:
                good, best = mid, e
            else:
                bad = mid
        if best[0] > worst[0]:
            worst = best
        kept.append(good)
        guess = max(good - i, 2)
        i = good
    return Reduction(np.asarray(kept, dtype=np.intp), worst[0], worst[1], worst[2])


# --------------------------------------------------------------------------- plans
def plan_trajectory(
    motion: Motion,
    *,
    start: float | None = None,
    end: float | None = None,
    speed: float = 1.0,
    approach_time: float = 1.0,
    interpolation: str = "auto",
    tolerance: float = 1e-3,
) -> TrajectoryPlan:
    """The points of the one JointTrajectory that plays ``motion`` (or its start..end slice).

    The first point (the first frame of the slice) is at ``approach_time``: JTC moves there
    from wherever the robot is. Times are divided by ``speed``, velocities multiplied by it
    (accelerations by its square). The last point has zero velocity and acceleration, as JTC
    requires unless told otherwise.

    Args:
        motion: A motion whose position channel is finite (see ``core.nonfinite``).
        start, end: Motion times of the slice (None: the motion's own ends).
        speed: Speed factor.
        approach_time: Seconds to reach the first point.
        interpolation: ``auto`` (keyframed: linear; frames: cubic), ``linear``, ``cubic`` or
            ``quintic``: which fields go out, hence how JTC interpolates.
        tolerance: Largest deviation from any frame (rad or m) for dense motions.
    """
    if motion.position is None:
        raise ValueError("the motion has no joint positions to send")
    if any(d != 1 for d in motion.joint_dims):
        raise ValueError("JointTrajectory carries one value per joint; the motion has multi-DOF joints")
    if not (speed > 0 and math.isfinite(speed)):
        raise ValueError(f"speed factor must be positive, got {speed}")
    if interpolation not in CHOICES:
        raise ValueError(f"interpolation must be one of {', '.join(CHOICES)}, got {interpolation!r}")
    if not (tolerance >= 0 and math.isfinite(tolerance)):
        raise ValueError(f"trajectory tolerance must be a number >= 0, got {tolerance}")
    if not np.all(np.isfinite(motion.position)):
        raise ValueError("the motion has non-finite positions; resolve them first (core.nonfinite)")
    window = played_window(motion, start, end, speed)
    if window.is_keyframed:
        notes: tuple[str, ...] = ()
        if interpolation in ("cubic", "quintic"):
            notes = (
                f"keyframes go out with linear interpolation, the file's own, not {interpolation} "
                "(extra fields would change the segments between keyframes)",
            )
        return _keyframe_plan(window, speed, approach_time, notes)
    rule = "cubic" if interpolation == "auto" else interpolation
    return _dense_plan(window, speed, approach_time, rule, tolerance)


#: Seconds of trajectory time within which a cut time is the frame there: points carry whole
#: nanoseconds, so a cut closer to a frame than that (a time written as 0.30000000000000004)
#: would make a second point at the frame's nanosecond.
SNAP = 1e-9


def _snapped(t: FloatArray, at: float, within: float) -> float:
    """``at``, or the frame of ``t`` within ``within`` s of it."""
    k = int(np.clip(np.searchsorted(t, at), 1, max(t.size - 1, 1)))
    for frame in (float(t[k - 1]), float(t[min(k, t.size - 1)])):
        if abs(frame - at) <= within:
            return frame
    return at


def played_window(motion: Motion, start: float | None = None, end: float | None = None, speed: float = 1.0) -> Motion:
    """The motion between ``start`` and ``end`` with exact values at both (interpolated): what
    :func:`plan_trajectory` sends, and what the player's limit check judges.

    A cut within :data:`SNAP` s of trajectory time (``SNAP * speed`` of motion time) of a frame
    is that frame. The motion itself when the window holds all of it.
    """
    t = motion.times
    within = SNAP * max(speed, 1.0)
    lo = t[0] if start is None else max(_snapped(t, float(start), within), float(t[0]))
    hi = t[-1] if end is None else min(_snapped(t, float(end), within), float(t[-1]))
    if hi < lo:
        raise ValueError(f"no frames between {start} and {end} s")
    if lo == t[0] and hi == t[-1]:
        return motion
    inside = np.flatnonzero((t > lo) & (t < hi))
    first = int(np.searchsorted(t, lo, side="right")) - 1  # segment holding lo
    cut_times = np.concatenate([[lo], t[inside], [hi]]) if hi > lo else np.array([lo])
    where = timing.locate(t, cut_times, motion.interpolation)

    def cut(a: FloatArray | None) -> FloatArray | None:
        return None if a is None else np.asarray(timing.interpolate(a, where))

    interp = None
    if motion.interpolation is not None and cut_times.size > 1:
        kinds = motion.interpolation
        seg = [min(max(first, 0), len(kinds) - 1), *(min(int(k), len(kinds) - 1) for k in inside)]
        interp = tuple(kinds[s] for s in seg)
    return Motion(
        times=cut_times,
        joint_names=motion.joint_names,
        joint_dims=motion.joint_dims,
        position=cut(motion.position),
        velocity=cut(motion.velocity),
        acceleration=cut(motion.acceleration),
        interpolation=interp if motion.interpolation is not None else None,
        rate=None,
    )


def _relative_ns(times: FloatArray, t0: float, speed: float, approach_time: float) -> IntArray:
    last = (float(times[-1]) - t0) / speed + max(approach_time, 0.0)  # Python floats: inf, not a warning
    if not last <= LATEST_POINT:
        raise ValueError(
            f"the motion's last frame comes {last:g} s from the start at speed {speed:g}: a trajectory point "
            f"comes at most {LATEST_POINT:,} s from it (a ROS Duration's int32 seconds)"
        )
    rel = (times - t0) / speed + max(approach_time, 0.0)
    if approach_time <= 0:  # the first point is not at 0 (some controllers refuse that)
        rel = rel + FIRST_POINT
    ns = np.round(rel * 1e9).astype(np.int64)
    if ns.size > 1 and np.any(np.diff(ns) <= 0):
        raise ValueError("frames closer than a nanosecond at this speed cannot be sent as points")
    return ns


def _finite_rates(values: FloatArray, what: str, of: str) -> None:
    """Refuse derived rates beyond the float range (neighbouring values near ±1e308): a point
    never carries a non-finite value."""
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{what} derived from the {of} go beyond the float range (values near ±1e308)")


def _dense_plan(m: Motion, speed: float, approach_time: float, rule: str, tolerance: float) -> TrajectoryPlan:
    assert m.position is not None
    q = m.position
    ns = _relative_ns(m.times, float(m.times[0]), speed, approach_time)
    rel = ns / 1e9
    notes: list[str] = []
    velocities = accelerations = None
    if rule in ("cubic", "quintic"):
        if m.velocity is not None and np.all(np.isfinite(m.velocity)):
            velocities = m.velocity * speed
        else:
            velocities = shape_preserving_velocities(q, rel)
            notes.append("velocities derived from the positions (the file has none), shape-preserving")
            _finite_rates(velocities, "velocities", "positions")
        velocities = velocities.copy()
        velocities[-1] = 0.0
    if rule == "quintic":
        assert velocities is not None
        if m.acceleration is not None and np.all(np.isfinite(m.acceleration)):
            accelerations = m.acceleration * speed**2
        else:
            accelerations = timing.derivative(velocities, rel)
            notes.append("accelerations derived from the velocities")
            _finite_rates(accelerations, "accelerations", "velocities")
        accelerations = accelerations.copy()
        accelerations[-1] = 0.0
    reduction = reduce(rel, q, velocities, accelerations, tolerance)
    idx = reduction.indices
    deviation = Deviation(
        reduction.deviation, m.joint_names[reduction.column] if m.joint_names else "", float(m.times[reduction.frame])
    )
    return TrajectoryPlan(
        joint_names=m.joint_names,
        time_from_start_ns=ns[idx],
        positions=np.ascontiguousarray(q[idx]),
        velocities=None if velocities is None else np.ascontiguousarray(velocities[idx]),
        accelerations=None if accelerations is None else np.ascontiguousarray(accelerations[idx]),
        rule=rule,
        frames=m.num_frames,
        tolerance=tolerance,
        deviation=deviation,
        notes=tuple(notes),
    )


def _keyframe_plan(m: Motion, speed: float, approach_time: float, notes: tuple[str, ...]) -> TrajectoryPlan:
    """Keyframes as points; step and next segments get a second point ``JUMP`` s from the jump,
    cosine-eased segments a point every :data:`COSINE_POINT_SPACING` s along the easing."""
    assert m.position is not None and m.interpolation is not None
    ns = _relative_ns(m.times, float(m.times[0]), speed, approach_time)
    jump = round(JUMP * 1e9)
    times: list[int] = [int(ns[0])]
    rows: list[FloatArray] = [m.position[0]]
    for k, kind in enumerate(m.interpolation):
        t0, t1 = int(ns[k]), int(ns[k + 1])
        gap = min(jump, (t1 - t0) // 2)
        if kind == "step" and gap > 0:
            times.append(t1 - gap)
            rows.append(m.position[k])
        elif kind == "next" and gap > 0:
            times.append(t0 + gap)
            rows.append(m.position[k + 1])
        elif kind == "cosine":
            a, b = m.position[k], m.position[k + 1]
            n = max(4, int(np.ceil((m.times[k + 1] - m.times[k]) / COSINE_POINT_SPACING)))
            for r in np.arange(1, n) / n:
                times.append(t0 + round((t1 - t0) * r))
                rows.append(a + (b - a) * (1 - np.cos(np.pi * r)) / 2)
        times.append(t1)
        rows.append(m.position[k + 1])
    points_ns = np.asarray(times, dtype=np.int64)
    positions = np.asarray(rows, dtype=np.float64).reshape(len(rows), m.dof)
    # The file's frames are its keyframes: check the linear interpolation there.
    at = evaluate(points_ns / 1e9, positions, None, None, ns / 1e9)
    diff = np.abs(at - m.position)
    flat = int(np.argmax(diff)) if diff.size else 0
    row, col = divmod(flat, diff.shape[1]) if diff.size else (0, 0)
    deviation = Deviation(
        float(diff.flat[flat]) if diff.size else 0.0, m.joint_names[col] if m.joint_names else "", float(m.times[row])
    )
    return TrajectoryPlan(
        joint_names=m.joint_names,
        time_from_start_ns=points_ns,
        positions=positions,
        velocities=None,
        accelerations=None,
        rule="linear",
        frames=m.num_frames,
        tolerance=0.0,
        deviation=deviation,
        notes=notes,
    )


def split_chunks(plan: TrajectoryPlan, chunk_duration: float) -> list[tuple[int, int]]:
    """(first, last) point ranges of about ``chunk_duration`` s each (for controllers that queue).

    A chunk starts at the first point at or after each multiple of ``chunk_duration`` that
    comes before the end; no list of those multiples is made, so the memory is the points'
    whatever the duration, and a chunk holds at least one point.
    """
    rel = plan.time_from_start
    if chunk_duration <= 0 or rel.size == 0 or rel[-1] <= chunk_duration:
        return [(0, rel.size)]
    # How many multiples m·chunk_duration (m ≥ 1, before the end) each point has reached.
    reached = np.minimum(np.floor(rel / chunk_duration), math.ceil(rel[-1] / chunk_duration) - 1)
    cuts = np.flatnonzero(np.diff(reached) > 0) + 1
    bounds = [0, *cuts.tolist(), rel.size]
    return list(itertools.pairwise(bounds))


#: Bytes a JointTrajectory message holds besides its points, and a point besides its values
#: (Python objects; measured with rclpy's message classes, rounded up).
MESSAGE_BYTES = 1600
POINT_BYTES = 700


def chunk_count(plan: TrajectoryPlan, chunk_duration: float) -> int:
    """How many messages ``chunk_duration`` makes of ``plan`` at most (without splitting it)."""
    if chunk_duration <= 0 or plan.points == 0:
        return 1
    return max(1, min(plan.points, math.ceil(plan.duration / chunk_duration)))


def check_message_room(plan: TrajectoryPlan, chunk_duration: float) -> None:
    """Refuse, before any message is made, a trajectory whose messages this process cannot hold.

    Each message holds the joint names and its points; each point a value per joint for
    each field sent (held twice while a message is filled).

    Raises:
        OutOfRangeError: One line naming ``chunk_duration``, the messages and the size they need.
    """
    joints = len(plan.joint_names)
    messages = chunk_count(plan, chunk_duration)
    needed = messages * (MESSAGE_BYTES + 16 * joints) + plan.points * (POINT_BYTES + 16 * joints * len(plan.fields))
    require_room(
        f"chunk_duration {chunk_duration:g} s: {messages:,} message(s) of {joints:,} joints, {plan.points:,} points",
        needed,
    )


def approach_speeds(plan: TrajectoryPlan, current: Mapping[str, float]) -> dict[str, float]:
    """Peak speed of each joint on JTC's way from ``current`` (at rest) to the first point.

    JTC interpolates from the robot's state to the first point with the same rule as
    between points; at rest means zero velocity and acceleration at the start.
    """
    if plan.points == 0:
        return {}
    span = plan.time_from_start_ns[0] / 1e9
    out: dict[str, float] = {}
    names = [n for n in plan.joint_names if n in current]
    if not names or span <= 0:
        return out
    column = {name: j for j, name in enumerate(plan.joint_names)}
    cols = [column[n] for n in names]
    p0 = np.array([current[n] for n in names])
    p1 = plan.positions[0, cols]
    v1 = None if plan.velocities is None else plan.velocities[0, cols]
    a1 = None if plan.accelerations is None else plan.accelerations[0, cols]
    zeros = np.zeros_like(p0)
    u = np.linspace(0.0, 1.0, 401)[:, None]
    path = hermite(
        u,
        float(span),
        p0,
        p1,
        None if v1 is None else zeros,
        v1,
        None if a1 is None else zeros,
        a1,
    )
    speed = np.abs(np.diff(path, axis=0)).max(axis=0) / (span / 400)
    return {n: float(s) for n, s in zip(names, speed, strict=True)}
