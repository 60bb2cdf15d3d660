"""``.mtn`` files of the Skitter motion editor (ERS-7) are written back byte for byte.

Skitter writes two things differently from Sony's layout: section 1's size field counts
only its content (the 8-byte section header left out, so section 2 starts 8 bytes after
where the size says), and the motion name's length byte is shorter than the name that
follows it (the creator's length byte comes after the whole name). The fixture is packed
here, field by field, from the format's layout (section 0 header; section 1 names;
section 2 the ERS-7 PRM locators; section 3 angle line data), independently of the codec.
A motion that did not come from such a file is written in the standard layout.
"""

from __future__ import annotations

import dataclasses
import struct
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_params

from motion_formats_ros import MotionFile, read, write
from motion_formats_ros.codecs.mtn import MtnRecord

LEG_JOINTS = ((1, ""), (2, "/c2"), (3, "/c2/c3"))  # rotator, abductor, knee
ERS7 = [
    "PRM:/r1/c1-Joint2:11",
    "PRM:/r1/c1/c2-Joint2:12",
    "PRM:/r1/c1/c2/c3-Joint2:13",
    "PRM:/r1/c1/c2/c3/c4-Joint2:14",
    "PRM:/r1/c1/c2/c3/e5-Joint4:15",
    "PRM:/r1/c1/c2/c3/e6-Joint4:16",
    *(f"PRM:/r{leg}/c1{tail}-Joint2:{leg}{j}" for leg in (2, 3, 4, 5) for j, tail in LEG_JOINTS),
    "PRM:/r6/c1-Joint2:61",
    "PRM:/r6/c2-Joint2:62",
]
NAME = "skitter_paw_wave"  # 16 bytes; the length byte says 12
NAME_BYTE = 12
CREATOR = "Skitter 3.0"
DESIGN = "DRX-1000"
COUNTS = (30, 0, 62, 7)  # interpolation counts of keyframes 1..4


def string(text: str) -> bytes:
    raw = text.encode("latin-1")
    return bytes([len(raw)]) + raw


def padded(number: int, body: bytes, *, content_only: bool = False) -> bytes:
    """Section header + body + zero padding to 4 bytes; the size counts the header unless ``content_only``."""
    body += b"\0" * (-(8 + len(body)) % 4)
    return struct.pack("<II", number, len(body) + (0 if content_only else 8)) + body


def keyframe(i: int) -> list[int]:
    """Body roll, pitch, yaw and the 20 joints of keyframe ``i`` in micro-radians (some negative)."""
    return [-1500 * i, 2500 * i, 0, *((-1) ** j * (50_000 * (i + 1) + 997 * j) for j in range(len(ERS7)))]


def skitter_ers7(name_byte: int = NAME_BYTE) -> bytes:
    n = len(COUNTS) + 1
    head = padded(0, struct.pack("<IHHHHI", 4, 1, 2, n, 16, 0))
    names = padded(1, bytes([name_byte]) + NAME.encode() + string(CREATOR) + string(DESIGN), content_only=True)
    joints = padded(2, struct.pack("<H", len(ERS7)) + b"".join(string(loc) for loc in ERS7))
    width = 3 + len(ERS7)
    data = struct.pack("<I", 0) + struct.pack(f"<{width}i", *keyframe(0))
    for i, count in enumerate(COUNTS, start=1):
        data += struct.pack(f"<i{width}i", count, *keyframe(i))
    return b"OMTN" + head + names + joints + padded(3, data)


def read_quietly(path: Path) -> MotionFile:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read(path)


def test_the_fixture_has_the_editors_layout() -> None:
    data = skitter_ers7()
    number, size = struct.unpack_from("<II", data, 28)
    assert (number, data[36]) == (1, NAME_BYTE)
    assert struct.unpack_from("<I", data, 28 + size)[0] != 2  # where the size points: no section 2
    assert struct.unpack_from("<I", data, 28 + 8 + size)[0] == 2  # it starts 8 bytes later


def test_a_skitter_ers7_file_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "wave.mtn"
    src.write_bytes(skitter_ers7())
    with pytest.warns(UserWarning, match="section 1 size 40") as caught:
        mf = read(src)
    said = " | ".join(str(w.message) for w in caught)
    assert "counts only its content" in said and "written back as it is" in said
    assert f"length byte says {NAME_BYTE}, the name runs {len(NAME)} bytes" in said
    assert mf.name == NAME
    assert mf.motion.joint_map == "aibo_ers7"
    assert mf.motion.position is not None
    assert mf.motion.position[4, 1] == pytest.approx(keyframe(4)[4] * 1e-6)
    np.testing.assert_allclose(mf.motion.times, np.cumsum([0, *(c + 1 for c in COUNTS)]) * 0.016)
    out = tmp_path / "back.mtn"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing lost: no lossy-write warning
        write(mf, out)
    assert out.read_bytes() == src.read_bytes()
    # and again from the written file
    again = tmp_path / "again.mtn"
    write(read_quietly(out), again)
    assert again.read_bytes() == src.read_bytes()


def test_a_renamed_skitter_motion_gets_the_names_own_length_byte(tmp_path: Path) -> None:
    src = tmp_path / "wave.mtn"
    src.write_bytes(skitter_ers7())
    mf = dataclasses.replace(read_quietly(src), name="paw_wave_2")
    out = tmp_path / "renamed.mtn"
    write(mf, out)
    data = out.read_bytes()
    assert data[36] == len("paw_wave_2")
    back = read_quietly(out)
    assert back.name == "paw_wave_2"
    record = back.record(MtnRecord)
    assert record is not None and record.creator == CREATOR and record.name_length_bytes == {}
    np.testing.assert_array_equal(back.motion.position, mf.motion.position)


def test_a_motion_not_from_skitter_is_written_in_the_standard_layout(tmp_path: Path) -> None:
    src = tmp_path / "wave.mtn"
    src.write_bytes(skitter_ers7())
    edited = read_quietly(src)
    fresh = MotionFile.single(edited.motion, name=edited.name)  # no .mtn record: not from a Skitter file
    out = tmp_path / "fresh.mtn"
    write(fresh, out)
    data = out.read_bytes()
    number, size = struct.unpack_from("<II", data, 28)
    assert number == 1 and data[36] == len(NAME)
    assert struct.unpack_from("<I", data, 28 + size)[0] == 2  # the size counts the header
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = read(out)
    assert back.name == NAME
    assert back.record(MtnRecord).content_only_sizes == []  # type: ignore[union-attr]
    np.testing.assert_array_equal(back.motion.position, edited.motion.position)


@pytest.mark.parametrize("path", corpus_params("", "**/*.mtn"))
def test_corpus_mtn_files_are_written_back_byte_for_byte(path: Path, tmp_path: Path) -> None:
    out = tmp_path / path.name
    mf = read_quietly(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(mf, out)
    assert out.read_bytes() == path.read_bytes()
