"""Bag → motion: JointState topics merged by name, TF root pose, IMUs, trajectories, ZMP.

Groups: ``actual`` holds the joint states (plus root pose, links, IMUs and point
series sampled at the joint-state times); ``target`` holds the JointTrajectory topics
(each point at header stamp + time_from_start; a newer message replaces the rest of the
previous one, as a trajectory controller does). Bags written by this package carry a
``motion_formats_ros`` entry in their custom data that restores group names, frames and
the time origin exactly; other bags get times relative to their first message and the
origin (integer nanoseconds) in each motion's :class:`BagMotionRecord`.
"""

from __future__ import annotations

import dataclasses
import json
import mmap
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.distros import Distro
from ...core.errors import ReadError, SelectionError, require
from ...core.merge import (
    Command,
    Segment,
    imu_name,
    imu_row,
    joint_state_problem,
    merge,
    place_trajectories,
    sample_stream,
    select_joints,
    trajectory_bases,
)
from ...core.model import Motion, MotionFile, Series
from ...core.notices import NoticeKind, collect, notify, relay
from ...core.options import option
from ...core.serial.nesting import json_too_deep, too_deep_reason
from ...core.stamps import Stamps, choose_times
from ...core.tf import MAX_NS, TfBuffer, TfSamples
from ...core.timing import snap_to_rate
from . import _bulk, _tf_bulk
from ._record import BagMotionRecord, BagRecord
from ._source import BagSource, Block, PayloadTooShortError, quick_candidate, typestore_for
from ._types import JointField, joint_fields, parse_path, values_at

JOINT_STATE = "sensor_msgs/msg/JointState"
IMU = "sensor_msgs/msg/Imu"
TRAJECTORY = "trajectory_msgs/msg/JointTrajectory"
POINT = "geometry_msgs/msg/PointStamped"
TF_TYPES = ("tf2_msgs/msg/TFMessage", "tf/msg/tfMessage")
#: Types converted as a whole topic (other types are searched for joint data inside).
CONVERTIBLE_TYPES = (JOINT_STATE, IMU, TRAJECTORY, POINT, *TF_TYPES)
DEFAULT_JOINT_TOPIC = "/joint_states"
#: The robot's URDF as robot_state_publisher takes it (kept as MotionFile.robot_description).
ROBOT_DESCRIPTION = "/robot_description"
STRING = "std_msgs/msg/String"
CUSTOM_KEY = "motion_formats_ros"
#: Stamps off a uniform grid by at most this many ns are only its rounding to whole ns: no warning.
JITTER_NS = 1
#: Messages decoded together by the bulk JointState path.
BATCH = 4096
#: Bags with at least this many messages show a progress bar (when stderr is a terminal).
PROGRESS_MIN = 100_000

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read_bag` (the CLI's ``bag2motion`` flags)."""

    topics: Sequence[str] | None = option(
        None, "JointState topics merged by joint name (default /joint_states, else all); TOPIC:FIELD inside others"
    )
    stamps: Stamps = option(Stamps.AUTO, "sample times: header stamp, receive time, or auto")
    root: str | None = option(None, "root pose from TF as PARENT:CHILD; 'none' for no root", metavar="PARENT:CHILD")
    imu: Sequence[str] | None = option(None, "sensor_msgs/Imu topics (default: all; 'none': none)")
    trajectory: Sequence[str] | None = option(None, "JointTrajectory topics -> 'target' group (default: all)")
    points: Sequence[str] | None = option(None, "PointStamped topics -> series (default: /zmp)")
    links: Sequence[str] | None = option(None, "TF frames to record as link poses")
    tf_topic: str = option("/tf", "the TF topic", metavar="TOPIC")
    tf_static_topic: str = option("/tf_static", "the static TF topic", metavar="TOPIC")
    hold: bool = option(False, "hold a joint's last value instead of NaN where it is absent")
    distro: Distro | None = option(None, "typestore for types the bag does not define")
    progress: bool | None = option(None, "progress bar (default: on a terminal, for large bags)")
    bulk: bool = option(True, "decode regular JointState messages in bulk (numpy)")
    start: float | None = option(None, "drop frames before this time (from the first message)", unit="s")
    end: float | None = option(None, "drop frames after this time", unit="s")
    rate: float | None = option(None, "resample to this rate", unit="Hz")
    joints: Sequence[str] | None = option(None, "keep only these joints, in this order")


#: Arrays at least this big are allocated with their pages mapped at once (see :func:`_empty`).
PREFAULT_BYTES = 1 << 22


def _empty(shape: tuple[int, ...], dtype: Any, prefault: bool = True) -> npt.NDArray[Any]:
    """An uninitialised array; a big one with its pages mapped in one go (with ``prefault``).

    Touching the pages of a fresh allocation one by one (a fault per page, or a search
    for huge pages on a busy machine) costs more than filling them; anonymous memory
    mapped with MAP_POPULATE is mapped by the kernel at once. The array owns its mapping
    (it is released with the array). Elsewhere, when mapping fails or without
    ``prefault`` (pages that may never be used): ``np.empty``, whose untouched pages
    cost no memory.
    """
    dt = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    flags = getattr(mmap, "MAP_POPULATE", 0)
    if prefault and nbytes >= PREFAULT_BYTES and flags:
        try:
            mapping = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | flags)
        except (OSError, ValueError, OverflowError):
            pass
        else:
            return np.frombuffer(mapping, dtype=dt).reshape(shape)
    return np.empty(shape, dtype=dt)


@dataclasses.dataclass
class _Run:
    """Samples of one layout (joint names, present channels), copied into arrays that grow."""

    names: tuple[str, ...]
    stamps: IntArray
    recv: IntArray
    channels: dict[str, FloatArray]
    layout: _bulk.Layout
    size: int = 0

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


@dataclasses.dataclass
class _TopicStream:
    """Joint samples of one topic, collected batch by batch.

    Messages decoded in bulk are copied into the arrays of the current run (one layout)
    as they come, so that a topic of one layout ends as one segment whose arrays are
    the motion's; ``expected`` (the topic's message count) sizes them.
    """

    topic: str
    segments: list[Segment] = dataclasses.field(default_factory=list)
    raws: list[bytes] = dataclasses.field(default_factory=list)
    recv: list[int] = dataclasses.field(default_factory=list)
    bad: int = 0
    undecodable: int = 0
    not_utf8: int = 0
    truncated: int = 0
    bulk_batches: int = 0
    slow_batches: int = 0
    expected: int = 0
    seen: int = 0
    run: _Run | None = None
    #: The bag's bytes: a damaged message count sizes no more samples than they can hold.
    bag_bytes: int = 0

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


# --------------------------------------------------------------------------- helpers
def _stamp_ns(stamp: Any) -> int:
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def _frame(name: str) -> str:
    return name[1:] if name.startswith("/") else name


def _custom(source: BagSource) -> dict[str, Any]:
    text = source.custom.get(CUSTOM_KEY)
    if not text:
        return {}
    line = json_too_deep(text)
    if line is not None:  # json.loads would raise RecursionError
        where = f"custom_data.{CUSTOM_KEY} (line {line} of its JSON)"
        raise ReadError(source.path, too_deep_reason(), field=where)
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _choose_times(stamps: IntArray, recv: IntArray, mode: str, what: str, notes: list[str]) -> IntArray:
    times, note = choose_times(stamps, recv, mode)
    if note:
        notes.append(f"{what}: {note}")
    return times


#: The types a TFMessage is made of: the bulk TF decoder reads only bags that define them as ROS 2 does.
_TF_PARTS = (
    "tf2_msgs/msg/TFMessage",
    "geometry_msgs/msg/TransformStamped",
    "std_msgs/msg/Header",
    "builtin_interfaces/msg/Time",
    "geometry_msgs/msg/Transform",
    "geometry_msgs/msg/Vector3",
    "geometry_msgs/msg/Quaternion",
)


def _standard_tf(source: BagSource, topic: str) -> bool:
    """Whether ``topic``'s TF types are ROS 2's own (a CDR bag; the same definitions field by field)."""
    if source.ros1 or source.type_problem(topic) is not None:
        return False
    reference = typestore_for("jazzy").fielddefs
    defs = source.typestore.fielddefs
    return all(t in defs and defs[t] == reference[t] for t in _TF_PARTS)


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
            except Exception as exc:
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


def _preferred(found: list[JointField]) -> JointField | None:
    """The shallowest field (``trajectory[].joint_trajectory`` before ``…attached_objects[].detach_posture``).

    None when several share the smallest depth.
    """
    if not found:
        return None
    depth = min(f.depth for f in found)
    best = [f for f in found if f.depth == depth]
    return best[0] if len(best) == 1 else None


def _bag_bytes(path: Path) -> int:
    """The size of a bag file, or of the files of a bag folder."""
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.iterdir() if p.is_file())
        return path.stat().st_size
    except OSError:
        return 0


def _backwards(times: IntArray) -> int:
    return int(np.count_nonzero(np.diff(times) < 0)) if times.size > 1 else 0


# --------------------------------------------------------------------------- reader
class _BagReader:
    def __init__(self, path: Path, options: ReadOptions) -> None:
        self.path = path
        self.options = options
        self.notes: list[str] = []

    def warn(self, message: str, kind: NoticeKind = NoticeKind.INCONSISTENT) -> None:
        notify(kind, message, file=self.path, stacklevel=5)

    # -- topic selection --------------------------------------------------------
    def _topics_of(self, source: BagSource, msgtypes: Sequence[str]) -> list[str]:
        return [t.name for t in source.topics.values() if t.msgtype in msgtypes]

    @staticmethod
    def _resolve(source: BagSource, topic: str) -> str:
        """A topic as the bag spells it: given with or without its leading slash."""
        if topic in source.topics:
            return topic
        other = topic[1:] if topic.startswith("/") else "/" + topic
        return other if other in source.topics else topic

    def _require(self, source: BagSource, topics: Sequence[str], msgtypes: Sequence[str], what: str) -> list[str]:
        out = []
        for given in topics:
            topic = self._resolve(source, given)
            info = source.topics.get(topic)
            if info is None:
                raise ReadError(self.path, f"no such topic {given!r}; the bag has: {self._listing(source)}")
            if info.msgtype not in msgtypes:
                raise ReadError(
                    self.path,
                    f"topic {topic!r} is {info.msgtype}, not {' or '.join(msgtypes)} ({what})",
                )
            out.append(topic)
        return out

    def _requests(
        self, source: BagSource, specs: Sequence[str], msgtype: str, what: str
    ) -> tuple[list[str], list[tuple[str, JointField]]]:
        """``TOPIC`` / ``TOPIC:FIELD`` requests → (topics of ``msgtype``, fields of it inside other types)."""
        topics: list[str] = []
        fields: list[tuple[str, JointField]] = []
        for spec in specs:
            given, sep, path = spec.partition(":")
            topic = self._resolve(source, given.strip())
            info = source.topics.get(topic)
            if info is None:
                raise ReadError(self.path, f"no such topic {given.strip()!r}; the bag has: {self._listing(source)}")
            if info.msgtype == msgtype and not path.strip():
                topics.append(topic)
                continue
            if info.msgtype in CONVERTIBLE_TYPES and not path.strip():
                raise ReadError(self.path, f"topic {topic!r} is {info.msgtype}, not {msgtype} ({what})")
            fields.append((topic, self._field(source, topic, path.strip() if sep else None, msgtype, what)))
        return topics, fields

    def _field(self, source: BagSource, topic: str, path: str | None, msgtype: str, what: str) -> JointField:
        """The ``msgtype`` field at ``path`` inside ``topic``'s type (None: the only / shallowest one)."""
        info = source.topics[topic]
        problem = source.type_problem(topic)
        if problem is not None:
            raise ReadError(self.path, f"topic {topic!r} ({info.msgtype}): {problem}")
        found = [f for f in joint_fields(source.typestore.fielddefs, info.msgtype) if f.msgtype == msgtype]
        if not found:
            raise ReadError(self.path, f"topic {topic!r} is {info.msgtype}, not {msgtype} ({what}) nor holds one")
        listing = ", ".join(f"{topic}:{f.path}" for f in found)
        if path is not None:
            wanted = parse_path(path)
            for f in found:
                if tuple(name for name, _ in f.steps) == wanted:
                    return f
            raise ReadError(self.path, f"{topic}:{path}: no {msgtype} at that field; {info.msgtype} has {listing}")
        best = _preferred(found)
        if best is None:
            raise ReadError(self.path, f"topic {topic!r} holds several {msgtype} fields; choose one of {listing}")
        if len(found) > 1:
            self.warn(
                f"{topic}: read {msgtype} from {best.path} (also at: {listing}; choose with TOPIC:FIELD)",
                NoticeKind.READ_CHOICE,
            )
        return best

    def _nested_trajectories(self, source: BagSource) -> list[tuple[str, JointField]]:
        """JointTrajectory fields inside the bag's other topics (when nothing else converts)."""
        out = []
        for topic in sorted(source.topics):
            msgtype = source.topics[topic].msgtype
            if msgtype in CONVERTIBLE_TYPES or not msgtype or source.type_problem(topic) is not None:
                continue
            found = [f for f in joint_fields(source.typestore.fielddefs, msgtype) if f.msgtype == TRAJECTORY]
            best = _preferred(found)
            if best is not None:
                out.append((topic, best))
        return out

    @staticmethod
    def _listing(source: BagSource) -> str:
        if not source.topics:
            return "no topics"
        return ", ".join(f"{t.name} ({t.msgtype})" for t in sorted(source.topics.values(), key=lambda t: t.name))

    def _progress(self, source: BagSource, topics: Sequence[str]) -> Any:
        total = sum(source.topics[t].count for t in topics if t in source.topics)
        enabled = self.options.progress
        if enabled is None:
            enabled = total >= PROGRESS_MIN and sys.stderr.isatty()
        if not enabled:
            return None
        try:
            from tqdm import tqdm
        except ImportError:
            if self.options.progress:  # asked for: say how to get it
                require("tqdm", "--progress", package="tqdm", extra="progress", rosdep_key="python3-tqdm")
            return None  # a bar the user did not ask for is left out
        return tqdm(total=total, unit="msg", desc=self.path.name, file=sys.stderr, leave=False)

    # -- main -------------------------------------------------------------------
    def read(self) -> MotionFile:
        opts = self.options
        if quick_candidate(self.path):
            quick = self._quick_read()
            if quick is not None:
                return quick
        with BagSource(self.path, opts.distro) as source:
            custom = _custom(source)
            plan = self._plan(source, custom)
            data = self._collect(source, plan)
        return self._assemble(source, custom, plan, data)

    def _quick_read(self) -> MotionFile | None:
        """The read of a rosbag2 folder whose sqlite3 storage opens without counting its messages.

        The count is a scan of every message that only finds damage (the folder's counts
        come from its ``metadata.yaml``); the read's own scan of the table stands in for it
        (see ``_sqlite``). The read runs with its notices and warnings held back: should it
        fail in any way after such an open, they are dropped and None says to read the
        ordinary way, which then fails (or warns) exactly as it always did.
        """
        notes = list(self.notes)
        source = BagSource(self.path, self.options.distro, quick=True)
        failed: Exception | None = None
        with warnings.catch_warnings(record=True) as caught, collect(isolated=True) as report:
            warnings.simplefilter("always")
            try:
                with source:
                    custom = _custom(source)
                    plan = self._plan(source, custom)
                    data = self._collect(source, plan)
                    source.settle()
            except Exception as exc:
                failed = exc
        if failed is not None and source.quick:  # a count was left out: the ordinary read decides
            self.notes = notes
            return None
        relay(report.notices)
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
        if failed is not None:  # no count was left out: this is the ordinary read's own outcome
            raise failed
        return self._assemble(source, custom, plan, data)

    def _plan(self, source: BagSource, custom: dict[str, Any]) -> dict[str, Any]:
        opts = self.options
        joint_fields_: list[tuple[str, JointField]] = []
        if opts.topics is not None:
            joint_topics, joint_fields_ = self._requests(source, list(opts.topics), JOINT_STATE, "joint states")
        elif DEFAULT_JOINT_TOPIC in source.topics and source.topics[DEFAULT_JOINT_TOPIC].msgtype == JOINT_STATE:
            joint_topics = [DEFAULT_JOINT_TOPIC]
        elif custom.get("joint_topic") in source.topics:
            joint_topics = [str(custom["joint_topic"])]
        else:
            joint_topics = self._topics_of(source, (JOINT_STATE,))
        tf_topics = [
            self._resolve(source, t)
            for t in (opts.tf_topic, opts.tf_static_topic)
            if self._resolve(source, t) in source.topics
        ]
        for t in tf_topics:
            if source.topics[t].msgtype not in TF_TYPES:
                raise ReadError(self.path, f"topic {t!r} is {source.topics[t].msgtype}, not tf2_msgs/msg/TFMessage")
        root = opts.root if opts.root is not None else custom.get("root")
        if root is not None and root not in ("", "none"):
            if ":" not in root:
                raise ValueError(f"root {root!r}: expected PARENT:CHILD (e.g. world:base_link)")
            if not tf_topics:
                raise ReadError(
                    self.path,
                    f"no such topic {opts.tf_topic!r} for the root pose {root}; the bag has: {self._listing(source)}",
                )
        want_root = bool(tf_topics) and root not in ("", "none")
        traj_fields: list[tuple[str, JointField]] = []
        if opts.trajectory is not None:
            specs = [t for t in opts.trajectory if t]
            traj_topics, traj_fields = self._requests(source, specs, TRAJECTORY, "trajectory")
        elif custom.get("trajectory_needed") is False:
            # Written by this package from the joint-state group itself, which it repeats
            # (a 100k-point JointTrajectory costs seconds to deserialize and adds nothing).
            traj_topics = []
        else:
            traj_topics = self._topics_of(source, (TRAJECTORY,))
        if not joint_topics and not joint_fields_ and not want_root and not traj_topics and not traj_fields:
            if opts.trajectory is None:
                traj_fields = self._nested_trajectories(source)
            if traj_fields:
                found = ", ".join(f"{topic}:{f.path}" for topic, f in traj_fields)
                self.warn(
                    f"no JointState, TF or JointTrajectory topic; converting the trajectories inside {found} "
                    "(choose with --trajectory TOPIC:FIELD)",
                    NoticeKind.READ_CHOICE,
                )
            else:
                wanted = DEFAULT_JOINT_TOPIC
                raise ReadError(
                    self.path,
                    f"no such topic {wanted!r} (no sensor_msgs/msg/JointState topic and no /tf to convert); "
                    f"the bag has: {self._listing(source)}",
                )
        joints_wanted = bool(joint_topics or joint_fields_ or want_root)
        if opts.imu is not None:
            imu_topics = self._require(source, [t for t in opts.imu if t], (IMU,), "IMU")
        else:
            imu_topics = self._topics_of(source, (IMU,)) if joints_wanted else []
        if opts.points is not None:
            point_topics = self._require(source, [t for t in opts.points if t], (POINT,), "point series")
        else:
            known = list(custom.get("series", {})) or ["/zmp"]
            point_topics = [t for t in known if t in source.topics and source.topics[t].msgtype == POINT]
            point_topics = point_topics if joints_wanted else []
        described = custom.get("robot_description")
        description = described if isinstance(described, str) else ROBOT_DESCRIPTION
        has_description = description in source.topics and source.topics[description].msgtype == STRING
        return {
            "description": [description] if has_description else [],
            "joints": joint_topics,
            "joint_fields": joint_fields_,
            "tf": tf_topics if want_root or opts.links or custom.get("links") else [],
            "root": (root if root is not None else "auto") if want_root else None,
            "imu": imu_topics,
            "trajectory": traj_topics,
            "trajectory_fields": traj_fields,
            "points": point_topics,
        }

    def _collect(self, source: BagSource, plan: dict[str, Any]) -> dict[str, Any]:
        opts = self.options
        joint_set = set(plan["joints"])
        size = _bag_bytes(self.path)
        streams = {t: _TopicStream(t, expected=source.topics[t].count, bag_bytes=size) for t in plan["joints"]}
        others: dict[str, list[tuple[int, bytes]]] = {}
        containers = [topic for topic, _ in plan["joint_fields"] + plan["trajectory_fields"]]
        decoded = list(
            dict.fromkeys(
                plan["tf"] + plan["imu"] + plan["trajectory"] + plan["points"] + containers + plan["description"]
            )
        )
        source.require_types(decoded)  # JointState topics: only when a batch needs the slow path
        topics = plan["joints"] + [t for t in decoded if t not in joint_set]
        bar = self._progress(source, topics)
        count = 0
        blocks = source.blocks(plan["joints"])
        if blocks is not None:  # the joint states without a Python step per message
            topics = [t for t in topics if t not in joint_set]
            try:
                for block in blocks:
                    _flush(streams[block.topic], source, JOINT_STATE, opts.bulk, block)
                    if bar is not None:
                        bar.update(len(block))
            except BaseException:
                if bar is not None:
                    bar.close()
                raise
        try:
            for topic, t, raw in source.messages(topics) if topics else ():
                if topic in joint_set:
                    stream = streams[topic]
                    stream.raws.append(raw)
                    stream.recv.append(t)
                    if len(stream.raws) >= BATCH:
                        _flush(stream, source, JOINT_STATE, opts.bulk)
                else:
                    others.setdefault(topic, []).append((t, raw))
                count += 1
                if bar is not None and count % 1024 == 0:
                    bar.update(1024)
        finally:
            if bar is not None:
                bar.update(count % 1024)
                bar.close()
        for stream in streams.values():
            _flush(stream, source, JOINT_STATE, opts.bulk)
            stream.finish()
        return {"streams": streams, "others": others}

    # -- decoding of the non-joint topics ---------------------------------------
    def _decode(self, source: BagSource, topic: str, raws: list[tuple[int, bytes]]) -> Iterator[tuple[int, Any]]:
        msgtype = source.topics[topic].msgtype
        bad = short = 0
        for t, raw in raws:
            try:
                yield t, source.deserialize(raw, msgtype)
            except PayloadTooShortError:
                short += 1
            except Exception:
                bad += 1
        if bad:
            self.warn(f"{topic}: skipped {bad} messages that could not be decoded", NoticeKind.SKIPPED)
        if short:
            self.warn(
                f"{topic}: skipped {short} messages whose payload is too short for the message "
                "(cut inside it, or a length field past its end)",
                NoticeKind.SKIPPED,
            )

    def _tf(self, source: BagSource, plan: dict[str, Any], others: dict[str, Any]) -> TfSamples:
        samples = TfSamples()
        for topic in plan["tf"]:
            static = topic == self._resolve(source, self.options.tf_static_topic)
            raws = others.get(topic, [])
            regular = (
                _tf_bulk.decode([r for _, r in raws])
                if self.options.bulk and len(raws) > 1 and _standard_tf(source, topic)
                else None
            )
            if regular is not None:  # one TFMessage layout throughout (a robot's link frames): numpy
                recv = np.array([t for t, _ in raws], dtype=np.int64)
                frames, stamps, block = regular
                for k, (parent, child) in enumerate(frames):
                    samples.add_block(parent, child, stamps[:, k], recv, block[:, k], static)
                continue
            bad = 0
            for t, msg in self._decode(source, topic, others.get(topic, [])):
                try:
                    for tr in msg.transforms:
                        tt, rr = tr.transform.translation, tr.transform.rotation
                        values = [float(v) for v in (tt.x, tt.y, tt.z, rr.x, rr.y, rr.z, rr.w)]
                        parent, child = str(tr.header.frame_id), str(tr.child_frame_id)
                        samples.add(parent, child, _stamp_ns(tr.header.stamp), int(t), values, static)
                except (AttributeError, TypeError, ValueError, OverflowError):
                    # A definition in the bag that is not TFMessage's shape, or a stamp no clock gives.
                    bad += 1
            if bad:
                self.warn(f"{topic}: skipped {bad} messages that are not usable transforms", NoticeKind.SKIPPED)
        return samples

    def _tf_buffer(self, samples: TfSamples, origin: int, report: bool = True) -> TfBuffer:
        buf, notes = samples.buffer(origin, self.options.stamps)
        if report:
            self.notes += notes
            for problem in buf.problems:
                self.warn(problem)
        return buf

    def _auto_root(self, buf: TfBuffer) -> str | None:
        frames = buf.frames
        for candidate in ("base_link", "base_footprint", "base"):
            if candidate in frames and candidate in buf.edges:
                return f"{buf.root_of(candidate)}:{candidate}"
        dynamic = sorted((e for e in buf.edges.values() if not e.static), key=lambda e: (-e.times.size, e.child))
        if not dynamic:
            return None
        child = dynamic[0].child  # the most often published moving frame
        return f"{buf.root_of(child)}:{child}"

    def _series_of(
        self, source: BagSource, topic: str, raws: list[tuple[int, bytes]]
    ) -> tuple[IntArray, FloatArray, str]:
        stamps, recv, rows, frames = [], [], [], []
        for t, msg in self._decode(source, topic, raws):
            stamps.append(_stamp_ns(msg.header.stamp))
            recv.append(t)
            rows.append([msg.point.x, msg.point.y, msg.point.z])
            frames.append(_frame(msg.header.frame_id))
        ns = _choose_times(np.array(stamps, np.int64), np.array(recv, np.int64), self.options.stamps, topic, self.notes)
        return ns, np.array(rows, dtype=np.float64).reshape(-1, 3), frames[0] if frames else ""

    def _imu_of(self, source: BagSource, topic: str, raws: list[tuple[int, bytes]]) -> tuple[IntArray, FloatArray]:
        stamps, recv, rows = [], [], []
        for t, msg in self._decode(source, topic, raws):
            stamps.append(_stamp_ns(msg.header.stamp))
            recv.append(t)
            rows.append(imu_row(msg))
        ns = _choose_times(np.array(stamps, np.int64), np.array(recv, np.int64), self.options.stamps, topic, self.notes)
        return ns, np.array(rows, dtype=np.float64).reshape(-1, 10)

    def _trajectory_segments(self, source: BagSource, topic: str, raws: list[tuple[int, bytes]]) -> list[Segment]:
        """JointTrajectory messages of a topic: each at its stamp, replacing the rest of the one before."""
        msgs = list(self._decode(source, topic, raws))
        stamps = np.array([_stamp_ns(m.header.stamp) for _, m in msgs], dtype=np.int64)
        recv = np.array([t for t, _ in msgs], dtype=np.int64)
        bases = trajectory_bases(stamps, recv, self.options.stamps)
        return self._place(topic, [(int(b), m) for b, (_, m) in zip(bases, msgs, strict=True)])

    def _nested_trajectory_segments(
        self, source: BagSource, topic: str, field: JointField, raws: list[tuple[int, bytes]]
    ) -> list[Segment]:
        """JointTrajectory values inside another type, one after another on the timeline.

        Such values (MoveIt's planned paths: a DisplayTrajectory holds the plan's parts in
        order) carry no stamp, or none a controller would act on: a value without a stamp
        starts when its message was received, but not before the value placed before it
        ends, so that consecutive parts and plans follow each other instead of cutting
        each other short. A value with a stamp starts there (``--stamps header``: always).
        """
        placed: list[tuple[int, Any]] = []
        end: int | None = None
        mode = self.options.stamps
        for t, msg in self._decode(source, topic, raws):
            for value in values_at(msg, field.steps):
                stamp = _stamp_ns(value.header.stamp)
                stamped = mode == "header" or (mode == "auto" and stamp != 0)
                base = stamp if stamped else (t if end is None else max(t, end))
                placed.append((base, value))
                last = max((_stamp_ns(p.time_from_start) for p in value.points), default=0)
                end = base + last
        return self._place(f"{topic}:{field.path}", placed)

    def _place(self, label: str, placed: list[tuple[int, Any]]) -> list[Segment]:
        """Segments of JointTrajectory values: points at base + time_from_start, cut at the next base."""
        commands = []
        bad = 0
        fields: tuple[tuple[str, str], ...] = (
            ("position", "positions"),
            ("velocity", "velocities"),
            ("acceleration", "accelerations"),
            ("effort", "effort"),
        )
        for base, msg in placed:
            names = tuple(str(n) for n in msg.joint_names)
            offsets: list[int] = []
            rows: dict[str, list[FloatArray]] = {}
            layout: tuple[str, ...] | None = None
            for point in msg.points:
                values = {ch: np.asarray(getattr(point, attr), dtype=np.float64) for ch, attr in fields}
                present = tuple(ch for ch, v in values.items() if v.size)
                if any(v.size not in (0, len(names)) for v in values.values()) or layout not in (None, present):
                    bad += 1
                    continue
                layout = present
                offsets.append(_stamp_ns(point.time_from_start))
                for ch in present:
                    rows.setdefault(ch, []).append(values[ch])
            channels = {ch: np.stack(v) for ch, v in rows.items()}
            commands.append(Command(int(base), names, np.array(offsets, dtype=np.int64), channels))
        if bad:
            self.warn(
                f"{label}: skipped {bad} trajectory points whose arrays do not match joint_names", NoticeKind.SKIPPED
            )
        return place_trajectories(commands)

    def _nested_joint_stream(
        self, source: BagSource, topic: str, field: JointField, raws: list[tuple[int, bytes]]
    ) -> _TopicStream:
        """JointState values inside another type, each a sample at its own stamp."""
        stream = _TopicStream(f"{topic}:{field.path}")
        decoded = self._decode(source, topic, raws)
        _append_rows(stream, ((t, value) for t, msg in decoded for value in values_at(msg, field.steps)))
        return stream

    # -- assembling -------------------------------------------------------------
    def _joint_segments(self, streams: dict[str, _TopicStream]) -> list[Segment]:
        segments: list[Segment] = []
        for topic, stream in streams.items():
            if stream.bad:
                self.warn(
                    f"{topic}: skipped {stream.bad} JointState messages whose name and position/velocity/effort "
                    "lengths differ (or with duplicate names)",
                    NoticeKind.SKIPPED,
                )
            if stream.undecodable:
                self.warn(
                    f"{topic}: skipped {stream.undecodable} JointState messages that could not be decoded",
                    NoticeKind.SKIPPED,
                )
            if stream.not_utf8:
                self.warn(
                    f"{topic}: skipped {stream.not_utf8} JointState messages whose joint names or frame_id "
                    "are not valid UTF-8",
                    NoticeKind.SKIPPED,
                )
            if stream.truncated:
                self.warn(
                    f"{topic}: skipped {stream.truncated} JointState messages whose payload is too short "
                    "for the message (cut inside it, or a length field past its end)",
                    NoticeKind.SKIPPED,
                )
            if not stream.segments:
                continue
            stamps = np.concatenate([s.stamps for s in stream.segments])
            recv = np.concatenate([s.recv for s in stream.segments])
            chosen = _choose_times(stamps, recv, self.options.stamps, topic, self.notes)
            use_recv = chosen is recv
            back = _backwards(chosen)
            if back:
                self.warn(f"{topic}: time goes backwards {back} times; samples sorted by time", NoticeKind.INCONSISTENT)
            for s in stream.segments:
                s.times = s.recv if use_recv else s.stamps
            segments += stream.segments
        return segments

    def _assemble(
        self, source: BagSource, custom: dict[str, Any], plan: dict[str, Any], data: dict[str, Any]
    ) -> MotionFile:
        opts = self.options
        others = data["others"]
        streams = dict(data["streams"])
        for topic, field in plan["joint_fields"]:
            stream = self._nested_joint_stream(source, topic, field, others.get(topic, []))
            streams[stream.topic] = stream
        segments = self._joint_segments(streams)
        joint_labels = list(plan["joints"]) + [f"{topic}:{f.path}" for topic, f in plan["joint_fields"]]
        if joint_labels and not any(s.times.size for s in segments):
            raise ReadError(self.path, f"no usable JointState message on {', '.join(joint_labels)}")
        traj_segments: list[Segment] = []
        for topic in plan["trajectory"]:
            traj_segments += self._trajectory_segments(source, topic, others.get(topic, []))
        for topic, field in plan["trajectory_fields"]:
            traj_segments += self._nested_trajectory_segments(source, topic, field, others.get(topic, []))
        traj_labels = list(plan["trajectory"]) + [f"{topic}:{f.path}" for topic, f in plan["trajectory_fields"]]
        tf_samples = self._tf(source, plan, others) if plan["tf"] else TfSamples()

        # Time origin: the writer's, else the first joint sample (else the first of anything).
        origin_value = custom.get("origin_ns")
        candidates = [s.times for s in segments if s.times.size] or [s.times for s in traj_segments if s.times.size]
        if isinstance(origin_value, int) and not isinstance(origin_value, bool):
            if not -MAX_NS < origin_value < MAX_NS:
                raise ReadError(
                    self.path, f"origin_ns {origin_value} is out of range", field=f"custom_data.{CUSTOM_KEY}"
                )
            origin = origin_value
        elif candidates:
            origin = int(min(int(c.min()) for c in candidates))
        else:
            origin = tf_samples.first_ns(opts.stamps) or 0

        buf = self._tf_buffer(tf_samples, origin) if tf_samples else None
        groups: dict[str, Motion] = {}
        group = str(custom.get("group") or "actual")
        traj_group = str(custom.get("trajectory_group") or "target")

        root = plan["root"]
        if root == "auto":
            root = self._auto_root(buf) if buf is not None else None
        root_pair: tuple[str, str] | None = None
        if root:
            parent, child = (_frame(x) for x in str(root).split(":", 1))
            if buf is None or buf.path(parent, child) is None:
                frames = ", ".join(sorted(buf.frames)) if buf is not None else "none"
                raise ReadError(self.path, f"no TF path from {parent!r} to {child!r}; frames in the bag: {frames}")
            root_pair = (parent, child)

        if segments or root_pair is not None:
            groups[group], origin = self._actual(
                source, custom, plan, others, segments, root_pair, (buf, tf_samples), origin
            )
        elif not traj_segments:
            what = (
                f"no usable message on {', '.join(traj_labels)}"
                if traj_labels
                else "no joint states and no TF root pose"
            )
            raise ReadError(self.path, f"nothing to convert: {what}")

        if traj_segments:
            for s in traj_segments:
                s.times = s.times if s.times.size else s.stamps
            t_ns, t_names, t_channels = merge(traj_segments, opts.hold)
            t_fields: dict[str, Any] = dict(t_channels)
            target = Motion(
                times=(t_ns - origin) / 1e9,
                joint_names=t_names,
                records={BagMotionRecord.codec: BagMotionRecord(origin, list(traj_labels))},
                **t_fields,
            )
            if traj_group == group and group in groups:
                main = groups[group]
                if (
                    "acceleration" in t_channels
                    and main.joint_names == target.joint_names
                    and np.array_equal(main.times, target.times)
                ):
                    main.acceleration = target.acceleration
                    groups[group] = dataclasses.replace(main)
            else:
                groups[traj_group] = target

        start_time_ns = origin
        for note in dict.fromkeys(self.notes):
            self.warn(note)
        groups = {k: self._transform(k, self._uniform(k, m)) for k, m in groups.items()}
        meta = {k: custom[k] for k in ("name", "robot") if isinstance(custom.get(k), str)}
        record = BagRecord({t.name: t.msgtype for t in source.topics.values()}, source.recovered)
        return MotionFile(
            groups=groups,
            records={BagRecord.codec: record},
            start_time_ns=start_time_ns,
            robot_description=self._description(source, plan, others),
            **meta,
        )

    def _description(self, source: BagSource, plan: dict[str, Any], others: dict[str, Any]) -> str | None:
        """The robot's URDF: the last message on the robot description topic, if any."""
        for topic in plan["description"]:
            texts = [getattr(msg, "data", None) for _, msg in self._decode(source, topic, others.get(topic, []))]
            texts = [t for t in texts if isinstance(t, str) and t.strip()]
            if texts:
                return texts[-1]
        return None

    def _actual(
        self,
        source: BagSource,
        custom: dict[str, Any],
        plan: dict[str, Any],
        others: dict[str, list[tuple[int, bytes]]],
        segments: list[Segment],
        root_pair: tuple[str, str] | None,
        tf: tuple[TfBuffer | None, TfSamples],
        origin: int,
    ) -> tuple[Motion, int]:
        """The joint-state group (root pose, links, IMUs, series sampled at its times) and the time origin."""
        opts = self.options
        origin_value = custom.get("origin_ns")
        buf, tf_samples = tf
        fields: dict[str, Any] = {}
        if segments:
            times_ns, names, channels = merge(segments, opts.hold)
            fields.update(joint_names=names, **channels)
        elif root_pair is not None and buf is not None:
            # TF only: frames at the root's own sample times, the first at t = 0.
            times_s = buf.dynamic_times(*root_pair)
            if times_s.size and not isinstance(origin_value, int):
                origin += round(float(times_s[0]) * 1e9)
                buf = self._tf_buffer(tf_samples, origin, report=False)  # reported once, above
                times_s = buf.dynamic_times(*root_pair)
            times_ns = np.round(times_s * 1e9).astype(np.int64) + origin if times_s.size else np.array([origin])
        else:
            raise ReadError(self.path, "nothing to convert: no joint states and no TF root pose")
        times = (times_ns - origin) / 1e9
        if root_pair is not None and buf is not None:
            found = buf.lookup(*root_pair, times)
            assert found is not None
            fields["root_position"], fields["root_orientation"] = found
            channels_kept = custom.get("root_channels")
            if isinstance(channels_kept, list):
                if "position" not in channels_kept:
                    fields.pop("root_position")
                if "orientation" not in channels_kept:
                    fields.pop("root_orientation")
        links = list(opts.links) if opts.links is not None else list(custom.get("links", []))
        if links:
            if buf is None:
                raise ReadError(self.path, f"links {', '.join(links)} need {opts.tf_topic}")
            parent = root_pair[0] if root_pair else str(custom.get("world_frame", "world"))
            pos, rot = [], []
            for link in links:
                found = buf.lookup(parent, link, times)
                if found is None:
                    raise ReadError(self.path, f"no TF path from {parent!r} to link {link!r}")
                pos.append(found[0])
                rot.append(found[1])
            fields["link_names"] = tuple(links)
            fields["links"] = {"position": np.stack(pos, axis=1), "orientation": np.stack(rot, axis=1)}

        imu_names_map = custom.get("imus", {})
        imu_names, imu_rows = [], []
        for topic in plan["imu"]:
            ns, values = self._imu_of(source, topic, others.get(topic, []))
            if not ns.size:
                continue
            imu_names.append(str(imu_names_map.get(topic, imu_name(topic))))
            imu_rows.append(
                (
                    sample_stream(ns, values[:, 0:4], origin, times, "quaternion"),
                    sample_stream(ns, values[:, 4:7], origin, times, "value"),
                    sample_stream(ns, values[:, 7:10], origin, times, "value"),
                )
            )
        if imu_names:
            fields["imu_names"] = tuple(imu_names)
            fields["imus"] = {
                "orientation": np.stack([r[0] for r in imu_rows], axis=1),
                "angular_velocity": np.stack([r[1] for r in imu_rows], axis=1),
                "linear_acceleration": np.stack([r[2] for r in imu_rows], axis=1),
            }

        series_map = custom.get("series", {})
        series: dict[str, Series] = {}
        for topic in plan["points"]:
            ns, values, frame_id = self._series_of(source, topic, others.get(topic, []))
            if not ns.size:
                continue
            info = series_map.get(topic, [_frame(topic), 3, None])
            name, width = str(info[0]), int(info[1])
            frame = frame_id
            if len(info) > 2 and info[2]:
                frame = str(info[2])
            elif root_pair is not None and frame_id == root_pair[0]:
                frame = "world"
            elif root_pair is not None and frame_id == root_pair[1]:
                frame = "root"
            vals = sample_stream(ns, values, origin, times, "value")[:, :width]
            series[name] = Series(vals, frame=frame or "world", components=("x", "y", "z")[:width])
        if series:
            fields["series"] = series

        root = ":".join(root_pair) if root_pair is not None else None
        fields["records"] = {BagMotionRecord.codec: BagMotionRecord(origin, list(plan["joints"]), root)}
        return Motion(times=times, **fields), origin

    def _uniform(self, group: str, m: Motion) -> Motion:
        """Stamps uniform at ``m.rate`` (to within the model's tolerance) but off its grid by more
        than their 1 ns resolution are put on the grid, with a warning naming the largest deviation."""
        if m.rate is None or m.num_frames < 3:
            return m
        grid, deviation, frame = snap_to_rate(m.times, m.rate)
        if deviation <= JITTER_NS * 1e-9:
            return m
        self.warn(
            f"group {group!r}: stamps jitter around a uniform {m.rate:g} Hz; rounded to it, "
            f"the largest deviation {deviation * 1e9:.0f} ns (frame {frame} at {m.times[frame]:.9f} s)"
        )
        return dataclasses.replace(m, times=grid)

    def _transform(self, group: str, m: Motion) -> Motion:
        opts = self.options
        if opts.joints and m.joint_names:
            select_joints(m.joint_names, opts.joints, what=group)  # unknown joints: SelectionError naming them
            m = m.select_joints(list(opts.joints))
        if opts.start is not None or opts.end is not None:
            m = m.slice_time(opts.start, opts.end)
            if m.num_frames == 0:
                raise SelectionError(f"no frames between {opts.start} and {opts.end} s in group {group!r}")
        if opts.rate is not None:
            m = m.resample(opts.rate)
        return m


def read_bag(path: Path, options: ReadOptions) -> MotionFile:
    """Read ``path`` into a MotionFile (see the module docstring)."""
    return _BagReader(path, options).read()
