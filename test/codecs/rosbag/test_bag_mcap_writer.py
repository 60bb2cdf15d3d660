"""MCAP as viewers read it: chunks that hold messages, chunk compression, the distro of a bare
file, files without a profile, and stamps rounded to a uniform rate."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from backports import zstd
from mcap.reader import make_reader
from mcap.stream_reader import StreamReader
from rosbags.typesys import Stores, get_typestore

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.core.errors import ReadError

TS = get_typestore(Stores.ROS2_JAZZY)


def _motion(n: int = 400, joints: int = 12, rate: float = 100.0) -> Motion:
    t = np.arange(n) / rate
    return Motion(
        times=t,
        joint_names=tuple(f"joint_{i}" for i in range(joints)),
        position=np.sin(t[:, None] + np.arange(joints)),
        velocity=np.cos(t[:, None] + np.arange(joints)),
        root_position=np.stack([t, 0 * t, 0.3 + 0 * t], axis=1),
        root_orientation=np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)),
    )


def _summary(mcap: Path) -> Any:
    with open(mcap, "rb") as fh:
        summary = make_reader(fh, validate_crcs=True).get_summary()
    assert summary is not None
    return summary


def _chunks(mcap: Path) -> list[tuple[int, int, bytes]]:
    """(start, end, records) of every chunk, decompressed, in file order."""
    out = []
    with open(mcap, "rb") as fh:
        for record in StreamReader(fh, validate_crcs=True, emit_chunks=True).records:
            if type(record).__name__ == "Chunk":
                data = record.data  # type: ignore[attr-defined]
                if record.compression == "zstd":  # type: ignore[attr-defined]
                    data = zstd.decompress(data)
                elif record.compression == "lz4":  # type: ignore[attr-defined]
                    import lz4.frame

                    data = lz4.frame.decompress(data)
                out.append((record.message_start_time, record.message_end_time, data))  # type: ignore[attr-defined]
    return out


def _storage_bag(path: Path, compression: str, messages: list[tuple[str, str, Any]], unused: str = "") -> Path:
    """A bag written message by message through our MCAP storage writer; ``unused``: a topic without messages."""
    from rosbags.rosbag2 import StoragePlugin, Writer

    from motion_formats_ros.codecs.rosbag.storage.plugins import storage_plugins

    bag = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    bag.STORAGE_PLUGINS = storage_plugins("jazzy", compression)  # type: ignore[assignment]
    with bag as writer:
        conns: dict[str, Any] = {}
        for i, (topic, msgtype, msg) in enumerate(messages):
            if topic not in conns:
                conns[topic] = writer.add_connection(topic, msgtype, typestore=TS)
            writer.write(conns[topic], 1_000_000_000 + i, TS.serialize_cdr(msg, msgtype))
        if unused:
            writer.add_connection(unused, "std_msgs/msg/String", typestore=TS)
    return path / f"{path.name}.mcap"


# ------------------------------------------------------------------------- chunks hold messages
@pytest.mark.parametrize("compression", ["none", "zstd"])
def test_a_big_first_message_shares_its_chunk_with_the_schema_records(tmp_path: Path, compression: str) -> None:
    text = TS.types["std_msgs/msg/String"](data="x" * (3 << 20))
    small = TS.types["std_msgs/msg/String"](data="small")
    mcap = _storage_bag(
        tmp_path / "b",
        compression,
        [
            ("/big", "std_msgs/msg/String", text),
            ("/small", "std_msgs/msg/String", small),
            ("/big", "std_msgs/msg/String", text),
        ],
        unused="/never",
    )
    summary = _summary(mcap)
    assert len(summary.chunk_indexes) == 3
    assert all(c.message_index_offsets and c.message_start_time >= 1_000_000_000 for c in summary.chunk_indexes)
    assert [(c.message_start_time, c.message_end_time) for c in summary.chunk_indexes] == [
        (1_000_000_000, 1_000_000_000),
        (1_000_000_001, 1_000_000_001),
        (1_000_000_002, 1_000_000_002),
    ]
    # the topic without messages is still declared (outside any chunk) and read as such
    assert {c.topic for c in summary.channels.values()} == {"/big", "/small", "/never"}
    with open(mcap, "rb") as fh:
        assert sum(1 for _ in make_reader(fh, validate_crcs=True).iter_messages()) == 3
    from motion_formats_ros.codecs.rosbag import describe

    topics = {t["topic"]: t["messages"] for t in describe(mcap.parent)["topics"]}
    assert topics == {"/big": 2, "/small": 1, "/never": 0}


# ------------------------------------------------------------------------- compression
def test_compressions_store_the_same_chunks_and_read_back_the_same(tmp_path: Path) -> None:
    m = _motion(3000, 20)
    files = {}
    for compression in ("none", "zstd", "lz4", None):
        folder = tmp_path / str(compression)
        folder.mkdir()
        files[compression] = folder / "b.mcap"  # the same name: the embedded metadata names the file
        options = {} if compression is None else {"compression": compression}
        write(MotionFile.single(m, group="actual"), files[compression], format="rosbag", start_time=5.0, **options)
    labels = {c: {i.compression for i in _summary(f).chunk_indexes} for c, f in files.items()}
    assert labels == {"none": {""}, "zstd": {"zstd"}, "lz4": {"lz4"}, None: {"zstd"}}  # as ros2 bag record
    assert files[None].read_bytes() == files["zstd"].read_bytes()
    plain = _chunks(files["none"])
    assert len(plain) > 2
    for compression in ("zstd", "lz4"):
        assert _chunks(files[compression]) == plain  # the same records, only compressed
        assert files[compression].stat().st_size < files["none"].stat().st_size / 2
        back = read(files[compression]).groups["actual"]
        assert np.array_equal(back.position, m.position) and np.array_equal(back.velocity, m.velocity)
        assert np.array_equal(back.times, m.times)


def test_compression_none_writes_uncompressed_chunks_deterministically(tmp_path: Path) -> None:
    m = _motion(50, 3)
    a, b = tmp_path / "a" / "b.mcap", tmp_path / "b" / "b.mcap"
    for path in (a, b):
        path.parent.mkdir()
        write(MotionFile.single(m, group="actual"), path, format="rosbag", start_time=5.0, compression="none")
    assert a.read_bytes() == b.read_bytes()
    [(start, end, records)] = _chunks(a)
    assert records in a.read_bytes()  # stored as they are
    assert (start, end) == (5_000_000_000, 5_490_000_000)


def test_cli_compression_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "m.omf.json"
    write(MotionFile.single(_motion(100, 3), group="actual"), src)
    assert main(["motion2bag", str(src), str(tmp_path / "lz4.mcap"), "--compression", "lz4"]) == 0
    assert "lz4-compressed chunks" in capsys.readouterr().out
    assert {c.compression for c in _summary(tmp_path / "lz4.mcap").chunk_indexes} == {"lz4"}
    assert main(["motion2bag", str(src), str(tmp_path / "plain"), "--compression", "none"]) == 0
    assert {c.compression for c in _summary(tmp_path / "plain" / "plain.mcap").chunk_indexes} == {""}
    assert main(["convert", str(src), str(tmp_path / "c.mcap"), "--compression", "lz4"]) == 0
    assert {c.compression for c in _summary(tmp_path / "c.mcap").chunk_indexes} == {"lz4"}
    capsys.readouterr()
    # sqlite3 has no chunks: one line naming the file, nothing written
    assert main(["motion2bag", str(src), str(tmp_path / "s.db3"), "--compression", "zstd"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "s.db3" in err and "sqlite3" in err
    assert not (tmp_path / "s.db3").exists()
    assert main(["motion2bag", str(src), str(tmp_path / "s.db3"), "--compression", "none"]) == 0
    out = tmp_path / "batch"
    assert main(["batch", str(src), "--to", "mcap", "--output-dir", str(out), "--compression", "lz4"]) == 0
    [made] = out.rglob("*.mcap")
    assert {c.compression for c in _summary(made).chunk_indexes} == {"lz4"}


def test_missing_lz4_is_one_line_and_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from motion_formats_ros.core.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "lz4.frame", None)  # as if the package were not installed
    with pytest.raises(MissingDependencyError, match=r"lz4 .*pip install 'motion_formats_ros\[lz4\]'") as info:
        write(MotionFile.single(_motion(10, 2)), tmp_path / "b.mcap", format="rosbag", compression="lz4")
    assert "\n" not in str(info.value)
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------- info, profile
@pytest.mark.parametrize("distro", ["humble", "kilted"])
@pytest.mark.parametrize("suffix", [".mcap", ".db3"])
def test_info_names_the_distro_of_a_bare_storage_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], distro: str, suffix: str
) -> None:
    bag = tmp_path / f"b{suffix}"
    write(MotionFile.single(_motion(20, 2)), bag, format="rosbag", distro=distro)
    assert main(["info", str(bag)]) == 0
    assert f"distro:   {distro}" in capsys.readouterr().out.splitlines()


def _no_profile(path: Path, schema_encoding: str = "ros2msg", message_encoding: str = "cdr") -> Path:
    """An MCAP file as other writers of ROS 2 data make it: an empty header profile, zstd chunks."""
    from mcap.writer import CompressionType, Writer

    msgdef, _ = TS.generate_msgdef("sensor_msgs/msg/JointState", ros_version=2)
    t = TS.types
    with open(path, "wb") as fh:
        writer = Writer(fh, compression=CompressionType.ZSTD)
        writer.start(profile="", library="")
        sid = writer.register_schema("sensor_msgs/msg/JointState", schema_encoding, msgdef.encode())
        cid = writer.register_channel("/joint_states", message_encoding, sid)
        for i in range(25):
            ns = 2_000_000_000 + i * 20_000_000
            msg = t["sensor_msgs/msg/JointState"](
                header=t["std_msgs/msg/Header"](
                    stamp=t["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9), frame_id=""
                ),
                name=["a", "b"],
                position=np.array([i * 0.5, -i * 0.25]),
                velocity=np.zeros(0),
                effort=np.zeros(0),
            )
            writer.add_message(cid, ns, bytes(TS.serialize_cdr(msg, "sensor_msgs/msg/JointState")), ns, i)
        writer.finish()
    return path


def test_mcap_without_profile_but_ros2_channels_is_read(tmp_path: Path) -> None:
    path = _no_profile(tmp_path / "other.mcap")
    with open(path, "rb") as fh:
        assert make_reader(fh).get_header().profile == ""
    m = read(path).groups["actual"]
    assert m.joint_names == ("a", "b") and m.num_frames == 25 and m.rate == 50.0
    assert np.array_equal(m.position, np.stack([np.arange(25) * 0.5, np.arange(25) * -0.25], axis=1))
    folder = tmp_path / "folder"
    folder.mkdir()
    _no_profile(folder / "folder_0.mcap")  # a folder of such files, without metadata.yaml
    with pytest.warns(UserWarning, match="no metadata.yaml"):
        assert np.array_equal(read(folder).groups["actual"].position, m.position)


def test_mcap_without_profile_and_other_channels_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _no_profile(tmp_path / "json.mcap", schema_encoding="jsonschema", message_encoding="json")
    with pytest.raises(ReadError) as info:
        read(path)
    assert "json.mcap" in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------------- jittered stamps
def _bag_with_times(tmp_path: Path, times: np.ndarray, name: str = "j") -> Path:
    m = Motion(times=times, joint_names=("a",), position=np.sin(times)[:, None])
    bag = tmp_path / f"{name}.mcap"
    write(MotionFile.single(m, group="actual"), bag, format="rosbag", start_time=1_700_000_000.0)
    return bag


def test_bag2motion_warns_with_the_largest_deviation_when_it_rounds_jittered_stamps(tmp_path: Path) -> None:
    jitter = np.zeros(200)
    jitter[[17, 120]] = [3e-9, -7e-9]  # within the model's tolerance for 100 Hz, beyond the ns stamps
    times = np.arange(200) / 100.0 + jitter
    bag = _bag_with_times(tmp_path, times)
    with pytest.warns(UserWarning, match="jitter") as caught:
        m = read(bag).groups["actual"]
    [message] = [str(w.message) for w in caught if "jitter" in str(w.message)]
    assert "j.mcap" in message and "100 Hz" in message and "7 ns" in message and "frame 120" in message
    assert m.rate == 100.0 and np.array_equal(m.times, np.arange(200) / 100.0)  # on the grid


def test_stamps_only_rounded_to_whole_ns_give_no_warning(tmp_path: Path) -> None:
    times = np.arange(90) / 30.0  # k/30 s is not a whole number of ns: stamps round it by ≤ 0.5 ns
    bag = _bag_with_times(tmp_path, times)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = read(bag).groups["actual"]
    assert m.rate == 30.0 and np.max(np.abs(m.times - times)) <= 0.5e-9
    jittered = times + np.where(np.arange(90) % 7 == 3, 2e-4, 0.0)  # real jitter: not uniform, times kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = read(_bag_with_times(tmp_path, jittered, "real"))
    assert back.groups["actual"].rate is None
    assert np.max(np.abs(back.groups["actual"].times - jittered)) <= 0.5e-9
