"""Bags holding what rclpy serializes (as rosbag2 stores it), and bags we write read back by rclpy.

``rclpy.serialization.serialize_message`` (Fast DDS type support) returns the CDR data
followed by bytes that are not part of the message, with uninitialised alignment
padding: rosbag2 stores such payloads as they are, so a reader must accept them.
A payload cut inside the message is refused, counted and reported.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer
from support.bags import JS, TF, TS
from support.rosutil import requires_ros

from motion_formats_ros import read

pytestmark = requires_ros

BASE = 1_700_000_000 * 1_000_000_000
STORAGES = {"mcap": StoragePlugin.MCAP, "sqlite3": StoragePlugin.SQLITE3}


def _rclpy_joint_state(ns: int, names: list[str], position: list[float], frame: str = "") -> Any:
    from sensor_msgs.msg import JointState

    msg = JointState(name=names, position=position)
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)
    msg.header.frame_id = frame
    return msg


def _rclpy_tf(ns: int, parent: str, child: str, x: float) -> Any:
    from geometry_msgs.msg import TransformStamped
    from tf2_msgs.msg import TFMessage

    tr = TransformStamped()
    tr.header.stamp.sec, tr.header.stamp.nanosec = divmod(ns, 1_000_000_000)
    tr.header.frame_id = parent
    tr.child_frame_id = child
    tr.transform.translation.x = x
    tr.transform.rotation.w = 1.0
    return TFMessage(transforms=[tr])


def _write_raw(path: Path, storage: str, messages: list[tuple[str, str, int, bytes]]) -> Path:
    """A rosbag2 bag of (topic, type, receive ns, payload) with the payloads stored byte for byte."""
    with Writer(path, version=9, storage_plugin=STORAGES[storage]) as writer:
        conns: dict[str, Any] = {}
        for topic, msgtype, ns, raw in messages:
            if topic not in conns:
                conns[topic] = writer.add_connection(topic, msgtype, typestore=TS)
            writer.write(conns[topic], ns, raw)
    return path


def _names(k: int) -> list[str]:
    # lengths 1..: every alignment of the following string / sequence occurs
    return ["j" * (i + 1) for i in range(k)]


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_rclpy_payloads_with_trailing_bytes_are_read(tmp_path: Path, storage: str) -> None:
    from rclpy.serialization import serialize_message

    rng = np.random.default_rng(5)
    names = _names(7)
    n = 60
    values = rng.normal(size=(n, len(names)))
    messages: list[tuple[str, str, int, bytes]] = []
    for i in range(n):
        ns = BASE + i * 10_000_000
        raw = serialize_message(_rclpy_joint_state(ns, names, values[i].tolist(), frame="f" * (i % 3)))
        messages.append(("/joint_states", JS, ns, raw))
        messages.append(("/tf", TF, ns, serialize_message(_rclpy_tf(ns, "odom", "base_link", 0.5 * i))))
    reference = TS.serialize_cdr(TS.deserialize_cdr(messages[0][3][: -8 or None], JS), JS)
    assert len(messages[0][3]) > len(reference)  # rclpy's payload really does carry trailing bytes
    bag = _write_raw(tmp_path / "rclpy", storage, messages)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is skipped, nothing to warn about
        m = read(bag).motion
    assert m.num_frames == n and m.joint_names == tuple(names)
    assert np.array_equal(m.position, values)
    assert np.allclose(m.times, np.arange(n) * 0.01)
    assert m.root_position is not None
    assert np.allclose(m.root_position[:, 0], 0.5 * np.arange(n))
    assert np.array_equal(read(bag, bulk=False).motion.position, values)  # the message-by-message path too


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_rclpy_payloads_cut_short_are_refused_counted_and_reported(tmp_path: Path, storage: str) -> None:
    from rclpy.serialization import serialize_message

    names = _names(4)
    messages = []
    cut = {3: 20, 7: 60, 11: 44}  # payload i keeps only its first cut[i] bytes (inside the message)
    for i in range(15):
        ns = BASE + i * 1_000_000
        raw = serialize_message(_rclpy_joint_state(ns, names, [float(i)] * 4))
        messages.append(("/joint_states", JS, ns, raw[: cut[i]] if i in cut else raw))
    bag = _write_raw(tmp_path / "cut", storage, messages)
    with pytest.warns(UserWarning, match=r"/joint_states: skipped 3 JointState messages whose payload is too short"):
        m = read(bag).motion
    kept = [i for i in range(15) if i not in cut]
    assert m.num_frames == len(kept)
    assert np.array_equal(m.position[:, 0], np.array(kept, dtype=float))


def test_rclpy_tf_cut_short_is_counted(tmp_path: Path) -> None:
    from rclpy.serialization import serialize_message

    messages = []
    for i in range(6):
        ns = BASE + i * 1_000_000
        raw = serialize_message(_rclpy_tf(ns, "world", "base_link", float(i)))
        messages.append(("/tf", TF, ns, raw[:40] if i == 2 else raw))
    bag = _write_raw(tmp_path / "tf", "mcap", messages)
    with pytest.warns(UserWarning, match=r"/tf: skipped 1 messages whose payload is too short"):
        m = read(bag).motion
    assert m.root_position is not None
    assert np.allclose(m.root_position[:, 0], [0, 1, 3, 4, 5])
