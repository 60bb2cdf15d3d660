"""The record-walking MCAP scan: a damaged chunk ends the scan; anything else is a ReadError with its offset."""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest

from motion_formats_ros.codecs.rosbag.storage import mcap_scan as _mcap
from motion_formats_ros.core.errors import ReadError


def _record(op: int, body: bytes) -> bytes:
    return struct.pack("<BQ", op, len(body)) + body


def _string(text: str) -> bytes:
    return struct.pack("<I", len(text)) + text.encode()


def _file(tmp_path: Path, compression: str, records: bytes) -> tuple[Path, int]:
    """A footerless MCAP file: magic, header, one chunk; and the chunk's byte offset."""
    head = _mcap.MAGIC + _record(_mcap.OP_HEADER, _string("ros2") + _string("test"))
    chunk = struct.pack("<QQQI", 0, 0, 1000, 0) + _string(compression) + struct.pack("<Q", len(records)) + records
    path = tmp_path / "cut.mcap"
    path.write_bytes(head + _record(_mcap.OP_CHUNK, chunk))
    return path, len(head)


def test_a_damaged_chunk_ends_the_scan_where_it_starts(tmp_path: Path) -> None:
    pytest.importorskip("lz4")
    path, offset = _file(tmp_path, "lz4", b"this is not an lz4 frame" * 4)
    result = _mcap.McapScanner(path).index()
    assert not result.complete and result.stop_offset == offset and result.counts == {}


def test_a_chunk_that_cannot_be_decompressed_for_another_reason_is_a_read_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, offset = _file(tmp_path, "lz4", b"\x04\x22\x4d\x18" + bytes(20))
    monkeypatch.setitem(sys.modules, "lz4", None)  # the decompressor is not installed
    monkeypatch.setitem(sys.modules, "lz4.frame", None)
    with pytest.raises(ReadError) as err:
        _mcap.McapScanner(path).index()
    assert err.value.offset == offset and str(err.value).startswith(f"{path}: byte {offset}: cannot decompress")
    assert "lz4" in str(err.value)
