"""The motion-formats command line, run as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_file

from motion_formats_ros import read, write

EXE = Path(sys.executable).parent / "motion-formats"


def run(*args: str | Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(EXE), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "walk.msgpack"
    write(make_file(), path)
    return path


def test_info_text(sample: Path) -> None:
    out = run("info", sample).stdout
    assert "format:   omf" in out
    assert "group target: 40 frames, 0.78 s, rate 50 Hz" in out
    assert "group actual: 25 frames" in out and "rate variable" in out
    assert "joints (3): j0, j1[3], j2" in out
    assert "joint.position" in out and "root.orientation" in out and "imu.angular_velocity" in out


def test_info_json(sample: Path) -> None:
    info = json.loads(run("info", sample, "--json").stdout)
    target = info["groups"]["target"]
    assert (target["frames"], target["rate"]) == (40, 50.0)
    assert target["joints"][1] == {"name": "j1", "dims": 3}
    m = make_file().groups["target"]
    assert m.temperature is not None
    lo, hi = target["channels"]["joint.temperature"]["range"]
    assert (lo, hi) == (float(m.temperature.min()), float(m.temperature.max()))
    assert info["groups"]["actual"]["rate"] is None


def test_convert_across_encodings_with_options(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "small.yaml"
    proc = run("convert", sample, out, "--group", "target", "--rate", "25", "--joints", "j2,j0")
    assert "wrote" in proc.stdout
    f = read(out)
    m = f.motion
    assert list(f.groups) == ["target"] and m.rate == 25.0 and m.joint_names == ("j2", "j0")
    assert m.num_frames == 20


def test_convert_refuses_to_overwrite(sample: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    out.write_text("keep")
    proc = run("convert", sample, out, ok=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {out}: already exists")
    assert out.read_text() == "keep"
    run("convert", sample, out, "--overwrite")
    assert read(out).name == "walk"


def test_bad_input_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: omf\nversion: 1\nbasic: [unclosed\n")
    proc = run("info", bad, ok=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {bad}:4: invalid YAML")
    assert "Traceback" not in proc.stderr


def test_bad_option_is_a_message(sample: Path, tmp_path: Path) -> None:
    proc = run("convert", sample, tmp_path / "o.json", "--joints", "nope", ok=False)
    assert proc.returncode == 1 and "unknown joint 'nope'" in proc.stderr and "Traceback" not in proc.stderr


def test_lossy_write_warns_on_stderr(tmp_path: Path) -> None:
    from motion_formats_ros import Motion, MotionFile

    m = Motion(times=[0, 1], joint_names=("a",), position=[[0], [1]], loop=(0.0, 1.0))
    src = tmp_path / "l.msgpack"
    with pytest.warns(UserWarning, match="dropped"):
        write(MotionFile.single(m), src)
    proc = run("convert", src, tmp_path / "o.json")
    assert proc.stderr == ""  # nothing left to drop the second time


def test_plot_one_image_per_group(sample: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "walk.png"
    proc = run("plot", sample, "-o", out)
    images = sorted(p.name for p in tmp_path.glob("walk-*.png"))
    assert images == ["walk-actual.png", "walk-target.png"], proc.stdout
    assert (tmp_path / "walk-target.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    run("plot", sample, "-o", out, "--group", "target", "--joints", "j1")
    assert out.stat().st_size > 1000


def test_formats_lists_registry() -> None:
    rows = json.loads(run("formats", "--json").stdout)
    assert "omf" in [r["name"] for r in rows]
