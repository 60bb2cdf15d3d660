"""Compressed chunks and messages built to expand: an MCAP chunk (zstd, lz4) of a few kB that
expands to gigabytes, whether its header states that size or a small one; the same in a file
without footer (the salvage scan); a ROS 1 bag chunk (bz2, lz4); a zstd-compressed message of
a rosbag2 folder. ``info`` and ``bag2motion`` refuse each with one line naming the file and
the chunk's byte offset, quickly and in bounded memory; an honest chunk of a high ratio reads."""

from __future__ import annotations

import bz2
import os
import resource
import sqlite3
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, read, write

REPO = Path(__file__).resolve().parents[3]
CLI = "import sys; from motion_formats_ros.cli.main import main; sys.exit(main(sys.argv[1:]))"
GIB = 1 << 30
MIB = 1 << 20
U16, U32, U64 = struct.Struct("<H"), struct.Struct("<I"), struct.Struct("<Q")
MAGIC = b"\x89MCAP0\r\n"


def _zstd() -> object:
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        from backports import zstd  # type: ignore[import-not-found,no-redef]
    return zstd


# -- compressed zeros, built once -------------------------------------------------------
_BUILT: dict[str, bytes] = {}


def zeros(kind: str) -> bytes:
    """Compressed zeros: ``zstd`` 2 GiB (64 kB), ``lz4`` 1 GiB (4 MB), ``bz2`` 1.5 GiB (1 kB, in streams)."""
    if kind not in _BUILT:
        block = bytes(MIB)
        if kind == "zstd":
            c = _zstd().ZstdCompressor()  # type: ignore[attr-defined]
            _BUILT[kind] = b"".join([c.compress(block) for _ in range(2048)] + [c.flush()])
        elif kind == "lz4":
            import lz4.frame

            f = lz4.frame.LZ4FrameCompressor()
            _BUILT[kind] = f.begin() + b"".join(f.compress(block) for _ in range(1024)) + f.flush()
        else:  # bz2 streams one after another, as bz2.decompress reads them
            b = bz2.BZ2Compressor(9)
            stream = b"".join(b.compress(block) for _ in range(128)) + b.flush()
            _BUILT[kind] = stream * 12
    return _BUILT[kind]


# -- MCAP files, written record by record ------------------------------------------------
def _rec(op: int, body: bytes) -> bytes:
    return bytes([op]) + U64.pack(len(body)) + body


def _str(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return U32.pack(len(data)) + data


def _map(entries: dict[str, str]) -> bytes:
    body = b"".join(_str(k) + _str(v) for k, v in entries.items())
    return U32.pack(len(body)) + body


def _legit(tmp_path: Path, frames: int, constant: bool = False) -> tuple[Path, object, object, list[tuple[int, bytes]]]:
    """A bag written by the package: its file, its joint-state schema and channel, and its messages."""
    from mcap.reader import make_reader

    rng = np.random.default_rng(1)
    position = np.zeros((frames, 3)) if constant else rng.normal(size=(frames, 3))
    motion = Motion(times=np.arange(frames) / 100.0, joint_names=("a", "b", "c"), position=position)
    path = tmp_path / "legit.mcap"
    write(MotionFile.single(motion, "target"), path, overwrite=True)
    with path.open("rb") as fh:
        reader = make_reader(fh)
        summary = reader.get_summary()
        assert summary is not None
        (channel,) = [c for c in summary.channels.values() if c.topic == "/joint_states"]
        schema = summary.schemas[channel.schema_id]
        messages = [(m.log_time, m.data) for _, c, m in reader.iter_messages() if c.id == channel.id]
    return path, schema, channel, messages


def mcap_file(
    path: Path,
    schema: object,
    channel: object,
    compression: str,
    stored: bytes,
    declared: int,
    times: tuple[int, int] = (0, 0),
    indexed: tuple[tuple[int, int], ...] = ((0, 0),),
    footer: bool = True,
    summary: bool = True,
) -> int:
    """An MCAP file of one chunk of ``stored`` bytes that states ``declared``; the chunk's byte offset.

    Its summary (schema, channel, chunk index, statistics) is as rosbag2 writes it, and its
    message index lists ``indexed`` (time, offset in the chunk) of the channel. Without
    ``footer`` the file ends after the chunk; without ``summary`` its footer points at none.
    """
    s, c = schema, channel
    head = MAGIC + _rec(0x01, _str("ros2") + _str("bomb-test"))
    schema_rec = _rec(0x03, U16.pack(s.id) + _str(s.name) + _str(s.encoding) + _str(s.data))  # type: ignore[attr-defined]
    channel_rec = _rec(
        0x04,
        struct.pack("<HH", c.id, s.id)  # type: ignore[attr-defined]
        + _str(c.topic)  # type: ignore[attr-defined]
        + _str(c.message_encoding)  # type: ignore[attr-defined]
        + _map(dict(c.metadata)),  # type: ignore[attr-defined]
    )
    data = head + schema_rec + channel_rec
    chunk_at = len(data)
    body = struct.pack("<QQQI", *times, declared, 0) + _str(compression) + U64.pack(len(stored)) + stored
    data += _rec(0x06, body)
    chunk_length = len(data) - chunk_at
    index_at = len(data)
    entries = b"".join(struct.pack("<QQ", t, o) for t, o in indexed)
    data += _rec(0x07, U16.pack(c.id) + U32.pack(len(entries)) + entries)  # type: ignore[attr-defined]
    index_length = len(data) - index_at
    data += _rec(0x0F, U32.pack(0))
    if not footer:
        path.write_bytes(data[:index_at])
        return chunk_at
    if not summary:
        path.write_bytes(data + _rec(0x02, struct.pack("<QQI", 0, 0, 0)) + MAGIC)
        return chunk_at
    summary_at = len(data)
    offsets = U32.pack(10) + U16.pack(c.id) + U64.pack(index_at)  # type: ignore[attr-defined]
    chunk_index = (
        struct.pack("<QQQQ", *times, chunk_at, chunk_length)
        + offsets
        + U64.pack(index_length)
        + _str(compression)
        + struct.pack("<QQ", len(stored), declared)
    )
    counts = U32.pack(10) + U16.pack(c.id) + U64.pack(len(indexed))  # type: ignore[attr-defined]
    stats = struct.pack("<QHIIII", len(indexed), 1, 1, 0, 0, 1) + struct.pack("<QQ", *times) + counts
    data += schema_rec + channel_rec + _rec(0x08, chunk_index) + _rec(0x0B, stats)
    data += _rec(0x02, struct.pack("<QQI", summary_at, 0, 0)) + MAGIC
    path.write_bytes(data)
    return chunk_at


def _message(cid: int, log_time: int, payload: bytes) -> bytes:
    return _rec(0x05, struct.pack("<HIQQ", cid, 0, log_time, log_time) + payload)


# -- ROS 1 bags: a chunk's data replaced ----------------------------------------------------
def _fields(header: bytes) -> dict[bytes, tuple[int, bytes]]:
    """name → (offset of the value in the header, value) of a ROS 1 record header."""
    out, pos = {}, 0
    while pos < len(header):
        (n,) = U32.unpack_from(header, pos)
        name, _, value = header[pos + 4 : pos + 4 + n].partition(b"=")
        out[name] = (pos + 4 + len(name) + 1, value)
        pos += 4 + n
    return out


def ros1_bag(path: Path, compression: str, stored: bytes, declared: int) -> int:
    """A ROS 1 bag (rosbags' writer) of one chunk whose data is ``stored`` and whose header states ``declared``."""
    from rosbags.rosbag1 import Writer
    from rosbags.typesys import Stores, get_typestore

    ts = get_typestore(Stores.ROS1_NOETIC)
    js = "sensor_msgs/msg/JointState"
    msg = ts.types[js]
    header = ts.types["std_msgs/msg/Header"]
    plain = path.with_name("plain.bag")
    writer = Writer(plain)
    writer.set_compression({"bz2": Writer.CompressionFormat.BZ2, "lz4": Writer.CompressionFormat.LZ4}[compression])
    with writer:
        conn = writer.add_connection("/joint_states", js, typestore=ts)
        for k in range(3):
            t = ts.types["builtin_interfaces/msg/Time"](sec=1, nanosec=k * 10_000_000)
            state = msg(
                header=header(seq=k, stamp=t, frame_id=""),
                name=["a"],
                position=np.array([float(k)]),
                velocity=np.zeros(0),
                effort=np.zeros(0),
            )
            writer.write(conn, 1_000_000_000 + k * 10_000_000, ts.serialize_ros1(state, js))
    data = bytearray(plain.read_bytes())
    bag_header_at = 13
    (hlen,) = U32.unpack_from(data, bag_header_at)
    index_value = _fields(bytes(data[bag_header_at + 4 : bag_header_at + 4 + hlen]))[b"index_pos"][0]
    pos = bag_header_at + 4 + hlen
    pos += 4 + U32.unpack_from(data, pos)[0]  # the bag header's padding
    chunk_at = pos
    (hlen,) = U32.unpack_from(data, pos)
    fields = _fields(bytes(data[pos + 4 : pos + 4 + hlen]))
    assert fields[b"op"][1] == b"\x05" and fields[b"compression"][1] == compression.encode()
    U32.pack_into(data, pos + 4 + fields[b"size"][0], declared)
    data_at = pos + 4 + hlen
    (old,) = U32.unpack_from(data, data_at)
    delta = len(stored) - old
    out = data[:data_at] + U32.pack(len(stored)) + stored + data[data_at + 4 + old :]
    (index_pos,) = U64.unpack_from(out, bag_header_at + 4 + index_value)
    U64.pack_into(out, bag_header_at + 4 + index_value, index_pos + delta)
    path.write_bytes(bytes(out))
    return chunk_at


# -- running the command line in a bounded child --------------------------------------------
_PEAK = (
    "import sys; from motion_formats_ros.cli.main import main; code = main(sys.argv[1:]); "
    "peak = [l for l in open('/proc/self/status') if l.startswith('VmPeak')][0].split()[1]; "
    "print('VMPEAK', peak, file=sys.stderr); sys.exit(code)"
)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


_BASELINE: list[int] = []


def baseline(tmp_path: Path) -> int:
    """Address space (bytes) of a command-line run of ``info`` and ``bag2motion`` on a small bag."""
    if not _BASELINE:
        path, *_ = _legit(tmp_path, 20)
        peaks = []
        for args in (["info", path], ["bag2motion", path, tmp_path / "base.omf.yaml", "--overwrite"]):
            proc = subprocess.run(
                [sys.executable, "-c", _PEAK, *map(str, args)], capture_output=True, text=True, env=_env(), timeout=120
            )
            assert proc.returncode == 0, proc.stderr[-2000:]
            peaks.append(int(proc.stderr.split("VMPEAK")[-1].split()[0]) * 1024)
        _BASELINE.append(max(peaks))
    return _BASELINE[0]


#: Seconds a refusal may take beyond the start-up of the command on a small bag.
SECONDS = 5.0

_STARTUP: list[float] = []


def startup(tmp_path: Path) -> float:
    """Seconds ``info`` takes on a small bag (the interpreter and the modules it loads)."""
    if not _STARTUP:
        path, *_ = _legit(tmp_path, 20)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", CLI, "info", str(path)], capture_output=True, env=_env(), timeout=120)
        _STARTUP.append(time.perf_counter() - started)
    return _STARTUP[0]


def run_capped(args: list[str | Path], limit: int, timeout: float) -> subprocess.CompletedProcess[str]:
    """The command line run with its address space capped at ``limit`` bytes."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run(
        [sys.executable, "-c", CLI, *map(str, args)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=timeout,
        preexec_fn=cap,  # only sets a limit
    )


def assert_refused(bomb: Path, offset: int, tmp_path: Path, info_lists: bool) -> None:
    """``info`` and ``bag2motion`` refuse ``bomb``: one line, its file and the chunk's offset, exit 1.

    With ``info_lists``, ``info`` lists the topics instead (from an index whose sizes are
    plausible, without decompressing any chunk).
    """
    limit = baseline(tmp_path) + GIB
    for args in (["info", bomb], ["bag2motion", bomb, tmp_path / "out.omf.yaml", "--overwrite"]):
        started = time.perf_counter()
        proc = run_capped(args, limit, timeout=60)
        took = time.perf_counter() - started
        assert took < SECONDS + startup(tmp_path), (args[0], took)
        lines = proc.stderr.strip().splitlines()
        if info_lists and args[0] == "info":
            assert proc.returncode == 0 and "/joint_states" in proc.stdout, proc.stderr[-3000:]
            continue
        assert proc.returncode == 1 and len(lines) == 1, (args[0], proc.returncode, proc.stderr[-3000:])
        assert "Traceback" not in proc.stderr
        (line,) = lines
        assert line.startswith(f"error: {bomb}") and f"byte {offset}" in line, line
        assert "decompression bomb" in line, line
        assert not (tmp_path / "out.omf.yaml").exists()


needs_linux = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc/self/status (Linux)")


# -- the bombs ------------------------------------------------------------------------------
BOMBS: dict[str, Callable[[Path, Path], tuple[Path, int]]] = {}


def bomb(name: str) -> Callable[[Callable[[Path, Path], tuple[Path, int]]], Callable[[Path, Path], tuple[Path, int]]]:
    def register(fn: Callable[[Path, Path], tuple[Path, int]]) -> Callable[[Path, Path], tuple[Path, int]]:
        BOMBS[name] = fn
        return fn

    return register


def _mcap_bomb(tmp_path: Path, compression: str, declared: int, **layout: bool) -> tuple[Path, int]:
    _, schema, channel, _ = _legit(tmp_path, 5)
    path = tmp_path / f"bomb-{compression}.mcap"
    expanded = {"zstd": 2 * GIB, "lz4": GIB}[compression]
    offset = mcap_file(path, schema, channel, compression, zeros(compression), declared or expanded, **layout)
    return path, offset


@bomb("mcap zstd, its size stated")
def _zstd_stated(tmp_path: Path, _: Path) -> tuple[Path, int]:
    return _mcap_bomb(tmp_path, "zstd", 0)


@bomb("mcap zstd, 100 bytes stated")
def _zstd_small(tmp_path: Path, _: Path) -> tuple[Path, int]:
    return _mcap_bomb(tmp_path, "zstd", 100)


@bomb("mcap lz4, its size stated")
def _lz4_stated(tmp_path: Path, _: Path) -> tuple[Path, int]:
    return _mcap_bomb(tmp_path, "lz4", 0)


@bomb("mcap lz4, 100 bytes stated")
def _lz4_small(tmp_path: Path, _: Path) -> tuple[Path, int]:
    return _mcap_bomb(tmp_path, "lz4", 100)


@bomb("mcap zstd without footer, 100 bytes stated")
def _zstd_cut(tmp_path: Path, _: Path) -> tuple[Path, int]:
    return _mcap_bomb(tmp_path, "zstd", 100, footer=False)


@bomb("mcap zstd without summary, 100 bytes stated")
def _zstd_unindexed(tmp_path: Path, _: Path) -> tuple[Path, int]:
    return _mcap_bomb(tmp_path, "zstd", 100, summary=False)


@bomb("ros1 bz2, 100 bytes stated")
def _bz2_small(tmp_path: Path, _: Path) -> tuple[Path, int]:
    path = tmp_path / "bomb-bz2.bag"
    return path, ros1_bag(path, "bz2", zeros("bz2"), 100)


@bomb("ros1 bz2, its size stated")
def _bz2_stated(tmp_path: Path, _: Path) -> tuple[Path, int]:
    path = tmp_path / "bomb-bz2.bag"
    return path, ros1_bag(path, "bz2", zeros("bz2"), 12 * 128 * MIB)


@bomb("ros1 lz4, 100 bytes stated")
def _ros1_lz4(tmp_path: Path, _: Path) -> tuple[Path, int]:
    path = tmp_path / "bomb-lz4.bag"
    return path, ros1_bag(path, "lz4", zeros("lz4"), 100)


@pytest.mark.parametrize("name", list(BOMBS))
@needs_linux
def test_a_chunk_bomb_is_refused_with_its_file_and_offset(tmp_path: Path, name: str) -> None:
    if "lz4" in name:
        pytest.importorskip("lz4")
    path, offset = BOMBS[name](tmp_path, tmp_path)
    assert path.stat().st_size < 5 * MIB
    assert_refused(path, offset, tmp_path, info_lists="100 bytes stated" in name and "without" not in name)


@needs_linux
def test_a_compressed_message_that_expands_far_is_refused(tmp_path: Path) -> None:
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
    from support.bags import JS, TS, joint_state

    bag = tmp_path / "messages"
    writer = Writer(bag, version=9, storage_plugin=StoragePlugin.SQLITE3)
    writer.set_compression(CompressionMode.MESSAGE, CompressionFormat.ZSTD)
    with writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for k in range(5):
            writer.write(conn, k * 10_000_000, TS.serialize_cdr(joint_state(k * 10_000_000, ["a"], [k]), JS))
    (db,) = bag.glob("*.db3")
    con = sqlite3.connect(db)
    con.execute("UPDATE messages SET data = ? WHERE id = 2", (zeros("zstd"),))
    con.commit()
    con.close()
    limit = baseline(tmp_path) + GIB
    for args in (["info", bag], ["bag2motion", bag, tmp_path / "out.omf.yaml", "--overwrite"]):
        proc = run_capped(args, limit, timeout=60)
        lines = proc.stderr.strip().splitlines()
        if args[0] == "info":  # lists topics only: no message is decompressed
            assert proc.returncode == 0, proc.stderr[-3000:]
            continue
        assert proc.returncode == 1 and len(lines) == 1, proc.stderr[-3000:]
        assert "Traceback" not in proc.stderr and "decompression bomb" in lines[0], lines[0]
        assert lines[0].startswith(f"error: {bag}"), lines[0]


def test_an_honest_chunk_of_a_high_ratio_reads(tmp_path: Path) -> None:
    """Constant joint values compress well (zstd: about 20 times); a chunk that states its size reads."""
    zstd = _zstd()
    _, schema, channel, messages = _legit(tmp_path, 20_000, constant=True)
    cid = channel.id  # type: ignore[attr-defined]
    records, index = b"", []
    for t, payload in messages:
        index.append((t, len(records)))
        records += _message(cid, t, payload)
    stored = zstd.compress(records, level=19)  # type: ignore[attr-defined]
    assert len(records) > 15 * len(stored), (len(records), len(stored))
    path = tmp_path / "honest.mcap"
    times = (messages[0][0], messages[-1][0])
    mcap_file(path, schema, channel, "zstd", stored, len(records), times=times, indexed=tuple(index))
    motion = read(path).motion
    assert motion.times.size == 20_000
    assert np.all(motion.position == 0)


def test_a_bomb_the_own_readers_refuse_is_not_read_again_through_rosbags(tmp_path: Path) -> None:
    from support.cli import cli

    path, offset = _mcap_bomb(tmp_path, "zstd", 100)
    status, _, stderr, modules = cli("bag2motion", path, tmp_path / "out.omf.yaml")
    assert status == 1 and f"byte {offset}" in stderr and "decompression bomb" in stderr, stderr
    assert "rosbags.rosbag2.reader" not in modules


@needs_linux
def test_a_bomb_among_the_files_whose_messages_rosbags_reads_is_refused(tmp_path: Path) -> None:
    """A folder without metadata.yaml is read from its storage files, two of them here: rosbags
    reads their messages, and the bomb's chunk states a plausible size (100 bytes)."""
    folder = tmp_path / "recording"
    folder.mkdir()
    legit, schema, channel, _ = _legit(tmp_path, 5)
    legit.rename(folder / "recording_0.mcap")
    bomb_file = folder / "recording_1.mcap"
    offset = mcap_file(
        bomb_file, schema, channel, "zstd", zeros("zstd"), 100, times=(10**9, 10**9), indexed=((10**9, 0),)
    )
    proc = run_capped(["bag2motion", folder, tmp_path / "out.omf.yaml"], baseline(tmp_path) + GIB, timeout=60)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    error = [line for line in lines if line.startswith("error: ")]
    assert len(error) == 1 and error[0].startswith(f"error: {bomb_file}: byte {offset}"), lines
    assert "decompression bomb" in error[0]


@pytest.mark.parametrize("footer", [True, False], ids=["indexed", "without footer"])
def test_a_chunk_of_zeros_that_states_its_size_is_not_walked_nine_bytes_at_a_time(tmp_path: Path, footer: bool) -> None:
    """64 MiB of zeros (within every bound, from 3 kB) are no records: the walk stops at the first."""
    zstd = _zstd()
    _, schema, channel, _ = _legit(tmp_path, 5)
    path = tmp_path / "zeros.mcap"
    offset = mcap_file(path, schema, channel, "zstd", zstd.compress(bytes(64 * MIB)), 64 * MIB, footer=footer)  # type: ignore[attr-defined]
    for args in (["info", path], ["bag2motion", path, tmp_path / "out.omf.yaml"]):
        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CLI, *map(str, args)], capture_output=True, text=True, env=_env(), timeout=120
        )
        assert time.perf_counter() - started < SECONDS + startup(tmp_path), args[0]
        assert "Traceback" not in proc.stderr
        if args[0] == "bag2motion":
            (error,) = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
            assert error.startswith(f"error: {path}"), error
            if footer:
                assert f"byte {offset}" in error and "opcode 0x00" in error, error
