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
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.errors import OptionError, ReadError, SelectionError, listed, number, require
from ...core.merge import (
    Segment,
    imu_name,
    merge,
    sample_stream,
    select_joints,
)
from ...core.model import Motion, MotionFile, Series
from ...core.notices import NoticeKind, collect, notify, relay
from ...core.tf import TfBuffer, TfSamples
from ...core.timing import empty_window, snap_to_rate
from ._custom_data import parsed_date, read_custom
from ._joints import _flush, _TopicStream
from ._messages import (
    CONVERTIBLE_TYPES,
    DEFAULT_JOINT_TOPIC,
    IMU,
    JOINT_STATE,
    POINT,
    ROBOT_DESCRIPTION,
    STRING,
    TF_TYPES,
    TRAJECTORY,
)
from ._read_options import ReadOptions
from ._record import BagMotionRecord, BagRecord
from ._topics import _choose_times, _frame, _TopicDecoder
from .storage import BagSource, DecompressionBombError, direct_candidate
from .storage.direct import UnusualLayoutError
from .storage.msgtypes import JointField, joint_fields, parse_path

#: Stamps off a uniform grid by at most this many ns are only its rounding to whole ns: no warning.
JITTER_NS = 1
#: Messages decoded together by the bulk JointState path.
BATCH = 4096
#: Bags with at least this many messages show a progress bar (when stderr is a terminal).
PROGRESS_MIN = 100_000

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


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
class _BagReader(_TopicDecoder):
    """Bag → MotionFile (see the module docstring): topics chosen, messages collected, the motion assembled."""

    # -- topic selection --------------------------------------------------------
    def _topics_of(self, source: BagSource, msgtypes: Sequence[str]) -> list[str]:
        return [t.name for t in source.topics.values() if t.msgtype in msgtypes]

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
                require("tqdm", "the progress bar", package="tqdm", extra="progress", rosdep_key="python3-tqdm")
            return None  # a bar the user did not ask for is left out
        return tqdm(total=total, unit="msg", desc=self.path.name, file=sys.stderr, leave=False)

    # -- main -------------------------------------------------------------------
    def read(self) -> MotionFile:
        opts = self.options
        if direct_candidate(self.path):
            direct = self._direct_read()
            if direct is not None:
                return direct
        with BagSource(self.path, opts.distro) as source:
            custom = read_custom(source.path, source.custom)
            plan = self._plan(source, custom)
            data = self._collect(source, plan)
        return self._assemble(source, custom, plan, data)

    def _direct_read(self) -> MotionFile | None:
        """The read of a bag in rosbag2's usual layouts by the package's own readers (``storage.direct``).

        They open the bag without rosbags, and a folder's sqlite3 storage without counting
        its messages (a scan of every one that only finds damage: the folder's counts come
        from its ``metadata.yaml``; the read's own scan of the table stands in for it).
        The read runs with its notices and warnings held back. Two outcomes are planned
        fallbacks: a layout those readers do not know (:class:`UnusualLayoutError`) and a
        bag they find damaged (:class:`ReadError`, whose wording is the general path's to
        give). Then what was held back is dropped, a :attr:`NoticeKind.FALLBACK` notice says
        why, and None says to read with rosbags' readers, which then succeed, warn or fail
        exactly as they always did. Any other exception is a fault of these readers and
        goes on as it is: it must not pass for a slower read that still succeeds.
        """
        notes = list(self.notes)
        source = BagSource(self.path, self.options.distro, direct=True)
        with warnings.catch_warnings(record=True) as caught, collect(isolated=True) as report:
            warnings.simplefilter("always")
            try:
                with source:
                    custom = read_custom(source.path, source.custom)
                    plan = self._plan(source, custom)
                    data = self._collect(source, plan)
                    source.settle()
            except DecompressionBombError:
                raise  # refused for what the data is, not for how it is laid out: read no other way
            except UnusualLayoutError as exc:
                why = f"a layout they do not read ({exc})"
            except ReadError as exc:
                why = f"damage or a request they leave to the general reader ({exc.reason})"
            else:
                why = ""
        if why:
            self.notes = notes
            notify(NoticeKind.FALLBACK, f"read with rosbags' readers: the package's own found {why}", file=self.path)
            return None
        relay(report.notices)
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
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
        if opts.root is not None and opts.root not in ("", "none") and ":" not in opts.root:
            raise OptionError(
                "rosbag",
                "read",
                "root",
                None,
                f"expects PARENT:CHILD (e.g. world:base_link) or none, got {number(opts.root)}",
            )
        root = opts.root if opts.root is not None else custom.get("root")
        if root is not None and root not in ("", "none") and not tf_topics:
            if opts.root is not None:
                raise ReadError(
                    self.path,
                    f"no such topic {opts.tf_topic!r} for the root pose {root}; the bag has: {self._listing(source)}",
                )
            self.warn(
                f"the root pose {root} the bag's custom data names has no {opts.tf_topic}; read without it",
                NoticeKind.MISSING,
            )
            root = None
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
                found = listed(f"{topic}:{f.path}" for topic, f in traj_fields)
                self.warn(
                    f"no JointState, TF or JointTrajectory topic; converting the trajectories inside {found} "
                    "(choose with the trajectory option, TOPIC:FIELD)",
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
        if isinstance(origin_value, int):  # checked with the custom data (read_custom)
            origin = origin_value
        elif candidates:
            origin = int(min(int(c.min()) for c in candidates))
        else:
            origin = tf_samples.first_ns(opts.stamps) or 0

        buf = self._tf_buffer(tf_samples, origin) if tf_samples else None
        groups: dict[str, Motion] = {}
        group = str(custom.get("group") or "actual")
        traj_group = str(custom.get("trajectory_group") or "target")

        root_pair = self._root_pair(plan["root"], buf)
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
        meta: dict[str, Any] = {k: custom[k] for k in ("name", "robot") if isinstance(custom.get(k), str)}
        meta["date"] = parsed_date(custom.get("date"))
        if meta["date"] is None and isinstance(custom.get("date_text"), str):
            meta["date_text"] = custom["date_text"]
        record = BagRecord({t.name: t.msgtype for t in source.topics.values()}, source.recovered)
        return MotionFile(
            groups=groups,
            records={BagRecord.codec: record},
            start_time_ns=start_time_ns,
            robot_description=self._description(source, plan, others),
            **meta,
        )

    def _root_pair(self, planned: str | None, buf: TfBuffer | None) -> tuple[str, str] | None:
        """The root pose's (parent, child) frames: the root option's, the custom data's, or found
        (``auto``). A pair the bag's TF does not connect is refused when asked for; when only the
        custom data names it, the bag is read without a root pose, with a warning."""
        root = self._auto_root(buf) if planned == "auto" and buf is not None else planned
        if not root or root == "auto":
            return None
        parent, child = (_frame(x) for x in str(root).split(":", 1))
        if buf is not None and buf.path(parent, child) is not None:
            return parent, child
        frames = listed(sorted(buf.frames)) if buf is not None else "none"
        problem = f"no TF path from {parent!r} to {child!r}; frames in the bag: {frames}"
        if self.options.root is not None or planned == "auto":
            raise ReadError(self.path, problem)
        self.warn(f"the root pose the bag's custom data names has {problem}; read without it", NoticeKind.MISSING)
        return None

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
            try:
                select_joints(m.joint_names, opts.joints, what=group)
            except SelectionError as exc:  # unknown joints: named, with the bag
                raise SelectionError(f"{self.path}: {exc}") from None
            m = m.select_joints(list(opts.joints))
        if opts.start is not None or opts.end is not None:
            kept = m.slice_time(opts.start, opts.end)
            if kept.num_frames == 0:
                empty = empty_window(m.times, opts.start, opts.end)
                raise SelectionError(f"{self.path}: group {group}: {empty}")
            m = kept
        if opts.rate is not None:
            m = m.resample(opts.rate)
        return m


def read_bag(path: Path, options: ReadOptions) -> MotionFile:
    """Read ``path`` into a MotionFile (see the module docstring)."""
    return _BagReader(path, options).read()
