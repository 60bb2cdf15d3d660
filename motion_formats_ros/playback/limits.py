"""Joint limits checked before playing: positions, velocities (scaled by the speed factor), undefined values."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..core.errors import MotionFormatError
from ..core.model import JointLimit, Motion


class LimitViolationError(MotionFormatError, ValueError):
    """The motion exceeds a joint limit; the message names joint, time and value.

    Attributes:
        joint: The joint beyond its limit.
    """

    def __init__(self, message: str, joint: str = "") -> None:
        super().__init__(message)
        self.joint = joint


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
                f"joint {name!r} has an undefined {label} ({kind}) at t = {motion.times[i]:.6g} s", name
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
                    f"(value {float(q[i].min()):.6g})",
                    name,
                )
        if limit.upper is not None:
            bad = np.flatnonzero(np.any(q > limit.upper + tolerance, axis=1))
            if bad.size:
                i = int(bad[0])
                raise LimitViolationError(
                    f"joint {name!r} above its upper limit {limit.upper:g} at t = {motion.times[i]:.6g} s "
                    f"(value {float(q[i].max()):.6g})",
                    name,
                )
        if limit.velocity is not None and velocity is not None:
            v = np.abs(velocity[:, cols]) * speed
            bad = np.flatnonzero(np.any(v > limit.velocity * (1 + tolerance), axis=1))
            if bad.size:
                i = int(bad[0])
                raise LimitViolationError(
                    f"joint {name!r} faster than its velocity limit {limit.velocity:g} rad/s at "
                    f"t = {motion.times[i]:.6g} s (speed {float(v[i].max()):.6g} at playback rate {speed:g})",
                    name,
                )
