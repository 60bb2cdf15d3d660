"""A ``.seq`` written with ``--body`` loses no joint names: its columns are in the body's joint-ID order.

Every test runs ``motion-formats`` as a user does, on the built-in walk example (``walk.seq`` in
the joint-ID order of ``biped.body``) written into a temporary folder.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros import read

EXE = Path(sys.executable).parent / "motion-formats"


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=180, cwd=cwd)


@pytest.fixture
def example(tmp_path: Path) -> Path:
    folder = tmp_path / "example"
    folder.mkdir()
    proc = run("example", "walk", "-o", folder)
    assert proc.returncode == 0, proc.stderr
    return folder


def _body_order(example: Path) -> list[str]:
    return list(read(example / "walk.seq", body=example / "biped.body").motion.joint_names)


def test_batch_writes_a_seq_in_the_body_order_without_saying_names_are_lost(example: Path, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    body = example / "biped.body"
    order = _body_order(example)
    assert run("convert", example / "walk.seq", src / "w.msgpack", "--body", body).returncode == 0
    reversed_order = ",".join(reversed(order))  # the columns in another order than the body's
    assert run("convert", src / "w.msgpack", src / "r.msgpack", "--joints", reversed_order).returncode == 0
    proc = run("batch", src, "-o", out, "--to", "seq", "--body", body, "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert "joint names" not in proc.stderr, proc.stderr  # the old batch warned: the body was not its writer's
    for name in ("w.seq", "r.seq"):  # the body read back gives every column its name
        assert list(read(out / name, body=body).motion.joint_names) == order


def test_simulate_writes_a_seq_in_the_body_order_without_saying_names_are_lost(example: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("mujoco") is None:
        pytest.skip("needs MuJoCo (the sim extra)")
    body, out = example / "biped.body", tmp_path / "did.seq"
    proc = run("simulate", example / "walk.seq", "--body", body, "-o", out, "--speed", "4")
    assert proc.returncode in (0, 3), proc.stderr
    assert "joint names" not in proc.stderr, proc.stderr
    assert list(read(out, body=body).motion.joint_names) == _body_order(example)
