"""NaN and ±Inf in motion data are never passed on silently: ``info`` counts them per
channel and says where the first is, ``convert`` and ``batch`` warn, and a scene's control
point that is not finite is an error naming its field."""

from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.core.examples import biped_walk


def _with_nonfinite() -> MotionFile:
    position = np.zeros((5, 2))
    position[2, 1] = np.nan
    position[3, 0] = np.inf
    return MotionFile.single(Motion(times=np.arange(5) / 10.0, joint_names=("a", "b"), position=position), "target")


SUFFIXES = ["seq", "msgpack", "omf.yaml", "csv", "parquet"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_info_counts_nonfinite_values_and_convert_warns(
    tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if suffix == "parquet" and importlib.util.find_spec("pyarrow") is None:
        pytest.skip("needs pyarrow (the [parquet] extra)")
    src = tmp_path / f"m.{suffix}"
    names = ["--joint-names", "a,b"] if suffix == "seq" else []
    write(_with_nonfinite(), src)
    assert main(["info", str(src), *names]) == 0
    out = capsys.readouterr().out
    assert "non-finite: 1 NaN, 1 infinite (first: joint 'b' at t = 0.2 s (frame 2))" in out, out
    assert main(["convert", str(src), str(tmp_path / "out.msgpack"), *names]) == 0
    err = capsys.readouterr().err
    assert f"warning: {src}: group target: non-finite values in joint.position: 1 NaN, 1 infinite" in err, err


def test_batch_warns_about_nonfinite_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    write(_with_nonfinite(), src / "m.msgpack")
    assert main(["batch", str(src), "-o", str(tmp_path / "out"), "--to", "csv", "--workers", "1"]) == 0
    assert "non-finite values in joint.position" in capsys.readouterr().err


def test_finite_data_gives_no_such_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "walk.msgpack"
    write(biped_walk(rate=10.0, cycles=1), src)
    assert main(["convert", str(src), str(tmp_path / "walk.csv")]) == 0
    assert "non-finite" not in capsys.readouterr().err


def test_a_scene_control_point_that_is_not_finite_names_its_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "walk.json5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(rate=10.0, cycles=1), good)
    text = good.read_text(encoding="utf-8")
    found = re.search(r'\{"t": 0\.3, "f": \[0\.0, [-0-9.e]+,', text)
    assert found, text[:500]
    marker = found.group(0)
    # A value that is NaN (a joint switched off) is kept, with a warning naming it.
    bad = tmp_path / "nan.json5"
    bad.write_text(text.replace(marker, '{"t": 0.3, "f": [0.0, NaN,', 1), encoding="utf-8")
    assert main(["validate", str(bad)]) == 0
    out = capsys.readouterr()
    assert f"{bad}: trajectories.motion.controlPoints[3].f[1]: warning: nan (not a finite number)" in out.out + out.err
    assert main(["convert", str(bad), str(tmp_path / "out.msgpack")]) == 0
    assert "non-finite values in joint.position" in capsys.readouterr().err
    # A slope that is not finite means nothing: an error naming it.
    slope = tmp_path / "slope.json5"
    at = text.index('"df": [', text.index(marker)) + len('"df": [')
    slope.write_text(text[:at] + "Infinity, " + text[text.index(",", at) + 2 :], encoding="utf-8")
    assert main(["validate", str(slope)]) == 1
    out = capsys.readouterr()
    assert "trajectories.motion.controlPoints[3].df[0]: expected a finite number, got inf" in out.out + out.err
