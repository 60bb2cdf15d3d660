"""The recorder's time convention and snapshots, on real DDS with publishers in separate processes.

Files written from ROS data have relative times (first sample at 0) and the absolute
start in ``start_time_ns``: ``convert --start/--end`` work on a recording as on any file
and ``motion2bag`` restores the original stamps. ``~/snapshot`` writes on another thread
than the one taking samples: a 1 kHz, 50-joint stream loses nothing and is not held up.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from support.rosutil import BIN, requires_ros, ros_session, start_node
from test_ros_recorder_tf import start_scene

from motion_formats_ros import read

pytestmark = [requires_ros, pytest.mark.ros]

#: Seconds after which a wait counts as hung. Not a budget: each wait ends at its event.
HUNG = 300.0


def _cli(*args: str) -> str:
    proc = subprocess.run([str(BIN / "motion-formats"), *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _bag_stamps(bag: Path) -> tuple[np.ndarray, np.ndarray]:
    """Header stamps and bag (log) times of the JointState messages, read with rosbags."""
    from rosbags.highlevel import AnyReader

    headers, logs = [], []
    with AnyReader([bag]) as reader:
        conns = [c for c in reader.connections if c.topic == "/joint_states"]
        for conn, t, raw in reader.messages(connections=conns):
            msg = reader.deserialize(raw, conn.msgtype)
            headers.append(msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec)
            logs.append(t)
    return np.array(headers, dtype=np.int64), np.array(logs, dtype=np.int64)


def test_recording_has_relative_times_convert_cuts_them_motion2bag_restores_stamps(tmp_path: Path) -> None:
    out = tmp_path / "rec.msgpack"
    with ros_session(tmp_path) as ros:
        recorder = start_node(ros, "motion_recorder", f"output:={out}", name="recorder")
        base = time.time_ns() // 1_000_000 * 1_000_000 + 123_456  # not on a round second
        pub = start_scene(ros, "joints", str(base), "2.0", "100", "5", subscribers=1)
        assert pub.wait(30) == 0, pub.output()
        time.sleep(0.3)
        recorder.proc.send_signal(signal.SIGINT)
        assert recorder.wait(30) == 0, recorder.output()
    stamps = base + np.arange(200, dtype=np.int64) * 10_000_000  # 2 s at 100 Hz
    rec = read(out)
    m = rec.groups["actual"]
    assert rec.start_time_ns == stamps[0]
    np.testing.assert_array_equal(np.round(m.times * 1e9).astype(np.int64), stamps - stamps[0])
    assert m.position is not None
    np.testing.assert_array_equal(m.position[:, 0], np.arange(200))

    # convert --start/--end: relative seconds, exactly the frames recorded in [0.5, 1.5] s.
    cut = tmp_path / "cut.msgpack"
    _cli("convert", str(out), str(cut), "--start", "0.5", "--end", "1.5")
    c = read(cut)
    cm = c.groups["actual"]
    assert cm.position is not None
    np.testing.assert_array_equal(cm.position[:, 0], np.arange(50, 151))
    np.testing.assert_array_equal(cm.times, m.times[50:151])
    assert c.start_time_ns == rec.start_time_ns  # the cut keeps the recording's clock

    # motion2bag restores the original header stamps and bag times (no --start-time).
    for source, rows in ((out, slice(0, 200)), (cut, slice(50, 151))):
        bag = tmp_path / f"{source.stem}_bag"
        _cli("motion2bag", str(source), str(bag))
        headers, logs = _bag_stamps(bag)
        np.testing.assert_array_equal(headers, stamps[rows])
        np.testing.assert_array_equal(logs, stamps[rows])
        back = read(bag)  # and the bag reads back on the same clock: absolute = start_time_ns + time
        assert back.start_time_ns == rec.start_time_ns
        np.testing.assert_array_equal(back.groups["actual"].times, m.times[rows])


def test_snapshot_of_a_large_recording_loses_and_delays_no_sample(tmp_path: Path) -> None:
    """A 1 kHz, 50-joint stream; snapshots are written while it runs.

    The recorder takes receive times (``stamps:=receive``); the publisher puts each
    message's send time in ``position[1]``. A snapshot written on the thread that takes
    samples would hold every sample arriving meanwhile until the write is over (the
    snapshot file's modification time): none would be received before it. Every wait is
    for an event (the service, a burst's first message, each answer, each exit), never a
    time sized for a quiet machine: each snapshot is asked for while a burst of samples is
    being sent, however long it takes.
    """
    from std_srvs.srv import Trigger

    out = tmp_path / "big.yaml"  # OMF YAML: the slowest writer, a long snapshot
    rate, seconds, joints = 1000, 3.0, 50  # a burst fits the recorder's queue, whatever its lag
    with ros_session(tmp_path) as ros:
        recorder = start_node(ros, "motion_recorder", f"output:={out}", "stamps:=receive", name="recorder")
        snapshot = ros.node.create_client(Trigger, "/motion_recorder/snapshot")
        assert snapshot.wait_for_service(timeout_sec=HUNG)
        base = time.time_ns()
        windows = []
        for _ in range(2):  # one burst per snapshot, the snapshot asked for while it is sent
            pub = start_scene(ros, "joints", str(base), str(seconds), str(rate), str(joints), subscribers=1)
            assert ros.spin_until(lambda p=pub: "publishing" in p.output(), HUNG), pub.output()
            ros.spin_for(0.3)  # a recording to write
            started = time.time_ns()
            future = snapshot.call_async(Trigger.Request())
            assert ros.spin_until(future.done, HUNG) and future.result().success, future.result()
            windows.append((started, out.stat().st_mtime_ns))  # asked for, written
            assert pub.wait(HUNG) == 0, pub.output()
        time.sleep(0.3)
        recorder.proc.send_signal(signal.SIGINT)
        assert recorder.wait(HUNG) == 0, recorder.output()
    f = read(out)
    m = f.groups["actual"]
    assert m.position is not None and f.start_time_ns is not None
    count = int(rate * seconds)
    # No sample lost: each burst's indices, twice.
    np.testing.assert_array_equal(np.sort(m.position[:, 0]), np.repeat(np.arange(count), 2))
    received = f.start_time_ns + np.round(m.times * 1e9).astype(np.int64)
    sent = base + np.round(m.position[:, 1] * 1e9).astype(np.int64)
    for started, written in windows:
        during = (sent >= started) & (sent <= written)  # sent while the snapshot was written
        taken = during & (received <= written)  # … and taken before it was done
        print(
            f"snapshot written {(written - started) / 1e9:.3f} s after it was asked for; meanwhile "
            f"{int(during.sum())} samples sent, {int(taken.sum())} of them taken before it was done"
        )
        assert during.sum() > 0, "no sample was sent while the snapshot was written"
        assert taken.sum() >= 0.5 * during.sum()  # a thread held by the write would take none
