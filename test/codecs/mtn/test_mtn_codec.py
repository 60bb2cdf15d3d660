"""Sony AIBO ``.mtn``: the spec's seed file, exact round trips, writing any motion."""

from __future__ import annotations

import math
import struct
from pathlib import Path

import numpy as np
import pytest
from support.mtn_seed import seed_bytes, write_seed

from motion_formats_ros import Motion, MotionFile, WriteError, read, write
from motion_formats_ros.codecs import mtn
from motion_formats_ros.codecs.mtn import MtnRecord
from motion_formats_ros.core.joint_maps import load

MICRO = 1e-6


def sections(data: bytes) -> list[tuple[int, int, int]]:
    """(offset, number, size) of every section, walked independently of the codec."""
    out = []
    pos = 4
    while pos < len(data):
        number, size = struct.unpack_from("<II", data, pos)
        out.append((pos, number, size))
        pos += size
    assert pos == len(data)
    return out


def test_read_seed_file(tmp_path: Path) -> None:
    mf = read(write_seed(tmp_path))
    m = mf.motion
    assert mf.format == "mtn"
    assert mf.name == "a_stand#sit_S"
    assert m.num_frames == 6
    assert len(m.joint_names) == 20
    assert m.duration == pytest.approx(4.88)
    # (61 + 51 + 41 + 51 + 101) frames of 16 ms: (N + 1) frames per segment.
    np.testing.assert_allclose(m.times * 1000, [0, 976, 1792, 2448, 3264, 4880])
    assert m.interpolation == ("linear",) * 5
    assert mf.record(MtnRecord).creator == "Sony Corporation"
    assert mf.record(MtnRecord).design_label == "DRX-910"
    assert mf.record(MtnRecord).frame_rate_ms == 16
    assert mf.record(MtnRecord).version == (1, 2)


def test_seed_joint_names_come_from_the_ers210_map(tmp_path: Path) -> None:
    m = read(write_seed(tmp_path)).motion
    assert m.joint_map == "aibo_ers210"
    assert m.joint_names[:6] == ("head_tilt", "head_pan", "head_roll", "mouth", "left_ear", "right_ear")
    assert m.joint_names[6:9] == ("left_front_leg_rotator", "left_front_leg_abductor", "left_front_leg_knee")
    assert m.joint_names[-2:] == ("tail_pan", "tail_tilt")
    assert m.joint_sources["mouth"] == "PRM:/r1/c1/c2/c3/c4-Joint2:j4"


def test_seed_values_are_micro_radians(tmp_path: Path) -> None:
    m = read(write_seed(tmp_path)).motion
    col = {n: i for i, n in enumerate(m.joint_names)}
    # Keyframe 0 (bytes 0x268, 0x274, 0x27C): mouth -52360, left front rotator -174533, knee 523600.
    assert m.position[0, col["mouth"]] == pytest.approx(-52360 * MICRO)
    assert m.position[0, col["left_front_leg_rotator"]] == pytest.approx(-174533 * MICRO)
    assert m.position[0, col["left_front_leg_knee"]] == pytest.approx(523600 * MICRO)
    # Keyframe 5 (byte 0x43C): head tilt -436333.
    assert m.position[5, col["head_tilt"]] == pytest.approx(-436333 * MICRO)


def test_seed_body_pitch_is_the_root_orientation(tmp_path: Path) -> None:
    m = read(write_seed(tmp_path)).motion
    rpy = m.series["body_rpy"].values
    assert rpy[0] == pytest.approx([0, 34906 * MICRO, 0])  # byte 0x254
    assert rpy[5] == pytest.approx([0, 558506 * MICRO, 0])  # byte 0x434
    # Leaning backward (file pitch +) is a negative ROS pitch: rotation about y by -pitch.
    half = -34906 * MICRO / 2
    np.testing.assert_allclose(m.root_orientation[0], [0, math.sin(half), 0, math.cos(half)], atol=1e-12)
    back = mtn.body_rpy_from_quaternion(m.root_orientation)
    np.testing.assert_allclose(back, rpy, atol=1e-12)


def test_seed_read_then_write_gives_identical_bytes(tmp_path: Path) -> None:
    src = write_seed(tmp_path)
    out = tmp_path / "copy.mtn"
    write(read(src), out)
    assert out.read_bytes() == seed_bytes()


def test_exact_expansion_at_the_frame_rate(tmp_path: Path) -> None:
    m = read(write_seed(tmp_path)).motion
    dense = m.resample(1000 / 16)
    assert dense.num_frames == 306  # 305 frames of 16 ms, both ends included
    # Keyframes are frames 0, 61, 112, 153, 204, 305; between them the values are linear.
    for k, frame in enumerate([0, 61, 112, 153, 204, 305]):
        np.testing.assert_allclose(dense.position[frame], m.position[k], atol=1e-12)
    expected = m.position[0] + (m.position[1] - m.position[0]) * (30 / 61)
    np.testing.assert_allclose(dense.position[30], expected, atol=1e-12)


def test_write_any_keyframed_motion(tmp_path: Path) -> None:
    m = Motion(
        times=np.array([0.0, 0.16, 0.48]),
        joint_names=("head_tilt", "tail_pan", "custom"),
        position=np.array([[0.1, -0.2, 0.3], [0.0, 0.5, -1.0], [1.25, -0.000001, 2.0]]),
        interpolation=("linear", "linear"),
    )
    out = tmp_path / "wave.mtn"
    write(MotionFile.single(m, name="wave"), out)
    data = out.read_bytes()
    secs = sections(data)
    assert [n for _, n, _ in secs] == [0, 1, 2, 3]
    assert all(size % 4 == 0 for _, _, size in secs)
    size0, count, major, minor, keyframes, rate, _ = struct.unpack_from("<IIHHHHI", data, 8)
    assert (size0, count, major, minor, keyframes, rate) == (24, 4, 1, 2, 3, 16)
    s3 = secs[3][0]
    ints = struct.unpack_from("<" + "i" * (6 + 2 * 7), data, s3 + 12)
    assert ints[:6] == (0, 0, 0, 100000, -200000, 300000)
    assert ints[6] == 9  # 0.16 s = 10 frames of 16 ms
    assert ints[7 + 6] == 19  # 0.32 s = 20 frames
    assert ints[-1] == 2000000
    back = read(out)
    assert back.name == "wave"
    # Names the maps know are written as their locators; the others as they are.
    assert back.record(MtnRecord).locators == ["PRM:/r1/c1-Joint2:j1", "PRM:/r6/c1-Joint2:j1", "custom"]
    assert back.motion.joint_names == ("head_tilt", "tail_pan", "custom")
    np.testing.assert_allclose(back.motion.times, m.times)
    np.testing.assert_allclose(back.motion.position, m.position, atol=5e-7)


def test_times_off_the_frame_grid_are_snapped_with_a_warning(tmp_path: Path) -> None:
    m = Motion(
        times=np.array([0.0, 0.1, 0.3]),
        joint_names=("a",),
        position=np.array([[0.0], [1.0], [0.0]]),
        interpolation=("linear", "linear"),
    )
    out = tmp_path / "snap.mtn"
    with pytest.warns(UserWarning, match="frame grid"):
        write(MotionFile.single(m), out)
    back = read(out).motion
    np.testing.assert_allclose(back.times, [0.0, 0.096, 0.304])


def test_dense_motion_is_reduced_to_keyframes(tmp_path: Path) -> None:
    t = np.arange(0, 2.0 + 1e-9, 0.005)
    pos = np.column_stack([0.5 * np.sin(np.pi * t), 0.2 * np.cos(2 * np.pi * t)])
    m = Motion(times=t, joint_names=("head_pan", "head_tilt"), position=pos)
    out = tmp_path / "dense.mtn"
    with pytest.warns(UserWarning, match=r"lossy \.mtn write: \d+ keyframe\(s\) for 401 frame\(s\), \d+ dropped"):
        write(MotionFile.single(m), out)
    back = read(out).motion
    assert 3 < back.num_frames < 200
    again = back.sample(t)
    assert np.max(np.abs(again.position - pos)) < math.radians(0.15)


def test_step_segments_are_approximated_with_a_warning(tmp_path: Path) -> None:
    m = Motion(
        times=np.array([0.0, 0.32, 0.64]),
        joint_names=("mouth",),
        position=np.array([[0.0], [1.0], [0.5]]),
        interpolation=("step", "linear"),
    )
    out = tmp_path / "step.mtn"
    with pytest.warns(UserWarning, match="step"):
        write(MotionFile.single(m), out)
    back = read(out).motion
    probe = np.array([0.0, 0.1, 0.3, 0.32, 0.48, 0.64])
    np.testing.assert_allclose(back.sample(probe).position, m.sample(probe).position, atol=1e-6)


def test_ers7_locators_and_design_label(tmp_path: Path) -> None:
    ers7 = load("aibo_ers7")
    names = ers7.names
    m = Motion(
        times=np.array([0.0, 0.8]),
        joint_names=names,
        position=np.linspace(-0.5, 0.5, 2 * len(names)).reshape(2, len(names)),
        interpolation=("linear",),
    )
    out = tmp_path / "ers7.mtn"
    write(MotionFile.single(m, name="ers7"), out)
    back = read(out)
    assert back.record(MtnRecord).design_label == "DRX-1000"
    assert back.record(MtnRecord).locators[0] == "PRM:/r1/c1-Joint2:11"
    assert back.record(MtnRecord).locators[-1] == "PRM:/r6/c2-Joint2:62"
    assert back.motion.joint_names == names
    assert back.motion.joint_map == "aibo_ers7"


def test_joint_map_option_overrides_the_names(tmp_path: Path) -> None:
    m = read(write_seed(tmp_path), joint_map="aibo_ers7").motion
    # ERS-7 does not know the ERS-210 locators: they stay as they are.
    assert m.joint_names[0] == "PRM:/r1/c1-Joint2:j1"


def test_existing_output_is_not_replaced(tmp_path: Path) -> None:
    src = write_seed(tmp_path)
    out = tmp_path / "x.mtn"
    out.write_bytes(b"keep")
    from motion_formats_ros import WriteError

    with pytest.raises(WriteError, match="exists"):
        write(read(src), out)
    assert out.read_bytes() == b"keep"
    write(read(src), out, overwrite=True)
    assert out.read_bytes() == seed_bytes()


def test_a_motion_too_long_for_the_frame_grid_is_a_write_error(tmp_path: Path) -> None:
    endless = Motion(times=[0, 1, 1e300], joint_names=("a",), position=[[0], [1], [2]])
    with pytest.raises(WriteError, match=r"1e\+300 s is 6\.25e\+301 frames of 16 ms: \.mtn counts the frames between "):
        write(MotionFile.single(endless), tmp_path / "endless.mtn")
