"""``.mtn`` variants the spec does not describe.

The fixtures are packed here, field by field, independently of the codec: a first
generation AIBO file (ERS-110/111, ``DRX-700``, format 1.0/1.1: frame rate 0, section 1
not padded, data type u16), sections declaring more bytes than their strings, and
dense motions that writing has to reduce.
"""

from __future__ import annotations

import math
import re
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, ReadError, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs.mtn import MtnRecord

ERS110 = [
    "PRM:/r0/c0-Joint:j0",
    "PRM:/r0/c0/c1-Joint:j1",
    "PRM:/r0/c0/c1/c2-Joint:j2",
    "PRM:/r0/c0/c1/c2/c3-Joint:j3",
    *(f"PRM:/r{leg}/c0{tail}-Joint:j{j}" for leg in (2, 3, 4, 5) for j, tail in enumerate(["", "/c1", "/c1/c2"])),
    "PRM:/r1/c0-Joint:j0",
    "PRM:/r1/c1-Joint:j1",
]


def string(text: str) -> bytes:
    raw = text.encode("latin-1")
    return bytes([len(raw)]) + raw


def section(number: int, body: bytes, *, pad: bool = True, declared_extra: bytes = b"") -> bytes:
    """Header + body (+ bytes the size declares beyond it) (+ zero padding to 4 bytes)."""
    content = body + declared_extra
    if pad:
        content += b"\0" * (-(8 + len(content)) % 4)
    return struct.pack("<II", number, 8 + len(content)) + content


def keyframe(i: int, joints: int) -> list[int]:
    """Body roll, pitch, yaw and the joints of keyframe ``i`` in micro-radians."""
    return [0, 1000 * i, 0, *(100_000 * (i + 1) + 1000 * j for j in range(joints))]


def first_generation(durations: tuple[int, ...] = (500, 1000), minor: int = 1, locators: list[str] = ERS110) -> bytes:
    n = len(durations) + 1
    joints = len(locators)
    head = section(0, struct.pack("<IHHHHI", 4, 1, minor, n, 0, 0))
    names = section(1, string("a_sit#stand_1") + string("OPEN-R") + string("DRX-700"), pad=False)
    assert len(names) % 4 != 0  # 37 bytes: the next section starts unaligned
    joint_list = section(2, struct.pack("<H", joints) + b"".join(string(loc) for loc in locators))
    data = struct.pack("<H", 0) + struct.pack(f"<{joints + 3}i", *keyframe(0, joints))
    for i, ms in enumerate(durations, 1):
        data += struct.pack(f"<i{joints + 3}i", ms, *keyframe(i, joints))
    return b"OMTN" + head + names + joint_list + section(3, data)


def put(folder: Path, data: bytes, name: str = "sit.mtn") -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------ item 5: first generation
@pytest.mark.parametrize("minor", [0, 1])
def test_first_generation_reads_with_the_ers110_map_and_millisecond_durations(tmp_path: Path, minor: int) -> None:
    path = put(tmp_path, first_generation(minor=minor))
    with pytest.warns(UserWarning, match=r"frame rate 0 \(byte 22, format 1\.\d\).*duration in ms"):
        mf = read(path)
    m = mf.motion
    assert mf.robot == "AIBO ERS-110/111"
    assert m.joint_map == "aibo_ers110"
    assert m.joint_names[:4] == ("head_tilt", "head_pan", "head_roll", "mouth")
    assert m.joint_names[4] == "right_front_leg_rotator" and m.joint_names[-1] == "tail_pan"
    np.testing.assert_allclose(m.times, [0.0, 0.5, 1.5])
    assert m.position is not None
    assert m.position[2, 0] == pytest.approx(0.3)  # 300000 micro-radians
    assert m.position[1, 17] == pytest.approx(0.217)
    assert m.series["body_rpy"].values[2, 1] == pytest.approx(0.002)
    assert "DRX-700" in m.read_choices["joint map"]
    assert "duration in ms" in m.read_choices["timing"]


@pytest.mark.parametrize("minor", [0, 1])
def test_first_generation_writes_back_byte_identical(tmp_path: Path, minor: int) -> None:
    data = first_generation(durations=(120, 37, 2000), minor=minor)
    path = put(tmp_path, data)
    with pytest.warns(UserWarning, match="frame rate 0"):
        mf = read(path)
    out = tmp_path / "back.mtn"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is lost: no warning
        assert write(mf, out) == 4
    assert out.read_bytes() == data


def test_info_says_how_the_first_generation_was_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = put(tmp_path, first_generation())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "joint map: aibo_ers110: the design label DRX-700 is AIBO ERS-110/111's" in out
    assert re.search(r"timing: frame rate 0 \(byte 22, format 1\.1\): .*duration in ms", out)


def test_first_generation_errors_name_the_byte(tmp_path: Path) -> None:
    data = first_generation()
    s3 = 4
    while struct.unpack_from("<I", data, s3)[0] != 3:  # walk the sections to number 3
        s3 += struct.unpack_from("<I", data, s3 + 4)[0]
    cases = {
        "cut": (data[:-10], s3 + 4, "runs past the end"),
        "type": (data[: s3 + 8] + struct.pack("<H", 5) + data[s3 + 10 :], s3 + 8, "unknown data type 5"),
        "zero": (data[: s3 + 10 + 84] + struct.pack("<i", 0) + data[s3 + 10 + 88 :], s3 + 10 + 84, "lasts 0 ms"),
    }
    for name, (bad, offset, reason) in cases.items():
        with pytest.raises(ReadError) as info:
            read(put(tmp_path, bad, f"{name}.mtn"))
        assert info.value.offset == offset, name
        assert reason in info.value.reason, name
        assert f"byte {offset}" in str(info.value)


# ------------------------------------------------------------------ item 6: larger sections
def later_generation(names_extra: bytes = b"", names_pad: bool = True, joints_extra: bytes = b"") -> bytes:
    locators = ["PRM:/r1/c1-Joint2:j1", "PRM:/r1/c1/c2-Joint2:j2"]
    head = section(0, struct.pack("<IHHHHI", 4, 1, 2, 2, 16, 0))
    # 8 + 11 + 17 + 8 = 44 bytes of header and strings.
    names = section(
        1,
        string("wave_head1") + string("Sony Corporation") + string("DRX-910"),
        pad=names_pad,
        declared_extra=names_extra,
    )
    joint_list = section(
        2, struct.pack("<H", 2) + b"".join(string(loc) for loc in locators), declared_extra=joints_extra
    )
    data = struct.pack("<I", 0) + struct.pack("<5i", 0, 0, 0, 1000, -1000)
    data += struct.pack("<6i", 30, 0, 0, 0, 50_000, 70_000)
    return b"OMTN" + head + names + joint_list + section(3, data)


@pytest.mark.parametrize(
    ("names_extra", "names_pad", "joints_extra"),
    [
        (b"\0\0", False, b""),  # 46 declared for 44 bytes of header and strings
        (b"\0\0\0\0", True, b""),  # a whole word more than the strings
        (b"\x07\x00", False, b""),  # not zero either
        (b"", True, b"\0\0\0\0\0\0\0\0"),  # the joint list too
    ],
)
def test_sections_larger_than_their_strings_round_trip(
    tmp_path: Path, names_extra: bytes, names_pad: bool, joints_extra: bytes
) -> None:
    data = later_generation(names_extra, names_pad, joints_extra)
    path = put(tmp_path, data, "wave.mtn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mf = read(path)
        assert mf.name == "wave_head1"
        assert mf.record(MtnRecord).design_label == "DRX-910"
        assert mf.motion.joint_names == ("head_tilt", "head_pan")
        out = tmp_path / "back.mtn"
        write(mf, out)
    assert out.read_bytes() == data


# ------------------------------------------------------------------ item 7: lossy writes
def dense() -> MotionFile:
    t = np.arange(0, 2.0 + 1e-9, 0.005)
    pos = np.column_stack([0.5 * np.sin(np.pi * t), 0.2 * np.cos(2 * np.pi * t)])
    return MotionFile.single(Motion(times=t, joint_names=("head_pan", "head_tilt"), position=pos))


def test_lossy_mtn_write_warns_with_the_frames_dropped_and_the_deviation(tmp_path: Path) -> None:
    mf = dense()
    out = tmp_path / "dense.mtn"
    with pytest.warns(UserWarning, match="lossy .mtn write") as caught:
        written = write(mf, out)
    message = next(str(w.message) for w in caught if "lossy" in str(w.message))
    found = re.search(
        r"(\d+) keyframe\(s\) for 401 frame\(s\), (\d+) dropped .*largest deviation ([0-9.e-]+)°", message
    )
    assert found, message
    back = read(out).motion
    assert int(found.group(1)) == back.num_frames == written
    assert int(found.group(2)) == 401 - back.num_frames
    src = mf.motion
    assert src.position is not None
    again = back.select_joints(src.joint_names).sample(src.times).position
    assert again is not None
    actual = math.degrees(float(np.max(np.abs(again - src.position))))
    assert float(found.group(3)) == pytest.approx(actual, rel=1e-2)


def test_off_grid_keyframes_are_a_lossy_write_too(tmp_path: Path) -> None:
    m = Motion(
        times=np.array([0.0, 0.1, 0.25]),
        joint_names=("mouth",),
        position=np.array([[0.0], [1.0], [0.0]]),
        interpolation=("linear", "linear"),
    )
    with pytest.warns(UserWarning, match=r"lossy \.mtn write: 3 keyframe\(s\) for 3 frame\(s\), largest deviation"):
        write(MotionFile.single(m), tmp_path / "grid.mtn")  # 100 ms and 250 ms are off the 16 ms grid


def test_convert_to_mtn_reports_the_frames_in_the_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "dense.msgpack"
    write(dense(), src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["convert", str(src), str(tmp_path / "dense.mtn")]) == 0
    printed = capsys.readouterr().out
    frames = int(re.search(r"(\d+) frames", printed).group(1))  # type: ignore[union-attr]
    assert frames == read(tmp_path / "dense.mtn").motion.num_frames < 401


# ------------------------------------------------------------------ an ERS-7 file of a motion editor
ERS7 = ["PRM:/r1/c1-Joint2:11", "PRM:/r1/c1/c2-Joint2:12", "PRM:/r2/c1-Joint2:21", "PRM:/r6/c2-Joint2:62"]


def content_only_names() -> bytes:
    """Section 1 as some ERS-7 editors write it: its size (44) counts only the content, not
    the 8-byte header (52), and the name's length byte (10) is shorter than the name (15)."""
    body = bytes([10]) + b"ers7_dance_step" + string("skitter-author-1") + string("DRX-1000")
    body += b"\0" * (-len(body) % 4)
    assert len(body) == 44
    return struct.pack("<II", 1, len(body)) + body


def ers7_edited() -> bytes:
    joints = len(ERS7)
    head = section(0, struct.pack("<IHHHHI", 4, 1, 2, 2, 16, 0))
    joint_list = section(2, struct.pack("<H", joints) + b"".join(string(loc) for loc in ERS7))
    data = struct.pack("<I", 0) + struct.pack(f"<{joints + 3}i", *keyframe(0, joints))
    data += struct.pack(f"<i{joints + 3}i", 30, *keyframe(1, joints))
    return b"OMTN" + head + content_only_names() + joint_list + section(3, data)


def test_an_editors_content_only_name_section_is_read_with_a_notice(tmp_path: Path) -> None:
    path = put(tmp_path, ers7_edited(), "edited.mtn")
    with pytest.warns(UserWarning, match="section 1 size 44") as caught:
        mf = read(path)
    said = [str(w.message) for w in caught]
    assert any("byte 32: section 1 size 44 counts only its content" in s for s in said), said
    assert any("length byte says 10, the name runs 15 bytes ('ers7_dance_step')" in s for s in said), said
    assert mf.name == "ers7_dance_step"
    record = mf.record(MtnRecord)
    assert (record.creator, record.design_label) == ("skitter-author-1", "DRX-1000")
    assert record.locators == ERS7
    assert mf.motion.joint_map == "aibo_ers7"
    np.testing.assert_allclose(mf.motion.times, [0.0, 31 * 0.016])
    assert mf.motion.position is not None
    assert mf.motion.position[1, 3] == pytest.approx(0.203)
    # Written back as the editor wrote it (test_mtn_skitter.py has the whole file's round trip).
    out = tmp_path / "back.mtn"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(mf, out)
    assert out.read_bytes() == path.read_bytes()
