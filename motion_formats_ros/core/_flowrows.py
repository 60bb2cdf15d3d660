"""Rows of numbers, one YAML flow sequence per line, parsed with numpy (format-free).

Motion files written as YAML often hold large blocks of rows like ``      - [ 0.1, 0.2 ]``
or ``      - [ [ x, y, z, qw, qx, qy, qz ] ]``. :func:`scan_block` checks that every row
of a block has the same bracket-and-comma layout and only number characters;
:func:`parse_block` converts the values with ``numpy.fromstring`` a chunk of rows at a
time (so the text is never copied whole). A format's fast path (``.seq``:
:mod:`motion_formats_ros.codecs.seq.fast`) finds its blocks and uses these.

These functions never decide that a file is bad: whenever anything is unusual (comments
or tabs in rows, rows spanning lines, a field that is not exactly one number, a row that
differs from the first …) they decline (None / ValueError) and the caller parses the
whole file with the YAML parser, which reports the problem with its line. Numbers follow
one rule on both paths (:func:`to_number`), so both give identical values.
"""

from __future__ import annotations

import dataclasses
import re
import warnings

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: A number in a frame row: decimal with optional exponent (as C's strtod reads it,
#: without hex), or inf / infinity / nan in C or YAML spelling (``-.inf``, ``.nan``).
NUMBER = re.compile(r"[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|\.?(?i:inf(?:inity)?|nan))")

_DIGITS = b"0123456789.eE+- "
_DIGITS_AND_WORDS = b"0123456789.eE+- aAfFiInNtTyY"
_LAYOUT = re.compile(rb"\[(?:,|\[,*\])*\]")
#: Field boundaries with nothing between them, in a row with its spaces removed.
_EMPTY_FIELDS = (b",,", b"[,", b",]", b"[]")
#: Rows converted per numpy call (bounds the temporary copies of the text).
CHUNK_ROWS = 256


def to_number(text: str) -> float | None:
    """The value of a frame-row token, or None when it is not a number."""
    if not NUMBER.fullmatch(text):
        return None
    if text[-1] in "0123456789.":
        return float(text)
    return float(text.replace(".", ""))


@dataclasses.dataclass(frozen=True)
class Rows:
    """The rows of one ``frames:`` block.

    Attributes:
        values: (N, F) float64, every row's numbers in reading order.
        layout: The bracket-and-comma layout every row shares, e.g. ``[,,]`` (three
            values), ``[[,,,,,,]]`` (one group of seven), ``[,[,,,,,,]]`` (a time and a group).
        line: 1-based line of the first row.
    """

    values: FloatArray
    layout: str
    line: int

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def array(self) -> FloatArray | None:
        """The rows as (N, w) or (N, k, w) when the layout is that regular, else None."""
        inner = self.layout[1:-1]
        if "[" not in inner:
            return self.values
        groups = inner[1:-1].split("],[") if inner.startswith("[") and inner.endswith("]") else []
        if groups and len(set(groups)) == 1 and "[" not in groups[0]:
            width = groups[0].count(",") + 1
            return self.values.reshape(len(self), len(groups), width)
        return None


def is_blank_or_comment(line: bytes) -> bool:
    body = line.lstrip(b" ")
    return not body or body.startswith(b"#")


def end_of_line(data: bytes, start: int) -> int:
    end = data.find(b"\n", start)
    return len(data) if end < 0 else end


def parse_block(data: bytes, chunks: list[tuple[int, int, int]], prefix: bytes, layout: bytes, words: bool) -> Rows:
    """Convert the rows in ``chunks`` ((start, end, rows) each, checked already); raises ValueError."""
    fields = layout.count(b",") + 1
    n = sum(rows for _, _, rows in chunks)
    out = np.empty((n, fields), dtype=np.float64)
    first = 0
    separator = b"\n" + prefix[:-1]
    for start, end, rows in chunks:
        text = data[start + len(prefix) - 1 : end].replace(separator, b",")
        payload = text.translate(None, b"[]")
        count = rows * fields
        if words:
            numbers = [to_number(token.strip(b" ").decode("ascii")) for token in payload.split(b",")]
            if len(numbers) != count or any(v is None for v in numbers):
                raise ValueError("not a number")
            values = np.array(numbers, dtype=np.float64)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    values = np.fromstring(payload, dtype=np.float64, sep=",")
                except DeprecationWarning:
                    raise ValueError("not a number") from None
            if values.size != count:
                raise ValueError("wrong count")
            if np.any(values == -1.0) and any(e in text.translate(None, b" ") for e in _EMPTY_FIELDS):
                # An empty field (``[ 1, , 3 ]``, ``[ 1, 2, ]``): numpy reads it as -1 and the
                # layout check cannot see it; YAML gives an error or another row width.
                raise ValueError("empty field")
        out[first : first + rows] = values.reshape(rows, fields)
        first += rows
    return Rows(out, layout.decode("ascii"), data.count(b"\n", 0, chunks[0][0]) + 1)


def scan_block(data: bytes, row_start: int, indent: int) -> tuple[list[tuple[int, int, int]], bytes, bool] | None:
    """Chunks (start, end, rows) of the rows from ``row_start`` on and their shared layout, or None."""
    prefix = data[row_start : row_start + indent + 3]
    first = data[row_start : end_of_line(data, row_start)]
    words = False
    layout = first.translate(None, _DIGITS)
    if not _LAYOUT.fullmatch(layout):
        layout = first.translate(None, _DIGITS_AND_WORDS)
        if not _LAYOUT.fullmatch(layout):
            return None
        words = True
    delete = _DIGITS_AND_WORDS if words else _DIGITS
    chunks: list[tuple[int, int, int]] = []
    pos = row_start
    size = len(data)
    chunk_start, rows, end = pos, 0, pos
    while pos < size and data.startswith(prefix, pos):
        end = end_of_line(data, pos)
        if data[pos:end].translate(None, delete) != layout:
            return None
        rows += 1
        if rows == CHUNK_ROWS:
            chunks.append((chunk_start, end, rows))
            chunk_start, rows = end + 1, 0
        pos = end + 1
    if rows:
        chunks.append((chunk_start, end, rows))
    return chunks, layout, words


__all__ = [
    "CHUNK_ROWS",
    "NUMBER",
    "Rows",
    "end_of_line",
    "is_blank_or_comment",
    "parse_block",
    "scan_block",
    "to_number",
]
