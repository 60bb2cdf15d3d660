"""Motion → rosbag2 (MCAP by default, sqlite3 on request), written atomically.

Topics (names configurable): ``/joint_states`` (one JointState per frame, velocity and
effort when present), ``/tf`` (root pose and moving links, one TFMessage per frame),
``/tf_static`` (a root or links that never move, recorded with the transient-local QoS
that tf2 latches with), ``/joint_trajectory`` (the whole motion as one JointTrajectory),
one ``sensor_msgs/Imu`` topic per IMU and ``geometry_msgs/PointStamped`` for ZMP and
other 2-3 component series. With a robot model (``robot_model``: a URDF, ``.urdf.xacro``
or Choreonoid ``.body`` file, or a loaded :class:`~motion_formats_ros.core.kinematics.RobotModel`)
also ``/robot_description`` (std_msgs/String, once, transient local as robot_state_publisher
offers it; a ``.body``'s URDF made from it) and the link frames robot_state_publisher would
publish: movable joints on ``/tf`` at every frame, fixed ones once on ``/tf_static``; the
root pose then goes to the model's root link. Without a model, the robot description
the file carries (:attr:`~MotionFile.robot_description`, e.g. read from a bag) is written
on ``/robot_description`` alone. A ``motion_formats_ros`` custom-data entry lets the reader
restore times and names exactly.

Stamps (header stamps and bag receive times): a frame at relative time ``t`` is stamped
``start + t``, where ``start`` is, in this order, the ``start_time`` option (the stamp of
the first frame), the file's :attr:`~MotionFile.start_time_ns` (the recording's absolute
start, restoring its original stamps), the time origin a motion read from a bag keeps
(its :class:`BagMotionRecord`), the file's :attr:`~MotionFile.date` (its recording date,
taken as UTC when it names no time zone), else the current time, as ``ros2 bag record`` would
(with a warning when the file has a date the stamps cannot start at: one before 1970 or beyond
the stamps' range, or a date kept as text). The date itself (or its text,
:attr:`~MotionFile.date_text`) is kept in the custom-data entry, which gives it back on reading.

The bag is written as rosbag2 writes it (see ``_storage``): for ``distro`` (default: the
environment's ``$ROS_DISTRO``, else Jazzy), named in ``metadata.yaml``, the MCAP
``rosbag2`` metadata record and the sqlite3 ``schema`` and ``metadata`` tables; real MCAP
CRCs; MCAP chunks compressed with ``compression`` (zstd by default, as ``ros2 bag
record`` writes them; ``lz4``; ``none``); each topic's RIHS01 type hash (``_typehash``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ...core.atomic import Inputs, check_writable, place, plain_group_name, temp_folder
from ...core.distros import DEFAULT_COMPRESSION, WRITE_DISTROS, Compression, Distro, Storage, default_write_distro
from ...core.errors import OptionError, OutOfRangeError, WriteError, number, spelled
from ...core.keyframes import interpolation_dropped
from ...core.kinematics import MovingTransform, RobotModel, StaticTransform, load_robot_model
from ...core.model import Motion, MotionFile
from ...core.notices import NoticeKind, check_commit, notify
from ...core.options import option
from ...core.ros_names import topic_problem
from ._messages import CUSTOM_KEY, IMU, JOINT_STATE, POINT, TRAJECTORY
from ._record import BagMotionRecord
from .storage import bulk as _bulk
from .storage import tf_bulk as _tf_bulk
from .storage import typestore_for
from .storage.plugins import storage_plugins
from .storage.typehash import type_hash

#: Rows encoded per bulk batch (bounds the temporary byte matrix).
BATCH = 8192

IntArray = npt.NDArray[np.int64]


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write_bag` (the CLI's ``motion2bag`` flags)."""

    storage: Storage | None = option(None, "storage plugin (default mcap)")
    distro: Distro | None = option(
        None, "ROS distro the bag is written for (default: $ROS_DISTRO if known, else jazzy)", choices=WRITE_DISTROS
    )
    compression: Compression | None = option(
        None, "MCAP chunk compression (default zstd, as ros2 bag record writes MCAP)"
    )
    start_time: float | None = option(
        None,
        "stamp of the first frame since the epoch (default: the file's recorded start or date, else now)",
        unit="s",
    )
    joint_topic: str = option("/joint_states", "the JointState topic", metavar="TOPIC")
    tf_topic: str = option("/tf", "the TF topic", metavar="TOPIC")
    tf_static_topic: str = option("/tf_static", "the static TF topic", metavar="TOPIC")
    trajectory_topic: str | None = option("/joint_trajectory", "the JointTrajectory topic", metavar="TOPIC")
    imu_topic: str = option("/{name}", "topic of each IMU ({name} is the IMU's name)", metavar="TOPIC")
    zmp_topic: str = option("/zmp", "the ZMP topic", metavar="TOPIC")
    root: str | None = option(
        None,
        "TF frames of the root pose (default world:base_link; with a robot model world:ROOT_LINK)",
        metavar="WORLD:BASE",
    )
    group: str | None = option(None, "group written as joint states (default: actual, else the first)", metavar="NAME")
    trajectory_group: str | None = option(
        None, "group written as the trajectory (default: target, else the joint-state group)", metavar="NAME"
    )
    bulk: bool = option(True, "encode JointState messages in bulk (numpy)")
    robot_model: str | os.PathLike[str] | RobotModel | None = option(
        None,
        "robot model (.urdf, .urdf.xacro, .body): also /robot_description and every link's TF",
        metavar="FILE",
    )
    frame_prefix: str = option("", "prefix of the robot model's link frames", metavar="PREFIX")
    robot_description_topic: str = option("/robot_description", "the robot description topic", metavar="TOPIC")


def _qos(transient: bool) -> Any:
    from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime

    zero = QosTime(0, 0)
    return Qos(
        QosHistory.KEEP_LAST,
        1 if transient else 100,
        QosReliability.RELIABLE,
        QosDurability.TRANSIENT_LOCAL if transient else QosDurability.VOLATILE,
        zero,
        zero,
        QosLiveliness.AUTOMATIC,
        zero,
        False,
    )


def _check_topic_options(options: WriteOptions) -> None:
    """Refuse a topic option that is no ROS 2 topic name, naming the option and the rule it breaks.

    ``imu_topic`` is a pattern: its ``{name}`` stands for a valid token (each IMU's topic is
    checked again when it is made).
    """
    given = [
        (spelled("joint_topic"), options.joint_topic),
        (spelled("tf_topic"), options.tf_topic),
        (spelled("tf_static_topic"), options.tf_static_topic),
        (spelled("trajectory_topic"), options.trajectory_topic or None),  # None or "": no trajectory
        (spelled("zmp_topic"), options.zmp_topic),
        (spelled("robot_description_topic"), options.robot_description_topic),
        (spelled("imu_topic"), options.imu_topic),
    ]
    named: dict[str, str] = {}
    for flag, value in given:
        if value is None:
            continue
        problem = topic_problem(value.replace("{name}", "imu"))
        if problem is not None:
            raise OutOfRangeError(f"{flag} {value!r} is not a ROS topic name: {problem}")
        if value in named:  # one topic, one message type: readers take a topic's type from it
            raise OutOfRangeError(f"{named[value]} and {flag} both name the topic {value!r}; give each its own")
        named[value] = flag


#: Stamps from a date are taken up to here (ns since 1970, with room for the frames): a bag's int64 ends in 2262.
_LAST_STAMP_NS = 2**62
#: :data:`_LAST_STAMP_NS` as a date, for messages.
_LAST_STAMP_DATE = (datetime(1970, 1, 1) + timedelta(microseconds=_LAST_STAMP_NS // 1000)).isoformat(timespec="seconds")


def epoch_ns(date: datetime) -> int:
    """``date`` in integer ns since 1970 (UTC when it names no time zone), to the microsecond it holds."""
    aware = date if date.tzinfo is not None else date.replace(tzinfo=timezone.utc)
    delta = aware - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


class _BagWriter:
    def __init__(self, motion_file: MotionFile, path: Path, options: WriteOptions) -> None:
        _check_topic_options(options)
        self.file = motion_file
        self.path = path
        self.options = options
        self.dropped: list[str] = []
        self.written: dict[str, int] = {}  # the groups written, by name: their frames
        self._types: dict[str, str] = {}  # each topic's message type
        distro = str(options.distro or default_write_distro()).lower()
        self.distro = distro
        self.ts = typestore_for(distro)
        self.t = self.ts.types
        self.storage = resolved_storage(path, options.storage)
        self.compression = resolved_compression(path, self.storage, options.compression)
        self.bare = path.suffix.lower() in (".mcap", ".db3")

    # ------------------------------------------------------------------ groups / time
    def _groups(self) -> tuple[str, Motion, str | None, Motion | None]:
        groups = self.file.groups
        opts = self.options
        name = opts.group or ("actual" if "actual" in groups else next(iter(groups)))
        if name not in groups:
            raise WriteError(self.path, f"no group {name!r}; groups: {', '.join(groups)}")
        traj_name: str | None = None
        if opts.trajectory_topic:
            traj_name = opts.trajectory_group or ("target" if "target" in groups else name)
            if traj_name not in groups:
                raise WriteError(self.path, f"no group {traj_name!r}; groups: {', '.join(groups)}")
        for other in groups:
            if other not in (name, traj_name):
                self.dropped.append(f"group {other!r}")
        return name, groups[name], traj_name, groups[traj_name] if traj_name else None

    def _group_name(self, name: str | None) -> str | None:
        """``name`` for the custom data, if it is a plain name (a reader may make a file name of it)."""
        if name is None or plain_group_name(name):
            return name
        self.dropped.append(f"the group name {number(name)} (letters, digits, _ and - only)")
        return None

    def _stamped_origin(self, motions: list[Motion]) -> int:
        """:meth:`_origin`, once every frame's stamp is known to fit a bag's int64 nanoseconds."""
        limit = 2**63 - 1
        span = max(max(abs(float(m.times[0])), abs(float(m.times[-1]))) for m in motions if m.num_frames)
        if span * 1e9 < limit:
            origin = self._origin(motions)
            last = max(round(float(m.times[-1]) * 1e9) for m in motions if m.num_frames)
            if -limit <= origin <= limit - last:
                self._distinct_stamps(motions)
                return origin
        raise WriteError(
            self.path, f"times up to {span:g} s do not fit a bag's stamps (int64 nanoseconds since 1970, until 2262)"
        )

    def _distinct_stamps(self, motions: list[Motion]) -> None:
        """Refuse frames less than a nanosecond apart: a bag's stamps would make them one."""
        for m in motions:
            ns = np.round(m.times * 1e9)
            same = np.flatnonzero(np.diff(ns) <= 0)
            if same.size:
                i = int(same[0])
                raise WriteError(
                    self.path,
                    f"frames {i} and {i + 1} at {number(float(m.times[i]))} and {number(float(m.times[i + 1]))} s "
                    "are less than a nanosecond apart: a bag's stamps (integer nanoseconds) cannot tell them apart",
                )

    def _origin(self, motions: list[Motion]) -> int:
        """The stamp of relative time 0 (see the module docstring), in ns."""
        opts = self.options
        t0 = min(round(float(m.times[0]) * 1e9) for m in motions if m.num_frames)
        if opts.start_time is not None:
            return round(opts.start_time * 1e9) - t0
        if self.file.start_time_ns is not None:
            base = int(self.file.start_time_ns)
        elif (kept := motions[0].record(BagMotionRecord)) is not None and isinstance(
            kept.time_origin_ns, (int, np.integer)
        ):
            base = int(kept.time_origin_ns)
        elif self.file.date is not None and 0 <= (at := epoch_ns(self.file.date)) < _LAST_STAMP_NS:
            base = at
        else:
            self._warn_unstamped_date()
            base = time.time_ns() - t0  # the first frame now
        return base - (base + t0) if base + t0 < 0 else base

    def _warn_unstamped_date(self) -> None:
        """Say so when the file has a date that the bag's stamps cannot start at (they start now)."""
        if self.file.date is not None:
            what = (
                f"the date {self.file.date.isoformat()} is outside the range a bag's stamps can start from "
                f"(1970-01-01 until {_LAST_STAMP_DATE})"
            )
        elif self.file.date_text is not None:
            what = f"the date {number(self.file.date_text)} is no date and time"
        else:
            return
        notify(
            NoticeKind.LOSSY_WRITE,
            f"{what}: the bag's stamps start now (its custom data keeps the date)",
            file=self.path,
            stacklevel=7,
        )

    # ------------------------------------------------------------------ messages
    def _stamp(self, ns: int) -> Any:
        sec, nsec = divmod(int(ns), 1_000_000_000)
        return self.t["builtin_interfaces/msg/Time"](sec=sec, nanosec=nsec)

    def _header(self, ns: int, frame: str) -> Any:
        return self.t["std_msgs/msg/Header"](stamp=self._stamp(ns), frame_id=frame)

    def _serialize(self, msg: Any, msgtype: str) -> bytes:
        return bytes(self.ts.serialize_cdr(msg, msgtype))

    def _connection(self, writer: Any, topic: str, msgtype: str, **qos: Any) -> Any:
        """A topic with the distro's definition and the type's RIHS01 hash (see ``_typehash``);
        refused when the topic already carries another type (a name from the motion made it twice)."""
        other = self._types.setdefault(topic, msgtype)
        if other != msgtype:
            raise WriteError(self.path, f"the topic {topic!r} would carry both {other} and {msgtype}")
        msgdef, _ = self.ts.generate_msgdef(msgtype, ros_version=2)
        return writer.add_connection(topic, msgtype, msgdef=msgdef, rihs01=type_hash(msgtype, self.ts), **qos)

    def _joint_state(self, ns: int, names: list[str], values: dict[str, npt.NDArray[np.float64]]) -> bytes:
        empty = np.zeros(0, dtype=np.float64)
        msg = self.t[JOINT_STATE](
            header=self._header(ns, ""),
            name=names,
            position=values.get("position", empty),
            velocity=values.get("velocity", empty),
            effort=values.get("effort", empty),
        )
        return self._serialize(msg, JOINT_STATE)

    def _transform(self, ns: int, parent: str, child: str, pos: np.ndarray, rot: np.ndarray) -> Any:
        t = self.t
        return t["geometry_msgs/msg/TransformStamped"](
            header=self._header(ns, parent),
            child_frame_id=child,
            transform=t["geometry_msgs/msg/Transform"](
                translation=t["geometry_msgs/msg/Vector3"](x=float(pos[0]), y=float(pos[1]), z=float(pos[2])),
                rotation=t["geometry_msgs/msg/Quaternion"](
                    x=float(rot[0]), y=float(rot[1]), z=float(rot[2]), w=float(rot[3])
                ),
            ),
        )

    # ------------------------------------------------------------------ topics
    def _write_joint_states(self, writer: Any, m: Motion, stamps: IntArray) -> None:
        names = list(m.joint_names)
        if any(d != 1 for d in m.joint_dims):
            names = [
                n if d == 1 else f"{n}_{k}" for n, d in zip(m.joint_names, m.joint_dims, strict=True) for k in range(d)
            ]
            self.dropped.append("multi-DOF joint grouping (written as name_0, name_1 …)")
        channels = {ch: getattr(m, ch) for ch in _bulk.CHANNELS if getattr(m, ch) is not None}
        if not names:
            return
        conn = self._connection(writer, self.options.joint_topic, JOINT_STATE)
        n = stamps.size
        template = self._joint_state(0, names, {ch: np.zeros(len(names)) for ch in channels})
        encoder = _bulk.Encoder(template) if self.options.bulk else None
        for lo in range(0, n, BATCH):
            hi = min(lo + BATCH, n)
            if encoder is not None:
                rows = encoder.encode(stamps[lo:hi], {ch: v[lo:hi] for ch, v in channels.items()})
                blob = rows.tobytes()
                size = rows.shape[1]
                for i, ns in enumerate(stamps[lo:hi].tolist()):
                    writer.write(conn, ns, blob[i * size : (i + 1) * size])
            else:
                for i in range(lo, hi):
                    ns = int(stamps[i])
                    writer.write(conn, ns, self._joint_state(ns, names, {ch: v[i] for ch, v in channels.items()}))

    def _write_tf(
        self,
        writer: Any,
        m: Motion,
        stamps: IntArray,
        world: str,
        base: str,
        model_tf: tuple[list[StaticTransform], list[MovingTransform]] = ([], []),
    ) -> dict[str, Any]:
        """Root pose, links and a model's joint frames; constant ones go to /tf_static. Returns custom-data entries."""
        n = stamps.size
        info: dict[str, Any] = {}
        poses: list[tuple[str, np.ndarray, np.ndarray]] = []
        if base == world and self.options.robot_model is None and m.root_position is not None:
            self.dropped.append(f"the root pose (its parent and child frame are both {world!r})")
        root_position = self._root_channel("position", m.root_position)
        root_orientation = self._root_channel("orientation", m.root_orientation)
        if base != world and (root_position is not None or root_orientation is not None):
            pos = root_position if root_position is not None else np.zeros((n, 3))
            rot = root_orientation if root_orientation is not None else np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
            poses.append((base, pos, rot))
            info["root"] = f"{world}:{base}"
            info["root_channels"] = [
                ch for ch, v in (("position", root_position), ("orientation", root_orientation)) if v is not None
            ]
        if m.link_names:
            lpos = m.links.get("position")
            lrot = m.links.get("orientation")
            for i, link in enumerate(m.link_names):
                if link == base and poses:
                    continue
                poses.append(
                    (
                        link,
                        lpos[:, i] if lpos is not None else np.zeros((n, 3)),
                        lrot[:, i] if lrot is not None else np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)),
                    )
                )
            info["links"] = [link for link in m.link_names if not (link == base and "root" in info)]
            for key in m.links:
                if key not in ("position", "orientation"):
                    self.dropped.append(f"link channel {key!r}")
        if not poses and not (model_tf[0] or model_tf[1]):
            return info
        static_poses = [(c, p, r) for c, p, r in poses if n and np.all(p == p[0]) and np.all(r == r[0])]
        static = [(world, c, p[0], r[0]) for c, p, r in static_poses]
        static += [(s.parent, s.child, s.translation, s.rotation) for s in model_tf[0]]
        dynamic = [(world, c, p, r) for c, p, r in poses if not any(c == s[0] for s in static_poses)]
        dynamic += [(mt.parent, mt.child, mt.translation, mt.rotation) for mt in model_tf[1]]
        tf_type = "tf2_msgs/msg/TFMessage"
        if static:
            conn = self._connection(writer, self.options.tf_static_topic, tf_type, offered_qos_profiles=[_qos(True)])
            ns = int(stamps[0])
            msg = self.t[tf_type](transforms=[self._transform(ns, pa, c, p, r) for pa, c, p, r in static])
            writer.write(conn, ns, self._serialize(msg, tf_type))
        if dynamic:
            conn = self._connection(writer, self.options.tf_topic, tf_type, offered_qos_profiles=[_qos(False)])
            if self._write_tf_bulk(writer, conn, stamps, dynamic):
                return info
            skipped = 0
            for i, ns in enumerate(stamps.tolist()):
                transforms = [
                    self._transform(ns, pa, c, p[i], r[i])
                    for pa, c, p, r in dynamic
                    if np.all(np.isfinite(p[i])) and np.all(np.isfinite(r[i]))
                ]
                skipped += len(dynamic) - len(transforms)
                if transforms:
                    writer.write(conn, ns, self._serialize(self.t[tf_type](transforms=transforms), tf_type))
            if skipped:
                self.dropped.append(f"{skipped} transforms with NaN values (tf2 rejects them)")
        return info

    def _root_channel(self, label: str, values: np.ndarray | None) -> np.ndarray | None:
        """A root pose channel to write, None when it has no sample a transform can carry (all NaN)."""
        if values is None or np.isfinite(values).all(axis=1).any():
            return values
        self.dropped.append(f"the root {label} (no frame has a finite value)")
        return None

    def _write_tf_bulk(
        self, writer: Any, conn: Any, stamps: IntArray, dynamic: list[tuple[str, str, np.ndarray, np.ndarray]]
    ) -> bool:
        """All /tf messages encoded at once (see ``_tf_bulk``); False when a value is NaN or bulk is off."""
        if not self.options.bulk or not all(
            np.all(np.isfinite(p)) and np.all(np.isfinite(r)) for _, _, p, r in dynamic
        ):
            return False
        tf_type = "tf2_msgs/msg/TFMessage"
        zero, one = np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])
        template = self._serialize(
            self.t[tf_type](transforms=[self._transform(0, pa, c, zero, one) for pa, c, _, _ in dynamic]), tf_type
        )
        for lo in range(0, stamps.size, BATCH):
            hi = min(lo + BATCH, stamps.size)
            rows = _tf_bulk.encode(
                template, stamps[lo:hi], [p[lo:hi] for _, _, p, _ in dynamic], [r[lo:hi] for _, _, _, r in dynamic]
            )
            if rows is None:
                return False
            blob = rows.tobytes()
            size = rows.shape[1]
            for i, ns in enumerate(stamps[lo:hi].tolist()):
                writer.write(conn, ns, blob[i * size : (i + 1) * size])
        return True

    def _robot(self) -> RobotModel | None:
        model = self.options.robot_model
        if model is None or isinstance(model, RobotModel):
            return model
        return load_robot_model(model)

    def _write_description(self, writer: Any, text: str, stamp: int) -> None:
        """The robot description once at ``stamp``, transient local as robot_state_publisher offers it."""
        conn = self._connection(
            writer, self.options.robot_description_topic, "std_msgs/msg/String", offered_qos_profiles=[_qos(True)]
        )
        msg = self.t["std_msgs/msg/String"](data=text)
        writer.write(conn, stamp, self._serialize(msg, "std_msgs/msg/String"))

    def _write_robot(
        self, writer: Any, robot: RobotModel, m: Motion, stamps: IntArray, world: str, base: str, custom: dict[str, Any]
    ) -> tuple[list[StaticTransform], list[MovingTransform]]:
        """/robot_description once at the first stamp; the model's joint frames (robot_state_publisher's).

        A model whose root link is the world frame itself carries the root pose in its
        floating joint from that link, when it has one (else the root pose is dropped).
        """
        self._write_description(writer, robot.description, int(stamps[0]))
        names = [
            n if d == 1 else f"{n}_{k}" for n, d in zip(m.joint_names, m.joint_dims, strict=True) for k in range(d)
        ]
        positions = m.position if m.position is not None else np.zeros((stamps.size, len(names)))
        if base == world and (m.root_position is not None or m.root_orientation is not None):
            free = next((j for j in robot.joints if j.parent == robot.root_link and j.type == "floating"), None)
            if free is None:
                self.dropped.append(f"the root pose (the model is fixed to its root link {base!r})")
            else:
                n = stamps.size
                pos = m.root_position if m.root_position is not None else np.zeros((n, 3))
                rot = m.root_orientation if m.root_orientation is not None else np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
                names = [*names, *free.variables]
                positions = np.concatenate([positions, pos, rot], axis=1)
                custom["root"] = f"{world}:{self.options.frame_prefix}{free.child}"
                custom["root_channels"] = [
                    ch
                    for ch, v in (("position", m.root_position), ("orientation", m.root_orientation))
                    if v is not None
                ]
        return robot.joint_transforms(names, positions, self.options.frame_prefix, motion=self.file.source)

    def _write_trajectory(self, writer: Any, m: Motion, stamps: IntArray) -> None:
        if not m.joint_names or m.num_frames == 0 or self.options.trajectory_topic is None:
            return
        t = self.t
        fields: tuple[tuple[str, str], ...] = (
            ("positions", "position"),
            ("velocities", "velocity"),
            ("accelerations", "acceleration"),
            ("effort", "effort"),
        )
        present = {attr: getattr(m, ch) for attr, ch in fields if getattr(m, ch) is not None}
        empty = np.zeros(0, dtype=np.float64)
        start = int(stamps[0])
        conn = self._connection(writer, self.options.trajectory_topic, TRAJECTORY)
        names = list(m.joint_names)
        if self.options.bulk and len(names) == sum(m.joint_dims):
            prefix = self._serialize(
                t[TRAJECTORY](header=self._header(start, ""), joint_names=names, points=[]), TRAJECTORY
            )
            raw = _bulk.encode_trajectory(prefix, stamps - start, present, len(names))
            if raw is not None:
                writer.write(conn, start, raw)
                return
        duration = t["builtin_interfaces/msg/Duration"]
        points = []
        for i, ns in enumerate(stamps.tolist()):
            sec, nsec = divmod(ns - start, 1_000_000_000)
            values = {attr: present[attr][i] if attr in present else empty for attr, _ in fields}
            points.append(
                t["trajectory_msgs/msg/JointTrajectoryPoint"](**values, time_from_start=duration(sec=sec, nanosec=nsec))
            )
        msg = t[TRAJECTORY](header=self._header(start, ""), joint_names=names, points=points)
        writer.write(conn, start, self._serialize(msg, TRAJECTORY))

    def _data_topic(self, topic: str, what: str) -> str:
        """The topic a name from the motion makes, refused when it is no ROS 2 topic name."""
        problem = topic_problem(topic)
        if problem is not None:
            raise WriteError(self.path, f"{what} would be the topic {topic!r}, which ROS refuses: {problem}")
        return topic

    def _write_imus(self, writer: Any, m: Motion, stamps: IntArray) -> dict[str, str]:
        out: dict[str, str] = {}
        if not m.imu_names:
            return out
        t = self.t
        n = stamps.size
        for key in m.imus:
            if key not in ("orientation", "angular_velocity", "linear_acceleration"):
                self.dropped.append(f"IMU channel {key!r} (sensor_msgs/Imu has no slot)")
        vec, quat = t["geometry_msgs/msg/Vector3"], t["geometry_msgs/msg/Quaternion"]
        for i, name in enumerate(m.imu_names):
            topic = self._data_topic(self.options.imu_topic.replace("{name}", name), f"IMU {name!r}")
            conn = self._connection(writer, topic, IMU)
            out[topic] = name
            chans = {
                k: m.imus[k][:, i] if k in m.imus else np.full((n, w), np.nan)
                for k, w in (("orientation", 4), ("angular_velocity", 3), ("linear_acceleration", 3))
            }
            for j, ns in enumerate(stamps.tolist()):
                o, g, a = chans["orientation"][j], chans["angular_velocity"][j], chans["linear_acceleration"][j]

                def cov(v: np.ndarray) -> npt.NDArray[np.float64]:
                    c = np.zeros(9)
                    if not np.all(np.isfinite(v)):
                        c[0] = -1.0
                    return c

                def fin(v: np.ndarray) -> list[float]:
                    return [float(x) for x in v] if np.all(np.isfinite(v)) else [0.0] * v.size

                oo, gg, aa = fin(o), fin(g), fin(a)
                if not np.all(np.isfinite(o)):
                    oo = [0.0, 0.0, 0.0, 1.0]
                msg = t[IMU](
                    header=self._header(ns, name),
                    orientation=quat(x=oo[0], y=oo[1], z=oo[2], w=oo[3]),
                    orientation_covariance=cov(o),
                    angular_velocity=vec(x=gg[0], y=gg[1], z=gg[2]),
                    angular_velocity_covariance=cov(g),
                    linear_acceleration=vec(x=aa[0], y=aa[1], z=aa[2]),
                    linear_acceleration_covariance=cov(a),
                )
                writer.write(conn, ns, self._serialize(msg, IMU))
        return out

    def _write_series(self, writer: Any, m: Motion, stamps: IntArray, world: str, base: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        t = self.t
        for name, s in m.series.items():
            width = s.values.shape[1]
            if width > 3:
                self.dropped.append(f"series {name!r} ({width} components; PointStamped holds 3)")
                continue
            topic = self.options.zmp_topic if name == "zmp" else self._data_topic("/" + name, f"series {name!r}")
            frame = world if s.frame == "world" else base if s.frame == "root" else s.frame
            conn = self._connection(writer, topic, POINT)
            out[topic] = [name, width, s.frame]
            values = np.zeros((stamps.size, 3))
            values[:, :width] = s.values
            point = t["geometry_msgs/msg/Point"]
            for j, ns in enumerate(stamps.tolist()):
                x, y, z = (float(v) for v in values[j])
                msg = t[POINT](header=self._header(ns, frame), point=point(x=x, y=y, z=z))
                writer.write(conn, ns, self._serialize(msg, POINT))
        return out

    # ------------------------------------------------------------------ main
    def _fill(self, bag_path: Path) -> None:
        from rosbags.rosbag2 import StoragePlugin, Writer

        opts = self.options
        name, motion, traj_name, traj = self._groups()
        motions = [motion] + ([traj] if traj is not None and traj is not motion else [])
        self.written = {name: motion.num_frames}
        if traj_name is not None and traj is not None:
            self.written[traj_name] = traj.num_frames
        if not any(m.num_frames for m in motions):
            raise WriteError(self.path, "the motion has no frames")
        robot = self._robot()
        if robot is not None:  # a file the model was read from (a xacro include …) is an input: never the bag
            Inputs(robot.files).check(self.path)
        root = opts.root or ("world:" + opts.frame_prefix + robot.root_link if robot is not None else "world:base_link")
        if ":" not in root:
            raise OptionError(
                "rosbag", "write", "root", None, f"expects WORLD:BASE (e.g. world:base_link), got {number(root)}"
            )
        world, base = root.split(":", 1)
        origin = self._stamped_origin(motions)
        stamps = origin + np.round(motion.times * 1e9).astype(np.int64)
        for label, value in (
            ("acceleration", motion.acceleration if traj is not motion else None),
            ("temperature", motion.temperature),
        ):
            if value is not None:
                self.dropped.append(f"joint {label}")
        for label, mapping in (
            ("joint channel", motion.joint_channels),
            ("joint mask", motion.joint_masks),
            ("time column", motion.time_columns),
        ):
            self.dropped += [f"{label} {k!r}" for k in mapping]
        curves = interpolation_dropped(motion)
        if curves is not None:
            self.dropped.append(curves)
        elif motion.is_keyframed:
            self.dropped.append("keyframe interpolation (frames written as samples)")
        plugin = StoragePlugin.MCAP if self.storage == "mcap" else StoragePlugin.SQLITE3
        version: Literal[8, 9] = 8 if self.distro == "humble" else 9
        custom: dict[str, Any] = {
            "version": 1,
            "origin_ns": origin,
            "group": self._group_name(name),
            "trajectory_group": self._group_name(traj_name),
            "joint_topic": opts.joint_topic,
        }
        if self.file.date is not None:
            custom["date"] = self.file.date.isoformat(timespec="microseconds")
        elif self.file.date_text is not None:
            custom["date_text"] = self.file.date_text
        if traj is motion and opts.trajectory_topic:
            # The trajectory repeats /joint_states; the reader needs it only for what
            # /joint_states cannot carry (acceleration) and may skip decoding it otherwise.
            custom["trajectory_needed"] = motion.acceleration is not None
        for key in ("name", "robot"):
            if getattr(self.file, key):
                custom[key] = getattr(self.file, key)
        bag = Writer(bag_path, version=version, storage_plugin=plugin)
        bag.STORAGE_PLUGINS = storage_plugins(self.distro, self.compression)  # type: ignore[assignment]  # rosbag2's layout
        with bag as writer:
            self._write_joint_states(writer, motion, stamps)
            model_tf: tuple[list[StaticTransform], list[MovingTransform]] = ([], [])
            if robot is not None:
                model_tf = self._write_robot(writer, robot, motion, stamps, world, base, custom)
                custom["robot_description"] = opts.robot_description_topic
            elif self.file.robot_description:  # the description the file carries (read from a bag, an OMF file)
                self._write_description(writer, self.file.robot_description, int(stamps[0]))
                custom["robot_description"] = opts.robot_description_topic
            custom.update(self._write_tf(writer, motion, stamps, world, base, model_tf))
            if robot is not None and "root" not in custom:
                custom["root"] = "none"  # the link frames are no root pose to read back
            custom["world_frame"] = world
            if traj is not None:
                traj_stamps = origin + np.round(traj.times * 1e9).astype(np.int64)
                self._write_trajectory(writer, traj, traj_stamps)
            custom["imus"] = self._write_imus(writer, motion, stamps)
            custom["series"] = self._write_series(writer, motion, stamps, world, base)
            writer.set_custom_data(CUSTOM_KEY, json.dumps(custom, separators=(",", ":")))

    def write(self, overwrite: bool) -> dict[str, int]:
        """Write the bag; returns the frames of each group written (the others are named as dropped)."""
        out = check_writable(self.path, overwrite, folder=not self.bare)
        with temp_folder(out) as tmp:
            bag_dir = tmp / (out.stem if self.bare else out.name)
            try:
                self._fill(bag_dir)
                self._stamp_distro(bag_dir / "metadata.yaml")
            except OSError as exc:
                raise WriteError(out, exc.strerror or str(exc)) from exc
            except WriteError:
                raise
            except Exception as exc:
                import sqlite3

                from rosbags.rosbag2 import WriterError

                # rosbags' own errors, and the sqlite3 storage's (a full disk is its own error there)
                if isinstance(exc, WriterError | sqlite3.Error):
                    raise WriteError(out, str(exc)) from exc
                raise
            if self.dropped:
                notify(
                    NoticeKind.LOSSY_WRITE,
                    f"a bag cannot hold {', '.join(dict.fromkeys(self.dropped))}; dropped",
                    file=out,
                    stacklevel=4,
                )
            check_commit(out)
            if self.bare:
                produced = next(p for p in bag_dir.iterdir() if p.suffix in (".mcap", ".db3"))
                place(produced, out, overwrite, tmp)
            else:
                place(bag_dir, out, overwrite, tmp)
        return self.written

    def _stamp_distro(self, metadata: Path) -> None:
        """Name the distro the bag was written for (rosbags' Writer puts its own name there)."""
        if metadata.exists():
            text = metadata.read_text(encoding="utf-8")
            metadata.write_text(re.sub(r"(?m)^(\s*ros_distro:) rosbags$", rf"\1 {self.distro}", text), encoding="utf-8")


def resolved_storage(path: Path, storage: Storage | None) -> Storage:
    """The storage a bag at ``path`` is written with: a bare file's by its suffix, else ``storage`` or MCAP.

    Raises:
        WriteError: ``storage`` contradicts the suffix, or the path is a ROS 1 ``.bag``.
    """
    suffix = Path(path).suffix.lower()
    if suffix in (".mcap", ".db3"):
        implied = Storage.MCAP if suffix == ".mcap" else Storage.SQLITE3
        if storage is not None and storage != implied:
            raise WriteError(path, f"a {suffix} file holds {implied} storage, not {storage}")
        return implied
    if suffix == ".bag":
        raise WriteError(path, "writing ROS 1 bags is not supported; write a rosbag2 folder or .mcap / .db3")
    return storage or Storage.MCAP


def resolved_compression(path: Path, storage: Storage, compression: Compression | None) -> Compression:
    """The MCAP chunk compression a bag is written with (``none`` for sqlite3, which has none).

    Raises:
        WriteError: A compression asked for sqlite3 storage.
    """
    if storage != Storage.MCAP:
        if compression not in (None, Compression.NONE):
            raise WriteError(path, f"{storage} storage has no chunks to compress ({compression} is for MCAP)")
        return Compression.NONE
    return compression or DEFAULT_COMPRESSION


def write_bag(motion_file: MotionFile, path: Path, options: WriteOptions, overwrite: bool = False) -> dict[str, int]:
    """Write ``motion_file`` as a bag at ``path`` (see the module docstring); returns the frames of
    each group written (a bag holds the joint states' group and the trajectory's)."""
    return _BagWriter(motion_file, path, options).write(overwrite)
