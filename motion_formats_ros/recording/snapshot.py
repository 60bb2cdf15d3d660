"""The recorder's snapshot as a command of its own process: ``python -m motion_formats_ros.recording.snapshot``."""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from .recovery import recover


def snapshot_main(argv: Sequence[str] | None = None) -> int:
    """``python -m motion_formats_ros.recording.snapshot JOURNAL LIMIT OUTPUT [--overwrite]``: the recorder's snapshot.

    Writes OUTPUT from the journal's first LIMIT bytes, in a process of its own: the
    recorder's process keeps taking samples without sharing its interpreter (and its
    GIL) with the assembling and writing. Prints the frames per group; exit 1 with the
    error on stderr.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m motion_formats_ros.recording.snapshot")
    parser.add_argument("journal", type=Path)
    parser.add_argument("limit", type=int)
    parser.add_argument("output", type=Path)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    from ..core.errors import MotionFormatError

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, motion_file, _ = recover(args.journal, args.output, overwrite=args.overwrite, limit=args.limit)
    except (MotionFormatError, OSError, ValueError) as exc:
        print(f"snapshot failed: {exc}", file=sys.stderr)
        return 1
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    print(json.dumps({group: m.num_frames for group, m in motion_file.groups.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(snapshot_main())
