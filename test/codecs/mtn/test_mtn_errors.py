"""Bad ``.mtn`` input: every kind is a ReadError naming the byte offset (one test each)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from support.mtn_seed import seed_bytes

from motion_formats_ros import ReadError, read

# Offsets in the seed file (see the spec's dump).
SECTION1 = 0x1C
DESIGN_LABEL_LENGTH = 0x43
SECTION2 = 0x4C
SECTION3 = 0x244


def patched(tmp_path: Path, changes: dict[int, bytes], cut: int | None = None) -> Path:
    data = bytearray(seed_bytes())
    for offset, value in changes.items():
        data[offset : offset + len(value)] = value
    path = tmp_path / "bad.mtn"
    path.write_bytes(bytes(data[:cut]) if cut is not None else bytes(data))
    return path


def read_error(path: Path) -> ReadError:
    with pytest.raises(ReadError) as info:
        read(path)
    assert str(path) in str(info.value)
    return info.value


def test_bad_magic(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {0: b"OMTX"}))
    assert err.offset == 0
    assert "magic" in err.reason


def test_truncated_section_header(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {}, cut=SECTION3 + 5))
    assert err.offset == SECTION3
    assert "truncated section header" in err.reason


def test_truncated_section_string_runs_past_its_section(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {DESIGN_LABEL_LENGTH: bytes([15])}))
    assert err.offset == DESIGN_LABEL_LENGTH
    assert "truncated section 1" in err.reason


def test_section_size_past_the_end(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {SECTION3 + 4: struct.pack("<I", 0x1000)}))
    assert err.offset == SECTION3 + 4
    assert "past the end" in err.reason


def test_cut_file_is_a_section_past_the_end(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {}, cut=1000))
    assert err.offset == SECTION3 + 4
    assert "584" in err.reason


def test_joint_count_disagrees_with_the_data_size(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {SECTION2 + 8: struct.pack("<H", 19)}))
    assert err.offset == SECTION3 + 12
    assert "19 joints" in err.reason
    assert "572" in err.reason


def test_joint_count_the_section_cannot_hold_is_rejected_before_reading(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {SECTION2 + 8: struct.pack("<H", 0xFFFF)}))
    assert err.offset == SECTION2 + 8
    assert "65535" in err.reason


def test_unknown_data_type(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {SECTION3 + 8: struct.pack("<I", 7)}))
    assert err.offset == SECTION3 + 8
    assert "unknown data type 7" in err.reason


def test_missing_section(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {}, cut=SECTION3))
    assert err.offset == SECTION3
    assert "missing section 3" in err.reason


def test_keyframe_count_too_large_for_the_data(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {20: struct.pack("<H", 60000)}))
    assert err.offset == SECTION3 + 12
    assert "60000 keyframes" in err.reason


def test_negative_interpolation_count(tmp_path: Path) -> None:
    # The first interpolation count follows keyframe 0 (3 + 20 values) in section 3's data.
    err = read_error(patched(tmp_path, {SECTION3 + 12 + 4 * 23: struct.pack("<i", -1)}))
    assert err.offset == SECTION3 + 12 + 4 * 23
    assert "negative" in err.reason


def test_section_smaller_than_its_header(tmp_path: Path) -> None:
    err = read_error(patched(tmp_path, {SECTION1 + 4: struct.pack("<I", 4)}))
    assert err.offset == SECTION1 + 4
    assert "smaller than its 8-byte header" in err.reason
