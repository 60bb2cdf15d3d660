"""What the Parquet and CSV writers and readers share: checks, file names, row errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...core.atomic import check_group_names, check_writable
from ...core.errors import WriteError
from ...core.model import Motion, MotionFile
from . import _layout


def plan_write(motion_file: MotionFile, path: Path, overwrite: bool) -> list[tuple[Path, str, Motion]]:
    """(output file, group, motion) for every group, every output checked before anything is written."""
    groups = list(motion_file.groups)
    problem = check_group_names(groups) if len(groups) > 1 else None
    if problem:
        raise WriteError(path, problem)
    paths = _layout.group_paths(Path(path), groups)
    plan = []
    for out, group in zip(paths, groups, strict=True):
        m = motion_file.groups[group]
        problem = _layout.check_names(m)
        if problem:
            raise WriteError(out, problem)
        check_writable(out, overwrite)
        plan.append((out, group, m))
    return plan


def first_unordered(times: np.ndarray) -> int | None:
    """Index of the first time not after the one before it (or not finite), or None."""
    bad = np.flatnonzero(~np.isfinite(times))
    if times.size > 1:
        step = np.flatnonzero(~(np.diff(times) > 0)) + 1
        bad = np.concatenate([bad, step])
    return int(bad.min()) if bad.size else None
