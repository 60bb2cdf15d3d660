"""The motion_player node and ``check`` judge a keyframe off the sampling grid alike (a real node)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import cli
from support.mof import wave_peak
from support.rosutil import requires_ros, ros_session

pytestmark = [requires_ros, pytest.mark.ros]


def test_the_node_and_check_refuse_a_keyframe_beyond_its_limit_between_sampled_frames(tmp_path: Path) -> None:
    """HeadYaw at 119.6° (beyond 2.08 rad) at t = 2.005 s, between two frames at 100 Hz."""
    pytest.importorskip("coal")
    mof, urdf = wave_peak(tmp_path, 119.6, 1005)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={mof}", f"urdf_file:={urdf}")
        assert player.wait(60) == 1, player.output()
    assert "refusing to play: joint 'HeadYaw' above its upper limit 2.08 at t = 2.005 s" in player.output()
    code, out, err, _ = cli("check", mof, "--urdf", urdf, "--json")
    assert code == 3, err
    found = [f for f in json.loads(out)["findings"] if f["kind"] == "position_limit"]
    assert [(f["joint"], f["intervals"]) for f in found] == [
        ("HeadYaw", [[pytest.approx(2.005), pytest.approx(2.005)]])
    ]
