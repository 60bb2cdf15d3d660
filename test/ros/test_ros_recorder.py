"""The recorder node across processes on real DDS: player → recorder, merging, signals, crashes."""

from __future__ import annotations

import random
import re
import signal
import time
from pathlib import Path

import numpy as np
import pytest
from support.rosutil import requires_ros, ros_session, start_node

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core.examples import biped_walk

pytestmark = [requires_ros, pytest.mark.ros]


def _ns(stamp) -> int:  # type: ignore[no-untyped-def]
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def _wait_subscribed(ros, topic: str, count: int = 1, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    assert ros.spin_until(lambda: ros.node.count_subscribers(topic) >= count, timeout), f"nobody on {topic}"


def _wait_matched(ros, publisher, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    """Until our publisher has matched the recorder (messages sent before that are lost)."""
    assert ros.spin_until(lambda: publisher.get_subscription_count() >= 1, timeout), publisher.topic_name


def _prime(ros, out: Path, sends, timeout: float = 20.0) -> int:  # type: ignore[no-untyped-def]
    """Send warm-up messages until a snapshot shows the recorder has them from every sender.

    Our side sees the match first; until the recorder's side has matched too, what we send
    is dropped. Returns how many frames the warm-up left in the recording.
    """
    from std_srvs.srv import Trigger

    snapshot = ros.node.create_client(Trigger, "/motion_recorder/snapshot")
    assert snapshot.wait_for_service(timeout_sec=timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for send in sends:
            send()
        ros.spin_for(0.05)
        future = snapshot.call_async(Trigger.Request())
        assert ros.spin_until(future.done, 10)
        if future.result().success:
            m = read(out).groups["actual"]
            assert m.position is not None
            if np.all(np.isfinite(m.position[-1])):  # every sender's joints have arrived
                return m.num_frames
    raise AssertionError("the recorder never received the warm-up messages")


def test_player_to_recorder_round_trip(tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState

    walk = biped_walk(rate=100.0, cycles=1, period=1.5)
    src = tmp_path / "walk.msgpack"
    write(walk, src)
    out = tmp_path / "recorded.msgpack"
    with ros_session(tmp_path) as ros:
        seen = ros.collect(JointState, "/joint_states", 1000)
        recorder = start_node(
            ros, "motion_recorder", f"output:={out}", "world_frame:=world", "root_frame:=base_link", name="recorder"
        )
        _wait_subscribed(ros, "/joint_states")
        # Two readers: the probe and the recorder (messages sent before a reader matched are lost).
        player = ros.start_player(f"file:={src}", "mode:=stream", "wait_for_subscribers:=10.0", "min_subscribers:=2")
        assert ros.spin_until(lambda: player.proc.poll() is not None, 30), player.output()
        ros.spin_for(1.0)  # the last samples reach the recorder (a loaded machine delivers late)
        recorder.proc.send_signal(signal.SIGINT)
        assert recorder.wait(30) == 0, recorder.output()
    # A stream that falls behind skips ticks (it plays in real time; a loaded machine may make it
    # late): the recorder must hold every frame that went out, however many that was.
    skipped = re.search(r"; (\d+) ticks skipped;", player.output())
    assert skipped, player.output()
    sent = 151 - int(skipped.group(1))
    assert "wrote" in recorder.output() and f"actual: {sent} frames" in recorder.output()
    assert not Path(str(out) + ".journal").exists()
    f = read(out)
    m = f.groups["actual"]
    assert m.num_frames == len(seen) == sent  # no frame lost
    stamps = np.array([_ns(s.header.stamp) for s in seen])
    # Times are relative to the first header stamp, kept in the file as start_time_ns.
    assert f.start_time_ns == stamps[0] and m.times[0] == 0.0
    assert np.abs(np.round(m.times * 1e9).astype(np.int64) + f.start_time_ns - stamps).max() <= 1
    reference = walk.motion.sample(walk.motion.times[0] + (stamps - stamps[0]) / 1e9)
    np.testing.assert_allclose(m.position, reference.position, atol=1e-12)
    np.testing.assert_allclose(m.root_position, reference.root_position, atol=1e-9)  # from /tf


def test_two_publishers_merge_into_one_motion(tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger

    out = tmp_path / "merged.yaml"
    with ros_session(tmp_path) as ros:
        recorder = start_node(
            ros, "motion_recorder", f"output:={out}", "topics:=[arm/joint_states,head/joint_states]", name="recorder"
        )
        arm = ros.node.create_publisher(JointState, "/arm/joint_states", 100)
        head = ros.node.create_publisher(JointState, "/head/joint_states", 100)
        _wait_matched(ros, arm)
        _wait_matched(ros, head)
        early = time.time_ns() - 10**9
        primed = _prime(
            ros,
            out,
            [
                lambda: arm.publish(_js(["shoulder", "elbow"], [-1.0, -1.0], early)),
                lambda: head.publish(_js(["pan"], [-1.0], early)),
            ],
        )
        base = time.time_ns()
        sent_arm = sent_head = 0
        for k in range(100):  # 1 s of 100 Hz arm, 30 Hz head
            t = base + k * 10_000_000
            msg = JointState(name=["shoulder", "elbow"], position=[k * 0.01, -k * 0.01])
            msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(t, 1_000_000_000)
            arm.publish(msg)
            sent_arm += 1
            if k % 10 in (0, 3, 6):
                h = JointState(name=["pan"], position=[k * 1.0])
                h.header.stamp.sec, h.header.stamp.nanosec = divmod(t + 1_000_000, 1_000_000_000)
                head.publish(h)
                sent_head += 1
            ros.spin_for(0.008)
        stop = ros.node.create_client(Trigger, "/motion_recorder/stop")
        assert stop.wait_for_service(timeout_sec=10)
        future = stop.call_async(Trigger.Request())
        assert ros.spin_until(future.done, 10)
        assert recorder.wait(30) == 0, recorder.output()
    f = read(out)
    m = f.groups["actual"]
    assert m.joint_names == ("shoulder", "elbow", "pan")
    assert m.num_frames == primed + sent_arm + sent_head  # every message is a frame (own stamps)
    assert f.start_time_ns is not None
    m = m.slice_time((base - f.start_time_ns) / 1e9 - 1e-3, None)
    pos = m.position
    assert pos is not None
    assert pos[0, 2] == -1.0  # the head's warm-up value, held until its first real message
    assert pos[-1, 2] == 96.0 and pos[-1, 0] == pytest.approx(0.99)  # last values held across streams
    np.testing.assert_allclose(np.unique(pos[:, 0]), np.arange(100) * 0.01, atol=1e-12)  # every arm value


def test_sigkill_then_recover_keeps_all_but_the_last_flush(tmp_path: Path) -> None:
    import subprocess
    import sys

    from sensor_msgs.msg import JointState

    frames = 400
    motion = Motion(times=np.arange(frames) / 100, joint_names=("ramp",), position=(np.arange(frames) / 100)[:, None])
    src = tmp_path / "ramp.msgpack"
    write(MotionFile.single(motion), src)
    out = tmp_path / "crash.seq"
    flush = 0.2
    with ros_session(tmp_path) as ros:
        seen = ros.collect(JointState, "/joint_states", 1000)
        recorder = start_node(
            ros, "motion_recorder", f"output:={out}", f"flush_interval:={flush}", "seq_version:=4", name="recorder"
        )
        _wait_subscribed(ros, "/joint_states")
        ros.start_player(f"file:={src}", "mode:=stream", "wait_for_subscribers:=10.0", "min_subscribers:=2")
        kill_after = random.uniform(1.0, 2.5)
        assert ros.spin_until(lambda: len(seen) > 0, 15)
        ros.spin_for(kill_after)
        recorder.proc.kill()
        killed_at = len(seen)
        recorder.wait(10)
    journal = Path(str(out) + ".journal")
    assert journal.exists() and not out.exists()
    cli = Path(sys.executable).parent / "motion-formats"
    proc = subprocess.run([str(cli), "recover", str(journal)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "cut short" in proc.stdout
    back = read(out, joint_names=["ramp"]).motion
    survived = back.num_frames
    # Everything up to the last flush survives: at most one flush interval is lost (plus what
    # was still in flight to the recorder when the probe had it: slack for a loaded machine).
    assert killed_at - (flush + 0.3) * 100 <= survived <= killed_at, (survived, killed_at)
    # what survived is what went out, in order, none missing (a late stream may have skipped ticks:
    # compare with what the probe received, not with every frame of the file)
    probe = np.array([s.position[0] for s in seen[:killed_at]])
    first = int(np.argmin(np.abs(probe - back.position[0, 0])))
    np.testing.assert_allclose(back.position[:, 0], probe[first : first + survived], atol=1e-8)
    assert "format_version: 4" in out.read_text()


def test_bad_parameters_fail_clearly(tmp_path: Path) -> None:
    with ros_session(tmp_path) as ros:
        unknown = start_node(ros, "motion_recorder", f"output:={tmp_path / 'log.bvh'}", name="recorder")
        missing = start_node(ros, "motion_recorder", f"output:={tmp_path / 'nope' / 'log.msgpack'}", name="recorder")
        mof = start_node(ros, "motion_recorder", f"output:={tmp_path / 'log.mof'}", name="recorder")
        assert unknown.wait(30) == 1 and "cannot record to this suffix" in unknown.output()
        assert missing.wait(30) == 1 and "does not exist" in missing.output()
        assert mof.wait(30) == 1 and "writes OMF (.msgpack, .yaml, .json) or .seq, not mof" in mof.output()


def test_snapshot_and_max_frames(tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger

    out = tmp_path / "snap.json"
    with ros_session(tmp_path) as ros:
        recorder = start_node(ros, "motion_recorder", f"output:={out}", "max_frames:=50", name="recorder")
        pub = ros.node.create_publisher(JointState, "/joint_states", 100)
        _wait_matched(ros, pub)
        primed = _prime(ros, out, [lambda: pub.publish(JointState(name=["a"], position=[-1.0]))])
        for k in range(20):
            pub.publish(JointState(name=["a"], position=[float(k)]))
            ros.spin_for(0.005)
        snapshot = ros.node.create_client(Trigger, "/motion_recorder/snapshot")
        assert snapshot.wait_for_service(timeout_sec=10)
        ros.spin_for(0.2)
        future = snapshot.call_async(Trigger.Request())
        assert ros.spin_until(future.done, 10) and future.result().success, future.result()
        assert read(out).groups["actual"].num_frames == primed + 20  # written without stopping
        for k in range(20, 80):
            pub.publish(JointState(name=["a"], position=[float(k)]))
            ros.spin_for(0.005)
        assert recorder.wait(30) == 0, recorder.output()
    assert "max_frames 50 reached" in recorder.output()
    m = read(out).groups["actual"]
    assert m.num_frames == 50  # receive-time stamps (headers are zero)
    assert m.position is not None
    np.testing.assert_array_equal(m.position[primed:, 0], np.arange(50.0 - primed))


def test_disk_full_during_recording_keeps_what_was_recorded(tmp_path: Path) -> None:
    import resource
    import subprocess
    import sys

    from sensor_msgs.msg import JointState

    out = tmp_path / "full.msgpack"
    limit = 64 * 1024  # the kernel refuses to let the journal grow past this (EFBIG): a full disk

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    from support.rosutil import BIN, Player

    with ros_session(tmp_path) as ros:
        log = tmp_path / "recorder.log"
        with open(log, "w") as fh:
            proc = subprocess.Popen(
                [str(BIN / "motion_recorder"), "--ros-args", "-p", f"output:={out}", "-p", "flush_interval:=0.05"],
                env=ros.env,
                stdout=fh,
                stderr=subprocess.STDOUT,
                preexec_fn=small_disk,
            )
        recorder = Player(proc, log)
        ros.players.append(recorder)
        pub = ros.node.create_publisher(JointState, "/joint_states", 1000)
        _wait_matched(ros, pub)
        names = [f"j{i}" for i in range(30)]
        sent = 0
        while recorder.proc.poll() is None and sent < 2000:
            pub.publish(JointState(name=names, position=[float(sent)] * 30))
            sent += 1
            ros.spin_for(0.001)
        assert recorder.wait(30) == 1
    assert "recording stopped" in recorder.output() and "motion-formats recover" in recorder.output()
    journal = Path(str(out) + ".journal")
    assert journal.stat().st_size <= limit and not out.exists()
    cli = Path(sys.executable).parent / "motion-formats"
    proc = subprocess.run([str(cli), "recover", str(journal)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    m = read(out).groups["actual"]
    assert m.num_frames > 100  # what reached the disk before it was full
    assert m.position is not None
    # Consecutive messages from the first one the recorder got (earlier ones: before it matched us).
    np.testing.assert_array_equal(m.position[:, 0], m.position[0, 0] + np.arange(m.num_frames, dtype=float))


def _js(names: list[str], values: list[float], stamp_ns: int):  # type: ignore[no-untyped-def]
    from sensor_msgs.msg import JointState

    msg = JointState(name=names, position=values)
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(stamp_ns, 1_000_000_000)
    return msg


def test_duration_limit_ends_the_recording(tmp_path: Path) -> None:
    out = tmp_path / "short.msgpack"
    with ros_session(tmp_path) as ros:
        start = time.monotonic()
        recorder = start_node(ros, "motion_recorder", f"output:={out}", "duration:=0.5", name="recorder")
        assert recorder.wait(30) == 0, recorder.output()
        assert time.monotonic() - start < 15
    assert "duration 0.5 s reached" in recorder.output()
    assert "nothing was recorded" in recorder.output() and not out.exists()
    assert not Path(str(out) + ".journal").exists()


def test_a_joint_renamed_mid_run_is_named_and_out_of_order_stamps_reported(tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger

    out = tmp_path / "renamed.msgpack"
    with ros_session(tmp_path) as ros:
        recorder = start_node(ros, "motion_recorder", f"output:={out}", "topics:=[joint_states]", name="recorder")
        pub = ros.node.create_publisher(JointState, "/joint_states", 100)
        _wait_matched(ros, pub)
        early = time.time_ns() - 10**9
        primed = _prime(ros, out, [lambda: pub.publish(_js(["a", "b"], [-1.0, -1.0], early))])
        base = time.time_ns()
        for k in range(40):  # the publisher calls joint b "b2" from message 20 on; message 30 is late
            names = ["a", "b"] if k < 20 else ["a", "b2"]
            stamp = base + (k * 10_000_000 if k != 30 else 155_000_000)
            pub.publish(_js(names, [k * 0.1, k * 1.0], stamp))
            ros.spin_for(0.005)
        stop = ros.node.create_client(Trigger, "/motion_recorder/stop")
        assert stop.wait_for_service(timeout_sec=10)
        future = stop.call_async(Trigger.Request())
        assert ros.spin_until(future.done, 10)
        assert recorder.wait(30) == 0, recorder.output()
        log = recorder.output()
    m = read(out).groups["actual"]
    assert m.joint_names == ("a", "b", "b2")
    assert m.num_frames == primed + 40
    assert "joint_states: joint 'b' is missing from frame" in log and "its last value is held" in log, log
    assert "1 of" in log and "samples are stamped before an earlier one" in log, log


def _trajectory(names: list[str], offsets_ns: list[int]):  # type: ignore[no-untyped-def]
    from builtin_interfaces.msg import Duration
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

    points = [
        JointTrajectoryPoint(positions=[0.1 * k] * len(names), time_from_start=Duration(sec=0, nanosec=offset))
        for k, offset in enumerate(offsets_ns)
    ]
    return JointTrajectory(joint_names=names, points=points)


def test_a_trajectory_the_journal_cannot_hold_is_skipped_with_a_warning(tmp_path: Path) -> None:
    """A trajectory naming a joint twice, or whose points go back in time, is not journaled
    (recovery would refuse the journal from it on): a warning says so, the rest is recorded."""
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger
    from trajectory_msgs.msg import JointTrajectory

    out = tmp_path / "commanded.msgpack"
    with ros_session(tmp_path) as ros:
        args = (f"output:={out}", "topics:=[joint_states]", "target_topic:=command")
        recorder = start_node(ros, "motion_recorder", *args, name="recorder")
        states = ros.node.create_publisher(JointState, "/joint_states", 100)
        command = ros.node.create_publisher(JointTrajectory, "/command", 100)
        _wait_matched(ros, states)
        _wait_matched(ros, command)
        _prime(ros, out, [lambda: states.publish(_js(["a", "b"], [0.0, 0.0], time.time_ns()))])
        snapshot = ros.node.create_client(Trigger, "/motion_recorder/snapshot")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # until the recorder's side has matched the command publisher
            command.publish(_trajectory(["a", "a"], [0, 10_000_000]))
            command.publish(_trajectory(["a", "b"], [0, 10_000_000, 10_000_000]))
            command.publish(_trajectory(["a", "b"], [0, 10_000_000]))
            ros.spin_for(0.05)
            future = snapshot.call_async(Trigger.Request())
            assert ros.spin_until(future.done, 10)
            if future.result().success and "target" in read(out).groups:
                break
        stop = ros.node.create_client(Trigger, "/motion_recorder/stop")
        assert stop.wait_for_service(timeout_sec=10)
        future = stop.call_async(Trigger.Request())
        assert ros.spin_until(future.done, 10)
        assert recorder.wait(30) == 0, recorder.output()
        log = recorder.output()
    assert "trajectory message skipped: a joint is named twice" in log, log  # (then throttled: one line)
    # Written from the journal: neither bad trajectory was journaled, or it would be refused.
    assert read(out).groups["target"].joint_names == ("a", "b")
