"""zstd file compression of rosbag2 storage files (``.db3.zstd``, ``.mcap.zstd``), bounded.

A compressed storage file is decompressed into a temporary copy before it is read; the
copy may be no bigger than a bounded multiple of the file (and the free space), so that
a decompression bomb is refused before it fills the disk.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ....core.errors import MotionFormatError


def zstd_module() -> Any:
    if sys.version_info >= (3, 14):  # pragma: no cover - the standard library's module
        from compression import zstd  # type: ignore[import-not-found]
    else:
        from backports import zstd
    return zstd


#: zstd frames start with these bytes (RFC 8878); CDR and ROS 1 messages never do.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BLOCK = 1 << 20


#: A compressed storage file may expand to this many times its size (bags of real data
#: compress a few times to a few tens of times), but at least :data:`MIN_EXPANSION` bytes.
MAX_RATIO = 200
MIN_EXPANSION = 64 << 20


class ExpansionError(MotionFormatError):
    """A compressed file would decompress to more than its limit (internal; a ReadError to callers)."""

    def __init__(self, limit: int, declared: int | None = None) -> None:
        super().__init__(limit, declared)
        self.limit = limit
        self.declared = declared


def expansion_limit(src: Path, folder: Path) -> int:
    """How many bytes ``src`` may decompress to in ``folder``: a bounded multiple of its size,
    and never more than the space free there (less a margin)."""
    limit = max(MIN_EXPANSION, MAX_RATIO * src.stat().st_size)
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
