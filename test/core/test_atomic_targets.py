"""Outputs that are not regular files: links are written through, devices, FIFOs and sockets refused.

Devices are only ever made here, in a temporary folder (``os.mknod``, as root): a regression
would replace the test's own node, never one of the system's. The system's ``/dev/full`` is
only given to the check that runs before any write, which touches nothing.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros import write
from motion_formats_ros.cli.flags import SPELLING
from motion_formats_ros.core import atomic
from motion_formats_ros.core.errors import WriteError, command_line
from motion_formats_ros.core.examples import biped_walk

EXE = Path(sys.executable).parent / "motion-formats"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=120)


def _char_device(path: Path) -> Path:
    """A character device node of our own (the null device's numbers), or skip where one cannot be made."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc.strerror}): needs root")
    return path


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("targets") / "walk.msgpack"
    write(biped_walk(rate=25.0, cycles=1), path)
    return path


def test_the_systems_full_device_is_refused_before_anything_is_written() -> None:
    if not Path("/dev/full").is_char_device():
        pytest.skip("no /dev/full here")
    with pytest.raises(WriteError, match=r"^/dev/full: is a character device, not a regular file"):
        atomic.check_writable("/dev/full", overwrite=True)  # only looks: the old code returned here too
    assert Path("/dev/full").is_char_device()


@pytest.mark.parametrize("command", ["convert", "motion2bag", "plot"])
def test_a_device_given_as_output_is_refused_and_left_a_device(command: str, walk: Path, tmp_path: Path) -> None:
    if command == "plot":
        pytest.importorskip("matplotlib")
    node = _char_device(tmp_path / ("out.png" if command == "plot" else "out.yaml"))
    proc = run(command, walk, node, "--overwrite")
    assert proc.returncode == 1, proc.stderr
    assert (
        proc.stderr
        == f"error: {node}: is a character device, not a regular file: outputs are only written to files and folders\n"
    )
    assert node.is_char_device()  # the old code replaced it with a regular file
    assert sorted(p.name for p in tmp_path.iterdir()) == [node.name]  # no temporary left


def test_a_fifo_and_a_socket_are_refused(walk: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "out.yaml"
    os.mkfifo(fifo)
    proc = run("convert", walk, fifo, "--overwrite")
    assert proc.returncode == 1 and "is a FIFO (named pipe), not a regular file" in proc.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    sock_path = tmp_path / "s.yaml"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(WriteError, match="is a socket"):
            write(biped_walk(rate=25.0, cycles=1), sock_path, overwrite=True)
    assert stat.S_ISSOCK(sock_path.lstat().st_mode)


def test_a_link_to_a_device_is_refused_and_kept(walk: Path, tmp_path: Path) -> None:
    node = _char_device(tmp_path / "dev")
    link = tmp_path / "out.yaml"
    link.symlink_to(node)
    proc = run("convert", walk, link, "--overwrite")
    assert proc.returncode == 1 and "is a character device" in proc.stderr
    assert link.is_symlink() and node.is_char_device()


def test_a_link_is_written_through_and_kept(walk: Path, tmp_path: Path) -> None:
    real = tmp_path / "data" / "walk.yaml"
    real.parent.mkdir()
    real.write_text("old\n")
    os.chmod(real, 0o640)
    link = tmp_path / "walk.yaml"
    link.symlink_to(Path("data") / "walk.yaml")  # relative, as links usually are
    proc = run("convert", walk, link)
    assert proc.returncode == 1 and "already exists (pass --overwrite to replace it)" in proc.stderr
    proc = run("convert", walk, link, "--overwrite")
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == str(Path("data") / "walk.yaml")  # the link is kept
    assert real.read_text().startswith("%YAML") or "joint" in real.read_text()  # its target replaced
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["walk.yaml"]  # no temporary left beside it


def test_a_dangling_link_creates_its_target_and_a_loop_is_one_line(walk: Path, tmp_path: Path) -> None:
    link = tmp_path / "walk.yaml"
    link.symlink_to("target.yaml")
    assert run("convert", walk, link, "--overwrite").returncode == 0
    assert link.is_symlink() and (tmp_path / "target.yaml").is_file()
    loop = tmp_path / "loop.yaml"
    loop.symlink_to("loop.yaml")
    proc = run("convert", walk, loop, "--overwrite")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "loop.yaml" in proc.stderr
    assert loop.is_symlink()


def test_a_report_through_a_link_keeps_the_link_and_dash_is_standard_output(walk: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = tmp_path / "r.json"
    report.write_text("{}")
    link = tmp_path / "report.json"
    link.symlink_to(report)
    proc = run("batch", walk, "-o", out, "--to", "yaml", "--workers", "1", "--report", link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and '"converted": 1' in report.read_text()
    proc = run("batch", walk, "-o", out, "--to", "yaml", "--workers", "1", "--report", "-", "--overwrite")
    assert proc.returncode == 0, proc.stderr
    import json

    assert json.loads(proc.stdout)["summary"]["converted"] == 1  # standard output is the report alone
    assert not (tmp_path / "-").exists()
    node = _char_device(tmp_path / "dev.json")
    proc = run("batch", walk, "-o", out, "--to", "yaml", "--workers", "1", "--report", node)
    assert proc.returncode == 1 and "is a character device" in proc.stderr and node.is_char_device()


def test_messages_name_the_flag_on_the_command_line_and_the_keyword_in_python(tmp_path: Path) -> None:
    out = tmp_path / "w.yaml"
    out.write_text("x")
    with pytest.raises(WriteError, match=r"pass overwrite=True to replace it\)$"):
        atomic.check_writable(out)
    with command_line(SPELLING), pytest.raises(WriteError, match=r"pass --overwrite to replace it\)$"):
        atomic.check_writable(out)


def test_a_bag_folder_holding_recordings_its_metadata_does_not_list_is_never_replaced(tmp_path: Path) -> None:
    bag = tmp_path / "bag"
    write(biped_walk(rate=20.0, cycles=1), bag, "rosbag")
    (own,) = (p.name for p in bag.glob("*.mcap"))
    other = bag / "other_session.mcap"
    other.write_bytes((bag / own).read_bytes())
    (bag / "backup.db3").write_bytes(b"SQLite format 3\0")
    with pytest.raises(WriteError, match=r"holding backup\.db3, other_session\.mcap"):
        write(biped_walk(rate=10.0, cycles=1), bag, "rosbag", overwrite=True)
    assert other.exists() and (bag / "backup.db3").exists()
    other.unlink()
    (bag / "backup.db3").unlink()
    write(biped_walk(rate=10.0, cycles=1), bag, "rosbag", overwrite=True)  # the bag's own files alone: replaced


def test_a_fifo_named_metadata_yaml_is_not_waited_on(tmp_path: Path) -> None:
    bag = tmp_path / "bag"
    bag.mkdir()
    os.mkfifo(bag / "metadata.yaml")
    code = "import sys; from motion_formats_ros.core import atomic; print(atomic.foreign_entries(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", code, bag], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0 and "metadata.yaml" in done.stdout, done.stderr


def test_batch_makes_no_folder_through_a_link_to_nothing_and_says_so_in_one_line(walk: Path, tmp_path: Path) -> None:
    """A link to nothing where batch would make a folder (the output folder, or one of the tree it
    mirrors) stands for a folder that is not there (a disk not mounted): refused, naming the link."""
    src = tmp_path / "src"
    (src / "day").mkdir(parents=True)
    (src / "day" / "w.msgpack").write_bytes(walk.read_bytes())
    gone = tmp_path / "unmounted" / "tables"
    out = tmp_path / "out"
    out.symlink_to(gone)
    proc = run("batch", src, "-o", out, "--to", "csv", "--workers", "1")
    assert proc.returncode == 1 and proc.stdout == "", proc.stdout
    assert proc.stderr == (
        f"error: {out}: is a symbolic link to '{gone}', which does not exist: no folder is made through a link "
        "(make the folder it points to, or remove the link)\n"
    )  # the old code failed every input with "out: File exists"
    out.unlink()
    out.mkdir()
    (out / "day").symlink_to(gone)
    proc = run("batch", src, "-o", out, "--to", "csv", "--workers", "1")
    assert proc.returncode == 1
    assert f"{src / 'day' / 'w.msgpack'}: {out / 'day'}: is a symbolic link to '{gone}', which does not exist" in (
        proc.stderr
    )
    assert "File exists" not in proc.stdout + proc.stderr
    assert not gone.parent.exists() and (out / "day").is_symlink()


def test_a_link_to_nothing_as_the_output_is_written_through_as_with_overwrite(walk: Path, tmp_path: Path) -> None:
    """Batch rewrites a missing output: an output that is a link to nothing is written through (its
    target made, the link kept), as ``convert --overwrite`` does; a link whose target's folder is
    missing is one line naming the output as given."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "w.msgpack").write_bytes(walk.read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    (tmp_path / "store").mkdir()
    (out / "w.csv").symlink_to(tmp_path / "store" / "w.csv")
    proc = run("batch", tmp_path / "src", "-o", out, "--to", "csv", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert (out / "w.csv").is_symlink() and (tmp_path / "store" / "w.csv").read_text().startswith("time")
    (out / "w.csv").unlink()
    (out / "w.csv").symlink_to(tmp_path / "nowhere" / "w.csv")
    proc = run("convert", walk, out / "w.csv", "--overwrite")
    assert proc.returncode == 1
    assert proc.stderr == (
        f"error: {out / 'w.csv'}: is a symbolic link to '{tmp_path / 'nowhere' / 'w.csv'}', whose folder "
        f"'{tmp_path / 'nowhere'}' does not exist\n"
    )
