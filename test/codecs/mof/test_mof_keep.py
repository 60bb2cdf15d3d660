"""`*` in a .mof row keeps the previous target: dense playback holds it, writing keeps the `*`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from motion_formats_ros import read, write


def _mof(rows: list[str]) -> str:
    return "motion_id = keep\nlabel start\n" + "\n".join(rows) + "\ntransition allMotions extern start\n"


def test_keep_holds_the_previous_target_and_round_trips(tmp_path: Path) -> None:
    first = " ".join(["10"] * 22) + " 1 100"
    second = "* 20 " + " ".join(["10"] * 20) + " 1 100"  # HeadYaw kept at 10°, HeadPitch to 20°
    third = "* * " + " ".join(["0"] * 20) + " 1 100"
    (tmp_path / "extern.mof").write_text("motion_id = extern\nlabel start\ntransition allMotions extern start\n")
    path = tmp_path / "keep.mof"
    path.write_text(_mof([first, second, third]))
    m = read(path, joint_map="nao_22").motion
    assert m.position is not None
    head_yaw = m.position[:, m.joint_names.index("HeadYaw")]
    # Keyframe 0 is the first row's target at t = 0, then one keyframe per row.
    np.testing.assert_allclose(np.degrees(head_yaw), [10, 10, 10, 10])  # held, not NaN
    assert m.joint_masks["keep"][:, m.joint_names.index("HeadYaw")].tolist() == [False, False, True, True]
    dense = m.resample(100.0)
    assert dense.position is not None
    assert np.all(np.isfinite(dense.position[:, m.joint_names.index("HeadYaw")]))
    out = tmp_path / "again.mof"
    write(read(path, joint_map="nao_22"), out, joint_map="nao_22")
    rows = [line.split() for line in out.read_text().splitlines() if line.strip()[:1] in tuple("*-0123456789")]
    assert [r[0] for r in rows[-2:]] == ["*", "*"] and rows[-1][1] == "*"
