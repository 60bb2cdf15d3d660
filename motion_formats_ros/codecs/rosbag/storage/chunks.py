"""Messages straight from storage, in blocks: MCAP chunks through their message indexes, sqlite3 by query.

A :class:`Block` holds many messages of one topic, as one byte matrix when their sizes
are equal, read without a Python step per message. MCAP chunks are read from the
memory-mapped file (no copy for uncompressed ones), each decompressed once, bounded (see
``compression``: a chunk expands to no more than it states, nor the chunks of a file to
more than a bounded multiple of it), and checked against its CRC; a chunk whose message
index does not match its records is walked record by record instead.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import mmap
import os
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ....core.errors import ReadError
from .compression import Budget, OverexpansionError, bomb
from .compression import inflate as inflate_bounded
from .mcap_records import (
    MESSAGE_INDEX,
    MESSAGE_LOGGED,
    MESSAGE_RECORD,
    OP_CHANNEL,
    OP_MESSAGE,
    OP_MESSAGE_INDEX,
    OP_SCHEMA,
    RECORD,
    U32,
    U64,
)
from .readers import reason


class Block:
    """Messages of one topic read at once (see :meth:`.source.BagSource.blocks`).

    Attributes:
        topic: The topic.
        times: Receive times (ns), in the order of the payloads.
        rows: (M, size) bytes when every payload has the same size (row i is message i), else None.
        raws: The payloads when their sizes differ, else None.
    """

    __slots__ = ("raws", "rows", "times", "topic")

    def __init__(
        self,
        topic: str,
        times: npt.NDArray[np.int64],
        rows: npt.NDArray[np.uint8] | None = None,
        raws: list[bytes] | None = None,
    ) -> None:
        self.topic = topic
        self.times = times
        self.rows = rows
        self.raws = raws

    def __len__(self) -> int:
        return int(self.times.size)

    def payloads(self) -> list[bytes]:
        """Every payload as bytes."""
        if self.raws is not None:
            return self.raws
        assert self.rows is not None
        return [row.tobytes() for row in self.rows]


def make_block(topic: str, times: Sequence[int], raws: Sequence[bytes]) -> Block:
    """A block of payloads: a byte matrix when they all have the same size."""
    stamps = np.fromiter(times, dtype=np.int64, count=len(times))
    if raws and len(set(map(len, raws))) == 1:
        rows = np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(len(raws), len(raws[0]))
        return Block(topic, stamps, rows=rows)
    return Block(topic, stamps, raws=list(raws))


#: The records a chunk may hold (MCAP: schemas, channels and messages). Any other, zeros
#: above all (opcode 0 is no record), is damage: walking a chunk of them would take a step
#: per 9 bytes.
IN_CHUNK = frozenset((OP_SCHEMA, OP_CHANNEL, OP_MESSAGE))


def _foreign(op: int, pos: int) -> ValueError:
    return ValueError(f"a record of opcode {op:#04x} at chunk byte {pos} (a chunk holds schemas, channels, messages)")


#: Uncompressed chunks above this size (without a CRC to check) are read record by record
#: instead of whole, so that one huge unwanted message (e.g. a whole-motion JointTrajectory
#: next to the joint states) does not have to be held in memory.
BIG_CHUNK = 4 << 20


def _iter_records(bio: Any, start: int, size: int, ids: dict[int, str]) -> Iterator[tuple[str, int, bytes]]:
    """Wanted messages of an uncompressed chunk at ``start``, reading only their bytes."""
    head = MESSAGE_RECORD
    pos, end = start, start + size
    while pos < end:
        bio.seek(pos)
        raw = bio.read(head.size)
        if len(raw) < 9:
            raise ValueError(f"truncated MCAP chunk record at byte {pos}")
        if raw[0] == OP_MESSAGE and len(raw) == head.size:
            _, length, cid, _, log_time = head.unpack(raw)
            topic = ids.get(cid)
            if topic is not None:
                bio.seek(pos + 31)
                data = bio.read(length - 22)
                if len(data) != length - 22:
                    raise ValueError(f"truncated MCAP message at byte {pos}")
                yield topic, log_time, data
        elif raw[0] not in IN_CHUNK:
            raise _foreign(raw[0], pos - start)
        else:
            (length,) = U64.unpack_from(raw, 1)
        pos += 9 + length


def iter_chunks(storages: list[Any], wanted: set[str]) -> Iterator[tuple[str, int, bytes]]:
    """Raw messages of ``wanted`` topics straight from indexed MCAP storages' chunks, in file order."""
    rec = RECORD.unpack_from
    msg = MESSAGE_LOGGED.unpack_from
    u32 = U32.unpack_from
    for storage in storages:
        ids = {c.id: c.topic for c in storage.connections if c.topic in wanted}
        bio = storage.bio
        budget = _budget(storage)
        for chunk in sorted(storage.chunks, key=lambda c: c.chunk_start_offset):
            if not any(chunk.channel_count.get(cid) for cid in ids):
                continue
            try:
                bio.seek(chunk.chunk_start_offset + 9 + 24)
                (crc,) = u32(bio.read(4))
                records = chunk.chunk_start_offset + 9 + 40 + len(chunk.compression)
                if chunk.compression == "" and not crc and chunk.uncompressed_size > BIG_CHUNK:
                    yield from _iter_records(bio, records, chunk.uncompressed_size, ids)
                    continue
                data = _chunk_data(bio, chunk, records, crc, budget)
                pos, end = 0, len(data)
                while pos < end:
                    op, length = rec(data, pos)
                    if op == OP_MESSAGE:
                        cid, _, log_time = msg(data, pos + 9)
                        topic = ids.get(cid)
                        if topic is not None:
                            yield topic, log_time, data[pos + 31 : pos + 9 + length]
                    elif op not in IN_CHUNK:
                        raise _foreign(op, pos)
                    pos += 9 + length
            except ReadError:
                raise
            except OverexpansionError as exc:
                raise bomb(storage.path, f"the {chunk.compression} chunk", exc, chunk.chunk_start_offset) from None
            except Exception as exc:  # short reads, bad CRC, a decompressor's error, a cut record
                raise ReadError(
                    storage.path, f"damaged MCAP chunk: {reason(exc)}", offset=chunk.chunk_start_offset
                ) from exc


#: Messages per block read from sqlite3 storage (bounds the rows held at once; a block of
#: about a megabyte stays in the CPU's cache while it is joined, checked and copied).
SQLITE_BLOCK = 1024


def sqlite_blocks(storage: Any, wanted: set[str]) -> Iterator[Block]:
    """Blocks of the wanted topics of an sqlite3 storage, in the order rosbags reads them."""
    conn = storage.dbconn
    for topic in sorted(wanted):
        ids = sorted({c.id for c in storage.connections if c.topic == topic})
        if not ids:
            continue
        marks = ",".join("?" for _ in ids)
        sql = f"SELECT timestamp, data FROM messages WHERE topic_id IN ({marks}) ORDER BY timestamp, id"  # noqa: S608
        every_row = False
        if getattr(storage, "owed", False):  # a quick open: this read may do the scan it left out
            every_row = visits_every_row(conn, sql, ids)
        cursor = conn.execute(sql, ids)
        while rows := list(itertools.islice(cursor, SQLITE_BLOCK)):
            times, raws = zip(*rows, strict=True)
            if set(map(type, raws)) != {bytes} or set(map(type, times)) != {int}:
                # A damaged database can hand back a number or text where a message's blob or
                # its integer timestamp should be.
                bad = next(i for i, (t, r) in enumerate(rows) if type(r) is not bytes or type(t) is not int)
                raise ReadError(
                    storage.path,
                    f"damaged sqlite3 storage: a message of topic {topic!r} has "
                    f"{type(rows[bad][1]).__name__} data and {type(rows[bad][0]).__name__} timestamp "
                    "(expected a blob and an integer)",
                )
            yield make_block(topic, times, raws)
        if every_row:
            storage.visited()


_MSG_HEAD = 31  # opcode, record length, channel id, sequence, log time, publish time


def mcap_blocks(storage: Any, wanted: set[str]) -> Iterator[Block]:
    """Blocks of the wanted channels of indexed MCAP storage, chunk by chunk in file order.

    Messages are located through each chunk's message index (vectorised); a chunk without
    an index for a wanted channel, or whose index does not match its records, is walked
    record by record instead.
    """

    ids = {c.id: c.topic for c in storage.connections if c.topic in wanted}
    bio = storage.bio
    mapping = _Mapping.of(bio)
    mapped = mapping.view if mapping is not None else None
    budget = _budget(storage)
    for chunk in sorted(storage.chunks, key=lambda c: c.chunk_start_offset):
        if mapping is not None:  # the chunks before this one are done with
            mapping.drop_before(chunk.chunk_start_offset)
        present = [cid for cid in ids if chunk.channel_count.get(cid)]
        if not present:
            continue
        try:
            bio.seek(chunk.chunk_start_offset + 9 + 24)
            (crc,) = U32.unpack(bio.read(4))
            records = chunk.chunk_start_offset + 9 + 40 + len(chunk.compression)
            if chunk.compression == "" and not crc and chunk.uncompressed_size > BIG_CHUNK:
                found: dict[str, tuple[list[int], list[bytes]]] = {}
                for topic, t, raw in _iter_records(bio, records, chunk.uncompressed_size, ids):
                    times, raws = found.setdefault(topic, ([], []))
                    times.append(t)
                    raws.append(raw)
                yield from (make_block(topic, times, raws) for topic, (times, raws) in found.items())
                continue
            data = _chunk_data(bio, chunk, records, crc, budget, mapped)
        except OverexpansionError as exc:
            raise bomb(storage.path, f"the {chunk.compression} chunk", exc, chunk.chunk_start_offset) from None
        except Exception as exc:  # short reads, bad CRC, a decompressor's error
            raise ReadError(
                storage.path, f"damaged MCAP chunk: {reason(exc)}", offset=chunk.chunk_start_offset
            ) from exc
        # A topic on several channels of the chunk interleaves them: walked, in file order.
        single = len({ids[cid] for cid in present}) == len(present)
        indexed = [_indexed_block(bio, chunk, data, cid, ids[cid], mapped) for cid in present] if single else [None]
        if all(b is not None for b in indexed):
            yield from (b for b in indexed if b is not None and len(b))
            continue
        try:
            yield from _walked_blocks(data, {cid: ids[cid] for cid in present})
        except Exception as exc:
            raise ReadError(
                storage.path, f"damaged MCAP chunk: {reason(exc)}", offset=chunk.chunk_start_offset
            ) from exc


def _walked_blocks(data: bytes, ids: dict[int, str]) -> Iterator[Block]:
    """Blocks of a decompressed chunk's records, walked one by one (the general way), one per topic."""
    rec = RECORD.unpack_from
    msg = MESSAGE_LOGGED.unpack_from
    found: dict[str, tuple[list[int], list[bytes]]] = {topic: ([], []) for topic in ids.values()}
    pos, end = 0, len(data)
    while pos < end:
        op, length = rec(data, pos)
        if pos + 9 + length > end:
            raise ValueError(f"MCAP record at chunk byte {pos} runs past the chunk")
        if op == OP_MESSAGE:
            cid, _, log_time = msg(data, pos + 9)
            topic = ids.get(cid)
            if topic is not None:
                found[topic][0].append(log_time)
                found[topic][1].append(bytes(data[pos + _MSG_HEAD : pos + 9 + length]))
        elif op not in IN_CHUNK:
            raise _foreign(op, pos)
        pos += 9 + length
    for topic, (times, raws) in found.items():
        if times:
            yield make_block(topic, times, raws)


def _gather(buf: npt.NDArray[np.uint8], at: npt.NDArray[np.int64], dtype: str) -> npt.NDArray[Any]:
    """The ``dtype`` value at each byte offset ``at`` of ``buf``."""
    width = np.dtype(dtype).itemsize
    out: npt.NDArray[Any] = buf[at[:, None] + np.arange(width)].view(dtype)[:, 0]
    return out


def _index_entries(bio: Any, where: int, cid: int, mapped: memoryview | None) -> bytes | memoryview | None:
    """The (time, offset) entries of the message index record at ``where``, or None when it is not one."""
    if mapped is not None:
        head: bytes | memoryview = mapped[where : where + 15]
    else:
        bio.seek(where)
        head = bio.read(15)
    if len(head) != 15:
        return None
    op, _, channel, size = MESSAGE_INDEX.unpack(head)
    if op != OP_MESSAGE_INDEX or channel != cid or size % 16:
        return None
    entries = mapped[where + 15 : where + 15 + size] if mapped is not None else bio.read(size)
    return entries if len(entries) == size else None


def _field(buf: npt.NDArray[np.uint8], first: int, n: int, stride: int, dtype: str) -> npt.NDArray[Any]:
    """The ``dtype`` value at ``first``, ``first + stride`` … (n of them) of ``buf``: a strided view."""
    width = np.dtype(dtype).itemsize
    view = np.lib.stride_tricks.as_strided(buf[first:], shape=(n, width), strides=(stride, 1), writeable=False)
    out: npt.NDArray[Any] = view.view(dtype)[:, 0]
    return out


def _indexed_block(
    bio: Any, chunk: Any, data: Any, cid: int, topic: str, mapped: memoryview | None = None
) -> Block | None:
    """A channel's messages of a decompressed chunk, located by its message index; None: walk instead.

    Records one after another at a constant stride (messages of one size, nothing in
    between: the usual case) are checked and read through strided views, without a
    gather per field.
    """
    where = chunk.message_index_offsets.get(cid)
    if where is None:
        return None
    entries = _index_entries(bio, where, cid, mapped)
    if entries is None:
        return None
    offsets = np.frombuffer(entries, dtype="<u8").reshape(-1, 2)[:, 1].astype(np.int64)
    n = offsets.size
    if n > 1 and not bool(np.all(offsets[1:] > offsets[:-1])):
        offsets = np.sort(offsets)
    if n != chunk.channel_count.get(cid) or (n and (offsets[0] < 0 or offsets[-1] + _MSG_HEAD > len(data))):
        return None
    if n > 1 and not bool(np.all(np.diff(offsets) > 0)):
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    if not n:
        return Block(topic, np.zeros(0, dtype=np.int64), raws=[])
    first = int(offsets[0])
    stride = int(offsets[1] - offsets[0]) if n > 1 else 0
    if n > 1 and bool(np.all(np.diff(offsets) == stride)) and stride >= _MSG_HEAD:
        size = stride - _MSG_HEAD  # every record exactly fills the gap to the next one
        if (
            first + (n - 1) * stride + _MSG_HEAD + size <= len(data)
            and bool(np.all(_field(buf, first, n, stride, "<u1") == OP_MESSAGE))
            and bool(np.all(_field(buf, first + 1, n, stride, "<u8") == size + _MSG_HEAD - 9))
            and bool(np.all(_field(buf, first + 9, n, stride, "<u2") == cid))
        ):
            times = _field(buf, first + 15, n, stride, "<u8").astype(np.int64)
            rows = np.lib.stride_tricks.as_strided(
                buf[first + _MSG_HEAD :], shape=(n, size), strides=(stride, 1), writeable=False
            )
            return Block(topic, times, rows=rows)
    lengths = _gather(buf, offsets + 1, "<u8").astype(np.int64)
    if (
        not bool(np.all(buf[offsets] == OP_MESSAGE))
        or not bool(np.all(_gather(buf, offsets + 9, "<u2") == cid))
        or not bool(np.all(lengths >= _MSG_HEAD - 9))
        or not bool(np.all(offsets + 9 + lengths <= len(data)))
        or (n > 1 and not bool(np.all(offsets[:-1] + 9 + lengths[:-1] <= offsets[1:])))
    ):
        return None
    times = _gather(buf, offsets + 15, "<u8").astype(np.int64)
    sizes = lengths - (_MSG_HEAD - 9)
    size = int(sizes[0])
    if not bool(np.all(sizes == size)):
        raws = [
            bytes(data[o + _MSG_HEAD : o + _MSG_HEAD + k])
            for o, k in zip(offsets.tolist(), sizes.tolist(), strict=True)
        ]
        return Block(topic, times, raws=raws)
    starts = offsets + _MSG_HEAD
    steps = np.diff(starts)
    if n == 1 or bool(np.all(steps == steps[0])):
        stride = int(steps[0]) if n > 1 else size
        rows = np.lib.stride_tricks.as_strided(
            buf[int(starts[0]) :], shape=(n, size), strides=(stride, 1), writeable=False
        )
        return Block(topic, times, rows=rows)
    return Block(topic, times, rows=buf[starts[:, None] + np.arange(size)])


class _Mapping:
    """A storage file memory-mapped read-only: its chunks are read without a copy.

    The pages of the chunks already read are given back (``madvise``), so that the
    process does not keep the whole file resident; they are still in the page cache, and
    a view that reads them again gets them back from there.
    """

    def __init__(self, mm: mmap.mmap) -> None:
        self.mm = mm
        self.view = memoryview(mm)
        self.dropped = 0

    @classmethod
    def of(cls, bio: Any) -> _Mapping | None:
        """The file behind ``bio`` mapped, or None when it cannot be (empty, not a real file)."""
        try:
            if not os.fstat(bio.fileno()).st_size:
                return None
            return cls(mmap.mmap(bio.fileno(), 0, access=mmap.ACCESS_READ))
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            return None

    def drop_before(self, offset: int) -> None:
        """Give back the resident pages before ``offset``."""
        end = offset - offset % mmap.PAGESIZE
        if end > self.dropped and hasattr(mmap, "MADV_DONTNEED"):
            with contextlib.suppress(OSError, ValueError):
                self.mm.madvise(mmap.MADV_DONTNEED, self.dropped, end - self.dropped)
            self.dropped = end


def visits_every_row(db: Any, sql: str, args: Any) -> bool:
    """Whether sqlite runs ``sql`` as a scan of the messages table (every row read), not a search."""
    plan = [str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {sql}", args)]
    on_messages = [d for d in plan if " messages" in f" {d}"]
    return bool(on_messages) and all(d.startswith("SCAN") for d in on_messages)


def _budget(storage: Any) -> Budget:
    """What the chunks of ``storage`` may expand to in one read (see ``compression.Budget``)."""
    return Budget(os.fstat(storage.bio.fileno()).st_size)


def inflate(data: Any, compression: str, size: int, crc: int) -> Any:
    """A chunk's records from its stored bytes: decompressed, of the size its header states, with its CRC (0: none).

    Decompression stops one byte past ``size``.

    Raises:
        OverexpansionError: The chunk decompresses to more than it states.
        ValueError: An unknown compression, another size, another CRC (or the decompressor's error).
    """
    raw = inflate_bounded(compression, data, size)
    if len(raw) != size:
        raise ValueError(f"the chunk decompresses to {len(raw)} bytes, its header states {size}")
    if crc and zlib.crc32(raw) != crc:
        raise ValueError("the chunk's CRC does not match its records")
    return raw


def _chunk_data(bio: Any, chunk: Any, records: int, crc: int, budget: Budget, mapped: memoryview | None = None) -> Any:
    """A chunk's records, decompressed within ``budget`` and checked against ``crc`` (0: none), from offset ``records``.

    From ``mapped`` (the mapped file) an uncompressed chunk is a view of the file's
    pages (no copy) and a compressed one is decompressed straight from them.

    Raises:
        OverexpansionError: The chunk states, or expands to, more than it can justify.
    """
    if chunk.compression:
        budget.take(chunk.chunk_start_offset, chunk.uncompressed_size, chunk.compressed_size)
    if mapped is not None:
        compressed = mapped[records : records + chunk.compressed_size]
        if len(compressed) != chunk.compressed_size:
            raise ValueError("truncated MCAP chunk")
        return inflate(compressed, chunk.compression, chunk.uncompressed_size, crc)
    bio.seek(records)
    compressed = bio.read(chunk.compressed_size)
    if len(compressed) != chunk.compressed_size:
        raise ValueError("truncated MCAP chunk")
    return inflate(compressed, chunk.compression, chunk.uncompressed_size, crc)
