"""Records whose CRC holds but whose length or schema is not what their kind requires.

A crash tears the journal's tail, which the CRC catches; a record with a valid CRC but the
wrong shape was written by something other than the recorder. ``recover`` refuses it in one
line naming the journal and the record's byte offset, before decoding anything from it.
"""

from __future__ import annotations

import random
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from motion_formats_ros import read
from motion_formats_ros.core.errors import MotionFormatError, ReadError
from motion_formats_ros.recording.journal import (
    IMU,
    JOINTS,
    MAGIC,
    POSE,
    SCHEMA,
    TF,
    TRAJECTORY,
    JournalWriter,
    read_journal,
)
from motion_formats_ros.recording.recovery import recover

EXE = Path(sys.executable).parent / "motion-formats"
T0 = 1_700_000_000_000_000_000
NAMES = ["a", "b", "c"]


def _recording(path: Path) -> Path:
    """A killed recording with a record of every kind a recorder writes."""
    j = JournalWriter(path, {"format": "omf", "world_frame": "world", "root_frame": "base"}, flush_interval=0)
    for k in range(4):
        t = T0 + k * 10_000_000
        j.joints("joint_states", NAMES, t, t, [0.1 * k, 0.2, 0.3], [1.0, 2.0, 3.0], [0.5, 0.5, 0.5])
        j.tf("world", "base", t, t, [0.01 * k, 0, 0.5], [0, 0, 0, 1])
        j.imu("imu", t, t, [0, 0, 0, 1], [0, 0, 0], [0, 0, 9.8])
        j.pose("root", t, t, [0, 0, 0], [0, 0, 0, 1])
        j.trajectory(NAMES, t, t, [0, 5_000_000], [[0.1, 0.2, 0.3], [0.2, 0.3, 0.4]], [[0, 0, 0], [1, 1, 1]])
    j.close(clean=False)
    return path


def _payloads(path: Path) -> list[bytearray]:
    data, pos, records = path.read_bytes(), len(MAGIC), []
    while pos < len(data):
        (length,) = struct.unpack_from("<I", data, pos)
        records.append(bytearray(data[pos + 8 : pos + 8 + length]))
        pos += 8 + length
    return records


def _journal(path: Path, records: list[bytearray]) -> list[int]:
    """Write ``records`` with valid CRCs; the byte offset of each."""
    out, offsets = bytearray(MAGIC), []
    for payload in records:
        offsets.append(len(out))
        out += struct.pack("<II", len(payload), zlib.crc32(payload)) + payload
    path.write_bytes(bytes(out))
    return offsets


def _first(records: list[bytearray], kind: int) -> int:
    return next(i for i, r in enumerate(records) if r[0] == kind)


def _short(record: bytearray) -> None:
    del record[-1:]


def _long(record: bytearray) -> None:
    record += b"\0" * 8


def _count(record: bytearray) -> None:
    struct.pack_into("<I", record, 20, 2)  # two values per channel where the schema names three


def _no_points(record: bytearray) -> None:
    del record[28:]  # the header and point count only, the points gone


def _header_cut(record: bytearray) -> None:
    del record[20:]  # not even the whole sample header


def _flags(record: bytearray) -> None:
    record[19] = 0x10  # a channel the writer has no flag for


#: (kind, how the record is spoilt, what the error says).
CASES: list[tuple[int, Callable[[bytearray], None], str]] = [
    (JOINTS, _short, r"the joint sample record has 95 bytes, where 3 joints × 3 channel\(s\) takes 96"),
    (JOINTS, _long, r"the joint sample record has 104 bytes, where 3 joints × 3 channel\(s\) takes 96"),
    (JOINTS, _count, r"the joint sample record of stream 'joint_states' has 2 values per channel, where its schema "),
    (JOINTS, _header_cut, r"the joint sample record has 20 bytes, fewer than its 24-byte header"),
    (JOINTS, _flags, r"the joint sample record has the channel flags 16 \(expected 0 to 7\)"),
    (TF, _short, r"the transform record has 74 bytes, where its kind takes 75"),
    (TF, _long, r"the transform record has 83 bytes, where its kind takes 75"),
    (POSE, _short, r"the pose record has 74 bytes, where its kind takes 75"),
    (IMU, _short, r"the IMU sample record has 98 bytes, where its kind takes 99"),
    (IMU, _long, r"the IMU sample record has 107 bytes, where its kind takes 99"),
    (TRAJECTORY, _short, r"the trajectory record has 139 bytes, where 2 points of 3 joints \(2 channel\(s\)\)"),
    (TRAJECTORY, _no_points, r"the trajectory record has 28 bytes, where 2 points of 3 joints"),
    (TRAJECTORY, _header_cut, r"the trajectory record has 20 bytes, fewer than its 28-byte header"),
    (TRAJECTORY, _count, r"the trajectory record of stream 'target' has 2 values per channel, where its schema "),
    (TRAJECTORY, _flags, r"the trajectory record has the channel flags 16 \(expected 1 or 3\)"),
]


@pytest.mark.parametrize(
    ("kind", "spoil", "reason"), CASES, ids=[f"{k}-{spoil.__name__.strip('_')}" for k, spoil, _ in CASES]
)
def test_a_record_of_the_wrong_length_is_refused_naming_its_offset(
    tmp_path: Path, kind: int, spoil: Callable[[bytearray], None], reason: str
) -> None:
    records = _payloads(_recording(tmp_path / "src.journal"))
    i = _first(records, kind)
    spoil(records[i])
    path = tmp_path / "bad.journal"
    offsets = _journal(path, records)
    with pytest.raises(ReadError, match=rf"^{path}: byte {offsets[i]}: malformed record \({reason}"):
        recover(path, tmp_path / "out.msgpack")
    assert not (tmp_path / "out.msgpack").exists()


def test_the_command_line_says_it_in_one_error_line(tmp_path: Path) -> None:
    records = _payloads(_recording(tmp_path / "src.journal"))
    i = _first(records, TF)
    _short(records[i])
    path = tmp_path / "bad.journal"
    offsets = _journal(path, records)
    proc = subprocess.run([str(EXE), "recover", str(path), str(tmp_path / "o.msgpack")], capture_output=True, text=True)
    assert proc.returncode == 1
    reason = "malformed record (the transform record has 74 bytes, where its kind takes 75)"
    assert proc.stderr.splitlines() == [f"error: {path}: byte {offsets[i]}: {reason}"]


def _schema(sid: int, body: bytes) -> bytearray:
    return bytearray(bytes([SCHEMA]) + struct.pack("<H", sid) + body)


SCHEMAS = [
    (b'{"stream": "joint_states", "names": [1, 2]}', r"the schema is not \{'stream': a text, 'names': a list"),
    (b"[1]", r"the schema is not \{'stream': a text, 'names': a list of texts\} but \[1\]"),
    (b'{"stream": 5, "names": []}', r"the schema is not \{'stream': a text"),
    (b"[" * 5000 + b"]" * 5000, r"lists / mappings nested more than 100 levels deep"),
]


@pytest.mark.parametrize(("body", "reason"), SCHEMAS, ids=["names", "list", "stream", "deep"])
def test_a_schema_that_is_no_stream_declaration_is_refused(tmp_path: Path, body: bytes, reason: str) -> None:
    records = _payloads(_recording(tmp_path / "src.journal"))
    i = _first(records, SCHEMA)
    records.insert(i, _schema(99, body))
    path = tmp_path / "bad.journal"
    offsets = _journal(path, records)
    with pytest.raises(ReadError, match=rf"^{path}: byte {offsets[i]}: malformed record \({reason}"):
        read_journal(path)


def test_a_stream_id_declared_twice_is_refused(tmp_path: Path) -> None:
    """Samples before and after would be read with the second declaration's names."""
    records = _payloads(_recording(tmp_path / "src.journal"))
    i = _first(records, JOINTS)
    records.insert(i + 1, _schema(0, b'{"stream": "joint_states", "names": ["x", "y", "z", "w"]}'))
    path = tmp_path / "bad.journal"
    offsets = _journal(path, records)
    with pytest.raises(ReadError, match=rf"byte {offsets[i + 1]}: .*stream id 0 declared a second time"):
        read_journal(path)


def test_a_transform_of_a_stream_with_one_name_is_refused(tmp_path: Path) -> None:
    """A TF record's stream names its parent and child; an IMU's names the IMU."""
    records = _payloads(_recording(tmp_path / "src.journal"))
    imu = _first(records, IMU)
    tf = next(i for i in range(imu, len(records)) if records[i][0] == TF)  # the IMU's stream is declared
    records[tf][1:3] = records[imu][1:3]  # the transform refers to the IMU's stream
    path = tmp_path / "bad.journal"
    offsets = _journal(path, records)
    reason = "whose schema declares 1 names where a transform takes 2"
    with pytest.raises(ReadError, match=rf"byte {offsets[tf]}: .*{reason}"):
        read_journal(path)


def test_deeply_nested_metadata_is_refused(tmp_path: Path) -> None:
    records = _payloads(_recording(tmp_path / "src.journal"))
    records[0] = bytearray(b"\x01" + b"[" * 5000 + b"]" * 5000)
    path = tmp_path / "bad.journal"
    _journal(path, records)
    with pytest.raises(ReadError, match=rf"^{path}: byte {len(MAGIC)}: .*nested more than 100 levels deep"):
        read_journal(path)


def _mutated(records: list[bytearray], rnd: random.Random) -> list[bytearray]:
    """``records`` with one or two of them (never the metadata) changed: a byte, cut, extended, repeated."""
    out = [bytearray(r) for r in records]
    for _ in range(rnd.randint(1, 2)):
        i = rnd.randrange(1, len(out))
        record, how = out[i], rnd.random()
        if how < 0.5 and len(record) > 1:
            record[rnd.randrange(1, len(record))] = rnd.randrange(256)
        elif how < 0.7:
            del record[rnd.randrange(1, len(record)) :]
        elif how < 0.85:
            record += bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16)))
        else:
            out.insert(rnd.randrange(1, len(out)), bytearray(out[rnd.randrange(1, len(out))]))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_records_with_valid_crcs_recover_or_fail_with_a_read_error(tmp_path: Path, seed: int) -> None:
    """Structured fuzz: payloads changed and their CRCs recomputed (so no record is torn)."""
    source = tmp_path / "src.journal"
    if not source.exists():
        _recording(source)
    path = tmp_path / "fz.journal"
    _journal(path, _mutated(_payloads(source), random.Random(seed)))
    out = tmp_path / "fz.msgpack"
    out.unlink(missing_ok=True)
    problem = None
    try:
        recover(path, out)
    except MotionFormatError as exc:  # anything else fails the test
        problem = str(exc)
    if problem is None:
        assert read(out).groups
    else:
        assert str(path) in problem or str(out) in problem, problem
        assert not out.exists()
