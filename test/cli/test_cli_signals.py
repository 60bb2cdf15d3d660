"""SIGTERM ends every command within 2 s of the signal, however long its work, with no traceback.

The command stops as SIGINT stops it (temporaries removed, workers stopped) and says
``terminated``, status 128 + SIGTERM; while a parser in native code reads an input, the
signal's default action ends it at once (status -SIGTERM). Each command here is busy for
many seconds: a motion check of a long motion, a conversion of a big file, a bag read, a
batch of big files.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, write

#: Seconds each: not run at the dependencies' floors (make test-min), the package's own handlers.
pytestmark = pytest.mark.slow

EXE = Path(sys.executable).parent / "motion-formats"
STOPPED = (128 + signal.SIGTERM, -signal.SIGTERM)


def _motion(frames: int, joints: tuple[str, ...], root: bool = False) -> MotionFile:
    times = np.arange(frames) / 500.0
    position = np.tile(0.01 * np.sin(times)[:, None], (1, len(joints)))
    extra = {}
    if root:
        extra = {
            "root_position": np.tile([0.0, 0.0, 1.1], (frames, 1)),
            "root_orientation": np.tile([0.0, 0.0, 0.0, 1.0], (frames, 1)),
        }
    return MotionFile.single(Motion(times=times, joint_names=joints, position=position, **extra))


def _terminate_after(args: list[str | Path], busy: float, env: dict[str, str] | None = None) -> str:
    """Run the command, send SIGTERM ``busy`` seconds after it started, check how it ended; its stderr."""
    proc = subprocess.Popen(
        [str(EXE), *map(str, args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        start_new_session=True,
    )
    try:
        time.sleep(busy)
        assert proc.poll() is None, f"the command ended before the signal: {proc.communicate()[1]}"
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert took < 2.0, f"{took:.2f} s to exit after SIGTERM: {err}"
    assert proc.returncode in STOPPED, f"exit {proc.returncode}: {err}"
    assert "Traceback" not in err, err
    if proc.returncode > 0:
        assert err.strip().splitlines()[-1] == "terminated", err
    return err


def test_sigterm_during_the_check_of_a_long_motion(tmp_path: Path) -> None:
    robots = pytest.importorskip("support.robots")
    try:
        urdf = robots.robot_file(*robots.TALOS_URDF)
        share = robots.share()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    from motion_formats_ros.core.kinematics import load_robot_model

    joints = tuple(load_robot_model(urdf).actuated_joints)
    path = tmp_path / "long.msgpack"
    write(_motion(60_000, joints, root=True), path)
    for busy in (4.0, 9.0):
        _terminate_after(["check", path, "--urdf", urdf, "--package-path", share], busy)


def test_sigterm_during_the_conversion_of_a_big_file(tmp_path: Path) -> None:
    path = tmp_path / "big.msgpack"
    write(_motion(2_000_000, tuple(f"j{k}" for k in range(12))), path)
    out = tmp_path / "out"
    out.mkdir()
    for busy in (2.0, 4.0, 6.0):
        _terminate_after(["convert", path, out / "big.csv", "--rate", "1000", "--overwrite"], busy)
        assert not list(out.iterdir()), "a partial output or a temporary was left"


def test_sigterm_during_a_bag_read(tmp_path: Path) -> None:
    """A sqlite3 bag of 2 million JointState messages: seconds to read."""
    bag = tmp_path / "long.db3"
    write(_motion(2_000_000, tuple(f"j{k}" for k in range(12))), bag)
    out = tmp_path / "out.msgpack"
    for busy in (0.8, 1.5):  # the read takes seconds from about 0.5 s on
        _terminate_after(["convert", bag, out, "--overwrite"], busy)
        assert not out.exists()


def test_sigterm_during_a_batch(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for k in range(8):  # two workers, each CSV some seconds: busy for ten seconds or more
        write(_motion(500_000, tuple(f"j{j}" for j in range(12))), src / f"m{k}.msgpack")
    out = tmp_path / "out"
    for busy in (2.0, 4.0):
        _terminate_after(["batch", src, "-o", out, "--to", "csv", "--workers", "2", "--overwrite"], busy)
        assert not list(out.glob("**/.*.tmp")) if out.exists() else True


#: Runs the CLI and sends itself SIGTERM while ``recover`` reads the journal: from the profiler
#: hook, at the call that releases the pages read so far past 1 MiB, in the first pass
#: (``index``) or after the reader rewound for the second (``fill``). A real signal, delivered
#: where a view of the journal's memory map is alive, at the same point on every run.
_SIGTERM_DURING_READ = """
import os, signal, sys
from motion_formats_ros.cli.main import main
rewound = False
def hook(frame, event, arg):
    global rewound
    if event != "call" or not frame.f_code.co_filename.endswith("journal.py"):
        return
    rewound = rewound or frame.f_code.co_name == "reset"
    # f_locals only of upto (self, pos): a snapshot of another frame's locals would keep its view alive
    if frame.f_code.co_name == "upto" and frame.f_locals["pos"] > 1 << 20 and rewound == (sys.argv[1] == "fill"):
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGTERM)
sys.setprofile(hook)
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("during", ["index", "fill"])
def test_sigterm_during_a_journal_read(tmp_path: Path, during: str) -> None:
    """SIGTERM while ``recover`` reads a journal (views of its memory map alive) ends it as
    every command ends: ``terminated``, 143, no traceback, no output."""
    from motion_formats_ros.recording.journal import JournalWriter

    journal = tmp_path / "big.journal"
    names = [f"j{k}" for k in range(50)]
    values = np.arange(50.0)
    w = JournalWriter(journal, {"name": "big"}, flush_interval=1e9)
    for k in range(4000):  # 5 MB: the read passes the 1 MiB mark in both passes
        w.joints("joint_states", names, 10**18 + k * 10**7, 10**18 + k * 10**7, values, values, values)
    w.close()
    out = tmp_path / "out"
    out.mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", _SIGTERM_DURING_READ, during, "recover", journal, out / "run.msgpack"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 128 + signal.SIGTERM, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == ["terminated"]
    assert proc.stdout == ""
    assert not list(out.iterdir()), "an output or a temporary was left"
