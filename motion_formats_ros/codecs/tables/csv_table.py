"""CSV tables: a header row, one row per frame, every number written exactly.

The layout is :mod:`._layout`'s (the same columns as Parquet). Every value is written as
its shortest round-trip decimal (Python's ``repr``; ``1`` rather than ``1.0``), so reading a
CSV written here gives the motion back bit for bit (a root 1e8 m from the origin keeps its
micrometres); NaN is ``nan``, boolean mask columns are 0 / 1. CSV has no place for file
metadata (robot, absolute start): use Parquet for those. Any CSV with a ``time`` column
and ``JOINT.CHANNEL`` columns reads too.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ...core.atomic import atomic_output
from ...core.errors import ReadError
from ...core.inputs import read_input
from ...core.keyframes import interpolation_dropped
from ...core.model import DEFAULT_GROUP, Motion, MotionFile
from ...core.notices import NoticeKind, notify
from . import _common, _layout
from . import output_paths as output_paths  # offered to the registry: a write of several groups makes one file each


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """No read options."""


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """No write options."""


def sniff(path: Path, head: str) -> bool:
    """A header row whose first column is ``time``."""
    first = head.lstrip("\ufeff").split("\n", 1)[0]
    return first.startswith(("time,", '"time",')) or first.strip() in ("time", '"time"')


def _dropped(m: Motion) -> list[str]:
    out = []
    curves = interpolation_dropped(m)
    if curves is not None:
        out.append(curves)
    if m.loop is not None:
        out.append("loop")
    out.extend(f"series {k!r} frame {s.frame!r}" for k, s in m.series.items() if s.frame != "world")
    return out


#: Frames encoded at once: the text of a long motion is made and written a block at a time.
BLOCK_FRAMES = 4096


def iter_encode(m: Motion) -> Iterator[bytes]:
    """The CSV text of one motion, a block of rows at a time (bounded memory however long it is)."""
    cols = _layout.columns(m)
    head = io.StringIO()
    csv.writer(head, lineterminator="\n").writerow([c.name for c in cols])
    yield head.getvalue().encode("utf-8")
    fmt = ",".join("%d" if c.values.dtype == bool else "%r" for c in cols) + "\n"
    for lo in range(0, m.num_frames, BLOCK_FRAMES):
        hi = min(lo + BLOCK_FRAMES, m.num_frames)
        matrix = np.column_stack([c.values[lo:hi].astype(np.float64) for c in cols]).tolist()
        text = "".join([fmt % tuple(row) for row in matrix])
        # repr ends a whole number in ".0" (and nothing else in a lone "0"): "1" reads back the same
        yield text.replace(".0,", ",").replace(".0\n", "\n").encode("utf-8")


def encode(m: Motion) -> bytes:
    """The CSV text of one motion."""
    return b"".join(iter_encode(m))


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> None:
    """Write one CSV table per group (``NAME.GROUP.csv`` when there are several)."""
    for out, _group, m in _common.plan_write(motion_file, Path(path), overwrite):
        dropped = _dropped(m)
        if dropped:
            notify(
                NoticeKind.LOSSY_WRITE,
                f"CSV has no place for the {', '.join(dropped)}; written as plain frames",
                file=out,
                stacklevel=2,
            )
        with atomic_output(out, overwrite) as fh:
            for block in iter_encode(m):
                fh.write(block)


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read a CSV table into a one-group MotionFile."""
    try:
        text = read_input(path).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReadError(path, "not UTF-8 text", offset=exc.start) from None
    stream = io.StringIO(text, newline="")
    reader = csv.reader(stream)
    try:
        headers = next(reader)
    except StopIteration:
        raise ReadError(path, "empty file: expected a header row starting with 'time'", line=1) from None
    except csv.Error as exc:
        raise ReadError(path, str(exc), line=1) from None
    rows: list[list[float]] = []
    lines: list[int] = []
    width = len(headers)
    # float() takes "1_000" as Python source would; a table's number has no "_": only a body
    # that holds one pays for the stricter conversion.
    cell = _cell if "_" in text[stream.tell() :] else float
    try:
        for row in reader:
            if not row:
                continue
            if len(row) != width:
                raise ReadError(path, f"{len(row)} values, the header has {width} columns", line=reader.line_num)
            try:
                rows.append([cell(v) if v.strip() else np.nan for v in row])
                lines.append(reader.line_num)
            except ValueError:
                j = next(i for i, v in enumerate(row) if not _is_number(v))
                raise ReadError(
                    path, f"column {headers[j]!r}: {row[j][:40]!r} is not a number", line=reader.line_num
                ) from None
    except csv.Error as exc:
        raise ReadError(path, str(exc), line=reader.line_num) from None
    matrix = np.array(rows, dtype=np.float64).reshape(len(rows), width)
    values = [matrix[:, i] for i in range(width)]
    if "time" in headers:
        bad = _common.first_unordered(values[headers.index("time")])
        if bad is not None:
            raise ReadError(path, "times must be finite and strictly increasing", line=lines[bad])
    infinite = np.isinf(matrix)
    if infinite.any():
        _note_beyond_range(path, text, headers, infinite)
    values = [v != 0 if h.startswith("mask.") else v for h, v in zip(headers, values, strict=True)]
    try:
        motion = _layout.parse(headers, values)
    except _layout.LayoutError as exc:
        raise ReadError(path, str(exc), line=1) from None
    except ValueError as exc:
        raise ReadError(path, str(exc)) from None
    return MotionFile(groups={DEFAULT_GROUP: motion}, name=Path(path).stem)


def _note_beyond_range(path: Path, text: str, headers: list[str], infinite: np.ndarray) -> None:
    """Say where a number beyond the float range (``1e400``) was read as infinite, as a
    written ``inf`` is: one notice naming the first one's line and column, counting the rest."""
    reader = csv.reader(io.StringIO(text, newline=""))
    next(reader)
    first: tuple[int, str, str] | None = None
    count = 0
    rows = iter(infinite)
    for row in reader:
        if not row:
            continue
        flags = next(rows)
        if not flags.any():
            continue
        for j in np.flatnonzero(flags).tolist():
            if row[j].strip().lstrip("+-").lower() not in ("inf", "infinity"):
                count += 1
                first = first or (reader.line_num, headers[j], row[j].strip())
    if first is not None:
        line, column, cell = first
        sign = "-" if cell.startswith("-") else ""
        more = f" (and {count - 1:,} more such values)" if count > 1 else ""
        notify(
            NoticeKind.OVERFLOW,
            f"column {column!r}: {cell[:40]!r} is beyond the float range: read as {sign}inf{more}",
            file=path,
            line=line,
            stacklevel=3,
        )


def _cell(text: str) -> float:
    """A cell's number as :func:`float` reads it, but without the digit separator ``_``."""
    if "_" in text:
        raise ValueError(text)
    return float(text)


def _is_number(text: str) -> bool:
    if not text.strip():
        return True  # an empty cell is NaN
    try:
        _cell(text)
    except ValueError:
        return False
    return True
