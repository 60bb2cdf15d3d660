"""ros/launch_args.py: launch arguments from the config files, values typed without evaluation."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros.ros.launch_args import default_text, descriptions, overrides, read_config, typed

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


@pytest.mark.parametrize(("name", "node"), [("player", "motion_player"), ("recorder", "motion_recorder")])
def test_config_files_read_and_every_parameter_is_described(name: str, node: str) -> None:
    path = ROOT / "config" / f"{name}.yaml"
    config = read_config(path, node)
    text = descriptions(path)
    assert set(text) == set(config), set(config) ^ set(text)
    assert all(text.values())
    with pytest.raises(ValueError, match="no 'other: ros__parameters:' section"):
        read_config(path, "other")
