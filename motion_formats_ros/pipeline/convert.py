"""File → file and motion → motion operations shared by the CLI and the nodes."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..core.errors import SelectionError
from ..core.model import Motion, MotionFile


def transform(
    motion_file: MotionFile,
    *,
    group: str | None = None,
    joints: Sequence[str] | None = None,
    start: float | None = None,
    end: float | None = None,
    rate: float | None = None,
    method: str = "linear",
) -> MotionFile:
    """Select a group, joints and a time window, then resample; the order users expect.

    Args:
        motion_file: The input.
        group: Keep only this group.
        joints: Keep only these joints, in this order.
        start, end: Keep frames in [start, end] seconds.
        rate: Resample to this rate (Hz) with ``method`` (``linear`` or ``hold``).
        method: Resampling method.
    """
    if group is not None:
        motion_file = dataclasses.replace(motion_file, groups={group: motion_file.group(group)})

    def apply(m: Motion) -> Motion:
        if joints:
            m = m.select_joints(joints)
        if start is not None or end is not None:
            m = m.slice_time(start, end)
            if m.num_frames == 0:
                raise SelectionError(f"no frames between {start} and {end} s")
        if rate is not None:
            m = m.resample(rate, method)
        return m

    return motion_file.map(apply)
