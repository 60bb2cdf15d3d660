"""Naming options reach every command that reads a .seq (which has no joint names)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from motion_formats_ros import read
from motion_formats_ros.core.examples import BIPED_JOINTS

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "motion-formats"


def test_motion2bag_takes_the_body_file(tmp_path: Path) -> None:
    bag = tmp_path / "walk_bag"
    proc = subprocess.run(
        [
            str(EXE),
            "motion2bag",
            str(ROOT / "examples" / "walk.seq"),
            str(bag),
            "--body",
            str(ROOT / "examples" / "biped.body"),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert read(bag).motion.joint_names == BIPED_JOINTS  # the group round-trips through the bag


def test_validate_takes_the_body_file() -> None:
    proc = subprocess.run(
        [str(EXE), "validate", str(ROOT / "examples" / "walk.seq"), "--body", str(ROOT / "examples" / "biped.body")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "valid seq file (1 group(s), 241 frames)" in proc.stdout
