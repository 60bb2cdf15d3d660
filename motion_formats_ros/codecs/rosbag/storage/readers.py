"""What a bag's files say before any message is read: kind, topics, embedded metadata.

:class:`Readers` opens the readers of a bag's files (the package's own, ``direct``, or
rosbags') without parsing any message definition; :func:`embedded_metadata`
finds the copy of ``metadata.yaml`` a bare storage file keeps (MCAP: through the
summary's metadata index, else by walking the records outside the chunks; sqlite3: the
``metadata`` table).
"""

from __future__ import annotations

import contextlib
import functools
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ....core.errors import MotionFormatError
from . import direct, folder, mcap_scan, metadata_yaml
from .compression import Budget, OverexpansionError, bomb, inflate

BAG_SUFFIXES = (".db3", ".mcap", ".bag")


def is_rosbag2_folder(path: Path) -> bool:
    """A folder with ``metadata.yaml`` or with storage files (``.db3``, ``.mcap``, ``.zstd`` of them)."""
    return folder.is_storage_folder(path)


def direct_candidate(path: Path) -> bool:
    """A rosbag2 folder with ``metadata.yaml``, or a ``.mcap`` / ``.db3`` file: it may open without rosbags."""
    try:
        return (path / "metadata.yaml").is_file() if path.is_dir() else path.suffix in (".mcap", ".db3")
    except OSError:
        return False


def storage_files(reader: Any) -> list[Any]:
    """The storage file readers behind one path's reader (a folder has several, a file is one)."""
    storage = reader.storage
    return list(storage.storages) if hasattr(storage, "storages") else [storage]


def _from_yaml(text: str) -> tuple[dict[str, str], str | None]:
    """custom_data and ros_distro of a bag's metadata YAML."""
    try:
        doc = metadata_yaml.load(text)  # as recorders write it: no YAML library needed
    except metadata_yaml.NotPlainYaml:
        import yaml

        from ....core.serial.yaml import SafeLoader, YamlError, check_expansion

        try:
            doc = yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader
        except (yaml.YAMLError, ValueError):  # (an int of more digits than Python converts)
            return {}, None
        try:
            check_expansion(doc, text)
        except YamlError:
            return {}, None
    if isinstance(doc, dict) and "rosbag2_bagfile_information" in doc:
        doc = doc["rosbag2_bagfile_information"]
    if not isinstance(doc, dict):
        return {}, None
    custom = doc.get("custom_data")
    distro = doc.get("ros_distro")
    return (
        {str(k): str(v) for k, v in custom.items()} if isinstance(custom, dict) else {},
        distro if isinstance(distro, str) and distro and distro != "rosbags" else None,
    )


def embedded_metadata(files: list[Path]) -> tuple[dict[str, str], str | None]:
    """custom_data and distro of bare storage files (the copy of metadata.yaml each storage keeps)."""
    for f in files:
        if f.suffix == ".mcap":
            try:
                record = mcap_scan.McapScanner(f).metadata().get("rosbag2", {})  # no chunk decompressed
            except (MotionFormatError, OSError, ValueError, struct.error):  # damaged: nothing to restore
                continue
            if "serialized_metadata" in record:
                custom, distro = _from_yaml(record["serialized_metadata"])
                return custom, distro or record.get("ROS_DISTRO") or None
        elif f.suffix == ".db3":
            import sqlite3

            try:
                con = sqlite3.connect(f"file:{f}?mode=ro&immutable=1", uri=True)
                try:
                    direct.refuse_computed_columns(con, f, {"metadata"})
                    row = con.execute("SELECT metadata FROM metadata ORDER BY id DESC LIMIT 1").fetchone()
                finally:
                    con.close()
            except sqlite3.Error:  # no metadata table (older recorders), or damaged: nothing to restore
                continue
            if row:
                return _from_yaml(str(row[0]))
    return {}, None


class Topic:
    """One topic of a bag: its name, message type and message count (summed over its connections)."""

    __slots__ = ("count", "msgtype", "name")

    def __init__(self, name: str, msgtype: str, count: int) -> None:
        self.name = name
        self.msgtype = msgtype
        self.count = count


class Readers:
    """The readers of the files of one bag, opened without parsing any message definition.

    With ``direct`` they are the package's own (``direct``: rosbags is not loaded; a bag
    they do not know raises ``UnusualLayoutError``), else rosbags'.

    rosbags' ``AnyReader`` parses every topic's definition when it opens a bag and fails
    on the first it cannot parse (e.g. the service definitions Jazzy stores for service
    event topics); this opens the same readers and leaves definitions to :class:`BagSource`,
    which parses only those of the topics a command reads.
    """

    def __init__(self, paths: list[Path], ledger: list[Any] | None = None, direct: bool = False) -> None:
        self.is2 = any(p.suffix != ".bag" for p in paths)
        if direct:
            from .direct import DirectReader

            self.readers: list[Any] = [DirectReader(p, ledger) for p in paths]
        else:
            if self.is2:  # only the reader of the bag's kind is loaded
                from rosbags.rosbag2 import Reader
            else:
                from rosbags.rosbag1 import Reader  # type: ignore[assignment]
            self.readers = [Reader(p) for p in paths]
        self._opened: list[Any] = []

    def open(self) -> None:
        try:
            for reader in self.readers:
                reader.open()
                self._opened.append(reader)
                if not self.is2:
                    bound_ros1_chunks(reader)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        while self._opened:
            reader = self._opened.pop()
            with contextlib.suppress(Exception):  # closing after a failure: the first error is the one to say
                reader.close()

    @property
    def connections(self) -> list[Any]:
        return [c for reader in self.readers for c in reader.connections]

    def topics(self) -> dict[str, tuple[str, int, list[Any]]]:
        """Topic → (message type, or '' when it has several; message count; connections)."""
        out: dict[str, tuple[str, int, list[Any]]] = {}
        for conn in self.connections:
            msgtype, count, conns = out.get(conn.topic, (conn.msgtype, 0, []))
            if msgtype != conn.msgtype:
                msgtype = ""
            out[conn.topic] = (msgtype, count + conn.msgcount, [*conns, conn])
        return out

    def messages(self, connections: list[Any]) -> Iterator[tuple[Any, int, bytes]]:
        """(connection, time, raw) of ``connections`` from every file, in time order."""
        wanted = {id(c) for c in connections}  # connections hold lists (QoS): not hashable
        streams = []
        for reader in self.readers:
            own = [c for c in reader.connections if id(c) in wanted]
            if own:
                streams.append(reader.messages(connections=own))
        if len(streams) == 1:
            yield from streams[0]
        else:
            import heapq  # several files only

            yield from heapq.merge(*streams, key=lambda m: m[1])


def _ros1_fields(fh: Any, pos: int) -> dict[bytes, bytes]:
    """The fields (name → value) of the ROS 1 record header at ``pos``."""
    fh.seek(pos)
    (length,) = struct.unpack("<I", fh.read(4))
    header = fh.read(min(length, 1 << 16))
    fields: dict[bytes, bytes] = {}
    at = 0
    while at + 4 <= len(header):
        (n,) = struct.unpack_from("<I", header, at)
        name, _, value = header[at + 4 : at + 4 + n].partition(b"=")
        fields[name] = value
        at += 4 + n
    return fields


def bound_ros1_chunks(reader: Any) -> None:
    """Make an opened ROS 1 reader (rosbags') decompress its chunks bounded.

    rosbags decompresses a chunk whole, whatever it expands to; each chunk's decompressor
    is replaced by one that stops one byte past the size the chunk's header states
    (``compression.inflate``), within what the file can justify (``compression.Budget``).

    Raises:
        DecompressionBombError: A chunk states more than that (or, when it is read, expands to more).
    """
    path = Path(reader.path)
    budget = Budget(path.stat().st_size)
    with open(path, "rb") as fh:
        for pos, chunk in list(reader.chunks.items()):
            fields = _ros1_fields(fh, pos)
            compression = fields.get(b"compression", b"none").decode("ascii", "replace")
            if compression == "none":
                continue
            size = fields.get(b"size", b"")
            declared = struct.unpack("<I", size)[0] if len(size) == 4 else 0
            try:
                budget.take(pos, declared, chunk.datasize)
            except OverexpansionError as exc:
                raise bomb(path, f"the {compression} chunk", exc, pos) from None
            reader.chunks[pos] = chunk._replace(
                decompressor=functools.partial(_ros1_inflate, path, pos, compression, declared, budget)
            )


def _ros1_inflate(path: Path, pos: int, compression: str, declared: int, budget: Budget, data: bytes) -> bytes:
    """A ROS 1 chunk's records, decompressed bounded (see :func:`bound_ros1_chunks`)."""
    try:
        budget.take(pos, declared, len(data))
        out: bytes = inflate(compression, data, declared)
    except OverexpansionError as exc:
        raise bomb(path, f"the {compression} chunk", exc, pos) from None
    return out


def reason(exc: BaseException) -> str:
    """What a library error says, for a ReadError (its type when it says nothing useful)."""
    text = str(exc)
    module = type(exc).__module__
    if not text or not module.startswith("rosbags"):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text
