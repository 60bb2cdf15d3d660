"""The stream's schedule: ticks on a drift-free grid, late ones skipped and counted."""

from __future__ import annotations

import itertools
import time

from motion_formats_ros.playback.schedule import Schedule


def test_schedule_does_not_drift_after_a_late_tick() -> None:
    s = Schedule(200.0)
    first = s.wait()
    time.sleep(0.0125)  # a late wake-up: 2.5 periods
    late = s.wait()
    assert (late - first) % s.period_ns == 0  # still on the grid
    assert s.skipped >= 1
    skipped = s.skipped
    ticks = [s.wait() for _ in range(20)]
    steps = [b - a for a, b in itertools.pairwise(ticks)]
    assert all(step > 0 and step % s.period_ns == 0 for step in steps)  # on the grid, however late
    # A loaded machine may wake late: each tick not one period after the last was counted skipped.
    assert sum(step // s.period_ns - 1 for step in steps) == s.skipped - skipped


def test_pace_says_the_rate_achieved_while_ticks_are_skipped_and_nothing_when_kept() -> None:
    from motion_formats_ros.playback.schedule import Pace

    period = 2_000_000  # 500 Hz
    pace = Pace(500.0, window=1.0)
    said = [pace.tick(k * period, 0) for k in range(1501)]  # 3 s on time
    assert not any(said)
    # Every third tick goes out (two skipped each time): 167 Hz achieved.
    said = [pace.tick(1500 * period + k * 3 * period, 2 * k) for k in range(1, 700)]
    rates = [r for r in said if r is not None]
    assert len(rates) == 4 and all(abs(r - 500 / 3) < 1 for r in rates), rates  # 4.2 s: one a second


def test_a_late_first_tick_goes_out_and_later_ones_are_skipped() -> None:
    """Setting up a stream on a loaded machine may take longer than a period: its first tick
    (the motion's first frame) still goes out, at its own scheduled time; then the grid goes on."""
    s = Schedule(200.0, start_ns=time.monotonic_ns() - 3 * 5_000_000)  # 3 periods late already
    assert s.upcoming() == s.start_ns and s.skipped == 0
    s.sleep_until(s.start_ns)
    assert s.upcoming() > s.start_ns + s.period_ns and s.skipped >= 2  # the missed ones after it
