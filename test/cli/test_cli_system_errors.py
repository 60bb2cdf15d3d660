"""What the system refuses (a full disk, paths this user may not read or write) is one line
naming the file, exit status 1, nothing left behind; never a traceback.

The full disk is a real one: a 1 MB tmpfs mounted for the test (root only; skipped where
mounting is not permitted). Permissions are judged as a user without DAC override would
meet them: as root, the command line runs with those capabilities dropped (setpriv).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.cli import EXE

from motion_formats_ros import Motion, MotionFile, write

REPO = Path(__file__).resolve().parents[2]
CLI = "import sys; from motion_formats_ros.cli.main import main; sys.exit(main(sys.argv[1:]))"
NO_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def run_cli(*args: str | Path, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*(prefix or []), sys.executable, "-c", CLI, *(str(a) for a in args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], names: Path | str) -> None:
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert str(names) in lines[0], proc.stderr


@pytest.fixture(scope="module")
def medium(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A motion of about 2 MB: more than the full disk holds in any format."""
    rng = np.random.default_rng(0)
    frames, joints = 20_000, 10
    m = Motion(
        times=np.arange(frames) / 100.0,
        joint_names=tuple(f"joint_{i}" for i in range(joints)),  # what a .seq reader names them: nothing lost
        position=rng.normal(size=(frames, joints)),
    )
    path = tmp_path_factory.mktemp("medium") / "med.msgpack"
    write(MotionFile.single(m, "target"), path)
    return path


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A mounted 1 MB tmpfs, unmounted at the end."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (["motion2bag", "{src}", "{out}", "--storage", "sqlite3"], "bag"),
        (["motion2bag", "{src}", "{out}"], "bag"),
        (["convert", "{src}", "{out}"], "walk.csv"),
        (["convert", "{src}", "{out}"], "walk.yaml"),
        (["convert", "{src}", "{out}"], "walk.seq"),
        (["convert", "{src}", "{out}"], "walk.parquet"),
    ],
    ids=["sqlite3-bag", "mcap-bag", "csv", "yaml", "seq", "parquet"],
)
def test_a_full_disk_is_one_line_naming_the_output(
    medium: Path, full_disk: Path, command: list[str], output: str
) -> None:
    if output.endswith(".parquet") and importlib.util.find_spec("pyarrow") is None:
        pytest.skip("needs pyarrow (the [parquet] extra)")
    out = full_disk / output
    proc = run_cli(*(a.format(src=medium, out=out) for a in command))
    assert_one_line_error(proc, out)
    assert "No space left on device" in proc.stderr or "full" in proc.stderr, proc.stderr
    assert not list(full_disk.iterdir()), "something was left on the full disk"


def test_batch_on_a_full_disk_names_each_input_without_internal_errors(medium: Path, full_disk: Path) -> None:
    proc = run_cli("batch", medium, "-o", full_disk / "out", "--to", "db3", "--workers", "1")
    assert proc.returncode == 1
    assert "internal error" not in proc.stdout + proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert f"{medium}: {full_disk / 'out' / 'med.db3'}:" in proc.stderr, proc.stderr
    assert not list((full_disk / "out").rglob("*")), "something was left on the full disk"


@pytest.fixture
def no_dac() -> list[str]:
    """The prefix that runs a command as a user without DAC override."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv to drop root's DAC override")
    probe = subprocess.run([*NO_DAC, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot drop capabilities here: {probe.stderr.strip()}")
    return NO_DAC


@pytest.fixture
def locked_tree(tmp_path: Path, medium: Path) -> Iterator[Path]:
    """ok.msgpack, unreadable.msgpack (mode 000), locked/a.msgpack (folder mode 000),
    bag/ (its storage file mode 000), readonly/ (mode 555)."""
    root = tmp_path / "tree"
    (root / "locked").mkdir(parents=True)
    (root / "readonly").mkdir()
    shutil.copy(medium, root / "ok.msgpack")
    shutil.copy(medium, root / "unreadable.msgpack")
    shutil.copy(medium, root / "locked" / "a.msgpack")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(MotionFile.single(_small(), "actual"), root / "bag", "rosbag")
    modes = {root / "unreadable.msgpack": 0o000, root / "locked": 0o000, root / "readonly": 0o555}
    modes.update(dict.fromkeys((root / "bag").glob("*.mcap"), 0))
    for path, mode in modes.items():
        path.chmod(mode)
    try:
        yield root
    finally:
        for path in modes:
            path.chmod(0o755)


def _small() -> Motion:
    return Motion(times=np.arange(5) / 10.0, joint_names=("a",), position=np.zeros((5, 1)))


@pytest.mark.parametrize(
    ("command", "named"),
    [
        (["info", "{root}/unreadable.msgpack"], "{root}/unreadable.msgpack"),
        (["info", "{root}/locked/a.msgpack"], "{root}/locked/a.msgpack"),
        (["convert", "{root}/locked/a.msgpack", "{root}/a.csv"], "{root}/locked/a.msgpack"),
        (["info", "{root}/bag"], "{root}/bag"),
        (["bag2motion", "{root}/bag", "{root}/x.msgpack"], "{root}/bag"),
        (["convert", "{root}/ok.msgpack", "{root}/readonly/a.csv"], "{root}/readonly/a.csv"),
        (["convert", "{root}/ok.msgpack", "{root}/locked/a.csv"], "{root}/locked/a.csv"),
        (["motion2bag", "{root}/ok.msgpack", "{root}/readonly/b"], "{root}/readonly/b"),
    ],
    ids=lambda v: "-".join(str(x).replace("{root}/", "") for x in v) if isinstance(v, list) else None,
)
def test_paths_this_user_may_not_use_are_one_line_naming_them(
    locked_tree: Path, no_dac: list[str], command: list[str], named: str
) -> None:
    proc = run_cli(*(a.format(root=locked_tree) for a in command), prefix=no_dac)
    assert_one_line_error(proc, named.format(root=locked_tree))
    assert "denied" in proc.stderr or "not writable" in proc.stderr, proc.stderr


def test_batch_skips_a_folder_it_may_not_read_and_names_what_failed(locked_tree: Path, no_dac: list[str]) -> None:
    out = locked_tree.parent / "out"
    proc = run_cli("batch", locked_tree, "-o", out, "--to", "csv", "--workers", "1", prefix=no_dac)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert f"warning: {locked_tree / 'locked'}: skipped, cannot be read" in proc.stderr, proc.stderr
    assert f"{locked_tree / 'unreadable.msgpack'}: Permission denied" in proc.stderr
    assert (out / "ok.csv").is_file()


@pytest.mark.skipif(os.name != "posix", reason="undecodable argv bytes are a POSIX matter")
@pytest.mark.parametrize("command", ["info", "convert", "batch"])
def test_joint_names_that_are_not_utf8_name_the_option(tmp_path: Path, command: str) -> None:
    seq = tmp_path / "a.seq"
    write(MotionFile.single(_small(), "target"), seq)
    args = {
        "info": [seq],
        "convert": [seq, tmp_path / "a.msgpack"],
        "batch": [seq, "-o", tmp_path / "out", "--to", "msgpack"],
    }[command]
    bad = os.fsdecode(b"a\xff")  # what Python makes of the byte 0xff in argv
    proc = run_cli(command, *args, "--joint-names", bad)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert (
        proc.stderr.strip()
        .splitlines()[-1]
        .endswith("error: argument --joint-names: not valid UTF-8 (byte 0xff in 'a\\xff')")
    ), proc.stderr
    assert not (tmp_path / "a.msgpack").exists() and not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def robot_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The walk example (walk.seq, biped.body, biped.urdf) in a folder of its own."""
    from motion_formats_ros.cli.example import contents

    folder = tmp_path_factory.mktemp("example")
    for name, data in contents("walk").items():
        (folder / name).write_bytes(data)
    return folder


STDOUT_COMMANDS = {
    "check-json": ["check", "{walk}", "--body", "{body}", "--json"],
    "check": ["check", "{walk}", "--body", "{body}"],
    "info": ["info", "{walk}", "--body", "{body}"],
    "info-json": ["info", "{walk}", "--body", "{body}", "--json"],
    "validate": ["validate", "{walk}", "--body", "{body}"],
    "formats": ["formats"],
    "formats-options": ["formats", "--options", "--markdown"],
    "example-list": ["example"],
    "help": ["--help"],
    "version": ["--version"],
    "command-help": ["convert", "--help"],
}


@pytest.mark.parametrize("command", list(STDOUT_COMMANDS.values()), ids=list(STDOUT_COMMANDS))
def test_standard_output_that_cannot_be_written_is_one_line_naming_it(robot_example: Path, command: list[str]) -> None:
    if not Path("/dev/full").is_char_device():
        pytest.skip("no /dev/full here")
    if command[0] == "check":
        pytest.importorskip("coal", reason="checking the example biped's collision shapes needs coal")
    args = [a.format(walk=robot_example / "walk.seq", body=robot_example / "biped.body") for a in command]
    with open("/dev/full", "w") as full:  # every write fails: No space left on device
        proc = subprocess.run(
            [sys.executable, "-c", CLI, *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    assert proc.returncode == 1, proc.stderr
    assert (
        proc.stderr == "error: cannot write to standard output: No space left on device\n"
    )  # was without "standard output"


def test_standard_output_on_a_full_disk_is_one_line_naming_it(robot_example: Path, full_disk: Path) -> None:
    """A file on a full disk takes nothing: what was buffered fails when the command ends."""
    filler = full_disk / "filler"
    with open(filler, "wb") as fh, contextlib.suppress(OSError):
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()
    with open(full_disk / "out.txt", "w") as out:
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                CLI,
                "info",
                str(robot_example / "walk.seq"),
                "--body",
                str(robot_example / "biped.body"),
            ],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "error: cannot write to standard output: No space left on device\n"


def _with_closed(redirect: str, args: list[str]) -> subprocess.CompletedProcess[str]:
    """The installed command started as a shell starts it after ``>&-`` / ``2>&-`` (no such descriptor)."""
    return subprocess.run(
        ["sh", "-c", f'exec "$0" "$@" {redirect}', str(EXE), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.parametrize("command", list(STDOUT_COMMANDS.values()), ids=list(STDOUT_COMMANDS))
def test_a_closed_standard_output_is_one_line_saying_so(robot_example: Path, command: list[str]) -> None:
    if command[0] == "check":
        pytest.importorskip("coal", reason="checking the example biped's collision shapes needs coal")
    args = [a.format(walk=robot_example / "walk.seq", body=robot_example / "biped.body") for a in command]
    proc = _with_closed(">&-", args)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "error: cannot write to standard output: Bad file descriptor\n"


def test_a_closed_standard_error_leaves_the_output_alone_and_the_status_tells(robot_example: Path) -> None:
    walk = str(robot_example / "walk.seq")
    full = _with_closed("", ["info", walk, "--body", str(robot_example / "biped.body")])
    assert full.returncode == 0 and full.stdout.startswith("file:"), full.stderr
    proc = _with_closed("2>&-", ["info", walk, "--body", str(robot_example / "biped.body")])
    assert (proc.returncode, proc.stdout) == (0, full.stdout)
    warned = _with_closed("2>&-", ["info", walk])  # its joints unnamed: a warning with nowhere to go
    assert warned.returncode == 0 and "warning" not in warned.stdout and warned.stdout.startswith("file:")
    missing = _with_closed("2>&-", ["info", str(robot_example / "missing.seq")])
    assert (missing.returncode, missing.stdout) == (1, "")  # the error is not printed on standard output
    both = _with_closed(">&- 2>&-", ["info", walk])
    assert (both.returncode, both.stdout, both.stderr) == (1, "", "")
