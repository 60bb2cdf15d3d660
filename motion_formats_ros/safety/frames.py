"""The frames a motion is judged at: the one choice ``check``, the player and the viewer share.

A check must see every value the motion reaches. The frames judged are therefore always
the motion's own frames (a keyframe motion's keyframes: what the file states), and for a
keyframe motion also its frames sampled at ``rate`` with its own interpolation. Every
interpolation a keyframe motion carries (linear, step, next, cosine) is monotonic between
two keyframes, so a joint's extreme values are at its keyframes, and those are always
judged whatever the rate. (A format that interpolates with splines samples them when it
is read, each segment's extrema included, so that its own frames hold its peaks.)

What changes with the rate are the values between keyframes (collisions, the floor)
and what is derived from differences between frames: velocities, accelerations, jerks and
the balance are judged on the uniform frames at ``rate`` (:attr:`CheckedFrames.uniform`),
where finite differences mean what they say; a keyframe a few milliseconds from a sampled
frame would make them noise. Velocities are judged across the keyframes as well
(:attr:`CheckedFrames.own`: each segment's mean velocity, its own under linear
interpolation), so a keyframe reached in a millisecond between two sampled frames is seen
whatever the rate.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from ..core import timing
from ..core.errors import spelled
from ..core.memory import VALUE_BYTES, require_room
from ..core.model import Motion

#: Default rate (Hz) a keyframe motion is sampled at.
DEFAULT_RATE = 100.0

IndexArray = npt.NDArray[np.intp]


@dataclasses.dataclass(frozen=True)
class CheckedFrames:
    """The frames a motion is judged at.

    Attributes:
        motion: Every frame judged (positions, collisions, the floor), in time order.
        uniform: Indices (into ``motion``'s frames) of the frames that rates and the balance
            are judged on: the frames sampled at the rate, or every frame.
        own: Indices of the motion's own frames (its keyframes), or every frame.
    """

    motion: Motion
    uniform: IndexArray
    own: IndexArray

    @property
    def everything_uniform(self) -> bool:
        return self.uniform.size == self.motion.num_frames


def sampled(motion: Motion, rate: float) -> bool:
    """Whether ``motion`` is sampled at ``rate`` when judged (a keyframe motion of more than one period)."""
    return motion.is_keyframed and motion.num_frames > 1 and motion.frames_at(rate) > 1


def frame_count(motion: Motion, rate: float = DEFAULT_RATE) -> int:
    """How many frames :func:`checked_frames` gives at most (for a memory pre-check before it runs)."""
    if sampled(motion, rate):
        return motion.frames_at(rate) + motion.num_frames
    return motion.num_frames


def checked_frames(motion: Motion, rate: float = DEFAULT_RATE) -> CheckedFrames:
    """The frames ``motion`` is judged at (see the module documentation).

    Raises:
        OutOfRangeError: Too many frames for this process at ``rate`` (naming it and the size).
    """
    everything = np.arange(motion.num_frames, dtype=np.intp)
    if not sampled(motion, rate):
        return CheckedFrames(motion, everything, everything)
    count = frame_count(motion, rate)
    values = 1 + sum(int(np.prod(a.shape[1:])) for _, a in motion.iter_arrays())
    require_room(f"{spelled('rate')} {rate:g}: {count:,} frames × {values:,} values", 2 * count * values * VALUE_BYTES)
    grid = timing.uniform_times(float(motion.times[0]), float(motion.times[-1]), rate)
    times = np.union1d(grid, motion.times)  # sorted, and a keyframe on the grid only once
    uniform = np.searchsorted(times, grid).astype(np.intp)
    own = np.searchsorted(times, motion.times).astype(np.intp)
    return CheckedFrames(motion.sample(times), uniform, own)


__all__ = ["DEFAULT_RATE", "CheckedFrames", "checked_frames", "frame_count", "sampled"]
