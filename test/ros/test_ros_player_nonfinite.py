"""No NaN or Inf in any message the player sends, for the corpus .mof files with `*` / `-`
and a generated one, in stream and trajectory mode; the held values are the promised ones.

All four players run at once in one DDS domain, each on its own topics.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS
from support.mof import CORPUS_MOF, generated_mof
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import read
from motion_formats_ros.core.nonfinite import resolve

pytestmark = [requires_ros, pytest.mark.ros]
RATE = 2.0  # played twice as fast: the same messages in half the time


def _finite(values) -> bool:  # type: ignore[no-untyped-def]
    return bool(np.all(np.isfinite(np.asarray(values, dtype=float))))


def test_no_undefined_value_reaches_any_message(tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState
    from tf2_msgs.msg import TFMessage
    from trajectory_msgs.msg import JointTrajectory

    files = [CORPUS / "mof" / name for name in CORPUS_MOF if (CORPUS / "mof" / name).exists()]
    files.append(generated_mof(tmp_path))
    with ros_session(tmp_path) as ros:
        runs = []
        for k, path in enumerate(files):
            states = ros.collect(JointState, f"/p{k}/joint_states", 5000)
            trajectories = ros.collect(JointTrajectory, f"/p{k}/joint_trajectory", 10)
            tf = ros.collect(TFMessage, f"/p{k}/tf", 5000)
            player = ros.start_player(
                f"file:={path}",
                f"rate:={RATE}",
                "stream_rate:=50.0",
                "approach_time:=0.25",
                "min_subscribers:=1",
                remap=(
                    f"__node:=p{k}",
                    f"joint_states:=/p{k}/joint_states",
                    f"joint_trajectory:=/p{k}/joint_trajectory",
                    f"/tf:=/p{k}/tf",
                ),
            )
            runs.append((path, player, states, trajectories, tf))
        assert ros.spin_until(lambda: all(r[1].proc.poll() is not None for r in runs), 60)
        ros.spin_for(0.3)
    for path, player, states, trajectories, tf in runs:
        out = player.output()
        assert player.proc.returncode == 0, out
        resolved = resolve(read(path).motion).motion
        assert resolved.position is not None
        # The trajectory: finite, keyframes as points, each the resolved (held) value.
        (traj,) = trajectories
        assert tuple(traj.joint_names) == resolved.joint_names
        positions = np.array([p.positions for p in traj.points])
        assert _finite(positions) and all(_finite(p.velocities) and _finite(p.accelerations) for p in traj.points)
        times = np.array([p.time_from_start.sec + p.time_from_start.nanosec * 1e-9 for p in traj.points])
        keyframe_times = 0.25 + (resolved.times - resolved.times[0]) / RATE
        at = np.searchsorted(np.round(times, 6), np.round(keyframe_times, 6))
        np.testing.assert_array_equal(positions[at], resolved.position)
        # The stream: finite, and the resolved motion at the motion time of each message.
        assert len(states) > 10, out
        for s in states:
            assert _finite(s.position) and _finite(s.velocity) and _finite(s.effort)
        stamps = np.array([s.header.stamp.sec * 10**9 + s.header.stamp.nanosec for s in states], dtype=np.int64)
        streamed = np.array([s.position for s in states])
        # The stream's ticks are 20 ms apart, the first at the motion's start; the first
        # ones may have gone out before this probe had matched (in both mode the player
        # waits for the trajectory's subscriber): find which tick came first.
        ticks = np.round((stamps - stamps[0]) / 20e6).astype(int)
        assert any(
            np.allclose(
                streamed, resolved.sample(resolved.times[0] + (first + ticks) * 0.02 * RATE).position, atol=1e-9
            )
            for first in range(100)
        ), path
        for msg in tf:
            for t in msg.transforms:
                tr, q = t.transform.translation, t.transform.rotation
                assert _finite([tr.x, tr.y, tr.z, q.x, q.y, q.z, q.w])
        if "sitDown" in path.name:
            assert "is switched off ('-') from t = " in out
        if "standUpBack" in path.name:
            assert "'LShoulderPitch' is undefined until t = 1.3 s" in out
        if path.name == "gaps.mof":
            assert "'LShoulderPitch' has no defined value in the file: it is left out" in out
            assert "LShoulderPitch" not in traj.joint_names and "LShoulderPitch" not in states[0].name
