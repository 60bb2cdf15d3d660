"""Opening bags: rosbag2 folders, bare ``.db3`` / ``.mcap`` files, ROS 1 ``.bag`` files.

Everything the rest of the codec needs from a bag goes through :class:`BagSource`:
topic names, types and counts, a typestore that can deserialize every topic, and raw
messages in time order. Intact bags are read with rosbags' ``AnyReader``; a crashed
recording (MCAP without footer / summary, rosbag2 folder without ``metadata.yaml``) is
recovered up to its last intact message, with a warning saying how many were found.
"""

from __future__ import annotations

import dataclasses
import heapq
import io
import os
import sys
import warnings
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from ...core.distros import DEFAULT_DISTRO, DISTROS
from ...core.errors import ReadError
from . import _mcap

BAG_SUFFIXES = (".db3", ".mcap", ".bag")


def typestore_for(distro: str) -> Any:
    """The rosbags typestore of ``distro`` (``humble``, ``jazzy``, ``kilted`` …)."""
    from rosbags.typesys import Stores, get_typestore

    try:
        return get_typestore(Stores(DISTROS[distro.lower()]))
    except KeyError:
        raise ValueError(f"unknown ROS distro {distro!r}; known: {', '.join(DISTROS)}") from None


#: Reads above this size are clamped to what the file has left (see :class:`_BoundedReader`).
_CLAMP_ABOVE = 1 << 16


class _BoundedReader(io.BufferedReader):
    """A binary file whose reads never ask for more bytes than the file has left.

    rosbags reads sized records with ``bio.read(size)``, and ``BufferedReader.read``
    allocates ``size`` bytes before it reads: a damaged length field would cost memory
    that the file cannot back (up to a MemoryError). Clamped, the read comes back short
    and rosbags reports the damage as a short read.
    """

    def __init__(self, raw: io.RawIOBase) -> None:
        super().__init__(raw)
        self._end = os.fstat(raw.fileno()).st_size

    def read(self, size: int | None = -1, /) -> bytes:
        if size is not None and size > _CLAMP_ABOVE:
            size = min(size, max(0, self._end - self.tell()))
        return super().read(size)


if sys.platform == "win32":
    from pathlib import WindowsPath as _ConcretePath
else:
    from pathlib import PosixPath as _ConcretePath


class _BoundedPath(_ConcretePath):
    """A path whose ``open("rb")`` gives a :class:`_BoundedReader` (what rosbags opens bags with).

    Paths rosbags derives from it (``folder / "x.mcap"``) are bounded too.
    """

    def open(
        self,
        mode: str = "r",
        buffering: int = -1,
        encoding: str | None = None,
        errors: str | None = None,
        newline: str | None = None,
    ) -> Any:
        if mode == "rb":
            return _BoundedReader(io.FileIO(os.fspath(self), "rb"))
        return super().open(mode, buffering, encoding, errors, newline)


def is_rosbag2_folder(path: Path) -> bool:
    """A folder with ``metadata.yaml`` or with ``.db3`` / ``.mcap`` storage files."""
    if not path.is_dir():
        return False
    if (path / "metadata.yaml").is_file():
        return True
    return any(p.suffix in (".db3", ".mcap") and p.is_file() for p in path.iterdir())


def _custom_from_yaml(text: str) -> dict[str, str]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        return {}
    if isinstance(doc, dict) and "rosbag2_bagfile_information" in doc:
        doc = doc["rosbag2_bagfile_information"]
    custom = doc.get("custom_data") if isinstance(doc, dict) else None
    return {str(k): str(v) for k, v in custom.items()} if isinstance(custom, dict) else {}


def _embedded_custom(files: list[Path]) -> dict[str, str]:
    """custom_data of bare storage files (the copy of metadata.yaml each storage keeps)."""
    for f in files:
        try:
            if f.suffix == ".mcap":
                record = _mcap.McapScanner(f).index().metadata.get("rosbag2", {})
                if "serialized_metadata" in record:
                    return _custom_from_yaml(record["serialized_metadata"])
            elif f.suffix == ".db3":
                import sqlite3

                con = sqlite3.connect(f"file:{f}?mode=ro&immutable=1", uri=True)
                try:
                    row = con.execute("SELECT metadata FROM metadata ORDER BY id DESC LIMIT 1").fetchone()
                finally:
                    con.close()
                if row:
                    return _custom_from_yaml(str(row[0]))
        except Exception:  # noqa: S112 - no embedded metadata: nothing to restore
            continue
    return {}


@dataclasses.dataclass
class Topic:
    """One topic of a bag."""

    name: str
    msgtype: str
    count: int


class BagSource:
    """An open bag (see the module docstring). Use as a context manager."""

    def __init__(self, path: Path, distro: str | None = None) -> None:
        self.path = path
        self.requested_distro = distro
        self.ros1 = False
        self.topics: dict[str, Topic] = {}
        self.custom: dict[str, str] = {}
        self.distro: str | None = None
        self.recovered: int | None = None
        self.typestore: Any = None
        self._reader: Any = None
        self._scanners: list[tuple[_mcap.McapScanner, dict[int, str]]] = []
        self._no_metadata = False

    # ------------------------------------------------------------------ opening
    def __enter__(self) -> BagSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._reader is not None:
            reader, self._reader = self._reader, None
            reader.close()

    def open(self) -> None:
        path = self.path
        if not path.exists():
            raise ReadError(path, "no such file")
        if path.is_dir():
            if (path / "metadata.yaml").is_file():
                files = [path]
            else:
                files = sorted(p for p in path.iterdir() if p.suffix in (".db3", ".mcap") and p.is_file())
                if not files:
                    raise ReadError(path, "not a rosbag2 folder (no metadata.yaml, no .db3 / .mcap files)")
                self._no_metadata = True
        elif path.suffix.lower() in BAG_SUFFIXES:
            files = [path]
        else:
            raise ReadError(path, f"not a bag (expected a rosbag2 folder or a {', '.join(BAG_SUFFIXES)} file)")
        self._check_magic(files)
        try:
            self._open_reader(files)
            if self._no_metadata:
                self.recovered = sum(t.count for t in self.topics.values())
                warnings.warn(
                    f"{path}: no metadata.yaml (the recording was not closed); read its storage files directly "
                    f"and recovered {self.recovered} messages",
                    stacklevel=4,
                )
        except ReadError:
            raise
        except Exception as exc:
            # rosbags, sqlite3 and the decompressors fail on damaged bags with every kind
            # of error (ReaderError, struct.error, TypeError from a mistyped metadata.yaml
            # field, RuntimeError from lz4, AssertionError …): all of them mean "damaged".
            mcaps = self._mcap_files(files)
            if mcaps and self._footer_missing(mcaps):
                self._open_scan(mcaps)
                return
            raise ReadError(path, f"cannot read bag: {_reason(exc)}") from exc

    def _check_magic(self, files: list[Path]) -> None:
        magics = {".mcap": b"\x89MCAP0\r\n", ".db3": b"SQLite format 3\x00", ".bag": b"#ROSBAG V2.0\n"}
        for f in files:
            if f.is_dir():
                continue
            want = magics[f.suffix.lower()]
            try:
                with open(f, "rb") as fh:
                    head = fh.read(len(want))
            except OSError as exc:
                raise ReadError(f, exc.strerror or str(exc)) from exc
            if head != want:
                kind = {".mcap": "MCAP", ".db3": "SQLite", ".bag": "ROS 1 bag"}[f.suffix.lower()]
                raise ReadError(f, f"not a bag: no {kind} signature at the start", offset=0)

    def _mcap_files(self, files: list[Path]) -> list[Path]:
        out: list[Path] = []
        for f in files:
            if f.is_dir():
                out += sorted(p for p in f.iterdir() if p.suffix == ".mcap" and p.is_file())
            elif f.suffix.lower() == ".mcap":
                out.append(f)
        return out

    @staticmethod
    def _footer_missing(mcaps: list[Path]) -> bool:
        for f in mcaps:
            with open(f, "rb") as fh:
                size = fh.seek(0, 2)
                fh.seek(max(0, size - 8))
                if fh.read(8) != _mcap.MAGIC or size < 37 + 8:
                    return True
        return False

    def _open_reader(self, files: list[Path]) -> None:
        from rosbags.highlevel import AnyReader

        default = typestore_for(self.requested_distro or ("noetic" if files[0].suffix == ".bag" else DEFAULT_DISTRO))
        reader = AnyReader([_BoundedPath(f) for f in files], default_typestore=default)
        reader.open()
        try:
            self.ros1 = not reader.is2
            if reader.is2:
                inner: Any = reader.readers[0]
                distro = inner.ros_distro
                self.distro = distro if isinstance(distro, str) else None
                custom = getattr(inner.storage, "metadata", None)
                custom_data = getattr(custom, "custom", None)
                if isinstance(custom_data, dict):
                    self.custom = {str(k): str(v) for k, v in custom_data.items()}
            else:
                self.distro = "noetic"
            if reader.is2 and not self.custom:
                self.custom = _embedded_custom(files)
            self.topics = {name: Topic(name, info.msgtype or "", info.msgcount) for name, info in reader.topics.items()}
            self.typestore = reader.typestore
            self._complete_typestore(default)
        except BaseException:
            reader.close()
            raise
        self._reader = reader

    def _complete_typestore(self, default: Any) -> None:
        """Types the bag does not define come from the distro's typestore."""
        if self.requested_distro is None and self.distro in DISTROS:
            default = typestore_for(self.distro)
        missing = {t.msgtype for t in self.topics.values() if t.msgtype not in self.typestore.fielddefs}
        if missing & set(default.fielddefs):
            self.typestore.register({k: v for k, v in default.fielddefs.items() if k not in self.typestore.fielddefs})

    def _open_scan(self, mcaps: list[Path]) -> None:
        from rosbags.typesys import Stores, get_types_from_idl, get_types_from_msg, get_typestore

        typestore = get_typestore(Stores.EMPTY)
        recovered = 0
        lost = []
        for f in mcaps:
            scanner = _mcap.McapScanner(f)
            try:
                result = scanner.index()
            except (_mcap.ScanError, OSError) as exc:
                raise ReadError(f, f"cannot read bag: {exc}") from exc
            names: dict[int, str] = {}
            for cid, channel in result.channels.items():
                schema = result.schemas.get(channel.schema_id)
                if schema is None:
                    continue
                count = result.counts.get(cid, 0)
                topic = self.topics.get(channel.topic)
                if topic is None:
                    self.topics[channel.topic] = Topic(channel.topic, schema.name, count)
                else:
                    topic.count += count
                names[cid] = channel.topic
                if schema.name not in typestore.fielddefs and schema.data:
                    try:
                        if schema.encoding == "ros2msg":
                            typestore.register(get_types_from_msg(schema.data, schema.name))
                        else:
                            sep = "=" * 80 + "\n"
                            for part in schema.data.split(sep):
                                if part.startswith("IDL: "):
                                    part = part.split("\n", 1)[1]
                                if part.strip():
                                    typestore.register(get_types_from_idl(part))
                    except Exception as exc:
                        warnings.warn(f"{f}: cannot parse the definition of {schema.name}: {exc}", stacklevel=4)
            recovered += sum(result.counts.values())
            if not result.complete:
                lost.append(f"{f.name} ends in an incomplete record at byte {result.stop_offset}")
            self._scanners.append((scanner, names))
        self.typestore = typestore
        self._complete_typestore(typestore_for(self.requested_distro or DEFAULT_DISTRO))
        self.recovered = recovered
        warnings.warn(
            f"{self.path}: recording was not closed (MCAP without footer/summary: {', '.join(lost) or 'no index'}); "
            f"recovered {recovered} messages up to the last intact one",
            stacklevel=4,
        )

    # ------------------------------------------------------------------ reading
    def deserialize(self, raw: bytes | memoryview, msgtype: str) -> Any:
        if self.ros1:
            return self.typestore.deserialize_ros1(raw, msgtype)
        return self.typestore.deserialize_cdr(raw, msgtype)

    def messages(self, topics: Collection[str]) -> Iterator[tuple[str, int, bytes]]:
        """(topic, receive time ns, raw message) for ``topics``, in receive-time order.

        Raises:
            ReadError: The bag's data is damaged (a chunk does not decompress, a record
                is cut short …).
        """
        try:
            yield from self._messages(topics)
        except ReadError:
            raise
        except Exception as exc:  # rosbags / decompressors on damaged data: see open()
            raise ReadError(self.path, f"cannot read bag messages: {_reason(exc)}") from exc

    def _messages(self, topics: Collection[str]) -> Iterator[tuple[str, int, bytes]]:
        wanted = set(topics)
        fast = self._mcap_chunks(wanted)
        if fast is not None:
            yield from fast
            return
        if self._reader is not None:
            conns = [c for c in self._reader.connections if c.topic in wanted]
            if not conns:
                return
            for conn, timestamp, raw in self._reader.messages(connections=conns):
                yield conn.topic, timestamp, raw
            return
        streams = []
        for scanner, names in self._scanners:
            ids = {cid for cid, name in names.items() if name in wanted}
            found = [(t, names[cid], data) for cid, t, data in scanner.messages(ids)]
            found.sort(key=lambda m: m[0])
            streams.append(found)
        for t, topic, data in heapq.merge(*streams, key=lambda m: m[0]):
            yield topic, t, data

    def _mcap_chunks(self, wanted: set[str]) -> Iterator[tuple[str, int, bytes]] | None:
        """Raw messages straight from the chunks of indexed MCAP storage (file order), or None.

        rosbags' index (chunk offsets, channel counts) and chunk decompression (with its
        CRC check) are used; only the per-message generator stack is skipped, which is
        most of the cost of a raw read.
        """
        from rosbags.rosbag2.reader import DirectoryReader
        from rosbags.rosbag2.storage_mcap import McapReader

        reader = self._reader
        if reader is None or not reader.is2 or len(reader.readers) != 1:
            return None
        storage = reader.readers[0].storage
        if isinstance(storage, DirectoryReader):
            if storage.metadata.compression_mode:
                return None
            storages = list(storage.storages)
        else:
            storages = [storage]
        if not storages or not all(isinstance(s, McapReader) and s.chunks and s.bio for s in storages):
            return None
        return _iter_chunks(storages, wanted)


def _reason(exc: BaseException) -> str:
    """What a library error says, for a ReadError (its type when it says nothing useful)."""
    text = str(exc)
    module = type(exc).__module__
    if not text or not module.startswith("rosbags"):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text


#: Uncompressed chunks above this size (without a CRC to check) are read record by record
#: instead of whole, so that one huge unwanted message (e.g. a whole-motion JointTrajectory
#: next to the joint states) does not have to be held in memory.
BIG_CHUNK = 4 << 20


def _iter_records(bio: Any, start: int, size: int, ids: dict[int, str]) -> Iterator[tuple[str, int, bytes]]:
    """Wanted messages of an uncompressed chunk at ``start``, reading only their bytes."""
    import struct

    head = struct.Struct("<BQHIQ")
    pos, end = start, start + size
    while pos < end:
        bio.seek(pos)
        raw = bio.read(head.size)
        if len(raw) < 9:
            raise ValueError(f"truncated MCAP chunk record at byte {pos}")
        if raw[0] == 0x05 and len(raw) == head.size:
            _, length, cid, _, log_time = head.unpack(raw)
            topic = ids.get(cid)
            if topic is not None:
                bio.seek(pos + 31)
                data = bio.read(length - 22)
                if len(data) != length - 22:
                    raise ValueError(f"truncated MCAP message at byte {pos}")
                yield topic, log_time, data
        else:
            (length,) = struct.unpack_from("<Q", raw, 1)
        pos += 9 + length


def _iter_chunks(storages: list[Any], wanted: set[str]) -> Iterator[tuple[str, int, bytes]]:
    import struct

    from rosbags.rosbag2.storage_mcap import decompress

    rec = struct.Struct("<BQ").unpack_from
    msg = struct.Struct("<HIQ").unpack_from
    u32 = struct.Struct("<I").unpack_from
    for storage in storages:
        ids = {c.id: c.topic for c in storage.connections if c.topic in wanted}
        bio = storage.bio
        for chunk in sorted(storage.chunks, key=lambda c: c.chunk_start_offset):
            if not any(chunk.channel_count.get(cid) for cid in ids):
                continue
            try:
                bio.seek(chunk.chunk_start_offset + 9 + 24)
                (crc,) = u32(bio.read(4))
                records = chunk.chunk_start_offset + 9 + 40 + len(chunk.compression)
                if chunk.compression == "" and not crc and chunk.uncompressed_size > BIG_CHUNK:
                    yield from _iter_records(bio, records, chunk.uncompressed_size, ids)
                    continue
                bio.seek(records)
                compressed = bio.read(chunk.compressed_size)
                if len(compressed) != chunk.compressed_size:
                    raise ValueError("truncated MCAP chunk")
                data = decompress(compressed, chunk.compression, chunk.uncompressed_size, crc)
                pos, end = 0, len(data)
                while pos < end:
                    op, length = rec(data, pos)
                    if op == 0x05:
                        cid, _, log_time = msg(data, pos + 9)
                        topic = ids.get(cid)
                        if topic is not None:
                            yield topic, log_time, data[pos + 31 : pos + 9 + length]
                    pos += 9 + length
            except ReadError:
                raise
            except Exception as exc:  # short reads, bad CRC, a decompressor's error, a cut record
                raise ReadError(
                    storage.path, f"damaged MCAP chunk: {_reason(exc)}", offset=chunk.chunk_start_offset
                ) from exc
