"""Tables for analysis: Parquet (:mod:`.parquet`) and CSV (:mod:`.csv_table`), one row per frame.

The column layout both share is in :mod:`._layout`; :func:`output_paths` says which
files a write of several groups creates (``NAME.GROUP.SUFFIX``, one per group).
"""

from __future__ import annotations

from pathlib import Path

from ._layout import group_paths


def output_paths(path: Path, groups: list[str]) -> list[Path]:
    """The files a table write of ``groups`` to ``path`` creates."""
    return [Path(p) for p in group_paths(Path(path), groups)]


__all__ = ["output_paths"]
