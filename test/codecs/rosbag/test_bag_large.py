"""Whole-motion JointTrajectory in bulk, big chunks read record by record, memory ≤ 2× arrays."""

from __future__ import annotations

import itertools
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import yaml
from mcap.reader import make_reader
from rosbags.highlevel import AnyReader
from support.bags import TS, T

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.codecs.rosbag.storage import BIG_CHUNK
from motion_formats_ros.codecs.rosbag.storage import bulk as _bulk

TRAJ = "trajectory_msgs/msg/JointTrajectory"


def _trajectory(frame: str, names: list[str], offsets: np.ndarray, channels: dict[str, np.ndarray]) -> bytes:
    points = [
        T["trajectory_msgs/msg/JointTrajectoryPoint"](
            **{f: channels[f][i] if f in channels else np.zeros(0) for f in _bulk.POINT_FIELDS},
            time_from_start=T["builtin_interfaces/msg/Duration"](
                sec=int(offsets[i] // 1_000_000_000), nanosec=int(offsets[i] % 1_000_000_000)
            ),
        )
        for i in range(offsets.size)
    ]
    header = T["std_msgs/msg/Header"](stamp=T["builtin_interfaces/msg/Time"](sec=3, nanosec=9), frame_id=frame)
    return bytes(TS.serialize_cdr(T[TRAJ](header=header, joint_names=names, points=points), TRAJ))


@pytest.mark.parametrize("joints", [1, 2, 7])
@pytest.mark.parametrize("frame", ["", "odd"])
def test_bag_large_trajectory_bulk_bytes_equal_rosbags(joints: int, frame: str) -> None:
    rng = np.random.default_rng(joints)
    names = [f"j{i}" * (i + 1) for i in range(joints)]  # names of varied lengths shift the alignment
    prefix = _trajectory(frame, names, np.zeros(0, np.int64), {})
    for n in (0, 1, 2, 5):
        offsets = np.sort(rng.integers(0, 4_000_000_000, size=n)).astype(np.int64)
        for present in itertools.product((False, True), repeat=4):
            channels = {f: rng.normal(size=(n, joints)) for f, p in zip(_bulk.POINT_FIELDS, present, strict=True) if p}
            got = _bulk.encode_trajectory(prefix, offsets, channels, joints)
            assert got == _trajectory(frame, names, offsets, channels), (n, present)


def _motion(n: int, joints: int, acceleration: bool) -> Motion:
    rng = np.random.default_rng(n)
    return Motion(
        times=np.arange(n) / 500.0,
        joint_names=tuple(f"joint_{i}" for i in range(joints)),
        position=rng.normal(size=(n, joints)),
        velocity=rng.normal(size=(n, joints)),
        acceleration=rng.normal(size=(n, joints)) if acceleration else None,
    )


def _payloads(path: Path) -> list[tuple[str, int, bytes]]:
    with AnyReader([path]) as reader:
        return [(c.topic, t, bytes(raw)) for c, t, raw in reader.messages()]


def test_bag_large_default_write_bulk_equals_rosbags_serializer(tmp_path: Path) -> None:
    mf = MotionFile.single(_motion(40, 3, acceleration=True))
    write(mf, tmp_path / "fast", format="rosbag", bulk=True, start_time=7.25)
    write(mf, tmp_path / "slow", format="rosbag", bulk=False, start_time=7.25)
    fast, slow = _payloads(tmp_path / "fast"), _payloads(tmp_path / "slow")
    assert [p[0] for p in fast].count("/joint_trajectory") == 1
    assert fast == slow


@pytest.mark.parametrize("acceleration", [False, True])
def test_bag_large_single_group_round_trip_with_and_without_acceleration(tmp_path: Path, acceleration: bool) -> None:
    m = _motion(25, 4, acceleration)
    write(MotionFile.single(m, group="actual"), tmp_path / "b", format="rosbag")
    back = read(tmp_path / "b")
    assert list(back.groups) == ["actual"]
    got = back.motion
    assert np.array_equal(got.position, m.position)
    if acceleration:  # only the JointTrajectory carries it: the reader must not skip it
        assert got.acceleration is not None and np.array_equal(got.acceleration, m.acceleration)
    else:
        assert got.acceleration is None
    explicit = read(tmp_path / "b", trajectory=["/joint_trajectory"]).motion
    assert np.array_equal(explicit.position, got.position)
    assert (explicit.acceleration is None) == (not acceleration)


def _rewritten_by_rosbags(src: Path, dest: Path) -> Path:
    """``src`` rewritten payload for payload by rosbags' Writer (whose chunks take a big message along)."""
    from rosbags.rosbag2 import StoragePlugin, Writer

    with AnyReader([src]) as reader, Writer(dest, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conns = {c.topic: writer.add_connection(c.topic, c.msgtype, typestore=TS) for c in reader.connections}
        for conn, t, raw in reader.messages():
            writer.write(conns[conn.topic], t, raw)
        info = yaml.safe_load((src / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
        for key, value in info["custom_data"].items():
            writer.set_custom_data(key, value)
    return dest


def test_bag_large_big_uncompressed_chunk_is_read_record_by_record(tmp_path: Path) -> None:
    n, joints = 12_000, 30  # the whole-motion JointTrajectory (≈ 6 MB) shares a chunk with joint states
    m = _motion(n, joints, acceleration=False)
    write(MotionFile.single(m, group="actual"), tmp_path / "ours", format="rosbag")
    bag = _rewritten_by_rosbags(tmp_path / "ours", tmp_path / "big")
    with open(next(bag.glob("*.mcap")), "rb") as fh:
        summary = make_reader(fh).get_summary()
    assert summary is not None
    big = [c for c in summary.chunk_indexes if c.uncompressed_size > BIG_CHUNK]
    assert big and all(c.compression == "" for c in big)
    assert all(len(c.message_index_offsets) > 1 for c in big)  # joint states live there too
    back = read(bag).motion
    assert back.num_frames == n
    assert np.array_equal(back.position, m.position) and np.array_equal(back.velocity, m.velocity)
    with_traj = read(bag, trajectory=["/joint_trajectory"]).motion  # the big message itself, found by the walk
    assert np.array_equal(with_traj.position, m.position)


def test_bag_large_big_message_gets_a_chunk_of_its_own(tmp_path: Path) -> None:
    n, joints = 12_000, 30
    m = _motion(n, joints, acceleration=False)
    bag = tmp_path / "ours"
    write(MotionFile.single(m, group="actual"), bag, format="rosbag")
    with open(next(bag.glob("*.mcap")), "rb") as fh:
        summary = make_reader(fh).get_summary()
    assert summary is not None
    channels = {cid: c.topic for cid, c in summary.channels.items()}
    big = [c for c in summary.chunk_indexes if c.uncompressed_size > BIG_CHUNK]
    assert len(big) == 1 and [channels[cid] for cid in big[0].message_index_offsets] == ["/joint_trajectory"]
    assert np.array_equal(read(bag, trajectory=["/joint_trajectory"]).motion.position, m.position)


@pytest.mark.parametrize("hold", [False, True])
def test_bag_large_memory_at_most_twice_the_arrays(tmp_path: Path, hold: bool) -> None:
    m = _motion(20_000, 30, acceleration=False)
    bag = tmp_path / "mem"
    write(MotionFile.single(m, group="actual"), bag, format="rosbag")
    tracemalloc.start()
    try:
        back = read(bag, progress=False, hold=hold).motion
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert back.position is not None and back.velocity is not None
    arrays = back.times.nbytes + back.position.nbytes + back.velocity.nbytes
    assert peak <= 2 * arrays, f"peak {peak / 1e6:.1f} MB for {arrays / 1e6:.1f} MB of arrays"
