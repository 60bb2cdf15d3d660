"""The motion at one time: every channel sampled as the motion interpolates, fast enough per tick."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..core import timing
from ..core.model import Motion

FloatArray = npt.NDArray[np.float64]


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

    def at(self, array: np.ndarray, times: np.ndarray, kind: str = "value") -> FloatArray:
        """``array`` (time first) at every time of ``times`` (what a stream of ticks at those times sends)."""
        where = timing.locate(self.times, np.asarray(times, dtype=np.float64), self.interpolation)
        return np.asarray(timing.interpolate(array, where, kind), dtype=np.float64)

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
