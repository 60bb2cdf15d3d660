"""What the player says before it refuses a motion: each of the package's warnings as one line of
its log (no Python warning with its source line), and its check's line naming only what was checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.robots import FOLDED_SRDF, FOLDED_URDF
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import write
from motion_formats_ros.core.model import Motion, MotionFile

pytestmark = [requires_ros, pytest.mark.ros]
pytest.importorskip("coal")


def test_a_warning_before_a_refusal_is_one_log_line(tmp_path: Path) -> None:
    urdf, srdf = tmp_path / "folded.urdf", tmp_path / "folded.srdf"
    urdf.write_text(FOLDED_URDF)
    srdf.write_text(FOLDED_SRDF)
    t = np.arange(50) * 0.02
    motion = tmp_path / "j1.csv"  # j2 left out: the check holds it at 0, and says so
    write(MotionFile.single(Motion(times=t, joint_names=("j1",), position=(0.5 * t)[:, None]), name="m"), motion)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={motion}", f"urdf_file:={urdf}", f"srdf_file:={srdf}")
        assert player.wait(60) == 1
        out = player.output()
    assert "refusing to play: self-collision between base and tip" in out, out
    assert "MotionFormatWarning" not in out and "notify(" not in out and ".py:" not in out, out
    (notice,) = [line for line in out.splitlines() if "held at 0: j2" in line]
    assert notice.startswith("[WARN] ") and "[motion_player]: " in notice, notice
    (checked,) = [line for line in out.splitlines() if "collision check:" in line]
    assert "1 link pairs, floor in " in checked and "balance" not in checked, checked
    assert "balance not checked: the base does not float" in out
