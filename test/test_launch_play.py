"""launch/play.launch.py: loaded with recording stand-ins for launch/launch_ros (which cannot
be installed here; the real modules are used when present), then the node command line it
describes is run for real."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from rosutil import requires_ros, ros_session

from motion_formats_ros import write
from motion_formats_ros.examples import biped_urdf, biped_walk

ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FILE = ROOT / "launch" / "play.launch.py"


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


def _real_launch_available() -> bool:
    return importlib.util.find_spec("launch") is not None and importlib.util.find_spec("launch_ros") is not None


@pytest.fixture
def described(monkeypatch: pytest.MonkeyPatch) -> Any:
    if not _real_launch_available():
        for name, module in _standins().items():
            monkeypatch.setitem(sys.modules, name, module)
    spec = importlib.util.spec_from_file_location("play_launch", LAUNCH_FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate_launch_description()


def _launch_context(description: Any, **overrides: str) -> dict[str, str]:
    declared = [e for e in description.args[0] if type(e).__name__ == "DeclareLaunchArgument"]
    context = {d.args[0]: d.kwargs["default_value"] for d in declared}
    unknown = set(overrides) - set(context)
    assert not unknown, f"not declared: {unknown}"
    context.update(overrides)
    return context


def _node_command(node: Any, context: dict[str, str], tmp: Path) -> list[str]:
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
    for src, dst in kw["remappings"]:
        cmd += ["-r", f"{src}:={evaluate(dst, context)}"]
    return cmd


pytestmark = pytest.mark.skipif(_real_launch_available(), reason="stand-in checks; real launch present")


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
    context = _launch_context(
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
    with_urdf = _launch_context(described, urdf=str(tmp_path / "r.urdf"))
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
    context = _launch_context(
        described,
        file=str(walk),
        mode="stream",
        joint_states_topic="/robot/joint_states",
        urdf=str(tmp_path / "r.urdf"),
        rate="1.5",
    )
    cmd = _node_command(player, context, tmp_path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/robot/joint_states", 200)
        proc = subprocess.Popen(cmd, env=ros.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ros.spin_until(lambda: proc.poll() is not None, 30)
        out = proc.communicate(timeout=10)[0]
        ros.spin_for(0.2)
    assert proc.returncode == 0, out
    assert "motion within the limits of 12 joints" in out
    assert 39 <= len(states) <= 43  # 1.2 s played at 1.5x is 0.8 s of 50 Hz stream: 41 frames
