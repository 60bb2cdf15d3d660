"""Playback state changed from every side at once while streaming at 500 Hz: time never goes back.

The player spins a multi-threaded executor; rate and seek changes (parameters) and pause /
resume (services) arrive concurrently from several clients while the stream runs in its
own thread. Header stamps must increase strictly, ``/clock`` (played time) must never go
back, and every streamed value must be a value of the motion.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import Motion, MotionFile, write

pytestmark = [requires_ros, pytest.mark.ros]


def test_concurrent_rate_seek_and_pause_while_streaming_at_500_hz(tmp_path: Path) -> None:
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger

    # A ramp: the position is the motion time.
    times = np.arange(1001) / 500.0
    m = Motion(times=times, joint_names=("ramp",), position=times[:, None])
    path = tmp_path / "ramp.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/joint_states", 10000)
        clocks = ros.collect(Clock, "/clock", 10000)
        player = ros.start_player(f"file:={path}", "mode:=stream", "loop:=true", "publish_clock:=true")
        assert ros.spin_until(lambda: len(states) > 50, 30), player.output()
        setters = [ros.node.create_client(SetParameters, "/motion_player/set_parameters") for _ in range(2)]
        pause = ros.node.create_client(Trigger, "/motion_player/pause")
        resume = ros.node.create_client(Trigger, "/motion_player/resume")
        for client in (*setters, pause, resume):
            assert client.wait_for_service(timeout_sec=10)
        rng = random.Random(4)
        pending = []
        for _ in range(150):  # about 1.5 s of changes, several in flight at any time
            for setter in setters:
                name, value = rng.choice((("rate", rng.choice((0.05, 0.5, 1.0, 2.0))), ("seek", rng.uniform(0, 2))))
                pending.append(
                    setter.call_async(
                        SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()])
                    )
                )
            pending.append(rng.choice((pause, resume)).call_async(Trigger.Request()))
            ros.spin_for(0.01)
        pending.append(resume.call_async(Trigger.Request()))
        assert ros.spin_until(lambda: all(f.done() for f in pending), 20)
        answered = [f.result() for f in pending]
        ros.spin_for(0.3)
        assert player.proc.poll() is None, player.output()
    assert all(getattr(r, "success", True) for r in answered)
    assert all(r.results[0].successful for r in answered if hasattr(r, "results"))
    stamps = np.array([s.header.stamp.sec * 10**9 + s.header.stamp.nanosec for s in states], dtype=np.int64)
    assert len(stamps) > 600  # the stream kept going at 500 Hz throughout
    assert np.all(np.diff(stamps) > 0), "JointState stamps went back"
    played = np.array([c.clock.sec * 10**9 + c.clock.nanosec for c in clocks], dtype=np.int64)
    assert np.all(np.diff(played) >= 0), "/clock went back"
    values = np.array([s.position[0] for s in states])
    assert np.all((values >= 0.0) & (values <= 2.0))
    assert len(np.unique(np.round(np.diff(values), 4))) > 3  # rates and seeks did change what was shown


def test_seek_and_pause_while_waiting_for_subscribers_take_effect_at_the_start(tmp_path: Path) -> None:
    from rcl_interfaces.srv import SetParameters
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState
    from std_srvs.srv import Trigger

    times = np.arange(501) / 100.0
    m = Motion(times=times, joint_names=("ramp",), position=times[:, None])
    path = tmp_path / "ramp.msgpack"
    write(MotionFile.single(m), path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/joint_states", 10000)
        # Waits for a second subscriber, which comes only once seek and pause are done (a
        # fixed wait would race the player's start-up on a loaded machine).
        player = ros.start_player(f"file:={path}", "mode:=stream", "wait_for_subscribers:=60.0", "min_subscribers:=2")
        setter = ros.node.create_client(SetParameters, "/motion_player/set_parameters")
        pause = ros.node.create_client(Trigger, "/motion_player/pause")
        resume = ros.node.create_client(Trigger, "/motion_player/resume")
        for client in (setter, pause, resume):
            assert client.wait_for_service(timeout_sec=10)
        seek = setter.call_async(SetParameters.Request(parameters=[Parameter("seek", value=3.0).to_parameter_msg()]))
        paused = pause.call_async(Trigger.Request())
        assert ros.spin_until(lambda: seek.done() and paused.done(), 5)
        ros.spin_for(0.2)
        assert not states, "played before the wait was over"
        ros.collect(JointState, "/joint_states", 10000)  # the second subscriber: the wait is over
        assert ros.spin_until(lambda: len(states) > 20, 10), player.output()
        held = np.array([s.position[0] for s in states])
        np.testing.assert_array_equal(held, 3.0)  # starts paused at the sought time
        resumed = resume.call_async(Trigger.Request())
        assert ros.spin_until(resumed.done, 5)
        count = len(states)
        ros.spin_for(0.3)
    moving = np.array([s.position[0] for s in states[count:]])
    assert moving[-1] > 3.2 and np.all(np.diff(moving) >= 0)  # resumed at once, from there
