"""Bags in rosbag2's usual layouts, opened by the package's own code (rosbags is not loaded).

A rosbag2 folder (``metadata.yaml`` with sqlite3 or MCAP storage, uncompressed), an
indexed ``.mcap`` file and a ``.db3`` file are opened here as rosbags opens them: the
same connections (ids, topics, types, definitions, counts, QoS), read from the folder's
metadata, the MCAP summary or the sqlite3 tables, with the same metadata parser. It
covers what recorders write; anything else (a summary without statistics, an unknown
definition encoding, QoS that do not parse, a compressed folder, a ROS 1 bag …) raises
:class:`UnusualLayoutError`, and the caller reads the bag with rosbags instead, whose outcome
(and errors) it keeps. See ``opening`` and ``_read`` for that fallback.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterator
from pathlib import Path, PurePath
from typing import Any, NamedTuple

from ....core.errors import FallbackSignal
from . import metadata_yaml
from .bounded import BoundedPath
from .compression import DecompressionBombError
from .mcap_records import (
    CHANNEL_ENTRY,
    FOOTER_HEAD,
    MAGIC,
    OP_CHANNEL,
    OP_CHUNK_INDEX,
    OP_FOOTER,
    OP_HEADER,
    OP_SCHEMA,
    OP_STATISTICS,
    OP_SUMMARY_OFFSET,
    TAIL_SIZE,
)
from .mcap_records import U16 as _U16
from .mcap_records import U32 as _U32
from .mcap_records import U64 as _U64


class OpenOrClosed:
    """Opened by ``_open``; when it fails, what it opened so far is closed (``close``) before the error goes on."""

    def open(self) -> None:
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class UnusualLayoutError(FallbackSignal):
    """A bag this module does not open (see the module docstring): rosbags reads it.

    The one signal of a planned fallback, and deliberately not a :class:`MotionFormatError`:
    it never reaches a user as an error (the caller catches it and reads the bag the general
    way), and a handler of the package's errors cannot take it for one by mistake.
    """


class Definition(NamedTuple):
    """A connection's message definition: ``format`` is ``MSG``, ``IDL`` or ``NONE``."""

    format: str
    data: str


NO_DEFINITION = Definition("NONE", "")


class Ext(NamedTuple):
    """What a rosbag2 connection adds: its serialization and its QoS (as parsed, comparable)."""

    serialization_format: str
    offered_qos_profiles: Any


class Connection(NamedTuple):
    """One connection (a topic of one type in one storage), as rosbags lists it."""

    id: int
    topic: str
    msgtype: str
    msgdef: Definition
    digest: str
    msgcount: int
    ext: Ext


class ChunkInfo(NamedTuple):
    """One chunk index entry of an MCAP summary (``channel_count``: messages per channel id)."""

    message_start_time: int
    message_end_time: int
    chunk_start_offset: int
    chunk_length: int
    message_index_offsets: dict[int, int]
    message_index_length: int
    compression: str
    compressed_size: int
    uncompressed_size: int
    channel_count: dict[int, int]


def _yaml(text: str) -> Any:
    """``text`` parsed as rosbags parses a bag's YAML (YAML 1.2, safe), or UnusualLayoutError.

    PyYAML reads YAML 1.1, which differs from 1.2 in how some plain scalars resolve
    (``yes``, ``0o17``, ``1e3``, ``1:30`` …; quoted ones and escapes are alike), and
    rosbags' parser refuses a key given twice. A document in the subset recorders write
    is read by :func:`.metadata_yaml.load`; another whose plain scalars all read alike in
    both (:func:`.metadata_yaml.alike`), without aliases or keys given twice, is the same
    document in both; any other goes to rosbags.
    """
    try:
        return metadata_yaml.load(text)  # as recorders write it: no YAML library needed
    except metadata_yaml.NotPlainYaml:
        pass
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        root = yaml.compose(text, Loader=loader)
    except yaml.YAMLError as exc:
        raise UnusualLayoutError(f"YAML that does not parse: {exc}") from None
    seen: set[int] = set()
    todo = [root] if root is not None else []
    while todo:
        node = todo.pop()
        if id(node) in seen:
            raise UnusualLayoutError("YAML with aliases")
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if not node.style and not metadata_yaml.alike(node.value):  # plain (the C parser says "", PyYAML None)
                raise UnusualLayoutError(f"a YAML scalar that YAML 1.1 and 1.2 may read apart: {node.value!r}")
        elif isinstance(node, yaml.SequenceNode):
            todo += node.value
        else:
            keys = [key.value for key, _ in node.value]
            if len(set(keys)) != len(keys):
                raise UnusualLayoutError("a YAML mapping with a key twice")
            for key, item in node.value:
                todo += [key, item]
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, ValueError) as exc:  # a tag it cannot construct, an int of too many digits
        raise UnusualLayoutError(f"YAML that does not load: {exc}") from exc


def _qos(value: Any) -> Any:
    """The QoS profiles of a topic as rosbags would accept them (a hashable copy), or UnusualLayoutError.

    rosbags fails on profiles that do not parse or lack a field; those bags go to it.
    """
    if not value:
        return ()
    try:
        items = _yaml(value) if isinstance(value, str) else value
    except UnusualLayoutError as exc:
        raise UnusualLayoutError(f"QoS profiles that do not parse: {exc}") from exc
    if not isinstance(items, list):
        raise UnusualLayoutError("QoS profiles that are not a list")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("avoid_ros_namespace_conventions", 0), bool):
            raise UnusualLayoutError("a QoS profile that is not a mapping")
        for key in ("deadline", "lifespan", "liveliness_lease_duration"):
            part = item.get(key)
            if not isinstance(part, dict) or not {"sec", "nsec"} <= set(part):
                raise UnusualLayoutError(f"a QoS profile without {key}")
        if "depth" not in item or "avoid_ros_namespace_conventions" not in item:
            raise UnusualLayoutError("a QoS profile without depth")
        if any(
            not isinstance(item.get(k, 0), (int, str)) for k in ("history", "reliability", "durability", "liveliness")
        ):
            raise UnusualLayoutError("a QoS policy that is neither a number nor a name")
        out.append(_frozen(item))
    return tuple(out)


def _frozen(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


# --------------------------------------------------------------------------- MCAP
_FORMATS = {"ros2msg": "MSG", "ros2idl": "IDL", "omgidl": "IDL", "": "NONE"}


class _Record:
    """A cursor over one record's bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        part = self.data[self.pos : self.pos + n]
        if len(part) != n:
            raise UnusualLayoutError("a summary record cut short")
        self.pos += n
        return part

    def u16(self) -> int:
        return int(_U16.unpack(self.take(2))[0])

    def u32(self) -> int:
        return int(_U32.unpack(self.take(4))[0])

    def u64(self) -> int:
        return int(_U64.unpack(self.take(8))[0])

    def blob(self) -> bytes:
        return self.take(self.u32())

    def text(self) -> str:
        return self.blob().decode()


def _channel_qos(metadata: bytes) -> Any:
    rec = _Record(metadata)
    while rec.pos < len(metadata):
        key, value = rec.text(), rec.text()
        if key == "offered_qos_profiles":
            return _qos(value)
    return ()


def _chunk_info(rec: _Record) -> ChunkInfo:
    start, end, offset, length = (rec.u64() for _ in range(4))
    table = rec.blob()
    if len(table) % 10:
        raise UnusualLayoutError("a chunk index whose message index table is cut")
    offsets = dict(CHANNEL_ENTRY.iter_unpack(table))
    index_length = rec.u64()
    compression = rec.text()
    compressed, uncompressed = rec.u64(), rec.u64()
    # Messages per channel, as rosbags counts them: from the size of each channel's
    # message index (16 bytes an entry after its 15-byte head), in offset order.
    ordered = sorted((where, cid) for cid, where in offsets.items())
    bounds = [where for where, _ in ordered] + [offset + length + index_length]
    counts = {}
    for (where, cid), after in zip(ordered, bounds[1:], strict=False):
        if after - where - 15:
            counts[cid] = (after - where - 15) // 16
    return ChunkInfo(start, end, offset, length, offsets, index_length, compression, compressed, uncompressed, counts)


class McapStorage(OpenOrClosed):
    """An indexed MCAP storage file (profile ``ros2``, footer, summary with statistics)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.bio: Any = None
        self.chunks: list[ChunkInfo] = []
        self.connections: list[Connection] = []
        self.message_count = 0

    def close(self) -> None:
        bio, self.bio = self.bio, None
        if bio is not None:
            bio.close()

    def _open(self) -> None:
        bio = self.bio = BoundedPath(self.path).open("rb")
        if bio.read(8) != MAGIC or bio.read(1) != bytes([OP_HEADER]):
            raise UnusualLayoutError("no MCAP header")
        (size,) = _U64.unpack(bio.read(8))
        header = bio.read(min(size, 1 << 20))
        if len(header) != size or _Record(header).text() != "ros2":
            raise UnusualLayoutError("not the ros2 profile")
        data_start = bio.tell()
        end = bio.seek(0, 2)
        if end < data_start + TAIL_SIZE:
            raise UnusualLayoutError("no footer")
        footer_start = bio.seek(end - TAIL_SIZE)
        footer = bio.read(TAIL_SIZE)
        if footer[-len(MAGIC) :] != MAGIC or footer[: len(FOOTER_HEAD)] != FOOTER_HEAD:
            raise UnusualLayoutError("no footer")
        (summary_start,) = _U64.unpack_from(footer, 9)
        if not summary_start or not data_start <= summary_start <= footer_start:
            raise UnusualLayoutError("no summary")
        bio.seek(summary_start)
        self._summary(_Record(bio.read(end - summary_start)))  # up to the footer's opcode, which ends it

    def _summary(self, rec: _Record) -> None:
        schemas: dict[int, tuple[str, str, str]] = {}
        channels: list[tuple[int, int, str, str, bytes]] = []
        counts: dict[int, int] | None = None
        while True:
            op = rec.take(1)[0]
            if op in (OP_FOOTER, OP_SUMMARY_OFFSET):
                break
            body = _Record(rec.take(rec.u64()))
            if op == OP_SCHEMA:
                sid = body.u16()
                schemas[sid] = (body.text(), body.text(), body.text())
            elif op == OP_CHANNEL:
                cid, sid = body.u16(), body.u16()
                topic, encoding = body.text(), body.text()
                channels.append((cid, sid, topic, encoding, body.blob()))
            elif op == OP_CHUNK_INDEX:
                self.chunks.append(_chunk_info(body))
            elif op == OP_STATISTICS:
                self.message_count = body.u64()
                body.take(2 + 4 * 4 + 8 + 8)  # schema, channel, attachment, metadata, chunk counts; times
                table = body.blob()
                if len(table) % 10:
                    raise UnusualLayoutError("statistics whose channel counts are cut")
                counts = dict(CHANNEL_ENTRY.iter_unpack(table))
        if counts is None or not schemas:
            raise UnusualLayoutError("a summary without statistics or schemas")
        if self.message_count and not self.chunks:
            raise UnusualLayoutError("messages outside chunks")
        seen: set[int] = set()
        for cid, sid, topic, encoding, metadata in channels:
            if cid in seen:
                raise UnusualLayoutError("a channel listed twice")
            seen.add(cid)
            if sid not in schemas or schemas[sid][1] not in _FORMATS:
                raise UnusualLayoutError("a channel without a known schema")
            name, schema_encoding, text = schemas[sid]
            msgdef = Definition(_FORMATS[schema_encoding], text)
            ext = Ext(encoding, _channel_qos(metadata))
            self.connections.append(Connection(cid, topic, name, msgdef, "", counts.get(cid, 0), ext))

    def messages(self, connections: list[Connection]) -> Iterator[tuple[Connection, int, bytes]]:
        """Only an MCAP file without messages is read here (chunks are read by ``chunks``)."""
        if self.message_count:
            raise UnusualLayoutError("an MCAP file read message by message")
        yield from ()


# --------------------------------------------------------------------------- sqlite3
_ENCODINGS = {"ros2msg": "MSG", "ros2idl": "IDL"}
#: The count rosbags' sqlite3 reader runs at open (a scan of every message).
COUNT_SQL = (
    "SELECT topics.id, count(messages.id) FROM topics LEFT JOIN messages ON topics.id == messages.topic_id "
    "GROUP BY topics.id ORDER BY topics.id"
)


class SqliteStorage(OpenOrClosed):
    """An sqlite3 storage file in one of rosbag2's layouts (schema versions 1 to 4 and later).

    With ``ledger`` (a folder, whose counts come from ``metadata.yaml``) the count at open
    is left out and owed (the read's own scan of the table stands in for it):
    :meth:`visited` or :meth:`check` pays it.
    """

    def __init__(self, path: Path, ledger: list[Any] | None = None) -> None:
        self.path = path
        self.dbconn: Any = None
        self.connections: list[Connection] = []
        self.owed = False
        self._ledger = ledger

    def close(self) -> None:
        db, self.dbconn = self.dbconn, None
        if db is not None:
            with contextlib.suppress(Exception):  # closing after a failure: the first error is the one to say
                db.close()

    def _open(self) -> None:
        import apsw

        try:
            self._read_tables(apsw)
        except apsw.Error as exc:  # a damaged file: rosbags' reader words what it meets
            raise UnusualLayoutError(f"an sqlite3 file that does not open: {type(exc).__name__}: {exc}") from exc

    def _read_tables(self, apsw: Any) -> None:
        db = self.dbconn = apsw.Connection(
            f"file:{self.path}?immutable=1", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
        )
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"messages", "topics"} <= tables:
            raise UnusualLayoutError("no messages or topics table")
        refuse_computed_columns(db, self.path, tables)
        if "schema" in tables:
            versions = list(db.execute("SELECT schema_version FROM schema"))
            if len(versions) != 1 or not isinstance(versions[0][0], int):
                raise UnusualLayoutError("schema version")
            schema = versions[0][0]
        elif any(row[1] == "offered_qos_profiles" for row in db.execute("PRAGMA table_info(topics)")):
            schema = 2
        else:
            schema = 1
        definitions: dict[str, Definition] = {}
        if schema >= 4:
            for name, encoding, text, _digest in db.execute(
                "SELECT topic_type, encoding, encoded_message_definition, type_description_hash "
                "FROM message_definitions ORDER BY id"
            ):
                if name not in definitions:
                    if encoding not in _ENCODINGS or not isinstance(text, str):
                        raise UnusualLayoutError(f"definition encoding {encoding!r}")
                    definitions[name] = Definition(_ENCODINGS[encoding], text)
        qos_column = "offered_qos_profiles" if schema >= 2 else "''"
        digest_column = "type_description_hash" if schema >= 4 else "''"
        rows = list(
            db.execute(
                f"SELECT id, name, type, serialization_format, {qos_column}, {digest_column} FROM topics ORDER BY id"  # noqa: S608
            )
        )
        counts = {} if self._ledger is not None else dict(db.execute(COUNT_SQL))
        ids: set[int] = set()
        for cid, topic, msgtype, serialization, qos, digest in rows:
            if not isinstance(cid, int) or cid in ids or not all(isinstance(v, str) for v in (topic, msgtype)):
                raise UnusualLayoutError("topic ids")
            ids.add(cid)
            ext = Ext(serialization, _qos(qos) if schema >= 2 else ())
            msgdef = definitions.get(msgtype, NO_DEFINITION)
            self.connections.append(Connection(cid, topic, msgtype, msgdef, digest, counts.get(cid, 0), ext))
        # rosbags' open runs this query too (it reads the timestamp index's ends).
        list(db.execute("SELECT MIN(timestamp), MAX(timestamp) + 1, COUNT(*) FROM messages"))
        if self._ledger is not None:
            self.owed = True
            self._ledger.append(self)

    def visited(self) -> None:
        """A query that visits every row of the messages table ran to its end: the scan is done."""
        self.owed = False

    def check(self) -> None:
        """The scan the open left out (UnusualLayoutError on a damaged table: rosbags' reader words it)."""
        if self.owed:
            import apsw

            try:
                for _ in self.dbconn.execute(COUNT_SQL):
                    pass
            except apsw.Error as exc:
                raise UnusualLayoutError(f"an sqlite3 table that does not scan: {type(exc).__name__}: {exc}") from exc
            self.owed = False

    def messages(self, connections: list[Connection]) -> Iterator[tuple[Connection, int, bytes]]:
        """Messages of ``connections`` in receive-time order, as rosbags' query returns them."""
        ids = tuple({c.id for c in connections})
        marks = ",".join("?" for _ in ids)
        sql = (
            "SELECT topics.id,messages.timestamp,messages.data FROM messages JOIN topics ON "  # noqa: S608
            f"messages.topic_id=topics.id WHERE topics.id IN ({marks}) ORDER BY timestamp"
        )
        by_id = {c.id: c for c in self.connections}
        for cid, timestamp, data in self.dbconn.execute(sql, ids):
            yield by_id[cid], timestamp, data


#: The tables of rosbag2's sqlite3 layout, which a read queries.
SQLITE_TABLES = ("messages", "topics", "message_definitions", "metadata", "schema")


def refuse_computed_columns(db: Any, path: str | Path, tables: set[str]) -> None:
    """Refuse an sqlite3 storage whose tables compute a column when it is read (a generated column).

    rosbag2 writes none. A value computed on each read (``zeroblob(900000000)``) is not backed
    by the file: a file of kilobytes would hand over a gigabyte per message.

    Raises:
        DecompressionBombError: Naming the table and the column (no other reader tries the file).
    """
    for table in SQLITE_TABLES:
        if table not in tables:
            continue
        for row in db.execute(f"PRAGMA table_xinfo({table})"):
            if row[6] != 0:  # 2: generated and computed when read, 3: generated and stored; 1: a virtual table's
                raise DecompressionBombError(
                    path,
                    f"column {row[1]!r} of table {table!r} is computed when the table is read, not stored in "
                    "the file (rosbag2 writes no such column; a decompression bomb?)",
                )


# --------------------------------------------------------------------------- folders
_REQUIRED = ("version", "storage_identifier", "relative_file_paths", "duration", "starting_time", "message_count")


class FolderStorage(OpenOrClosed):
    """A rosbag2 folder read through its ``metadata.yaml`` (uncompressed storage)."""

    def __init__(self, path: Path, ledger: list[Any] | None) -> None:
        self.path = path
        self.ledger = ledger
        self.storages: list[Any] = []
        self.connections: list[Connection] = []
        self.ros_distro: Any = None
        self.custom: Any = None

    def close(self) -> None:
        for storage in self.storages:
            storage.close()
        self.storages = []

    def _open(self) -> None:
        try:
            doc = _yaml((self.path / "metadata.yaml").read_text())
        except (UnusualLayoutError, OSError, UnicodeDecodeError) as exc:
            raise UnusualLayoutError(f"metadata.yaml: {exc}") from exc
        meta = doc.get("rosbag2_bagfile_information") if isinstance(doc, dict) else None
        if not isinstance(meta, dict) or any(key not in meta for key in _REQUIRED):
            raise UnusualLayoutError("metadata.yaml lacks a field")
        version, kind, names = meta["version"], meta["storage_identifier"], meta["relative_file_paths"]
        if not isinstance(version, int) or version > 9 or kind not in ("mcap", "sqlite3"):
            raise UnusualLayoutError("metadata version or storage")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise UnusualLayoutError("relative_file_paths")
        mode = meta.get("compression_mode", "")
        if not isinstance(mode, str) or mode.lower() not in ("", "none"):
            raise UnusualLayoutError("compressed storage")
        checks = (
            (meta["duration"], "nanoseconds"),
            (meta["starting_time"], "nanoseconds_since_epoch"),
        )
        if not all(isinstance(d, dict) and isinstance(d.get(k), int) for d, k in checks):
            raise UnusualLayoutError("duration or starting time")
        if not isinstance(meta["message_count"], int) or not isinstance(meta.get("files", []), list):
            raise UnusualLayoutError("message_count or files")
        self.connections = self._connections(meta.get("topics_with_message_count"))
        paths = [self.path / PurePath(n).name for n in names]
        if not all(p.exists() for p in paths):
            raise UnusualLayoutError("a storage file is missing")
        self.ros_distro = meta.get("ros_distro")
        self.custom = meta.get("custom_data")
        for p in paths:
            storage: Any = McapStorage(p) if kind == "mcap" else SqliteStorage(p, self.ledger)
            storage.open()
            self.storages.append(storage)
        for i, conn in enumerate(self.connections):  # definitions come from the storage files
            found = next(
                (
                    c.msgdef
                    for s in self.storages
                    for c in s.connections
                    if c.msgtype == conn.msgtype and c.msgdef.format != "NONE"
                ),
                None,
            )
            if found is not None:
                self.connections[i] = conn._replace(msgdef=found)

    @staticmethod
    def _connections(topics: Any) -> list[Connection]:
        if not isinstance(topics, list):
            raise UnusualLayoutError("topics_with_message_count")
        out = []
        for i, entry in enumerate(topics):
            info = entry.get("topic_metadata") if isinstance(entry, dict) else None
            if not isinstance(info, dict) or not isinstance(entry.get("message_count"), int):
                raise UnusualLayoutError("a topic entry")
            name, msgtype, fmt = info.get("name"), info.get("type"), info.get("serialization_format")
            digest = info.get("type_description_hash", "")
            if not (isinstance(name, str) and isinstance(msgtype, str) and isinstance(digest, str)) or fmt != "cdr":
                raise UnusualLayoutError("a topic entry")
            ext = Ext(fmt, _qos(info.get("offered_qos_profiles", [])))
            out.append(Connection(i + 1, name, msgtype, NO_DEFINITION, digest, entry["message_count"], ext))
        return out

    def messages(self, connections: list[Connection]) -> Iterator[tuple[Connection, int, bytes]]:
        """Messages of ``connections``, storage by storage, matched as rosbags' folder reader matches them."""
        for storage in self.storages:
            mapping = {}
            for own in storage.connections:
                alike = [c for c in connections if c.topic == own.topic and c.msgtype == own.msgtype]
                match = next(
                    (
                        c
                        for c in alike
                        if c.ext == own.ext and (not own.digest or not c.digest or c.digest == own.digest)
                    ),
                    None,
                )
                if match is not None:
                    mapping[own.id] = match
                elif alike:  # rosbags compares QoS as it normalises them: it decides
                    raise UnusualLayoutError(
                        f"topic {own.topic}: the storage's QoS or type hash differ from metadata.yaml's"
                    )
            mine = [c for c in storage.connections if c.id in mapping]
            if mine:
                for own, t, raw in storage.messages(mine):
                    yield mapping[own.id], t, raw


# --------------------------------------------------------------------------- a bag
class DirectReader:
    """One bag path (folder, ``.mcap``, ``.db3``) opened by this module: a stand-in for rosbags' ``Reader``."""

    def __init__(self, path: Path, ledger: list[Any] | None) -> None:
        self.path = path
        if path.is_dir():
            self.storage: Any = FolderStorage(path, ledger)
        elif path.suffix == ".mcap":
            self.storage = McapStorage(path)
        elif path.suffix == ".db3":
            self.storage = SqliteStorage(path)
        else:
            raise UnusualLayoutError(f"a {path.suffix} file")

    @property
    def ros_distro(self) -> Any:
        return getattr(self.storage, "ros_distro", None)

    @property
    def custom(self) -> Any:
        return getattr(self.storage, "custom", None)

    @property
    def connections(self) -> list[Connection]:
        return list(self.storage.connections)

    def open(self) -> None:
        try:
            self.storage.open()
        except (struct.error, UnicodeDecodeError, OSError) as exc:  # cut or damaged: rosbags' reader words it
            raise UnusualLayoutError(f"a storage file that does not open: {type(exc).__name__}: {exc}") from exc

    def close(self) -> None:
        self.storage.close()

    def messages(self, connections: list[Connection]) -> Iterator[tuple[Connection, int, bytes]]:
        yield from self.storage.messages(connections)
