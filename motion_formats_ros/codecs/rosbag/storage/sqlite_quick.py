"""rosbag2 folders of sqlite3 storage opened without counting their messages first.

rosbags' sqlite3 storage reader counts every topic's messages when it opens a file (a
join of the topics with the whole messages table: a scan of every row, about half the
time it takes to fetch them all). In a rosbag2 folder those counts are not used:
rosbags' folder reader takes each topic's count from ``metadata.yaml`` and only the
message definitions from the storage. :class:`QuickReader` opens such a folder with a
storage reader that reads the schema, topics and definitions as rosbags does and leaves
the count out, so that the one scan of the table is the read of its messages.

The count also reads every row of the table; a damaged table fails it, and then
rosbags fails to open the bag. The read that skipped it keeps that outcome by owing
the scan (:attr:`QuickSqlite3Reader.owed`): a read that fetched its messages with a
query that visits every row of the table (:func:`visits_every_row`) has done it; any
other runs :meth:`QuickSqlite3Reader.check` at the end. A read that fails in any way
is redone the ordinary way (see ``_read``), so that it fails exactly as before.

A file whose layout is not one of rosbag2's (an unknown definition encoding, topic ids
that are not unique, an empty ``schema`` table …) or that fails any of these queries is
opened by rosbags' own code, counts included.
"""

from __future__ import annotations

import functools
from typing import Any

from rosbags.interfaces import Connection, ConnectionExtRosbag2, MessageDefinition, MessageDefinitionFormat
from rosbags.rosbag2 import Reader
from rosbags.rosbag2.metadata import ReaderMetadata, parse_qos
from rosbags.rosbag2.reader import DirectoryReader
from rosbags.rosbag2.storage_sqlite3 import Sqlite3Reader

from ....core.errors import MotionFormatError

#: Definition encodings of the ``message_definitions`` table and their rosbags format.
ENCODINGS = {"ros2msg": MessageDefinitionFormat.MSG, "ros2idl": MessageDefinitionFormat.IDL}
#: The statement whose scan the quick open leaves out (run by :meth:`QuickSqlite3Reader.check`).
COUNT_SQL = (
    "SELECT topics.id, count(messages.id) FROM topics LEFT JOIN messages ON topics.id == messages.topic_id "
    "GROUP BY topics.id ORDER BY topics.id"
)


class _UnusualLayoutError(MotionFormatError):
    """The file is not in rosbag2's usual layout: rosbags' own code opens it."""


class QuickSqlite3Reader(Sqlite3Reader):
    """rosbags' sqlite3 storage reader without the message count at open (see the module docstring).

    Its connections carry a message count of 0: only a folder reader, which takes the
    counts from ``metadata.yaml``, uses it.

    Attributes:
        owed: The count's scan was left out and is still owed (:meth:`check`, :meth:`visited`).
    """

    def __init__(self, path: Any, ledger: list[QuickSqlite3Reader]) -> None:
        super().__init__(path)
        self.owed = False
        self._ledger = ledger

    def _open(self) -> None:
        try:
            self._quick_open()
        except Exception:  # anything unusual (or damaged): rosbags decides, with its errors
            self.connections = []
            self.msgtypes = []
            super()._open()
            return
        self.owed = True
        self._ledger.append(self)

    def _quick_open(self) -> None:
        db = self.dbconn
        assert db is not None
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"messages", "topics"} <= tables:
            raise _UnusualLayoutError("no messages or topics table")
        if "schema" in tables:
            versions = list(db.execute("SELECT schema_version FROM schema"))
            if len(versions) != 1 or not isinstance(versions[0][0], int):
                raise _UnusualLayoutError("schema version")
            schema = versions[0][0]
        elif any(row[1] == "offered_qos_profiles" for row in db.execute("PRAGMA table_info(topics)")):
            schema = 2
        else:
            schema = 1
        msgtypes: list[dict[str, str]] = []
        definitions: dict[str, MessageDefinition] = {}
        if schema >= 4:
            for name, encoding, text, digest in db.execute(
                "SELECT topic_type, encoding, encoded_message_definition, type_description_hash "
                "FROM message_definitions ORDER BY id"
            ):
                msgtypes.append({"name": name, "encoding": encoding, "msgdef": text, "digest": digest})
                if name not in definitions:
                    if encoding not in ENCODINGS:
                        raise _UnusualLayoutError(f"definition encoding {encoding!r}")
                    definitions[name] = MessageDefinition(ENCODINGS[encoding], text)
        none = MessageDefinition(MessageDefinitionFormat.NONE, "")
        qos_column = "offered_qos_profiles" if schema >= 2 else "''"  # the first layout has no QoS
        digest_column = "type_description_hash" if schema >= 4 else "''"
        connections = []
        ids: set[int] = set()
        for cid, topic, msgtype, serialization, qos, digest in db.execute(
            f"SELECT id, name, type, serialization_format, {qos_column}, {digest_column} FROM topics ORDER BY id"  # noqa: S608
        ):
            if not isinstance(cid, int) or cid in ids:
                raise _UnusualLayoutError("topic ids")
            ids.add(cid)
            ext = ConnectionExtRosbag2(serialization, parse_qos(qos) if schema >= 2 else [])
            connections.append(Connection(cid, topic, msgtype, definitions.get(msgtype, none), digest, 0, ext, self))
        ((start, end, count),) = db.execute("SELECT MIN(timestamp), MAX(timestamp) + 1, COUNT(*) FROM messages")
        self.schema = schema
        self.msgtypes = msgtypes
        self.connections = connections
        self.metadata = ReaderMetadata(
            end - start if start is not None and end is not None else 0,
            start if start is not None else 2**63 - 1,
            end if end is not None else 0,
            count,
            None,
            None,
            None,
            None,
        )

    def visited(self) -> None:
        """A query that visits every row of the messages table ran to its end: the scan is done."""
        self.owed = False

    def check(self) -> None:
        """The scan the open left out (raises what rosbags' open would have met on a damaged table)."""
        if self.owed:
            assert self.dbconn is not None
            for _ in self.dbconn.execute(COUNT_SQL):
                pass
            self.owed = False


class _QuickDirectoryReader(DirectoryReader):
    def __init__(self, path: Any, ledger: list[QuickSqlite3Reader]) -> None:
        self.STORAGE_PLUGINS = {
            **DirectoryReader.STORAGE_PLUGINS,
            "sqlite3": functools.partial(QuickSqlite3Reader, ledger=ledger),  # type: ignore[dict-item]
        }
        super().__init__(path)


class QuickReader(Reader):
    """rosbags' reader, whose rosbag2 folders of sqlite3 storage open without the message count.

    Every storage reader that left the count out joins ``ledger``.
    """

    def __init__(self, path: Any, ledger: list[QuickSqlite3Reader]) -> None:
        self.STORAGE_PLUGINS = {
            **Reader.STORAGE_PLUGINS,
            "dir": functools.partial(_QuickDirectoryReader, ledger=ledger),  # type: ignore[dict-item]
        }
        super().__init__(path)


def visits_every_row(db: Any, sql: str, args: Any) -> bool:
    """Whether sqlite runs ``sql`` as a scan of the messages table (every row read), not a search."""
    plan = [str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {sql}", args)]
    on_messages = [d for d in plan if " messages" in f" {d}"]
    return bool(on_messages) and all(d.startswith("SCAN") for d in on_messages)
