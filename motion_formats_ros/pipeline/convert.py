"""File → file and motion → motion operations shared by the CLI and the nodes."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..core.errors import OutOfRangeError, SelectionError, spelled
from ..core.model import Motion, MotionFile
from ..core.timing import empty_window


def check_window(start: float | None, end: float | None) -> None:
    """A time window ends at or after its start.

    Raises:
        OutOfRangeError: ``end`` is before ``start``, naming both as the caller gave them.
    """
    if start is not None and end is not None and end < start:
        raise OutOfRangeError(f"{spelled('end')} {end:g} is before {spelled('start')} {start:g}")


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
    check_window(start, end)
    if group is not None:
        motion_file = dataclasses.replace(motion_file, groups={group: motion_file.group(group)})

    def apply(m: Motion) -> Motion:
        if joints:
            m = select_joints(m, joints, motion_file)
        if start is not None or end is not None:
            kept = m.slice_time(start, end)
            if kept.num_frames == 0:
                raise SelectionError(f"{_where(m, motion_file)}: {empty_window(m.times, start, end)}")
            m = kept
        if rate is not None:
            m = m.resample(rate, method)
        return m

    return motion_file.map(apply)


def select_joints(motion: Motion, joints: Sequence[str], motion_file: MotionFile) -> Motion:
    """``motion`` (a group of ``motion_file``) with only ``joints``, in this order.

    Raises:
        SelectionError: A joint the motion lacks, naming the file (and the group, in a file of several).
    """
    try:
        return motion.select_joints(joints)
    except SelectionError as exc:
        raise SelectionError(f"{_where(motion, motion_file)}: {exc}") from None


def _where(motion: Motion, motion_file: MotionFile) -> str:
    """The file ``motion`` is a group of (and the group, in a file of several), for a message."""
    where = motion_file.source or "the motion"
    if len(motion_file.groups) > 1:
        where += f": group {next(k for k, v in motion_file.groups.items() if v is motion)}"
    return where
