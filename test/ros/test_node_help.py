"""``motion_player --help`` (and the recorder's, the simulated robot's): every parameter with its
type, default and one line of help, made from the node's declarations; exit 0, no ROS started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros.ros import wants_help
from motion_formats_ros.ros.node_settings import NODES, ros_default, yaml_value

BIN = Path(sys.executable).parent


def _command(node: str) -> list[str]:
    script = BIN / node
    if script.is_file():
        return [str(script)]
    entry = {"motion_player": "player_entry", "motion_recorder": "recorder_entry", "motion_sim": "sim_entry"}[node]
    return [
        sys.executable,
        "-c",
        f"import sys; sys.argv[0] = {node!r}; from motion_formats_ros.ros import {entry}; {entry}()",
    ]


@pytest.mark.parametrize("node", list(NODES))
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_lists_every_parameter_with_type_default_and_help(node: str, flag: str, tmp_path: Path) -> None:
    proc = subprocess.run([*_command(node), flag], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = proc.stdout
    assert "is required" not in out
    assert out.startswith(f"usage: {node} ")
    for option in NODES[node].options():
        line = f"  {option.name} ({option.parameter_type}, default {yaml_value(ros_default(option))})"
        assert line in out, line
        assert f"\n      {option.help}\n" in out, option.name
    assert not list(tmp_path.iterdir())  # nothing written (no ROS log, no file)


def test_help_is_asked_for_only_before_the_ros_arguments() -> None:
    assert wants_help(["--help"]) and wants_help(["-h", "--ros-args", "-p", "file:=x"])
    assert not wants_help(["--ros-args", "-p", "file:=--help"]) and not wants_help([])
