"""Writing ``.mof``: corpus round trips, dense motions, `*`/`-`, loops, hardness."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, corpus_params, corpus_path, lossy_messages

from motion_formats_ros import Motion, MotionFile, WriteError, read, write
from motion_formats_ros.core import joint_maps
from motion_formats_ros.core.keyframes import reduce_keyframes
from motion_formats_ros.core.notices import NoticeKind, collect

MOF = CORPUS / "mof"
MOTIONS = corpus_params("mof", "*/*.mof", exclude_stems=("extern",))
NAO_22 = joint_maps.load("nao_22").names


def own_net(tmp_path: Path, motion_id: str = "wave") -> Path:
    """A 22-column net of this project's own: keyframes, then a loop back to 'repeat'."""

    def row(*degrees: float, interpolate: int = 1, ms: int = 200) -> str:
        values = [0.0] * 22
        values[: len(degrees)] = degrees
        return " " + " ".join(f"{v:g}" for v in values) + f" {interpolate} {ms}"

    path = tmp_path / f"{motion_id}.mof"
    path.write_text(
        f"motion_id = {motion_id}\nlabel start\n{row(0, 10)}\n{row(20, -10, ms=300)}\n"
        f"label repeat\n{row(10, 0, ms=100)}\n{row(0, 10, ms=100)}\n"
        f"transition {motion_id} {motion_id} repeat\ntransition allMotions extern start\n"
    )
    return path


def assert_same_keyframes(a: Motion, b: Motion) -> None:
    np.testing.assert_allclose(b.times, a.times, rtol=0, atol=1e-12)
    assert b.joint_names == a.joint_names
    np.testing.assert_allclose(b.position, a.position, rtol=0, atol=1e-12)
    assert b.interpolation == a.interpolation
    assert b.loop == a.loop
    assert set(b.joint_masks) == set(a.joint_masks)
    for k, mask in a.joint_masks.items():
        np.testing.assert_array_equal(b.joint_masks[k], mask)
    assert set(b.joint_channels) == set(a.joint_channels)
    for k, values in a.joint_channels.items():
        np.testing.assert_allclose(b.joint_channels[k], values, rtol=0, atol=1e-12)
    for k, values in a.time_columns.items():
        np.testing.assert_allclose(b.time_columns[k], values, rtol=0, atol=1e-12)


@pytest.mark.parametrize("path", MOTIONS)
def test_corpus_read_write_read_gives_the_same_keyframes(path: Path, tmp_path: Path) -> None:
    first = read(path)
    out = tmp_path / path.name  # same file name: the motion_id matches the transitions
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(first, out)
        second = read(out)
    assert_same_keyframes(first.motion, second.motion)
    text = out.read_text()
    assert text.startswith(f"motion_id = {path.stem}\n")
    assert text.rstrip().endswith("transition allMotions extern start")


def test_written_file_layout(tmp_path: Path) -> None:
    mf = read(corpus_path("mof", "bhuman2013", "sitDown.mof"))
    out = tmp_path / "sitDown.mof"
    write(mf, out)
    lines = out.read_text().splitlines()
    assert lines[0] == "motion_id = sitDown"
    assert "label start" in lines
    header = next(line for line in lines if line.startswith('"') and "HeadYaw" in line)
    assert header.split()[1:] == ["HeadPitch", *header.split()[2:]]
    assert header.split()[-2:] == ["Int", "Dur"]
    assert len(header.split()) == 1 + 21 + 2  # '"HeadYaw' + 21 names + Int Dur
    assert "hardness * * 40 40 * * 40 40 * * * * * * * * * * * * * * 10" in lines
    rows = [line.split() for line in lines if line.startswith(" ")]
    assert rows[0][:4] == ["0", "0.7", "-40.8", "9.4"]  # back in B-Human's convention
    assert rows[1][:2] == ["-", "-"]
    row_lines = [i for i, line in enumerate(lines) if line.startswith(" ")]
    assert lines.index("label repeat") == row_lines[3] - 1
    assert "transition sitDown sitDown repeat" in lines
    assert lines[-1] == "transition allMotions extern start"


def test_keep_and_off_are_written_back(tmp_path: Path) -> None:
    mf = read(corpus_path("mof", "bhuman2009", "standUpFrontNao.mof"))
    out = tmp_path / "standUpFrontNao.mof"
    write(mf, out)
    first = next(line.split() for line in out.read_text().splitlines() if line.startswith(" "))
    assert first[:3] == ["-", "-", "*"]


def test_generic_keyframes_with_a_distinct_start(tmp_path: Path) -> None:
    names = ("HeadYaw", "HeadPitch", "LWristYaw")
    m = Motion(
        times=np.array([0.0, 0.25, 0.75]),
        joint_names=names,
        position=np.radians([[0.0, 10.0, 5.0], [20.0, -10.0, 0.0], [20.0, 0.0, -5.0]]),
        interpolation=("linear", "next"),
    )
    out = tmp_path / "wave.mof"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # joints the motion lacks are `*`: nothing is dropped
        write(MotionFile.single(m), out)
    back = read(out).motion
    assert back.joint_map == "nao_26"
    np.testing.assert_allclose(back.times, m.times)
    np.testing.assert_allclose(back.select_joints(names).position, m.position, atol=1e-12)
    assert back.interpolation == m.interpolation
    assert back.joint_masks["keep"][:, back.joint_names.index("RHand")].all()
    rows = [line.split() for line in out.read_text().splitlines() if line.startswith(" ")]
    assert rows[0][-2:] == ["0", "0"]  # keyframe 0 reached at once: Int 0, Dur 0
    assert [r[-2:] for r in rows[1:]] == [["1", "250"], ["0", "500"]]


def test_dense_motion_is_reduced_within_the_tolerance(tmp_path: Path) -> None:
    t = np.arange(0, 3.0 + 1e-9, 0.002)  # 500 Hz
    pos = np.zeros((t.size, 22))
    pos[:, 2] = 1.2 * np.sin(np.pi * t / 3)
    pos[:, 13] = np.clip(2 * t, 0, 1.5)
    m = Motion(times=t, joint_names=NAO_22, position=pos)
    out = tmp_path / "dense.mof"
    write(MotionFile.single(m), out)
    back = read(out).motion
    assert back.num_frames < 100
    err = np.abs(back.sample(t).position - pos).max()
    assert err <= math.radians(0.1) + 1e-9
    # A tighter tolerance gives more keyframes.
    out2 = tmp_path / "dense2.mof"
    write(MotionFile.single(m), out2, tolerance=0.01)
    assert read(out2).motion.num_frames > back.num_frames


def test_reduce_keeps_mask_changes() -> None:
    t = np.linspace(0, 1, 11)
    pos = np.zeros((11, 1))
    off = np.zeros((11, 1), dtype=bool)
    off[6:] = True
    pos[6:] = np.nan
    m = Motion(times=t, joint_names=("a",), position=pos, joint_masks={"off": off})
    r = reduce_keyframes(m)
    np.testing.assert_allclose(r.times, [0.0, 0.5, 0.6, 1.0])


def test_loop_of_a_dense_motion_is_written(tmp_path: Path) -> None:
    mf = read(own_net(tmp_path))
    assert mf.motion.loop == pytest.approx((0.5, 0.7))
    dense = mf.motion.resample(100)
    out = tmp_path / "out" / "dense.mof"
    out.parent.mkdir()
    write(MotionFile.single(dense), out)
    back = read(out).motion
    assert back.loop == pytest.approx((0.5, 0.7))
    assert "transition dense dense repeat" in out.read_text()


def test_writer_refuses_what_mof_cannot_name(tmp_path: Path) -> None:
    m = Motion(times=np.array([0.0, 1.0]), joint_names=("x", "y"), position=np.zeros((2, 2)))
    with pytest.raises(WriteError, match="joint_map"):
        write(MotionFile.single(m), tmp_path / "x.mof")
    with pytest.raises(WriteError, match=r"motion id 'sit down' is not an identifier \(letters, digits, _\)$"):
        write(read(own_net(tmp_path)), tmp_path / "x.mof", motion_id="sit down")


@pytest.mark.parametrize(("name", "motion_id"), [("sit down.mof", "sit_down"), ("2.v1.mof", "_2_v1")])
def test_a_file_name_that_is_no_identifier_gives_one_and_says_so(name: str, motion_id: str, tmp_path: Path) -> None:
    stem = name.removesuffix(".mof")
    with collect(warn=False) as report:
        write(read(own_net(tmp_path)), tmp_path / name)
    assert [n.message for n in report.notices if n.kind == NoticeKind.LOSSY_WRITE] == [
        f"motion id {motion_id!r} made from the file name {stem!r}, as a motion id is letters, digits and _ "
        "(another one: motion_id=NAME)"
    ]
    assert (tmp_path / name).read_text().startswith(f"motion_id = {motion_id}\n")
    assert read(tmp_path / name).name == motion_id


def test_dropped_data_is_named_in_a_warning(tmp_path: Path) -> None:
    m = Motion(
        times=np.array([0.0, 0.5]),
        joint_names=("HeadYaw", "Elbow"),
        position=np.zeros((2, 2)),
        velocity=np.zeros((2, 2)),
        interpolation=("linear",),
    )
    with pytest.warns(UserWarning, match=r"joints not in joint map 'nao_26': Elbow.*velocity"):
        write(MotionFile.single(m), tmp_path / "x.mof")


def test_existing_output_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "sitDown.mof"
    out.write_text("mine")
    with pytest.raises(WriteError, match="exists"):
        write(read(own_net(tmp_path)), out)
    assert out.read_text() == "mine"


def test_a_value_beyond_the_float_range_in_degrees_is_refused_naming_joint_and_time(tmp_path: Path) -> None:
    motion = Motion(times=[0, 1], joint_names=("HeadYaw", "HeadPitch"), position=[[0, 0], [0, -1.7e308]])
    with pytest.raises(WriteError, match=r"HeadPitch at 1 s: -1\.7e\+308 rad is beyond the float range in degrees"):
        write(MotionFile.single(motion), tmp_path / "huge.mof")
    assert not (tmp_path / "huge.mof").exists()


def test_a_step_is_held_and_jumps_1_ms_before_its_keyframe_naming_the_joint(tmp_path: Path) -> None:
    held = Motion(
        times=[0, 1, 2],
        joint_names=("HeadYaw", "HeadPitch"),
        position=[[0.1, 0.2], [0.1, 0.4], [0.1, 0.2]],
        interpolation=("step", "linear"),
    )
    with collect(warn=False) as report:
        write(MotionFile.single(held), tmp_path / "held.mof", joint_map="nao_22")
    assert any(
        "step interpolation between keyframes of HeadPitch at 0–1 s (each jump happens 1 ms before its keyframe)" in m
        for m in lossy_messages(report)
    )
    back = read(tmp_path / "held.mof", joint_map="nao_22").motion.sample([0.5, 0.998, 1.0])
    assert back.position is not None
    np.testing.assert_allclose(back.position[:, back.joint_names.index("HeadPitch")], [0.2, 0.2, 0.4], atol=1e-6)
