"""The package builds the ROS way: `colcon build` in a workspace, and the installed node runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.rosutil import _domains, requires_ros, ros_env

REPO = Path(__file__).resolve().parents[2]
COLCON = Path(sys.executable).parent / "colcon"

pytestmark = [
    pytest.mark.slow,
    requires_ros,
    pytest.mark.skipif(not COLCON.exists(), reason="colcon is not in the venv (make ros installs it)"),
]


def _sources(dest: Path) -> None:
    """Copy the repository's tracked files (what a clone has) into ``dest``."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target)


def test_colcon_build_installs_launch_config_index_and_nodes(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _sources(ws / "src" / "motion_formats_ros")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COLCON", "AMENT_PREFIX_PATH"))}
    build = subprocess.run(
        [str(COLCON), "build", "--packages-select", "motion_formats_ros"],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    prefix = ws / "install" / "motion_formats_ros"
    share = prefix / "share" / "motion_formats_ros"
    assert (share / "package.xml").read_text() == (REPO / "package.xml").read_text()
    assert {p.name for p in (share / "launch").iterdir()} >= {"play.launch.py", "record.launch.py"}
    assert (share / "config" / "player.yaml").is_file()
    assert (share / "config" / "joint_maps" / "nao_22.yaml").is_file()
    assert (prefix / "share" / "ament_index" / "resource_index" / "packages" / "motion_formats_ros").is_file()
    lib = prefix / "lib" / "motion_formats_ros"
    for node in ("motion_player", "motion_recorder"):
        assert os.access(lib / node, os.X_OK), node

    # The installed player (its own copy of the package, not the checkout) on a missing file.
    site = next((prefix / "lib").glob("python3*/site-packages"))
    domain = next(_domains)
    run_env = {**ros_env(tmp_path / "ros_log", domain), "PYTHONPATH": str(site)}
    missing = tmp_path / "missing.seq"
    proc = subprocess.run(
        [str(lib / "motion_player"), "--ros-args", "-p", f"file:={missing}"],
        env=run_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert f"{missing}: no such file" in output
    assert "Traceback" not in output
    check = subprocess.run(
        [sys.executable, "-c", "import motion_formats_ros, sys; print(motion_formats_ros.__file__)"],
        env=run_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert check.stdout.startswith(str(site)), "the installed copy was run, not the checkout"
