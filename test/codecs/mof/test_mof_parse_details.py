"""``.mof`` details the corpus does not show: ``//`` comments, the deShake bit of Int."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read, write
from motion_formats_ros.codecs.mof import MofMotionRecord, MofRecord


def row(value: float, interp: int = 1, dur: int = 100, joints: int = 22) -> str:
    return " ".join([str(value)] * joints + [str(interp), str(dur)])


def test_slash_comments_and_leading_spaces(tmp_path: Path) -> None:
    path = tmp_path / "a.mof"
    path.write_text(
        "// a comment before the motion id\n"
        "motion_id = a\n"
        "  // indented comment\n"
        "label start\n"
        '   "HY HP ...\n'
        f"   {row(10)}\n"
        "//transition allMotions extern start (commented out)\n"
        f"  {row(20, dur=200)}\n"
        "  transition allMotions extern start\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = read(path, joint_map="nao_bhuman_22").motion  # nothing in the file decides the map
    np.testing.assert_allclose(m.times, [0.0, 0.1, 0.3])
    np.testing.assert_allclose(np.degrees(m.position[:, 0]), [10, 10, 20])


def test_deshake_bit_is_kept_and_written_back(tmp_path: Path) -> None:
    # Int 3 = linear (bit 0) + deShake (bit 1); Int 2 = jump (bit 0 clear) + deShake.
    path = tmp_path / "shake.mof"
    path.write_text(
        f"motion_id = shake\nlabel start\n{row(0, 1)}\n{row(10, 3)}\n{row(20, 2)}\ntransition allMotions extern start\n"
    )
    with pytest.warns(UserWarning, match="deShake") as caught:
        mf = read(path, joint_map="nao_bhuman_22")
    assert len(caught) == 1  # one warning for the bit, however many rows set it
    m = mf.motion
    assert m.interpolation == ("linear", "linear", "next")
    assert m.record(MofMotionRecord).int_codes == [None, 1, 3, 2]
    out = tmp_path / "back" / "shake.mof"
    out.parent.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(mf, out)
    codes = [line.split()[-2] for line in out.read_text().splitlines() if line.startswith(" ")]
    assert codes == ["1", "3", "2"]
    with pytest.warns(UserWarning, match="deShake"):
        back = read(out)  # the joint map is named in the written file: only deShake warns
    assert back.record(MofRecord).motion_id == "shake"
    assert back.motion.record(MofMotionRecord).int_codes == [None, 1, 3, 2]


def test_joint_map_file_with_a_bad_value_is_a_joint_map_error(tmp_path: Path) -> None:
    from motion_formats_ros.core.joint_maps import JointMapError, load

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nformat: mof\ncolumns:\n  - {source: HY, name: HeadYaw, offset: !!float ninety}\n")
    with pytest.raises(JointMapError, match=r"bad\.yaml"):
        load(bad)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: l\ncolumns:\n  - {source: HY, name: T\xe9te}\n")
    with pytest.raises(JointMapError, match=r"latin\.yaml"):
        load(latin)
