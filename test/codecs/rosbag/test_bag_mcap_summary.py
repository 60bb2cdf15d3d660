"""Bare ``.mcap`` files as Foxglove and the mcap tools write them: read through the summary, each chunk once.

The files are written with the mcap library's own ``Writer`` (chunks compressed with zstd,
lz4 or not at all; no rosbag2 metadata) from JointState messages serialized by rosbags.
What ``read()`` gives is compared with the messages themselves, with the message-by-message
path (rosbags' deserializer) and, for a file whose summary is missing or lies, with the
intact file.
"""

from __future__ import annotations

import struct
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from motion_formats_ros import read
from motion_formats_ros.core.notices import MotionFormatWarning, NoticeKind

TS = get_typestore(Stores.ROS2_JAZZY)
JS = "sensor_msgs/msg/JointState"
BASE = 1_700_000_000 * 1_000_000_000
COMPRESSIONS = ["zstd", "lz4", ""]


def joint_states(n: int = 300, seed: int = 4) -> list[tuple[int, Any]]:
    """(receive ns, JointState): short names, a layout change half-way (a joint added), a NaN or two."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        names = [f"j{k}" for k in range(3 if i < n // 2 else 4)]
        position = rng.normal(size=len(names))
        if i % 97 == 5:
            position[0] = np.nan
        t = BASE + i * 10_000_000
        sec, nsec = divmod(t, 1_000_000_000)
        header = TS.types["std_msgs/msg/Header"](
            stamp=TS.types["builtin_interfaces/msg/Time"](sec=sec, nanosec=nsec), frame_id=""
        )
        msg = TS.types[JS](
            header=header, name=names, position=position, velocity=rng.normal(size=len(names)), effort=np.zeros(0)
        )
        out.append((t, msg))
    return out


def bare_mcap(path: Path, messages: list[tuple[int, Any]], compression: str, chunk_size: int = 2048) -> Path:
    """A bare ``.mcap`` written by the mcap library (small chunks: many of them)."""
    from mcap.writer import CompressionType, Writer

    kind = {"zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4, "": CompressionType.NONE}[compression]
    text, _ = TS.generate_msgdef(JS, ros_version=2)
    with open(path, "wb") as fh:
        writer = Writer(fh, chunk_size=chunk_size, compression=kind)
        writer.start(profile="ros2", library="test")
        schema = writer.register_schema(JS, "ros2msg", text.encode())
        channel = writer.register_channel("/joint_states", "cdr", schema)
        for seq, (t, msg) in enumerate(messages):
            writer.add_message(channel, t, bytes(TS.serialize_cdr(msg, JS)), t, seq)
        writer.finish()
    return path


def records(data: bytes) -> list[tuple[int, int, int]]:
    """(opcode, offset, length) of every top-level record of an MCAP file."""
    out, pos = [], 8
    while pos + 9 <= len(data) - 8:
        op, length = struct.unpack_from("<BQ", data, pos)
        out.append((op, pos, length))
        pos += 9 + length
    return out


def reading(path: Path, **options: Any) -> tuple[Any, list[Any]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mf = read(path, progress=False, **options)
    return mf, [w.message.notice for w in caught if isinstance(w.message, MotionFormatWarning)]


def assert_values(mf: Any, messages: list[tuple[int, Any]]) -> None:
    m = mf.motion
    assert m.num_frames == len(messages)
    assert m.joint_names == ("j0", "j1", "j2", "j3")
    expected = np.full((len(messages), 4), np.nan)
    for i, (_, msg) in enumerate(messages):
        expected[i, : len(msg.name)] = msg.position
    np.testing.assert_array_equal(m.position, expected)
    np.testing.assert_array_equal((np.round(m.times * 1e9)).astype(np.int64), [t - BASE for t, _ in messages])


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_a_bare_mcap_of_every_chunk_compression_reads_its_messages(tmp_path: Path, compression: str) -> None:
    messages = joint_states()
    bag = bare_mcap(tmp_path / "x.mcap", messages, compression)
    fast, notes = reading(bag)
    assert notes == []
    assert_values(fast, messages)
    slow, slow_notes = reading(bag, bulk=False)  # every message through rosbags' deserializer
    assert slow_notes == []
    for channel in ("position", "velocity", "effort"):
        a, b = getattr(fast.motion, channel), getattr(slow.motion, channel)
        assert (a is None and b is None) or a.tobytes() == b.tobytes()
    assert fast.motion.times.tobytes() == slow.motion.times.tobytes()


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_each_chunk_is_decompressed_once_and_none_to_find_metadata(
    tmp_path: Path, compression: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rosbags.rosbag2.storage_mcap as storage_mcap

    from motion_formats_ros.codecs.rosbag.storage import chunks as chunk_reading
    from motion_formats_ros.codecs.rosbag.storage import mcap_scan

    messages = joint_states()
    bag = bare_mcap(tmp_path / "x.mcap", messages, compression)
    chunks = sum(1 for op, _, _ in records(bag.read_bytes()) if op == 0x06)
    assert chunks > 10
    calls: list[str] = []
    real, real_scan, own = storage_mcap.decompress, mcap_scan._decompress, chunk_reading.inflate

    def counted(*args: Any) -> Any:
        calls.append("chunk")
        return real(*args)

    def counted_own(*args: Any) -> Any:
        calls.append("chunk")
        return own(*args)

    def counted_scan(*args: Any) -> Any:
        calls.append("scan")
        return real_scan(*args)

    monkeypatch.setattr(storage_mcap, "decompress", counted)
    monkeypatch.setattr(chunk_reading, "inflate", counted_own)
    monkeypatch.setattr(mcap_scan, "_decompress", counted_scan)
    mf, _ = reading(bag)
    assert_values(mf, messages)
    assert calls == ["chunk"] * chunks


def _data_end(data: bytes) -> int:
    return next(pos for op, pos, _ in records(data) if op == 0x0F)


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_a_bare_mcap_without_summary_is_recovered_by_scanning_each_chunk_once(
    tmp_path: Path, compression: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from motion_formats_ros.codecs.rosbag.storage import mcap_scan

    messages = joint_states()
    whole = bare_mcap(tmp_path / "whole.mcap", messages, compression)
    data = whole.read_bytes()
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(data[: _data_end(data)])  # a writer killed before it wrote the summary
    real = mcap_scan._decompress
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(mcap_scan, "_decompress", counted)
    mf, notes = reading(cut)
    chunks = sum(1 for op, _, _ in records(data) if op == 0x06)
    assert len(calls) == (chunks if compression else 2 * chunks)  # stored chunks are only copied
    assert_values(mf, messages)
    assert [n.kind for n in notes] == [NoticeKind.RECOVERED]
    assert f"recovered {len(messages)} messages" in notes[0].message


@pytest.mark.parametrize("where", ["offset", "length"])
def test_a_summary_whose_chunk_index_lies_falls_back_to_scanning(tmp_path: Path, where: str) -> None:
    messages = joint_states()
    bag = bare_mcap(tmp_path / "x.mcap", messages, "zstd")
    data = bytearray(bag.read_bytes())
    index = [pos for op, pos, _ in records(bytes(data)) if op == 0x08][3]  # the fourth chunk's index record
    field = index + 9 + 16 + (0 if where == "offset" else 8)  # chunk start offset, chunk length
    (value,) = struct.unpack_from("<Q", data, field)
    struct.pack_into("<Q", data, field, value + 7)
    bag.write_bytes(bytes(data))
    mf, notes = reading(bag)
    assert_values(mf, messages)
    assert [n.kind for n in notes] == [NoticeKind.INCONSISTENT]
    assert "chunk index" in notes[0].message and "scanned" in notes[0].message
