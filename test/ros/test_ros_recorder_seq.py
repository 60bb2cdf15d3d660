"""The recorder node writing a ``.seq`` (one motion) while a commanded trajectory is recorded too."""

from __future__ import annotations

import signal
from pathlib import Path

import numpy as np
import pytest
from support.rosutil import requires_ros, ros_session, start_node

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_walk

pytestmark = [requires_ros, pytest.mark.ros]


def test_a_seq_recording_with_a_target_keeps_the_joint_states(tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState

    walk = biped_walk(rate=50.0, cycles=1, period=1.0)
    src = tmp_path / "walk.msgpack"
    write(walk, src)
    out = tmp_path / "recorded.seq"
    with ros_session(tmp_path) as ros:
        seen = ros.collect(JointState, "/joint_states", 1000)
        recorder = start_node(
            ros, "motion_recorder", f"output:={out}", "target_topic:=joint_trajectory", name="recorder"
        )
        assert ros.spin_until(lambda: ros.node.count_subscribers("/joint_trajectory") >= 1, 15)
        assert ros.spin_until(lambda: ros.node.count_subscribers("/joint_states") >= 1, 15)
        # Both: the JointState stream and the whole motion as one JointTrajectory.
        player = ros.start_player(f"file:={src}", "mode:=both", "wait_for_subscribers:=10.0", "min_subscribers:=2")
        assert ros.spin_until(lambda: player.proc.poll() is not None, 30), player.output()
        ros.spin_for(1.0)
        recorder.proc.send_signal(signal.SIGINT)
        assert recorder.wait(30) == 0, recorder.output()
    log = recorder.output()
    assert "measured 'actual' group is written, the commanded group 'target'" in log, log
    assert f"wrote {out}: " in log and "(the measured motion)" in log, log
    assert f"wrote {out}: target:" not in log and f"wrote {out}: actual:" not in log, log
    m = read(out, joint_names=list(walk.motion.joint_names)).motion
    assert m.num_frames == len(seen) >= 2
    np.testing.assert_allclose(m.position, np.array([s.position for s in seen]), rtol=1e-8, atol=1e-9)
