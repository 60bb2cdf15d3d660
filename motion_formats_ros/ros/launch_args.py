"""Launch arguments made from a node's config file (ROS-free: the launch files use it).

Every parameter in ``config/<node>.yaml`` (read as YAML, :func:`read_config`) becomes a
launch argument of the same name whose default is the file's value (as text, the way
launch arguments are given), with the parameter's one line of help from its declaration
as description (:func:`~motion_formats_ros.ros.node_settings.descriptions`; the config
file is generated from the same declarations). At launch time each argument's text is turned into a
value of the parameter's type (the default's) without evaluating anything: strings stay
exactly as given (a path with spaces or quotes arrives unchanged), numbers, booleans and
lists are read as YAML. Only the arguments that differ from the file are passed on, after
the parameters file, so that ``params_file:=mine.yaml`` sets what the command line does
not.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml


def read_config(path: Path, node: str) -> dict[str, Any]:
    """``node: ros__parameters:`` of a config file, in file order."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    try:
        params = data[node]["ros__parameters"]
    except (KeyError, TypeError):
        raise ValueError(f"{path}: no '{node}: ros__parameters:' section") from None
    if not isinstance(params, dict):
        raise ValueError(f"{path}: '{node}: ros__parameters:' is not a mapping")
    return dict(params)


def default_text(value: Any) -> str:
    """A config value as a launch argument's default text (what a user would type)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    raise TypeError(f"unsupported parameter value {value!r}")


def typed(name: str, text: str, default: Any) -> Any:
    """The value of launch argument ``name`` given as ``text``, of the type of ``default``.

    Raises:
        ValueError: The text is not a value of that type (the message names the argument).
    """
    if isinstance(default, str):
        return text
    kind = type(default).__name__ if not isinstance(default, list) else "list"
    try:
        value = yaml.safe_load(text) if text.strip() else None
    except yaml.YAMLError:
        raise ValueError(f"launch argument {name}: expected a {kind}, got {text!r}") from None
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
    elif isinstance(default, int):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif isinstance(default, float):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif isinstance(default, list):
        if value is None:
            value = []
        if not isinstance(value, list):
            value = [value]
        if all(isinstance(d, str) for d in default):
            items = ["" if v is None else str(v) for v in value]
            return items or [""]  # ROS cannot type an empty list: [""] stands for it
        return value
    raise ValueError(f"launch argument {name}: expected a {kind}, got {text!r}")


def robot_text(urdf_file: str, body_file: str = "", description: str = "") -> tuple[str, str]:
    """The robot's URDF text (for robot_state_publisher) and its root link, from whichever is given
    (a URDF file is read as it is; a ``.body`` becomes the URDF the package makes of it); ("", "") without one."""
    from ..core.kinematics import RobotModel, load_robot_model

    if urdf_file:
        return Path(urdf_file).read_text(encoding="utf-8"), load_robot_model(urdf_file).root_link
    if body_file:
        model = load_robot_model(body_file)
        return model.description, model.root_link
    if description:
        return description, RobotModel.from_urdf(description, "robot_description").root_link
    return "", ""


def overrides(defaults: Mapping[str, Any], given: Mapping[str, str]) -> dict[str, Any]:
    """Typed values of the arguments whose text differs from their default's text."""
    out = {}
    for name, text in given.items():
        if name in defaults and text != default_text(defaults[name]):
            out[name] = typed(name, text, defaults[name])
    return out
