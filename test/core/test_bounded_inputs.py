"""Inputs that never end, files that are mostly holes, FIFOs and devices, a xacro file that
builds a gigabyte, and SIGTERM inside a long parse.

Every case that could take memory runs the command line in a child process whose address
space is limited (RLIMIT_AS), so a reader that reads without bound fails there (a
MemoryError, not the expected one-line refusal) instead of taking the machine. Sparse
files cost nothing on disk.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from support.procfs import catches, read_bytes

from motion_formats_ros import Motion, MotionFile, write

REPO = Path(__file__).resolve().parents[2]
#: The address space a child command may use: far below what an unbounded read of these inputs takes.
LIMIT = 1 << 30
GIB = 1 << 30
CLI = "import sys; from motion_formats_ros.cli.main import main; sys.exit(main(sys.argv[1:]))"


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def cli(*args: str, cwd: Path | None = None, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """The command line in a child process under the address-space limit."""
    return subprocess.run(
        [sys.executable, "-c", CLI, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        preexec_fn=_limit,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )


def one_error(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, (result.returncode, result.stderr[-2000:])
    return lines[0]


def sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


def walk_seq(tmp_path: Path) -> Path:
    seq = tmp_path / "walk.seq"
    seq.write_bytes((REPO / "examples" / "walk.seq").read_bytes())
    return seq


# --------------------------------------------------------------------------- devices, FIFOs
def test_a_character_device_is_refused_at_once() -> None:
    line = one_error(cli("info", "/dev/zero", "--from", "omf"))
    assert line == "error: /dev/zero: a character device, not a regular file"


@pytest.mark.parametrize("name", ["zero.msgpack", "zero.mtn", "zero.yaml"])
def test_a_motion_file_linked_to_a_device_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / name).symlink_to("/dev/zero")
    line = one_error(cli("info", str(tmp_path / name)))
    assert line.endswith(f"{name}: a character device, not a regular file"), line


@pytest.mark.parametrize("name", ["pipe.msgpack", "pipe.yaml", "pipe.seq"])
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / name)
    line = one_error(cli("info", str(tmp_path / name), timeout=60))
    assert line.endswith(f"{name}: a FIFO, not a regular file"), line


@pytest.mark.parametrize(
    "name", ["p.csv", "p.parquet", "p.pseq", "p.mof", "p.mtn", "p.json5", "p.json", "p.mcap", "p.db3", "p.bag"]
)
def test_a_fifo_of_every_format_is_refused_at_once(tmp_path: Path, name: str) -> None:
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow", reason="Parquet is read with pyarrow (parquet extra)")
    os.mkfifo(tmp_path / name)
    started = time.monotonic()
    line = one_error(cli("info", str(tmp_path / name), timeout=60))
    assert "a FIFO, not a regular file" in line and name in line, line
    assert time.monotonic() - started < 30


def test_a_device_as_robot_model_or_body_file_is_refused(tmp_path: Path) -> None:
    seq = walk_seq(tmp_path)
    line = one_error(cli("motion2bag", str(seq), str(tmp_path / "out.mcap"), "--urdf", "/dev/zero"))
    assert line == "error: /dev/zero: cannot read the robot model: a character device, not a regular file"
    line = one_error(cli("info", str(seq), "--body", "/dev/zero"))
    assert line == "error: /dev/zero: cannot read the body file: a character device, not a regular file"
    assert not (tmp_path / "out.mcap").exists()


# --------------------------------------------------------------------------- sparse files
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("holes.mtn", r"holes.mtn: byte 0: bad magic b'\x00\x00\x00\x00', expected b'OMTN'"),
        ("holes.msgpack", "holes.msgpack: byte 0: (top level): expected a mapping, got integer"),
        ("holes.omf.json", "holes.omf.json: byte 0: binary data (a NUL byte), not a text file"),
        ("holes.omf.yaml", "holes.omf.yaml: byte 0: binary data (a NUL byte), not a text file"),
    ],
)
def test_a_sparse_file_is_refused_by_its_first_bytes(tmp_path: Path, name: str, expected: str) -> None:
    sparse(tmp_path / name, 4 * GIB)
    line = one_error(cli("info", str(tmp_path / name)))
    assert line.endswith(expected), line


@pytest.mark.parametrize("name", ["holes.json", "holes.yaml"])
def test_a_sparse_file_of_a_shared_suffix_is_recognised_as_no_format(tmp_path: Path, name: str) -> None:
    sparse(tmp_path / name, 4 * GIB)
    line = one_error(cli("info", str(tmp_path / name)))
    assert "the content matches none of them" in line, line


def test_a_sparse_mtn_after_its_magic_is_refused_at_its_first_section(tmp_path: Path) -> None:
    path = tmp_path / "magic.mtn"
    sparse(path, 4 * GIB)
    with open(path, "r+b") as fh:
        fh.write(b"OMTN")
    line = one_error(cli("info", str(path)))
    assert line.endswith("magic.mtn: byte 8: section 0 size 0 is smaller than its 8-byte header"), line


def test_a_sparse_robot_model_is_refused_by_its_first_bytes(tmp_path: Path) -> None:
    seq = walk_seq(tmp_path)
    urdf = sparse(tmp_path / "holes.urdf", 4 * GIB)
    line = one_error(cli("motion2bag", str(seq), str(tmp_path / "out.mcap"), "--urdf", str(urdf)))
    assert line.endswith("holes.urdf: byte 0: cannot read the robot model: binary data (a NUL byte), not a text file")


# --------------------------------------------------------------------------- xacro
BOMB = """<?xml version="1.0"?>
<robot name="bomb" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="big" value="${'x'*(10**9)}"/>
  <link name="${big}"/>
</robot>
"""


def test_a_xacro_string_bomb_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("xacro")
    bomb = tmp_path / "bomb.urdf.xacro"
    bomb.write_text(BOMB, encoding="utf-8")
    assert len(BOMB) < 400
    seq = walk_seq(tmp_path)
    line = one_error(cli("motion2bag", str(seq), str(tmp_path / "out.mcap"), "--urdf", str(bomb)))
    assert line == f"error: {bomb}: its xacro expansion needs more than 512 MiB of memory"


def test_a_xacro_error_is_said_once(tmp_path: Path) -> None:
    pytest.importorskip("xacro")
    path = tmp_path / "inc.urdf.xacro"
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:include filename="nosuch.xacro"/><link name="a"/></robot>',
        encoding="utf-8",
    )
    seq = walk_seq(tmp_path)
    line = one_error(cli("motion2bag", str(seq), str(tmp_path / "out.mcap"), "--urdf", str(path)))
    missing = tmp_path / "nosuch.xacro"
    assert line == f"error: {path}: xacro could not expand it: No such file or directory: {missing}"


@pytest.mark.parametrize("how", ["include", "load_yaml"])
def test_a_fifo_or_device_a_xacro_reads_is_refused_at_once(tmp_path: Path, how: str) -> None:
    pytest.importorskip("xacro")
    from motion_formats_ros.core.errors import ReadError
    from motion_formats_ros.core.kinematics import expand_xacro

    os.mkfifo(tmp_path / "pipe")  # no writer ever comes
    for name, kind in (("pipe", "a FIFO"), ("/dev/zero", "a character device")):
        use = (
            f'<xacro:include filename="{name}"/>'
            if how == "include"
            else f'<xacro:property name="p" value="${{xacro.load_yaml(\'{name}\')}}"/><link name="l${{len(p)}}"/>'
        )
        path = tmp_path / "r.urdf.xacro"
        path.write_text(f'<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">{use}<link name="a"/></robot>')
        started = time.monotonic()
        with pytest.raises(ReadError, match=rf"xacro could not expand it: {kind}, not a regular file: \S*{name}$"):
            expand_xacro(path, timeout=20)
        assert time.monotonic() - started < 10  # refused, not waited on until the timeout
    (tmp_path / "part.xacro").write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="b"/></robot>')
    (tmp_path / "part.yaml").write_text("b: 1\n")
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:include filename="part.xacro"/>'
        f"<link name=\"a${{xacro.load_yaml('{tmp_path / 'part.yaml'}')['b']}}\"/></robot>"
    )
    text = expand_xacro(path)
    assert '<link name="b"/>' in text and '<link name="a1"/>' in text  # regular files are read as before


def test_a_xacro_model_names_every_file_its_expansion_read(tmp_path: Path) -> None:
    """The expansion runs in a process of its own: it tells the files it read (an include, a YAML
    file it loads), which the model carries as the files it was read from (the inputs no output may touch)."""
    pytest.importorskip("xacro")
    from motion_formats_ros.core.kinematics import load_robot_model

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "part.xacro").write_text(
        "<robot xmlns:xacro=\"http://www.ros.org/wiki/xacro\"><link name=\"b${xacro.load_yaml('p.yaml')['n']}\"/>"
        '<joint name="j" type="fixed"><parent link="a"/><child link="b1"/></joint></robot>'
    )
    (tmp_path / "sub" / "p.yaml").write_text("n: 1\n")
    path = tmp_path / "r.urdf.xacro"
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="a"/>'
        '<xacro:include filename="sub/part.xacro"/></robot>'
    )
    model = load_robot_model(path)
    assert model.link_names == ("a", "b1")
    assert model.files == (path, tmp_path / "sub" / "part.xacro", tmp_path / "sub" / "p.yaml")
    (tmp_path / "plain.urdf").write_text(model.urdf_text or "")
    assert load_robot_model(tmp_path / "plain.urdf").files == (tmp_path / "plain.urdf",)


def test_a_xacro_expansion_that_runs_too_long_is_stopped(tmp_path: Path) -> None:
    """Every expression is quick, but there are 2**40 of them: the whole expansion's time runs out."""
    pytest.importorskip("xacro")
    from motion_formats_ros.core.errors import ReadError
    from motion_formats_ros.core.kinematics import expand_xacro

    slow = tmp_path / "slow.urdf.xacro"
    slow.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:macro name="m" params="n"><xacro:if value="${n > 0}">'
        '<xacro:m n="${n - 1}"/><xacro:m n="${n - 1}"/></xacro:if></xacro:macro>'
        '<xacro:m n="40"/><link name="a"/></robot>',
        encoding="utf-8",
    )
    with pytest.raises(ReadError, match=r"slow.urdf.xacro: xacro did not finish expanding it within 2 s"):
        expand_xacro(slow, timeout=2)


@pytest.mark.parametrize(
    ("value", "shown"),
    [("${9**9**9}", r"\$\{9\*\*9\*\*9\}"), ("${python.sum(python.range(10**12))}", r"\$\{python\.sum\(.*\)\}")],
)
def test_an_expression_that_runs_in_native_code_for_hours_is_stopped_at_once(
    tmp_path: Path, value: str, shown: str
) -> None:
    """A power or a sum that never ends holds the interpreter in native code: it is stopped
    after a second, naming the file, the line and the expression, not after the whole
    expansion's time."""
    pytest.importorskip("xacro")
    from motion_formats_ros.core.errors import ReadError
    from motion_formats_ros.core.kinematics import expand_xacro

    path = tmp_path / "pow.urdf.xacro"
    path.write_text(
        '<?xml version="1.0"?>\n<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">\n  <link name="a"/>\n'
        f'  <xacro:property name="n" value="{value}"/>\n  <link name="b${{n}}"/>\n</robot>\n',
        encoding="utf-8",
    )
    started = time.monotonic()
    with pytest.raises(ReadError) as info:
        expand_xacro(path, timeout=30)
    elapsed = time.monotonic() - started
    assert re.fullmatch(
        rf"{re.escape(str(path))}:4: xacro stopped an expression that took more than 1 s: {shown}", str(info.value)
    )
    assert elapsed < 10, elapsed  # about a second and the interpreter's start, even on a busy machine


def test_an_expression_of_an_included_file_names_that_file(tmp_path: Path) -> None:
    pytest.importorskip("xacro")
    from motion_formats_ros.core.errors import ReadError
    from motion_formats_ros.core.kinematics import expand_xacro

    part = tmp_path / "part.xacro"
    part.write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro">\n<link name="p${9**9**9}"/>\n</robot>\n')
    path = tmp_path / "r.urdf.xacro"
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:include filename="part.xacro"/></robot>'
    )
    with pytest.raises(
        ReadError, match=rf"^{re.escape(str(part))}:2: .*: \$\{{9\*\*9\*\*9\}} \(expanding {re.escape(str(path))}\)$"
    ):
        expand_xacro(path, timeout=30)


def _alias_bomb(levels: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_a_xacro_loads_is_refused_at_once(tmp_path: Path) -> None:
    """Nine levels of ten aliases: a billion values from a kilobyte, refused at the first alias."""
    pytest.importorskip("xacro")
    from motion_formats_ros.core.errors import ReadError
    from motion_formats_ros.core.kinematics import expand_xacro

    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(_alias_bomb(9), encoding="utf-8")
    path = tmp_path / "r.urdf.xacro"
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><link name="a"/>'
        '<xacro:property name="d" value="${xacro.load_yaml(\'bomb.yaml\')}"/><link name="b${len(str(d))}"/></robot>'
    )
    started = time.monotonic()
    with pytest.raises(ReadError) as info:
        expand_xacro(path, timeout=30)
    assert str(info.value) == (
        f"{path}: xacro could not expand it: {bomb}:2: invalid YAML: aliases expand to more than "
        f"{len(_alias_bomb(9)) + 16} values (an alias bomb?) in the YAML file"
    )
    assert time.monotonic() - started < 10


def test_yaml_a_xacro_loads_keeps_its_units_and_its_time_is_not_the_expressions(tmp_path: Path) -> None:
    """xacro's unit tags still read; a unit's expression has the expression's time limit."""
    pytest.importorskip("xacro")
    from motion_formats_ros.core.errors import ReadError
    from motion_formats_ros.core.kinematics import expand_xacro

    units = tmp_path / "units.yaml"
    units.write_text("a: !degrees 90\nb: !millimeters 250\n", encoding="utf-8")
    path = tmp_path / "r.urdf.xacro"
    path.write_text(
        '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
        '<xacro:property name="d" value="${xacro.load_yaml(\'units.yaml\')}"/>'
        '<link name="a${round(d.a, 4)}_${d.b}"/></robot>'
    )
    assert '<link name="a1.5708_0.25"/>' in expand_xacro(path)
    units.write_text("a: !degrees 90\nb: !degrees 9**9**9\n", encoding="utf-8")
    with pytest.raises(
        ReadError, match=rf"^{re.escape(str(units))}: xacro stopped an expression .*: \$\{{9\*\*9\*\*9\}}"
    ):
        expand_xacro(path, timeout=30)


# --------------------------------------------------------------------------- SIGTERM


def test_sigterm_ends_a_long_parse_at_once(tmp_path: Path) -> None:
    """A JSON file of 6 million numbers takes a second or more in the (native) JSON parser,
    where no Python signal handler runs: while it parses, SIGTERM has its default action
    (the command's own handler is back once the file is read), so SIGTERM sent as soon as
    the file is read ends the command within a second."""
    small = tmp_path / "small.omf.json"
    m = Motion(times=np.arange(3) / 10.0, joint_names=("a",), position=np.zeros((3, 1)))
    write(MotionFile.single(m, "target"), small)
    doc = json.loads(small.read_text(encoding="utf-8"))
    big = tmp_path / "big.omf.json"
    with open(big, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(doc)[:-1] + ', "padding": [')
        fh.write(",".join(["0.125"] * 6_000_000))
        fh.write("]}")
    size = big.stat().st_size
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "info", str(big)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_limit,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        while read_bytes(proc.pid) < size:  # the file is read: the parse is running
            assert proc.poll() is None, "the command ended before it had read the file"
            time.sleep(0.01)
        handled = catches(proc.pid, signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        proc.wait(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not handled, "a Python handler of SIGTERM was installed during the parse: it would wait for the parser"
    assert proc.returncode == -signal.SIGTERM
    assert took < 1.0, f"SIGTERM took {took:.2f} s to end the command"
