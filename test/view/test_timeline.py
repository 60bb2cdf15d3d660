"""The viewer's timeline and sampling, without a browser: clock, track, curves, cursor."""

from __future__ import annotations

import numpy as np
import pytest

from motion_formats_ros.core.model import Motion
from motion_formats_ros.view.timeline import CURSOR_BELOW, Timeline, Track, mark_times, with_cursor


class FakeWall:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_timeline_plays_pauses_and_seeks() -> None:
    wall = FakeWall()
    c = Timeline(0.0, 10.0, now=wall)
    assert c.time() == 0.0 and not c.playing
    wall.t += 5
    assert c.time() == 0.0  # paused: time stands
    c.play()
    wall.t += 2.5
    assert c.time() == pytest.approx(2.5)
    c.pause()
    wall.t += 3
    assert c.time() == pytest.approx(2.5)
    c.seek(7.0)
    assert c.time() == 7.0
    c.seek(-3)
    assert c.time() == 0.0
    c.seek(99)
    assert c.time() == 10.0
    with pytest.raises(ValueError, match="NaN"):
        c.seek(float("nan"))
    assert c.time() == 10.0


def test_timeline_speed_and_loop() -> None:
    wall = FakeWall()
    c = Timeline(1.0, 3.0, speed=2.0, now=wall)
    c.play()
    wall.t += 0.5
    assert c.time() == pytest.approx(2.0)
    c.set_speed(0.5)  # from here on at half speed
    wall.t += 1.0
    assert c.time() == pytest.approx(2.5)
    wall.t += 2.0  # 1 s more of motion time: past the end, loops to 1.5
    assert c.time() == pytest.approx(1.5)
    assert c.playing
    c.set_speed(100)
    assert c.speed == 4.0
    c.set_speed(0.01)
    assert c.speed == pytest.approx(0.1)
    with pytest.raises(ValueError, match="speed must be positive"):
        c.set_speed(-1)


def test_timeline_without_loop_stops_at_the_end_and_restarts_from_the_start() -> None:
    wall = FakeWall()
    c = Timeline(0.0, 2.0, loop=False, now=wall)
    c.play()
    wall.t += 5
    assert c.time() == 2.0
    assert not c.playing
    assert c.toggle()  # play again: from the start
    wall.t += 0.5
    assert c.time() == pytest.approx(0.5)


def _motion() -> Motion:
    t = np.arange(5) * 0.5
    q = np.column_stack([t, -t, np.full(5, np.nan)])
    q[3, 2] = 1.0
    root = np.column_stack([t, np.zeros(5), np.ones(5)])
    return Motion(
        times=t,
        joint_names=("a", "b", "c", "multi"),
        joint_dims=(1, 1, 1, 2),
        position=np.column_stack([q, np.zeros((5, 2))]),
        root_position=root,
        root_orientation=np.tile([0, 0, 0, 1.0], (5, 1)),
        marks=((1.0, "start"), (0.0, "zero"), (9.0, "later")),
    )


def test_track_interpolates_joints_and_root_and_numbers_frames() -> None:
    track = Track(_motion())
    assert track.joint_names == ("a", "b", "c")  # joints of one degree of freedom only
    pose = track.at(0.75)
    assert pose.frame == 1
    np.testing.assert_allclose(pose.positions[:2], [0.75, -0.75])
    np.testing.assert_allclose(pose.root_position, [0.75, 0, 1])
    assert track.at(-1).frame == 0 and track.at(99).frame == 4
    np.testing.assert_allclose(track.at(99).positions[:2], [2.0, -2.0])  # held after the end


def test_track_follows_keyframe_interpolation() -> None:
    m = Motion(
        times=np.array([0.0, 1.0, 2.0]),
        joint_names=("a",),
        position=np.array([[0.0], [1.0], [3.0]]),
        interpolation=("next", "linear"),
    )
    track = Track(m)
    assert track.at(0.2).positions[0] == 1.0  # jumps to the target at once
    assert track.at(1.5).positions[0] == pytest.approx(2.0)
    t, v = track.curves(["a"], points=50)
    assert t.size == 50 and v[1, 0] == 1.0


def test_curves_of_a_long_motion_are_thinned() -> None:
    n = 30_000
    m = Motion(times=np.arange(n) / 500.0, joint_names=("a",), position=np.sin(np.arange(n) / 500.0)[:, None])
    t, v = Track(m).curves(["a"])
    assert t.size <= 1200 and t[0] == 0 and t[-1] == pytest.approx((n - 1) / 500)
    np.testing.assert_allclose(v[:, 0], np.sin(t), atol=1e-6)  # linear between 2 ms samples


def test_cursor_is_a_vertical_line_and_nan_is_held() -> None:
    t = np.array([0.0, 1.0, 2.0, 3.0])
    v = np.array([[0.0, np.nan], [1.0, 5.0], [2.0, np.nan], [3.0, 7.0]])
    x, values, cursor = with_cursor(t, v, 1.5)
    assert list(x) == [0.0, 1.0, 1.5, 1.5, 2.0, 3.0]
    assert list(cursor) == [CURSOR_BELOW, CURSOR_BELOW, 0.0, 1.0, CURSOR_BELOW, CURSOR_BELOW]
    assert np.isfinite(values).all()
    assert list(values[:, 0]) == [0.0, 1.0, 1.5, 1.5, 2.0, 3.0]
    assert list(values[:, 1]) == [5.0, 5.0, 5.0, 5.0, 5.0, 7.0]  # before the first value: the first value


def test_marks_in_range_in_time_order() -> None:
    m = _motion()
    assert m.marks == ((0.0, "zero"), (1.0, "start"), (9.0, "later"))
    assert mark_times(m, 0.0, 2.0) == [(0.0, "zero"), (1.0, "start")]
