"""Meshes of many triangles: one over the budget is refused in one line before it is parsed,
and SIGTERM ends ``check`` and ``simulate`` within 2 s while one at the budget is parsed,
built into coal's and MuJoCo's structures or collided (native code that runs no Python
signal handler, and trimesh code that catches every exception)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.procfs import catches, read_bytes

from motion_formats_ros.core.mesh_files import MAX_TRIANGLES

pytest.importorskip("coal")
pytest.importorskip("trimesh")

REPO = Path(__file__).resolve().parents[2]
CLI = "import sys; from motion_formats_ros.cli.main import main; sys.exit(main(sys.argv[1:]))"

ROBOT = """<robot name="big">
  <link name="base"><collision><geometry><mesh filename="big.stl"/></geometry></collision></link>
  <link name="l1"><collision><geometry><mesh filename="big.stl"/></geometry></collision></link>
  <link name="l2"><collision><geometry><mesh filename="big.stl"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="5"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="5"/></joint>
</robot>
"""

STL = np.dtype([("normal", "<f4", 3), ("vertices", "<f4", (3, 3)), ("attribute", "<u2")])


def _model(folder: Path, triangles: int) -> tuple[Path, Path, Path]:
    """(motion, URDF, STL): three links sharing a binary STL of random triangles in a 10 cm cube."""
    data = np.zeros(triangles, dtype=STL)
    data["vertices"] = np.random.default_rng(0).random((triangles, 3, 3), dtype=np.float32) * np.float32(0.1)
    stl = folder / "big.stl"
    with open(stl, "wb") as fh:
        fh.write(b"\0" * 80 + np.uint32(triangles).tobytes())
        fh.write(data.tobytes())
    urdf = folder / "big.urdf"
    urdf.write_text(ROBOT, encoding="utf-8")
    motion = folder / "mo.csv"
    rows = [f"{i / 100:.2f},{i / 1000:.3f},{-i / 1000:.3f}" for i in range(100)]
    motion.write_text("time,j1.position,j2.position\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return motion, urdf, stl


@pytest.mark.parametrize("command", ["check", "simulate"])
@pytest.mark.parametrize("delay", [0.0, 1.5])
def test_sigterm_ends_a_command_on_a_big_mesh_within_2_s(tmp_path: Path, command: str, delay: float) -> None:
    """SIGTERM as soon as the mesh is read (trimesh parses it) or 1.5 s later (the convex hull,
    coal's tree, MuJoCo's compiler or the collision of the meshes): the command ends within
    2 s, without a traceback. While trimesh parses, no Python handler catches SIGTERM (one that
    raises would wait for the native code, and trimesh catches what it raises)."""
    if command == "simulate":
        pytest.importorskip("mujoco")
    motion, urdf, stl = _model(tmp_path, MAX_TRIANGLES)
    extra = ["-o", str(tmp_path / "out.csv")] if command == "simulate" else []
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, command, str(motion), "--urdf", str(urdf), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        while read_bytes(proc.pid) < stl.stat().st_size:  # the mesh is read: its parse is running
            assert proc.poll() is None, "the command ended before it had read the mesh"
            time.sleep(0.01)
        handled = catches(proc.pid, signal.SIGTERM)
        waited = time.monotonic()
        while handled and time.monotonic() - waited < 0.5:  # the few lines from the read to the parse
            handled = catches(proc.pid, signal.SIGTERM)
        time.sleep(delay)
        assert proc.poll() is None, "the command ended before SIGTERM was sent"
        proc.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            stderr = ""
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not handled, "a Python handler of SIGTERM was installed while trimesh parsed the mesh"
    assert took < 2.0, f"SIGTERM took {took:.2f} s to end {command}"
    assert proc.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM), (proc.returncode, stderr[-2000:])
    assert "Traceback" not in stderr, stderr[-2000:]
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("command", ["check", "simulate"])
def test_a_mesh_over_the_triangle_budget_is_refused_by_its_header(tmp_path: Path, command: str) -> None:
    """A binary STL states its triangle count at byte 80: one over the budget is refused in
    one line naming the file and the count, before its 25 MB are read (the file is sparse)."""
    if command == "simulate":
        pytest.importorskip("mujoco")
    motion, urdf, _ = _model(tmp_path, 1)
    count = MAX_TRIANGLES + 1
    with open(tmp_path / "big.stl", "r+b") as fh:
        fh.seek(80)
        fh.write(np.uint32(count).tobytes())
        fh.truncate(84 + 50 * count)
    extra = ["-o", str(tmp_path / "out.csv")] if command == "simulate" else []
    started = time.monotonic()
    code, _, stderr, _ = cli(command, motion, "--urdf", urdf, *extra)
    took = time.monotonic() - started
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: ")
    assert lines[0].endswith(f"big.stl: byte 80: {count} triangles, more than the {MAX_TRIANGLES} a mesh may have")
    assert took < 30, f"refusing the mesh took {took:.1f} s"
