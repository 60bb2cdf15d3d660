"""Otter Motion Format (OMF): ``.msgpack`` (default), ``.yaml``, ``.json``.

Layout (the reference implementation is ``otter-motion-format`` on
PyPI): ``version: 1``, ``format: omf``, ``basic`` (names, dims,
``data_names``) and one section per data name (``target``, ``actual`` …) holding
``fps``, ``length``, ``root_pos``, ``root_rot`` (x, y, z, w), ``joint`` (pos, vel, acc,
tau, temp, …), ``link`` and ``imu`` channels, and ``time`` (length × len(time_names)).
Every array is empty or ``length`` long.

Reading validates everything and reports the field path (``actual.joint.pos[17]:
expected 31 values, got 30``). Variable-rate motions (and motions that do not start at
t = 0) carry their times in a ``stamp`` time column. Files stay plain msgpack / YAML /
JSON with float64 values, exactly as the reference writes them, so both read each other.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from pathlib import Path

from ...core.atomic import atomic_output, check_writable
from ...core.errors import ReadError
from ...core.inputs import TEXT_PROBE, read_input, text_check
from ...core.model import DEFAULT_GROUP, MotionFile
from ...core.options import option
from .layout import ENCODINGS, Encoding, OmfMotionRecord, OmfRecord
from .omf_reader import decode
from .omf_writer import _encode_parts, encode, to_document

_OMF_YAML = re.compile(rb"^format:[ \t]*['\"]?omf['\"]?[ \t]*(#.*)?$", re.MULTILINE)


_OMF_JSON = re.compile(rb'"format"\s*:\s*"omf"')


#: The sniffer scans a file in pieces of this size, each overlapping the last by _SNIFF_OVERLAP.
_SNIFF_PIECE = 1 << 22


_SNIFF_OVERLAP = 4096


#: Options of :func:`read` and :func:`write`.
@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read`."""

    encoding: Encoding | None = option(None, "the encoding (default: from the suffix)")


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    encoding: Encoding | None = option(None, "the encoding (default: from the suffix)")


def sniff(path: Path, head: str) -> bool:
    """True when ``path`` holds OMF (a top-level ``format: omf``)."""
    suffix = path.suffix.lower()
    pattern = _OMF_JSON if suffix == ".json" else _OMF_YAML
    if pattern.search(head.encode("utf-8", "replace")):
        return True
    # Key order is free (a sorted dump puts the big sections first): scan the file, a
    # piece at a time; a NUL byte ends the scan (no JSON or YAML text holds one).
    try:
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return False
            carry = b""
            while piece := fh.read(_SNIFF_PIECE):
                text = carry + piece
                if pattern.search(text) is not None:
                    return True
                if b"\0" in piece:
                    return False
                keep = text[-_SNIFF_OVERLAP:]  # from a line's start, for the YAML pattern's ``^``
                carry = keep[max(keep.find(b"\n"), 0) :]
            return False
    except OSError:
        return False


def encoding_for(path: Path, encoding: Encoding | None = None) -> str:
    """msgpack / yaml / json from an explicit choice or the suffix (msgpack otherwise)."""
    if encoding is not None:
        return str(encoding)
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix == ".json":
        return "json"
    return "msgpack"


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read an OMF file (encoding from the options or the suffix).

    The first bytes are checked before the rest is read: msgpack data must start with a
    map, JSON and YAML text must hold no NUL byte.
    """
    given = (options or ReadOptions()).encoding
    guess = given is None and path.suffix.lower() not in (".yaml", ".yml", ".json", ".msgpack")

    def check(first: bytes, size: int) -> None:
        chosen = _guess_encoding(first) if guess else encoding_for(path, given)
        if chosen != "msgpack":
            text_check(path)(first, size)
        elif first and not _is_map(first[0]):
            kind = _msgpack_kind(first[0])
            raise ReadError(path, f"expected a mapping, got {kind}", offset=0, field="(top level)")

    data = read_input(path, head=(TEXT_PROBE, check))
    if guess:
        return decode(data, _guess_encoding(data), path)
    return decode(data, encoding_for(path, given), path)


def _msgpack_kind(first: int) -> str:
    """What a msgpack value starting with the byte ``first`` is (as :func:`_type_name` says it)."""
    if first <= 0x7F or first >= 0xE0 or 0xCC <= first <= 0xD3:
        return "integer"
    kinds = (
        ((0x90, 0x9F), "list"),
        ((0xDC, 0xDD), "list"),
        ((0xA0, 0xBF), "string"),
        ((0xD9, 0xDB), "string"),
        ((0xC0, 0xC0), "null"),
        ((0xC2, 0xC3), "boolean"),
        ((0xCA, 0xCB), "number"),
        ((0xC4, 0xC6), "bytes"),
    )
    return next((kind for (lo, hi), kind in kinds if lo <= first <= hi), f"byte 0x{first:02x} (no msgpack value)")


def _is_map(first: int) -> bool:
    """Whether a msgpack value starting with the byte ``first`` is a map."""
    return 0x80 <= first <= 0x8F or first in (0xDE, 0xDF)


def _guess_encoding(data: bytes) -> str:
    first = data.lstrip()[:1]
    if first == b"{":
        return "json"
    if data[:1] and _is_map(data[0]):
        return "msgpack"
    return "yaml"


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> None:
    """Write ``motion_file`` as OMF (encoding from the options or the suffix)."""
    check_writable(path, overwrite)
    parts = _encode_parts(
        motion_file, encoding_for(path, (options or WriteOptions()).encoding), path
    )  # checks before the file exists
    with atomic_output(path, overwrite) as fh:
        for part in parts:  # large arrays are encoded a chunk at a time while writing
            fh.write(part)


__all__ = [
    "DEFAULT_GROUP",
    "ENCODINGS",
    "Encoding",
    "OmfMotionRecord",
    "OmfRecord",
    "ReadOptions",
    "WriteOptions",
    "decode",
    "encode",
    "read",
    "sniff",
    "to_document",
    "write",
]
