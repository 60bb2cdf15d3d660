"""batch never writes two inputs into one file, never hangs on what is not a file, and
leaves no process behind when it is killed or stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
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


def _children() -> dict[int, set[int]]:
    """ppid → pids of the live processes (zombies count as gone)."""
    out: dict[int, set[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            out.setdefault(int(fields[1]), set()).add(int(entry))
    return out


def _descendants(pid: int) -> set[int]:
    tree, found, todo = _children(), set(), [pid]
    while todo:
        for child in tree.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    live = set().union(*_children().values())
    return pids & live


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_killed_or_stopped_batch_leaves_no_worker_and_no_temporary(tmp_path: Path, sig: signal.Signals) -> None:
    src = tmp_path / "src"
    src.mkdir()
    rng = np.random.default_rng(3)
    frames, joints = 60_000, 24
    big = Motion(
        times=np.arange(frames) / 1000.0,
        joint_names=tuple(f"j{i}" for i in range(joints)),
        position=rng.normal(size=(frames, joints)),
    )
    for i in range(6):  # enough work that the workers are busy writing when the signal comes
        write(MotionFile.single(big, "target"), src / f"m{i}.msgpack")
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "batch", str(src), "-o", str(out), "--to", "csv", "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        start_new_session=True,  # its own process group: the test can always clean up after it
    )
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            seen |= _descendants(proc.pid)
            temporaries = list(out.glob(".*.tmp")) if out.exists() else []
            if len(seen) >= 4 and temporaries:  # forkserver, resource tracker, two workers; a write going on
                break
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.02)
        else:
            pytest.fail("the workers never started writing")
        seen |= _descendants(proc.pid)
        os.kill(proc.pid, sig)
        _, err = proc.communicate(timeout=30)
        deadline = time.monotonic() + 15
        while _alive(seen) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(seen), f"left running after {sig.name}: {sorted(_alive(seen))}"
        assert not list(out.glob(".*.tmp")), f"a temporary file was left behind; the batch said:\n{err}"
        if sig == signal.SIGTERM:
            assert proc.returncode == 128 + signal.SIGTERM
            assert "Traceback" not in err, err
            assert err.strip().splitlines()[-1] == "terminated", err
        for csv in out.glob("*.csv"):  # whatever was finished is whole
            assert read(csv).groups["target"].num_frames == frames
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in _alive(seen):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(10)
