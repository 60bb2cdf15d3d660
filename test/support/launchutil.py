"""Recording stand-ins for launch / launch_ros (which cannot be installed here) and helpers
to evaluate what a launch file describes and turn its nodes into command lines.

The stand-ins only record what the launch file builds; the values the nodes get are
computed by the launch file's own code (motion_formats_ros.ros.launch_args), and
:func:`node_command` passes a node's parameters the way launch_ros does: dictionaries
written to a parameters YAML file (``yaml.dump`` of the values), files as given.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The module of each of the package's console scripts (run as such when the script is not installed).
MODULES = {
    "motion_player": "motion_formats_ros.ros.player",
    "motion_recorder": "motion_formats_ros.ros.recorder",
    "motion_sim": "motion_formats_ros.ros.sim",
}


class Recorded:
    """Base of the stand-ins: keeps its constructor arguments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs


def evaluate(value: Any, context: dict[str, str]) -> Any:
    """What launch would substitute for ``value`` given the launch arguments ``context``."""
    if isinstance(value, (list, tuple)):
        return "".join(str(evaluate(v, context)) for v in value)
    if isinstance(value, Recorded):
        return value.evaluate(context)  # type: ignore[attr-defined]
    return value


def _standins() -> dict[str, types.ModuleType]:
    class LaunchDescription(Recorded):
        pass

    class DeclareLaunchArgument(Recorded):
        pass

    class LaunchConfiguration(Recorded):
        def evaluate(self, context: dict[str, str]) -> str:
            return context[self.args[0]]

        def perform(self, context: Any) -> str:
            return str(context.launch_configurations[self.args[0]])

    class OpaqueFunction(Recorded):
        pass

    class PathJoinSubstitution(Recorded):
        def evaluate(self, context: dict[str, str]) -> str:
            return "/".join(str(evaluate(p, context)) for p in self.args[0])

    class PythonExpression(Recorded):
        def evaluate(self, context: dict[str, str]) -> str:
            return str(eval(evaluate(self.args[0], context)))  # launch evaluates the expression too

    class Command(Recorded):
        def evaluate(self, context: dict[str, str]) -> str:
            return subprocess.run(
                evaluate(self.args[0], context), shell=True, capture_output=True, text=True, check=True
            ).stdout

    class FindPackageShare(Recorded):
        def evaluate(self, context: dict[str, str]) -> str:
            assert self.args[0] == "motion_formats_ros"
            return str(ROOT)  # the source tree has the same config/ layout as share/

    class ParameterValue(Recorded):
        def evaluate(self, context: dict[str, str]) -> Any:
            import yaml

            text = evaluate(self.args[0], context)
            kind = self.kwargs.get("value_type", str)
            return text if kind is str else kind(yaml.safe_load(text))

    class IfCondition(Recorded):
        def evaluate(self, context: dict[str, str]) -> bool:
            return str(evaluate(self.args[0], context)).lower() in ("true", "1")

    class Node(Recorded):
        pass

    modules = {}
    for name, members in {
        "launch": {"LaunchDescription": LaunchDescription},
        "launch.actions": {"DeclareLaunchArgument": DeclareLaunchArgument, "OpaqueFunction": OpaqueFunction},
        "launch.conditions": {"IfCondition": IfCondition},
        "launch.substitutions": {
            "Command": Command,
            "LaunchConfiguration": LaunchConfiguration,
            "PathJoinSubstitution": PathJoinSubstitution,
            "PythonExpression": PythonExpression,
        },
        "launch_ros": {},
        "launch_ros.actions": {"Node": Node},
        "launch_ros.parameter_descriptions": {"ParameterValue": ParameterValue},
        "launch_ros.substitutions": {"FindPackageShare": FindPackageShare},
    }.items():
        module = types.ModuleType(name)
        module.__dict__.update(members)
        modules[name] = module
    return modules


def real_launch_available() -> bool:
    return importlib.util.find_spec("launch") is not None and importlib.util.find_spec("launch_ros") is not None


def describe(launch_file: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``generate_launch_description()`` of ``launch_file`` (stand-ins unless launch is installed)."""
    if not real_launch_available():
        for name, module in _standins().items():
            monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location(launch_file.stem.replace(".", "_"), launch_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate_launch_description()


def launch_context(description: Any, **overrides: str) -> dict[str, str]:
    declared = [e for e in description.args[0] if type(e).__name__ == "DeclareLaunchArgument"]
    context = {d.args[0]: d.kwargs["default_value"] for d in declared}
    unknown = set(overrides) - set(context)
    assert not unknown, f"not declared: {unknown}"
    context.update(overrides)
    return context


class Context:
    """What an OpaqueFunction is given: the launch configurations (argument values)."""

    def __init__(self, configurations: dict[str, str]) -> None:
        self.launch_configurations = configurations


def launch_nodes(description: Any, context: dict[str, str]) -> list[Any]:
    """The Node actions a description launches with these argument values."""
    nodes = []
    for entity in description.args[0]:
        kind = type(entity).__name__
        if kind == "Node":
            nodes.append(entity)
        elif kind == "OpaqueFunction":
            nodes.extend(entity.kwargs["function"](Context(context)))
    return nodes


def node_command(node: Any, context: dict[str, str], tmp: Path) -> list[str]:
    """The command line launch_ros would run for ``node`` (dict parameters via a YAML file)."""
    import yaml

    kw = node.kwargs
    name = kw.get("name", kw["executable"])
    script = Path(sys.executable).parent / kw["executable"]
    run = [str(script)] if script.exists() else [sys.executable, "-m", MODULES[kw["executable"]]]
    cmd = [*run, "--ros-args", "-r", f"__node:={name}"]
    for k, entry in enumerate(kw["parameters"]):
        if isinstance(entry, dict):
            values = {
                key: value.evaluate(context) if isinstance(value, Recorded) else value for key, value in entry.items()
            }
            path = tmp / f"launch_params_{name}_{k}.yaml"
            path.write_text(yaml.dump({"/**": {"ros__parameters": values}}))
            cmd += ["--params-file", str(path)]
        else:
            cmd += ["--params-file", str(evaluate(entry, context))]
    for src, dst in kw.get("remappings", []):
        cmd += ["-r", f"{src}:={evaluate(dst, context)}"]
    return cmd
