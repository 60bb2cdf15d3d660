"""The topics beside the joint states, decoded for the motion: TF, IMUs, point series, trajectories.

:class:`_TopicDecoder` is the part of the bag reader (``_read``) that turns the raw
messages of these topics into samples: TF edges into a time-indexed buffer (in bulk
for ROS 2's own TF types), IMUs and PointStamped series into arrays, JointTrajectory
messages (also inside other types) into segments placed as a trajectory controller
would run them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...core.merge import Command, Segment, imu_row, place_trajectories, trajectory_bases
from ...core.notices import NoticeKind, notify
from ...core.stamps import choose_times
from ...core.tf import TfBuffer, TfSamples
from ._joints import _append_rows, _stamp_ns, _TopicStream
from .storage import BagSource, PayloadTooShortError, UndecodableMessageError
from .storage import tf_bulk as _tf_bulk
from .storage.msgtypes import JointField, values_at

if TYPE_CHECKING:
    from ._read_options import ReadOptions

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _frame(name: str) -> str:
    return name[1:] if name.startswith("/") else name


#: The types a TFMessage is made of: the bulk TF decoder reads only bags that define them as ROS 2 does.
def _choose_times(stamps: IntArray, recv: IntArray, mode: str, what: str, notes: list[str]) -> IntArray:
    times, note = choose_times(stamps, recv, mode)
    if note:
        notes.append(f"{what}: {note}")
    return times


class _TopicDecoder:
    """Decoding of the non-joint topics, for :class:`._read._BagReader`."""

    def __init__(self, path: Path, options: ReadOptions) -> None:
        self.path = path
        self.options = options
        self.notes: list[str] = []

    def warn(self, message: str, kind: NoticeKind = NoticeKind.INCONSISTENT) -> None:
        notify(kind, message, file=self.path, stacklevel=5)

    @staticmethod
    def _resolve(source: BagSource, topic: str) -> str:
        """A topic as the bag spells it: given with or without its leading slash."""
        if topic in source.topics:
            return topic
        other = topic[1:] if topic.startswith("/") else "/" + topic
        return other if other in source.topics else topic

    # -- decoding of the non-joint topics ---------------------------------------
    def _decode(self, source: BagSource, topic: str, raws: list[tuple[int, bytes]]) -> Iterator[tuple[int, Any]]:
        msgtype = source.topics[topic].msgtype
        bad = short = 0
        for t, raw in raws:
            try:
                yield t, source.deserialize(raw, msgtype)
            except PayloadTooShortError:
                short += 1
            except UndecodableMessageError:
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
                if self.options.bulk and len(raws) > 1 and source.types.standard_tf(topic)
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
