"""Each format family plays through motion_player (its own process, real DDS)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path
from support.jtcsim import execute
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import CODECS, Motion, read, write
from motion_formats_ros.core.examples import biped_walk

pytestmark = [requires_ros, pytest.mark.ros]
ROOT = Path(__file__).resolve().parents[2]


def _play(tmp_path: Path, path: Path, *params: str) -> tuple[list, list, str]:  # type: ignore[type-arg]
    from sensor_msgs.msg import JointState
    from trajectory_msgs.msg import JointTrajectory

    with ros_session(tmp_path) as ros:
        trajectories = ros.collect(JointTrajectory, "/joint_trajectory", 10)
        states = ros.collect(JointState, "/joint_states", 5000)
        player = ros.start_player(f"file:={path}", "approach_time:=0.25", "stream_rate:=50.0", *params)
        assert ros.spin_until(lambda: player.proc.poll() is not None, 60), player.output()
        ros.spin_for(0.2)
        assert player.proc.returncode == 0, player.output()
        return trajectories, states, player.output()


def _check(motion: Motion, trajectories: list, states: list, output: str) -> None:  # type: ignore[type-arg]
    assert len(trajectories) == 1
    traj = trajectories[0]
    assert tuple(traj.joint_names) == motion.joint_names
    assert motion.position is not None
    times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in traj.points])
    if motion.is_keyframed:
        # Every keyframe of the file is a point at its own time (+ the approach time).
        positions = np.array([p.positions for p in traj.points])
        keep = np.isin(np.round(times - 0.25, 6), np.round(motion.times - motion.times[0], 6))
        assert keep.sum() == motion.num_frames
        np.testing.assert_allclose(positions[keep], motion.position, atol=1e-9)
    else:
        # JTC's interpolation of the points is within the default tolerance of every frame.
        executed = execute([(0.0, traj)], np.round((motion.times - motion.times[0] + 0.25) * 1e9) / 1e9)
        assert np.abs(executed - motion.position).max() <= 1e-3 + 1e-12
        assert len(traj.points) < motion.num_frames
    _check_state_count(motion, states, output)


def _check_state_count(motion: Motion, states: list, output: str) -> None:  # type: ignore[type-arg]
    """One JointState per tick of the 50 Hz stream, but for the ticks the player says it skipped.

    A loaded machine may wake the player too late for a tick; a real-time stream skips it and
    counts it (it does not catch up), so the ticks received plus those skipped make the motion.
    """
    skipped = re.search(r"(\d+) ticks skipped", output)
    assert skipped, output
    assert abs(len(states) + int(skipped.group(1)) - (round(motion.duration * 50) + 1)) <= 2


def test_seq_with_body_file(tmp_path: Path) -> None:
    walk, body = ROOT / "examples" / "walk.seq", ROOT / "examples" / "biped.body"
    trajectories, states, output = _play(tmp_path, walk, f"body_file:={body}")
    _check(read(walk, body=body).motion, trajectories, states, output)


def test_omf_group(tmp_path: Path) -> None:
    f = biped_walk(rate=100.0, cycles=1)
    f.groups["actual"] = f.motion.shifted(0.0)
    path = tmp_path / "log.yaml"
    write(f, path)
    trajectories, states, output = _play(tmp_path, path, "group:=actual")
    _check(read(path).groups["actual"], trajectories, states, output)


@pytest.mark.skipif("mtn" not in CODECS, reason="no .mtn codec")
def test_mtn_keyframes(tmp_path: Path) -> None:
    path = tmp_path / "walk.mtn"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # keyframe reduction is reported; not what this test checks
        write(biped_walk(rate=100.0, cycles=1), path)
    motion = read(path).motion
    assert motion.is_keyframed
    trajectories, states, output = _play(tmp_path, path)
    _check(motion, trajectories, states, output)


@pytest.mark.skipif("mof" not in CODECS, reason="no .mof codec")
def test_mof_motion_net(tmp_path: Path) -> None:
    path = corpus_path("mof", "bhuman2013", "sitDown.mof")
    motion = read(path).motion
    trajectories, states, output = _play(tmp_path, path)
    assert len(trajectories) == 1
    traj = trajectories[0]
    assert tuple(traj.joint_names) == motion.joint_names
    assert motion.position is not None
    finite = np.isfinite(motion.position[-1])
    np.testing.assert_allclose(np.array(traj.points[-1].positions)[finite], motion.position[-1][finite], atol=1e-9)
    _check_state_count(motion, states, output)


@pytest.mark.skipif("scene" not in CODECS, reason="no scene codec")
def test_scene_tf_tree_static_once_and_moving(tmp_path: Path) -> None:
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from tf2_msgs.msg import TFMessage
    from trajectory_msgs.msg import JointTrajectory

    from motion_formats_ros.codecs.scene.scene_kinematics import SceneKinematics

    path = corpus_path("scene_json5", "waving_robot.json")
    kin = SceneKinematics.from_file(path)
    motion = read(path).motion
    assert motion.loop is not None  # a repeating trajectory
    with ros_session(tmp_path) as ros:
        trajectories = ros.collect(JointTrajectory, "/joint_trajectory", 10)
        tf = ros.collect(TFMessage, "/tf", 1000)
        # The corpus wave moves the elbow at 1.5 rad/s; the scene allows 1 rad/s: the player
        # refuses that by default (checked below), so play it knowingly.
        player = ros.start_player(
            f"file:={path}", "stream_rate:=50.0", "loop:=true", "approach_time:=0.1", "ignore_limits:=true"
        )
        assert ros.spin_until(lambda: len(tf) > 100, 30), player.output()  # runs past the 2 s loop
        qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)
        static = ros.collect(TFMessage, "/tf_static", qos)  # a late subscriber
        assert ros.spin_until(lambda: bool(static), 10)
    assert "joint 'elbow' faster than its velocity limit 1 rad/s" in player.output()
    assert len(static) == 1  # every static frame in one message
    edges = {(t.header.frame_id, t.child_frame_id) for t in static[0].transforms}
    assert edges == {(s.parent, s.child) for s in kin.static_transforms()}
    moving = [t for m in tf for t in m.transforms]
    assert {(t.header.frame_id, t.child_frame_id) for t in moving} == {(e.parent, e.child) for e in kin.moving_edges}
    assert len(trajectories) == 1 and tuple(trajectories[0].joint_names) == motion.joint_names
    # The moving frame at the stream's motion times matches forward kinematics.
    first = moving[0]
    expected = kin.moving_transforms([motion.times[0]])[0]
    got = [first.transform.translation.x, first.transform.translation.y, first.transform.translation.z]
    np.testing.assert_allclose(got, expected.translation[0], atol=1e-9)


@pytest.mark.skipif("scene" not in CODECS, reason="no scene codec")
def test_scene_joint_limits_refuse_a_motion(tmp_path: Path) -> None:
    from motion_formats_ros.core.model import JointLimit

    walk = biped_walk(rate=50.0, cycles=1)
    path = tmp_path / "walk.json5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # root pose and velocities the scene keeps differently
        write(walk, path, joint_limits={"left_knee": JointLimit(0.0, 0.8, 10.0)})
    assert read(path).joint_limits["left_knee"].upper == 0.8
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={path}")
        assert player.wait(30) == 1
    assert "refusing to play: joint 'left_knee' above its upper limit 0.8" in player.output()


def test_start_delay_stamps_the_trajectory(tmp_path: Path) -> None:
    import time

    from trajectory_msgs.msg import JointTrajectory

    path = tmp_path / "w.msgpack"
    write(biped_walk(rate=20.0, cycles=1), path)
    with ros_session(tmp_path) as ros:
        trajectories = ros.collect(JointTrajectory, "/joint_trajectory", 10)
        before = time.time_ns()
        player = ros.start_player(f"file:={path}", "mode:=trajectory", "start_delay:=2.0", "exit_on_end:=false")
        assert ros.spin_until(lambda: bool(trajectories), 20), player.output()
    stamp = trajectories[0].header.stamp.sec * 10**9 + trajectories[0].header.stamp.nanosec
    assert before + 2 * 10**9 <= stamp <= time.time_ns() + 2 * 10**9
