"""``motion_player`` and ``motion_recorder`` where ROS 2 is not installed: one line saying so, exit 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent

#: Runs an installed console script as if no ROS 2 package could be imported.
_WITHOUT_ROS = """
import importlib.abc, runpy, sys
from motion_formats_ros.ros import ROS_MODULES

class NoRos(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ROS_MODULES:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoRos())
for name in [m for m in sys.modules if m.split(".")[0] in ROS_MODULES]:
    del sys.modules[name]
script = sys.argv[1]
sys.argv = [script, *sys.argv[2:]]
runpy.run_path(script, run_name="__main__")
"""


@pytest.mark.parametrize(
    ("command", "args"), [("motion_player", ["--ros-args", "-p", "file:=walk.seq"]), ("motion_recorder", [])]
)
def test_a_node_without_ros_says_what_is_missing_in_one_line(command: str, args: list[str]) -> None:
    script = BIN / command
    if not script.is_file():
        pytest.skip(f"{command} is not installed in this venv")
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_ROS, str(script), *args], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(f"{command}: needs ROS 2 (rclpy; cannot import ")
    assert "source /opt/ros/" in proc.stderr and "make ros" in proc.stderr


@pytest.mark.parametrize("command", ["motion_player", "motion_recorder", "motion_sim"])
def test_a_nodes_help_needs_no_ros(command: str) -> None:
    """``--help`` is made from the node's declarations alone: it is there before ROS 2 is."""
    script = BIN / command
    if not script.is_file():
        pytest.skip(f"{command} is not installed in this venv")
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_ROS, str(script), "--help"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith(f"usage: {command} ") and "parameters (" in proc.stdout


def test_the_console_scripts_start_where_ros_is_not_imported() -> None:
    from importlib.metadata import entry_points

    scripts = {e.name: e.value for e in entry_points(group="console_scripts") if e.module.startswith("motion_formats")}
    assert scripts["motion_player"] == "motion_formats_ros.ros:player_entry"
    assert scripts["motion_recorder"] == "motion_formats_ros.ros:recorder_entry"
