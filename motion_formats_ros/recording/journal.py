"""The recorder's crash-safe journal, and turning a journal into a motion file.

While recording, every received sample is appended to a journal beside the output and
the journal is flushed and fsynced at least every ``flush_interval``; RAM holds nothing
but the write buffer, so memory stays flat however long the recording. After a crash
(SIGKILL, power loss) the journal is complete up to the last flush: :func:`recover`
reads every intact record (each carries a CRC-32) and writes the motion file.

Layout: ``MAGIC`` then records ``[u32 length][u32 crc32 of payload][payload]``; the
payload starts with a kind byte. Names are sent once per stream in SCHEMA records and
samples refer to them by id, so a 50-joint JointState costs 25 bytes plus its values.
TF records keep every transform as received (stream ``tf`` or ``tf_static``, names
``(parent, child)``); the root pose is composed from them when the file is written, by
the same TF buffer as ``bag2motion``'s (POSE records, from older recorders, still read).
Files are assembled with relative times and ``start_time_ns`` (see :func:`assemble`).
"""

from __future__ import annotations

import array
import dataclasses
import json
import mmap
import os
import struct
import time
import traceback
import warnings
import zlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from ..core.errors import ReadError, listed
from ..core.merge import (
    CHANNELS,
    Command,
    Segment,
    merge,
    merge_on_grid,
    place_trajectories,
    sample_stream,
    select_joints,
    take_columns,
    trajectory_bases,
)
from ..core.model import IMU_CHANNELS, Motion, MotionFile
from ..core.nonfinite import MASK_KEEP
from ..core.notices import NoticeKind, notify
from ..core.stamps import choose_times
from ..core.tf import TfSamples

MAGIC = b"MFR-JOURNAL-1\n"
FloatArray = npt.NDArray[np.float64]
#: One commanded trajectory: (joint names, stamp, receive time, point offsets (ns), positions, velocities).
TargetRecord = tuple[tuple[str, ...], int, int, npt.NDArray[np.int64], FloatArray, FloatArray | None]
#: A journal's streams by id: (stream, joint or frame names).
Schemas = dict[int, tuple[str, tuple[str, ...]]]
_Key = tuple[int, int]  # (stream id, channel flags; the negated kind for pose, IMU and TF)

META, SCHEMA, JOINTS, POSE, IMU, TRAJECTORY, TF, END = 1, 2, 3, 4, 5, 6, 7, 9
#: Streams of TF records (names: parent, child).
TF_STREAM, TF_STATIC_STREAM = "tf", "tf_static"
_HEAD = struct.Struct("<II")
_KIND = struct.Struct("<B")
_SAMPLE = struct.Struct("<BHqqBI")  # kind, stream, stamp ns, receive ns, flags, count
_POSE = struct.Struct("<BHqq7d")
_IMU = struct.Struct("<BHqq10d")
_MAX_RECORD = 64 << 20
#: A controller's tracking error (JointTrajectoryControllerState ``error``) is journaled as a
#: JointState stream named ERROR_STREAM + topic whose joints are ERROR_NAME + joint. It is
#: kept out of the JointState merge and becomes the actual group's ``error`` channel.
ERROR_STREAM = "controller error:"
ERROR_NAME = "error:"

#: flags of JOINTS / TRAJECTORY samples: which channels follow the positions.
HAS_POSITION, HAS_VELOCITY, HAS_EFFORT, HAS_ACCELERATION = 1, 2, 4, 8


class JournalWriter:
    """Appends records; flushes and fsyncs when ``flush_interval`` has passed.

    Raises OSError (disk full, I/O error) from the write that failed; everything written
    before stays readable.
    """

    def __init__(self, path: str | os.PathLike[str], metadata: dict[str, Any], flush_interval: float = 1.0) -> None:
        self.path = Path(path)
        self.flush_interval = flush_interval
        self._fh: IO[bytes] = open(self.path, "xb")  # never clobber another recording's journal  # noqa: SIM115
        self._streams: dict[tuple[str, tuple[str, ...]], int] = {}
        self._last_flush = time.monotonic()
        self.records = 0
        self._fh.write(MAGIC)
        self._append(_KIND.pack(META) + json.dumps(metadata).encode())
        self.flush()

    def _append(self, payload: bytes) -> None:
        self._fh.write(_HEAD.pack(len(payload), zlib.crc32(payload)) + payload)
        self.records += 1

    def stream_id(self, stream: str, names: Sequence[str]) -> int:
        """The id of (stream, names), declaring it with a SCHEMA record the first time."""
        key = (stream, tuple(names))
        sid = self._streams.get(key)
        if sid is None:
            sid = len(self._streams)
            self._streams[key] = sid
            body = json.dumps({"stream": stream, "names": list(names)}).encode()
            self._append(_KIND.pack(SCHEMA) + struct.pack("<H", sid) + body)
        return sid

    def joints(
        self,
        stream: str,
        names: Sequence[str],
        stamp_ns: int,
        receive_ns: int,
        position: Any = None,
        velocity: Any = None,
        effort: Any = None,
    ) -> None:
        """One JointState-like sample; channels are buffers of float64 (array('d') is fine)."""
        sid = self.stream_id(stream, names)
        n = len(names)
        flags = 0
        parts = []
        for flag, values in ((HAS_POSITION, position), (HAS_VELOCITY, velocity), (HAS_EFFORT, effort)):
            if values is not None and len(values) == n and n:
                flags |= flag
                parts.append(_as_bytes(values))
        self._append(_SAMPLE.pack(JOINTS, sid, stamp_ns, receive_ns, flags, n) + b"".join(parts))
        self._maybe_flush()

    def pose(self, stream: str, stamp_ns: int, receive_ns: int, xyz: Sequence[float], xyzw: Sequence[float]) -> None:
        sid = self.stream_id(stream, ())
        self._append(_POSE.pack(POSE, sid, stamp_ns, receive_ns, *xyz, *xyzw))
        self._maybe_flush()

    def tf(
        self,
        parent: str,
        child: str,
        stamp_ns: int,
        receive_ns: int,
        xyz: Sequence[float],
        xyzw: Sequence[float],
        static: bool = False,
    ) -> None:
        """One transform parent → child as received (composed when the file is written)."""
        sid = self.stream_id(TF_STATIC_STREAM if static else TF_STREAM, (parent, child))
        self._append(_POSE.pack(TF, sid, stamp_ns, receive_ns, *xyz, *xyzw))
        self._maybe_flush()

    def imu(
        self,
        name: str,
        stamp_ns: int,
        receive_ns: int,
        orientation: Sequence[float],
        angular_velocity: Sequence[float],
        linear_acceleration: Sequence[float],
    ) -> None:
        sid = self.stream_id("imu", (name,))
        self._append(_IMU.pack(IMU, sid, stamp_ns, receive_ns, *orientation, *angular_velocity, *linear_acceleration))
        self._maybe_flush()

    def trajectory(
        self,
        names: Sequence[str],
        stamp_ns: int,
        receive_ns: int,
        offsets_ns: Sequence[int],
        positions: Sequence[Any],
        velocities: Sequence[Any] | None = None,
    ) -> None:
        """A commanded trajectory: points at stamp + offset (stamp 0: the receive time)."""
        sid = self.stream_id("target", names)
        n = len(names)
        flags = HAS_POSITION | (HAS_VELOCITY if velocities is not None else 0)
        body = [np.asarray(offsets_ns, dtype="<i8").tobytes()]
        body += [_as_bytes(p) for p in positions]
        if velocities is not None:
            body += [_as_bytes(v) for v in velocities]
        header = _SAMPLE.pack(TRAJECTORY, sid, stamp_ns, receive_ns, flags, n)
        self._append(header + struct.pack("<I", len(offsets_ns)) + b"".join(body))
        self._maybe_flush()

    def _maybe_flush(self) -> None:
        if time.monotonic() - self._last_flush >= self.flush_interval:
            self.flush()

    def flush(self) -> int:
        """Write the buffer out and fsync: everything so far survives a crash. Returns the journal's size."""
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._last_flush = time.monotonic()
        return self._fh.tell()

    def close(self, clean: bool = True) -> None:
        if self._fh.closed:
            return
        if clean:
            self._append(_KIND.pack(END))
        self.flush()
        self._fh.close()


def _as_bytes(values: Any) -> bytes:
    if isinstance(values, (bytes, bytearray)):
        return bytes(values)
    if hasattr(values, "typecode") and values.typecode == "d":
        return bytes(values.tobytes())
    return np.asarray(values, dtype="<f8").tobytes()


# ------------------------------------------------------------------------ reading
@dataclasses.dataclass
class Block:
    """All samples of one stream with one name list, as arrays (one row per sample)."""

    stream: str
    names: tuple[str, ...]
    stamps: npt.NDArray[np.int64]
    receive: npt.NDArray[np.int64]
    channels: dict[str, FloatArray]


@dataclasses.dataclass
class JournalContent:
    """Everything a journal holds, grouped by stream, ready to become a motion file."""

    metadata: dict[str, Any]
    joints: list[Block]
    poses: dict[str, Block]
    imus: dict[str, Block]
    targets: list[TargetRecord]
    records: int
    complete: bool
    truncated_at: int | None
    tf: list[Block] = dataclasses.field(default_factory=list)

    @property
    def samples(self) -> int:
        return sum(b.stamps.size for b in self.joints)


_CHANNELS = ((HAS_POSITION, "position"), (HAS_VELOCITY, "velocity"), (HAS_EFFORT, "effort"))


def read_journal(path: str | os.PathLike[str], limit: int | None = None) -> JournalContent:
    """Every intact record of a journal; stops at the first torn or corrupt record.

    ``limit`` reads only the journal's first ``limit`` bytes: a consistent copy of a
    journal still being written (the recorder's snapshot: everything flushed so far).

    Two passes over a memory map: the first checks every record's CRC and counts the
    samples of each stream, the second fills arrays allocated once, so reading needs
    little more memory than the arrays it returns.
    """
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if limit is not None:
                size = min(size, limit)
            if size < len(MAGIC) or fh.read(len(MAGIC)) != MAGIC:
                raise ReadError(p, "not a motion_formats_ros recording journal (bad magic)", offset=0)
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                try:
                    return _read_mapped(p, memoryview(mm), size, _Releaser(mm))
                except Exception as exc:
                    # The traceback's frames still hold views of the map, and closing a
                    # map with views alive raises BufferError, which would replace this
                    # error: drop the frames' locals before the map is closed.
                    traceback.clear_frames(exc.__traceback__)
                    raise
    except OSError as exc:
        raise ReadError(p, exc.strerror or str(exc)) from exc


class _Releaser:
    """Drops pages of the journal already read from memory (they are file-backed).

    Without this a long journal would sit in RAM (as mapped pages) next to the arrays
    made from it; with it, reading needs the arrays plus a few megabytes.
    """

    WINDOW = 2 << 20

    def __init__(self, mm: mmap.mmap) -> None:
        self.mm = mm
        self.done = 0

    def upto(self, pos: int) -> None:
        end = pos - pos % mmap.PAGESIZE
        if end - self.done >= self.WINDOW and hasattr(self.mm, "madvise"):
            self.mm.madvise(mmap.MADV_DONTNEED, self.done, end - self.done)
            self.done = end

    def reset(self) -> None:
        self.upto(self.mm.size())
        self.done = 0


def _check_stream(schemas: Schemas, sid: int) -> None:
    if sid not in schemas:
        raise ValueError(f"sample of stream {sid}, which no schema record declared")


@dataclasses.dataclass
class _Index:
    """The first pass over a journal: where its intact records are and how many of each block."""

    schemas: Schemas = dataclasses.field(default_factory=dict)
    counts: dict[_Key, int] = dataclasses.field(default_factory=dict)  # samples per block
    starts: array.array[int] = dataclasses.field(default_factory=lambda: array.array("q"))  # payload offsets
    kinds: array.array[int] = dataclasses.field(default_factory=lambda: array.array("B"))  # (compact: 9 bytes each)


def _read_mapped(p: Path, data: memoryview, size: int, release: _Releaser) -> JournalContent:
    content = JournalContent({}, [], {}, {}, [], 0, False, None)
    index = _index_records(p, data, size, release, content)
    content.records = len(index.starts)
    if not content.metadata:
        raise ReadError(p, "the journal has no metadata record", offset=len(MAGIC))
    blocks = _allocate_blocks(index)
    release.reset()
    _fill_blocks(data, index, blocks, release, content)
    for (_, flags), block in blocks.items():
        if flags >= 0:
            content.joints.append(block)
        elif flags == -POSE:
            content.poses[block.stream] = block
        elif flags == -TF:
            content.tf.append(block)
        else:
            content.imus[block.names[0]] = block
    return content


def _index_records(p: Path, data: memoryview, size: int, release: _Releaser, content: JournalContent) -> _Index:
    """Walk the intact records once: metadata, schemas and completeness into ``content``, the rest counted."""
    index = _Index()
    schemas, counts, pos = index.schemas, index.counts, len(MAGIC)
    try:
        while pos < size:
            if pos + _HEAD.size > size:
                content.truncated_at = pos
                break
            length, crc = _HEAD.unpack_from(data, pos)
            start = pos + _HEAD.size
            torn = length == 0 or length > _MAX_RECORD or start + length > size
            if torn or zlib.crc32(data[start : start + length]) != crc:
                content.truncated_at = pos
                break
            kind = data[start]
            if kind == META:
                content.metadata = json.loads(bytes(data[start + 1 : start + length]))
            elif kind == SCHEMA:
                (sid,) = struct.unpack_from("<H", data, start + 1)
                body = json.loads(bytes(data[start + 3 : start + length]))
                schemas[sid] = (str(body["stream"]), tuple(body["names"]))
            elif kind == JOINTS:
                _, sid, _, _, flags, _ = _SAMPLE.unpack_from(data, start)
                _check_stream(schemas, sid)
                counts[(sid, flags)] = counts.get((sid, flags), 0) + 1
            elif kind in (POSE, IMU, TF):
                (sid,) = struct.unpack_from("<H", data, start + 1)
                _check_stream(schemas, sid)
                counts[(sid, -kind)] = counts.get((sid, -kind), 0) + 1
            elif kind == TRAJECTORY:
                _check_stream(schemas, _SAMPLE.unpack_from(data, start)[1])
            elif kind == END:
                content.complete = True
            else:
                raise ValueError(f"unknown record kind {kind}")
            index.starts.append(start)
            index.kinds.append(kind)
            pos = start + length
            release.upto(pos)
    except (struct.error, ValueError, KeyError, UnicodeDecodeError) as exc:
        raise ReadError(p, f"malformed record ({exc})", offset=pos) from None
    return index


def _allocate_blocks(index: _Index) -> dict[_Key, Block]:
    """One block of arrays per (stream, names, channels), sized by the first pass's counts."""
    blocks: dict[_Key, Block] = {}
    for key, count in index.counts.items():
        sid, flags = key
        stream, names = index.schemas[sid]
        if flags >= 0:
            channels = {name: np.empty((count, len(names))) for flag, name in _CHANNELS if flags & flag}
        else:
            channels = {"values": np.empty((count, 10 if flags == -IMU else 7))}
        blocks[key] = Block(stream, names, np.empty(count, np.int64), np.empty(count, np.int64), channels)
    return blocks


def _fill_blocks(
    data: memoryview, index: _Index, blocks: dict[_Key, Block], release: _Releaser, content: JournalContent
) -> None:
    """The second pass: every sample into its block's next row, trajectories into ``content.targets``."""
    fill = dict.fromkeys(blocks, 0)
    for start, kind in zip(index.starts, index.kinds, strict=True):
        release.upto(start)
        if kind == JOINTS:
            _, sid, stamp, recv, flags, n = _SAMPLE.unpack_from(data, start)
            key = (sid, flags)
            block, i = blocks[key], fill[key]
            at = start + _SAMPLE.size
            for channel in block.channels.values():
                channel[i] = np.frombuffer(data, dtype="<f8", count=n, offset=at)
                at += 8 * n
        elif kind in (POSE, IMU, TF):
            st = _IMU if kind == IMU else _POSE
            _, sid, stamp, recv, *values = st.unpack_from(data, start)
            key = (sid, -kind)
            block, i = blocks[key], fill[key]
            block.channels["values"][i] = values
        elif kind == TRAJECTORY:
            content.targets.append(_trajectory_record(data, start, index.schemas))
            continue
        else:
            continue
        block.stamps[i] = stamp
        block.receive[i] = recv
        fill[key] = i + 1


def _trajectory_record(data: memoryview, start: int, schemas: Schemas) -> TargetRecord:
    """One TRAJECTORY record as (names, stamp, receive time, offsets, positions, velocities or None)."""
    _, sid, stamp, recv, flags, n = _SAMPLE.unpack_from(data, start)
    (points,) = struct.unpack_from("<I", data, start + _SAMPLE.size)
    at = start + _SAMPLE.size + 4
    offsets = np.frombuffer(data, dtype="<i8", count=points, offset=at).copy()
    at += 8 * points
    positions = np.frombuffer(data, dtype="<f8", count=points * n, offset=at).reshape(points, n).copy()
    at += 8 * points * n
    velocities = None
    if flags & HAS_VELOCITY:
        velocities = np.frombuffer(data, dtype="<f8", count=points * n, offset=at).reshape(points, n).copy()
    return (schemas[sid][1], stamp, recv, offsets, positions, velocities)


# ------------------------------------------------------------------------ assembling
def _stream_times(blocks: Sequence[Block], mode: str) -> list[npt.NDArray[np.int64]]:
    """The times of the blocks of one stream, chosen by the one stamps rule (:mod:`.core.stamps`)."""
    stamps = np.concatenate([b.stamps for b in blocks])
    recv = np.concatenate([b.receive for b in blocks])
    _, note = choose_times(stamps, recv, mode)
    use_recv = mode == "receive" or note is not None
    if note:
        notify(NoticeKind.READ_CHOICE, note, field=blocks[0].stream, stacklevel=4)
    return [b.receive if use_recv else b.stamps for b in blocks]


def _by_stream(blocks: Sequence[Block], mode: str) -> list[tuple[Block, npt.NDArray[np.int64]]]:
    """Every block with its times; the stamps rule applies to each stream as a whole."""
    streams: dict[str, list[Block]] = {}
    for b in blocks:
        streams.setdefault(b.stream, []).append(b)
    out: list[tuple[Block, npt.NDArray[np.int64]]] = []
    for group in streams.values():
        out += zip(group, _stream_times(group, mode), strict=True)
    return out


def _unique_increasing(times: np.ndarray) -> tuple[np.ndarray, np.ndarray | slice]:
    """Sort times; for equal times keep the last sample. Returns (times, source indices)."""
    if times.size < 2 or bool(np.all(times[1:] > times[:-1])):
        return times, slice(None)
    order = np.argsort(times, kind="stable")
    t = times[order]
    keep = np.ones(t.size, dtype=bool)
    keep[:-1] = t[1:] != t[:-1]
    return t[keep], order[keep]


def assemble(
    content: JournalContent,
    *,
    joints: Sequence[str] | None = None,
    stamps: str = "auto",
    rate: float = 0.0,
) -> MotionFile:
    """The motion file a journal stands for.

    JointState streams are merged by joint name (:func:`.core.merge.merge`) into the
    ``actual`` group: with ``rate`` 0 every sample time is a frame and joints a message
    does not carry hold their last value (NaN before their first); with ``rate`` > 0
    every joint's own samples are interpolated onto a uniform grid. The root pose
    (composed from the recorded TF edges by the one TF buffer, :mod:`.core.tf`) and
    IMUs are sampled at the frame times; commanded trajectories become the ``target``
    group. Times are relative to the first joint sample (else the first target point),
    whose absolute ROS time in ns is the file's ``start_time_ns``.
    """
    meta = content.metadata
    error_blocks = [b for b in content.joints if b.stream.startswith(ERROR_STREAM)]
    measured = [b for b in content.joints if not b.stream.startswith(ERROR_STREAM)]
    joint_blocks = _by_stream(measured, stamps) if measured else []
    targets = _target_segments(content, stamps)
    if joint_blocks:
        origin = int(min(int(t.min()) for _, t in joint_blocks if t.size))
    elif targets:
        origin = int(min(int(s.times.min()) for s in targets))
    else:
        raise ValueError("nothing was recorded")
    groups: dict[str, Motion] = {}  # the measured motion first, as bag2motion orders them
    if joint_blocks:
        actual = _actual_group(content, joint_blocks, joints, rate, origin)
        groups["actual"] = _with_errors(
            _with_poses_and_imus(actual, content, stamps, origin), error_blocks, stamps, origin
        )
    if targets:
        groups["target"] = _target_group(targets, origin)
    date = datetime.fromisoformat(meta["date"]) if meta.get("date") else None
    return MotionFile(
        groups=groups,
        name=str(meta.get("name", "")),
        robot=str(meta.get("robot", "")),
        date=date,
        start_time_ns=origin,
    )


def _actual_group(
    content: JournalContent,
    joint_blocks: list[tuple[Block, npt.NDArray[np.int64]]],
    joints: Sequence[str] | None,
    rate: float,
    origin: int,
) -> Motion:
    # Joints in the order of the recorder's topics, then of first appearance: deterministic
    # even though messages of different topics arrive in any order.
    topics = [str(t).lstrip("/") for t in content.metadata.get("topics", [])]
    rank = {t: i for i, t in enumerate(topics)}
    ordered = sorted(joint_blocks, key=lambda bt: rank.get(bt[0].stream.lstrip("/"), len(rank)))
    segments = [Segment(b.names, b.stamps, b.receive, dict(b.channels), times=t, stream=b.stream) for b, t in ordered]
    _report_out_of_order(ordered, origin)
    block, t = ordered[0]
    keep: npt.NDArray[np.bool_] | None = None
    if len(ordered) == 1 and rate <= 0 and (t.size < 2 or bool(np.all(t[1:] > t[:-1]))):
        # One stream in time order (the usual long recording): merging would only copy it.
        times_ns, names, channels = t, block.names, dict(block.channels)
    elif rate > 0:
        times_ns, names, channels = merge_on_grid(segments, rate)
    else:
        times_ns, names, channels = merge(segments, hold=True)
        keep = _held(ordered, times_ns, names, origin)
    if joints:
        columns, absent = select_joints(names, joints, missing="nan")
        if absent:
            notify(NoticeKind.MISSING, f"joints {', '.join(absent)} were never received: recorded as NaN", stacklevel=3)
        channels = {ch: take_columns(v, columns) for ch, v in channels.items()}
        if keep is not None:
            keep = np.stack([keep[:, c] if c is not None else np.zeros(len(times_ns), bool) for c in columns], axis=1)
        names = tuple(joints)
    channels_: dict[str, Any] = {ch: channels[ch] for ch in CHANNELS if ch in channels}
    masks = {MASK_KEEP: keep} if keep is not None and keep.any() else {}
    return Motion(
        times=(times_ns - origin) / 1e9,
        joint_names=tuple(names),
        rate=rate if rate > 0 else None,
        joint_masks=masks,
        **channels_,
    )


def _report_out_of_order(ordered: Sequence[tuple[Block, npt.NDArray[np.int64]]], origin: int) -> None:
    """Warn, per stream, about samples whose time is before an earlier sample's (they are put in order)."""
    streams: dict[str, list[npt.NDArray[np.int64]]] = {}
    for block, t in ordered:
        streams.setdefault(block.stream, []).append(t)
    for stream, parts in streams.items():
        t = np.concatenate(parts)
        back = np.flatnonzero(t[1:] < np.maximum.accumulate(t)[:-1]) + 1
        if back.size:
            first = int(back[0])
            notify(
                NoticeKind.INCONSISTENT,
                f"{stream}: {back.size} of {t.size} samples are stamped before an earlier one (the first: "
                f"message {first}, t = {(int(t[first]) - origin) / 1e9:.6g} s); put in time order",
                stacklevel=4,
            )


def _held(
    ordered: Sequence[tuple[Block, npt.NDArray[np.int64]]],
    times_ns: npt.NDArray[np.int64],
    names: Sequence[str],
    origin: int,
) -> npt.NDArray[np.bool_]:
    """Where a joint's value is held because a message of its own stream left it out, after
    it had carried it (a publisher that renames or drops a joint mid-run): the ``keep``
    mask; a warning per joint names it and where it goes missing. (Frames of other
    topics' messages hold it too, as any merge of streams does: not reported.)"""
    column = {n: i for i, n in enumerate(names)}
    covered = np.zeros((times_ns.size, len(names)), dtype=bool)
    stream_rows: dict[str, npt.NDArray[np.bool_]] = {}
    stream_joints: dict[str, set[str]] = {}
    for block, t in ordered:
        rows = np.searchsorted(times_ns, t)
        covered[rows[:, None], np.array([column[n] for n in block.names], dtype=np.intp)[None, :]] = True
        stream_rows.setdefault(block.stream, np.zeros(times_ns.size, dtype=bool))[rows] = True
        stream_joints.setdefault(block.stream, set()).update(block.names)
    held = np.zeros_like(covered)
    seen = np.maximum.accumulate(covered, axis=0)
    for stream, joints in stream_joints.items():
        for name in sorted(joints, key=column.__getitem__):
            j = column[name]
            missing = stream_rows[stream] & seen[:, j] & ~covered[:, j]
            if not missing.any():
                continue
            rows = np.flatnonzero(missing)
            k = int(rows[0])
            held[:, j] = missing
            notify(
                NoticeKind.MISSING,
                f"{stream}: joint {name!r} is missing from frame {k} (t = {(int(times_ns[k]) - origin) / 1e9:.6g} s) "
                f"on, in {rows.size} message(s): its last value is held there (mask {MASK_KEEP!r})",
                stacklevel=4,
            )
    return held


def _sample_block(
    times: np.ndarray, block: Block, block_times: np.ndarray, origin: int, columns: slice, quaternion: bool
) -> FloatArray:
    values = block.channels["values"][:, columns]
    return sample_stream(block_times, values, origin, times, "quaternion" if quaternion else "value")


def _root_from_tf(m: Motion, content: JournalContent, stamps: str, origin: int) -> dict[str, FloatArray]:
    world, root = str(content.metadata.get("world_frame", "")), str(content.metadata.get("root_frame", ""))
    if not (world and root and content.tf):
        return {}
    samples = TfSamples()
    for block in content.tf:
        parent, child = block.names
        values = block.channels["values"]
        samples.add_block(parent, child, block.stamps, block.receive, values, block.stream == TF_STATIC_STREAM)
    buf, notes = samples.buffer(origin, stamps)
    for text in [*notes, *buf.problems]:
        notify(NoticeKind.INCONSISTENT, text, stacklevel=4)
    found = buf.lookup(world.lstrip("/"), root.lstrip("/"), m.times)
    if found is None:
        frames = listed(sorted(buf.frames))
        notify(
            NoticeKind.MISSING,
            f"no TF path from {world!r} to {root!r} (frames received: {frames}): no root pose",
            stacklevel=4,
        )
        return {}
    return {"root_position": found[0], "root_orientation": found[1]}


def _with_poses_and_imus(m: Motion, content: JournalContent, stamps: str, origin: int) -> Motion:
    fields: dict[str, Any] = _root_from_tf(m, content, stamps, origin)
    root = content.poses.get("root")
    if root is not None and not fields:  # journals written before TF edges were recorded
        (root_times,) = _stream_times([root], stamps)
        fields["root_position"] = _sample_block(m.times, root, root_times, origin, slice(0, 3), False)
        fields["root_orientation"] = _sample_block(m.times, root, root_times, origin, slice(3, 7), True)
    if content.imus:
        names = tuple(content.imus)
        layout = {
            "orientation": (slice(0, 4), True),
            "angular_velocity": (slice(4, 7), False),
            "linear_acceleration": (slice(7, 10), False),
        }
        imu_times = {n: _stream_times([content.imus[n]], stamps)[0] for n in names}
        fields["imu_names"] = names
        fields["imus"] = {
            key: np.stack(
                [_sample_block(m.times, content.imus[n], imu_times[n], origin, cols, quat) for n in names], axis=1
            )
            for key, (cols, quat) in layout.items()
            if key in IMU_CHANNELS
        }
    return dataclasses.replace(m, **fields) if fields else m


def _with_errors(m: Motion, blocks: Sequence[Block], stamps: str, origin: int) -> Motion:
    """The controller's per-joint tracking error as ``m``'s ``error`` channel (joints it never named: NaN)."""
    if not blocks:
        return m
    timed = [(b, t, {name: k for k, name in enumerate(b.names)}) for b, t in _by_stream(blocks, stamps)]
    error = np.full((m.num_frames, len(m.joint_names)), np.nan)
    for col, joint in enumerate(m.joint_names):
        name = ERROR_NAME + joint
        parts = [
            (t, b.channels["position"][:, at[name]]) for b, t, at in timed if name in at and "position" in b.channels
        ]
        if parts:
            ns = np.concatenate([t for t, _ in parts])
            values = np.concatenate([v for _, v in parts])[:, None]
            error[:, col] = sample_stream(ns, values, origin, m.times, "value")[:, 0]
    return dataclasses.replace(m, joint_channels={**m.joint_channels, "error": error})


def _target_segments(content: JournalContent, stamps: str) -> list[Segment]:
    """Commanded trajectories on one timeline, by the rule bag2motion uses (:func:`.core.merge.place_trajectories`)."""
    if not content.targets:
        return []
    stamp_ns = np.array([t[1] for t in content.targets], dtype=np.int64)
    recv_ns = np.array([t[2] for t in content.targets], dtype=np.int64)
    bases = trajectory_bases(stamp_ns, recv_ns, stamps)
    commands = []
    for (names, _, _, offsets, pos, vel), base in zip(content.targets, bases.tolist(), strict=True):
        channels = {"position": pos} if vel is None else {"position": pos, "velocity": vel}
        commands.append(Command(int(base), names, offsets, channels))
    return place_trajectories(commands)


def _target_group(segments: list[Segment], origin: int) -> Motion:
    times_ns, names, channels = merge(segments, hold=False)
    fields: dict[str, Any] = channels
    return Motion(times=(times_ns - origin) / 1e9, joint_names=names, **fields)


def recover(
    journal: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    overwrite: bool = False,
    limit: int | None = None,
    **options: Any,
) -> tuple[Path, MotionFile, JournalContent]:
    """Write the motion file a journal stands for (after a crash, or to finish a recording).

    The output defaults to a file beside the journal (:func:`.output_path.default_output`), never
    the journal; the options to the journal's. ``limit``: see :func:`read_journal`.
    """
    from ..core.atomic import check_output
    from ..registry import codec_for_path, write
    from .output_path import default_output

    content = read_journal(journal, limit)
    meta = content.metadata
    out = Path(output) if output is not None else default_output(journal, meta, len(MAGIC))
    check_output(out, [journal], overwrite)
    try:
        motion_file = assemble(
            content,
            joints=meta.get("joints") or None,
            stamps=meta.get("stamps", "auto"),
            rate=float(meta.get("rate", 0.0)),
        )
    except (ValueError, TypeError) as exc:  # nothing recorded, or metadata of the wrong type
        raise ReadError(journal, str(exc)) from None
    # The recording's writer options (e.g. a .seq version) apply where the output's codec declares them.
    write_options = codec_for_path(out, for_write=True).accepted(dict(meta.get("write_options", {})), "write")
    write_options.update(options)
    write(motion_file, out, overwrite=overwrite, **write_options)
    return out, motion_file, content


def snapshot_main(argv: Sequence[str] | None = None) -> int:
    """``python -m motion_formats_ros.recording.journal JOURNAL LIMIT OUTPUT [--overwrite]``: the recorder's snapshot.

    Writes OUTPUT from the journal's first LIMIT bytes, in a process of its own: the
    recorder's process keeps taking samples without sharing its interpreter (and its
    GIL) with the assembling and writing. Prints the frames per group; exit 1 with the
    error on stderr.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m motion_formats_ros.recording.journal")
    parser.add_argument("journal", type=Path)
    parser.add_argument("limit", type=int)
    parser.add_argument("output", type=Path)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args(argv)
    from ..core.errors import MotionFormatError

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, motion_file, _ = recover(args.journal, args.output, overwrite=args.overwrite, limit=args.limit)
    except (MotionFormatError, OSError, ValueError) as exc:
        print(f"snapshot failed: {exc}", file=sys.stderr)
        return 1
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    print(json.dumps({group: m.num_frames for group, m in motion_file.groups.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(snapshot_main())
