"""Storage files opened so that a damaged length field costs no memory the file cannot back.

rosbags opens bag files with ``Path.open("rb")`` and reads sized records with
``read(size)``; :class:`BoundedPath` hands it a :class:`BoundedReader`, whose reads are
clamped to what the file has left (and which presents a ``ros2`` MCAP header for files
of ROS 2 data that name no profile, see :func:`.mcap_scan.ros2_head`).
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

from . import mcap_scan

#: Reads above this size are clamped to what the file has left (see :class:`BoundedReader`).
_CLAMP_ABOVE = 1 << 16


class BoundedReader(io.BufferedReader):
    """A binary file whose reads never ask for more bytes than the file has left.

    rosbags reads sized records with ``bio.read(size)``, and ``BufferedReader.read``
    allocates ``size`` bytes before it reads: a damaged length field would cost memory
    that the file cannot back (up to a MemoryError). Clamped, the read comes back short
    and rosbags reports the damage as a short read.

    With ``head``, reads from the start of the file see ``head`` instead of the file's
    first ``resume`` bytes (see :func:`mcap_scan.ros2_head`); the first seek ends that.
    """

    def __init__(self, raw: io.RawIOBase, head: bytes = b"", resume: int = 0) -> None:
        super().__init__(raw)
        self._end = os.fstat(raw.fileno()).st_size
        self._head = head
        self._head_pos = 0
        if head:
            super().seek(resume)

    def read(self, size: int | None = -1, /) -> bytes:
        if self._head:
            part = self._head[self._head_pos :] if size is None or size < 0 else self._head[self._head_pos :][:size]
            self._head_pos += len(part)
            if self._head_pos == len(self._head):
                self._head = b""
            more = -1 if size is None or size < 0 else size - len(part)
            return part + (self.read(more) if more else b"")
        if size is not None and size > _CLAMP_ABOVE:
            size = min(size, max(0, self._end - self.tell()))
        return super().read(size)

    def tell(self) -> int:
        return self._head_pos if self._head else super().tell()

    def seek(self, offset: int, whence: int = 0, /) -> int:
        self._head = b""
        return super().seek(offset, whence)


if sys.platform == "win32":
    from pathlib import WindowsPath as _ConcretePath
else:
    from pathlib import PosixPath as _ConcretePath


class BoundedPath(_ConcretePath):
    """A path whose ``open("rb")`` gives a :class:`BoundedReader` (what rosbags opens bags with).

    Paths rosbags derives from it (``folder / "x.mcap"``) are bounded too.
    """

    def open(
        self,
        mode: str = "r",
        buffering: int = -1,
        encoding: str | None = None,
        errors: str | None = None,
        newline: str | None = None,
    ) -> Any:
        if mode == "rb":
            raw = io.FileIO(os.fspath(self), "rb")
            head, resume = mcap_scan.ros2_head(raw) if self.suffix == ".mcap" else (b"", 0)
            raw.seek(0)
            return BoundedReader(raw, head, resume)
        return super().open(mode, buffering, encoding, errors, newline)
