"""Recording stand-ins for launch / launch_ros (which cannot be installed here) and helpers
to evaluate what a launch file describes and turn its nodes into command lines."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
        "launch.actions": {"DeclareLaunchArgument": DeclareLaunchArgument},
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


def node_command(node: Any, context: dict[str, str], tmp: Path) -> list[str]:
    """The command line launch_ros would run for ``node``."""
    kw = node.kwargs
    cmd = [str(Path(sys.executable).parent / kw["executable"]), "--ros-args", "-r", f"__node:={kw['name']}"]
    for entry in kw["parameters"]:
        if isinstance(entry, dict):
            for key, value in entry.items():
                v = evaluate(value, context)
                if isinstance(v, bool):
                    v = "true" if v else "false"
                if v != "":
                    cmd += ["-p", f"{key}:={v}"]
        else:
            cmd += ["--params-file", str(evaluate(entry, context))]
    for src, dst in kw.get("remappings", []):
        cmd += ["-r", f"{src}:={evaluate(dst, context)}"]
    return cmd
