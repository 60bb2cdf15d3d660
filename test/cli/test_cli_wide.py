"""A motion of a hundred thousand joints: every command stays linear in their number.

Looking a joint up by name once per joint is linear only when one lookup takes constant
time; a search along the names for each joint makes it quadratic. At 100,000 joints the
quadratic way takes minutes (5·10⁹ name comparisons), the linear one about a second, so a
bound of 60 s leaves a loaded machine ample room and still cannot be met the quadratic way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from motion_formats_ros import Motion

EXE = Path(sys.executable).parent / "motion-formats"
JOINTS = 100_000
#: Seconds: far above the linear time, far below the quadratic one.
BOUND = 60.0


def _wide_csv(path: Path, joints: int = JOINTS) -> Path:
    with open(path, "w", encoding="ascii") as out:
        out.write("time," + ",".join(f"joint.j{k}.position" for k in range(joints)) + "\n")
        for frame in range(3):
            out.write(f"{frame / 10}," + ",".join([str(frame)] * joints) + "\n")
    return path


def test_info_of_a_hundred_thousand_joints_is_linear(tmp_path: Path) -> None:
    path = _wide_csv(tmp_path / "wide.csv")
    began = time.monotonic()
    try:
        proc = subprocess.run(
            [str(EXE), "info", str(path)], capture_output=True, text=True, timeout=BOUND, env=dict(os.environ)
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"info of {JOINTS:,} joints took over {BOUND:g} s: quadratic in the joints") from None
    took = time.monotonic() - began
    assert proc.returncode == 0, proc.stderr
    assert f"joints ({JOINTS})" in proc.stdout
    # The last joint is summarised from its own column.
    assert f"j{JOINTS - 1}" in proc.stdout and "min            0  max            2" in proc.stdout
    assert took < BOUND


def test_joint_lookups_follow_a_change_of_joints() -> None:
    """The name → column table is the motion's current joints, also after a motion is remade."""
    m = Motion(times=np.arange(2.0), joint_names=("a", "b", "c"), joint_dims=(1, 3, 2), position=np.zeros((2, 6)))
    assert [m.joint_columns(n) for n in ("a", "b", "c")] == [slice(0, 1), slice(1, 4), slice(4, 6)]
    picked = m.select_joints(["c", "a"])
    assert picked.joint_columns("a") == slice(2, 3) and picked.joint_index("c") == 0
    renamed = m.rename_joints({"b": "x"})
    assert renamed.joint_columns("x") == slice(1, 4)
    assert m.joint_columns("b") == slice(1, 4)  # the original is unchanged
