"""Damaged fields that a reader must not trust: a sqlite3 message whose blob became a number,
and an MCAP chunk header whose compression-name length says gigabytes."""

from __future__ import annotations

import dataclasses
import sqlite3
import struct
import tracemalloc
import warnings
from pathlib import Path

import pytest

from motion_formats_ros import read, write
from motion_formats_ros.codecs.rosbag.storage.mcap_scan import chunk_index_problem
from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.examples import biped_walk


def _written(path: Path) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(rate=10.0, cycles=1), path)
    return path


def test_a_sqlite3_message_whose_data_is_not_a_blob_is_a_read_error(tmp_path: Path) -> None:
    bag = _written(tmp_path / "walk.db3")
    db = next(bag.glob("*.db3")) if bag.is_dir() else bag
    with sqlite3.connect(db) as con:
        con.execute("UPDATE messages SET data = 5 WHERE id = (SELECT MIN(id) FROM messages)")
    with pytest.raises(ReadError, match=r"damaged sqlite3 storage: a message of topic '/\S+' has int data"):
        read(bag)


@pytest.mark.parametrize("table", ["messages", "metadata"])
def test_a_sqlite3_column_computed_when_read_is_refused_before_any_is_read(tmp_path: Path, table: str) -> None:
    """A generated column is not stored in the file: a file of kilobytes could hand over a gigabyte a row."""
    bag = _written(tmp_path / "walk.db3")
    db = next(bag.glob("*.db3")) if bag.is_dir() else bag
    column = "data" if table == "messages" else "metadata"
    with sqlite3.connect(db) as con:
        columns = [row[1] for row in con.execute(f"PRAGMA table_info({table})")]
        kept = ", ".join(c for c in columns if c != column)
        con.execute(f"ALTER TABLE {table} RENAME TO old")
        con.execute(
            f"CREATE TABLE {table}({', '.join(c for c in columns if c != column)}, stored BLOB, "
            f"{column} BLOB GENERATED ALWAYS AS (zeroblob(900000000)) VIRTUAL)"
        )
        con.execute(f"INSERT INTO {table}({kept}, stored) SELECT {kept}, {column} FROM old")
        con.execute("DROP TABLE old")
    assert db.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ReadError, match=rf"column '{column}' of table '{table}' is computed when"):
            read(bag)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 << 20  # not one computed value was fetched


@dataclasses.dataclass
class _Entry:
    """A chunk index entry as the summary states it."""

    chunk_start_offset: int
    chunk_length: int
    compression: str
    compressed_size: int
    uncompressed_size: int


def test_a_chunk_header_with_a_huge_compression_name_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = _written(tmp_path / "walk.mcap")
    data = bytearray(path.read_bytes())
    start = 8  # after the magic: walk the records (opcode, u64 length) up to the first chunk
    while True:
        op, length = struct.unpack_from("<BQ", data, start)
        if op == 6:
            break
        start += 9 + length
    _, _, usize, _ = struct.unpack_from("<QQQI", data, start + 9)
    (clen,) = struct.unpack_from("<I", data, start + 9 + 28)
    name = bytes(data[start + 9 + 32 : start + 9 + 32 + clen]).decode()
    (csize,) = struct.unpack_from("<Q", data, start + 9 + 32 + clen)
    entry = _Entry(start, 9 + length, name, csize, usize)
    assert chunk_index_problem(path, [entry]) is None  # the intact file agrees with its index
    struct.pack_into("<I", data, start + 9 + 28, 0xFFFF_FF00)  # a name of 4 GiB
    path.write_bytes(bytes(data))
    tracemalloc.start()
    try:
        problem = chunk_index_problem(path, [entry])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert problem is not None and "no chunk record" in problem
    assert peak < 1 << 20
