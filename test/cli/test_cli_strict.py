"""``--strict`` means the same for every command: a file that ``convert --strict`` refuses for a
warning fails ``validate``, ``info`` and ``plot`` too, and a command that fails never calls the
file valid. What a write says it wrote counts what the output holds."""

from __future__ import annotations

import importlib.util
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.core.examples import biped_walk

ROOT = Path(__file__).resolve().parents[2]
WALK = ROOT / "examples" / "walk.seq"


def _nan_velocity(folder: Path) -> Path:
    t = np.array([0.0, 0.5, 1.0])
    position = np.array([[0.0, 0.0], [0.5, 0.1], [1.0, 0.2]])
    velocity = position.copy()
    velocity[:, 1] = np.nan
    path = folder / "nanvel.msgpack"
    write(MotionFile.single(Motion(times=t, joint_names=("a", "b"), position=position, velocity=velocity)), path)
    return path


def _commands(path: Path, folder: Path) -> list[list[str]]:
    commands = [
        ["convert", str(path), str(folder / "out.csv")],
        ["validate", str(path)],
        ["info", str(path)],
    ]
    if importlib.util.find_spec("matplotlib") is not None:
        commands.append(["plot", str(path), str(folder / "out.png")])
    return commands


def test_a_warning_of_the_input_fails_every_command_with_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _nan_velocity(tmp_path)
    warnings.simplefilter("always")  # each command's warnings printed, as in a process of its own
    for command in _commands(path, tmp_path):
        assert main([*command, "--strict"]) == 1, command
        out, err = capsys.readouterr()
        assert "non-finite values in joint.velocity" in err, (command, err)
        assert ": valid" not in out, (command, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nanvel.msgpack"]  # no output of any of them
    for command in _commands(path, tmp_path):  # without --strict: the same warning, and success
        assert main(command) == 0, command
        assert "non-finite values in joint.velocity" in capsys.readouterr().err, command


def test_validate_strict_does_not_call_a_file_with_a_warning_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(WALK), "--strict"]) == 1
    out, err = capsys.readouterr()
    assert ": valid" not in out and f"{WALK}: fails --strict: 1 warning (seq file, 1 group(s), 241 frames)" in out
    assert "does not name its 12 joints" in err
    assert main(["validate", str(WALK), "--strict", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False
    assert main(["validate", str(WALK)]) == 0
    assert f"{WALK}: valid seq file" in capsys.readouterr().out
    assert main(["validate", str(WALK), "--strict", "--body", str(ROOT / "examples" / "biped.body")]) == 0
    assert f"{WALK}: valid seq file" in capsys.readouterr().out


def test_validate_strict_fails_a_scene_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "walk.json5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(rate=10.0, cycles=1), good)
    text = good.read_text(encoding="utf-8")
    found = re.search(r'\{"t": 0\.3, "f": \[0\.0, [-0-9.e]+,', text)
    assert found, text[:500]
    bad = tmp_path / "nan.json5"
    bad.write_text(text.replace(found.group(0), '{"t": 0.3, "f": [0.0, NaN,', 1), encoding="utf-8")
    assert main(["validate", str(good), "--strict"]) == 0
    assert "valid scene" in capsys.readouterr().out
    assert main(["validate", str(bad), "--strict"]) == 1
    out = capsys.readouterr().out
    assert "warning: nan (not a finite number)" in out and "valid scene" not in out
    assert main(["validate", str(bad)]) == 0


def test_convert_counts_the_groups_a_bag_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("rosbags")
    one = Motion(times=np.arange(7) * 0.1, joint_names=("a",), position=np.zeros((7, 1)))
    two = Motion(times=np.arange(2) * 0.1, joint_names=("b",), position=np.ones((2, 1)))
    source = tmp_path / "two.msgpack"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(MotionFile(groups={"target": one, "second": two}), source)
    out = tmp_path / "x.mcap"
    assert main(["convert", str(source), str(out)]) == 0
    printed, err = capsys.readouterr()
    assert "a bag cannot hold group 'second'; dropped" in err
    assert f"wrote {out} (rosbag, 1 group(s), 7 frames)" in printed, printed
    assert main(["convert", str(source), str(tmp_path / "y.mcap"), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["groups"], summary["frames"]) == (1, 7)


def test_convert_of_a_mof_net_names_its_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = corpus_path("mof", "bhuman2013", "sitDown.mof")
    out = tmp_path / "out.msgpack"
    assert main(["convert", str(source), str(out)]) == 0
    assert f"warning: {out}: marks: omf cannot hold named instants" in capsys.readouterr().err
    assert main(["convert", str(source), str(tmp_path / "strict.csv"), "--strict"]) == 1
    assert not (tmp_path / "strict.csv").exists()
