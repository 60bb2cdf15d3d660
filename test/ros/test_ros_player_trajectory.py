"""The trajectory a real controller gets: one message however long, executed as the file says.

The controller here is test/jtcsim.py fed with what a probe node receives over DDS, at the
times it receives it: each new message replaces the running trajectory, as
joint_trajectory_controller does. What it would command at every frame time is compared
with the file (content, not 60 s of waiting).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import numpy as np
import pytest
from support.jtcsim import execute
from support.mof import generated_mof
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core.examples import smooth_motion
from motion_formats_ros.core.nonfinite import resolve

pytestmark = [requires_ros, pytest.mark.ros]


def _stamped(ros, msg_type, topic: str):  # type: ignore[no-untyped-def]
    """(receipt time, message) of everything arriving on ``topic``."""
    received: list = []  # type: ignore[type-arg]
    ros.node.create_subscription(msg_type, topic, lambda m: received.append((time.monotonic(), m)), 10)
    return received


def test_sixty_seconds_500_hz_30_joints_arrive_as_one_trajectory_the_controller_executes(tmp_path: Path) -> None:
    from trajectory_msgs.msg import JointTrajectory

    motion = smooth_motion(duration=60.0, rate=500.0, joints=30).motion
    path = tmp_path / "long.msgpack"
    write(MotionFile.single(motion), path)
    with ros_session(tmp_path) as ros:
        received = _stamped(ros, JointTrajectory, "/joint_trajectory")
        player = ros.start_player(f"file:={path}", "mode:=trajectory", "approach_time:=0.5")
        assert ros.spin_until(lambda: bool(received), 60), player.output()
        ros.spin_for(1.0)  # anything else that would come (it must not)
        player.proc.send_signal(signal.SIGINT)  # the player would stay up for the 60 s it runs
        assert player.wait(10) == 0, player.output()
    assert len(received) == 1
    start, msg = received[0]
    assert (msg.header.stamp.sec, msg.header.stamp.nanosec) == (0, 0)  # start on receipt
    assert 100 < len(msg.points) < 2000 and len(msg.points[0].velocities) == 30  # cubic, from 30001 frames
    # A controller that replaces its trajectory with each message executes the whole motion.
    frame_times = start + np.round((motion.times + 0.5) * 1e9) / 1e9
    executed = execute(received, frame_times)
    assert motion.position is not None
    assert np.abs(executed - motion.position).max() <= 1e-3 + 1e-12
    out = player.output()
    assert "trajectory: 30001 frames -> " in out and "tolerance 0.001, largest deviation" in out
    assert "Traceback" not in out and "[ERROR]" not in out


def test_joints_order_held_joints_and_leading_values_from_the_robot_state(tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState
    from trajectory_msgs.msg import JointTrajectory

    mof = generated_mof(tmp_path)
    motion = read(mof).motion  # the 22-column default joint map, as the player reads it
    with ros_session(tmp_path) as ros:
        received = _stamped(ros, JointTrajectory, "/joint_trajectory")
        state_pub = ros.node.create_publisher(JointState, "/robot_state", 10)
        state = JointState(name=["HeadYaw", "LShoulderPitch", "RHand", "HeadPitch"], position=[0.1, 0.2, 0.3, 0.4])
        timer = ros.node.create_timer(0.02, lambda: state_pub.publish(state))
        player = ros.start_player(
            f"file:={mof}",
            "mode:=trajectory",
            "approach_time:=0.5",
            "state_topic:=/robot_state",
            "joints:=[RHand, HeadPitch, HeadYaw, LShoulderPitch, RKneePitch]",
        )
        assert ros.spin_until(lambda: bool(received), 30), player.output()
        timer.cancel()
        player.proc.send_signal(signal.SIGTERM)
        assert player.wait(10) == 0, player.output()
    (_, msg), *_ = received
    assert list(msg.joint_names) == ["RHand", "HeadPitch", "HeadYaw", "LShoulderPitch", "RKneePitch"]
    positions = np.array([p.positions for p in msg.points])
    assert np.all(np.isfinite(positions))
    expected = resolve(motion, current={"HeadYaw": 0.1, "HeadPitch": 0.4}, joints=["HeadPitch", "HeadYaw"]).motion
    assert expected.position is not None
    np.testing.assert_allclose(positions[:, 0], 0.3)  # RHand: not in the 22-joint file, held
    np.testing.assert_allclose(positions[:, 3], 0.2)  # LShoulderPitch: never defined, asked for: held
    np.testing.assert_allclose(positions[:, 1:3], expected.position)  # leading `*` / `-` from the state
    np.testing.assert_allclose(positions[:2, 1:3], [[0.4, 0.1], [0.4, 0.1]])
    np.testing.assert_allclose(positions[:, 4], motion.position[:, motion.joint_names.index("RKneePitch")])
    out = player.output()
    assert "current state of 4 joints heard on /robot_state" in out
    assert "joint 'RHand' is not in the file: it holds its current position 0.3" in out


def test_a_joint_only_the_state_could_give_is_an_error_naming_it(tmp_path: Path) -> None:
    m = Motion(times=[0.0, 1.0], joint_names=("a",), position=[[0.0], [1.0]])
    path = tmp_path / "a.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={path}", "joints:=[a, gripper]", "wait_for_subscribers:=0.5")
        assert player.wait(30) == 1
    assert (
        "joint(s) 'gripper' not in the file" in player.output() and "nothing heard on /joint_states" in player.output()
    )
    assert "Traceback" not in player.output()
