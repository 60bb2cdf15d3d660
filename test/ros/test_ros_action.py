"""The player as a FollowJointTrajectory action client, against a stand-in controller over real DDS.

The stand-in (test/fjtserver.py) is its own process and validates goals the way
joint_trajectory_controller does; the player is another process (``controller:=/arm``).
What the server received, when it was asked to cancel and how each goal ended is read
from the JSON lines it records.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.jtcsim import Controller
from support.rosutil import Player, RosSession, requires_ros, ros_session

from motion_formats_ros import MotionFile, write
from motion_formats_ros.core.examples import smooth_motion

pytestmark = [requires_ros, pytest.mark.ros]
HERE = Path(__file__).resolve().parent
JOINTS = ["joint_01", "joint_02", "joint_03"]
BAD = ("Traceback", "[ERROR]", "RCLError", "Failed to publish", "error:")
APPROACH = 0.2


def _motion(tmp_path: Path, duration: float = 1.0) -> tuple[Path, Any]:
    motion = smooth_motion(duration=duration, rate=100.0, joints=3).motion
    path = tmp_path / "smooth.msgpack"
    write(MotionFile.single(motion), path)
    return path, motion


def start_server(ros: RosSession, *params: str, name: str = "arm") -> tuple[Player, Path]:
    """The stand-in controller as its own process; returns it and its record file."""
    record = ros.tmp / f"{name}.jsonl"
    args = [sys.executable, str(HERE.parent / "support" / "fjtserver.py"), "--ros-args", "-r", f"__node:={name}"]
    for p in (f"joints:={json.dumps(JOINTS)}", f"record:={record}", *params):
        args += ["-p", p]
    log = ros.tmp / f"{name}-server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(args, env=ros.env, stdout=out, stderr=subprocess.STDOUT, text=True)
    server = Player(proc, log)
    ros.players.append(server)
    deadline = time.monotonic() + 20
    while "ready" not in server.output():
        assert proc.poll() is None and time.monotonic() < deadline, server.output()
        time.sleep(0.05)
    return server, record


def events(record: Path, kind: str | None = None) -> list[dict[str, Any]]:
    if not record.exists():
        return []
    rows = [json.loads(line) for line in record.read_text().splitlines() if line.strip()]
    return [r for r in rows if kind is None or r["event"] == kind]


def play(ros: RosSession, path: Path, *params: str) -> Player:
    return ros.start_player(
        f"file:={path}", "mode:=trajectory", "controller:=/arm", f"approach_time:={APPROACH}", *params
    )


def executed(goal: dict[str, Any], times: np.ndarray) -> np.ndarray:
    """Positions the controller commands at ``times`` (s from the goal's start), by its rules."""
    points = [(t, np.array(p), None if v is None else np.array(v), None) for t, p, v in goal["points"]]
    jtc = Controller(goal["joint_names"], points[0][1])
    jtc.receive(0, goal["joint_names"], points, at=0.0)
    return jtc.positions(times)


def test_success_exits_0_and_the_goal_reproduces_the_file(tmp_path: Path) -> None:
    path, motion = _motion(tmp_path)
    with ros_session(tmp_path) as ros:
        _, record = start_server(ros)
        player = play(
            ros, path, "path_tolerance:=0.5", "goal_tolerance:='{joint_01: 0.01}'", "goal_time_tolerance:=0.25"
        )
        assert player.wait(30) == 0, player.output()
    out = player.output()
    for bad in BAD:
        assert bad not in out, out
    assert "/arm/follow_joint_trajectory accepted goal 1" in out
    assert "goal 1 succeeded, result SUCCESSFUL" in out
    assert "canceled" not in out  # nothing was running any more when the player ended
    goals = events(record, "goal")
    assert len(goals) == 1 and len(events(record, "succeeded")) == 1
    goal = goals[0]
    assert goal["joint_names"] == JOINTS and goal["stamp_ns"] == 0
    assert [t[0] for t in goal["path_tolerance"]] == JOINTS and {t[1] for t in goal["path_tolerance"]} == {0.5}
    assert goal["goal_tolerance"] == [["joint_01", 0.01]] and goal["goal_time_tolerance"] == 0.25
    # The controller's interpolation of what it received is within trajectory_tolerance of every frame.
    commanded = executed(goal, APPROACH + motion.times - motion.times[0])
    assert np.abs(commanded - motion.position).max() <= 1e-3 + 1e-12


def test_rejected_goal_exits_1_and_says_why(tmp_path: Path) -> None:
    path, _ = _motion(tmp_path, 0.5)
    with ros_session(tmp_path) as ros:
        # A controller of two of the three joints: joint_03 is not one of its joints.
        _, record = start_server(ros, 'joints:=["joint_01", "joint_02"]')
        player = play(ros, path)
        assert player.wait(30) == 1, player.output()
    out = player.output()
    assert "/arm/follow_joint_trajectory rejected the goal" in out
    assert "joints the controller does not have: joint_03" in out
    assert "Traceback" not in out
    assert events(record, "rejected")[0]["reason"].startswith("joints not configured")


def test_invalid_goal_aborted_by_the_server_is_reported_in_words(tmp_path: Path) -> None:
    path, _ = _motion(tmp_path, 0.5)
    with ros_session(tmp_path) as ros:
        start_server(ros, 'joints:=["joint_01", "joint_02"]', "invalid:=abort")
        player = play(ros, path)
        assert player.wait(30) == 1, player.output()
    out = player.output()
    assert "goal 1 aborted, result INVALID_JOINTS: joints not configured or repeated: joint_03" in out


def test_no_server_is_one_clear_error(tmp_path: Path) -> None:
    path, _ = _motion(tmp_path, 0.5)
    with ros_session(tmp_path) as ros:
        started = time.monotonic()
        player = play(ros, path, "wait_for_server:=1.0")
        assert player.wait(30) == 1, player.output()
        took = time.monotonic() - started
    out = player.output()
    assert "no FollowJointTrajectory action server at /arm/follow_joint_trajectory after 1 s" in out
    assert "Traceback" not in out and "RCLError" not in out
    assert took < 10


@pytest.mark.parametrize("sig", [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")])
def test_signal_cancels_the_running_goal_and_exits_cleanly(tmp_path: Path, sig: int) -> None:
    path, _ = _motion(tmp_path, 10.0)
    with ros_session(tmp_path) as ros:
        _, record = start_server(ros)
        player = play(ros, path)
        deadline = time.monotonic() + 30
        while not events(record, "accepted"):
            assert time.monotonic() < deadline and player.proc.poll() is None, player.output()
            time.sleep(0.05)
        time.sleep(0.5)  # executing
        sent = time.monotonic()
        player.proc.send_signal(sig)
        assert player.wait(10) == 0, player.output()
        took = time.monotonic() - sent
        exited = time.time()
        deadline = time.monotonic() + 5
        while not events(record, "canceled") and time.monotonic() < deadline:
            time.sleep(0.05)
    out = player.output()
    assert took < 2.0, (took, out)
    for bad in BAD:
        assert bad not in out, out
    cancel = events(record, "cancel_requested")
    assert len(cancel) == 1 and cancel[0]["time"] < exited  # the server has it before the player is gone
    assert events(record, "canceled") and not events(record, "succeeded")
    assert "goal 1 canceled (the server acknowledged)" in out


@pytest.mark.parametrize(
    ("violate", "words"),
    [
        ("path", "result PATH_TOLERANCE_VIOLATED: path tolerance violated: joint joint_01"),
        ("goal", "result GOAL_TOLERANCE_VIOLATED: goal tolerance violated: joint joint_01"),
    ],
)
def test_tolerance_violation_exits_1_in_words(tmp_path: Path, violate: str, words: str) -> None:
    path, _ = _motion(tmp_path, 0.6)
    with ros_session(tmp_path) as ros:
        _, record = start_server(ros, f"violate:={violate}", "goal_time:=0.2")
        player = play(ros, path, "path_tolerance:=0.1", "goal_tolerance:=0.05")
        assert player.wait(30) == 1, player.output()
    out = player.output()
    assert f"goal 1 aborted, {words}" in out, out
    assert "Traceback" not in out
    assert events(record, "aborted")[0]["code"] == (-4 if violate == "path" else -5)


def test_loop_sends_a_new_goal_after_each_success(tmp_path: Path) -> None:
    path, _ = _motion(tmp_path, 0.4)
    with ros_session(tmp_path) as ros:
        _, record = start_server(ros)
        player = play(ros, path, "loop:=true")
        deadline = time.monotonic() + 30
        while len(events(record, "succeeded")) < 2:
            assert time.monotonic() < deadline and player.proc.poll() is None, player.output()
            time.sleep(0.05)
        player.proc.send_signal(signal.SIGINT)
        assert player.wait(10) == 0, player.output()
    goals = events(record, "goal")
    done = events(record, "succeeded")
    assert len(goals) >= 2
    # Each goal is sent once the one before has succeeded, with the same points.
    assert goals[1]["time"] >= done[0]["time"] and goals[1]["points"] == goals[0]["points"]
    out = player.output()
    assert "sending goal 2 to /arm/follow_joint_trajectory" in out and "goal 1 succeeded" in out


def test_bad_tolerance_parameter_is_refused_at_start(tmp_path: Path) -> None:
    path, _ = _motion(tmp_path, 0.5)
    with ros_session(tmp_path) as ros:
        player = play(ros, path, "goal_tolerance:='{joint_01: fast}'")
        assert player.wait(30) == 1, player.output()
    assert "goal_tolerance (joint 'joint_01'): expected a number > 0" in player.output()


def test_recorder_records_the_controllers_reference_feedback_and_error(tmp_path: Path) -> None:
    from support.rosutil import start_node

    from motion_formats_ros import read

    path, motion = _motion(tmp_path, 1.0)
    out = tmp_path / "controller.msgpack"
    with ros_session(tmp_path) as ros:
        # The "measured" joint_01 lags 0.3 rad from 30 % of the motion on (no path tolerance set).
        server, _ = start_server(ros, "violate:=path", "violation:=0.3")
        recorder = start_node(
            ros,
            "motion_recorder",
            f"output:={out}",
            "topics:=['']",
            "controller_state_topic:=/arm/controller_state",
            "flush_interval:=0.1",
            name="recorder",
        )
        journal = Path(str(out) + ".journal")
        deadline = time.monotonic() + 20
        while not (journal.exists() and journal.stat().st_size > 2000):
            assert time.monotonic() < deadline, recorder.output()
            time.sleep(0.05)
        player = play(ros, path)
        assert player.wait(30) == 0, player.output()
        time.sleep(0.2)
        recorder.proc.send_signal(signal.SIGINT)
        assert recorder.wait(10) == 0, recorder.output()
    recorded = read(out)
    target, actual = recorded.group("target"), recorded.group("actual")
    assert actual.joint_names == tuple(JOINTS) and target.joint_names == tuple(JOINTS)
    error = actual.joint_channels["error"]
    assert error.shape == actual.position.shape
    # Reference (target) = feedback (actual) + error, sample by sample (same stamps).
    common, ti, ai = np.intersect1d(target.times, actual.times, return_indices=True)
    assert common.size > 50
    assert np.allclose(target.position[ti], actual.position[ai] + error[ai], atol=1e-9)
    # The lag shows as joint_01's error, the other joints track exactly.
    assert np.isclose(np.nanmax(error[:, 0]), 0.3) and np.nanmax(np.abs(error[:, 1:])) == 0.0
    # The controller's reference went through the whole motion: its end is the file's last frame.
    assert np.abs(target.position[-1] - motion.position[-1]).max() <= 1e-3
    said = recorder.output() + server.output()
    assert "Traceback" not in said, said


def test_launch_arguments_reach_the_player_as_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    from support.launchutil import describe, launch_context, launch_nodes, real_launch_available

    from motion_formats_ros.ros.sending import parse_tolerance

    if real_launch_available():
        pytest.skip("stand-in launch checks; real launch present")
    described = describe(HERE.parents[1] / "launch" / "play.launch.py", monkeypatch)
    given = {"controller": "/arm_controller", "goal_tolerance": "{shoulder: 0.1}", "path_tolerance": "0.2"}
    context = launch_context(described, **given, goal_time_tolerance="0.5", wait_for_server="3")
    (player,) = launch_nodes(described, context)
    params = player.kwargs["parameters"][1]
    assert params == {**given, "goal_time_tolerance": 0.5, "wait_for_server": 3.0}
    # The player reads the tolerance texts as a map and as one number for every joint.
    assert parse_tolerance("goal_tolerance", params["goal_tolerance"]) == {"shoulder": 0.1}
    assert parse_tolerance("path_tolerance", params["path_tolerance"]) == 0.2
    with pytest.raises(ValueError, match="path_tolerance: expected a number > 0"):
        parse_tolerance("path_tolerance", "-0.5")


def test_the_stand_in_refuses_goals_as_joint_trajectory_controller_does(tmp_path: Path) -> None:
    """The stand-in's own checks, goal by goal (invalid:=abort says which code and why)."""
    from builtin_interfaces.msg import Duration, Time
    from control_msgs.action import FollowJointTrajectory
    from rclpy.action.client import ActionClient
    from trajectory_msgs.msg import JointTrajectoryPoint

    def point(t: float, positions: list[float], velocities: list[float] | None = None) -> JointTrajectoryPoint:
        return JointTrajectoryPoint(
            positions=positions,
            velocities=velocities or [],
            time_from_start=Duration(sec=int(t), nanosec=int(t % 1 * 1e9)),
        )

    ok = [point(0.1, [0.0, 0.0, 0.0]), point(0.2, [0.1, 0.1, 0.1])]
    cases = {
        "unknown joint": (["joint_01", "joint_02", "joint_09"], ok, 0, -2),
        "partial": (["joint_01", "joint_02"], [point(0.1, [0.0, 0.0])], 0, -2),
        "repeated time": (JOINTS, [ok[0], point(0.1, [0.1, 0.1, 0.1])], 0, -1),
        "NaN": (JOINTS, [ok[0], point(0.2, [0.1, float("nan"), 0.1])], 0, -1),
        "short positions": (JOINTS, [ok[0], point(0.2, [0.1, 0.1])], 0, -1),
        "velocities size": (JOINTS, [ok[0], point(0.2, [0.1, 0.1, 0.1], [0.0])], 0, -1),
        "in the past": (JOINTS, ok, 1_000_000_000, -3),
        "valid": (JOINTS, ok, 0, 0),
    }
    codes = {}
    with ros_session(tmp_path) as ros:
        start_server(ros, "invalid:=abort", "goal_time:=0.1")
        client = ActionClient(ros.node, FollowJointTrajectory, "/arm/follow_joint_trajectory")
        assert client.wait_for_server(timeout_sec=20)
        for name, (joints, points, stamp, _) in cases.items():
            goal = FollowJointTrajectory.Goal()
            goal.trajectory.joint_names = joints
            goal.trajectory.points = points
            goal.trajectory.header.stamp = Time(sec=stamp)
            sent = client.send_goal_async(goal)
            assert ros.spin_until(sent.done, 30) and sent.result().accepted, name
            result = sent.result().get_result_async()
            assert ros.spin_until(result.done, 30), name
            codes[name] = result.result().result.error_code
        client.destroy()
    assert codes == {name: case[3] for name, case in cases.items()}


def test_server_gone_while_the_goal_runs_ends_the_player_with_the_reason(tmp_path: Path) -> None:
    path, _ = _motion(tmp_path, 10.0)
    with ros_session(tmp_path) as ros:
        server, record = start_server(ros)
        player = play(ros, path)
        deadline = time.monotonic() + 30
        while not events(record, "accepted"):
            assert time.monotonic() < deadline and player.proc.poll() is None, player.output()
            time.sleep(0.05)
        time.sleep(0.3)  # feedback is coming
        server.proc.kill()  # a controller that crashes mid-motion
        server.proc.wait()
        assert player.wait(15) == 1, player.output()
    out = player.output()
    assert "/arm/follow_joint_trajectory: goal 1: the action server went away (no result)" in out
    assert "Traceback" not in out
