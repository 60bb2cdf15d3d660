"""Playback logic shared by the player node, free of ROS so it is tested without DDS.

- :class:`PlaybackClock` maps elapsed time to motion time (speed factor, pause, seek,
  loops that repeat a segment) so that played time never goes backwards, whatever
  threads change it and in whatever order.
- :class:`FrameSampler` evaluates a motion at one time quickly (per-tick streaming).
- :func:`check_limits` refuses motions beyond position or velocity limits, or undefined.
- :class:`Schedule` is a drift-free periodic schedule on the monotonic clock.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping

import numpy as np
import numpy.typing as npt

from . import timing
from .errors import MotionFormatError
from .model import JointLimit as JointLimit  # its home is the model; imported from here too
from .model import Motion

FloatArray = npt.NDArray[np.float64]


class PlaybackClock:
    """Motion time as a function of elapsed (wall or ROS) time; safe to share between threads.

    Two quantities advance at ``speed`` motion seconds per elapsed second while playing:
    the *position* (unwrapped motion seconds since ``start``: what is shown, moved by
    :meth:`seek` and :meth:`restart`) and the *played* time (never moved back: what a
    published ``/clock`` follows). Every method takes one lock, and an elapsed time
    earlier than one already seen counts as that one, so callers on other threads that
    read their clock before taking their turn never make played time go back.

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
        self._lock = threading.RLock()
        self._latest = -math.inf  # the latest elapsed time seen
        self._anchor_elapsed = 0.0
        self._anchor_played = 0.0  # motion seconds played, never moved back
        self._anchor_position = 0.0  # unwrapped motion seconds since start (seek moves it)

    def _at(self, elapsed: float) -> float:
        self._latest = max(self._latest, elapsed)
        return self._latest

    def _advance(self, elapsed: float) -> float:
        return 0.0 if self.paused else (elapsed - self._anchor_elapsed) * self.speed

    def played(self, elapsed: float) -> float:
        """Motion seconds played at ``elapsed`` (monotonic: pauses stop it, seeks don't move it)."""
        with self._lock:
            return self._anchor_played + self._advance(self._at(elapsed))

    def position(self, elapsed: float) -> float:
        """Unwrapped motion seconds from ``start`` to what is shown at ``elapsed``."""
        with self._lock:
            return self._anchor_position + self._advance(self._at(elapsed))

    def motion_time(self, elapsed: float) -> float:
        """The motion time to show at ``elapsed``."""
        return self.wrap(self.position(elapsed))

    def state(self, elapsed: float) -> tuple[float, float, bool]:
        """(motion time, played, finished) at ``elapsed``, consistent with each other."""
        with self._lock:
            at = self._at(elapsed)
            position = self._anchor_position + self._advance(at)
            return (
                self.wrap(position),
                self._anchor_played + self._advance(at),
                self.loop is None and self.start + position >= self.end,
            )

    def wrap(self, position: float) -> float:
        t = self.start + position
        if self.loop is None:
            return min(t, self.end)
        ls, le = self.loop
        if t < le:
            return t
        return ls + math.fmod(t - ls, le - ls)

    def finished(self, elapsed: float) -> bool:
        """True once a non-looping motion has reached its end."""
        return self.state(elapsed)[2]

    def _reanchor(self, elapsed: float) -> None:
        at = self._at(elapsed)
        advance = self._advance(at)
        self._anchor_played += advance
        self._anchor_position += advance
        self._anchor_elapsed = at

    def pause(self, elapsed: float) -> None:
        with self._lock:
            self._reanchor(elapsed)
            self.paused = True

    def resume(self, elapsed: float) -> None:
        with self._lock:
            self._reanchor(elapsed)
            self.paused = False

    def rebase(self, elapsed: float) -> None:
        """Elapsed time restarts in a new base, ``elapsed`` being now; position and played stay.

        For a clock that waited paused (the player waits for subscribers before its time
        base starts): whatever it advanced since its last change is dropped.
        """
        with self._lock:
            self._anchor_elapsed = self._latest = elapsed

    def set_speed(self, speed: float, elapsed: float) -> None:
        if not speed > 0:
            raise ValueError(f"speed factor must be positive, got {speed}")
        with self._lock:
            self._reanchor(elapsed)
            self.speed = speed

    def seek(self, motion_time: float, elapsed: float) -> None:
        """Continue from ``motion_time`` (clamped to the played range)."""
        target = min(max(motion_time, self.start), self.end)
        with self._lock:
            self._reanchor(elapsed)
            self._anchor_position = target - self.start

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


class LimitViolationError(MotionFormatError, ValueError):
    """The motion exceeds a joint limit; the message names joint, time and value."""


def check_limits(motion: Motion, limits: Mapping[str, JointLimit], speed: float = 1.0, tolerance: float = 1e-6) -> None:
    """Raise :class:`LimitViolationError` at the first position or velocity beyond its limit.

    Velocities are the motion's own, or finite differences of positions, times ``speed``.
    A non-finite position or velocity of any joint is a violation too (NaN compares false
    with every limit, so it would pass otherwise): resolve them first (core.nonfinite).
    """
    if motion.position is None or not limits:
        return
    for label, channel in (("value", motion.position), ("velocity", motion.velocity)):
        if channel is None:
            continue
        bad = ~np.isfinite(channel)
        if bad.any():
            i, j = (int(v[0]) for v in np.nonzero(bad))
            name = motion.joint_names[int(np.searchsorted(np.cumsum(motion.joint_dims), j, side="right"))]
            kind = "NaN" if np.isnan(channel[i, j]) else "infinite"
            raise LimitViolationError(
                f"joint {name!r} has an undefined {label} ({kind}) at t = {motion.times[i]:.6g} s"
            )
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

    def __init__(
        self,
        rate: float,
        start_ns: int | None = None,
        spin: float = 3e-4,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be positive, got {rate}")
        self.sleep = sleep  # e.g. an Event's wait, so that a stop request cuts a long sleep short
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
            self.sleep((remaining - self.spin_ns) / 1e9)
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
