"""rosbag2 storage files written as rosbag2 writes them (MCAP and sqlite3).

rosbags' :class:`~rosbags.rosbag2.Writer` writes ``metadata.yaml`` and hands each storage
file to a storage writer (its ``STORAGE_PLUGINS``); these are ours, so that the files
carry what rosbag2's own plugins write:

- MCAP: profile ``ros2``; chunks with message indexes and a real CRC of their records,
  compressed with zstd (as ``ros2 bag record`` writes them), lz4 or not at all; a real
  data-end CRC and summary CRC; channel metadata ``offered_qos_profiles`` and, from
  Jazzy on, ``topic_type_hash``; a ``rosbag2`` metadata record holding
  ``serialized_metadata`` (the bag's metadata as YAML, naming the distro) and
  ``ROS_DISTRO`` (where Humble's plugin put it). A message bigger than a chunk gets a
  chunk of its own, so that readers of the other topics never load it. Every chunk
  holds messages: viewers take a chunk's start and end time for the span of its
  messages, and a chunk without any (start and end 0) would start their timeline in
  1970. Schema and channel records that no message follows are written outside chunks.
- sqlite3: the layout of rosbag2 from Iron on (schema version 4): tables ``schema``
  (with ``ros_distro``), ``metadata``, ``topics`` (with ``type_description_hash``),
  ``message_definitions`` and ``messages`` with its timestamp index.

Field layouts follow the MCAP specification (https://mcap.dev/spec) and rosbag2's
sqlite3 storage.
"""

from __future__ import annotations

import sqlite3
import sys
import zlib
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any, BinaryIO

from ....core.distros import DEFAULT_COMPRESSION, Compression
from ....core.errors import require
from .mcap_records import (
    FOOTER_HEAD,
    MAGIC,
    OP_CHANNEL,
    OP_CHUNK,
    OP_CHUNK_INDEX,
    OP_DATA_END,
    OP_HEADER,
    OP_MESSAGE,
    OP_MESSAGE_INDEX,
    OP_METADATA,
    OP_METADATA_INDEX,
    OP_SCHEMA,
    OP_STATISTICS,
    OP_SUMMARY_OFFSET,
)
from .mcap_records import MESSAGE as _MESSAGE
from .mcap_records import U16 as _U16
from .mcap_records import U32 as _U32
from .mcap_records import U64 as _U64

#: rosbag2's chunk size for MCAP (the mcap library's default, 1 MiB … 768 KiB; ours: 1 MiB).
CHUNK_SIZE = 1 << 20
#: zstd level: the MCAP C++ library's default, which rosbag2's MCAP plugin writes with.
ZSTD_LEVEL = 1
#: The sqlite3 schema version of rosbag2 from Iron on.
SQLITE_SCHEMA_VERSION = 4
#: Distros whose rosbag2 writes ``topic_type_hash`` into MCAP channel metadata.
HASH_DISTROS = ("jazzy", "kilted")


def _string(text: str) -> bytes:
    data = text.encode()
    return _U32.pack(len(data)) + data


def _string_map(entries: dict[str, str]) -> bytes:
    body = b"".join(_string(k) + _string(v) for k, v in entries.items())
    return _U32.pack(len(body)) + body


def _record(op: int, body: bytes) -> bytes:
    return bytes([op]) + _U64.pack(len(body)) + body


def _definition_encoding(connection: Any) -> str:
    from rosbags.interfaces import MessageDefinitionFormat

    return "ros2msg" if connection.msgdef.format == MessageDefinitionFormat.MSG else "ros2idl"


def chunk_compressor(compression: Compression) -> Callable[[bytes], bytes] | None:
    """The function that compresses a chunk's records for ``compression`` (None: stored as they are).

    Raises:
        MissingDependencyError: The compressor's module is not installed.
    """
    if compression == Compression.NONE:
        return None
    if compression == Compression.ZSTD:
        if sys.version_info >= (3, 14):  # pragma: no cover - the standard library's module
            zstd = require("compression.zstd", "MCAP zstd chunk compression", package="zstd", extra="zstd")
        else:
            zstd = require("backports.zstd", "MCAP zstd chunk compression", package="backports.zstd", extra="zstd")
        return lambda data: bytes(zstd.compress(data, level=ZSTD_LEVEL))
    frame = require("lz4.frame", "MCAP lz4 chunk compression", package="lz4", extra="lz4")  # Compression.LZ4
    return lambda data: bytes(frame.compress(data))


class _CrcFile:
    """A binary file that keeps the CRC32 of everything written to it."""

    def __init__(self, fh: BinaryIO) -> None:
        self.fh = fh
        self.crc = 0
        self.pos = 0

    def write(self, data: bytes) -> None:
        self.fh.write(data)
        self.crc = zlib.crc32(data, self.crc)
        self.pos += len(data)


class McapStorageWriter:
    """One ``.mcap`` file of a rosbag2 bag (see the module docstring)."""

    def __init__(
        self, path: Path, compression: Any, distro: str, chunk_compression: Compression = DEFAULT_COMPRESSION
    ) -> None:
        from rosbags.rosbag2.enums import CompressionMode

        if compression not in (CompressionMode.NONE, None):
            raise ValueError("rosbag2 file / message compression is not written by this storage writer")
        self._compress = chunk_compressor(chunk_compression)
        self._compression = "" if self._compress is None else chunk_compression
        self.path = path / f"{path.name}.mcap"
        self.distro = distro
        self._fh = self.path.open("xb")
        self._out = _CrcFile(self._fh)
        self._out.write(MAGIC)
        self._out.write(_record(OP_HEADER, _string("ros2") + _string("motion_formats_ros")))
        self._schemas: dict[str, tuple[int, bytes]] = {}  # msgtype → (id, record)
        self._channels: dict[int, bytes] = {}  # id → record
        self._chunk = BytesIO()
        self._chunk_times: list[int] = []
        self._chunk_index: dict[int, list[tuple[int, int]]] = {}
        self._chunk_indexes: list[bytes] = []
        self._counts: dict[int, int] = {}
        self._times: list[int] = []
        self._sequence: dict[int, int] = {}

    # -- the StorageWriter protocol of rosbags' Writer ---------------------------------
    def add_msgtype(self, connection: Any) -> None:
        sid = len(self._schemas) + 1
        body = (
            _U16.pack(sid)
            + _string(connection.msgtype)
            + _string(_definition_encoding(connection))
            + _string(connection.msgdef.data)
        )
        self._schemas[connection.msgtype] = (sid, _record(OP_SCHEMA, body))
        self._chunk.write(self._schemas[connection.msgtype][1])

    def add_connection(self, connection: Any, offered_qos_profiles: str) -> None:
        meta = {"offered_qos_profiles": offered_qos_profiles}
        if self.distro in HASH_DISTROS:
            meta["topic_type_hash"] = connection.digest
        body = (
            _U16.pack(connection.id)
            + _U16.pack(self._schemas[connection.msgtype][0])
            + _string(connection.topic)
            + _string(connection.ext.serialization_format)
            + _string_map(meta)
        )
        self._channels[connection.id] = _record(OP_CHANNEL, body)
        self._counts[connection.id] = 0
        self._chunk.write(self._channels[connection.id])

    def write(self, connection: Any, timestamp: int, data: bytes | memoryview) -> None:
        cid = connection.id
        head = _MESSAGE.pack(cid, self._sequence.get(cid, 0), timestamp, timestamp)
        self._sequence[cid] = (self._sequence.get(cid, 0) + 1) & 0xFFFFFFFF
        size = len(head) + len(data)
        if size > CHUNK_SIZE and self._chunk_times:
            self._close_chunk()  # a big message gets a chunk of its own (with the records before it)
        self._chunk_index.setdefault(cid, []).append((timestamp, self._chunk.tell()))
        self._chunk.write(bytes([OP_MESSAGE]) + _U64.pack(size) + head)
        self._chunk.write(data)
        self._chunk_times.append(timestamp)
        self._counts[cid] += 1
        if self._chunk.tell() >= CHUNK_SIZE:
            self._close_chunk()

    def close(self, version: int, metadata: str) -> None:
        del version
        if self._chunk_times:
            self._close_chunk()
        elif self._chunk.tell():  # schemas and channels no message followed: no chunk for them
            self._out.write(self._chunk.getvalue())
        out = self._out
        metadata = _with_distro(metadata, self.distro)
        meta_start = out.pos
        meta_record = _record(
            OP_METADATA, _string("rosbag2") + _string_map({"serialized_metadata": metadata, "ROS_DISTRO": self.distro})
        )
        out.write(meta_record)
        out.write(_record(OP_DATA_END, _U32.pack(out.crc)))  # data end: CRC of everything before it
        summary_start = out.pos
        out.crc = 0  # the summary CRC covers the summary section and the footer's first fields
        groups: list[tuple[int, int, int]] = []

        def group(op: int, records: list[bytes]) -> None:
            if records:
                start = out.pos
                for rec in records:
                    out.write(rec)
                groups.append((op, start, out.pos - start))

        group(OP_SCHEMA, [rec for _, rec in sorted(self._schemas.values())])
        group(OP_CHANNEL, [self._channels[cid] for cid in sorted(self._channels)])
        group(OP_CHUNK_INDEX, self._chunk_indexes)
        group(
            OP_METADATA_INDEX,
            [_record(OP_METADATA_INDEX, _U64.pack(meta_start) + _U64.pack(len(meta_record)) + _string("rosbag2"))],
        )
        counts = b"".join(_U16.pack(cid) + _U64.pack(n) for cid, n in sorted(self._counts.items()))
        stats = (
            _U64.pack(sum(self._counts.values()))
            + _U16.pack(len(self._schemas))
            + _U32.pack(len(self._channels))
            + _U32.pack(0)  # attachments
            + _U32.pack(1)  # metadata records
            + _U32.pack(len(self._chunk_indexes))
            + _U64.pack(min(self._times, default=0))
            + _U64.pack(max(self._times, default=0))
            + _U32.pack(len(counts))
            + counts
        )
        group(OP_STATISTICS, [_record(OP_STATISTICS, stats)])
        offsets_start = out.pos
        for op, start, length in list(groups):
            out.write(_record(OP_SUMMARY_OFFSET, bytes([op]) + _U64.pack(start) + _U64.pack(length)))
        footer_head = FOOTER_HEAD + _U64.pack(summary_start) + _U64.pack(offsets_start)
        out.write(footer_head)
        out.write(_U32.pack(out.crc))
        out.write(MAGIC)
        self._fh.close()

    def abort(self) -> None:
        self._fh.close()

    # -- chunks ---------------------------------------------------------------------
    def _close_chunk(self) -> None:
        out = self._out
        records = self._chunk.getvalue()
        start_time, end_time = min(self._chunk_times), max(self._chunk_times)
        self._times += [start_time, end_time]
        stored = records if self._compress is None else self._compress(records)
        body = (
            _U64.pack(start_time)
            + _U64.pack(end_time)
            + _U64.pack(len(records))
            + _U32.pack(zlib.crc32(records))
            + _string(self._compression)
            + _U64.pack(len(stored))
        )
        chunk_start = out.pos
        out.write(bytes([OP_CHUNK]) + _U64.pack(len(body) + len(stored)) + body)
        out.write(stored)
        chunk_length = out.pos - chunk_start
        index_offsets: dict[int, int] = {}
        index_start = out.pos
        for cid in sorted(self._chunk_index):
            entries = b"".join(_U64.pack(t) + _U64.pack(o) for t, o in self._chunk_index[cid])
            index_offsets[cid] = out.pos
            out.write(_record(OP_MESSAGE_INDEX, _U16.pack(cid) + _U32.pack(len(entries)) + entries))
        offsets = b"".join(_U16.pack(cid) + _U64.pack(o) for cid, o in index_offsets.items())
        self._chunk_indexes.append(
            _record(
                OP_CHUNK_INDEX,
                _U64.pack(start_time)
                + _U64.pack(end_time)
                + _U64.pack(chunk_start)
                + _U64.pack(chunk_length)
                + _U32.pack(len(offsets))
                + offsets
                + _U64.pack(out.pos - index_start)
                + _string(self._compression)
                + _U64.pack(len(stored))
                + _U64.pack(len(records)),
            )
        )
        self._chunk = BytesIO()
        self._chunk_times = []
        self._chunk_index = {}


class Sqlite3StorageWriter:
    """One ``.db3`` file of a rosbag2 bag, in rosbag2's layout from Iron on (see the module docstring)."""

    def __init__(self, path: Path, compression: Any, distro: str) -> None:
        from rosbags.rosbag2.enums import CompressionMode

        if compression not in (CompressionMode.NONE, CompressionMode.MESSAGE, CompressionMode.FILE, None):
            raise ValueError("sqlite3 storage has no storage-side compression")
        self.path = path / f"{path.name}.db3"
        if self.path.exists():
            raise FileExistsError(self.path)
        self.distro = distro
        self._db = sqlite3.connect(self.path)
        self._db.executescript(
            """
            CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);
            CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version INTEGER NOT NULL,
                                  metadata TEXT NOT NULL);
            CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,
                                serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL,
                                type_description_hash TEXT NOT NULL);
            CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL,
                                             encoding TEXT NOT NULL, encoded_message_definition TEXT NOT NULL,
                                             type_description_hash TEXT NOT NULL);
            CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL,
                                  timestamp INTEGER NOT NULL, data BLOB NOT NULL);
            CREATE INDEX timestamp_idx ON messages (timestamp ASC);
            """
        )
        self._db.execute(
            "INSERT INTO schema (schema_version, ros_distro) VALUES (?, ?)", (SQLITE_SCHEMA_VERSION, distro)
        )
        self._pending: list[tuple[int, int, bytes | memoryview]] = []

    def add_msgtype(self, connection: Any) -> None:
        self._db.execute(
            "INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash)"
            " VALUES (?, ?, ?, ?)",
            (connection.msgtype, _definition_encoding(connection), connection.msgdef.data, connection.digest),
        )

    def add_connection(self, connection: Any, offered_qos_profiles: str) -> None:
        self._db.execute(
            "INSERT INTO topics (id, name, type, serialization_format, offered_qos_profiles, type_description_hash)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                connection.id,
                connection.topic,
                connection.msgtype,
                connection.ext.serialization_format,
                offered_qos_profiles,
                connection.digest,
            ),
        )

    def write(self, connection: Any, timestamp: int, data: bytes | memoryview) -> None:
        self._pending.append((connection.id, timestamp, data))
        if len(self._pending) >= 4096:
            self._flush()

    def _flush(self) -> None:
        self._db.executemany("INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)", self._pending)
        self._pending = []

    def close(self, version: int, metadata: str) -> None:
        self._flush()
        self._db.execute(
            "INSERT INTO metadata (metadata_version, metadata) VALUES (?, ?)",
            (version, _with_distro(metadata, self.distro)),
        )
        self._db.commit()
        self._db.close()

    def abort(self) -> None:
        try:
            self._db.rollback()
        finally:
            self._db.close()


def _with_distro(metadata: str, distro: str) -> str:
    """The serialized metadata rosbags' Writer hands over, naming ``distro`` (it names itself)."""
    lines = metadata.splitlines()
    fixed = [f"ros_distro: {distro}" if line.strip() == "ros_distro: rosbags" else line for line in lines]
    return "\n".join(fixed) + ("\n" if metadata.endswith("\n") else "")


def storage_plugins(
    distro: str, chunk_compression: Compression = DEFAULT_COMPRESSION
) -> dict[Any, Callable[[Path, Any], Any]]:
    """The ``STORAGE_PLUGINS`` of a rosbags Writer writing for ``distro`` (MCAP chunks: ``chunk_compression``)."""
    from rosbags.rosbag2 import StoragePlugin

    chunk_compressor(chunk_compression)  # an unknown or unavailable compressor fails before any file exists
    return {
        StoragePlugin.MCAP: lambda path, compression: McapStorageWriter(path, compression, distro, chunk_compression),
        StoragePlugin.SQLITE3: lambda path, compression: Sqlite3StorageWriter(path, compression, distro),
    }
