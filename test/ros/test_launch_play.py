"""launch/play.launch.py: loaded with recording stand-ins for launch/launch_ros (which cannot
be installed here; the real modules are used when present). What the launch file computes
(arguments from config/player.yaml, the values the nodes get) is its own code; the node
command line it describes is then run for real."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.launchutil import describe, launch_context, launch_nodes, node_command, real_launch_available
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import write
from motion_formats_ros.core.examples import biped_urdf, biped_walk
from motion_formats_ros.ros.launch_args import default_text, read_config
from motion_formats_ros.ros.node_settings import descriptions

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILE = ROOT / "launch" / "play.launch.py"
CONFIG = ROOT / "config" / "player.yaml"
#: A folder name no shell or Python-expression building would survive.
AWKWARD = 'it\'s a "robot" dir $HOME;'

pytestmark = pytest.mark.skipif(real_launch_available(), reason="stand-in checks; real launch present")


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> Any:
    return describe(LAUNCH_FILE, monkeypatch)


def _arguments(described: Any) -> dict[str, str]:
    return {
        e.args[0]: e.kwargs["default_value"] for e in described.args[0] if type(e).__name__ == "DeclareLaunchArgument"
    }


def test_every_config_parameter_is_an_argument_with_its_default(described: Any) -> None:
    arguments = _arguments(described)
    config = read_config(CONFIG, "motion_player")
    for name, value in config.items():
        assert arguments.get(name) == default_text(value), name
    for name in ("params_file", "trajectory_topic", "joint_states_topic", "urdf", "body"):
        assert name in arguments
    # Each parameter's description is its declaration's one line of help (no comment parsed).
    described_as = {
        e.args[0]: e.kwargs["description"] for e in described.args[0] if type(e).__name__ == "DeclareLaunchArgument"
    }
    assert {n: described_as[n] for n in config} == descriptions("motion_player")
    assert described_as["package_path"].startswith("folders holding ROS packages")
    # The parameters that were once missing as launch arguments.
    for name in ("wait_for_subscribers", "approach_time", "start_time", "end_time", "publish_links", "publish_clock"):
        assert name in arguments


@requires_ros
def test_config_lists_every_player_parameter_with_the_node_default() -> None:
    from motion_formats_ros.ros.player import PARAMETERS

    config = read_config(CONFIG, "motion_player")
    assert [n for n in config if n != "use_sim_time"] == list(PARAMETERS)
    for name, spec in PARAMETERS.items():
        assert config[name] == spec.default and type(config[name]) is type(spec.default), name


def test_values_arrive_as_typed_parameters_unchanged(described: Any, tmp_path: Path) -> None:
    folder = tmp_path / AWKWARD
    folder.mkdir()
    urdf = folder / "r.urdf"
    urdf.write_text(biped_urdf())
    context = launch_context(
        described,
        file=str(folder / "walk 1.seq"),
        rate="2",
        loop="true",
        joints="[left_knee, right_knee]",
        frame_prefix="1.0",
        urdf=str(urdf),
        trajectory_topic="/arm_controller/joint_trajectory",
    )
    player, rsp = launch_nodes(described, context)
    files, params = player.kwargs["parameters"]
    assert files == str(CONFIG)  # the package's defaults first, then what was given
    assert params == {
        "file": str(folder / "walk 1.seq"),
        "rate": 2.0,
        "loop": True,
        "joints": ["left_knee", "right_knee"],
        "frame_prefix": "1.0",
        "urdf_file": str(urdf),
    }
    assert dict(player.kwargs["remappings"])["joint_trajectory"] == "/arm_controller/joint_trajectory"
    # robot_state_publisher gets the URDF text, read by Python (no shell command).
    assert rsp.kwargs["parameters"][0]["robot_description"] == biped_urdf()
    assert rsp.kwargs["parameters"][0]["frame_prefix"] == "1.0"
    # Without a URDF there is no robot_state_publisher; a params_file replaces the config.
    (only,) = launch_nodes(described, launch_context(described, params_file=str(folder / "mine.yaml")))
    assert only.kwargs["parameters"] == [str(folder / "mine.yaml"), {}]
    with pytest.raises(ValueError, match="launch argument rate: expected a float"):
        launch_nodes(described, launch_context(described, rate="fast"))
    # What launch_ros writes for the node reads back as the same values and types.
    cmd = node_command(player, context, tmp_path)
    written = yaml.safe_load(Path(cmd[cmd.index("--params-file", cmd.index("--params-file") + 1) + 1]).read_text())
    assert written["/**"]["ros__parameters"] == params


@requires_ros
@pytest.mark.ros
def test_the_described_command_line_plays(described: Any, tmp_path: Path) -> None:
    from sensor_msgs.msg import JointState

    folder = tmp_path / AWKWARD
    folder.mkdir()
    walk = folder / "walk 1.msgpack"
    write(biped_walk(rate=50.0, cycles=1, period=1.2), walk)
    (folder / "r.urdf").write_text(biped_urdf())
    context = launch_context(
        described,
        file=str(walk),
        mode="stream",
        joint_states_topic="/robot/joint_states",
        urdf=str(folder / "r.urdf"),
        rate="1.5",
    )
    player = launch_nodes(described, context)[0]
    cmd = node_command(player, context, tmp_path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/robot/joint_states", 200)
        proc = subprocess.Popen(cmd, env=ros.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ros.spin_until(lambda: proc.poll() is not None, 30)
        out = proc.communicate(timeout=10)[0]
        ros.spin_for(0.2)
    assert proc.returncode == 0, out
    assert f"12 of the motion's 12 joints checked against the limits from {folder / 'r.urdf'}" in out
    assert f"loaded {walk}" in out
    assert 39 <= len(states) <= 43  # 1.2 s played at 1.5x is 0.8 s of 50 Hz stream: 41 frames


def test_the_player_can_show_the_robot_itself(described: Any, tmp_path: Path) -> None:
    urdf = tmp_path / "r.urdf"
    urdf.write_text(biped_urdf())
    arguments = _arguments(described)
    assert arguments["publish_link_tf"] == "false" and arguments["robot_description"] == ""
    # The player publishes every link's TF: no robot_state_publisher beside it.
    (player,) = launch_nodes(described, launch_context(described, urdf=str(urdf), publish_link_tf="true"))
    assert player.kwargs["parameters"][1] == {"urdf_file": str(urdf), "publish_link_tf": True}
    # A URDF's text as robot_description goes to the player only.
    (player,) = launch_nodes(described, launch_context(described, robot_description=biped_urdf()))
    assert player.kwargs["parameters"][1] == {"robot_description": biped_urdf()}
    player, rsp = launch_nodes(described, launch_context(described, urdf=str(urdf)))
    assert rsp.kwargs["executable"] == "robot_state_publisher"
