"""ros/launch_args.py and ros/node_settings.py: the config files generated from the nodes'
declarations and read as YAML; launch arguments from them, values typed without evaluation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.rosutil import CONFINED

from motion_formats_ros.core.options import options_of
from motion_formats_ros.ros.launch_args import default_text, overrides, read_config, typed
from motion_formats_ros.ros.node_settings import NODES, config_text, descriptions, ros_default

ROOT = Path(__file__).resolve().parents[2]


def test_default_text_reads_back_as_the_default() -> None:
    for value in (True, False, 0, 7, 1.0, 0.001, -1.0, "world", "", ["joint_states"], [""], ["a", "b c"]):
        assert typed("x", default_text(value), value) == value


def test_typed_keeps_strings_verbatim_and_types_the_rest() -> None:
    weird = '/tmp/it\'s a "robot" dir/r: 1.0 #x.urdf'
    assert typed("urdf_file", weird, "") == weird
    assert typed("frame_prefix", "1.0", "") == "1.0"  # a string that looks like a number stays a string
    assert typed("rate", "2", 1.0) == 2.0 and isinstance(typed("rate", "2", 1.0), float)
    assert typed("loop", "True", False) is True
    assert typed("min_subscribers", "3", 1) == 3
    assert typed("topics", "[a/joint_states, 'b c']", ["joint_states"]) == ["a/joint_states", "b c"]
    assert typed("topics", "joint_states", ["x"]) == ["joint_states"]
    assert typed("joints", "[]", [""]) == [""]
    for name, text, default in (("rate", "fast", 1.0), ("loop", "yes please", False), ("min_subscribers", "2.5", 1)):
        with pytest.raises(ValueError, match=f"launch argument {name}: expected a"):
            typed(name, text, default)
    with pytest.raises(ValueError, match="launch argument rate"):
        typed("rate", "[1", 1.0)


def test_only_changed_arguments_override_the_parameters_file() -> None:
    defaults = {"rate": 1.0, "loop": False, "file": ""}
    given = {"rate": "1.0", "loop": "true", "file": "walk.seq", "unknown": "x"}
    assert overrides(defaults, given) == {"loop": True, "file": "walk.seq"}


@pytest.mark.parametrize("node", list(NODES))
def test_config_files_are_what_the_declarations_give(node: str) -> None:
    """Every config/*.yaml of a node is generated: the checked-in file is exactly what its
    declarations give (defaults and one line of help each), and it reads back as those defaults."""
    settings = NODES[node]
    path = ROOT / "config" / settings.file
    assert path.read_text(encoding="utf-8") == config_text(node), f"{path}: run python tools/make_config.py"
    config = read_config(path, node)
    declared = settings.options()
    assert list(config) == [o.name for o in declared]
    for option in declared:
        assert config[option.name] == ros_default(option), option.name
        assert type(config[option.name]) is type(ros_default(option)), option.name
    assert descriptions(node) == {o.name: o.help for o in declared} and all(descriptions(node).values())
    with pytest.raises(ValueError, match="no 'other: ros__parameters:' section"):
        read_config(path, "other")


def test_the_tool_finds_a_config_file_that_differs_from_the_declarations(tmp_path: Path) -> None:
    tool = ROOT / "tools" / "make_config.py"
    env = {**os.environ, **CONFINED, "PYTHONPATH": str(ROOT)}  # the tool starts no ROS; confined all the same
    ok = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True, check=False, env=env)
    assert ok.returncode == 0, ok.stderr
    # A copy of the tree whose player.yaml was edited by hand: --check fails naming it.
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "make_config.py").write_bytes(tool.read_bytes())
    (tmp_path / "config").mkdir()
    for settings in NODES.values():
        (tmp_path / "config" / settings.file).write_text(config_text(settings.node))
    edited = config_text("motion_player").replace("loop: false", "loop: true ")
    (tmp_path / "config" / "player.yaml").write_text(edited)
    stale = subprocess.run(
        [sys.executable, str(tmp_path / "tools" / "make_config.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert stale.returncode == 1 and "config/player.yaml: not what the declarations give" in stale.stderr


def test_a_parameter_declared_once_reaches_every_place_that_shows_it() -> None:
    """The player's ``rate``: declared once (PlayerConfig.speed, with its bounds and help); the
    config file, --help and the launch argument's description all say what the declaration says."""
    from motion_formats_ros.playback.config import PlayerConfig
    from motion_formats_ros.ros.node_settings import help_text

    (rate,) = [o for o in options_of(PlayerConfig) if o.name == "rate"]
    assert rate.attribute == "speed" and rate.above == 0.0 and rate.runtime
    assert "rate: 1.0" in config_text("motion_player") and f"# {rate.help}" in config_text("motion_player")
    assert f"  rate (float, default 1.0) [> 0; changeable at run time]\n      {rate.help}\n" in help_text(
        "motion_player"
    )
    assert descriptions("motion_player")["rate"] == rate.help
    assert rate.problem(0.0) == "rate must be greater than 0, got 0"


def test_no_config_file_is_read_with_a_regular_expression() -> None:
    """The launch files and their helpers read config files as YAML, never by matching their text."""
    for path in [*sorted((ROOT / "launch").glob("*.launch.py")), ROOT / "motion_formats_ros/ros/launch_args.py"]:
        text = path.read_text(encoding="utf-8")
        assert "import re" not in text and "re.compile" not in text and "re.match" not in text, path
    for settings in NODES.values():  # and the files are YAML a safe loader reads whole
        assert yaml.safe_load((ROOT / "config" / settings.file).read_text(encoding="utf-8"))
