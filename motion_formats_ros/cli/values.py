"""Command-line values checked as they are parsed (``argparse`` types), and the flags that
must agree with each other (:func:`check_together`).

A value out of range, or flags that contradict each other, is a usage error of its
subcommand (its usage, one line naming the options, exit status 2), never a traceback and
never a value silently clamped or a flag silently ignored.
"""

from __future__ import annotations

import argparse
import math
from datetime import datetime
from pathlib import Path

from ..core.errors import OutOfRangeError

#: The latest stamp a bag can hold: int64 nanoseconds since the epoch (the year 2262).
MAX_STAMP = (2**63 - 1) / 1e9


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a finite number")
    return value


def seconds(text: str) -> float:
    """A time in seconds: any finite number."""
    return _number(text)


def rate(text: str) -> float:
    """Frames per second: a positive finite number."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number of Hz")
    return value


def start_time(text: str) -> float:
    """A bag's first stamp: seconds since the epoch, ``now``, or an ISO 8601 date-time.

    It must fit a bag's stamps (int64 nanoseconds from 1970 to 2262).
    """
    if text == "now":
        return datetime.now().timestamp()
    try:
        value = float(text)
    except ValueError:
        try:
            value = datetime.fromisoformat(text).timestamp()
        except (ValueError, OverflowError, OSError):
            raise argparse.ArgumentTypeError(
                f"{text!r}: expected seconds since the epoch, 'now' or an ISO 8601 date-time"
            ) from None
    if not (math.isfinite(value) and 0 <= value <= MAX_STAMP):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a bag's stamps run from 0 (1970) to {MAX_STAMP:.0f} s since the epoch (the year 2262)"
        )
    return value


def frame_pair(text: str) -> str:
    """Two TF frames ``PARENT:CHILD`` (both named, no space)."""
    parts = text.split(":")
    if len(parts) != 2 or not all(parts) or any(c.isspace() or not c.isprintable() for c in text):
        raise argparse.ArgumentTypeError(f"{text!r}: expected PARENT:CHILD, two frame names (e.g. world:base_link)")
    return text


def frame_pair_or_none(text: str) -> str:
    """As :func:`frame_pair`, or ``none``."""
    return "none" if text.strip().lower() == "none" else frame_pair(text)


def output_file(text: str) -> Path:
    """A file to write: any name but ``-``, which names standard output to other tools
    (``batch --report -``) and which no command writes a motion or an image to."""
    if text == "-":
        raise argparse.ArgumentTypeError("'-' (standard output) cannot be written to here: name a file")
    return Path(text)


def check_together(args: argparse.Namespace) -> None:
    """Flags that contradict each other or mean nothing without another (any subcommand).

    Raises:
        OutOfRangeError: ``--end`` before ``--start``; ``--resample`` without ``--rate``.
    """
    start, end = getattr(args, "start", None), getattr(args, "end", None)
    if start is not None and end is not None:
        from ..pipeline.convert import check_window  # numpy: only when both are given

        check_window(start, end)
    method = getattr(args, "resample", None)
    if method is not None and getattr(args, "rate", None) is None:
        raise OutOfRangeError(f"--resample {method} needs --rate: the rate to resample to")


__all__ = [
    "MAX_STAMP",
    "check_together",
    "frame_pair",
    "frame_pair_or_none",
    "output_file",
    "rate",
    "seconds",
    "start_time",
]
