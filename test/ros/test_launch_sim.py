"""play.launch.py sim:=true record:=FILE: the simulated robot, the player pointed at it, the recorder.

Loaded with the recording stand-ins for launch/launch_ros (test/support/launchutil.py); the
node command lines it describes are then run for real."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.launchutil import describe, launch_context, launch_nodes, node_command, real_launch_available
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_body
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.ros.launch_args import read_config

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILE = ROOT / "launch" / "play.launch.py"
SIM_CONFIG = ROOT / "config" / "sim.yaml"

pytestmark = pytest.mark.skipif(real_launch_available(), reason="stand-in checks; real launch present")


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> Any:
    return describe(LAUNCH_FILE, monkeypatch)


def test_sim_starts_the_same_robot_behind_the_controller_the_player_uses(described: Any, tmp_path: Path) -> None:
    body = tmp_path / "biped.body"
    body.write_text(biped_body())
    out = tmp_path / "did.msgpack"
    context = launch_context(described, file="walk.seq", body_file=str(body), sim="true", record=str(out))
    player, rsp, sim, recorder = launch_nodes(described, context)
    assert player.kwargs["parameters"][1]["controller"] == "/joint_trajectory_controller"
    assert sim.kwargs["executable"] == "motion_sim"
    assert sim.kwargs["parameters"] == [str(SIM_CONFIG), {"body_file": str(body), "frame_prefix": ""}]
    assert "mfr_mini_biped" in rsp.kwargs["parameters"][0]["robot_description"]  # the .body as URDF text
    assert recorder.kwargs["parameters"][1] == {
        "output": str(out),
        "overwrite": True,
        "world_frame": "world",
        "root_frame": "base_link",
    }
    # The folders of package:// meshes go to both: the player's check and the simulated robot find them alike.
    context = launch_context(described, file="walk.seq", body_file=str(body), sim="true", package_path=f"[{tmp_path}]")
    player, _, sim = launch_nodes(described, context)
    assert (
        player.kwargs["parameters"][1]["package_path"] == sim.kwargs["parameters"][1]["package_path"] == [str(tmp_path)]
    )
    # Without sim nothing of it: the player and (with a URDF) robot_state_publisher, as before.
    (alone,) = launch_nodes(described, launch_context(described, file="walk.seq", body_file=str(body)))
    assert "controller" not in alone.kwargs["parameters"][1]
    with pytest.raises(ValueError, match="needs the robot model"):
        launch_nodes(described, launch_context(described, file="walk.seq", sim="true"))


@requires_ros
def test_config_lists_every_sim_parameter_with_the_node_default() -> None:
    from motion_formats_ros.ros.scaffold import parameters
    from motion_formats_ros.simulation.sim_config import SimConfig

    table = parameters(SimConfig)
    config = read_config(SIM_CONFIG, "motion_sim")
    assert list(config) == list(table)
    for name, spec in table.items():
        assert config[name] == spec.default and type(config[name]) is type(spec.default), name


@requires_ros
@pytest.mark.ros
def test_the_described_nodes_play_simulate_and_record(described: Any, tmp_path: Path) -> None:
    pytest.importorskip("mujoco")
    from test_ros_sim import ARM

    urdf = tmp_path / "arm.urdf"
    urdf.write_text(ARM)
    t = np.arange(0, 1.51, 0.01)
    q = np.column_stack([0.3 * np.sin(np.pi * t), 0.5 * np.sin(np.pi * t)])
    motion = tmp_path / "swing.msgpack"
    write(MotionFile.single(Motion(times=t, joint_names=("a", "b"), position=q, rate=100.0), name="s"), motion)
    out = tmp_path / "did.msgpack"
    context = launch_context(described, file=str(motion), urdf=str(urdf), sim="true", record=str(out))
    nodes = [n for n in launch_nodes(described, context) if n.kwargs["executable"] != "robot_state_publisher"]
    with ros_session(tmp_path) as ros:

        def start(node: Any) -> subprocess.Popen[str]:
            command = node_command(node, context, tmp_path)
            return subprocess.Popen(command, env=ros.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

        # The simulated robot and the recorder first: the recording is to hold the whole motion.
        procs = {n.kwargs["executable"]: start(n) for n in nodes if n.kwargs["executable"] != "motion_player"}
        assert ros.spin_until(lambda: ros.node.count_subscribers("/joint_states") >= 1, 120)
        # Samples in the recorder's journal (flushed each second): it hears the robot. Its
        # subscription seen by this probe does not mean the robot's publisher has matched it yet.
        journal = Path(str(out) + ".journal")
        assert ros.spin_until(journal.exists, 120)
        empty = journal.stat().st_size
        assert ros.spin_until(lambda: journal.stat().st_size > empty, 120), "the recorder never heard the robot"
        player = procs["motion_player"] = start(next(n for n in nodes if n.kwargs["executable"] == "motion_player"))
        ros.spin_until(lambda: player.poll() is not None, 120)
        played = player.communicate(timeout=10)[0]
        for name in ("motion_recorder", "motion_sim"):
            procs[name].send_signal(signal.SIGINT)
        logs = {name: p.communicate(timeout=30)[0] for name, p in procs.items() if name != "motion_player"}
    assert player.returncode == 0, played + logs["motion_sim"]
    assert "result SUCCESSFUL" in played
    assert procs["motion_recorder"].returncode == 0, logs["motion_recorder"]
    rec = read(out).motion
    assert rec.position is not None and set(rec.joint_names) == {"a", "b"}
    assert rec.duration > 1.5 and np.abs(rec.position).max() > 0.25  # it moved as played
