"""When ticks go out: a drift-free periodic schedule on the monotonic clock, and how late they were."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np


class Schedule:
    """Ticks at ``start + k / rate`` on the monotonic clock: no drift, late ticks don't shift.

    :meth:`wait` sleeps until the next tick (coarse sleep, then a short spin for the
    last ``spin`` seconds) and returns the tick's scheduled time; ticks that are already
    past when a late wake-up happens are skipped (counted in ``skipped``), but for the first,
    which goes out late rather than not at all. To publish
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
        """The next tick still ahead (ticks already missed are skipped and counted).

        The first tick is never skipped, however late: it is the motion's first frame, which
        a reader of the stream (a recorder) must get, at its own time.
        """
        deadline = self.next_deadline()
        late = time.monotonic_ns() - deadline
        if late >= self.period_ns and self.index > 0:
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


class Pace:
    """Whether a stream keeps its rate: the rate achieved over windows of ``window`` seconds.

    :meth:`tick` is told each published tick's scheduled time and how many ticks the
    schedule has skipped in all; at the end of each window it returns the rate achieved
    in it when that is below ``keep`` of the wanted rate (else None): what a throttled
    warning says while the stream falls behind.
    """

    def __init__(self, rate: float, window: float = 5.0, keep: float = 0.95) -> None:
        if not rate > 0:
            raise ValueError(f"rate must be positive, got {rate}")
        self.rate = rate
        self.window_ns = round(window * 1e9)
        self.keep = keep
        self._start: int | None = None
        self._published = 0
        self._skipped = 0

    def tick(self, tick_ns: int, skipped: int) -> float | None:
        """A tick went out at ``tick_ns`` (``skipped``: ticks skipped so far); the rate achieved, if behind."""
        if self._start is None:
            self._start, self._skipped = tick_ns, skipped
            return None
        self._published += 1
        span = tick_ns - self._start
        if span < self.window_ns:
            return None
        achieved = self._published / (span / 1e9)
        behind = skipped > self._skipped and achieved < self.rate * self.keep
        self._start, self._published, self._skipped = tick_ns, 0, skipped
        return achieved if behind else None
