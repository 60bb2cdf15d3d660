"""The player node as its own process on a real ROS 2 middleware, checked by a probe node."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.jtcsim import execute
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.core.examples import biped_urdf, biped_walk

pytestmark = [requires_ros, pytest.mark.ros]


def _stamp(msg_stamp) -> float:  # type: ignore[no-untyped-def]
    return msg_stamp.sec + msg_stamp.nanosec * 1e-9


def _relative(stamps) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Seconds since the first stamp, computed in integer nanoseconds (no float rounding)."""
    ns = np.array([s.sec * 1_000_000_000 + s.nanosec for s in stamps], dtype=np.int64)
    return (ns - ns[0]) / 1e9


@pytest.fixture
def walk(tmp_path: Path) -> tuple[Path, Motion]:
    f = biped_walk(rate=100.0, cycles=1, period=1.0)
    path = tmp_path / "walk.msgpack"
    write(f, path)
    return path, f.motion


def test_trajectory_stream_and_tf_match_the_file(tmp_path: Path, walk: tuple[Path, Motion]) -> None:
    from sensor_msgs.msg import JointState
    from tf2_msgs.msg import TFMessage
    from trajectory_msgs.msg import JointTrajectory

    path, motion = walk
    with ros_session(tmp_path) as ros:
        trajectories = ros.collect(JointTrajectory, "/arm_controller/joint_trajectory", 10)
        states = ros.collect(JointState, "/joint_states", 1000)
        tfs = ros.collect(TFMessage, "/tf", 1000)
        player = ros.start_player(
            f"file:={path}",
            "approach_time:=0.5",
            "wait_for_subscribers:=10.0",
            remap=("joint_trajectory:=/arm_controller/joint_trajectory",),
        )
        assert ros.spin_until(lambda: player.proc.poll() is not None, 30), player.output()
        ros.spin_for(0.2)
        assert player.proc.returncode == 0, player.output()

    assert len(trajectories) == 1
    traj = trajectories[0]
    assert tuple(traj.joint_names) == motion.joint_names
    assert _stamp(traj.header.stamp) == 0.0  # start on receipt
    assert (traj.points[0].time_from_start.sec, traj.points[0].time_from_start.nanosec) == (0, 500_000_000)
    # Fewer points than frames, and the controller's (cubic) interpolation of them is
    # within the default tolerance of every frame.
    assert len(traj.points) < motion.num_frames / 3 and len(traj.points[0].velocities) == 12
    assert motion.position is not None
    executed = execute([(0.0, traj)], np.round((motion.times + 0.5) * 1e9) / 1e9)
    assert np.abs(executed - motion.position).max() <= 1e-3 + 1e-12
    np.testing.assert_array_equal(traj.points[-1].velocities, np.zeros(12))
    assert "largest deviation" in player.output()

    # The stream covers the motion at its rate (100 Hz) with drift-free stamps.
    assert abs(len(states) - 101) <= 2, len(states)
    rel = _relative([s.header.stamp for s in states])
    np.testing.assert_allclose(np.diff(rel), 0.01, atol=1e-9)
    got = np.array([s.position for s in states])
    expected = motion.sample(motion.times[0] + rel).position
    np.testing.assert_allclose(got, expected, atol=1e-9)

    # TF gives the root pose at the same instants.
    roots = [t for m in tfs for t in m.transforms if t.child_frame_id == "base_link"]
    assert len(roots) == len(states)
    assert roots[0].header.frame_id == "world"
    assert motion.root_position is not None
    xyz = np.array([[t.transform.translation.x, t.transform.translation.y, t.transform.translation.z] for t in roots])
    np.testing.assert_allclose(xyz, motion.sample(motion.times[0] + rel).root_position, atol=1e-9)


def test_static_root_reaches_a_late_subscriber(tmp_path: Path) -> None:
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from tf2_msgs.msg import TFMessage

    m = Motion(
        times=np.arange(300) / 100,
        joint_names=("j",),
        position=np.zeros((300, 1)),
        root_position=np.tile([1.0, 2.0, 3.0], (300, 1)),
        root_orientation=np.tile([0, 0, 0, 1.0], (300, 1)),
    )
    path = tmp_path / "arm.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        ros.start_player(f"file:={path}", "mode:=stream", "root_frame:=arm_base", "frame_prefix:=r1/")
        ros.spin_for(1.5)  # the player has published /tf_static before we subscribe
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)
        static = ros.collect(TFMessage, "/tf_static", qos)
        assert ros.spin_until(lambda: bool(static), 10)
    t = static[0].transforms[0]
    assert (t.header.frame_id, t.child_frame_id) == ("world", "r1/arm_base")
    assert (t.transform.translation.x, t.transform.translation.y, t.transform.translation.z) == (1.0, 2.0, 3.0)


def _positions_over(ros, states, seconds: float):  # type: ignore[no-untyped-def]
    start = len(states)
    ros.spin_for(seconds)
    return np.array([s.position[0] for s in states[start:]])


def test_loop_pause_seek_and_rate(tmp_path: Path) -> None:
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger

    # A ramp: the position is the motion time, so what is played is easy to read.
    m = Motion(times=np.arange(101) / 100, joint_names=("ramp",), position=(np.arange(101) / 100)[:, None])
    path = tmp_path / "ramp.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/joint_states", 1000)
        player = ros.start_player(f"file:={path}", "mode:=stream", "loop:=true")
        assert ros.spin_until(lambda: len(states) > 10, 15), player.output()
        looped = _positions_over(ros, states, 1.5)
        assert np.any(np.diff(looped) < -0.5)  # wrapped around
        stamps = np.array([_stamp(s.header.stamp) for s in states])
        assert np.all(np.diff(stamps) > 0)  # stamps never go backwards when looping

        pause = ros.node.create_client(Trigger, "/motion_player/pause")
        resume = ros.node.create_client(Trigger, "/motion_player/resume")
        assert pause.wait_for_service(timeout_sec=5)
        future = pause.call_async(Trigger.Request())
        assert ros.spin_until(future.done, 5) and future.result().success
        ros.spin_for(0.1)  # let messages published before the pause arrive
        held = _positions_over(ros, states, 0.5)
        assert held.size > 20 and np.ptp(held) == 0.0

        # Seek while paused: the held value jumps to the new time.
        from rcl_interfaces.srv import SetParameters

        setp = ros.node.create_client(SetParameters, "/motion_player/set_parameters")
        assert setp.wait_for_service(timeout_sec=5)
        future = setp.call_async(SetParameters.Request(parameters=[Parameter("seek", value=0.25).to_parameter_msg()]))
        assert ros.spin_until(future.done, 5) and future.result().results[0].successful
        ros.spin_for(0.1)
        held = _positions_over(ros, states, 0.3)
        assert held[-1] == pytest.approx(0.25)

        future = setp.call_async(SetParameters.Request(parameters=[Parameter("rate", value=2.0).to_parameter_msg()]))
        assert ros.spin_until(future.done, 5) and future.result().results[0].successful
        future = resume.call_async(Trigger.Request())
        assert ros.spin_until(future.done, 5)
        fast = _positions_over(ros, states, 0.2)
        steps = np.diff(fast)
        steps = steps[steps > 0]
        assert np.median(steps) == pytest.approx(0.02, rel=0.05)  # 2x speed at 100 Hz


def test_limit_violation_is_refused(tmp_path: Path, walk: tuple[Path, Motion]) -> None:
    path, _ = walk
    urdf = biped_urdf().replace('name="left_knee" type="revolute"', 'name="left_knee" type="revolute"')
    urdf = urdf.replace('lower="0" upper="2.2"', 'lower="0" upper="0.8"', 1)
    (tmp_path / "tight.urdf").write_text(urdf)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={path}", f"urdf_file:={tmp_path / 'tight.urdf'}")
        code = player.wait(30)
        assert code == 1
        assert "refusing to play: joint 'left_knee' above its upper limit 0.8 at t = " in player.output()
        ok = ros.start_player(
            f"file:={path}",
            f"urdf_file:={tmp_path / 'tight.urdf'}",
            "ignore_limits:=true",
            "mode:=stream",
            "end_time:=0.1",
        )
        assert ok.wait(30) == 0, ok.output()
        assert "playing beyond the limits" in ok.output()


def test_bad_file_exits_nonzero_with_the_codec_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: omf\nversion: 1\nbasic: [oops\n")
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={bad}")
        assert player.wait(30) == 1
        assert f"{bad}:4: invalid YAML" in player.output()


def test_use_sim_time_follows_clock(tmp_path: Path) -> None:
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    # 20 s of motion: longer than the simulated time the loop below can ever run (10.6 s),
    # so playback is still going whenever the probe's first samples arrive.
    m = Motion(times=np.arange(2001) / 100, joint_names=("ramp",), position=(np.arange(2001) / 100)[:, None])
    path = tmp_path / "ramp.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/joint_states", 1000)
        clock_pub = ros.node.create_publisher(Clock, "/clock", 10)
        player = ros.start_player(f"file:={path}", "mode:=stream", "use_sim_time:=true")
        sim_ns = 100 * 10**9

        def tick(steps: int) -> None:
            nonlocal sim_ns
            for _ in range(steps):
                sim_ns += 10_000_000  # 10 ms of simulated time per 2 ms of wall time: 5x
                clock_pub.publish(Clock(clock=_time(sim_ns)))
                ros.spin_for(0.002)

        assert ros.spin_until(lambda: clock_pub.get_subscription_count() > 0, 10), player.output()
        for _ in range(100):  # the clock runs until the player is playing
            tick(10)
            if len(states) > 20:
                break
        assert len(states) > 20, player.output()
        # What the player sent for the clock's last ticks may still be on its way (a loaded
        # machine): let it arrive before counting.
        ros.spin_for(0.2)
        frozen = len(states)
        ros.spin_for(0.3)  # the clock stands still: so does playback
        assert len(states) - frozen <= 1
        tick(60)
        ros.spin_for(0.2)
    stamps = np.array([s.header.stamp.sec * 10**9 + s.header.stamp.nanosec for s in states], dtype=np.int64)
    assert stamps[0] >= 100 * 10**9 and stamps[-1] <= sim_ns  # stamps are simulated time
    assert np.all(np.diff(stamps) > 0)
    played = np.array([s.position[0] for s in states])
    np.testing.assert_allclose(played, (stamps - stamps[0]) / 1e9, atol=1e-9)  # ramp value = sim time played
    assert played[-1] > 0.5  # up to 1.2 s of sim time passed in ~0.25 s of wall time


def _time(ns: int):  # type: ignore[no-untyped-def]
    from builtin_interfaces.msg import Time

    return Time(sec=ns // 10**9, nanosec=ns % 10**9)


def test_publish_clock_drives_clock_from_the_motion(tmp_path: Path) -> None:
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    m = Motion(times=np.arange(51) / 50, joint_names=("a",), position=np.zeros((51, 1)))
    path = tmp_path / "m.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        clocks = ros.collect(Clock, "/clock", 1000)
        states = ros.collect(JointState, "/joint_states", 1000)
        player = ros.start_player(f"file:={path}", "mode:=stream", "publish_clock:=true", "rate:=2.0")
        assert ros.spin_until(lambda: player.proc.poll() is not None, 20), player.output()
        ros.spin_for(0.2)
    values = np.array([c.clock.sec + c.clock.nanosec * 1e-9 for c in clocks])
    assert len(values) == len(states) >= 20
    assert values[0] == 0.0 and np.all(np.diff(values) > 0)
    np.testing.assert_allclose(np.diff(values), 0.04, atol=1e-9)  # 50 Hz stream at 2x: 40 ms of motion per tick


def test_chunks_only_on_request_with_a_warning_and_link_frames(tmp_path: Path) -> None:
    from tf2_msgs.msg import TFMessage
    from trajectory_msgs.msg import JointTrajectory

    frames = 61  # 3 s at 20 Hz
    t = np.arange(frames) / 20
    links = {
        "position": np.stack([np.column_stack([t, 0 * t, 0 * t])] * 2, axis=1),
        "orientation": np.tile([0.0, 0.0, 0.0, 1.0], (frames, 2, 1)),
    }
    m = Motion(times=t, joint_names=("a",), position=np.sin(t)[:, None], link_names=("foot_l", "foot_r"), links=links)
    path = tmp_path / "long.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        received: list = []  # type: ignore[type-arg]
        clock = ros.node.get_clock()  # the chunks' stamps are ROS time: so are the receipt times
        ros.node.create_subscription(
            JointTrajectory, "/joint_trajectory", lambda m: received.append((clock.now().nanoseconds / 1e9, m)), 10
        )
        tf = ros.collect(TFMessage, "/tf", 1000)
        player = ros.start_player(
            f"file:={path}",
            "chunk_duration:=1.0",
            "approach_time:=0.5",
            "publish_links:=true",
            "frame_prefix:=r1/",
            "trajectory_interpolation:=linear",
            "trajectory_tolerance:=0.0",  # every frame a point: sin is curved everywhere
        )
        assert ros.spin_until(lambda: player.proc.poll() is not None, 30), player.output()
        ros.spin_for(0.2)
    assert player.proc.returncode == 0, player.output()
    chunks = [msg for _, msg in received]
    assert len(chunks) == 4  # 3.5 s of points in 1 s chunks
    assert "joint_trajectory_controller replaces its running trajectory with each new message" in player.output()
    stamps = {(c.header.stamp.sec, c.header.stamp.nanosec) for c in chunks}
    assert len(stamps) == 1 and (0, 0) not in stamps  # one absolute start so the controller splices them
    points = [p for c in chunks for p in c.points]
    times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in points])
    np.testing.assert_allclose(times, t + 0.5, atol=1e-9)  # every point once, in order
    np.testing.assert_allclose([p.positions[0] for p in points], np.sin(t), atol=1e-12)
    frames_seen = {tr.child_frame_id for msg in tf for tr in msg.transforms}
    assert {"r1/foot_l", "r1/foot_r"} <= frames_seen
    # Why chunks are opt-in: a controller that replaces its trajectory with each message
    # (joint_trajectory_controller) cuts the end of every chunk short.
    start = chunks[0].header.stamp.sec + chunks[0].header.stamp.nanosec * 1e-9
    executed = execute(received, start + t + 0.5)[:, 0]
    assert np.abs(executed - np.sin(t)).max() > 0.01  # ten times the default tolerance


def test_faster_replay_beyond_velocity_limits_is_refused_at_run_time(tmp_path: Path, walk: tuple[Path, Motion]) -> None:
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter

    path, _ = walk
    (tmp_path / "biped.urdf").write_text(biped_urdf())
    with ros_session(tmp_path) as ros:
        player = ros.start_player(
            f"file:={path}",
            f"urdf_file:={tmp_path / 'biped.urdf'}",
            "mode:=stream",
            "loop:=true",
            "wait_for_subscribers:=0.0",
        )
        setp = ros.node.create_client(SetParameters, "/motion_player/set_parameters")
        assert setp.wait_for_service(timeout_sec=10), player.output()

        def set_rate(value: float):  # type: ignore[no-untyped-def]
            future = setp.call_async(
                SetParameters.Request(parameters=[Parameter("rate", value=value).to_parameter_msg()])
            )
            assert ros.spin_until(future.done, 5)
            return future.result().results[0]

        too_fast = set_rate(3.0)  # the walk at 3x is far beyond the 6 rad/s the URDF allows
        assert not too_fast.successful and "faster than its velocity limit 6 rad/s" in too_fast.reason
        assert set_rate(1.2).successful  # 5.0 rad/s at most: allowed
