"""batch never writes two inputs into one file, never hangs on what is not a file, and
leaves no process behind when it is killed or stopped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main

REPO = Path(__file__).resolve().parents[2]
CLI = "import sys; from motion_formats_ros.cli.main import main; sys.exit(main(sys.argv[1:]))"


def run_cli(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The command line in a child process (it may hang or be signalled without taking pytest along)."""
    return subprocess.run(
        [sys.executable, "-c", CLI, *(str(a) for a in args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def motion_file(seed: int, frames: int = 20) -> MotionFile:
    rng = np.random.default_rng(seed)
    m = Motion(times=np.arange(frames) / 50.0, joint_names=("a", "b"), position=rng.normal(size=(frames, 2)))
    return MotionFile.single(m, "target", name=f"m{seed}")


def test_two_roots_with_one_relative_path_get_one_output_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i, root in enumerate(("r1", "r2")):
        (tmp_path / root).mkdir()
        write(motion_file(i), tmp_path / root / "a.msgpack")
    out = tmp_path / "out"
    args = ["batch", str(tmp_path / "r1"), str(tmp_path / "r2"), "-o", str(out), "--to", "csv", "--workers", "1"]
    assert main(args) == 0
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert len(files) == 2, files
    for i, root in enumerate(("r1", "r2")):
        mine = [f for f in files if f.startswith(root + os.sep)]
        assert len(mine) == 1, files
        assert mine[0] == os.path.join(root, "a.csv")
        got = read(out / mine[0]).groups
        np.testing.assert_allclose(next(iter(got.values())).position, motion_file(i).groups["target"].position)
    capsys.readouterr()
    assert main(args) == 0
    assert "2 skipped" in capsys.readouterr().out


def test_two_roots_of_one_name_fail_the_second_input_rather_than_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i, root in enumerate(("x/r", "y/r")):
        (tmp_path / root).mkdir(parents=True)
        write(motion_file(i), tmp_path / root / "a.msgpack")
    out = tmp_path / "out"
    args = ["batch", str(tmp_path / "x/r"), str(tmp_path / "y/r"), "-o", str(out), "--to", "msgpack", "--workers", "1"]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "also the output of" in captured.err and str(tmp_path / "y/r/a.msgpack") in captured.err
    written = [p for p in out.rglob("*") if p.is_file()]
    assert len(written) == 1
    np.testing.assert_array_equal(read(written[0]).groups["target"].position, motion_file(0).groups["target"].position)


def test_a_fifo_in_the_tree_is_skipped_with_a_warning_not_waited_on(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    write(motion_file(0), src / "a.msgpack")
    os.mkfifo(src / "b.msgpack")
    out = tmp_path / "out"
    proc = run_cli("batch", src, "-o", out, "--to", "csv")
    assert proc.returncode == 0, proc.stderr
    assert f"{src / 'b.msgpack'}: skipped, not a regular file (a FIFO)" in proc.stderr
    assert [p.name for p in out.iterdir()] == ["a.csv"]
    direct = run_cli("batch", src / "b.msgpack", "-o", out, "--to", "csv")
    assert direct.returncode == 1
    assert direct.stderr.strip().splitlines() == [f"error: {src / 'b.msgpack'}: not a regular file or folder (a FIFO)"]
