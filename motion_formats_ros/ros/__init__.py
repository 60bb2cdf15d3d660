"""The only part of the package that imports rclpy: message adapters and nodes.

The console scripts ``motion_player``, ``motion_recorder`` and ``motion_sim`` start here, so that without
ROS 2 they say in one line what is missing instead of failing on an import.
"""

from __future__ import annotations

import importlib
import sys

#: The message and client packages the nodes import (a ROS 2 installation provides them).
ROS_MODULES = frozenset(
    {
        "rclpy",
        "rcl_interfaces",
        "rosgraph_msgs",
        "builtin_interfaces",
        "sensor_msgs",
        "std_msgs",
        "std_srvs",
        "geometry_msgs",
        "tf2_msgs",
        "trajectory_msgs",
        "control_msgs",
        "action_msgs",
    }
)
#: How to get ROS 2 (said when it is missing).
GET_ROS = (
    "source a ROS 2 installation (Humble, Jazzy or Kilted: source /opt/ros/<distro>/setup.bash), "
    "or in a clone of this repository run `make ros` and use .venv/bin/"
)


def wants_help(argv: list[str]) -> bool:
    """Whether a node's command line asks for its help (``-h`` / ``--help`` before ``--ros-args``)."""
    ours = argv[: argv.index("--ros-args")] if "--ros-args" in argv else argv
    return "-h" in ours or "--help" in ours


def _start(module: str, command: str) -> None:
    if wants_help(sys.argv[1:]):
        from .node_settings import help_text  # ROS-free: the help needs no ROS installed

        sys.stdout.write(help_text(command))
        sys.exit(0)
    try:
        node = importlib.import_module(f"{__name__}.{module}")
    except ImportError as exc:
        missing = (exc.name or "").split(".")[0]
        if missing not in ROS_MODULES and "rclpy" not in str(exc):
            raise
        print(f"{command}: needs ROS 2 (rclpy; cannot import {missing or exc}): {GET_ROS}", file=sys.stderr)
        sys.exit(1)
    node.entry()


def player_entry() -> None:
    """Console script ``motion_player``."""
    _start("player", "motion_player")


def sim_entry() -> None:
    """Console script ``motion_sim``."""
    _start("sim", "motion_sim")


def recorder_entry() -> None:
    """Console script ``motion_recorder``."""
    _start("recorder", "motion_recorder")
