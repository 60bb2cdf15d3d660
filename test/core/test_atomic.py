"""Atomic outputs under interruption: a kill between two renames, SIGKILL, SIGTERM.

Each fault is injected in a child process (os.rename / os.replace patched there to signal
the child itself), so the parent sees exactly what a killed run leaves on disk.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core import atomic
from motion_formats_ros.core.errors import WriteError

REPO = Path(__file__).resolve().parents[2]

#: Child: argv = [kind, output, seed, overwrite, call to stop at, signal, exchange allowed]; writes a motion
#: after patching os.rename and os.replace to send the signal on the given call that moves the output.
_CHILD = """
import os, signal, sys, time
import numpy as np
from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.core import atomic
kind, out, seed, overwrite, stop_at, sig, exchange = sys.argv[1:]
calls = []
def patched(real):
    def call(*args, **kwargs):
        if out not in map(os.fspath, args[:2]):  # only the renames that move the output itself
            return real(*args, **kwargs)
        calls.append(args)
        if len(calls) == int(stop_at):
            os.kill(os.getpid(), getattr(signal, sig))
            time.sleep(10)
        return real(*args, **kwargs)
    return call
if exchange == "no" and hasattr(atomic, "_exchange"):
    def _no_exchange(a, b):
        raise OSError(22, "not on this file system")
    atomic._exchange = _no_exchange
os.rename = patched(os.rename)
os.replace = patched(os.replace)
m = Motion(times=np.arange(10) / 10.0, joint_names=("a", "b"), position=np.full((10, 2), float(seed)))
if kind == "cli":
    from motion_formats_ros.cli.main import main
    src = out + ".src.msgpack"
    sys.exit(main(["convert", src, out, "--overwrite"]))
write(MotionFile.single(m, "target"), out, "rosbag" if kind == "bag" else None, overwrite=overwrite == "yes")
"""


def motion_file(value: float) -> MotionFile:
    return MotionFile.single(
        Motion(times=np.arange(10) / 10.0, joint_names=("a", "b"), position=np.full((10, 2), value)), "target"
    )


def child(kind: str, out: Path, seed: int, *, overwrite: bool, stop_at: int, sig: str, exchange: bool = True) -> int:
    args = [kind, str(out), str(seed), "yes" if overwrite else "no", str(stop_at), sig, "yes" if exchange else "no"]
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *args],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode


def temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.tmp"))


def values(path: Path) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        motion = next(iter(read(path, "rosbag" if path.is_dir() else None).groups.values()))
    return float(np.unique(motion.position)[0])


def test_a_bag_folder_killed_between_its_two_renames_is_put_back_by_the_next_write(tmp_path: Path) -> None:
    bag = tmp_path / "run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(motion_file(1.0), bag, "rosbag")
    # Where folders cannot be exchanged in one step: old aside, then new in place; killed in between.
    assert child("bag", bag, 2, overwrite=True, stop_at=2, sig="SIGKILL", exchange=False) == -signal.SIGKILL
    assert temporaries(tmp_path), "the fault was not injected where intended"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(WriteError, match="already exists"):
            write(motion_file(3.0), bag, "rosbag")
    assert values(bag) == 1.0  # the old bag, whole
    assert not temporaries(tmp_path)
    messages = [str(w.message) for w in caught]
    assert any(f"{bag}: put back from" in m for m in messages), messages
    assert any("removed a temporary left by an interrupted write" in m for m in messages), messages


@pytest.mark.skipif(sys.platform != "linux", reason="folders are exchanged in one step on Linux only")
def test_a_bag_folder_is_replaced_in_one_step_where_the_system_can(tmp_path: Path) -> None:
    bag = tmp_path / "run"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(motion_file(1.0), bag, "rosbag")
    # Any rename or replace of the bag folder would kill the writer: there is none.
    code = child("bag", bag, 2, overwrite=True, stop_at=1, sig="SIGKILL")
    if code == -signal.SIGKILL:
        pytest.skip("this file system cannot exchange folders")
    assert code == 0
    assert values(bag) == 2.0
    assert not temporaries(tmp_path)


def test_a_temporary_a_killed_writer_left_is_removed_by_the_next_write(tmp_path: Path) -> None:
    out = tmp_path / "walk.msgpack"
    write(motion_file(1.0), out)
    assert child("write", out, 2, overwrite=True, stop_at=1, sig="SIGKILL") == -signal.SIGKILL
    left = temporaries(tmp_path)
    assert len(left) == 1 and left[0].name.startswith(".walk.msgpack.")
    assert values(out) == 1.0
    with pytest.warns(UserWarning, match="removed a temporary left by an interrupted write"):
        write(motion_file(3.0), out, overwrite=True)
    assert values(out) == 3.0
    assert not temporaries(tmp_path)


def test_a_live_writers_temporary_is_left_alone(tmp_path: Path) -> None:
    out = tmp_path / "walk.msgpack"
    mine = tmp_path / f"{atomic.temp_prefix(out)}x.tmp"
    mine.write_bytes(b"in progress")
    foreign = tmp_path / ".walk.msgpack.zzzz-1.x.tmp"  # another machine's (a shared folder)
    foreign.write_bytes(b"in progress")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(motion_file(1.0), out)
    assert mine.exists() and foreign.exists()


def test_sigterm_stops_the_command_line_like_sigint(tmp_path: Path) -> None:
    out = tmp_path / "walk.csv"
    write(motion_file(5.0), Path(str(out) + ".src.msgpack"))
    write(motion_file(1.0), out)
    code = child("cli", out, 0, overwrite=True, stop_at=1, sig="SIGTERM")
    assert code == 128 + signal.SIGTERM
    assert values(out) == 1.0
    assert not temporaries(tmp_path)


def test_temporaries_are_new_private_and_named_for_the_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each write makes a temporary of its own (O_EXCL, random part; a folder 0700), named
    ``.NAME.<host>-<pid>.<random>.tmp`` so that a later write can tell its owner."""
    out = tmp_path / "walk.msgpack"
    seen = []
    with atomic.atomic_output(out) as first, atomic.atomic_output(tmp_path / "other.bin") as second:
        for fh in (first, second):
            tmp = Path(os.readlink(f"/proc/self/fd/{fh.fileno()}"))
            assert tmp.parent == tmp_path and tmp.name.endswith(".tmp")
            seen.append(tmp)
        assert seen[0].name.startswith(atomic.temp_prefix(out))
        assert len(set(temporaries(tmp_path))) == 2
        first.write(b"a")
        second.write(b"b")
    assert out.read_bytes() == b"a" and not temporaries(tmp_path)
    with atomic.temp_folder(out) as folder:
        assert folder.name.startswith(atomic.temp_prefix(out)) and folder.parent == tmp_path
        assert folder.stat().st_mode & 0o777 == 0o700
        (folder / "inside").write_bytes(b"x")
    assert not folder.exists()
    # A name already taken is never reused: with the random part fixed, the second try fails cleanly.
    taken = tmp_path / f"{atomic.temp_prefix(out)}{'ab' * 6}.tmp"
    taken.write_bytes(b"someone else's")
    monkeypatch.setattr(os, "urandom", lambda n: bytes.fromhex("ab" * n))
    with pytest.raises(WriteError, match="no free temporary name"), atomic.atomic_output(out, overwrite=True):
        pass
    monkeypatch.undo()
    assert taken.read_bytes() == b"someone else's" and out.read_bytes() == b"a"


def test_an_exit_that_skips_cleanup_can_still_remove_what_is_being_written(tmp_path: Path) -> None:
    out, folder_out, other = tmp_path / "a.csv", tmp_path / "bag", tmp_path / "b.csv"
    other.write_bytes(b"kept")
    writing = atomic.atomic_output(out)
    fh = writing.__enter__()
    with atomic.temp_folder(folder_out) as tmp_folder:
        fh.write(b"half")
        (tmp_folder / "x.db3").write_bytes(b"half")
        assert len(list(tmp_path.glob(".*.tmp"))) == 2
        atomic.remove_own_temporaries()  # what a worker does before os._exit
        assert not list(tmp_path.glob(".*.tmp"))
    with pytest.raises(WriteError):
        writing.__exit__(None, None, None)
    assert other.read_bytes() == b"kept"
    assert not out.exists()  # the write it cut short put nothing in place


def test_the_temporaries_of_a_killed_process_are_removed_and_no_others(tmp_path: Path) -> None:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(child.stdout)
    host = atomic.temp_prefix(tmp_path / "x").split(".")[2].split("-")[0]
    theirs = tmp_path / f".m.csv.{host}-{dead}.abc.tmp"
    mine = tmp_path / f".m.csv.{host}-{os.getpid()}.abc.tmp"
    plain = tmp_path / f"m.{host}-{dead}.csv"
    for p in (theirs, mine, plain):
        p.write_bytes(b"x")
    atomic.remove_temporaries_of(tmp_path, [dead])
    assert not theirs.exists()
    assert mine.exists() and plain.exists()


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("../etc", "'../etc'"),
        ("x" * 101, "'" + "x" * 60 + "'… (101 characters)"),
        ("x" * 1_000_000, "'" + "x" * 60 + "'… (1000000 characters)"),
    ],
    ids=["parent-folder", "101-characters", "1MB"],
)
def test_a_group_name_that_cannot_be_part_of_a_file_name_is_quoted_by_its_start(name: str, shown: str) -> None:
    problem = atomic.check_group_names(["actual", name])
    assert problem is not None and problem.startswith(f"group name {shown}")
    assert len(problem) < 200
    assert atomic.check_group_names(["actual", "x" * 100]) is None
