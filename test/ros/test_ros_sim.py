"""motion_sim as its own process on the real middleware.

Played into and recorded from; goals run, refused, canceled and replaced; a fall.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.robots import TWO_LINK_ARM as ARM
from support.rosutil import RosSession, requires_ros, ros_session, start_node

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_urdf, biped_walk
from motion_formats_ros.core.model import Motion, MotionFile

pytestmark = [requires_ros, pytest.mark.ros]
pytest.importorskip("mujoco")

HUNG = 120.0

CONTROLLER = "/joint_trajectory_controller"


def _sim(ros: RosSession, urdf: Path, *params: str) -> Any:
    return start_node(ros, "motion_sim", f"urdf_file:={urdf}", "kp:=400.0", "kd:=8.0", *params, name="sim")


def _client(ros: RosSession) -> Any:
    from control_msgs.action import FollowJointTrajectory
    from rclpy.action import ActionClient

    client = ActionClient(ros.node, FollowJointTrajectory, f"{CONTROLLER}/follow_joint_trajectory")
    assert ros.spin_until(client.server_is_ready, HUNG)
    return client


def _goal(names: list[str], points: list[tuple[float, list[float]]]) -> Any:
    from control_msgs.action import FollowJointTrajectory
    from trajectory_msgs.msg import JointTrajectoryPoint

    goal = FollowJointTrajectory.Goal()
    goal.trajectory.joint_names = names
    for t, q in points:
        p = JointTrajectoryPoint(positions=q)
        p.time_from_start.sec, p.time_from_start.nanosec = int(t), round((t % 1) * 1e9)
        goal.trajectory.points.append(p)
    return goal


def _send(ros: RosSession, client: Any, goal: Any) -> Any:
    future = client.send_goal_async(goal)
    assert ros.spin_until(future.done, 30)
    return future.result()


def _result(ros: RosSession, handle: Any, timeout: float = 30) -> Any:
    future = handle.get_result_async()
    assert ros.spin_until(future.done, timeout)
    return future.result()


@pytest.fixture
def arm(tmp_path: Path) -> Path:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM)
    return path


def test_play_into_the_simulated_robot_and_record_what_it_did(tmp_path: Path, arm: Path) -> None:
    t = np.arange(0, 2.01, 0.01)
    q = np.column_stack([0.4 * np.sin(np.pi * t), 0.6 * (1 - np.cos(np.pi * t))])
    planned = Motion(times=t, joint_names=("a", "b"), position=q, rate=100.0)
    motion = tmp_path / "swing.msgpack"
    write(MotionFile.single(planned, name="swing"), motion)
    out = tmp_path / "rec.msgpack"
    with ros_session(tmp_path) as ros:
        sim = _sim(ros, arm)
        recorder = start_node(ros, "motion_recorder", f"output:={out}", name="recorder")
        ros.spin_for(1.0)
        player = ros.start_player(
            f"file:={motion}", f"urdf_file:={arm}", f"controller:={CONTROLLER}", "mode:=trajectory",
            "approach_time:=0.5", "wait_for_server:=60.0",
        )  # fmt: skip
        assert player.wait(HUNG) == 0, player.output() + sim.output()
        assert "SUCCESSFUL" in player.output()
        ros.spin_for(0.5)  # the robot's last states reach the recorder; stopped then, however long it all took
        recorder.proc.send_signal(signal.SIGINT)
        assert recorder.wait(HUNG) == 0, recorder.output()
        assert sim.proc.poll() is None, sim.output()
    rec = read(out).motion
    assert rec.position is not None and rec.effort is not None and rec.velocity is not None
    assert rec.num_frames / (rec.times[-1] - rec.times[0]) >= 100.0  # /joint_states at >= 100 Hz
    cols = [rec.joint_names.index(n) for n in ("a", "b")]
    # The motion starts some time into the recording: the best alignment, then the error there.
    best = np.inf
    for offset in np.arange(0.0, rec.times[-1] - rec.times[0] - 2.0, 0.005):
        at = rec.times[0] + offset + t
        got = np.column_stack([np.interp(at, rec.times, rec.position[:, c]) for c in cols])
        best = min(best, float(np.abs(got - q).max()))
    print(f"recorded vs planned: largest error {best:.4f} rad")
    assert best < 0.05


def test_goals_are_refused_replaced_and_canceled_as_the_controller_does(tmp_path: Path, arm: Path) -> None:
    from action_msgs.msg import GoalStatus
    from control_msgs.action import FollowJointTrajectory
    from sensor_msgs.msg import JointState

    with ros_session(tmp_path) as ros:
        sim = _sim(ros, arm)
        states = ros.collect(JointState, "/joint_states")
        client = _client(ros)
        for bad in (
            _goal(["a", "c"], [(1.0, [0.1, 0.1])]),  # unknown joint
            _goal(["a"], [(1.0, [0.1])]),  # partial
            _goal(["a", "b"], [(1.0, [0.1, 0.1]), (0.5, [0.2, 0.2])]),  # time going back
            _goal(["a", "b"], []),  # no point
        ):
            assert not _send(ros, client, bad).accepted
        log = sim.output()
        assert "incoming joint c" in log and "not strictly increasing" in log and "empty trajectory" in log
        first = _send(ros, client, _goal(["a", "b"], [(3.0, [1.0, 1.0])]))
        assert first.accepted
        ros.spin_for(0.5)
        second = _send(ros, client, _goal(["a", "b"], [(1.0, [-0.3, 0.2])]))
        assert second.accepted
        replaced = _result(ros, first)
        assert replaced.status == GoalStatus.STATUS_CANCELED
        assert "new incoming action" in replaced.result.error_string
        done = _result(ros, second)
        assert done.status == GoalStatus.STATUS_SUCCEEDED, done.result.error_string
        assert done.result.error_code == FollowJointTrajectory.Result.SUCCESSFUL
        third = _send(ros, client, _goal(["a", "b"], [(2.0, [1.0, -1.0])]))
        ros.spin_for(0.8)
        cancel = third.cancel_goal_async()
        assert ros.spin_until(cancel.done, 10)
        assert _result(ros, third).status == GoalStatus.STATUS_CANCELED
        ros.spin_for(0.3)
        held = np.array(states[-1].position)
        ros.spin_for(1.0)
        after = np.array(states[-1].position)
        assert np.abs(after - held).max() < 0.02  # holds where it was
        assert -0.3 < held[0] < 1.0 and abs(held[0] - 1.0) > 0.1  # stopped on the way, not at the target


def test_a_fall_aborts_the_goal_and_says_when(tmp_path: Path) -> None:
    urdf = tmp_path / "biped.urdf"
    urdf.write_text(biped_urdf())
    walk = tmp_path / "walk.msgpack"
    write(biped_walk(), walk)  # the example walk, on servos too soft for it: the biped tips over
    from rosgraph_msgs.msg import Clock
    from std_msgs.msg import String
    from tf2_msgs.msg import TFMessage

    from motion_formats_ros.ros.scaffold import LATCHED_SUB_QOS

    with ros_session(tmp_path) as ros:
        clock = ros.collect(Clock, "/clock")
        tf = ros.collect(TFMessage, "/tf")
        description = ros.collect(String, "/robot_description", LATCHED_SUB_QOS)
        # Gains far below the default for its ankles (critically damped at 10 Hz for the body they carry: ~600).
        sim = start_node(
            ros, "motion_sim", f"urdf_file:={urdf}", "kp:=10.0", "kd:=0.2", "publish_clock:=true", name="sim"
        )
        # The clock heard before playing (a loaded machine may discover the publisher late).
        assert ros.spin_until(lambda: len(clock) >= 5, 60), sim.output()
        started = time.monotonic()
        player = ros.start_player(
            f"file:={walk}", f"urdf_file:={urdf}", f"controller:={CONTROLLER}", "mode:=trajectory",
            "approach_time:=0.5", "wait_for_server:=60.0",
        )  # fmt: skip
        assert player.wait(HUNG) == 1, player.output() + sim.output()
        assert time.monotonic() - started < 60
        ros.spin_for(0.3)
    # The simulated time on /clock, the floating base on /tf, the model on /robot_description.
    ticks = [c.clock.sec + c.clock.nanosec * 1e-9 for c in clock]
    assert len(ticks) >= 5 and ticks[0] > 0 and bool(np.all(np.diff(ticks) >= 0)) and ticks[-1] > ticks[0]
    base = [t for m in tf for t in m.transforms if t.child_frame_id == "base_link"]
    assert base and base[0].header.frame_id == "world"
    assert base[-1].transform.translation.z < 0.25  # it lies on the floor
    assert description and 'robot name="mfr_mini_biped"' in description[0].data
    out = player.output()
    assert "the robot fell at t = " in out, out + sim.output()
    line = next(x for x in out.splitlines() if "fell at" in x)
    print(line)
    assert "aborted" in line and ("tipped over" in line or "touched the floor" in line)


def test_physics_mujoco_cannot_go_on_with_aborts_the_goal_and_ends_the_node(tmp_path: Path, arm: Path) -> None:
    """A goal towards 2e10 rad: MuJoCo meets values it cannot integrate (and would start the robot
    again in its zero pose); the goal ends saying so, and the node exits 1 with the same line."""
    from action_msgs.msg import GoalStatus

    with ros_session(tmp_path) as ros:
        sim = _sim(ros, arm)
        client = _client(ros)
        handle = _send(ros, client, _goal(["a", "b"], [(1.0, [2e10, 0.0])]))
        assert handle.accepted
        # A client that asks for the result only after the goal ended (the status topic says so)
        # still gets it: the node does not end under it.
        assert ros.spin_until(lambda: handle.status == GoalStatus.STATUS_ABORTED, 30)
        ros.spin_for(0.5)
        done = _result(ros, handle)
        assert done.status == GoalStatus.STATUS_ABORTED, done.result.error_string
        assert done.result.error_string.startswith("the simulation cannot go on at t = "), done.result.error_string
        assert sim.wait(HUNG) == 1, sim.output()
    out = sim.output()
    assert "the simulation cannot go on at t = " in out and "became huge or not finite" in out, out
    assert "Nan, Inf" not in out and "WARNING" not in out, out


def test_the_player_leaves_joint_states_to_the_controlled_robot(tmp_path: Path, arm: Path) -> None:
    t = np.arange(0, 1.01, 0.01)
    q = np.column_stack([0.3 * np.sin(np.pi * t), 0.3 * np.sin(np.pi * t)])
    motion = tmp_path / "swing.msgpack"
    write(MotionFile.single(Motion(times=t, joint_names=("a", "b"), position=q, rate=100.0), name="s"), motion)
    with ros_session(tmp_path) as ros:
        sim = _sim(ros, arm)
        _client(ros)  # the simulated robot is up
        player = ros.start_player(
            f"file:={motion}", f"controller:={CONTROLLER}", "approach_time:=0.2", "wait_for_server:=60.0"
        )
        publishers: set[str] = set()
        while player.proc.poll() is None:
            publishers |= {i.node_name for i in ros.node.get_publishers_info_by_topic("/joint_states")}
            ros.spin_for(0.05)
        assert player.wait(HUNG) == 0, player.output()
        publishers.discard("_NODE_NAME_UNKNOWN_")  # a participant whose node names discovery has not brought yet
        assert publishers == {"motion_sim"}  # the player's stream stayed off
        assert "no JointState/TF stream" in player.output()
        # Asked to stream anyway, it says who else publishes there.
        # (4 s of stream: the watch has its whole 3 s to discover the other node, however loaded the machine)
        streaming = ros.start_player(f"file:={motion}", "mode:=stream", "wait_for_subscribers:=0", "rate:=0.25")
        assert streaming.wait(HUNG) == 0, streaming.output()
        said = streaming.output()
        # Named once discovery has brought the node's name (it comes after its endpoints: on a loaded
        # machine later than the watch's 3 s, and then the warning says so).
        assert "/motion_sim also publishes on /joint_states" in said or (
            "a node (its name not discovered yet) also publishes on /joint_states" in said
        ), said
        assert sim.proc.poll() is None
