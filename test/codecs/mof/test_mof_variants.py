"""``.mof`` variants found in real nets that the spec does not describe.

Every fixture is generated here with exactly the shape of the variant: 22-column nets
of the 2009 and 2010-2014 generations with and without a column header comment,
numeric keep/off sentinels, Int values with deShake, unknown and Nao Devils bits, a
net of labels and transitions only, and dense motions written as keyframes.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, ReadError, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs.mof import MofMotionRecord, MofRecord

HEADER_2009 = '"HP HT AL0 AL1 AL2 AL3 AR0 AR1 AR2 AR3 LL0 LL1 LL2 LL3 LL4 LL5 LR0 LR1 LR2 LR3 LR4 LR5 Int Dur'
HEADER_2010 = '"HY HP LSP LSR LEY LER RSP RSR REY RER LHYP LHR LHP LKP LAP LAR RHYP RHR RHP RKP RAP RAR Int Dur'
LEGS = [0, 0, -30, 60, -30, 0] * 2
# A stand in B-Human 2009's convention: shoulder pitch 0 = arm horizontal (standard 90 =
# arm down), shoulder roll 0 = arm along the body (standard 0 needs -90 here).
STAND_2009 = [0, -20, 2, -70, 0, -25, 2, -70, 0, -25, *LEGS]
RAISE_2009 = [0, -20, 40, -75, 0, -25, 40, -75, 0, -25, *LEGS]
# A pose in the 2010-2014 convention (shoulder pitch sign -1, no offsets).
SIT_2010 = [0, 5, -45, 10, 5, -5, -45, 10, 5, -5, 0, 0, -40, 100, -60, 0, 0, 0, -40, 100, -60, 0]


def row(values: list[float | str], code: int = 1, dur: int = 500) -> str:
    return " ".join(str(v) for v in [*values, code, dur])


def net(folder: Path, name: str, *lines: str, final: bool = True) -> Path:
    path = folder / f"{name}.mof"
    body = [f"motion_id = {name}", "label start", *lines]
    if final:
        body.append("transition allMotions extern start")
    path.write_text("\n".join(body) + "\n")
    return path


def degrees(m: Motion, joint: str) -> np.ndarray:
    assert m.position is not None
    return np.degrees(m.position[:, m.joint_names.index(joint)])


def quiet_read(path: Path, **options: object) -> MotionFile:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read(path, **options)


# ------------------------------------------------------------------ item 1: the 22-column map
def test_a_2009_header_comment_chooses_the_2009_map(tmp_path: Path) -> None:
    path = net(tmp_path, "stand", HEADER_2009, row(STAND_2009), row(RAISE_2009))
    mf = quiet_read(path)  # the file says which generation it is: no warning
    m = mf.motion
    assert m.joint_map == "nao_bhuman2009_22"
    assert degrees(m, "LShoulderPitch")[1] == pytest.approx(88.0)  # (2 - 90) * -1
    assert degrees(m, "LShoulderRoll")[1] == pytest.approx(20.0)  # -70 + 90
    assert degrees(m, "RShoulderRoll")[1] == pytest.approx(-20.0)  # (-70 + 90) * -1
    assert "header comment at stand.mof:3" in m.read_choices["joint map"]
    assert mf.record(MofRecord).joint_map.how == "comment"


def test_without_a_header_the_nao_limits_choose_2009_with_a_warning(tmp_path: Path) -> None:
    path = net(tmp_path, "stand", row(STAND_2009), row(RAISE_2009))
    with pytest.warns(UserWarning, match=r"joint map nao_bhuman2009_22 .*outside the NAO joint limits") as caught:
        m = read(path).motion
    assert len(caught) == 1
    assert m.joint_map == "nao_bhuman2009_22"
    # Read with the 2010-2014 map these would be -70 and 70 degrees: 52 beyond the limits.
    np.testing.assert_allclose(degrees(m, "LShoulderRoll"), [20, 20, 15])
    np.testing.assert_allclose(degrees(m, "RShoulderRoll"), [-20, -20, -15])
    assert "limits" in m.read_choices["joint map"]


def test_without_a_header_the_nao_limits_choose_2010_with_a_warning(tmp_path: Path) -> None:
    path = net(tmp_path, "sit", row(SIT_2010))
    with pytest.warns(UserWarning, match=r"joint map nao_bhuman_22 .*B-Human 2009 \d+ \(by \d+°"):
        m = read(path).motion
    assert m.joint_map == "nao_bhuman_22"
    assert degrees(m, "LShoulderPitch")[0] == pytest.approx(45.0)


def test_when_nothing_decides_the_default_is_named_in_a_warning(tmp_path: Path) -> None:
    legs_only = ["*"] * 10 + LEGS  # the maps differ in the arms only
    path = net(tmp_path, "legs", row(legs_only))
    with pytest.warns(UserWarning, match=r"joint map nao_bhuman_22 .*equally well.*the default"):
        m = read(path).motion
    assert m.joint_map == "nao_bhuman_22"


def test_joint_map_option_overrides_without_a_warning(tmp_path: Path) -> None:
    path = net(tmp_path, "stand", HEADER_2009, row(STAND_2009))
    m = quiet_read(path, joint_map="nao_bhuman_22").motion
    assert m.joint_map == "nao_bhuman_22"
    assert degrees(m, "LShoulderRoll")[0] == pytest.approx(-70.0)
    assert m.read_choices["joint map"] == "nao_bhuman_22: given as the joint_map option"


def test_a_comment_naming_the_map_decides(tmp_path: Path) -> None:
    path = net(tmp_path, "stand", '" written by hand for joint map nao_bhuman2009_22', row(STAND_2009))
    m = quiet_read(path).motion
    assert m.joint_map == "nao_bhuman2009_22"


def test_written_2009_motion_reads_back_with_its_map(tmp_path: Path) -> None:
    src = net(tmp_path, "stand", HEADER_2009, row(STAND_2009), row(RAISE_2009))
    out = tmp_path / "out" / "stand.mof"
    out.parent.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(read(src), out)
        back = read(out).motion
    assert back.joint_map == "nao_bhuman2009_22"
    np.testing.assert_allclose(back.position, read(src).motion.position, atol=1e-9)


def test_info_shows_the_map_and_why_and_the_cli_overrides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = net(tmp_path, "stand", row(STAND_2009))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "joint map nao_bhuman2009_22" in out
    assert re.search(r"joint map: nao_bhuman2009_22: no comment names the columns; .*NAO joint limits", out)
    assert main(["info", str(path), "--joint-map", "nao_bhuman_22", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    group = info["groups"]["target"]
    assert group["joint_map"] == "nao_bhuman_22"
    assert group["read_choices"]["joint map"].endswith("given as the joint_map option")


# ------------------------------------------------------------------ item 2: numeric sentinels
def test_numeric_sentinels_are_keep_and_off(tmp_path: Path) -> None:
    first = SIT_2010
    second = [2000, 1000, *SIT_2010[2:]]  # HeadYaw keep, HeadPitch off
    path = net(tmp_path, "sit", HEADER_2010, row(first), row(second, dur=300))
    m = quiet_read(path).motion
    hy, hp = m.joint_names.index("HeadYaw"), m.joint_names.index("HeadPitch")
    assert m.joint_masks["keep"][2, hy] and not m.joint_masks["off"][2, hy]
    assert m.joint_masks["off"][2, hp] and not m.joint_masks["keep"][2, hp]
    assert m.position[2, hy] == m.position[1, hy]  # kept: the previous target
    assert math.isnan(m.position[2, hp])  # off
    assert np.nanmax(np.abs(m.position)) < math.radians(210)  # never read as an angle


def test_later_generation_sentinels_are_keep_and_off(tmp_path: Path) -> None:
    values = [20000, 10000, *([0] * 24)]  # 2015+ code: ignore 20000, off 10000
    path = net(tmp_path, "a", row([0] * 26), row(values))
    m = quiet_read(path).motion
    assert m.joint_masks["keep"][2, 0] and m.joint_masks["off"][2, 1]
    assert np.nanmax(np.abs(m.position)) == 0


def test_numeric_sentinels_are_written_back_as_numbers(tmp_path: Path) -> None:
    second = [2000, 1000, *SIT_2010[2:]]
    src = net(tmp_path, "sit", HEADER_2010, row(SIT_2010), row(second, dur=300))
    out = tmp_path / "out" / "sit.mof"
    out.parent.mkdir()
    mf = quiet_read(src)
    assert mf.motion.joint_masks["keep"][-1, 0] and mf.motion.joint_masks["off"][-1, 1]
    write(mf, out)
    rows = [line.split() for line in out.read_text().splitlines() if line.startswith(" ")]
    assert rows[-1][:2] == ["2000", "1000"]
    assert "*" not in rows[-1] and "-" not in rows[-1]


# ------------------------------------------------------------------ item 3: Int bit field
def test_deshake_and_unknown_bits_warn_once_each_and_are_written_back(tmp_path: Path) -> None:
    # B-Human: bit 0 linear, bit 1 deShake; bit 3 (8) means nothing there.
    path = net(tmp_path, "shake", HEADER_2010, row(SIT_2010, 3), row(SIT_2010, 3), row(SIT_2010, 9), row(SIT_2010, 2))
    with pytest.warns(UserWarning, match="Int") as caught:
        mf = read(path)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2, messages
    assert re.search(r"shake\.mof:4: Int 3 \(and 2 more row\(s\)\): bit 1 is deShake", messages[0])
    assert re.search(r"shake\.mof:6: Int 9: bit 3 \(value 8\) means nothing in B-Human's code", messages[1])
    m = mf.motion
    assert m.interpolation == ("linear", "linear", "linear", "next")
    assert m.record(MofMotionRecord).int_codes == [None, 3, 3, 9, 2]
    out = tmp_path / "out" / "shake.mof"
    out.parent.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(mf, out)
    codes = [line.split()[-2] for line in out.read_text().splitlines() if line.startswith(" ")]
    assert codes == ["3", "3", "9", "2"]


NAO_DEVILS_ROWS = [row([0] * 26, 1, 100), row([40] * 26, 3, 1000), row([0] * 26, 5, 400)]


def test_nao_devils_bits_are_recognised_by_bit_2_and_ease_the_segment(tmp_path: Path) -> None:
    # Nao Devils: bit 0 linear, bit 1 cosine easing, bit 2 deShake (26 columns).
    path = net(tmp_path, "sitDown", *NAO_DEVILS_ROWS)
    with pytest.warns(UserWarning, match="Nao Devils") as caught:
        mf = read(path)
    messages = " | ".join(str(w.message) for w in caught)
    assert re.search(
        r"sitDown\.mof: read with the Int bits as Nao Devils's code does \(Int 5 at sitDown\.mof:5", messages
    )
    assert "bit 2 is deShake in Nao Devils's code" in messages
    m = mf.motion
    assert m.interpolation == ("linear", "cosine", "linear")
    assert m.record(MofMotionRecord).int_bits == "naodevils"
    # A quarter into the eased row: a + (b - a)(1 - cos(pi/4))/2, not the linear 10 degrees.
    at = m.sample([0.1 + 0.25]).position
    assert at is not None
    assert math.degrees(at[0, 0]) == pytest.approx(40 * (1 - math.cos(math.pi / 4)) / 2)
    assert "Nao Devils" in m.read_choices["Int bits"]


def test_nao_devils_net_round_trips_and_names_its_bits(tmp_path: Path) -> None:
    src = net(tmp_path, "sitDown", *NAO_DEVILS_ROWS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mf = read(src)
    out = tmp_path / "out" / "sitDown.mof"
    out.parent.mkdir()
    write(mf, out)
    text = out.read_text()
    assert re.search(r'^" Int bits: naodevils', text, re.M)
    codes = [line.split()[-2] for line in text.splitlines() if line.startswith(" ")]
    assert codes == ["1", "3", "5"]
    with pytest.warns(UserWarning, match="deShake") as caught:
        back = read(out).motion  # the comment decides: only the deShake bit warns
    assert len(caught) == 1
    assert back.interpolation == mf.motion.interpolation


def test_int_3_alone_in_26_columns_is_ambiguous_and_warns(tmp_path: Path) -> None:
    path = net(tmp_path, "a", row([0] * 26), row([40] * 26, 3))
    with pytest.warns(UserWarning, match=r"Int bits as B-Human's code does .*int_bits='naodevils'") as caught:
        m = read(path).motion
    assert any("bit 1 is deShake" in str(w.message) for w in caught)  # read as B-Human's: deShake
    assert m.interpolation == ("linear", "linear")
    m2 = read(path, int_bits="naodevils").motion
    assert m2.interpolation == ("linear", "cosine")


def test_high_unknown_bits_alone_leave_the_convention_open_without_a_guess(tmp_path: Path) -> None:
    path = net(tmp_path, "a", row([0] * 26), row([40] * 26, 9))
    with pytest.warns(UserWarning, match="bit 3") as caught:
        m = read(path).motion
    assert len(caught) == 1  # the unknown bit; no Int-bits guess (bits 1 and 2 are unused)
    assert m.interpolation == ("linear", "linear")
    assert "Int bits" not in m.read_choices


def test_cli_int_bits_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = net(tmp_path, "a", row([0] * 26), row([40] * 26, 3))
    assert main(["info", str(path), "--int-bits", "naodevils", "--json"]) == 0
    group = json.loads(capsys.readouterr().out)["groups"]["target"]
    assert group["interpolation"] == {"linear": 1, "cosine": 1}


# ------------------------------------------------------------------ item 4: no keyframes
def extern(folder: Path) -> Path:
    return net(
        folder,
        "extern",
        '"entry point of the net',
        "transition playDead playDead start",
        "transition sitDown sitDown start",
        "label finished",
        "transition extern extern start",
        final=False,
    )


def test_info_describes_a_net_without_keyframes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = extern(tmp_path)
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "no keyframe rows, 2 label(s), 3 transition(s)" in out
    assert "label start (line 2)" in out and "label finished (line 6)" in out
    assert "transition sitDown -> sitDown start (line 5)" in out
    assert "leads to: playDead, sitDown" in out
    assert main(["info", str(path), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["motion_id"] == "extern"
    assert [t["target"] for t in info["transitions"]] == ["playDead", "sitDown", "extern"]


def test_convert_explains_there_is_no_motion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = extern(tmp_path)
    assert main(["convert", str(path), str(tmp_path / "out.seq")]) == 1
    err = capsys.readouterr().err
    assert re.search(r"extern\.mof:1: no motion in it: .*only 2 label\(s\) and 3 transition\(s\)", err)
    assert not (tmp_path / "out.seq").exists()
    with pytest.raises(ReadError, match="no motion in it") as info:
        read(path)
    assert getattr(info.value, "net", {}).get("targets") == ["playDead", "sitDown"]


# ------------------------------------------------------------------ item 7: lossy writes
def dense_nao() -> MotionFile:
    t = np.arange(0, 2.0 + 1e-9, 0.01)
    pos = np.column_stack([0.6 * np.sin(np.pi * t), 0.3 * np.cos(2 * np.pi * t)])
    return MotionFile.single(Motion(times=t, joint_names=("HeadYaw", "HeadPitch"), position=pos))


def test_lossy_mof_write_warns_with_the_frames_dropped_and_the_deviation(tmp_path: Path) -> None:
    mf = dense_nao()
    out = tmp_path / "wave.mof"
    with pytest.warns(UserWarning, match="lossy .mof write") as caught:
        written = write(mf, out)
    message = next(str(w.message) for w in caught if "lossy" in str(w.message))
    found = re.search(
        r"(\d+) keyframe\(s\) for 201 frame\(s\), (\d+) dropped .*largest deviation ([0-9.e-]+)°", message
    )
    assert found, message
    back = quiet_read(out).motion
    assert int(found.group(1)) == back.num_frames == written
    assert int(found.group(2)) == 201 - back.num_frames
    src = mf.motion
    assert src.position is not None
    again = back.select_joints(src.joint_names).sample(src.times).position
    assert again is not None
    actual = np.degrees(np.max(np.abs(again - src.position)))
    assert float(found.group(3)) == pytest.approx(actual, rel=1e-2)
    assert 0 < actual <= 0.1 + 1e-9


def test_convert_reports_the_frames_in_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "wave.msgpack"  # OMF: keeps the joint names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(dense_nao(), src)
        assert main(["convert", str(src), str(tmp_path / "wave.mof")]) == 0
    printed = capsys.readouterr().out
    frames = int(re.search(r"(\d+) frames", printed).group(1))  # type: ignore[union-attr]
    assert frames == quiet_read(tmp_path / "wave.mof").motion.num_frames
    assert frames < 201


# ------------------------------------------------------------------ cosine segments downstream
def eased(tmp_path: Path) -> MotionFile:
    path = net(tmp_path, "ease", row([0] * 26, 1, 100), row([40] * 26, 3, 1000))
    return quiet_read(path, int_bits="naodevils")


def test_the_player_traces_a_cosine_segment(tmp_path: Path) -> None:
    from motion_formats_ros.playback.plan import plan_trajectory

    m = eased(tmp_path).motion
    plan = plan_trajectory(m, approach_time=1.0)
    t = plan.time_from_start - 1.0  # motion time of each point
    inside = (t > 0.1 + 1e-9) & (t < 1.1 - 1e-9)
    assert inside.sum() >= 40  # a point every 20 ms along the eased second
    expected = 40 * (1 - np.cos(np.pi * (t[inside] - 0.1))) / 2
    np.testing.assert_allclose(np.degrees(plan.positions[inside, 0]), expected, atol=1e-9)


def test_cosine_segments_written_for_b_human_become_linear_with_a_warning(tmp_path: Path) -> None:
    out = tmp_path / "out" / "ease.mof"
    out.parent.mkdir()
    with pytest.warns(UserWarning, match=r"cosine easing \(B-Human's Int has no bit for it") as caught:
        write(eased(tmp_path), out, int_bits="bhuman")
    lossy = next(str(w.message) for w in caught if "lossy" in str(w.message))
    # Linear instead of eased: the largest gap is at r = 1/4 and 3/4, 40 * (1/4 - 0.1464).
    assert re.search(r"largest deviation 4\.14°", lossy), lossy
    codes = [line.split()[-2] for line in out.read_text().splitlines() if line.startswith(" ")]
    assert codes == ["1", "1"]


def test_cosine_segments_reach_mtn_as_keyframes_on_the_curve(tmp_path: Path) -> None:
    out = tmp_path / "ease.mtn"
    with pytest.warns(UserWarning, match=r"lossy \.mtn write"):
        write(eased(tmp_path), out, joint_map="aibo_ers210")
    back = read(out).motion
    src = eased(tmp_path).motion
    assert back.position is not None and src.position is not None
    t = np.linspace(0.1, 1.1, 51)
    got = back.sample(t).position
    want = src.sample(t).position
    assert got is not None and want is not None
    assert np.degrees(np.max(np.abs(got[:, 0] - want[:, 0]))) < 0.2  # within the tolerance and the 16 ms grid
