"""The recorder's crash-safe journal, and turning a journal into a motion file.

While recording, every received sample is appended to a journal beside the output and
the journal is flushed and fsynced at least every ``flush_interval``; RAM holds nothing
but the write buffer, so memory stays flat however long the recording. After a crash
(SIGKILL, power loss) the journal is complete up to the last flush: :func:`recover`
reads every intact record (each carries a CRC-32) and writes the motion file.

Layout: ``MAGIC`` then records ``[u32 length][u32 crc32 of payload][payload]``; the
payload starts with a kind byte. Names are sent once per stream in SCHEMA records and
samples refer to them by id, so a 50-joint JointState costs 25 bytes plus its values.
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

from .core.errors import ReadError
from .core.model import IMU_CHANNELS, Motion, MotionFile

MAGIC = b"MFR-JOURNAL-1\n"
FloatArray = npt.NDArray[np.float64]

META, SCHEMA, JOINTS, POSE, IMU, TRAJECTORY, END = 1, 2, 3, 4, 5, 6, 9
_HEAD = struct.Struct("<II")
_KIND = struct.Struct("<B")
_SAMPLE = struct.Struct("<BHqqBI")  # kind, stream, stamp ns, receive ns, flags, count
_POSE = struct.Struct("<BHqq7d")
_IMU = struct.Struct("<BHqq10d")
_MAX_RECORD = 64 << 20

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

    def flush(self) -> None:
        """Write the buffer out and fsync: everything so far survives a crash."""
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._last_flush = time.monotonic()

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
    targets: list[tuple[tuple[str, ...], int, int, npt.NDArray[np.int64], FloatArray, FloatArray | None]]
    records: int
    complete: bool
    truncated_at: int | None

    @property
    def samples(self) -> int:
        return sum(b.stamps.size for b in self.joints)


_CHANNELS = ((HAS_POSITION, "position"), (HAS_VELOCITY, "velocity"), (HAS_EFFORT, "effort"))


def read_journal(path: str | os.PathLike[str]) -> JournalContent:
    """Every intact record of a journal; stops at the first torn or corrupt record.

    Two passes over a memory map: the first checks every record's CRC and counts the
    samples of each stream, the second fills arrays allocated once, so reading needs
    little more memory than the arrays it returns.
    """
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
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


def _check_stream(schemas: dict[int, tuple[str, tuple[str, ...]]], sid: int) -> None:
    if sid not in schemas:
        raise ValueError(f"sample of stream {sid}, which no schema record declared")


def _read_mapped(p: Path, data: memoryview, size: int, release: _Releaser) -> JournalContent:
    content = JournalContent({}, [], {}, {}, [], 0, False, None)
    schemas: dict[int, tuple[str, tuple[str, ...]]] = {}
    counts: dict[tuple[int, int], int] = {}  # (stream id, flags) → samples
    starts = array.array("q")  # payload offsets and kinds of the intact records (compact: 9 bytes each)
    kinds = array.array("B")
    pos = len(MAGIC)
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
            elif kind in (POSE, IMU):
                (sid,) = struct.unpack_from("<H", data, start + 1)
                _check_stream(schemas, sid)
                counts[(sid, -kind)] = counts.get((sid, -kind), 0) + 1
            elif kind == TRAJECTORY:
                _check_stream(schemas, _SAMPLE.unpack_from(data, start)[1])
            elif kind == END:
                content.complete = True
            else:
                raise ValueError(f"unknown record kind {kind}")
            starts.append(start)
            kinds.append(kind)
            pos = start + length
            release.upto(pos)
    except (struct.error, ValueError, KeyError, UnicodeDecodeError) as exc:
        raise ReadError(p, f"malformed record ({exc})", offset=pos) from None
    content.records = len(starts)
    if not content.metadata:
        raise ReadError(p, "the journal has no metadata record", offset=len(MAGIC))
    # Second pass: fill one block per (stream, names, channels).
    blocks: dict[tuple[int, int], Block] = {}
    fill: dict[tuple[int, int], int] = {}
    for key, count in counts.items():
        sid, flags = key
        stream, names = schemas[sid]
        if flags >= 0:
            channels = {name: np.empty((count, len(names))) for flag, name in _CHANNELS if flags & flag}
        else:
            channels = {"values": np.empty((count, 7 if flags == -POSE else 10))}
        blocks[key] = Block(stream, names, np.empty(count, np.int64), np.empty(count, np.int64), channels)
        fill[key] = 0
    release.reset()
    for start, kind in zip(starts, kinds, strict=True):
        release.upto(start)
        if kind == JOINTS:
            _, sid, stamp, recv, flags, n = _SAMPLE.unpack_from(data, start)
            key = (sid, flags)
            block, i = blocks[key], fill[key]
            at = start + _SAMPLE.size
            for channel in block.channels.values():
                channel[i] = np.frombuffer(data, dtype="<f8", count=n, offset=at)
                at += 8 * n
        elif kind in (POSE, IMU):
            st = _POSE if kind == POSE else _IMU
            _, sid, stamp, recv, *values = st.unpack_from(data, start)
            key = (sid, -kind)
            block, i = blocks[key], fill[key]
            block.channels["values"][i] = values
        elif kind == TRAJECTORY:
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
            content.targets.append((schemas[sid][1], stamp, recv, offsets, positions, velocities))
            continue
        else:
            continue
        block.stamps[i] = stamp
        block.receive[i] = recv
        fill[key] = i + 1
    for (_, flags), block in blocks.items():
        if flags >= 0:
            content.joints.append(block)
        elif flags == -POSE:
            content.poses[block.stream] = block
        else:
            content.imus[block.names[0]] = block
    return content


# ------------------------------------------------------------------------ assembling
def _choose_stamps(block: Block, mode: str) -> npt.NDArray[np.int64]:
    if mode == "receive":
        return block.receive
    if mode == "auto":
        return np.where(block.stamps == 0, block.receive, block.stamps)
    return block.stamps


def _unique_increasing(times: np.ndarray, what: str = "") -> tuple[np.ndarray, np.ndarray | slice]:
    """Sort times; for equal times keep the last sample. Returns (times, source indices).

    Times that already increase (the usual case) come back as they are with a slice, so
    taking the rows does not copy them. With ``what``, samples dropped for sharing a
    time are reported (they are data lost: the stamps mode may be wrong).
    """
    if times.size < 2 or bool(np.all(times[1:] > times[:-1])):
        return times, slice(None)
    order = np.argsort(times, kind="stable")
    t = times[order]
    keep = np.ones(t.size, dtype=bool)
    keep[:-1] = t[1:] != t[:-1]
    dropped = int(t.size - keep.sum())
    if dropped and what:
        warnings.warn(
            f"{what}: {dropped} of {t.size} samples share a stamp with a later one and were dropped "
            "(stamps: receive keeps them all)",
            stacklevel=3,
        )
    return t[keep], order[keep]


def assemble(
    content: JournalContent,
    *,
    joints: Sequence[str] | None = None,
    stamps: str = "auto",
    rate: float = 0.0,
) -> MotionFile:
    """The motion file a journal stands for.

    JointState streams are merged by joint name into the ``actual`` group: with ``rate``
    0 every sample time is a frame and joints a message does not carry hold their last
    value (NaN before their first); with ``rate`` > 0 every joint's own samples are
    interpolated onto a uniform grid. Root poses and IMUs are sampled at the frame
    times; commanded trajectories become the ``target`` group.
    """
    meta = content.metadata
    groups: dict[str, Motion] = {}
    if content.targets:
        groups["target"] = _target_group(content, stamps)
    if content.joints:
        groups["actual"] = _with_poses_and_imus(_actual_group(content, joints, stamps, rate), content, stamps)
    if not groups:
        raise ValueError("nothing was recorded")
    date = datetime.fromisoformat(meta["date"]) if meta.get("date") else None
    return MotionFile(groups=groups, name=str(meta.get("name", "")), robot=str(meta.get("robot", "")), date=date)


def _actual_group(content: JournalContent, joints: Sequence[str] | None, stamps: str, rate: float) -> Motion:
    # Joints in the order of the recorder's topics, then of first appearance: deterministic
    # even though messages of different topics arrive in any order.
    topics = [str(t).lstrip("/") for t in content.metadata.get("topics", [])]
    rank = {t: i for i, t in enumerate(topics)}
    blocks = sorted(content.joints, key=lambda b: rank.get(b.stream.lstrip("/"), len(rank)))
    order: dict[str, None] = {}
    for block in blocks:
        for n in block.names:
            order.setdefault(n, None)
    names = list(joints) if joints else list(order)
    index = {n: i for i, n in enumerate(names)}
    block_times = [_choose_stamps(b, stamps) for b in content.joints]
    channels = sorted({c for b in content.joints for c in b.channels}, key=[n for _, n in _CHANNELS].index)
    single = len(content.joints) == 1 and list(content.joints[0].names) == names and rate <= 0
    if single:
        # One stream, names as wanted: the block is the motion (sorted, duplicates dropped).
        block = content.joints[0]
        t, idx = _unique_increasing(block_times[0], block.stream)
        fields: dict[str, Any] = {c: block.channels[c][idx] for c in channels}
        return Motion(times=t / 1e9, joint_names=tuple(names), **fields)
    all_t = np.unique(np.concatenate(block_times))
    if rate > 0:
        span = (all_t[-1] - all_t[0]) / 1e9
        frames = int(np.floor(span * rate + 1e-9)) + 1
        times_ns = all_t[0] + np.round(np.arange(frames) * (1e9 / rate)).astype(np.int64)
    else:
        times_ns = all_t
    t0 = times_ns[0]
    merged: dict[str, Any] = {}
    for channel in channels:
        out = np.full((times_ns.size, len(names)), np.nan)
        for name, col in index.items():
            parts_t, parts_v = [], []
            for block, bt in zip(content.joints, block_times, strict=True):
                if channel in block.channels and name in block.names:
                    parts_t.append(bt)
                    parts_v.append(block.channels[channel][:, block.names.index(name)])
            if not parts_t:
                continue
            src_t, idx = _unique_increasing(np.concatenate(parts_t))
            values = np.concatenate(parts_v)[idx]
            if rate > 0:
                out[:, col] = np.interp((times_ns - t0) / 1e9, (src_t - t0) / 1e9, values, left=np.nan, right=np.nan)
            else:
                at = np.searchsorted(src_t, times_ns, side="right") - 1
                ok = at >= 0
                out[ok, col] = values[at[ok]]
        merged[channel] = out
    return Motion(times=times_ns / 1e9, joint_names=tuple(names), rate=rate if rate > 0 else None, **merged)


def _sample_block(times: np.ndarray, block: Block, stamps: str, columns: slice, quaternion: bool) -> FloatArray:
    from .core import timing

    t, idx = _unique_increasing(_choose_stamps(block, stamps))
    values = block.channels["values"][idx][:, columns]
    where = timing.locate(t / 1e9, times)
    return np.asarray(timing.interpolate(values, where, "quaternion" if quaternion else "value"))


def _with_poses_and_imus(m: Motion, content: JournalContent, stamps: str) -> Motion:
    fields: dict[str, Any] = {}
    root = content.poses.get("root")
    if root is not None:
        fields["root_position"] = _sample_block(m.times, root, stamps, slice(0, 3), False)
        fields["root_orientation"] = _sample_block(m.times, root, stamps, slice(3, 7), True)
    if content.imus:
        names = tuple(content.imus)
        layout = {
            "orientation": (slice(0, 4), True),
            "angular_velocity": (slice(4, 7), False),
            "linear_acceleration": (slice(7, 10), False),
        }
        fields["imu_names"] = names
        fields["imus"] = {
            key: np.stack([_sample_block(m.times, content.imus[n], stamps, cols, quat) for n in names], axis=1)
            for key, (cols, quat) in layout.items()
            if key in IMU_CHANNELS
        }
    return dataclasses.replace(m, **fields) if fields else m


def _target_group(content: JournalContent, stamps: str) -> Motion:
    names: dict[str, None] = {}
    for target_names, *_ in content.targets:
        for n in target_names:
            names.setdefault(n, None)
    order = list(names)
    col = {n: i for i, n in enumerate(order)}
    times: list[np.ndarray] = []
    rows: list[np.ndarray] = []
    vel_rows: list[np.ndarray] = []
    any_vel = False
    for target_names, stamp, recv, offsets, pos, vel in content.targets:
        base = recv if stamp == 0 or stamps == "receive" else stamp
        times.append(base + offsets)
        block = np.full((pos.shape[0], len(order)), np.nan)
        cols = [col[n] for n in target_names]
        block[:, cols] = pos
        rows.append(block)
        vblock = np.full_like(block, np.nan)
        if vel is not None:
            any_vel = True
            vblock[:, cols] = vel
        vel_rows.append(vblock)
    t_sorted, idx = _unique_increasing(np.concatenate(times))
    position = np.concatenate(rows)[idx]
    velocity = np.concatenate(vel_rows)[idx] if any_vel else None
    return Motion(times=t_sorted / 1e9, joint_names=tuple(order), position=position, velocity=velocity)


def recover(
    journal: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    overwrite: bool = False,
    **options: Any,
) -> tuple[Path, MotionFile, JournalContent]:
    """Write the motion file a journal stands for (after a crash, or to finish a recording).

    The output path and options default to what the recorder wrote into the journal.
    """
    from .registry import write

    content = read_journal(journal)
    meta = content.metadata
    if output is None and not isinstance(meta.get("output"), str):
        raise ReadError(journal, "the metadata names no output file: give one", offset=len(MAGIC))
    out = Path(output) if output is not None else Path(meta["output"])
    try:
        motion_file = assemble(
            content,
            joints=meta.get("joints") or None,
            stamps=meta.get("stamps", "auto"),
            rate=float(meta.get("rate", 0.0)),
        )
    except (ValueError, TypeError) as exc:  # nothing recorded, or metadata of the wrong type
        raise ReadError(journal, str(exc)) from None
    from .registry import codec_for_path

    # The recording's writer options (e.g. .seq version) only apply to its own format.
    same_format = codec_for_path(out, for_write=True).name == meta.get("format")
    write_options = dict(meta.get("write_options", {})) if same_format else {}
    write_options.update(options)
    write(motion_file, out, overwrite=overwrite, **write_options)
    return out, motion_file, content
