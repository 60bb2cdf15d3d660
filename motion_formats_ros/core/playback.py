"""Playback logic shared by the player node, free of ROS so it is tested without DDS.

- :class:`PlaybackClock` maps elapsed time to motion time (speed factor, pause, seek,
  loops that repeat a segment) so that stamps never go backwards when the motion wraps.
- :class:`FrameSampler` evaluates a motion at one time quickly (per-tick streaming).
- :func:`trajectory_plan` turns a motion into JointTrajectory points (approach point,
  keyframes or frames, derived velocities, final velocity zero) split into chunks.
- :func:`check_limits` refuses motions beyond position or velocity limits.
- :class:`Schedule` is a drift-free periodic schedule on the monotonic clock.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from . import timing
from .errors import MotionFormatError
from .model import Motion

FloatArray = npt.NDArray[np.float64]


class PlaybackClock:
    """Motion time as a function of elapsed (wall or ROS) time.

    Args:
        start: First motion time played.
        end: Last motion time played.
        loop: None (play once), or (loop_start, loop_end): after reaching loop_end the
            motion continues at loop_start, forever.
        speed: Speed factor (2.0 plays twice as fast).
    """

    def __init__(self, start: float, end: float, loop: tuple[float, float] | None = None, speed: float = 1.0) -> None:
        if end < start:
            raise ValueError(f"end time {end} is before start time {start}")
        if loop is not None and not (start <= loop[0] < loop[1] <= end + 1e-9):
            raise ValueError(f"loop {loop} is not inside the played range [{start}, {end}]")
        if not speed > 0:
            raise ValueError(f"speed factor must be positive, got {speed}")
        self.start = start
        self.end = end
        self.loop = loop
        self.speed = speed
        self.paused = False
        self._anchor_elapsed = 0.0
        self._anchor_played = 0.0  # motion seconds played since start, unwrapped

    def played(self, elapsed: float) -> float:
        """Unwrapped motion seconds played at ``elapsed`` (grows monotonically)."""
        if self.paused:
            return self._anchor_played
        return self._anchor_played + (elapsed - self._anchor_elapsed) * self.speed

    def motion_time(self, elapsed: float) -> float:
        """The motion time to show at ``elapsed``."""
        return self.wrap(self.played(elapsed))

    def wrap(self, played: float) -> float:
        t = self.start + played
        if self.loop is None:
            return min(t, self.end)
        ls, le = self.loop
        if t < le:
            return t
        return ls + math.fmod(t - ls, le - ls)

    def finished(self, elapsed: float) -> bool:
        """True once a non-looping motion has reached its end."""
        return self.loop is None and self.start + self.played(elapsed) >= self.end

    def _reanchor(self, elapsed: float) -> None:
        self._anchor_played = self.played(elapsed)
        self._anchor_elapsed = elapsed

    def pause(self, elapsed: float) -> None:
        self._reanchor(elapsed)
        self.paused = True

    def resume(self, elapsed: float) -> None:
        self._anchor_elapsed = elapsed
        self.paused = False

    def set_speed(self, speed: float, elapsed: float) -> None:
        if not speed > 0:
            raise ValueError(f"speed factor must be positive, got {speed}")
        self._reanchor(elapsed)
        self.speed = speed

    def seek(self, motion_time: float, elapsed: float) -> None:
        """Continue from ``motion_time`` (clamped to the played range)."""
        target = min(max(motion_time, self.start), self.end)
        self._anchor_played = target - self.start
        self._anchor_elapsed = elapsed

    def restart(self, elapsed: float) -> None:
        self.seek(self.start, elapsed)


class FrameSampler:
    """Evaluates the arrays of a motion at single times, fast enough for a 1 kHz stream."""

    def __init__(self, motion: Motion) -> None:
        if motion.num_frames == 0:
            raise ValueError("the motion has no frames")
        self.motion = motion
        self.times = motion.times
        self.interpolation = motion.interpolation

    def _where(self, t: float) -> timing.Location:
        return timing.locate(self.times, np.array([t]), self.interpolation)

    def values(self, array: np.ndarray, t: float, kind: str = "value") -> FloatArray:
        """``array`` (time first) at time ``t``."""
        return np.asarray(timing.interpolate(array, self._where(t), kind)[0], dtype=np.float64)

    def frame(self, t: float) -> dict[str, FloatArray]:
        """Every joint channel and the root pose at ``t`` (keys as Motion attributes)."""
        where = self._where(t)
        m = self.motion
        out: dict[str, FloatArray] = {}
        for name, arr in (
            ("position", m.position),
            ("velocity", m.velocity),
            ("effort", m.effort),
            ("root_position", m.root_position),
        ):
            if arr is not None:
                out[name] = timing.interpolate(arr, where)[0]
        if m.root_orientation is not None:
            out["root_orientation"] = timing.interpolate(m.root_orientation, where, "quaternion")[0]
        for key, arr in m.links.items():
            out[f"link.{key}"] = timing.interpolate(arr, where, "quaternion" if key == "orientation" else "value")[0]
        return out


@dataclasses.dataclass
class TrajectoryPlan:
    """JointTrajectory content: points relative to the trajectory start, and chunks.

    Attributes:
        joint_names: Names (multi-DOF joints expanded as ``name[i]`` is not supported by
            JointTrajectory, so such motions are refused earlier).
        time_from_start: (K,) seconds, strictly increasing, > 0.
        positions: (K, D).
        velocities, accelerations: (K, D) or None.
        chunks: (first, last) point index ranges (inclusive, exclusive), in order.
    """

    joint_names: tuple[str, ...]
    time_from_start: FloatArray
    positions: FloatArray
    velocities: FloatArray | None
    accelerations: FloatArray | None
    chunks: list[tuple[int, int]]

    @property
    def duration(self) -> float:
        return float(self.time_from_start[-1]) if self.time_from_start.size else 0.0


#: Spacing (s) of the points that trace a cosine-eased keyframe segment.
COSINE_POINT_SPACING = 0.02


def _keyframe_points(m: Motion) -> tuple[FloatArray, FloatArray]:
    """Keyframe times/positions with an extra hold point before each step's jump (and
    points along each cosine-eased segment, which the controller would otherwise play
    as a straight line)."""
    assert m.position is not None and m.interpolation is not None
    times = [m.times[0]]
    rows = [m.position[0]]
    for i, kind in enumerate(m.interpolation):
        t0, t1 = m.times[i], m.times[i + 1]
        if kind == "step":
            hold = t1 - min(1e-3, (t1 - t0) / 2)
            times.append(hold)
            rows.append(m.position[i])
        elif kind == "cosine":
            n = max(4, int(np.ceil((t1 - t0) / COSINE_POINT_SPACING)))
            for r in np.arange(1, n) / n:
                times.append(t0 + (t1 - t0) * r)
                rows.append(m.position[i] + (m.position[i + 1] - m.position[i]) * (1 - np.cos(np.pi * r)) / 2)
        times.append(t1)
        rows.append(m.position[i + 1])
    return np.asarray(times), np.asarray(rows)


def trajectory_plan(
    motion: Motion,
    *,
    start: float | None = None,
    end: float | None = None,
    speed: float = 1.0,
    approach_time: float = 1.0,
    derive: bool = False,
    chunk_duration: float = 0.0,
) -> TrajectoryPlan:
    """The points a joint_trajectory_controller needs to play ``motion``.

    Keyframed motions give their keyframes (the controller interpolates; step segments
    get a hold point just before the jump); dense motions give their frames. The first
    point is the first frame at ``approach_time`` (the controller moves there from
    wherever the robot is). Velocities come from the motion, or from finite differences
    when ``derive``; the last velocity is zero.
    """
    if motion.position is None:
        raise ValueError("the motion has no joint positions to send")
    if any(d != 1 for d in motion.joint_dims):
        raise ValueError("JointTrajectory carries one value per joint; the motion has multi-DOF joints")
    if not speed > 0:
        raise ValueError(f"speed factor must be positive, got {speed}")
    m = motion.slice_time(start, end) if (start is not None or end is not None) else motion
    if m.num_frames == 0:
        raise ValueError(f"no frames between {start} and {end} s")
    velocities: FloatArray | None = None
    if m.is_keyframed:
        times, positions = _keyframe_points(m)
    else:
        assert m.position is not None
        times, positions = m.times, m.position
        velocities = m.velocity
    rel = (times - times[0]) / speed + approach_time
    if velocities is not None:
        velocities = velocities * speed
    accelerations = m.acceleration * speed**2 if (m.acceleration is not None and not m.is_keyframed) else None
    if rel[0] <= 0.0:  # no approach: the first point may not be at t = 0 for every controller
        rel = rel + 1e-3
    if derive and rel.size > 1:
        if velocities is None:
            velocities = np.asarray(np.gradient(positions, rel, axis=0))
        if accelerations is None:
            accelerations = np.asarray(np.gradient(velocities, rel, axis=0))
    if velocities is not None:
        velocities = velocities.copy()
        velocities[-1] = 0.0
        velocities[0] = 0.0 if approach_time > 0 else velocities[0]
    if accelerations is not None:
        accelerations = accelerations.copy()
        accelerations[-1] = 0.0
    chunks = _chunks(rel, chunk_duration)
    return TrajectoryPlan(m.joint_names, rel, np.asarray(positions), velocities, accelerations, chunks)


def _chunks(rel: FloatArray, chunk_duration: float) -> list[tuple[int, int]]:
    if chunk_duration <= 0 or rel[-1] <= chunk_duration:
        return [(0, rel.size)]
    edges = np.arange(chunk_duration, rel[-1], chunk_duration)
    cuts = np.searchsorted(rel, edges, side="left")
    bounds = [0, *sorted({int(c) for c in cuts if 0 < c < rel.size}), rel.size]
    return list(itertools.pairwise(bounds))


@dataclasses.dataclass(frozen=True)
class JointLimit:
    """Limits of one joint (None = unlimited)."""

    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None


class LimitViolationError(MotionFormatError, ValueError):
    """The motion exceeds a joint limit; the message names joint, time and value."""


def check_limits(motion: Motion, limits: Mapping[str, JointLimit], speed: float = 1.0, tolerance: float = 1e-6) -> None:
    """Raise :class:`LimitViolationError` at the first position or velocity beyond its limit.

    Velocities are the motion's own, or finite differences of positions, times ``speed``.
    """
    if motion.position is None or not limits:
        return
    velocity = motion.velocity
    if velocity is None and motion.num_frames > 1:
        velocity = np.asarray(np.gradient(motion.position, motion.times, axis=0))
    for name in motion.joint_names:
        limit = limits.get(name)
        if limit is None:
            continue
        cols = motion.joint_columns(name)
        q = motion.position[:, cols]
        if limit.lower is not None:
            bad = np.flatnonzero(np.any(q < limit.lower - tolerance, axis=1))
            if bad.size:
                i = int(bad[0])
                raise LimitViolationError(
                    f"joint {name!r} below its lower limit {limit.lower:g} at t = {motion.times[i]:.6g} s "
                    f"(value {float(q[i].min()):.6g})"
                )
        if limit.upper is not None:
            bad = np.flatnonzero(np.any(q > limit.upper + tolerance, axis=1))
            if bad.size:
                i = int(bad[0])
                raise LimitViolationError(
                    f"joint {name!r} above its upper limit {limit.upper:g} at t = {motion.times[i]:.6g} s "
                    f"(value {float(q[i].max()):.6g})"
                )
        if limit.velocity is not None and velocity is not None:
            v = np.abs(velocity[:, cols]) * speed
            bad = np.flatnonzero(np.any(v > limit.velocity * (1 + tolerance), axis=1))
            if bad.size:
                i = int(bad[0])
                raise LimitViolationError(
                    f"joint {name!r} faster than its velocity limit {limit.velocity:g} rad/s at "
                    f"t = {motion.times[i]:.6g} s (speed {float(v[i].max()):.6g} at playback rate {speed:g})"
                )


class Schedule:
    """Ticks at ``start + k / rate`` on the monotonic clock: no drift, late ticks don't shift.

    :meth:`wait` sleeps until the next tick (coarse sleep, then a short spin for the
    last ``spin`` seconds) and returns the tick's scheduled time; ticks that are already
    past when a late wake-up happens are skipped (counted in ``skipped``). To publish
    exactly on time, prepare a tick's messages after :meth:`upcoming` and publish them
    after :meth:`sleep_until`.
    """

    def __init__(self, rate: float, start_ns: int | None = None, spin: float = 3e-4) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be positive, got {rate}")
        self.period_ns = round(1e9 / rate)
        self.start_ns = time.monotonic_ns() if start_ns is None else start_ns
        self.spin_ns = int(spin * 1e9)
        self.index = 0
        self.skipped = 0

    def next_deadline(self) -> int:
        return self.start_ns + self.index * self.period_ns

    def upcoming(self) -> int:
        """The next tick still ahead (ticks already missed are skipped and counted)."""
        deadline = self.next_deadline()
        late = time.monotonic_ns() - deadline
        if late >= self.period_ns:
            missed = late // self.period_ns
            self.index += int(missed)
            self.skipped += int(missed)
            deadline = self.next_deadline()
        return deadline

    def sleep_until(self, deadline: int) -> None:
        """Sleep until ``deadline`` (coarse sleep, then spin the last stretch); next tick after it."""
        remaining = deadline - time.monotonic_ns()
        if remaining > self.spin_ns:
            time.sleep((remaining - self.spin_ns) / 1e9)
        while time.monotonic_ns() < deadline:
            pass
        self.index = (deadline - self.start_ns) // self.period_ns + 1

    def wait(self) -> int:
        """Sleep until the next tick; returns its scheduled monotonic time in ns."""
        deadline = self.upcoming()
        self.sleep_until(deadline)
        return deadline


class Lateness:
    """How late ticks were published (ns after their scheduled time), over the last ``size``."""

    def __init__(self, size: int = 1 << 16) -> None:
        self.values = np.zeros(size, dtype=np.int64)
        self.count = 0

    def add(self, late_ns: int) -> None:
        self.values[self.count % self.values.size] = late_ns
        self.count += 1

    def summary(self) -> str:
        if self.count == 0:
            return "no ticks timed"
        v = self.values[: min(self.count, self.values.size)] / 1e6
        p50, p99 = np.percentile(v, [50, 99])
        return f"publish lateness over {v.size} ticks: p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {v.max():.3f} ms"
