"""Sequential MCAP scan that survives a recording killed before its footer was written
(and the header rosbags needs for MCAP files of ROS 2 data that name no profile: :func:`ros2_head`).

rosbags (rightly) refuses an MCAP file without footer and summary. A crashed
``ros2 bag record`` leaves exactly that, and everything up to the last complete record
is still good. This scanner walks records from the start (into chunks, also a chunk
cut short when it is uncompressed, zstd or lz4) and stops at the first record that is
incomplete or malformed; messages before it are recovered.
"""

from __future__ import annotations

import contextlib
import mmap
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from ....core.errors import MotionFormatError, ReadError
from .compression import Budget, OverexpansionError, bomb, inflate, zstd_module
from .mcap_records import CHUNK as _CHUNK
from .mcap_records import (
    MAGIC,
    OP_CHANNEL,
    OP_CHUNK,
    OP_CHUNK_INDEX,
    OP_DATA_END,
    OP_FOOTER,
    OP_HEADER,
    OP_MESSAGE,
    OP_METADATA,
    OP_METADATA_INDEX,
    OP_SCHEMA,
    OP_STATISTICS,
)
from .mcap_records import MESSAGE as _MSG
from .mcap_records import RECORD as _REC
from .mcap_records import U16 as _U16
from .mcap_records import U32 as _U32
from .mcap_records import U64 as _U64

#: Bytes of decompressed chunks a scan keeps for the read that follows it (beyond them,
#: chunks are decompressed again when their messages are read).
KEEP_INFLATED = 512 << 20


class ScanError(MotionFormatError):
    """The file is not MCAP at all (bad magic / header)."""


class Schema(NamedTuple):
    name: str
    encoding: str
    data: str


class Channel(NamedTuple):
    topic: str
    schema_id: int
    message_encoding: str
    metadata: dict[str, str]


class ScanResult(NamedTuple):
    """What a full scan found."""

    schemas: dict[int, Schema]
    channels: dict[int, Channel]
    counts: dict[int, int]
    complete: bool  # a footer / data-end record was reached
    stop_offset: int  # where the scan stopped
    metadata: dict[str, dict[str, str]]  # name → map


def _string_map(buf: bytes | memoryview, pos: int) -> tuple[dict[str, str], int]:
    (length,) = _U32.unpack_from(buf, pos)
    entries: dict[str, str] = {}
    q, end = pos + 4, pos + 4 + length
    while q < end:
        key, q = _string(buf, q)
        entries[key], q = _string(buf, q)
    return entries, end


def _string(buf: bytes | memoryview, pos: int) -> tuple[str, int]:
    (n,) = _U32.unpack_from(buf, pos)
    end = pos + 4 + n
    if end > len(buf):
        raise ValueError("string beyond record")
    return bytes(buf[pos + 4 : end]).decode(), end


def _damaged() -> tuple[type[Exception], ...]:
    """What the decompressors raise on a damaged or cut-short chunk (the scan stops there)."""
    errors: list[type[Exception]] = [ValueError, RuntimeError, EOFError]  # lz4 raises RuntimeError
    with contextlib.suppress(ImportError):
        errors.append(zstd_module().ZstdError)
    return tuple(errors)


def _decompress(compression: str, data: bytes, size: int, partial: bool = False) -> bytes:
    """A chunk's records, stopped one byte past ``size`` (see ``compression.inflate``)."""
    out: bytes = inflate(compression, data, size, partial)
    return out


def ros2_head(raw: BinaryIO) -> tuple[bytes, int]:
    """The start of an MCAP file of ROS 2 data whose header names no profile, as rosbags reads it.

    rosbags reads only MCAP files whose header names the ``ros2`` profile (as rosbag2
    writes them); other writers of ROS 2 data may leave the profile empty (the format
    allows it, and Foxglove reads such files by their channels). For a file with an
    empty profile whose summary lists only ROS 2 channels (cdr messages, ros2msg /
    ros2idl schemas): its magic and a header record naming ``ros2``, and the offset
    where the real header record ends; ``(b"", 0)`` for any other file. Leaves ``raw``
    at any position.
    """
    raw.seek(0)
    start = raw.read(8 + 9 + 4)
    if len(start) < 21 or start[:8] != MAGIC or start[8] != OP_HEADER:
        return b"", 0
    length, profile = struct.unpack_from("<QI", start, 9)
    if profile != 0 or not 8 <= length <= 1 << 16:
        return b"", 0
    library = raw.read(length - 4)
    if len(library) != length - 4 or not _ros2_summary(raw):
        return b"", 0
    body = struct.pack("<I", 4) + b"ros2" + library
    return start[:9] + struct.pack("<Q", len(body)) + body, 17 + length


def _ros2_summary(raw: BinaryIO) -> bool:
    """Whether the MCAP summary of ``raw`` lists channels, all of them cdr with ROS 2 schemas."""
    size = raw.seek(0, 2)
    raw.seek(max(0, size - 37))
    footer = raw.read(37)
    if len(footer) != 37 or footer[-8:] != MAGIC or footer[0] != OP_FOOTER:
        return False
    summary, offsets = struct.unpack_from("<QQ", footer, 9)
    end = offsets or size - 37
    if not 0 < summary <= end <= size - 37:
        return False
    raw.seek(summary)
    data = raw.read(end - summary)
    pos, channels = 0, 0
    try:
        while pos + 9 <= len(data):
            op, length = _REC.unpack_from(data, pos)
            body = pos + 9
            if op == OP_SCHEMA:
                _, p = _string(data, body + 2)
                if _string(data, p)[0] not in ("ros2msg", "ros2idl"):
                    return False
            elif op == OP_CHANNEL:
                _, p = _string(data, body + 4)
                if _string(data, p)[0] != "cdr":
                    return False
                channels += 1
            pos = body + length
    except (ValueError, UnicodeDecodeError, struct.error):
        return False
    return channels > 0


def _summary(path: Path) -> bytes | None:
    """The summary section of the MCAP file ``path`` (from its footer), or None when it has none."""
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        footer_at = size - len(MAGIC) - 29
        if footer_at < len(MAGIC):
            return None
        fh.seek(footer_at)
        footer = fh.read(29)
        if len(footer) != 29 or footer[0] != OP_FOOTER:
            return None
        (start,) = _U64.unpack_from(footer, 9)
        if not start or not len(MAGIC) <= start <= footer_at:
            return None
        fh.seek(start)
        return fh.read(footer_at - start)


def unindexed_chunks(path: Path) -> bool:
    """Whether rosbags would decompress chunks of the MCAP file ``path`` on its own, unbounded.

    It does so (opening the file, or reading its messages) unless the summary has schemas,
    statistics and, when the statistics count chunks, the chunk index.
    """
    summary = _summary(path)
    if summary is None:
        return True
    found: set[int] = set()
    chunk_count = 0
    pos = 0
    while pos + 9 <= len(summary):
        op, length = _REC.unpack_from(summary, pos)
        found.add(op)
        if op == OP_STATISTICS and length >= 26:
            (chunk_count,) = _U32.unpack_from(summary, pos + 9 + 22)
        pos += 9 + length
    if OP_SCHEMA not in found or OP_STATISTICS not in found:
        return True
    return chunk_count > 0 and OP_CHUNK_INDEX not in found


def chunk_index_problem(path: Path, chunks: Any) -> str | None:
    """Where the summary's chunk index of ``path`` does not match the file, or None when it does.

    ``chunks`` are the chunk index entries (rosbags' ``ChunkInfo``: ``chunk_start_offset``,
    ``chunk_length``, ``compression``, ``compressed_size``, ``uncompressed_size``); each must
    point at a chunk record of that length whose header states the same compression and sizes.
    """
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        for i, chunk in enumerate(sorted(chunks, key=lambda c: c.chunk_start_offset)):
            where = f"chunk {i + 1} of its index, at byte {chunk.chunk_start_offset}"
            fh.seek(chunk.chunk_start_offset)
            head = fh.read(9 + _CHUNK.size + 4)
            if len(head) != len(head[:9]) + _CHUNK.size + 4 or chunk.chunk_start_offset + chunk.chunk_length > size:
                return f"{where}: beyond the end of the file"
            op, length = _REC.unpack_from(head, 0)
            _, _, usize, _ = _CHUNK.unpack_from(head, 9)
            (clen,) = _U32.unpack_from(head, 9 + _CHUNK.size)
            # A compression's name is a few bytes: a longer one is not a chunk (and is not read).
            if op != OP_CHUNK or 9 + length != chunk.chunk_length or clen > min(255, length):
                return f"{where}: no chunk record of {chunk.chunk_length} bytes there"
            compression = fh.read(clen)
            stored = fh.read(8)
            if len(stored) != 8:
                return f"{where}: no chunk record of {chunk.chunk_length} bytes there"
            if (
                compression != chunk.compression.encode()
                or usize != chunk.uncompressed_size
                or _U64.unpack(stored)[0] != chunk.compressed_size
            ):
                return f"{where}: the chunk there states another compression or size"
    return None


class McapScanner:
    """Walk the records of a (possibly truncated) MCAP file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Compressed chunks decompressed by :meth:`index`, by offset, for :meth:`messages`
        #: to take instead of decompressing them again (at most :data:`KEEP_INFLATED` bytes).
        self._inflated: dict[int, bytes] = {}
        self._kept: int | None = None
        #: What the chunks may expand to in the current walk of the file.
        self._budget = Budget(0)

    def _keep(self, pos: int, compression: str, inner: bytes) -> None:
        if self._kept is not None and compression and self._kept + len(inner) <= KEEP_INFLATED:
            self._inflated[pos] = inner
            self._kept += len(inner)

    def _records(self, on_message: Callable[[bytes | memoryview, int], None] | None, chunks: bool = True) -> ScanResult:
        schemas: dict[int, Schema] = {}
        channels: dict[int, Channel] = {}
        counts: dict[int, int] = {}
        metadata: dict[str, dict[str, str]] = {}
        with open(self.path, "rb") as fh:
            size = fh.seek(0, 2)
            if size < len(MAGIC) + 9:
                raise ScanError("file is too short for MCAP")
            self._budget = Budget(size)
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                if mm[: len(MAGIC)] != MAGIC:
                    raise ScanError("no MCAP magic")
                view = memoryview(mm)
                try:
                    pos, complete = self._walk(
                        view,
                        len(MAGIC),
                        schemas,
                        channels,
                        counts,
                        on_message,
                        top=True,
                        metadata=metadata,
                        chunks=chunks,
                    )
                except ReadError as exc:
                    # The frames of the traceback still hold views of the map, and closing a map
                    # with views alive raises BufferError, which would replace this error.
                    import traceback

                    for error in (exc, exc.__cause__):
                        if error is not None:
                            traceback.clear_frames(error.__traceback__)
                    raise
                finally:
                    view.release()
        return ScanResult(schemas, channels, counts, complete, pos, metadata)

    def _walk(
        self,
        buf: memoryview,
        pos: int,
        schemas: dict[int, Schema],
        channels: dict[int, Channel],
        counts: dict[int, int],
        on_message: Callable[[bytes | memoryview, int], None] | None,
        *,
        top: bool,
        metadata: dict[str, dict[str, str]] | None = None,
        chunks: bool = True,
    ) -> tuple[int, bool]:
        end = len(buf)
        while pos + 9 <= end:
            op, length = _REC.unpack_from(buf, pos)
            body_start = pos + 9
            body_end = body_start + length
            if top and op in (OP_FOOTER, OP_DATA_END):
                return pos, True
            if not top and op not in (OP_SCHEMA, OP_CHANNEL, OP_MESSAGE):
                return pos, False  # a chunk holds nothing else (zeros above all are damage, not records)
            if op == OP_CHUNK and not chunks:  # passed over whole, not decompressed
                if body_end > end:
                    return pos, False
                pos = body_end
                continue
            if op == OP_CHUNK:
                if body_start + 32 > end:
                    return pos, False
                _, _, usize, _ = _CHUNK.unpack_from(buf, body_start)
                try:
                    compression, rpos = _string(buf, body_start + 28)
                except ValueError:
                    return pos, False
                if rpos + 8 > end:
                    return pos, False
                (rlen,) = _U64.unpack_from(buf, rpos)
                data_start = rpos + 8
                if body_end <= end and data_start + rlen <= body_end:
                    inner = self._inflated.pop(pos, None)
                    if inner is None:
                        try:
                            inner = self._inflate(pos, compression, buf[data_start : data_start + rlen], usize)
                        except ReadError:
                            raise
                        except _damaged():
                            return pos, False
                        except Exception as exc:  # e.g. the decompressor is not installed: say so, with where
                            raise self._fail(pos, compression, exc) from exc
                        self._keep(pos, compression, inner)
                    self._walk(memoryview(inner), 0, schemas, channels, counts, on_message, top=False)
                    pos = body_end
                    continue
                # Cut short: recover what the partial chunk still holds, then stop.
                try:
                    inner = self._inflate(pos, compression, buf[data_start:end], usize, rlen)
                except ReadError:
                    raise
                except ValueError:  # an unknown compression: nothing to recover
                    inner = b""
                except Exception as exc:
                    raise self._fail(pos, compression, exc) from exc
                self._walk(memoryview(inner), 0, schemas, channels, counts, on_message, top=False)
                return pos, False
            if body_end > end:
                return pos, False
            body = buf[body_start:body_end]
            try:
                if op == OP_SCHEMA:
                    (sid,) = _U16.unpack_from(body, 0)
                    name, p = _string(body, 2)
                    encoding, p = _string(body, p)
                    (n,) = _U32.unpack_from(body, p)
                    schemas[sid] = Schema(name, encoding, bytes(body[p + 4 : p + 4 + n]).decode())
                elif op == OP_CHANNEL:
                    cid, sid = struct.unpack_from("<HH", body, 0)
                    topic, p = _string(body, 4)
                    enc, p = _string(body, p)
                    channels[cid] = Channel(topic, sid, enc, _string_map(body, p)[0])
                elif op == OP_METADATA and metadata is not None:
                    name, p = _string(body, 0)
                    metadata[name] = _string_map(body, p)[0]
                elif op == OP_MESSAGE:
                    if length < _MSG.size:
                        return pos, False
                    cid, _, log_time, _ = _MSG.unpack_from(body, 0)
                    counts[cid] = counts.get(cid, 0) + 1
                    if on_message is not None:
                        on_message(body, log_time)
            except (struct.error, ValueError, UnicodeDecodeError):
                return pos, False
            pos = body_end
        return pos, False

    def summary_metadata(self) -> dict[str, dict[str, str]] | None:
        """The metadata records the summary's index points at (name → map), without a scan.

        None when the file has no summary, its summary indexes no metadata record, or it
        does not lead to intact ones (the caller then scans the file).
        """
        try:
            with open(self.path, "rb") as fh:
                size = fh.seek(0, 2)
                footer_at = size - len(MAGIC) - 29
                if footer_at < len(MAGIC):
                    return None
                fh.seek(footer_at)
                footer = fh.read(29)
                if len(footer) != 29 or footer[0] != OP_FOOTER or fh.read(len(MAGIC)) != MAGIC:
                    return None
                (summary_start,) = _U64.unpack_from(footer, 9)
                if not summary_start or not len(MAGIC) <= summary_start <= footer_at:
                    return None
                fh.seek(summary_start)
                summary = fh.read(footer_at - summary_start)
                found: dict[str, dict[str, str]] = {}
                pos = 0
                while pos + 9 <= len(summary):
                    op, length = _REC.unpack_from(summary, pos)
                    body = summary[pos + 9 : pos + 9 + length]
                    if len(body) != length:
                        return None
                    if op == OP_METADATA_INDEX:  # offset, length, name
                        offset, rec_length = struct.unpack_from("<QQ", body, 0)
                        if rec_length > size:
                            return None
                        fh.seek(offset)
                        record = fh.read(rec_length)
                        if len(record) != rec_length or record[0] != OP_METADATA:
                            return None
                        name, p = _string(record, 9)
                        found[name] = _string_map(record, p)[0]
                    pos += 9 + length
                return found or None  # no metadata index (writers may leave it out): scan
        except (OSError, struct.error, ValueError, UnicodeDecodeError):
            return None

    def metadata(self) -> dict[str, dict[str, str]]:
        """The file's metadata records (name → map), found without decompressing any chunk.

        Through the summary's metadata index when the file has one; else (no summary, or
        a summary that indexes no metadata) by walking the records outside the chunks,
        where MCAP keeps metadata records, passing over each chunk whole.
        """
        found = self.summary_metadata()
        if found is not None:
            return found
        return self._records(None, chunks=False).metadata

    def _inflate(self, pos: int, compression: str, data: memoryview, usize: int, rlen: int | None = None) -> bytes:
        """The records of the chunk at ``pos``, bounded (see ``compression``); ``rlen``: it is cut short.

        Raises:
            DecompressionBombError: The chunk states, or expands to, more than it can justify.
        """
        try:
            if compression:
                self._budget.take(pos, usize, len(data) if rlen is None else rlen)
            out = _decompress(compression, bytes(data), usize, rlen is not None)
        except OverexpansionError as exc:
            raise bomb(self.path, f"the {compression} chunk", exc, pos) from None
        return out

    def _fail(self, pos: int, compression: str, exc: Exception) -> ReadError:
        what = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return ReadError(self.path, f"cannot decompress the {compression} chunk: {what}", offset=pos)

    def index(self) -> ScanResult:
        """Schemas, channels and message counts of every intact record.

        The compressed chunks it decompresses are kept (up to :data:`KEEP_INFLATED` bytes)
        for the next :meth:`messages`, which then decompresses each chunk no second time.
        """
        self._inflated, self._kept = {}, 0
        try:
            return self._records(None)
        finally:
            self._kept = None

    def check(self) -> None:
        """Walk every record, decompressing each chunk bounded and keeping nothing.

        Raises:
            DecompressionBombError: A chunk states, or expands to, more than it can justify.
            ScanError: The file is not MCAP.
        """
        self._records(None)

    def messages(self, channel_ids: set[int]) -> Iterator[tuple[int, int, bytes]]:
        """(channel id, log time ns, data) of every intact message on ``channel_ids``, in file order."""
        found: list[tuple[int, int, bytes]] = []

        def keep(body: bytes | memoryview, log_time: int) -> None:
            (cid,) = _U16.unpack_from(body, 0)
            if cid in channel_ids:
                found.append((cid, log_time, bytes(body[_MSG.size :])))

        try:
            self._records(keep)
        finally:
            self._inflated = {}
        yield from found
