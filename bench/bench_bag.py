"""Bag ↔ motion throughput against plain rosbags, measured in the same run.

100,000 sensor_msgs/JointState messages × 30 joints (position + velocity), MCAP storage
(and, for reading, also sqlite3 and zstd-chunked MCAP).

    ours  motion → bag     write_bag (bulk numpy encode + rosbags Writer), /joint_states only
    ours  motion → bag     the default write: also the whole motion as one JointTrajectory
    peer  serialize+write  rosbags: build message, serialize_cdr, Writer.write per frame
    ours  bag → motion     read_bag (rosbags index + chunk decompress, bulk numpy decode)
    peer  read+deserialize rosbags: AnyReader + deserialize per message into arrays
    peer  raw read         rosbags: AnyReader.messages without decoding (the floor)
    memory bag → motion    tracemalloc peak of read_bag (numpy allocations included) over
                           the nbytes of the motion's arrays (target ≤ 2×), for both bags

Run: ``.venv/bin/python bench/bench_bag.py [--messages N] [--joints J]``. Not a test.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
from benchutil import best

from motion_formats_ros import Motion, MotionFile
from motion_formats_ros.codecs import rosbag


def _motion(n: int, joints: int) -> Motion:
    rng = np.random.default_rng(1)
    return Motion(
        times=np.arange(n) / 1000.0,
        joint_names=tuple(f"joint_{i}" for i in range(joints)),
        position=rng.normal(size=(n, joints)),
        velocity=rng.normal(size=(n, joints)),
    )


def _rosbags_write(m: Motion, path: Path, storage: str = "mcap") -> None:
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore

    ts = get_typestore(Stores.ROS2_JAZZY)
    js, header, stamp = (
        ts.types[x] for x in ("sensor_msgs/msg/JointState", "std_msgs/msg/Header", "builtin_interfaces/msg/Time")
    )
    names = list(m.joint_names)
    empty = np.zeros(0)
    assert m.position is not None and m.velocity is not None
    plugin = StoragePlugin.SQLITE3 if storage == "sqlite3" else StoragePlugin.MCAP
    bag = Writer(path, version=9, storage_plugin=plugin)
    if storage == "mcap-zstd":
        bag.set_compression(CompressionMode.STORAGE, CompressionFormat.ZSTD)
    with bag as writer:
        conn = writer.add_connection("/joint_states", js.__msgtype__, typestore=ts)
        for i, t in enumerate(m.times.tolist()):
            ns = round(t * 1e9)
            sec, nsec = divmod(ns, 1_000_000_000)
            msg = js(
                header=header(stamp=stamp(sec=sec, nanosec=nsec), frame_id=""),
                name=names,
                position=m.position[i],
                velocity=m.velocity[i],
                effort=empty,
            )
            writer.write(conn, ns, ts.serialize_cdr(msg, js.__msgtype__))


#: The peer of the whole-command measurement: the rosbags loop as a script of its own.
PEER_SCRIPT = """
import sys
import numpy as np
from rosbags.highlevel import AnyReader
with AnyReader([__import__("pathlib").Path(sys.argv[1])]) as reader:
    conns = [c for c in reader.connections if c.topic == "/joint_states"]
    stamps, pos, vel = [], [], []
    for conn, _, raw in reader.messages(connections=conns):
        msg = reader.deserialize(raw, conn.msgtype)
        stamps.append(msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec)
        pos.append(msg.position)
        vel.append(msg.velocity)
    arrays = {"stamps": np.array(stamps), "position": np.array(pos), "velocity": np.array(vel)}
    np.savez(sys.argv[2], names=np.array(list(msg.name)), **arrays)
"""


def _rosbags_read(path: Path, decode: bool) -> int:
    """The rosbags loop: every message deserialized, stamps and arrays built like read() builds them."""
    from rosbags.highlevel import AnyReader

    count = 0
    with AnyReader([path]) as reader:
        stamps, pos, vel = [], [], []
        for conn, _, raw in reader.messages():
            if decode:
                msg = reader.deserialize(raw, conn.msgtype)
                s = msg.header.stamp  # type: ignore[attr-defined]
                stamps.append(s.sec * 1_000_000_000 + s.nanosec)
                pos.append(msg.position)  # type: ignore[attr-defined]
                vel.append(msg.velocity)  # type: ignore[attr-defined]
            count += 1
        if decode:
            np.array(stamps)
            np.array(pos)
            np.array(vel)
    return count


def _interleaved(ours: Callable[[], object], peer: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best of ``repeat`` runs of each, alternating (a shared machine's load hits both alike)."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        times[0].append(best(ours, 1))
        times[1].append(best(peer, 1))
    return min(times[0]), min(times[1])


def _storage_ratios(m: Motion, tmp: Path, repeat: int) -> None:
    """read() against the rosbags loop, per storage, and the whole command on the MCAP bag."""
    n = m.num_frames
    print(f"read() vs rosbags AnyReader + deserialize loop, {n} msgs, best of {repeat}:")
    for storage in ("sqlite3", "mcap", "mcap-zstd"):
        bag = tmp / f"peer-{storage}"
        _rosbags_write(m, bag, storage)
        ours, peer = _interleaved(
            lambda bag=bag: rosbag.read(bag, rosbag.ReadOptions(progress=False)),  # type: ignore[misc]
            lambda bag=bag: _rosbags_read(bag, decode=True),  # type: ignore[misc]
            repeat,
        )
        verdict = "met" if peer / ours >= 8 else "MISSED"
        print(
            f"  {storage:<10} ours {ours:6.3f} s  rosbags {peer:6.3f} s  ratio {peer / ours:5.1f}x"
            f"  target >= 8x: {verdict}"
        )
    bag = tmp / "peer-mcap"
    cli = [str(Path(sys.executable).with_name("motion-formats")), "bag2motion", str(bag)]
    ours, peer = _interleaved(
        lambda: subprocess.run([*cli, str(tmp / "out.omf.msgpack"), "--overwrite"], check=True, capture_output=True),
        lambda: subprocess.run(
            [sys.executable, "-c", PEER_SCRIPT, str(bag), str(tmp / "peer.npz")], check=True, capture_output=True
        ),
        repeat,
    )
    print(
        f"whole command (MCAP): motion-formats bag2motion {ours:6.3f} s  rosbags script {peer:6.3f} s  "
        f"ratio {peer / ours:4.1f}x"
    )


def _timed(fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    return time.perf_counter() - start


def _arrays_nbytes(m: Motion) -> int:
    arrays = [m.times] + [getattr(m, ch) for ch in ("position", "velocity", "acceleration", "effort")]
    return sum(a.nbytes for a in arrays if a is not None)


def _peak_read(path: Path) -> tuple[int, int]:
    """(tracemalloc peak of reading ``path``, nbytes of the motion's arrays)."""
    tracemalloc.start()
    try:
        mf = rosbag.read(path, rosbag.ReadOptions(progress=False))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, _arrays_nbytes(mf.motion)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--joints", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3, help="best of R runs for the per-storage ratios")
    parser.add_argument("--only-ratios", action="store_true", help="only the per-storage and whole-command ratios")
    args = parser.parse_args()
    n = args.messages
    m = _motion(n, args.joints)
    mf = MotionFile.single(m, group="actual")
    tmp = Path(tempfile.mkdtemp(prefix="bench_bag."))
    try:
        _storage_ratios(m, tmp, args.repeat)
        if args.only_ratios:
            return
        ours_bag = tmp / "ours"
        peer_bag = tmp / "peer"
        w_ours = _timed(lambda: rosbag.write(mf, ours_bag, rosbag.WriteOptions(trajectory_topic=None)))
        default_bag = tmp / "default"
        w_default = _timed(lambda: rosbag.write(mf, default_bag))
        w_peer = _timed(lambda: _rosbags_write(m, peer_bag))
        holder: dict[str, MotionFile] = {}
        r_ours = _timed(lambda: holder.setdefault("m", rosbag.read(peer_bag, rosbag.ReadOptions(progress=False))))
        r_peer = _timed(lambda: _rosbags_read(peer_bag, decode=True))
        r_raw = _timed(lambda: _rosbags_read(peer_bag, decode=False))
        r_default = _timed(lambda: holder.setdefault("d", rosbag.read(default_bag, rosbag.ReadOptions(progress=False))))
        back = holder["m"].motion
        assert np.array_equal(holder["d"].motion.position, m.position)
        holder.clear()
        memory = [(name, *_peak_read(bag)) for name, bag in (("rosbags-written", peer_bag), ("default", default_bag))]
        assert back.num_frames == n and back.position is not None
        assert np.array_equal(back.position, m.position)
        rows = [
            ("motion -> bag", "ours, /joint_states only", w_ours, 200_000),
            ("motion -> bag", "ours, default (+ /joint_trajectory)", w_default, 200_000),
            ("motion -> bag", "rosbags serialize_cdr + Writer", w_peer, None),
            ("bag -> motion", "ours (MCAP chunks raw + bulk decode)", r_ours, 300_000),
            ("bag -> motion", "ours, the default-written bag", r_default, 300_000),
            ("bag -> motion", "rosbags AnyReader + deserialize", r_peer, None),
            ("bag -> motion", "rosbags AnyReader raw read only", r_raw, None),
        ]
        print(f"{n} JointState messages x {args.joints} joints (position + velocity), MCAP")
        for what, who, secs, target in rows:
            rate = n / secs
            note = f"  target >= {target:,} msg/s: {'met' if rate >= target else 'MISSED'}" if target else ""
            print(f"{what:<14} {who:<38} {secs:7.3f} s {rate:>12,.0f} msg/s{note}")
        for name, peak, nbytes in memory:
            ratio = peak / nbytes
            verdict = "met" if ratio <= 2.0 else "MISSED"
            print(
                f"memory bag -> motion ({name} bag): peak {peak / 1e6:.1f} MB for {nbytes / 1e6:.1f} MB of arrays "
                f"= {ratio:.2f}x  target <= 2x: {verdict}"
            )
        print(f"ratio motion -> bag ours / rosbags: {w_peer / w_ours:.1f}x")
        print(f"ratio bag -> motion ours / rosbags: {r_peer / r_ours:.1f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
