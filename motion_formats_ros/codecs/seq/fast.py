"""Fast path of the Choreonoid ``.seq`` reader: the ``frames:`` blocks, parsed with numpy.

A body motion file is a small tree of mappings around large ``frames:`` blocks with one
flow row per line. :func:`extract` finds those blocks, has the core parse their rows
(:mod:`motion_formats_ros.core._flowrows`) and replaces each block by a placeholder
scalar, so that only a tiny skeleton is left for the YAML parser. It declines (returns
None) whenever anything is unusual; the caller then parses the whole file with YAML.
"""

from __future__ import annotations

import os
import re
import secrets
import warnings

from ...core._flowrows import Rows, end_of_line, is_blank_or_comment, parse_block, scan_block
from ...core.errors import ReadError
from ...core.model import MotionFile
from ...core.naming import Names
from .reader import read_document
from .schema import DeclineError
from .tree import load_yaml

_FRAMES_KEY = re.compile(rb"( *)((?:- +)?)frames:[ \t]*")


def extract(data: bytes | str) -> tuple[str, dict[str, Rows]] | None:
    """The YAML skeleton of ``data`` with every frame block parsed, or None to decline.

    Returns:
        The text with each ``frames:`` block replaced by a placeholder scalar (row
        lines blanked, so line numbers stay), and the placeholders' rows.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\t" in data or b"\r" in data:
        return None
    tag = "mfr-seq-" + secrets.token_hex(6) + "-"
    found: dict[str, Rows] = {}
    pieces: list[bytes] = []
    done = 0  # data[:done] is in pieces
    size = len(data)
    search = 0
    while True:
        hit = data.find(b"frames:", search)
        if hit < 0:
            break
        line_start = data.rfind(b"\n", 0, hit) + 1
        line_end = end_of_line(data, hit)
        search = line_end
        key = _FRAMES_KEY.fullmatch(data, line_start, line_end)
        if key is None:
            continue
        key_indent = len(key.group(1)) + len(key.group(2))
        row_start = line_end + 1
        while row_start < size and is_blank_or_comment(data[row_start : end_of_line(data, row_start)]):
            row_start = end_of_line(data, row_start) + 1
        if row_start >= size:
            continue
        indent = 0
        while row_start + indent < size and data[row_start + indent] == 32:
            indent += 1
        if indent < key_indent or not data.startswith(b"- [", row_start + indent):
            continue
        scanned = scan_block(data, row_start, indent)
        if scanned is None:
            return None
        chunks, layout, words = scanned
        block_end = chunks[-1][1]
        after = block_end + 1
        while after < size and is_blank_or_comment(data[after : end_of_line(data, after)]):
            after = end_of_line(data, after) + 1
        if after < size:
            rest = data[after : end_of_line(data, after)]
            rest_indent = len(rest) - len(rest.lstrip(b" "))
            # What follows the rows must belong to the frames key's mapping or an outer node:
            # a deeper line would continue the placeholder (YAML reads it differently).
            if rest_indent > key_indent or (rest_indent == indent and rest.lstrip(b" ").startswith(b"-")):
                return None
        try:
            rows = parse_block(data, chunks, data[row_start : row_start + indent + 3], layout, words)
        except ValueError:
            return None
        name = f"{tag}{len(found)}"
        found[name] = rows
        pieces.append(data[done:line_end].rstrip(b" "))
        pieces.append(b" " + name.encode("ascii"))
        pieces.append(b"\n" * data.count(b"\n", line_end, block_end))
        done = block_end
        search = block_end
    pieces.append(data[done:])
    try:
        skeleton = b"".join(pieces).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return skeleton, found


def decode_fast(
    data: bytes | str, path: str | os.PathLike[str] = "<text>", *, names: Names | None = None
) -> MotionFile | None:
    """The fast path alone: the file, or None when it declines (unusual or bad input)."""
    extracted = extract(data)
    return None if extracted is None else from_skeleton(extracted, path, names)


def from_skeleton(
    extracted: tuple[str, dict[str, Rows]], path: str | os.PathLike[str], names: Names | None
) -> MotionFile | None:
    """The motion from :func:`extract`'s skeleton and rows, or None when the YAML path must decide."""
    skeleton, rows = extracted
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            doc = load_yaml(skeleton, path, rows)
            result = read_document(doc, path, names)
    except (ReadError, DeclineError):
        return None  # the YAML path decides, with its line numbers
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result


__all__ = ["decode_fast", "extract", "from_skeleton"]
