"""Records whose stream cannot hold them: each is refused naming the journal and its byte offset.

A stream is declared once, as (stream, names), and holds records of one kind: TF records on
``tf`` / ``tf_static``, IMU records on ``imu``, trajectories on ``target``, joint samples and
poses on any other. A joint sample or trajectory names each joint once; a trajectory's points
follow each other in time. Anything else would lose samples without a word (two IMU streams of
one name keep one, a joint sample on a TF stream makes joints of its frames, a repeated joint
or point time hides one of its values).
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.recording.journal import (
    IMU,
    JOINTS,
    SCHEMA,
    TRAJECTORY,
    JournalWriter,
    read_journal,
)
from motion_formats_ros.recording.recovery import recover

T0 = 1_700_000_000_000_000_000


def _schema(sid: int, stream: str, names: list[str]) -> bytes:
    return bytes([SCHEMA]) + struct.pack("<H", sid) + json.dumps({"stream": stream, "names": names}).encode()


def _joints(sid: int, t: int, values: list[float]) -> bytes:
    return struct.pack("<BHqqBI", JOINTS, sid, t, t, 1, len(values)) + np.asarray(values, "<f8").tobytes()


def _imu(sid: int, t: int) -> bytes:
    return struct.pack("<BHqq10d", IMU, sid, t, t, 0, 0, 0, 1, 0, 0, 0, 0, 0, 9.8)


def _trajectory(sid: int, t: int, offsets: list[int], positions: list[list[float]]) -> bytes:
    header = struct.pack("<BHqqBI", TRAJECTORY, sid, t, t, 1, len(positions[0])) + struct.pack("<I", len(offsets))
    return header + np.asarray(offsets, "<i8").tobytes() + np.asarray(positions, "<f8").tobytes()


def _journal(path: Path, records: list[bytes]) -> list[int]:
    """A journal of a recorder's metadata then ``records`` (valid CRCs); the byte offset of each."""
    JournalWriter(path, {"name": "crafted"}).close(clean=False)
    out = bytearray(path.read_bytes())
    offsets = []
    for payload in records:
        offsets.append(len(out))
        out += struct.pack("<II", len(payload), zlib.crc32(payload)) + payload
    path.write_bytes(bytes(out))
    return offsets


def _refused(path: Path, offset: int, reason: str, tmp_path: Path) -> None:
    with pytest.raises(ReadError, match=rf"^{path}: byte {offset}: malformed record \({reason}"):
        recover(path, tmp_path / "out.msgpack")
    assert not (tmp_path / "out.msgpack").exists()


def test_a_stream_declared_twice_under_two_ids_is_refused(tmp_path: Path) -> None:
    """Two IMU streams of one IMU: the model holds one IMU of that name, so one would be lost."""
    path = tmp_path / "twice.journal"
    records = [_schema(0, "joint_states", ["a"]), _joints(0, T0, [0.1]), _joints(0, T0 + 10**7, [0.2])]
    records += [_schema(1, "imu", ["imu1"]), _imu(1, T0), _schema(2, "imu", ["imu1"]), _imu(2, T0 + 10**7)]
    offsets = _journal(path, records)
    _refused(
        path,
        offsets[5],
        r"stream 'imu' of the names \['imu1'\] declared a second time \(as id 2, first as id 1\)",
        tmp_path,
    )


def test_a_joint_sample_of_a_transform_stream_is_refused(tmp_path: Path) -> None:
    """It would become joints named after the transform's frames."""
    path = tmp_path / "tf.journal"
    records = [_schema(0, "joint_states", ["a"]), _joints(0, T0, [0.1])]
    records += [_schema(1, "tf", ["world", "base"]), _joints(1, T0, [0.5, 0.5])]
    offsets = _journal(path, records)
    reason = "the joint sample record is of stream 'tf', which holds transform records only"
    _refused(path, offsets[3], reason, tmp_path)


@pytest.mark.parametrize(
    ("stream", "record", "holds"),
    [
        ("imu", _trajectory(1, T0, [0], [[0.1]]), "IMU sample records"),
        ("target", _imu(1, T0), "trajectory records"),
        ("joint_states_2", _imu(1, T0), "joint samples and poses"),
    ],
    ids=["trajectory-on-imu", "imu-on-target", "imu-on-joints"],
)
def test_a_record_of_another_kind_than_its_stream_is_refused(
    tmp_path: Path, stream: str, record: bytes, holds: str
) -> None:
    path = tmp_path / "kind.journal"
    offsets = _journal(
        path, [_schema(0, "joint_states", ["a"]), _joints(0, T0, [0.1]), _schema(1, stream, ["x"]), record]
    )
    _refused(path, offsets[3], rf"the \w[\w ]* record is of stream '{stream}', which holds {holds} only", tmp_path)


def test_a_joint_named_twice_is_refused(tmp_path: Path) -> None:
    for stream, record in (
        ("target", _trajectory(0, T0, [0], [[0.1, 0.2]])),
        ("joint_states", _joints(0, T0, [0.1, 0.2])),
    ):
        path = tmp_path / f"{stream}.journal"
        offsets = _journal(path, [_schema(0, stream, ["a", "a"]), record])
        kind = "trajectory" if stream == "target" else "joint sample"
        _refused(
            path, offsets[1], rf"the {kind} record is of stream '{stream}', whose schema names 'a' twice", tmp_path
        )


def test_trajectory_points_whose_times_do_not_increase_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "points.journal"
    records = [_schema(0, "target", ["a", "b"]), _trajectory(0, T0, [0, 10**7, 10**7], [[0, 0], [1, 1], [2, 2]])]
    offsets = _journal(path, records)
    _refused(
        path, offsets[1], r"the trajectory's point 2 is at 10000000 ns, not after point 1 \(10000000 ns\)", tmp_path
    )


def test_the_writer_writes_no_record_the_reader_refuses(tmp_path: Path) -> None:
    """What would be refused is refused when written (the recorder skips the message with a
    warning), and a JointState topic named like a stream of other records is journaled by its
    absolute name: the rest of the recording stays recoverable."""
    path = tmp_path / "w.journal"
    w = JournalWriter(path, {"name": "w"})
    with pytest.raises(ValueError, match="a joint is named twice"):
        w.trajectory(["a", "a"], T0, T0, [0], [[0.1, 0.2]])
    with pytest.raises(ValueError, match="the points' times do not increase"):
        w.trajectory(["a"], T0, T0, [0, 10**7, 10**7], [[0.1], [0.2], [0.3]])
    with pytest.raises(ValueError, match="a point has not a position"):
        w.trajectory(["a", "b"], T0, T0, [0], [[0.1]])
    with pytest.raises(ValueError, match="a joint is named twice"):
        w.joints("joint_states", ["a", "a"], T0, T0, [0.1, 0.2])
    for k in range(3):
        w.joints("tf", ["a", "b"], T0 + k * 10**7, T0 + k * 10**7, [0.1 * k, 0.2])
        w.tf("world", "base", T0 + k * 10**7, T0 + k * 10**7, [0, 0, 0], [0, 0, 0, 1])
        w.trajectory(["a", "b"], T0, T0, [0, 10**7], [[0.1, 0.2], [0.2, 0.3]])
    w.close()
    content = read_journal(path)
    assert [(b.stream, b.names) for b in content.joints] == [("/tf", ("a", "b"))]
    assert [(b.stream, b.names) for b in content.tf] == [("tf", ("world", "base"))]
    _, motion_file, _ = recover(path, tmp_path / "out.msgpack")
    assert motion_file.groups["actual"].joint_names == ("a", "b")
