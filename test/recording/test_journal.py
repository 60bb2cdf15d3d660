"""The recorder's journal without ROS: records, merging, crash recovery, `motion-formats recover`."""

from __future__ import annotations

import array
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import ReadError, read
from motion_formats_ros.recording.assembly import assemble
from motion_formats_ros.recording.journal import MAGIC, JournalWriter, read_journal
from motion_formats_ros.recording.recovery import recover

NAMES = [f"j{i}" for i in range(5)]


def _meta(out: Path, **extra: object) -> dict[str, object]:
    return {"output": str(out), "name": "log", "robot": "bot", "date": "2026-11-22T10:00:00", **extra}


def _write_stream(journal: JournalWriter, frames: int, rate: float = 100.0, t0: int = 5_000_000_000) -> np.ndarray:
    values = np.arange(frames * 5, dtype=np.float64).reshape(frames, 5) / 10
    for k in range(frames):
        stamp = t0 + round(k * 1e9 / rate)
        journal.joints("/joint_states", NAMES, stamp, stamp + 1000, array.array("d", values[k]), None, -values[k])
    return values


def test_single_stream_round_trip(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "a.journal", _meta(tmp_path / "a.msgpack"))
    values = _write_stream(j, 50)
    j.close()
    content = read_journal(tmp_path / "a.journal")
    assert content.complete and content.truncated_at is None and content.samples == 50
    f = assemble(content)
    m = f.groups["actual"]
    assert (f.name, f.robot) == ("log", "bot")
    assert m.joint_names == tuple(NAMES) and m.rate == 100.0
    np.testing.assert_array_equal(m.position, values)
    np.testing.assert_array_equal(m.effort, -values)
    assert m.velocity is None
    assert m.times[0] == 0.0 and f.start_time_ns == 5_000_000_000  # relative times, absolute start apart


def test_two_streams_merge_by_name_with_hold(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "m.journal", _meta(tmp_path / "m.msgpack", topics=["/arm", "/head"]))
    j.joints("/head", ["h"], 0, 0, [99])  # the head's first message happens to arrive first
    for k in range(10):  # arm at 100 Hz, head at 30 Hz
        j.joints("/arm", ["a1", "a2"], 10_000_000 * k + 1, 0, [k, -k])
    for k in range(4):
        j.joints("/head", ["h"], 33_333_333 * k + 2, 0, [100 + k])
    j.close()
    m = assemble(read_journal(tmp_path / "m.journal")).groups["actual"]
    assert m.joint_names == ("a1", "a2", "h")  # in the order of the recorded topics
    assert m.num_frames == 15
    pos = m.position
    assert pos is not None
    assert pos[0, 2] == 99.0 and np.isnan(pos[0, 0])  # the arm had not spoken yet
    last_head = pos[-1, 2]
    assert last_head == 103.0
    assert pos[-1, 0] == 9.0  # the arm's last value is held at the head's last stamp
    # On a 50 Hz grid each joint is interpolated on its own samples.
    grid = assemble(read_journal(tmp_path / "m.journal"), rate=50.0).groups["actual"]
    assert grid.rate == 50.0
    assert grid.position is not None
    np.testing.assert_allclose(grid.position[1, 0], 2.0)


def test_fixed_joint_set_and_order(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "f.journal", _meta(tmp_path / "f.msgpack"))
    _write_stream(j, 5)
    j.close()
    m = assemble(read_journal(tmp_path / "f.journal"), joints=["j3", "j0"]).groups["actual"]
    assert m.joint_names == ("j3", "j0")
    assert m.position is not None
    np.testing.assert_array_equal(m.position[:, 0], np.arange(5) * 0.5 + 0.3)


def test_zero_stamps_fall_back_to_receive_time(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "z.journal", _meta(tmp_path / "z.msgpack"))
    for k in range(3):
        j.joints("/js", ["a"], 0, 1_000_000_000 + k * 10_000_000, [k])
    j.close()
    content = read_journal(tmp_path / "z.journal")
    with pytest.warns(UserWarning, match="/js: every header stamp is zero; using receive times"):
        auto = assemble(content)
    np.testing.assert_allclose(auto.groups["actual"].times, [0.0, 0.01, 0.02])
    assert auto.start_time_ns == 1_000_000_000
    receive = assemble(content, stamps="receive")
    np.testing.assert_allclose(receive.groups["actual"].times, [0.0, 0.01, 0.02])
    assert receive.start_time_ns == 1_000_000_000


def test_target_pose_and_imu(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "t.journal", _meta(tmp_path / "t.msgpack"))
    for k in range(4):
        j.joints("/js", ["a"], 1_000_000_000 + k * 100_000_000, 0, [k])
        j.pose("root", 1_000_000_000 + k * 100_000_000, 0, (k, 0, 0), (0, 0, 0, 1))
        j.imu("base_imu", 1_000_000_000 + k * 100_000_000, 0, (0, 0, 0, 1), (0, 0, k), (0, 0, 9.81))
    j.trajectory(["a"], 1_000_000_000, 0, [0, 500_000_000], [[0.0], [5.0]], [[0.0], [0.0]])
    j.close()
    f = assemble(read_journal(tmp_path / "t.journal"))
    assert list(f.groups) == ["actual", "target"]  # the measured motion first, as bag2motion orders them
    target, actual = f.groups["target"], f.groups["actual"]
    np.testing.assert_allclose(target.times, [0.0, 0.5])
    assert f.start_time_ns == 1_000_000_000
    assert target.position is not None
    np.testing.assert_array_equal(target.position[:, 0], [0.0, 5.0])
    assert actual.root_position is not None
    np.testing.assert_array_equal(actual.root_position[:, 0], [0, 1, 2, 3])
    assert actual.imu_names == ("base_imu",)
    np.testing.assert_array_equal(actual.imus["angular_velocity"][:, 0, 2], [0, 1, 2, 3])


@pytest.mark.parametrize("cut", [1, 7, 40, 333])
def test_torn_journal_keeps_every_whole_record(tmp_path: Path, cut: int) -> None:
    j = JournalWriter(tmp_path / "c.journal", _meta(tmp_path / "c.msgpack"))
    values = _write_stream(j, 100)
    j.flush()  # no END record: the recorder was killed
    data = (tmp_path / "c.journal").read_bytes()
    (tmp_path / "c.journal").write_bytes(data[:-cut])
    content = read_journal(tmp_path / "c.journal")
    assert not content.complete and content.truncated_at is not None
    m = assemble(content).groups["actual"]
    record = 8 + 24 + 2 * 5 * 8  # length+crc, sample header, positions and efforts
    assert m.num_frames == 100 - -(-cut // record)  # only the torn records are lost
    np.testing.assert_array_equal(m.position, values[: m.num_frames])


def test_corrupt_record_stops_reading(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "x.journal", _meta(tmp_path / "x.msgpack"))
    _write_stream(j, 20)
    j.close()
    data = bytearray((tmp_path / "x.journal").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "x.journal").write_bytes(bytes(data))
    content = read_journal(tmp_path / "x.journal")
    assert 0 < content.samples < 20 and content.truncated_at is not None


def test_not_a_journal(tmp_path: Path) -> None:
    (tmp_path / "n.journal").write_bytes(b"hello")
    with pytest.raises(ReadError, match=r"n\.journal: byte 0: not a motion_formats_ros recording journal"):
        read_journal(tmp_path / "n.journal")


def test_journal_is_never_clobbered(tmp_path: Path) -> None:
    JournalWriter(tmp_path / "o.journal", _meta(tmp_path / "o.msgpack")).close()
    with pytest.raises(FileExistsError):
        JournalWriter(tmp_path / "o.journal", _meta(tmp_path / "o.msgpack"))


def test_recover_api_and_cli(tmp_path: Path) -> None:
    out = tmp_path / "log.seq"
    j = JournalWriter(tmp_path / "log.seq.journal", _meta(out, format="seq", write_options={"version": 4}))
    values = _write_stream(j, 30)
    j.flush()  # killed: no END
    path, _, content = recover(tmp_path / "log.seq.journal")
    assert path == out and not content.complete
    assert "format_version: 4" in out.read_text()
    back = read(out, joint_names=NAMES).motion
    np.testing.assert_allclose(back.position, values, rtol=1e-8)
    cli = Path(sys.executable).parent / "motion-formats"
    proc = subprocess.run(
        [str(cli), "recover", str(tmp_path / "log.seq.journal"), str(tmp_path / "again.msgpack")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "30 records" not in proc.stdout and "cut short" in proc.stdout
    assert "wrote" in proc.stdout and "actual: 30 frames" in proc.stdout
    proc = subprocess.run([str(cli), "recover", str(tmp_path / "log.seq.journal")], capture_output=True, text=True)
    assert proc.returncode == 1 and "already exists" in proc.stderr


def test_repeated_header_stamps_are_reported_not_silently_merged(tmp_path: Path) -> None:
    j = JournalWriter(tmp_path / "d.journal", _meta(tmp_path / "d.msgpack"))
    for k in range(5):
        j.joints("/js", ["a"], 7_000_000_000, 1_000_000_000 + k * 1_000_000, [k])  # a frozen header clock
    j.close()
    content = read_journal(tmp_path / "d.journal")
    with pytest.warns(UserWarning, match=r"/js: 4 of 5 samples share a stamp"):
        m = assemble(content, stamps="header").groups["actual"]
    assert m.num_frames == 1
    assert assemble(content, stamps="receive").groups["actual"].num_frames == 5


def _killed_recording(tmp_path: Path, frames: int) -> tuple[bytes, np.ndarray, int]:
    """A journal without END (the recorder was killed), its values and where its last record starts."""
    j = JournalWriter(tmp_path / "k.journal", _meta(tmp_path / "k.msgpack"))
    values = _write_stream(j, frames)
    j.flush()
    data = (tmp_path / "k.journal").read_bytes()
    record = 8 + 24 + 2 * 5 * 8  # length+crc, sample header, positions and efforts
    return data, values, len(data) - record


def test_recover_cut_at_every_byte_of_the_last_record(tmp_path: Path) -> None:
    """Regression (fuzz): a tail cut inside a record is dropped; everything before it is written."""
    data, values, last = _killed_recording(tmp_path, 6)
    for cut in range(last, len(data)):
        journal = tmp_path / f"cut{cut}.journal"
        journal.write_bytes(data[:cut])
        out, _, content = recover(journal, tmp_path / f"cut{cut}.msgpack")
        assert content.truncated_at == (last if cut > last else None), cut
        back = read(out).groups["actual"]
        assert back.num_frames == 5, cut
        np.testing.assert_array_equal(back.position, values[:5])
        assert journal.read_bytes() == data[:cut]  # the input is never modified
    cut = last + 17
    (tmp_path / "cli.journal").write_bytes(data[:cut])
    cli = Path(sys.executable).parent / "motion-formats"
    proc = subprocess.run(
        [str(cli), "recover", str(tmp_path / "cli.journal"), str(tmp_path / "cli.msgpack")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"torn tail of 17 bytes after byte {last} dropped" in proc.stdout
    assert "actual: 5 frames" in proc.stdout


def test_cut_inside_the_metadata_record_is_a_read_error(tmp_path: Path) -> None:
    """Regression (fuzz): this raised BufferError (the map closed while the traceback held views of it)."""
    data, _, _ = _killed_recording(tmp_path, 1)
    (meta_length,) = struct.unpack_from("<I", data, len(MAGIC))
    for cut in range(len(MAGIC), len(MAGIC) + 8 + meta_length):
        (tmp_path / "m.journal").write_bytes(data[:cut])
        with pytest.raises(ReadError, match=r"m\.journal: byte \d+: the journal has no metadata record"):
            read_journal(tmp_path / "m.journal")


def test_sample_of_an_undeclared_stream_is_a_read_error(tmp_path: Path) -> None:
    data, _, last = _killed_recording(tmp_path, 2)
    # Point the last sample at stream 9, which has no schema, with a valid CRC.
    payload = bytearray(data[last + 8 :])
    struct.pack_into("<H", payload, 1, 9)
    record = struct.pack("<II", len(payload), zlib.crc32(payload)) + bytes(payload)
    (tmp_path / "u.journal").write_bytes(data[:last] + record)
    with pytest.raises(ReadError, match=rf"u\.journal: byte {last}: malformed record .*stream 9"):
        read_journal(tmp_path / "u.journal")


def test_recover_a_journal_with_nothing_recorded_is_a_read_error(tmp_path: Path) -> None:
    JournalWriter(tmp_path / "e.journal", _meta(tmp_path / "e.msgpack")).close(clean=False)
    with pytest.raises(ReadError, match=r"e\.journal: nothing was recorded"):
        recover(tmp_path / "e.journal")
    assert not (tmp_path / "e.msgpack").exists()
    JournalWriter(tmp_path / "n.journal", {"name": "log"}).close(clean=False)
    with pytest.raises(ReadError, match=r"n\.journal: byte 14: the metadata names no output file"):
        recover(tmp_path / "n.journal")


def test_root_pose_is_composed_from_tf_edges_by_time(tmp_path: Path) -> None:
    """The recorder journals raw TF edges; the one TF buffer composes them at the frame times.

    Odometry (odom → base_link at 100 Hz) and a static map → odom; joint states at 50 Hz
    with stamps between the odometry samples: the root pose is the odometry interpolated
    at each frame time, composed with map → odom, whatever the order of arrival.
    """
    out = tmp_path / "r.msgpack"
    j = JournalWriter(tmp_path / "r.journal", _meta(out, world_frame="map", root_frame="base_link"))
    t0 = 3_000_000_000
    j.tf("map", "odom", 0, t0, (10.0, 0.0, 0.0), (0.0, 0.0, np.sin(np.pi / 4), np.cos(np.pi / 4)), static=True)
    for k in range(101):  # x = 0.01 k m in odom
        j.tf("odom", "base_link", t0 + k * 10_000_000, 0, (0.01 * k, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))
        j.tf("base_link", "arm", t0 + k * 10_000_000 + 3, 0, (0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0))  # an rsp link
    for k in range(50):
        j.joints("/js", ["a"], t0 + 5_000_000 + k * 20_000_000, 0, [k])
    j.close()
    f = assemble(read_journal(tmp_path / "r.journal"))
    m = f.groups["actual"]
    assert f.start_time_ns == t0 + 5_000_000 and m.times[0] == 0.0
    x_odom = 0.005 + 0.02 * np.arange(50)  # interpolated between the odometry samples
    expected = np.stack([np.full(50, 10.0), x_odom, np.zeros(50)], axis=1)  # rotated 90° about z, shifted
    assert m.root_position is not None and m.root_orientation is not None
    np.testing.assert_allclose(m.root_position, expected, atol=1e-12)
    np.testing.assert_allclose(m.root_orientation[:, 2:], np.tile([np.sin(np.pi / 4), np.cos(np.pi / 4)], (50, 1)))


def test_a_frame_with_two_parents_is_reported_not_mixed(tmp_path: Path) -> None:
    out = tmp_path / "p.msgpack"
    j = JournalWriter(tmp_path / "p.journal", _meta(out, world_frame="odom", root_frame="base_link"))
    for k in range(10):
        j.tf("odom", "base_link", 1_000_000_000 + k * 10_000_000, 0, (k, 0, 0), (0, 0, 0, 1))
        if k % 3 == 0:  # a second publisher claims base_link under another parent
            j.tf("world", "base_link", 1_000_000_000 + k * 10_000_000 + 1, 0, (-50, 0, 0), (0, 0, 0, 1))
        j.joints("/js", ["a"], 1_000_000_000 + k * 10_000_000, 0, [k])
    j.close()
    with pytest.warns(UserWarning, match=r"'base_link' is published with several parents: 'odom' \(10 samples\), "):
        m = assemble(read_journal(tmp_path / "p.journal")).groups["actual"]
    assert m.root_position is not None
    np.testing.assert_array_equal(m.root_position[:, 0], np.arange(10))  # the odom tree only, no zig-zag


def test_recover_a_tail_cut_inside_a_tf_record(tmp_path: Path) -> None:
    """The TF records the recorder now journals: a cut at every byte of the last one drops only it."""
    out = tmp_path / "t.msgpack"
    j = JournalWriter(tmp_path / "t.journal", _meta(out, world_frame="odom", root_frame="base_link"))
    for k in range(4):
        j.tf("odom", "base_link", 1_000_000_000 + k * 10_000_000, 0, (k, 0, 0), (0, 0, 0, 1))
        j.joints("/js", ["a"], 1_000_000_000 + k * 10_000_000, 0, [k])
    j.flush()
    last = (tmp_path / "t.journal").stat().st_size
    j.tf("odom", "base_link", 1_000_000_000 + 4 * 10_000_000, 0, (99, 0, 0), (0, 0, 0, 1))
    j.flush()
    data = (tmp_path / "t.journal").read_bytes()
    assert len(data) - last == 8 + 19 + 7 * 8  # length + crc, kind + stream + stamps, pose
    for cut in range(last, len(data) + 1):
        journal = tmp_path / f"cut{cut}.journal"
        journal.write_bytes(data[:cut])
        _, motion_file, content = recover(journal, tmp_path / f"cut{cut}.msgpack")
        assert content.truncated_at == (last if last < cut < len(data) else None), cut
        m = motion_file.groups["actual"]
        assert m.root_position is not None
        np.testing.assert_array_equal(m.root_position[:, 0], [0, 1, 2, 3])  # the dropped tail: not used


def test_a_controllers_error_stream_is_the_error_channel_also_when_recovered(tmp_path: Path) -> None:
    """controller_state's error is journaled as its own stream; every way out of the journal
    (the recorder's write, a snapshot, recover after a crash) makes it actual's ``error``."""
    from motion_formats_ros.recording.journal import ERROR_NAME, ERROR_STREAM

    out = tmp_path / "ctl.msgpack"
    j = JournalWriter(tmp_path / "ctl.journal", _meta(out, topics=["/arm/controller_state"]))
    t0 = 7_000_000_000
    for k in range(20):
        stamp = t0 + k * 10_000_000
        j.joints("/arm/controller_state", ["a", "b"], stamp, stamp, array.array("d", [k * 0.1, -k * 0.1]))
        j.joints(ERROR_STREAM + "/arm/controller_state", [ERROR_NAME + "b"], stamp, stamp, array.array("d", [k * 1e-3]))
    j.close(clean=False)  # a crash: only recover can write it
    path, motion_file, _ = recover(tmp_path / "ctl.journal")
    actual = read(path).group("actual")
    assert actual.joint_names == ("a", "b")  # no "error:b" joint mixed into the positions
    error = actual.joint_channels["error"]
    assert np.isnan(error[:, 0]).all()  # the controller reported no error for a
    np.testing.assert_allclose(error[:, 1], np.arange(20) * 1e-3)
    assert motion_file.start_time_ns == t0
