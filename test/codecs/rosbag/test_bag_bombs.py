"""A compressed storage file that would expand far beyond its size is refused before it fills
the temporary folder: a header that states too large a size before anything is written, a
stream that keeps expanding as soon as it passes the bound; the temporary copy is removed."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
from support.bags import JS, TS, joint_state

from motion_formats_ros import read
from motion_formats_ros.codecs.rosbag.storage import compression, opening
from motion_formats_ros.core.errors import ReadError


def _zstd() -> object:
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        from backports import zstd  # type: ignore[import-not-found,no-redef]
    return zstd


def _compressed_bag(path: Path) -> Path:
    writer = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.set_compression(CompressionMode.FILE, CompressionFormat.ZSTD)
    with writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for k in range(20):
            writer.write(conn, k * 10_000_000, TS.serialize_cdr(joint_state(k * 10_000_000, ["a"], [k]), JS))
    return path


def _temporaries() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("motion_formats_bag_*")}


def test_a_stream_that_expands_past_its_bound_is_refused_and_its_copy_removed(tmp_path: Path) -> None:
    bag = _compressed_bag(tmp_path / "bomb")
    (stored,) = bag.glob("*.zstd")
    zstd = _zstd()
    compressor = zstd.ZstdCompressor()  # type: ignore[attr-defined]
    zeros = bytes(1 << 20)
    with stored.open("wb") as fh:  # 100 MB of zeros in a stream that states no size: a few kB
        fh.write(compressor.compress(b"\x89MCAP0\r\n"))
        for _ in range(100):
            fh.write(compressor.compress(zeros))
        fh.write(compressor.flush())
    assert stored.stat().st_size < 100_000
    before = _temporaries()
    with pytest.raises(ReadError, match=r"decompresses to more than 67108864 bytes.*decompression bomb") as info:
        read(bag)
    assert str(stored) in str(info.value)
    assert _temporaries() == before


def test_a_header_that_states_too_large_a_size_is_refused_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bag = _compressed_bag(tmp_path / "bomb")
    (stored,) = bag.glob("*.zstd")
    # A frame header stating 2**40 bytes of content (single segment, 8-byte size), then garbage.
    stored.write_bytes(b"\x28\xb5\x2f\xfd" + bytes([0b1110_0000]) + (1 << 40).to_bytes(8, "little") + bytes(64))
    written: list[int] = []
    real = opening.decompress_file

    def watched(src: Path, dest: Path, limit: int | None = None) -> tuple[int, bool]:
        try:
            return real(src, dest, limit)
        finally:
            written.append(dest.stat().st_size if dest.exists() else 0)

    monkeypatch.setattr(opening, "decompress_file", watched)
    with pytest.raises(ReadError, match=f"its header states {1 << 40} bytes"):
        read(bag)
    assert written == [0]


def test_the_declared_size_is_read_from_every_header_layout() -> None:
    magic = b"\x28\xb5\x2f\xfd"
    assert compression.declared_size(magic + bytes([0b0010_0000, 200])) == 200  # single segment, 1 byte
    assert compression.declared_size(magic + bytes([0b0100_0000, 0x50]) + (1000).to_bytes(2, "little")) == 1256
    assert compression.declared_size(magic + bytes([0b1000_0001, 0x50, 7]) + (10**9).to_bytes(4, "little")) == 10**9
    assert compression.declared_size(magic + bytes([0b0000_0000, 0x50])) is None  # no size stated
