"""Bags written with rosbags' own Writer, for the bag tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
from conftest import corpus_path
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

TS = get_typestore(Stores.ROS2_JAZZY)
T = TS.types


def corpus_bag(rel: str) -> Path:
    return corpus_path("rosbag", rel)


def stamp(ns: int) -> Any:
    sec, nsec = divmod(int(ns), 1_000_000_000)
    return T["builtin_interfaces/msg/Time"](sec=sec, nanosec=nsec)


def header(ns: int, frame: str = "") -> Any:
    return T["std_msgs/msg/Header"](stamp=stamp(ns), frame_id=frame)


def joint_state(ns: int, names: Iterable[str], position: Any = (), velocity: Any = (), effort: Any = ()) -> Any:
    return T["sensor_msgs/msg/JointState"](
        header=header(ns),
        name=list(names),
        position=np.asarray(position, dtype=np.float64),
        velocity=np.asarray(velocity, dtype=np.float64),
        effort=np.asarray(effort, dtype=np.float64),
    )


def transform(ns: int, parent: str, child: str, xyz: Iterable[float], q: Iterable[float] = (0, 0, 0, 1)) -> Any:
    x, y, z = (float(v) for v in xyz)
    qx, qy, qz, qw = (float(v) for v in q)
    return T["geometry_msgs/msg/TransformStamped"](
        header=header(ns, parent),
        child_frame_id=child,
        transform=T["geometry_msgs/msg/Transform"](
            translation=T["geometry_msgs/msg/Vector3"](x=x, y=y, z=z),
            rotation=T["geometry_msgs/msg/Quaternion"](x=qx, y=qy, z=qz, w=qw),
        ),
    )


def tf_message(*transforms: Any) -> Any:
    return T["tf2_msgs/msg/TFMessage"](transforms=list(transforms))


def write_bag(
    path: Path,
    messages: list[tuple[str, str, int, Any]],
    storage: StoragePlugin = StoragePlugin.MCAP,
) -> Path:
    """Write (topic, msgtype, receive ns, message object) tuples with rosbags' Writer."""
    with Writer(path, version=9, storage_plugin=storage) as writer:
        conns: dict[str, Any] = {}
        for topic, msgtype, ns, msg in messages:
            if topic not in conns:
                conns[topic] = writer.add_connection(topic, msgtype, typestore=TS)
            writer.write(conns[topic], ns, TS.serialize_cdr(msg, msgtype))
    return path


JS = "sensor_msgs/msg/JointState"
TF = "tf2_msgs/msg/TFMessage"
