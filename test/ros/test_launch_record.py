"""launch/record.launch.py through the launch stand-ins, then its command line for real."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.launchutil import describe, launch_context, launch_nodes, node_command, real_launch_available
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.ros.launch_args import default_text, read_config
from motion_formats_ros.ros.node_settings import descriptions

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "config" / "recorder.yaml"
pytestmark = pytest.mark.skipif(real_launch_available(), reason="stand-in checks; real launch present")


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> Any:
    return describe(ROOT / "launch" / "record.launch.py", monkeypatch)


def test_arguments_and_parameters(described: Any, tmp_path: Path) -> None:
    arguments = {
        e.args[0]: e.kwargs["default_value"] for e in described.args[0] if type(e).__name__ == "DeclareLaunchArgument"
    }
    config = read_config(CONFIG, "motion_recorder")
    assert {n: arguments[n] for n in config} == {n: default_text(v) for n, v in config.items()}
    assert "params_file" in arguments
    described_as = {
        e.args[0]: e.kwargs["description"] for e in described.args[0] if type(e).__name__ == "DeclareLaunchArgument"
    }
    assert {n: described_as[n] for n in config} == descriptions("motion_recorder")
    output = tmp_path / "a b's" / "log.seq"
    context = launch_context(
        described, output=str(output), rate="200", seq_version="4", topics="[arm/joint_states, head/joint_states]"
    )
    (node,) = launch_nodes(described, context)
    assert (node.kwargs["package"], node.kwargs["executable"]) == ("motion_formats_ros", "motion_recorder")
    files, params = node.kwargs["parameters"]
    assert files == str(CONFIG)
    assert params == {
        "output": str(output),
        "rate": 200.0,
        "seq_version": 4,
        "topics": ["arm/joint_states", "head/joint_states"],
    }


@requires_ros
def test_config_lists_every_recorder_parameter_with_the_node_default() -> None:
    from motion_formats_ros.ros.recorder import PARAMETERS

    config = read_config(CONFIG, "motion_recorder")
    assert [n for n in config if n != "use_sim_time"] == list(PARAMETERS)
    for name, spec in PARAMETERS.items():
        assert config[name] == spec.default and type(config[name]) is type(spec.default), name


@requires_ros
@pytest.mark.ros
def test_the_described_command_line_records(described: Any, tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState

    walk = tmp_path / "walk.msgpack"
    write(biped_walk(rate=50.0, cycles=1), walk)
    out = tmp_path / 'it\'s a "log"' / "log.seq"
    out.parent.mkdir()
    context = launch_context(described, output=str(out), seq_version="4")
    (node,) = launch_nodes(described, context)
    cmd = node_command(node, context, tmp_path)
    with ros_session(tmp_path) as ros:
        seen = ros.collect(JointState, "/joint_states", 1000)
        recorder = subprocess.Popen(cmd, env=ros.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert ros.spin_until(lambda: ros.node.count_subscribers("/joint_states") >= 2, 15)
        player = ros.start_player(f"file:={walk}", "mode:=stream", "min_subscribers:=2")
        assert ros.spin_until(lambda: player.proc.poll() is not None, 30)
        ros.spin_for(0.3)
        recorder.send_signal(signal.SIGTERM)  # as launch does on Ctrl-C
        output = recorder.communicate(timeout=30)[0]
    assert recorder.returncode == 0, output
    assert "format_version: 4" in out.read_text()
    m = read(out, joint_names=list(biped_walk().motion.joint_names)).motion
    # Every message the probe saw, and nothing else (how many depends on timing, not the point).
    assert m.num_frames == len(seen) >= 2
    np.testing.assert_allclose(m.position, np.array([s.position for s in seen]), rtol=1e-8, atol=1e-9)
    # No gap but the ticks the stream itself skipped (it plays in real time and says how many it
    # had to skip on a loaded machine): samples at the stream's 50 Hz; the range: the walk from its
    # first to its last frame.
    skipped = re.search(r"; (\d+) ticks skipped;", player.output())
    assert skipped, player.output()
    gaps = np.round(np.diff(m.times) * 50).astype(int) - 1
    assert gaps.min() >= 0 and gaps.sum() == int(skipped.group(1)), (gaps, player.output())
    played = read(walk).motion
    assert played.position is not None
    np.testing.assert_allclose(m.position[[0, -1]], played.position[[0, -1]], atol=1e-9)
