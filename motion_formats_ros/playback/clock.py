"""The playback clock: motion time as a function of elapsed time (speed, pause, seek, loops).

One clock for the whole package: the player node and the browser viewer both drive
:class:`PlaybackClock`, so that played time never goes backwards, whatever threads change
it and in whatever order.
"""

from __future__ import annotations

import math
import threading


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
        """The motion time of an unwrapped ``position``: held at the end, or wrapped into the loop."""
        t = self.start + position
        if self.loop is None:
            return min(t, self.end)
        ls, le = self.loop
        if t <= le:  # the loop's end is shown, then it starts again
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

    def set_loop(self, loop: tuple[float, float] | None, elapsed: float) -> None:
        """Loop ``loop`` (or play once) from ``elapsed`` on, continuing from the time shown then."""
        if loop is not None and not (self.start <= loop[0] < loop[1] <= self.end + 1e-9):
            raise ValueError(f"loop {loop} is not inside the played range [{self.start}, {self.end}]")
        with self._lock:
            self._reanchor(elapsed)
            self._anchor_position = self.wrap(self._anchor_position) - self.start
            self.loop = loop

    def seek(self, motion_time: float, elapsed: float) -> None:
        """Continue from ``motion_time`` (clamped to the played range)."""
        target = min(max(motion_time, self.start), self.end)
        with self._lock:
            self._reanchor(elapsed)
            self._anchor_position = target - self.start

    def restart(self, elapsed: float) -> None:
        self.seek(self.start, elapsed)
