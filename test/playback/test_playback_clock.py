"""The one playback clock (player and viewer): speed, pause, seek, loops, played time that never goes back."""

from __future__ import annotations

import itertools
import random
import threading
import time

import pytest

from motion_formats_ros.playback.clock import PlaybackClock


def test_clock_plays_once_and_clamps() -> None:
    c = PlaybackClock(0.0, 2.0)
    assert c.motion_time(0.5) == 0.5
    assert not c.finished(1.9) and c.finished(2.0)
    assert c.motion_time(5.0) == 2.0


def test_clock_loops_a_segment_and_never_goes_back_in_played_time() -> None:
    c = PlaybackClock(0.0, 3.0, loop=(1.0, 3.0))
    assert c.motion_time(2.5) == 2.5
    assert c.motion_time(3.5) == pytest.approx(1.5)  # 3.0 → back to 1.0
    assert c.motion_time(5.5) == pytest.approx(1.5)
    assert c.played(5.5) == 5.5 and not c.finished(100.0)


def test_clock_pause_resume_seek_speed() -> None:
    c = PlaybackClock(10.0, 20.0)
    c.pause(1.0)
    assert c.motion_time(5.0) == 11.0
    c.resume(5.0)
    assert c.motion_time(6.0) == 12.0
    c.set_speed(2.0, 6.0)
    assert c.motion_time(7.0) == 14.0
    c.seek(18.0, 7.0)
    assert c.motion_time(7.5) == 19.0
    c.seek(99.0, 8.0)
    assert c.motion_time(8.0) == 20.0
    c.restart(9.0)
    assert c.motion_time(9.0) == 10.0
    with pytest.raises(ValueError, match="positive"):
        c.set_speed(0.0, 9.0)


def test_seek_moves_the_shown_time_but_never_the_played_time() -> None:
    c = PlaybackClock(0.0, 10.0)
    c.seek(8.0, 1.0)
    assert c.state(1.5) == (8.5, 1.5, False)
    c.seek(2.0, 2.0)  # back: what is shown goes back, /clock (played) does not
    assert c.state(2.5) == (2.5, 2.5, False)
    c.seek(10.0, 3.0)
    assert c.state(3.0) == (10.0, 3.0, True)
    # An elapsed time older than one already seen (another thread read its clock earlier).
    c.pause(3.0)
    c.resume(2.0)
    assert c.played(2.5) == 3.0 and c.played(4.0) == 4.0


def test_rebase_continues_from_the_state_in_a_new_time_base() -> None:
    c = PlaybackClock(0.0, 10.0)
    c.pause(0.0)
    c.seek(4.0, 7.5)  # while waiting, in the old time base
    c.rebase(0.0)  # the new base starts at 0, before what the old one had seen
    c.resume(0.0)
    assert c.state(0.5) == (4.5, 0.5, False)


def test_clock_shared_by_threads_never_plays_back() -> None:
    """A reader at 500 Hz while other threads change rate, seek, pause and resume at random."""
    c = PlaybackClock(0.0, 5.0, loop=(0.0, 5.0))
    origin = time.monotonic()
    stop = threading.Event()
    errors: list[str] = []

    def elapsed() -> float:
        return time.monotonic() - origin

    def changer(seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            e = elapsed()  # read before the clock is reached: the race the clock must absorb
            time.sleep(rng.uniform(0, 0.002))
            action = rng.randrange(4)
            if action == 0:
                c.set_speed(rng.choice((0.01, 0.5, 1.0, 3.0)), e)
            elif action == 1:
                c.seek(rng.uniform(0.0, 5.0), e)
            elif action == 2:
                c.pause(e)
            else:
                c.resume(e)

    threads = [threading.Thread(target=changer, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    played = []
    for _ in range(250):  # 0.5 s at 500 Hz
        shown, p, _ = c.state(elapsed())
        played.append(p)
        if not 0.0 <= shown <= 5.0:
            errors.append(f"shown {shown}")
        time.sleep(0.002)
    stop.set()
    for t in threads:
        t.join()
    assert not errors
    assert all(b >= a for a, b in itertools.pairwise(played)), "played time went back"
    assert played[-1] > 0.0


def test_clock_rejects_bad_ranges() -> None:
    with pytest.raises(ValueError, match="before start"):
        PlaybackClock(2.0, 1.0)
    with pytest.raises(ValueError, match="not inside"):
        PlaybackClock(0.0, 1.0, loop=(0.5, 2.0))


def test_a_loop_set_while_playing_goes_on_from_the_time_shown() -> None:
    c = PlaybackClock(0.0, 2.0, loop=(0.0, 2.0))
    assert c.motion_time(5.5) == pytest.approx(1.5)
    c.set_loop(None, 5.5)  # from 1.5 on, once: the end in 0.5 s
    assert c.motion_time(5.75) == pytest.approx(1.75)
    assert not c.finished(5.9) and c.finished(6.0) and c.motion_time(7.0) == 2.0
    c.seek(0.5, 7.0)
    c.set_loop((0.0, 1.0), 7.0)
    assert c.motion_time(7.5) == 1.0  # the loop's end is shown, then it starts again
    assert c.motion_time(7.75) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="not inside"):
        c.set_loop((1.0, 3.0), 8.0)
