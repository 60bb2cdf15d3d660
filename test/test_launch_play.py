"""launch/play.launch.py: loaded with recording stand-ins for launch/launch_ros (which cannot
be installed here; the real modules are used when present), then the node command line it
describes is run for real."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from launchutil import describe, evaluate, launch_context, node_command, real_launch_available
from rosutil import requires_ros, ros_session

from motion_formats_ros import write
from motion_formats_ros.examples import biped_urdf, biped_walk

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FILE = ROOT / "launch" / "play.launch.py"


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> Any:
    return describe(LAUNCH_FILE, monkeypatch)


pytestmark = pytest.mark.skipif(real_launch_available(), reason="stand-in checks; real launch present")


def test_arguments_nodes_parameters_and_remappings(described: Any, tmp_path: Path) -> None:
    entities = described.args[0]
    names = [e.args[0] for e in entities if type(e).__name__ == "DeclareLaunchArgument"]
    for expected in (
        "file",
        "rate",
        "loop",
        "mode",
        "trajectory_topic",
        "joint_states_topic",
        "world_frame",
        "root_frame",
        "frame_prefix",
        "use_sim_time",
        "params_file",
        "urdf",
    ):
        assert expected in names
    nodes = [e for e in entities if type(e).__name__ == "Node"]
    player, rsp = nodes
    assert (player.kwargs["package"], player.kwargs["executable"]) == ("motion_formats_ros", "motion_player")
    context = launch_context(
        described, file="walk.seq", rate="2.0", loop="true", trajectory_topic="/arm_controller/joint_trajectory"
    )
    params = {k: evaluate(v, context) for k, v in player.kwargs["parameters"][1].items()}
    assert params["file"] == "walk.seq" and params["rate"] == 2.0 and params["loop"] is True
    assert evaluate(player.kwargs["parameters"][0], context) == f"{ROOT}/config/player.yaml"
    remaps = {src: evaluate(dst, context) for src, dst in player.kwargs["remappings"]}
    assert remaps == {"joint_trajectory": "/arm_controller/joint_trajectory", "joint_states": "joint_states"}
    # robot_state_publisher only with a URDF, fed the URDF text.
    assert rsp.kwargs["condition"].evaluate(context) is False
    (tmp_path / "r.urdf").write_text(biped_urdf())
    with_urdf = launch_context(described, urdf=str(tmp_path / "r.urdf"))
    assert rsp.kwargs["condition"].evaluate(with_urdf) is True
    description = evaluate(rsp.kwargs["parameters"][0]["robot_description"], with_urdf)
    assert description == biped_urdf()


@requires_ros
@pytest.mark.ros
def test_the_described_command_line_plays(described: Any, tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState

    walk = tmp_path / "walk.msgpack"
    write(biped_walk(rate=50.0, cycles=1, period=1.2), walk)
    (tmp_path / "r.urdf").write_text(biped_urdf())
    player = next(e for e in described.args[0] if type(e).__name__ == "Node")
    context = launch_context(
        described,
        file=str(walk),
        mode="stream",
        joint_states_topic="/robot/joint_states",
        urdf=str(tmp_path / "r.urdf"),
        rate="1.5",
    )
    cmd = node_command(player, context, tmp_path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/robot/joint_states", 200)
        proc = subprocess.Popen(cmd, env=ros.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ros.spin_until(lambda: proc.poll() is not None, 30)
        out = proc.communicate(timeout=10)[0]
        ros.spin_for(0.2)
    assert proc.returncode == 0, out
    assert "motion within the limits of 12 joints" in out
    assert 39 <= len(states) <= 43  # 1.2 s played at 1.5x is 0.8 s of 50 Hz stream: 41 frames
