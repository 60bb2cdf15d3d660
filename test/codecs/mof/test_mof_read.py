"""B-Human ``.mof`` motion nets: parsing every corpus generation and expanding motions."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, corpus_params, corpus_path

from motion_formats_ros import read
from motion_formats_ros.cli.commands import summarize
from motion_formats_ros.codecs.mof import MofMotionRecord, MofRecord

MOF = CORPUS / "mof"
MOTIONS = corpus_params("mof", "*/*.mof", exclude_stems=("extern",))


@pytest.fixture
def mof() -> Path:
    return corpus_path("mof")


def deg(values: list[float]) -> np.ndarray:
    return np.radians(np.array(values, dtype=float))


@pytest.mark.parametrize("path", MOTIONS)
def test_every_corpus_motion_reads_without_warnings(path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mf = read(path)
    m = mf.motion
    assert mf.format == "mof"
    assert m.is_keyframed
    assert m.num_frames >= 2
    assert len(m.joint_names) in (22, 26)
    assert m.joint_names[0] == "HeadYaw"
    assert np.all(np.isfinite(m.position) | np.isnan(m.position))


def test_2013_and_2019_sitdown_agree_in_the_standard_convention(mof: Path) -> None:
    old = read(mof / "bhuman2013" / "sitDown.mof").motion  # 22 columns, B-Human signs
    new = read(mof / "bhuman2019" / "sitDown.mof").motion  # 26 columns, standard
    assert old.joint_map == "nao_bhuman_22"
    assert new.joint_map == "nao_26"
    common = new.select_joints(old.joint_names)
    np.testing.assert_allclose(common.position[1], old.position[1], atol=1e-12)
    # Row 1 of 2013: HP 0.7, LSP -40.8, RSR 9.4, REY 4.6, RER -2.6 (sign -1 each).
    row = dict(zip(old.joint_names, old.position[1], strict=True))
    assert row["HeadPitch"] == pytest.approx(math.radians(-0.7))
    assert row["LShoulderPitch"] == pytest.approx(math.radians(40.8))
    assert row["RShoulderRoll"] == pytest.approx(math.radians(-9.4))
    assert row["RElbowYaw"] == pytest.approx(math.radians(-4.6))
    assert row["RElbowRoll"] == pytest.approx(math.radians(2.6))
    assert row["LKneePitch"] == pytest.approx(math.radians(124))


def test_sitdown_keyframes_masks_stiffness_and_loop(mof: Path) -> None:
    m = read(mof / "bhuman2013" / "sitDown.mof").motion
    # Keyframe 0 = first row's target at t = 0, then rows of 2000, 500, 500, 100 ms.
    np.testing.assert_allclose(m.times, [0, 2.0, 2.5, 3.0, 3.1])
    np.testing.assert_allclose(m.position[0], m.position[1])
    assert m.interpolation == ("linear",) * 4
    off = m.joint_masks["off"]
    assert not off[1].any()
    assert off[2, m.joint_names.index("HeadYaw")] and not off[2, m.joint_names.index("LShoulderPitch")]
    assert off[4].all()
    assert np.isnan(m.position[4]).all()
    # `label repeat` row loops: from the end of row 3 (3.0 s) to 3.1 s.
    assert m.loop == pytest.approx((3.0, 3.1))
    assert m.record(MofMotionRecord).loop_label == "repeat"
    stiff = m.joint_channels["stiffness"]
    assert stiff[1, m.joint_names.index("LShoulderRoll")] == pytest.approx(0.4)
    assert np.isnan(stiff[1, m.joint_names.index("HeadYaw")])  # `*` = default
    ramp = m.time_columns["stiffness_ramp"]
    assert ramp[1] == pytest.approx(0.010)
    assert np.isnan(ramp[[0, 2, 3, 4]]).all()


def test_crlf_trailing_spaces_comments_and_jump_rows(mof: Path) -> None:
    m = read(mof / "bhuman2009" / "kickLeftNao.mof").motion
    assert m.num_frames == 11
    assert m.duration == pytest.approx(5.4)
    # Int 0 rows jump to their target and hold it ("next"), Int 1 rows interpolate.
    assert m.interpolation[1] == "next"
    assert m.interpolation[6] == "next" and m.interpolation[7] == "next"
    assert m.interpolation[0] == "linear"
    # Decimals: first row LHipPitch -31.8 (sign +1), LAnkleRoll 0.2 (sign -1).
    assert m.position[1, m.joint_names.index("LHipPitch")] == pytest.approx(math.radians(-31.8))
    assert m.position[1, m.joint_names.index("LAnkleRoll")] == pytest.approx(math.radians(-0.2))
    # The conditional transitions to standUp* do not fire for kickLeftNao: no loop, no jump.
    assert m.loop is None


def test_jump_rows_hold_the_target_from_the_segment_start(mof: Path) -> None:
    m = read(mof / "bhuman2009" / "kickLeftNao.mof").motion
    # Row 7 (Int 0, 100 ms) ends at 3.6 s: its target holds right after 3.5 s.
    t7 = m.times[7]
    assert t7 == pytest.approx(3.6)
    s = m.sample([t7 - 0.1, t7 - 0.099, t7 - 0.05, t7])
    np.testing.assert_allclose(s.position[0], m.position[6])
    np.testing.assert_allclose(s.position[1:], np.repeat(m.position[7][None], 3, axis=0))


def test_keep_and_off_are_distinct(mof: Path) -> None:
    m = read(mof / "bhuman2009" / "standUpFrontNao.mof").motion
    hy, lsp = m.joint_names.index("HeadYaw"), m.joint_names.index("LShoulderPitch")
    assert m.joint_masks["off"][1, hy] and not m.joint_masks["keep"][1, hy]
    assert m.joint_masks["keep"][1, lsp] and not m.joint_masks["off"][1, lsp]
    assert np.isnan(m.position[1, [hy, lsp]]).all()


def test_stiffness_keyword_2019_and_leading_comment(mof: Path) -> None:
    mf = read(mof / "bhuman2019" / "getUpEngineDummy.mof")
    m = mf.motion
    assert mf.name == "getUpEngineDummy"
    assert mf.record(MofRecord).stiffness_keyword == "stiffness"
    np.testing.assert_allclose(m.joint_channels["stiffness"], 1.0)
    assert m.time_columns["stiffness_ramp"][1] == 0.0
    assert m.position[1, m.joint_names.index("LShoulderPitch")] == pytest.approx(math.radians(90))
    assert m.loop == pytest.approx((0.0, 0.1))


def test_hardness_ramps_follow_the_rows(mof: Path) -> None:
    m = read(mof / "bhuman2009" / "demoHardness.mof").motion
    column = m.joint_names.index("RKneePitch")  # column 20: the only value besides `*`
    assert column == 19
    stiff = m.joint_channels["stiffness"][:, column]
    np.testing.assert_allclose(stiff, [0.0, 0.0, 1.0, 0.0, 0.1, np.nan])
    np.testing.assert_allclose(m.time_columns["stiffness_ramp"], [np.nan, 1.0, 1.0, 0.0, 0.0, 1.0])


def test_2009_joint_map_applies_the_shoulder_offsets(mof: Path) -> None:
    m = read(mof / "bhuman2009" / "kickLeftNao.mof", joint_map="nao_bhuman2009_22").motion
    row = dict(zip(m.joint_names, np.degrees(m.position[1]), strict=True))
    assert row["LShoulderPitch"] == pytest.approx(88.9)  # (1.1 - 90) * -1
    assert row["LShoulderRoll"] == pytest.approx(23.6)  # -66.4 + 90
    assert row["RShoulderRoll"] == pytest.approx(-21.0)  # (-69 + 90) * -1
    assert m.joint_map == "nao_bhuman2009_22"


def test_exact_dense_expansion(mof: Path) -> None:
    m = read(mof / "bhuman2019" / "sitDown.mof").motion
    dense = m.resample(500)
    assert dense.num_frames == 1551
    assert dense.loop == m.loop
    lhp = m.joint_names.index("LHipPitch")
    np.testing.assert_allclose(dense.position[[0, 1000, 1250, 1500], lhp], m.position[[0, 1, 2, 3], lhp])
    # Halfway through row 1 (linear) the value is the mean of its ends.
    lsp = m.joint_names.index("LShoulderPitch")
    mid = dense.position[1125, lsp]
    assert mid == pytest.approx((m.position[1, lsp] + m.position[2, lsp]) / 2)


def test_extern_is_the_entry_point(mof: Path) -> None:
    via_extern = read(mof / "bhuman2013" / "extern.mof", motion="sitDown")
    direct = read(mof / "bhuman2013" / "sitDown.mof")
    assert via_extern.name == "sitDown"
    np.testing.assert_array_equal(via_extern.motion.times, direct.motion.times)
    np.testing.assert_array_equal(via_extern.motion.position, direct.motion.position)
    assert via_extern.motion.loop == direct.motion.loop


def test_start_pose_is_held_at_time_zero(mof: Path) -> None:
    m = read(mof / "bhuman2013" / "sitDown.mof", start_pose={"HeadYaw": 0.5}).motion
    assert m.position[0, 0] == 0.5
    assert m.position[1, 0] == 0.0
    assert m.sample([1.0]).position[0, 0] == pytest.approx(0.25)


def test_info_shows_keyframes_loop_and_mapped_names(mof: Path) -> None:
    info = summarize(read(mof / "bhuman2019" / "sitDown.mof"))
    g = info["groups"]["target"]
    assert g["keyframes"] == 5
    assert g["loop"] == pytest.approx([3.0, 3.1])
    assert g["joint_map"] == "nao_26"
    assert g["joints"][1] == {"name": "HeadPitch", "dims": 1, "source": "HP"}


def test_info_command_prints_them(mof: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from motion_formats_ros.cli.main import main

    assert main(["info", str(mof / "bhuman2013" / "sitDown.mof")]) == 0
    out = capsys.readouterr().out
    assert "keyframes: 5" in out
    assert "loop: 3 s to 3.1 s" in out
    assert "joint map nao_bhuman_22" in out
    assert "HeadPitch (HP)" in out
