"""The recorder's crash-safe journal: its file format, the writer and the reader.

While recording, every received sample is appended to a journal beside the output and
the journal is flushed and fsynced at least every ``flush_interval``; RAM holds nothing
but the write buffer, so memory stays flat however long the recording. After a crash
(SIGKILL, power loss) the journal is complete up to the last flush: :func:`read_journal`
reads every intact record (each carries a CRC-32); :mod:`.assembly` turns what it read
into a motion file and :mod:`.recovery` writes that file.

Layout: ``MAGIC`` then records ``[u32 length][u32 crc32 of payload][payload]``; the
payload starts with a kind byte. Names are sent once per stream in SCHEMA records and
samples refer to them by id, so a 50-joint JointState costs 25 bytes plus its values.
TF records keep every transform as received (stream ``tf`` or ``tf_static``, names
``(parent, child)``); the root pose is composed from them when the file is written
(POSE records, from older recorders, still read).
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
import zlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from ..core.errors import ReadError, number
from ..core.inputs import not_a_file
from ..core.options import settings_of

MAGIC = b"MFR-JOURNAL-1\n"
FloatArray = npt.NDArray[np.float64]
#: One commanded trajectory: (joint names, stamp, receive time, point offsets (ns), positions, velocities).
TargetRecord = tuple[tuple[str, ...], int, int, npt.NDArray[np.int64], FloatArray, FloatArray | None]
#: A journal's streams by id: (stream, joint or frame names).
Schemas = dict[int, tuple[str, tuple[str, ...]]]
_Key = tuple[int, int]  # (stream id, channel flags; the negated kind for pose, IMU and TF)

META, SCHEMA, JOINTS, POSE, IMU, TRAJECTORY, TF, END = 1, 2, 3, 4, 5, 6, 7, 9
#: Streams of TF records (names: parent, child), of IMU records (name: the IMU's) and of TRAJECTORY records.
TF_STREAM, TF_STATIC_STREAM, IMU_STREAM, TARGET_STREAM = "tf", "tf_static", "imu", "target"
_HEAD = struct.Struct("<II")
_KIND = struct.Struct("<B")
_SAMPLE = struct.Struct("<BHqqBI")  # kind, stream, stamp ns, receive ns, flags, count
_STAMPED = struct.Struct("<BHqq")  # kind, stream, stamp ns, receive ns: how every sample starts
_POSE = struct.Struct("<BHqq7d")
_IMU = struct.Struct("<BHqq10d")
_MAX_RECORD = 64 << 20
#: The latest stamp or receive time a sample may have (ns since the epoch: the year 2116), and the
#: longest offset of a trajectory point: any difference or sum of two of them fits an int64.
MAX_STAMP = 1 << 62
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
        """One JointState-like sample; channels are buffers of float64 (array('d') is fine).

        Raises:
            ValueError: When a joint is named twice (nothing is written).
        """
        if len(set(names)) != len(names):
            raise ValueError("a joint is named twice")
        if stream in _STREAM_KINDS:  # a topic named like a stream of other records: by its absolute name
            stream = "/" + stream
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
        sid = self.stream_id(IMU_STREAM, (name,))
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
        """A commanded trajectory: points at stamp + offset (stamp 0: the receive time).

        Raises:
            ValueError: For a trajectory the reader refuses (nothing is written): a joint named
                twice, points whose offsets do not increase, a point without a value per joint.
        """
        n = len(names)
        if len(set(names)) != n:
            raise ValueError("a joint is named twice")
        offsets = np.asarray(offsets_ns, dtype="<i8")
        if np.any(offsets[1:] <= offsets[:-1]):
            raise ValueError("the points' times do not increase")
        if len(positions) != len(offsets_ns) or any(len(p) != n for p in [*positions, *(velocities or [])]):
            raise ValueError(f"a point has not a position (or velocity) for each of the {n} joints")
        if velocities is not None and len(velocities) != len(offsets_ns):
            raise ValueError("not every point has velocities")
        sid = self.stream_id(TARGET_STREAM, names)
        flags = HAS_POSITION | (HAS_VELOCITY if velocities is not None else 0)
        body = [offsets.tobytes()]
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


@dataclasses.dataclass
class Block:
    """All samples of one stream with one name list and set of channels, as arrays (one row per
    sample). A stream's messages of other joint sets or channels are other blocks; ``order``
    (each sample's record number in the journal) puts them back in the order received."""

    stream: str
    names: tuple[str, ...]
    stamps: npt.NDArray[np.int64]
    receive: npt.NDArray[np.int64]
    order: npt.NDArray[np.int64]
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
    source: str = ""  # the journal's path, for messages

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
        kind = not_a_file(os.stat(p).st_mode)  # before open: opening a FIFO waits for a writer
        if kind is not None:
            raise ReadError(p, f"cannot read the journal: {kind}, not a regular file")
        with open(p, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if limit is not None:
                size = min(size, limit)
            if size < len(MAGIC) or fh.read(len(MAGIC)) != MAGIC:
                raise ReadError(p, "not a motion_formats_ros recording journal (bad magic)", offset=0)
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                try:
                    return _read_mapped(p, memoryview(mm), size, _Releaser(mm))
                except BaseException as exc:
                    # The traceback's frames still hold views of the map, and closing a
                    # map with views alive raises BufferError, which would replace this
                    # exception: drop the frames' locals before the map is closed. Also
                    # for KeyboardInterrupt (SIGINT, and SIGTERM in the CLI) and SystemExit,
                    # which must reach the CLI as themselves to end it without a traceback.
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


#: What the recorder's metadata holds beside its settings, each a text (None: not given).
_TEXTS = ("output", "format", "date")
#: The recorder's settings its metadata holds, checked as the node checks them.
_SETTINGS = ("name", "robot", "joints", "topics", "stamps", "rate", "world_frame", "root_frame")


def check_metadata(path: Path, metadata: Any) -> None:
    """Refuse metadata that is not what a recorder writes: a JSON object whose every field that
    recovery reads has its type and range (the recorder's settings checked as the node checks them).

    Raises:
        ReadError: Naming the journal, the metadata record's offset and the field.
    """
    from .recorder_config import RecorderConfig

    def refuse(field: str, reason: str) -> ReadError:
        return ReadError(path, reason, offset=len(MAGIC), field=f"metadata {field}")

    if not isinstance(metadata, dict):
        raise ReadError(path, f"the metadata is not a JSON object but {number(metadata)}", offset=len(MAGIC))
    for key in _TEXTS:
        value = metadata.get(key)
        if value is not None and not isinstance(value, str):
            raise refuse(key, f"expected a text, got {number(value)}")
    if metadata.get("date"):
        try:
            datetime.fromisoformat(metadata["date"])
        except ValueError as exc:
            raise refuse("date", f"{number(metadata['date'])} is not an ISO 8601 date ({exc})") from None
    settings = settings_of(RecorderConfig)
    for key in _SETTINGS:
        if key in metadata and (problem := settings[key].problem(metadata[key])) is not None:
            raise refuse(key, problem)
    options = metadata.get("write_options", {})
    if not isinstance(options, dict):
        raise refuse("write_options", f"expected a mapping of option names to values, got {number(options)}")


def _check_stream(schemas: Schemas, sid: int) -> None:
    if sid not in schemas:
        raise ValueError(f"sample of stream {sid}, which no schema record declared")


def _check_stamps(schemas: Schemas, sid: int, stamp: int, receive: int, offset: int = 0) -> None:
    """Refuse a sample whose stamp or receive time (or a trajectory point's ``offset``, the
    largest in size) is outside what time arithmetic in int64 ns holds: 0 to :data:`MAX_STAMP`,
    offsets within ±MAX_STAMP."""
    _check_stream(schemas, sid)
    for what, value in (("stamp", stamp), ("receive time", receive)):
        if not 0 <= value <= MAX_STAMP:
            raise ValueError(
                f"a sample of stream {schemas[sid][0]!r} has the {what} {value} ns, outside 0 to 2^62 ns (1970 to 2116)"
            )
    if abs(offset) > MAX_STAMP:
        raise ValueError(f"a trajectory of stream {schemas[sid][0]!r} has a point at {offset} ns, beyond ±2^62 ns")


def _longest_offset(data: memoryview, start: int, points: int) -> int:
    """The largest (in size) point offset of the TRAJECTORY record at ``start``, whose length
    :func:`_trajectory_size` has checked (0 when it has no points). Refuses offsets that do not
    increase from point to point (a point at the time of an earlier one would hide it)."""
    if not points:
        return 0
    offsets = np.frombuffer(data, dtype="<i8", count=points, offset=start + _SAMPLE.size + 4)
    back = np.flatnonzero(offsets[1:] <= offsets[:-1])
    low, high = int(offsets.min()), int(offsets.max())
    problem = None
    if back.size:
        k = int(back[0]) + 1
        problem = (
            f"the trajectory's point {k} is at {int(offsets[k])} ns, not after point {k - 1} ({int(offsets[k - 1])} ns)"
        )
    del offsets
    if problem is not None:
        raise ValueError(problem)
    return low if -low > high else high


#: What each kind of record is called in messages.
_KIND_NAMES = {META: "metadata", SCHEMA: "schema", JOINTS: "joint sample", POSE: "pose", IMU: "IMU sample"}
_KIND_NAMES.update({TRAJECTORY: "trajectory", TF: "transform", END: "end"})
#: The length of every record of a kind whose length is fixed.
_FIXED_SIZE = {POSE: _POSE.size, TF: _POSE.size, IMU: _IMU.size, END: _KIND.size}
#: How many names the schema of a stream of TF, IMU or POSE records has: parent and child; the IMU's name; none.
_NAME_COUNT = {TF: 2, IMU: 1, POSE: 0}
#: The kind of every record of a stream so named (as the writer names them); JOINTS and POSE
#: records are of any other stream.
_STREAM_KINDS = {TF_STREAM: TF, TF_STATIC_STREAM: TF, IMU_STREAM: IMU, TARGET_STREAM: TRAJECTORY}
#: The channels a JOINTS record may carry; a TRAJECTORY record's flags (positions, maybe velocities).
_JOINT_FLAGS = HAS_POSITION | HAS_VELOCITY | HAS_EFFORT
_TRAJECTORY_FLAGS = (HAS_POSITION, HAS_POSITION | HAS_VELOCITY)


def _refuse_length(kind: int, length: int, expected: int, why: str = "its kind") -> None:
    """Refuse a record whose length is not the ``expected`` one (``why``: what makes it so)."""
    if length != expected:
        raise ValueError(f"the {_KIND_NAMES[kind]} record has {length} bytes, where {why} takes {expected}")


def _refuse_short(kind: int, length: int, header: int) -> None:
    """Refuse a record too short for the ``header`` bytes its kind starts with."""
    if length < header:
        raise ValueError(f"the {_KIND_NAMES[kind]} record has {length} bytes, fewer than its {header}-byte header")


def _check_names(schemas: Schemas, sid: int, kind: int, count: int | None = None) -> None:
    """Refuse a ``kind`` record (of ``count`` values per channel) whose stream ``sid`` declares other names."""
    _check_stream(schemas, sid)
    stream, names = schemas[sid]
    if count is not None and len(names) != count:
        raise ValueError(
            f"the {_KIND_NAMES[kind]} record of stream {stream!r} has {count} values per channel, where its "
            f"schema declares {len(names)} names"
        )
    if kind in _NAME_COUNT and len(names) != _NAME_COUNT[kind]:
        raise ValueError(
            f"the {_KIND_NAMES[kind]} record is of stream {stream!r}, whose schema declares {len(names)} names "
            f"where a {_KIND_NAMES[kind]} takes {_NAME_COUNT[kind]}"
        )
    expected = _STREAM_KINDS.get(stream)
    if expected != kind and (expected is not None or kind not in (JOINTS, POSE)):
        holds = f"{_KIND_NAMES[expected]} records" if expected is not None else "joint samples and poses"
        raise ValueError(f"the {_KIND_NAMES[kind]} record is of stream {stream!r}, which holds {holds} only")


def _check_repeated(index: _Index, sid: int, kind: int) -> None:
    """Refuse a JOINTS or TRAJECTORY record whose stream names a joint twice (one would hide the other)."""
    if sid in index.repeated:
        stream, name = index.schemas[sid][0], index.repeated[sid]
        raise ValueError(f"the {_KIND_NAMES[kind]} record is of stream {stream!r}, whose schema names {name!r} twice")


def _trajectory_size(schemas: Schemas, data: memoryview, start: int, length: int) -> int:
    """Check a TRAJECTORY record's length against its header and schema; the number of its points."""
    _refuse_short(TRAJECTORY, length, _SAMPLE.size + 4)
    _, sid, _, _, flags, n = _SAMPLE.unpack_from(data, start)
    _check_names(schemas, sid, TRAJECTORY, n)
    if flags not in _TRAJECTORY_FLAGS:
        raise ValueError(f"the trajectory record has the channel flags {flags} (expected 1 or 3)")
    (points,) = struct.unpack_from("<I", data, start + _SAMPLE.size)
    channels = 2 if flags & HAS_VELOCITY else 1
    why = f"{points} points of {n} joints ({channels} channel(s)) after their offsets"
    _refuse_length(TRAJECTORY, length, _SAMPLE.size + 4 + 8 * points * (1 + channels * n), why)
    return int(points)


def _check_joints(schemas: Schemas, data: memoryview, start: int, length: int) -> int:
    """Check a JOINTS record's length against its header and schema; its channel flags."""
    _refuse_short(JOINTS, length, _SAMPLE.size)
    _, sid, _, _, flags, n = _SAMPLE.unpack_from(data, start)
    _check_names(schemas, sid, JOINTS, n)
    if flags & ~_JOINT_FLAGS:
        raise ValueError(f"the joint sample record has the channel flags {flags} (expected 0 to 7)")
    channels = bin(flags).count("1")
    _refuse_length(JOINTS, length, _SAMPLE.size + 8 * n * channels, f"{n} joints × {channels} channel(s)")
    return int(flags)


def _json_record(data: memoryview, start: int, end: int) -> Any:
    """The JSON text of a META or SCHEMA record from ``start`` to ``end``, parsed."""
    from ..core.serial.nesting import json_too_deep, too_deep_reason

    text = bytes(data[start:end]).decode("utf-8")
    if json_too_deep(text) is not None:
        raise ValueError(too_deep_reason())
    return json.loads(text)


def _schema(index: _Index, data: memoryview, start: int, length: int) -> None:
    """Declare the stream of a SCHEMA record: its id once, its stream a text, its names a list of
    texts; each (stream, names) once (the writer declares it once: under a second id, its samples
    would be two streams of one name, of which the model keeps one)."""
    schemas = index.schemas
    _refuse_short(SCHEMA, length, 3)
    (sid,) = struct.unpack_from("<H", data, start + 1)
    if sid in schemas:
        raise ValueError(f"stream id {sid} declared a second time (first as {schemas[sid][0]!r})")
    body = _json_record(data, start + 3, start + length)
    stream = body.get("stream") if isinstance(body, dict) else None
    names = body.get("names") if isinstance(body, dict) else None
    if not isinstance(stream, str) or not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"the schema is not {{'stream': a text, 'names': a list of texts}} but {number(body)}")
    key = (stream, tuple(names))
    if key in index.declared:
        raise ValueError(
            f"stream {stream!r} of the names {names} declared a second time "
            f"(as id {sid}, first as id {index.declared[key]})"
        )
    index.declared[key] = sid
    schemas[sid] = key
    seen: set[str] = set()
    for name in names:
        if name in seen:
            index.repeated[sid] = name
            break
        seen.add(name)


@dataclasses.dataclass
class _Index:
    """The first pass over a journal: where its intact records are and how many of each block."""

    schemas: Schemas = dataclasses.field(default_factory=dict)
    declared: dict[tuple[str, tuple[str, ...]], int] = dataclasses.field(default_factory=dict)  # their ids
    repeated: dict[int, str] = dataclasses.field(default_factory=dict)  # a name a stream's schema repeats
    counts: dict[_Key, int] = dataclasses.field(default_factory=dict)  # samples per block
    starts: array.array[int] = dataclasses.field(default_factory=lambda: array.array("q"))  # payload offsets
    kinds: array.array[int] = dataclasses.field(default_factory=lambda: array.array("B"))  # (compact: 9 bytes each)


def _read_mapped(p: Path, data: memoryview, size: int, release: _Releaser) -> JournalContent:
    content = JournalContent({}, [], {}, {}, [], 0, False, None, source=str(p))
    index = _index_records(p, data, size, release, content)
    content.records = len(index.starts)
    if not content.metadata:
        raise ReadError(p, "the journal has no metadata record", offset=len(MAGIC))
    check_metadata(p, content.metadata)
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
    index, pos = _Index(), len(MAGIC)
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
            _index_record(index, content, data, start, length)
            index.starts.append(start)
            index.kinds.append(kind)
            pos = start + length
            release.upto(pos)
    except (struct.error, ValueError, KeyError) as exc:
        problem = f"malformed record ({exc})"
    else:
        return index
    # Raised once the exception is gone: its frames hold views of the map, which must be
    # released before the map is closed (else BufferError would replace this error).
    raise ReadError(p, problem, offset=pos)


def _index_record(index: _Index, content: JournalContent, data: memoryview, start: int, length: int) -> None:
    """One intact record of the first pass: its length checked against what its kind and schema
    require, before anything is decoded from it (the second pass trusts these lengths)."""
    schemas, counts, kind = index.schemas, index.counts, data[start]
    if kind in _FIXED_SIZE:
        _refuse_length(kind, length, _FIXED_SIZE[kind])
    if kind == META:
        content.metadata = _json_record(data, start + 1, start + length)
    elif kind == SCHEMA:
        _schema(index, data, start, length)
    elif kind == JOINTS:
        flags = _check_joints(schemas, data, start, length)
        _, sid, stamp, recv = _STAMPED.unpack_from(data, start)
        _check_stamps(schemas, sid, stamp, recv)
        _check_repeated(index, sid, kind)
        counts[(sid, flags)] = counts.get((sid, flags), 0) + 1
    elif kind in (POSE, IMU, TF):
        _, sid, stamp, recv = _STAMPED.unpack_from(data, start)
        _check_names(schemas, sid, kind)
        _check_stamps(schemas, sid, stamp, recv)
        counts[(sid, -kind)] = counts.get((sid, -kind), 0) + 1
    elif kind == TRAJECTORY:
        points = _trajectory_size(schemas, data, start, length)
        _, sid, stamp, recv = _STAMPED.unpack_from(data, start)
        _check_stamps(schemas, sid, stamp, recv, _longest_offset(data, start, points))
        _check_repeated(index, sid, kind)
    elif kind == END:
        content.complete = True
    else:
        raise ValueError(f"unknown record kind {kind}")


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
        stamps, receive, order = np.empty(count, np.int64), np.empty(count, np.int64), np.empty(count, np.int64)
        blocks[key] = Block(stream, names, stamps, receive, order, channels)
    return blocks


def _fill_blocks(
    data: memoryview, index: _Index, blocks: dict[_Key, Block], release: _Releaser, content: JournalContent
) -> None:
    """The second pass: every sample into its block's next row, trajectories into ``content.targets``."""
    fill = dict.fromkeys(blocks, 0)
    for record, (start, kind) in enumerate(zip(index.starts, index.kinds, strict=True)):
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
        block.order[i] = record
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
