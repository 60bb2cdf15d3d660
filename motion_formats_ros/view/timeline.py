"""What the viewer shows, without the browser: the timeline, the motion at any time, curves.

Nothing here imports viser, so the timeline's rules (play, pause, speed, loop, seek,
frame numbers, marks) and the sampling of joints and root pose are tested on their own.
Time is the package's one playback clock and the motion at a time its one sampler
(:mod:`motion_formats_ros.playback`), as the player node plays them. The page
(:mod:`.page`) calls :meth:`Timeline.time` at the display rate and draws
:meth:`Track.at` of that time: the browser gets one update per displayed frame, never
one per motion frame.
"""

from __future__ import annotations

import dataclasses
import math
import time as _time
import warnings
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from ..core import timing
from ..core.model import Motion
from ..playback.clock import PlaybackClock
from ..playback.sampler import FrameSampler

FloatArray = npt.NDArray[np.float64]

#: Playback speeds the page offers (the clock takes any speed in this range).
MIN_SPEED = 0.1
MAX_SPEED = 4.0
#: Most points a joint curve is drawn with (the page's curves panel).
CURVE_POINTS = 1200


class Timeline:
    """The page's timeline: the playback clock driven by the wall clock (play, pause, seek, speed, loop).

    Args:
        start, end: The motion's time range (seconds).
        speed: Motion seconds per wall second (clamped to 0.1–4).
        loop: Start again at ``start`` after ``end`` (else stop at ``end``).
        now: The wall clock (tests give their own).
    """

    def __init__(
        self,
        start: float,
        end: float,
        *,
        speed: float = 1.0,
        loop: bool = True,
        now: Callable[[], float] = _time.monotonic,
    ) -> None:
        if not (math.isfinite(start) and math.isfinite(end) and end >= start):
            raise ValueError(f"bad time range {start}..{end}")
        self._now = now
        self._origin = now()
        self._loop = loop
        self.clock = PlaybackClock(float(start), float(end), self._segment(start, end, loop), _clamp_speed(speed))
        self.clock.pause(0.0)

    @staticmethod
    def _segment(start: float, end: float, loop: bool) -> tuple[float, float] | None:
        return (float(start), float(end)) if loop and end > start else None

    def _elapsed(self) -> float:
        return self._now() - self._origin

    @property
    def start(self) -> float:
        return self.clock.start

    @property
    def end(self) -> float:
        return self.clock.end

    @property
    def duration(self) -> float:
        return self.end - self.start

    @property
    def loop(self) -> bool:
        return self._loop

    @property
    def speed(self) -> float:
        return self.clock.speed

    @property
    def playing(self) -> bool:
        """Whether time advances (False once a non-looping playback reached the end)."""
        elapsed = self._elapsed()
        if not self.clock.paused and self.clock.finished(elapsed):
            self.clock.pause(elapsed)
        return not self.clock.paused

    def time(self) -> float:
        """The motion time now (in ``start..end``)."""
        return self.clock.motion_time(self._elapsed())

    def play(self) -> None:
        """Start (from the beginning when a non-looping playback sits at the end)."""
        if self.playing:
            return
        elapsed = self._elapsed()
        if self.clock.motion_time(elapsed) >= self.end and self.duration > 0:
            self.clock.seek(self.start, elapsed)
        self.clock.resume(elapsed)

    def pause(self) -> None:
        self.clock.pause(self._elapsed())

    def toggle(self) -> bool:
        """Play when paused, pause when playing; returns whether it now plays."""
        if self.playing:
            self.pause()
        else:
            self.play()
        return self.playing

    def seek(self, t: float) -> None:
        """Jump to motion time ``t`` (clamped to the range); playing goes on from there.

        Raises:
            ValueError: ``t`` is NaN (no time to clamp).
        """
        if math.isnan(t):
            raise ValueError("a time is needed to seek to, got NaN")
        self.clock.seek(float(t), self._elapsed())

    def set_speed(self, speed: float) -> None:
        self.clock.set_speed(_clamp_speed(speed), self._elapsed())

    def set_loop(self, loop: bool) -> None:
        self._loop = loop
        self.clock.set_loop(self._segment(self.start, self.end, loop), self._elapsed())


def _clamp_speed(speed: float) -> float:
    if not math.isfinite(speed) or speed <= 0:
        raise ValueError(f"speed must be positive, got {speed}")
    return min(max(float(speed), MIN_SPEED), MAX_SPEED)


@dataclasses.dataclass(frozen=True)
class Pose:
    """A motion at one time: joint positions by name, the root pose (None when absent)."""

    time: float
    frame: int
    joint_names: tuple[str, ...]
    positions: FloatArray
    root_position: FloatArray | None
    root_orientation: FloatArray | None


class Track:
    """One motion (a group) evaluated at any time, as the file's own interpolation says.

    Joints of one degree of freedom are what a robot model's joints take; joints of
    several (OMF allows them) are left out of :attr:`joint_names`. NaN positions (a
    joint switched off, or absent at that time) hold the last value before them (the
    first value, before any).
    """

    def __init__(self, motion: Motion) -> None:
        if motion.num_frames == 0:
            raise ValueError("the motion has no frames")
        self.motion = motion
        self.times = motion.times
        columns = [
            (name, motion.joint_columns(name).start)
            for name, dim in zip(motion.joint_names, motion.joint_dims, strict=True)
            if dim == 1
        ]
        self.joint_names = tuple(name for name, _ in columns)
        self._column = {name: k for k, name in enumerate(self.joint_names)}
        position = motion.position
        if position is None or not columns:
            self._position = np.zeros((motion.num_frames, len(columns)))
            self.has_joints = False
        else:
            # A NaN (a joint switched off, or not sampled then) holds the value before it.
            self._position = _fill(position[:, [c for _, c in columns]])
            self.has_joints = True
        self._interpolation = motion.interpolation
        # What a pose is made of, sampled as the player samples a motion.
        self._sampler = FrameSampler(
            Motion(
                times=motion.times,
                joint_names=self.joint_names,
                position=self._position,
                root_position=motion.root_position,
                root_orientation=motion.root_orientation,
                interpolation=motion.interpolation,
            )
        )

    def _columns(self, joints: Sequence[str]) -> list[int]:
        """The columns of ``joints`` in :attr:`joint_names` order (ValueError for one not there)."""
        try:
            return [self._column[j] for j in joints]
        except KeyError as exc:
            raise ValueError(f"{exc.args[0]!r} is not a joint of the motion") from None

    @property
    def start(self) -> float:
        return float(self.times[0])

    @property
    def end(self) -> float:
        return float(self.times[-1])

    def frame(self, t: float) -> int:
        """Index of the last frame at or before ``t`` (0 before the first)."""
        return int(max(np.searchsorted(self.times, t, side="right") - 1, 0))

    def at(self, t: float) -> Pose:
        """The joint positions and root pose at motion time ``t`` (held outside the range)."""
        frame = self._sampler.frame(t)
        return Pose(
            time=float(t),
            frame=self.frame(t),
            joint_names=self.joint_names,
            positions=frame["position"],
            root_position=frame.get("root_position"),
            root_orientation=frame.get("root_orientation"),
        )

    def curves(self, joints: Sequence[str], points: int = CURVE_POINTS) -> tuple[FloatArray, FloatArray]:
        """Times (P,) and positions (P, len(joints)) to draw the joints' curves with.

        At most ``points`` samples: every frame for a short motion, else uniform times
        evaluated as the motion interpolates (keyframe segments keep their shape).
        """
        cols = self._columns(joints)
        n = self.times.size
        if n <= points and self._interpolation is None:
            return self.times.copy(), self._position[:, cols].copy()
        t = np.linspace(self.start, self.end, max(points, 2))
        return t, self.sample(joints, t)

    def spread(self, joints: Sequence[str]) -> FloatArray:
        """How far each joint moves over the whole motion (max - min of every frame; NaN: never a value).

        Every frame counts, so a joint that moves for an instant of a long motion is seen moving.
        """
        values = self._position[:, self._columns(joints)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a column of NaN only
            return np.asarray(np.nanmax(values, axis=0) - np.nanmin(values, axis=0), dtype=np.float64)

    def sample(self, joints: Sequence[str], t: FloatArray) -> FloatArray:
        """Positions (len(t), len(joints)) of the joints at times ``t``, held outside the motion's range.

        How another group's curves are drawn on this one's time axis.
        """
        cols = self._columns(joints)
        where = timing.locate(self.times, np.asarray(t, dtype=np.float64), self._interpolation)
        return timing.interpolate(self._position[:, cols], where)


def with_cursor(t: FloatArray, values: FloatArray, at: float) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Curves plus a vertical cursor line at ``at``: x (P+2,), values (P+2, J), cursor (P+2,).

    The chart shares one x axis and takes no gaps (every value must be a number), so
    the cursor is a series on a scale of its own fixed to 0..1 that is 0 and 1 at two
    samples at x = ``at`` and far below the scale everywhere else: what shows is a
    vertical line at ``at``. The curves get their interpolated value there; NaN (a
    joint switched off) is drawn as the last value before it.
    """
    values = _fill(values)
    i = int(np.searchsorted(t, at, side="right"))
    here = np.array([np.interp(at, t, values[:, j]) for j in range(values.shape[1])])
    x = np.concatenate([t[:i], [at, at], t[i:]])
    v = np.concatenate([values[:i], here[None, :], here[None, :], values[i:]], axis=0)
    cursor = np.full(x.size, CURSOR_BELOW)
    cursor[i], cursor[i + 1] = 0.0, 1.0
    return x, v, cursor


#: The cursor series' value away from the cursor (its scale shows 0..1).
CURSOR_BELOW = -1e9


def _fill(values: FloatArray) -> FloatArray:
    """NaN replaced by the last finite value before it (the first finite one at the start; 0 if none)."""
    out = np.array(values, dtype=np.float64, copy=True)
    for j in range(out.shape[1]):
        col = out[:, j]
        ok = np.isfinite(col)
        if ok.all():
            continue
        if not ok.any():
            col[:] = 0.0
            continue
        idx = np.where(ok, np.arange(col.size), 0)
        np.maximum.accumulate(idx, out=idx)
        first = int(np.argmax(ok))
        idx[:first] = first
        out[:, j] = col[idx]
    return out


def mark_times(motion: Motion, start: float, end: float) -> list[tuple[float, str]]:
    """The motion's marks that lie in ``start..end``, in time order."""
    return [(t, name) for t, name in motion.marks if start - 1e-9 <= t <= end + 1e-9]


__all__ = ["Pose", "Timeline", "Track", "mark_times", "with_cursor"]
