"""JointState samples of one topic: decoded in bulk where regular, else one by one, into arrays that grow.

Messages of one layout (joint names, present channels) are decoded in bulk with numpy
(``storage.bulk``) and copied into the arrays of the current run as they come, so that a
topic of one layout ends as one segment whose arrays are the motion's; irregular batches
are cut into runs of one layout, and only messages no run holds are decoded with
rosbags' deserializer.
"""

from __future__ import annotations

import functools
import mmap
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.merge import Segment, joint_state_problem
from .storage import BagSource, Block, PayloadTooShortError, UndecodableMessageError
from .storage import bulk as _bulk

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


#: Arrays at least this big are allocated with their pages mapped at once (see :func:`_empty`).
PREFAULT_BYTES = 1 << 22
#: The size of a transparent huge page (x86-64, arm64 with 4 KiB pages).
HUGE_PAGE = 1 << 21
_THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")


@functools.cache
def _huge_pages() -> bool:
    """Whether anonymous memory may be backed by transparent huge pages on request (``madvise``)."""
    try:
        setting = _THP_SETTING.read_text()
    except OSError:
        return False
    return hasattr(mmap, "MADV_HUGEPAGE") and ("[always]" in setting or "[madvise]" in setting)


def _empty(shape: tuple[int, ...], dtype: Any, prefault: bool = True) -> npt.NDArray[Any]:
    """An uninitialised array; a big one that will be filled (``prefault``) in memory that is cheap to fill.

    Touching the pages of a fresh allocation one by one (a fault per 4 KiB page) costs
    more than filling them. Where the kernel offers transparent huge pages, such an
    array gets its own anonymous mapping, aligned to and advised for huge pages (a fault
    per 2 MiB); elsewhere anonymous memory mapped with MAP_POPULATE (mapped by the kernel
    at once). The array owns its mapping (it is released with the array). Otherwise, or
    when mapping fails: ``np.empty``, whose untouched pages cost no memory (and whose
    memory the allocator may hand out again from an earlier read). Measured: about 20 ms
    of a 100k-message, 30-joint, three-channel read (bench/bench_bag_read.py, short names).
    """
    dt = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    if not prefault or nbytes < PREFAULT_BYTES:
        return np.empty(shape, dtype=dt)
    if _huge_pages():
        try:
            mapping = mmap.mmap(-1, nbytes + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            mapping.madvise(mmap.MADV_HUGEPAGE)
        except (OSError, ValueError, OverflowError):
            pass
        else:
            raw = np.frombuffer(mapping, dtype=np.uint8)
            skip = -int(raw.__array_interface__["data"][0]) % HUGE_PAGE
            array: npt.NDArray[Any] = raw[skip : skip + nbytes].view(dt).reshape(shape)
            return array
    flags = getattr(mmap, "MAP_POPULATE", 0)
    if flags:
        try:
            mapping = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | flags)
        except (OSError, ValueError, OverflowError):
            pass
        else:
            return np.frombuffer(mapping, dtype=dt).reshape(shape)
    return np.empty(shape, dtype=dt)


class _Run(Segment):
    """Samples of one layout (joint names, present channels), copied into arrays that grow:
    a segment whose first ``size`` rows are filled."""

    __slots__ = ("layout", "size")

    def __init__(
        self,
        names: tuple[str, ...],
        stamps: IntArray,
        recv: IntArray,
        channels: dict[str, FloatArray],
        layout: _bulk.Layout,
    ) -> None:
        super().__init__(names, stamps, recv, channels)
        self.layout = layout
        self.size = 0

    @classmethod
    def start(cls, layout: _bulk.Layout, present: Iterable[str], capacity: int, prefault: bool) -> _Run:
        """A run with room for ``capacity`` samples (their pages mapped at once with ``prefault``)."""
        names = layout.names
        channels = {ch: _empty((capacity, len(names)), np.float64, prefault) for ch in present}
        stamps, recv = (_empty((capacity,), np.int64, prefault) for _ in range(2))
        return cls(names, stamps, recv, channels, layout)

    def add(self, decoded: _bulk.Decoded, recv: IntArray, spare: int) -> None:
        m, n = int(recv.size), self.size
        if n + m > self.stamps.size:
            self._grow(max(n + m + spare, 2 * self.stamps.size))
        self.stamps[n : n + m] = decoded.stamps
        self.recv[n : n + m] = recv
        for ch, values in decoded.channels.items():
            self.channels[ch][n : n + m] = values
        self.size = n + m

    def _grow(self, capacity: int) -> None:
        n = self.size

        def grown(old: npt.NDArray[Any]) -> npt.NDArray[Any]:
            new = _empty((capacity, *old.shape[1:]), old.dtype, prefault=False)  # may never all be used
            new[:n] = old[:n]
            return new

        self.stamps, self.recv = grown(self.stamps), grown(self.recv)
        self.channels = {ch: grown(v) for ch, v in self.channels.items()}

    def segment(self) -> Segment:
        n = self.size
        return Segment(self.names, self.stamps[:n], self.recv[:n], {ch: v[:n] for ch, v in self.channels.items()})


class _TopicStream:
    """Joint samples of one topic, collected batch by batch.

    Messages decoded in bulk are copied into the arrays of the current run (one layout)
    as they come, so that a topic of one layout ends as one segment whose arrays are
    the motion's; ``expected`` (the topic's message count) sizes them, and ``bag_bytes``
    (the bag's size) bounds them: a damaged message count sizes no more samples than the
    bag's bytes can hold. The counters say what was not decoded, and why.
    """

    def __init__(self, topic: str, expected: int = 0, bag_bytes: int = 0) -> None:
        self.topic = topic
        self.expected = expected
        self.bag_bytes = bag_bytes
        self.segments: list[Segment] = []
        self.raws: list[bytes] = []  # pending messages, decoded at the next flush
        self.recv: list[int] = []
        self.bad = self.undecodable = self.not_utf8 = self.truncated = 0
        self.bulk_batches = self.slow_batches = 0
        self.seen = 0
        self.run: _Run | None = None

    def add(self, decoded: _bulk.Decoded, recv: IntArray) -> None:
        """Append a batch decoded in bulk (copied: ``decoded`` may be views of a chunk)."""
        names, present = decoded.layout.names, tuple(decoded.channels)
        run = self.run
        if run is None or run.names != names or tuple(run.channels) != present:
            self.close_run()
            capacity = int(recv.size) + self._spare(decoded, recv)
            # Pages mapped up front only for as many messages as the bag's bytes hold (a
            # damaged count, or compressed chunks, must not commit memory never used).
            prefault = capacity * decoded.layout.size <= self.bag_bytes
            run = self.run = _Run.start(decoded.layout, present, capacity, prefault)
        run.add(decoded, recv, self._spare(decoded, recv))
        run.layout = decoded.layout  # the next batch is most likely alike
        self.seen += int(recv.size)

    def _spare(self, decoded: _bulk.Decoded, recv: IntArray) -> int:
        """Samples still expected after ``recv``'s (no more than the bag's bytes can hold)."""
        left = self.expected - self.seen - int(recv.size)
        return max(0, min(left, 4 * self.bag_bytes // max(1, decoded.layout.size)))

    def close_run(self) -> None:
        if self.run is not None and self.run.size:
            self.segments.append(self.run.segment())
        self.run = None

    def finish(self) -> None:
        self.close_run()


def _stamp_ns(stamp: Any) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


# --------------------------------------------------------------------------- joint states
def _flush(stream: _TopicStream, source: BagSource, msgtype: str, bulk: bool, block: Block | None = None) -> None:
    """Decode the stream's pending messages (or ``block``): in bulk where regular, else one by one.

    A batch of one layout throughout is decoded in bulk without looking at the message
    definition. Otherwise the definition is loaded (as for any message decoded one by
    one); when it is the standard JointState one, the batch is cut into runs of one
    layout, each decoded in bulk, and only the messages no run holds (not well-formed
    ones) are decoded one by one; with another definition every message is.
    """
    rows: npt.NDArray[np.uint8] | None = None
    raws: Sequence[bytes] | None = None
    if block is not None:
        rows, raws, recv = block.rows, block.raws, block.times
    else:
        raws, recv = stream.raws, np.asarray(stream.recv, dtype=np.int64)
        stream.raws, stream.recv = [], []
        rows = _bulk.rows_of(raws) if bulk and raws else None
        if rows is not None:
            raws = None
    if not recv.size:
        return
    hint = stream.run.layout if stream.run is not None else None
    decoded = _bulk.decode_rows(rows, source.ros1, hint) if bulk and rows is not None else None
    if decoded is not None:
        stream.bulk_batches += 1
        stream.add(decoded, recv)
        return
    source.require_types([stream.topic])  # only an irregular batch needs the message definition
    if bulk and source.standard_joint_state(msgtype):
        for lo, _hi, part in _bulk.size_runs(rows, raws):
            for i, j, run in _bulk.runs(part, source.ros1):
                if run is not None:
                    stream.bulk_batches += 1
                    stream.add(run, recv[lo + i : lo + j])
                else:
                    _slow(stream, source, msgtype, [part[k].tobytes() for k in range(i, j)], recv[lo + i : lo + j])
        return
    if raws is None:
        assert rows is not None
        raws = [row.tobytes() for row in rows]
    _slow(stream, source, msgtype, raws, recv)


def _slow(stream: _TopicStream, source: BagSource, msgtype: str, raws: Sequence[bytes], recv: IntArray) -> None:
    """Messages decoded one by one with rosbags' deserializer (the general way)."""
    stream.slow_batches += 1
    stream.close_run()

    def decoded_msgs() -> Iterator[tuple[int, Any]]:
        for raw, t in zip(raws, recv.tolist(), strict=True):
            try:
                msg = source.deserialize(raw, msgtype)
            except PayloadTooShortError:
                stream.truncated += 1
                continue
            except UndecodableMessageError as exc:
                if _caused_by(exc, UnicodeDecodeError):
                    stream.not_utf8 += 1
                else:
                    stream.undecodable += 1
                continue
            yield t, msg

    _append_rows(stream, decoded_msgs())
    stream.seen += int(recv.size)


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is, or was raised while handling or from, a ``kind`` (the deserializer wraps it)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _append_rows(stream: _TopicStream, msgs: Iterable[tuple[int, Any]]) -> None:
    """Segments of JointState objects ``(receive ns, message)`` appended to ``stream``."""
    current: Segment | None = None
    rows: list[tuple[int, int, dict[str, FloatArray]]] = []

    def close() -> None:
        if current is None or not rows:
            return
        current.stamps = np.array([r[0] for r in rows], dtype=np.int64)
        current.recv = np.array([r[1] for r in rows], dtype=np.int64)
        current.channels = {ch: np.stack([r[2][ch] for r in rows]) for ch in rows[0][2]}
        stream.segments.append(current)

    for t, msg in msgs:
        try:
            names = tuple(str(n) for n in msg.name)
            values = {ch: np.asarray(getattr(msg, ch), dtype=np.float64) for ch in _bulk.CHANNELS}
            stamp = _stamp_ns(msg.header.stamp)
        except (AttributeError, TypeError, ValueError):
            # The bag's own definition of the type lacks a JointState field (a damaged schema).
            stream.bad += 1
            continue
        if joint_state_problem(names, *values.values()) is not None:
            stream.bad += 1
            continue
        present = {ch: v for ch, v in values.items() if v.size}
        if current is None or current.names != names or set(present) != set(rows[0][2] if rows else present):
            close()
            current = Segment(names, np.zeros(0, np.int64), np.zeros(0, np.int64), {})
            rows = []
        rows.append((stamp, t, present))
    close()
