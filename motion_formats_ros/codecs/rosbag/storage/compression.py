"""Bounded decompression: rosbag2's zstd file compression (``.db3.zstd``, ``.mcap.zstd``),
and compressed chunks and messages (MCAP zstd / lz4, ROS 1 bz2 / lz4, zstd messages).

A compressed storage file is decompressed into a temporary copy before it is read; the
copy may be no bigger than a bounded multiple of the file (and the free space), so that
a decompression bomb is refused before it fills the disk. A chunk (or message) is
decompressed in bounded steps that stop at the size its header states (:func:`inflate`);
the size it states may be no more than ``MAX_RATIO`` times its compressed size, and
the chunks of one file no more than that multiple of the file in all (:class:`Budget`),
each at least ``MIN_EXPANSION``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ....core.errors import MotionFormatError, ReadError
from ....core.inputs import MAX_RATIO, MIN_EXPANSION, expansion_bound


def zstd_module() -> Any:
    if sys.version_info >= (3, 14):  # pragma: no cover - the standard library's module
        from compression import zstd  # type: ignore[import-not-found]
    else:
        from backports import zstd
    return zstd


#: zstd frames start with these bytes (RFC 8878); CDR and ROS 1 messages never do.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BLOCK = 1 << 20


class ExpansionError(MotionFormatError):
    """A compressed file would decompress to more than its limit (internal; a ReadError to callers)."""

    def __init__(self, limit: int, declared: int | None = None) -> None:
        super().__init__(limit, declared)
        self.limit = limit
        self.declared = declared


class DecompressionBombError(ReadError):
    """Compressed data that states, or expands to, more than it can justify (see the module docstring).

    A reader that meets one does not retry the bag another way: the refusal is the answer.
    """


class OverexpansionError(MotionFormatError):
    """Compressed data expands past its bound (internal: callers raise DecompressionBombError, file and offset)."""


def expansion_limit(src: Path, folder: Path) -> int:
    """How many bytes ``src`` may decompress to in ``folder``: a bounded multiple of its size,
    and never more than the space free there (less a margin)."""
    limit = expansion_bound(src.stat().st_size)
    fs = os.statvfs(folder)  # what shutil.disk_usage reads, without shutil's archive imports
    free = fs.f_bavail * fs.f_frsize - (16 << 20)
    return max(0, min(limit, free))


def declared_size(head: bytes) -> int | None:
    """The content size a zstd frame header states (RFC 8878 §3.1.1.1), if it does."""
    if len(head) < 5 or head[:4] != ZSTD_MAGIC:
        return None
    descriptor = head[4]
    fcs_flag, single, dict_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    pos = 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag]
    width = (1 if single else 0, 2, 4, 8)[fcs_flag]
    if not width or len(head) < pos + width:
        return None
    value = int.from_bytes(head[pos : pos + width], "little")
    return value + 256 if width == 2 else value


def decompress_file(src: Path, dest: Path, limit: int | None = None) -> tuple[int, bool]:
    """Stream-decompress a zstd file (rosbag2 file compression) into ``dest``.

    A file cut short (the recorder was killed while compressing) or damaged gives what
    decompresses before the cut. With ``limit``, a first frame that states a larger size
    is refused before anything is written, and writing stops at ``limit`` bytes.

    Returns:
        (bytes written, whether the last frame was complete).

    Raises:
        ExpansionError: The content is larger than ``limit``.
    """
    zstd = zstd_module()
    if limit is not None:
        with open(src, "rb") as fin:
            declared = declared_size(fin.read(18))
        if declared is not None and declared > limit:
            raise ExpansionError(limit, declared)
    written = 0
    started = False  # the current decompressor has been fed part of a frame
    with open(src, "rb") as fin, open(dest, "wb") as fout:
        dec = zstd.ZstdDecompressor()
        try:
            while chunk := fin.read(_BLOCK):
                pending = chunk
                while True:
                    if pending:
                        started = True
                    out = dec.decompress(pending, max_length=4 * _BLOCK)
                    pending = b""
                    if limit is not None and written + len(out) > limit:
                        raise ExpansionError(limit)
                    fout.write(out)
                    written += len(out)
                    if dec.eof:
                        pending = dec.unused_data
                        dec = zstd.ZstdDecompressor()
                        started = False
                        if not pending:
                            break
                        continue
                    if dec.needs_input:
                        break
        except zstd.ZstdError:
            return written, False
    return written, not started


def _decompressor(compression: str) -> Any:
    """The streaming decompressor class of a chunk compression (all three share one interface)."""
    if compression == "zstd":
        return zstd_module().ZstdDecompressor
    if compression == "lz4":
        from lz4.frame import LZ4FrameDecompressor

        return LZ4FrameDecompressor
    if compression == "bz2":
        import bz2

        return bz2.BZ2Decompressor
    raise ValueError(f"unknown chunk compression {compression!r}")


def inflate(compression: str, data: Any, size: int, partial: bool = False) -> Any:
    """``data`` decompressed, frame after frame, stopped one byte past ``size`` (what its header states).

    ``compression`` is ``zstd``, ``lz4``, ``bz2`` or ``""`` (stored: ``data`` itself). With
    ``partial`` (a chunk cut short), what decompresses before damage or the end of the data.

    Raises:
        OverexpansionError: The data decompresses to more than ``size`` bytes.
        ValueError: An unknown compression, or the data ends inside a frame (unless ``partial``).
        Exception: The decompressor's own error on damaged data (unless ``partial``).
    """
    if compression == "":
        return data
    new = _decompressor(compression)
    parts: list[bytes] = []
    total = 0
    rest = data
    while True:
        dec = new()
        try:
            out = dec.decompress(rest, max_length=size - total + 1)
        except Exception:  # each library its own kind (ZstdError, lz4's RuntimeError, bz2's OSError)
            if partial:  # a chunk cut short: its damage or its cut is where the data ends (planned)
                break
            raise
        parts.append(out)
        total += len(out)
        if total > size:
            raise OverexpansionError(f"decompresses to more than {size} bytes")
        if not dec.eof:
            if partial:
                break
            raise ValueError(f"the {compression} data ends inside a frame")
        rest = dec.unused_data
        if not rest:
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)


class Budget:
    """What the compressed chunks of one file of ``size`` bytes may expand to in one read.

    A chunk may state no more than ``expansion_bound`` (``core.inputs``) of its compressed
    size, and the chunks of the file (each counted once, however often it is read) no
    more than ``expansion_bound`` of the file's size in all.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.limit = expansion_bound(size)
        self.left = self.limit
        self._counted: set[int] = set()

    def take(self, key: int, declared: int, compressed: int) -> None:
        """Count the chunk ``key`` that states ``declared`` bytes from ``compressed`` ones.

        Raises:
            OverexpansionError: It states more than its compressed size or the file can justify.
        """
        most = expansion_bound(compressed)
        if declared > most:
            raise OverexpansionError(
                f"states {declared} bytes from {compressed} compressed ones, more than the {most} they may "
                f"expand to ({MAX_RATIO} times as many, at least {MIN_EXPANSION})"
            )
        if key in self._counted:
            return
        if declared > self.left:
            raise OverexpansionError(
                f"states {declared} bytes, which with the chunks before it is more than the {self.limit} "
                f"a file of {self.size} bytes may expand to ({MAX_RATIO} times its size, at least {MIN_EXPANSION})"
            )
        self.left -= declared
        self._counted.add(key)


def bomb(path: Any, what: str, exc: OverexpansionError, offset: int | None = None) -> DecompressionBombError:
    """The error for ``what`` (e.g. ``the zstd chunk``) of ``path`` that over-expands as ``exc`` says."""
    return DecompressionBombError(path, f"{what} {exc} (a decompression bomb?)", offset=offset)
