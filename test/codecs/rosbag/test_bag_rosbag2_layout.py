"""Bags we write are rosbag2's: distro everywhere, real MCAP CRCs, type hashes, start time, sqlite3 layout.

Checked with their real consumers: rosbags, the ``mcap`` library with CRC validation,
rclpy deserialization of every payload, and the files' own bytes against the MCAP
specification where no library checks (the summary CRC).
"""

from __future__ import annotations

import sqlite3
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from rosbags.highlevel import AnyReader
from support.rosutil import requires_ros

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs.rosbag.storage import typehash as _typehash
from motion_formats_ros.core.distros import default_write_distro

TYPES = {
    "/joint_states": "sensor_msgs/msg/JointState",
    "/tf": "tf2_msgs/msg/TFMessage",
    "/tf_static": "tf2_msgs/msg/TFMessage",
    "/joint_trajectory": "trajectory_msgs/msg/JointTrajectory",
    "/torso_imu": "sensor_msgs/msg/Imu",
    "/zmp": "geometry_msgs/msg/PointStamped",
}


def _file(n: int = 400, start_time_ns: int | None = None) -> MotionFile:
    from motion_formats_ros.core.model import Series

    rng = np.random.default_rng(11)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    m = Motion(
        times=np.arange(n) / 100.0,
        joint_names=("hip", "knee", "ankle"),
        position=rng.normal(size=(n, 3)),
        velocity=rng.normal(size=(n, 3)),
        root_position=rng.normal(size=(n, 3)),
        root_orientation=q,
        link_names=("camera",),
        links={"position": np.tile([0.1, 0.2, 0.3], (n, 1, 1)), "orientation": np.tile([0.0, 0, 0, 1], (n, 1, 1))},
        imu_names=("torso_imu",),
        imus={
            "orientation": q[:, None],
            "angular_velocity": rng.normal(size=(n, 1, 3)),
            "linear_acceleration": rng.normal(size=(n, 1, 3)),
        },
        series={"zmp": Series(rng.normal(size=(n, 2)), frame="world", components=("x", "y"))},
    )
    return MotionFile(groups={"actual": m}, start_time_ns=start_time_ns)


def _mcap_records(data: bytes, start: int, end: int) -> list[tuple[int, int, bytes]]:
    """(offset, opcode, body) of the records in data[start:end]."""
    out = []
    pos = start
    while pos < end:
        op, length = struct.unpack_from("<BQ", data, pos)
        out.append((pos, op, data[pos + 9 : pos + 9 + length]))
        pos += 9 + length
    return out


def _string_map(body: bytes, pos: int) -> dict[str, str]:
    (length,) = struct.unpack_from("<I", body, pos)
    out, q = {}, pos + 4
    while q < pos + 4 + length:
        (k,) = struct.unpack_from("<I", body, q)
        key = body[q + 4 : q + 4 + k].decode()
        q += 4 + k
        (v,) = struct.unpack_from("<I", body, q)
        out[key] = body[q + 4 : q + 4 + v].decode()
        q += 4 + v
    return out


def _check_mcap(path: Path, distro: str) -> dict[str, dict[str, str]]:
    """CRCs, metadata record and channel metadata of an MCAP file; returns channel metadata by topic."""
    from backports import zstd
    from mcap.reader import make_reader
    from mcap.stream_reader import StreamReader

    with open(path, "rb") as fh:  # chunk CRCs checked on every chunk read
        reader = make_reader(fh, validate_crcs=True)
        summary = reader.get_summary()
        assert summary is not None
        assert sum(1 for _ in reader.iter_messages()) == summary.statistics.message_count  # type: ignore[union-attr]
        assert all(c.uncompressed_size for c in summary.chunk_indexes)
        metas = list(reader.iter_metadata())
    with open(path, "rb") as fh:  # the data-end CRC (and chunk CRCs) checked while streaming
        records = list(StreamReader(fh, validate_crcs=True, emit_chunks=True).records)
    assert any(type(r).__name__ == "DataEnd" and r.data_section_crc for r in records)  # type: ignore[attr-defined]
    chunks = [r for r in records if type(r).__name__ == "Chunk"]
    assert chunks and all(c.compression == "zstd" for c in chunks)  # type: ignore[attr-defined]  # rosbag2's default
    assert all(c.uncompressed_crc == zlib.crc32(zstd.decompress(c.data)) for c in chunks)  # type: ignore[attr-defined]
    header = next(r for r in records if type(r).__name__ == "Header")
    assert header.profile == "ros2"  # type: ignore[attr-defined]

    data = path.read_bytes()
    summary_start, offsets_start, summary_crc = struct.unpack_from("<QQI", data, len(data) - 8 - 20)
    assert summary_crc and summary_crc == zlib.crc32(data[summary_start : len(data) - 8 - 4])
    assert offsets_start > summary_start

    [meta] = [m for m in metas if m.name == "rosbag2"]
    assert meta.metadata["ROS_DISTRO"] == distro
    serialized = yaml.safe_load(meta.metadata["serialized_metadata"])
    assert serialized["ros_distro"] == distro
    return {c.topic: dict(c.metadata) for c in summary.channels.values()}


@pytest.mark.parametrize("distro", ["humble", "jazzy", "kilted"])
def test_mcap_bag_names_its_distro_has_crcs_and_type_hashes(tmp_path: Path, distro: str) -> None:
    bag = tmp_path / "b"
    write(_file(), bag, format="rosbag", distro=distro, start_time=100.0)
    assert yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]["ros_distro"] == distro
    channels = _check_mcap(bag / "b.mcap", distro)
    assert set(channels) == set(TYPES)
    for topic, meta in channels.items():
        assert "offered_qos_profiles" in meta
        if distro == "humble":
            assert "topic_type_hash" not in meta  # Humble's rosbag2 writes none
        else:
            assert meta["topic_type_hash"] == _typehash.KNOWN[TYPES[topic]]
            assert _typehash.installed_hash(TYPES[topic]) in (None, meta["topic_type_hash"])  # None: no ROS here
    info = yaml.safe_load((bag / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
    topics = info["topics_with_message_count"]
    hashes = {t["topic_metadata"]["name"]: t["topic_metadata"]["type_description_hash"] for t in topics}
    assert hashes == {topic: _typehash.KNOWN[msgtype] for topic, msgtype in TYPES.items()}


@pytest.mark.parametrize("distro", ["humble", "jazzy", "kilted"])
def test_sqlite3_bag_has_rosbag2_iron_layout_and_names_its_distro(tmp_path: Path, distro: str) -> None:
    bag = tmp_path / "b"
    write(_file(), bag, format="rosbag", storage="sqlite3", distro=distro, start_time=100.0)
    db = sqlite3.connect(bag / "b.db3")
    try:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert tables == {"schema", "metadata", "topics", "message_definitions", "messages"}
        assert db.execute("SELECT schema_version, ros_distro FROM schema").fetchall() == [(4, distro)]
        [(version, text)] = db.execute("SELECT metadata_version, metadata FROM metadata").fetchall()
        assert yaml.safe_load(text)["ros_distro"] == distro
        topics = dict(db.execute("SELECT name, type_description_hash FROM topics").fetchall())
        assert topics == {topic: _typehash.KNOWN[msgtype] for topic, msgtype in TYPES.items()}
        definitions = db.execute("SELECT topic_type, encoding, type_description_hash FROM message_definitions")
        expected = {(t, "ros2msg", _typehash.KNOWN[t]) for t in set(TYPES.values())}
        assert set(definitions) == expected
        columns = [row[1] for row in db.execute("PRAGMA table_info(messages)")]
        assert columns == ["id", "topic_id", "timestamp", "data"]
        assert db.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall() == [("timestamp_idx",)]
    finally:
        db.close()
    assert version == (8 if distro == "humble" else 9)


@requires_ros
@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_every_payload_deserializes_with_rclpy_and_rosbags(tmp_path: Path, storage: str) -> None:
    from geometry_msgs.msg import PointStamped
    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import Imu, JointState
    from tf2_msgs.msg import TFMessage
    from trajectory_msgs.msg import JointTrajectory

    classes: dict[str, Any] = {
        "sensor_msgs/msg/JointState": JointState,
        "tf2_msgs/msg/TFMessage": TFMessage,
        "trajectory_msgs/msg/JointTrajectory": JointTrajectory,
        "sensor_msgs/msg/Imu": Imu,
        "geometry_msgs/msg/PointStamped": PointStamped,
    }
    mf = _file(n=50)
    m = mf.motion
    bag = tmp_path / "b"
    write(mf, bag, format="rosbag", storage=storage, start_time=1_700_000_000.0)
    seen: dict[str, int] = {}
    with AnyReader([bag]) as reader:
        for conn, t, raw in reader.messages():
            msg = deserialize_message(bytes(raw), classes[conn.msgtype])
            ours = reader.deserialize(raw, conn.msgtype)
            if conn.msgtype == "tf2_msgs/msg/TFMessage":
                msg, ours = msg.transforms[0], ours.transforms[0]  # type: ignore[attr-defined]
            head = ours.header  # type: ignore[attr-defined]
            assert (head.stamp.sec, head.frame_id) == (msg.header.stamp.sec, msg.header.frame_id)
            i = seen.get(conn.topic, 0)
            seen[conn.topic] = i + 1
            if conn.topic == "/joint_states":
                assert list(msg.name) == list(m.joint_names)
                assert np.array_equal(msg.position, m.position[i])  # type: ignore[index]
                assert msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec == t == 1_700_000_000 * 10**9 + i * 10**7
            if conn.topic == "/joint_trajectory":
                assert len(msg.points) == 50
                assert np.array_equal(msg.points[7].positions, m.position[7])  # type: ignore[index]
    assert seen["/joint_states"] == 50 and seen["/tf"] == 50 and seen["/tf_static"] == 1


def test_start_time_is_the_files_recorded_start_else_now_and_the_option_overrides(tmp_path: Path) -> None:
    def first_stamp(bag: Path) -> int:
        with AnyReader([bag]) as reader:
            conns = [c for c in reader.connections if c.topic == "/joint_states"]
            return next(t for _, t, _ in reader.messages(connections=conns))

    recorded = 1_712_345_678_123_456_789
    write(_file(n=20, start_time_ns=recorded), tmp_path / "rec", format="rosbag")
    assert first_stamp(tmp_path / "rec") == recorded
    back = read(tmp_path / "rec").motion
    assert np.allclose(back.times, np.arange(20) / 100.0)

    write(_file(n=20, start_time_ns=recorded), tmp_path / "opt", format="rosbag", start_time=5.25)
    assert first_stamp(tmp_path / "opt") == 5_250_000_000

    before = time.time_ns()
    write(_file(n=20), tmp_path / "now", format="rosbag")
    after = time.time_ns()
    assert before <= first_stamp(tmp_path / "now") <= after  # as `ros2 bag record` would, not 1970


def test_installed_type_hashes_match_the_table_and_rosbags(tmp_path: Path) -> None:
    from rosbags.typesys import Stores, get_typestore

    found = {t: _typehash.installed_hash(t) for t in _typehash.KNOWN}
    if not any(found.values()):
        pytest.skip("no interface packages with generated type descriptions installed (make ros)")
    for store in (Stores.ROS2_JAZZY, Stores.ROS2_KILTED):
        ts = get_typestore(store)
        for msgtype, value in _typehash.KNOWN.items():
            assert found[msgtype] in (None, value), msgtype
            assert ts.hash_rihs01(msgtype) == value, (store, msgtype)
    assert _typehash.installed_hash("no_such_pkg/msg/Nothing") is None


def test_default_distro_is_the_environments(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert default_write_distro({"ROS_DISTRO": "kilted"}) == "kilted"
    assert default_write_distro({"ROS_DISTRO": "rolling"}) == "jazzy"
    assert default_write_distro({}) == "jazzy"
    monkeypatch.setenv("ROS_DISTRO", "humble")
    write(_file(n=5), tmp_path / "b", format="rosbag", start_time=1.0)
    assert "ros_distro: humble" in (tmp_path / "b" / "metadata.yaml").read_text()


@pytest.mark.parametrize(("name", "storage"), [("x.db3", "sqlite3"), ("x.mcap", "mcap"), ("folder", "mcap")])
def test_motion2bag_names_the_real_storage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str, storage: str
) -> None:
    monkeypatch.delenv("ROS_DISTRO", raising=False)
    src = tmp_path / "walk.msgpack"
    mf = _file(n=10)
    mf.motion.series = {}  # OMF holds everything else
    write(mf, src)
    capsys.readouterr()
    assert main(["motion2bag", str(src), str(tmp_path / name)]) == 0
    out = capsys.readouterr().out
    assert f"(rosbag2 {storage}, jazzy, " in out
    assert "rosbag mcap" not in out
