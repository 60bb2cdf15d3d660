"""What each node's declarations give besides its parameters: ``--help``, its config file, launch
arguments' descriptions (ROS-free: the console scripts and the launch files use it).

A node's parameters are the options of its configuration dataclass
(:class:`~motion_formats_ros.playback.config.PlayerConfig`,
:class:`~motion_formats_ros.recording.recorder_config.RecorderConfig`,
:class:`~motion_formats_ros.simulation.sim_config.SimConfig`), each declared once with its
type, default, bounds and one line of help. From them:

- :func:`help_text`: what ``motion_player --help`` (and the others') prints;
- :func:`config_text`: ``config/<node>.yaml``, every parameter with its default and its help
  as a comment (``tools/make_config.py`` writes the files; a test fails when a checked-in
  file differs from what the declarations give);
- :func:`descriptions`: the help of each parameter, the launch arguments' descriptions.
"""

from __future__ import annotations

import dataclasses
import textwrap
from typing import Any

import yaml

from ..core.options import Option, options_of


@dataclasses.dataclass(frozen=True)
class NodeSettings:
    """A node's command, what it does in a line, its configuration dataclass and its config file.

    Attributes:
        node: The node's (and its console script's) name.
        summary: What the node does, one line.
        config: The module and class name of its configuration dataclass (imported when needed).
        file: Its config file, under ``config/``.
        started_by: What starts it with the config file (said in the file's header).
        ros: Parameters of ROS itself (``use_sim_time``) the config file lists too, with their help.
    """

    node: str
    summary: str
    config: tuple[str, str]
    file: str
    started_by: str
    ros: tuple[Option, ...] = ()

    def options(self) -> tuple[Option, ...]:
        """The node's parameters: its configuration's options, then ROS's own it lists."""
        import importlib

        module, name = self.config
        cls = getattr(importlib.import_module(module), name)
        return (*options_of(cls), *self.ros)


def _sim_time(help: str) -> Option:
    return Option("use_sim_time", (bool,), False, help)


#: Every node of the package, by name.
NODES: dict[str, NodeSettings] = {
    "motion_player": NodeSettings(
        "motion_player",
        "plays any supported motion file into ROS 2: a JointState/TF stream, one JointTrajectory, "
        "or one FollowJointTrajectory goal",
        ("motion_formats_ros.playback.config", "PlayerConfig"),
        "player.yaml",
        "Every one is also a launch argument of play.launch.py (same name, same default); "
        "give this file or your own as params_file:=…",
        (_sim_time("follow /clock"),),
    ),
    "motion_recorder": NodeSettings(
        "motion_recorder",
        "records robot motion to OMF or Choreonoid .seq, crash-safe (motion-formats recover after a crash)",
        ("motion_formats_ros.recording.recorder_config", "RecorderConfig"),
        "recorder.yaml",
        "Every one is also a launch argument of record.launch.py (same name, same default); "
        "give this file or your own as params_file:=…",
        (_sim_time("stamp receive times with /clock"),),
    ),
    "motion_sim": NodeSettings(
        "motion_sim",
        "a simulated robot (MuJoCo) behind joint_trajectory_controller's and joint_state_broadcaster's interfaces",
        ("motion_formats_ros.simulation.sim_config", "SimConfig"),
        "sim.yaml",
        "play.launch.py sim:=true starts it with the player's robot model.",
    ),
}


def ros_default(option: Option) -> Any:
    """The default as a ROS parameter holds it (an empty list of names as ``[""]``, which ROS can type)."""
    value = option.default
    if isinstance(value, tuple):
        return list(value) or [""]
    return str(value) if option.enum is not None else value


def yaml_value(value: Any) -> str:
    """A parameter's value as YAML in one line (flow style; strings quoted where YAML needs it)."""
    return (
        yaml.safe_dump(value, default_flow_style=True, width=10_000, allow_unicode=True)
        .strip()
        .removesuffix("\n...")
        .strip()
    )


def _bounds(option: Option) -> str:
    parts = []
    if option.choices:
        parts.append("one of " + " | ".join(str(c) for c in option.choices))
    if option.minimum is not None:
        parts.append(f">= {option.minimum:g}")
    if option.above is not None:
        parts.append(f"> {option.above:g}")
    if option.maximum is not None:
        parts.append(f"<= {option.maximum:g}")
    if option.smallest_on is not None:
        parts.append(f"0 or >= {option.smallest_on:g}")
    if option.runtime:
        parts.append("changeable at run time")
    return f" [{'; '.join(parts)}]" if parts else ""


def help_text(node: str) -> str:
    """What ``NODE --help`` prints: usage, what the node does, and every parameter with its type,
    default and one line of help (from the declarations)."""
    settings = NODES[node]
    lines = [
        f"usage: {node} [--help] --ros-args [-p NAME:=VALUE ...] [--params-file FILE]",
        "",
        f"{node}: {settings.summary}.",
        "",
        "parameters (NAME (TYPE, default VALUE): what it does):",
    ]
    for option in settings.options():
        default = yaml_value(ros_default(option))
        lines.append(f"  {option.name} ({option.parameter_type}, default {default}){_bounds(option)}")
        lines.append(f"      {option.help}")
    lines += ["", f"The package's defaults are in config/{settings.file} (share/motion_formats_ros/config/)."]
    return "\n".join(lines) + "\n"


def config_text(node: str) -> str:
    """``config/<file>`` as the declarations give it: every parameter, its default, its help as a comment."""
    settings = NODES[node]
    options = settings.options()
    values = [f"{o.name}: {yaml_value(ros_default(o))}" for o in options]
    width = max(len(v) for v in values) + 2
    lines = [
        f"# Parameters of {node}, with their defaults.",
        *textwrap.wrap(settings.started_by, 96, initial_indent="# ", subsequent_indent="# "),
        f"# `{node} --help` lists them; `ros2 param describe /{node} <name>` says more about each.",
        "# Generated from the node's declarations by tools/make_config.py: do not edit by hand.",
        f"{node}:",
        "  ros__parameters:",
    ]
    lines += [f"    {value.ljust(width)}# {o.help}" for value, o in zip(values, options, strict=True)]
    return "\n".join(lines) + "\n"


def descriptions(node: str) -> dict[str, str]:
    """Each parameter's one line of help, by name (a launch argument's description)."""
    return {o.name: o.help for o in NODES[node].options()}


__all__ = ["NODES", "NodeSettings", "config_text", "descriptions", "help_text", "ros_default", "yaml_value"]
