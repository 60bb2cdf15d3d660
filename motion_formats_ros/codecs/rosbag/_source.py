"""Opening bags: rosbag2 folders, bare ``.db3`` / ``.mcap`` files, ROS 1 ``.bag`` files.

Everything the rest of the codec needs from a bag goes through :class:`BagSource`:
topic names, types and counts, the types to deserialize the topics a command reads, and
raw messages in time order. Storage files are read with rosbags' readers; message
definitions are parsed per topic, only for the topics a command needs
(:meth:`BagSource.type_problem`), so that a definition rosbags cannot parse (a Jazzy
service event's) concerns its own topic only. A folder whose ``metadata.yaml`` rosbags
cannot use (see ``_metadata``) is read from its storage files directly; a crashed
recording (MCAP without footer / summary, a folder without or with a cut
``metadata.yaml``, also with ``.zstd`` file compression) is recovered up to its last
intact message, with a warning saying how many were found.
"""

from __future__ import annotations

import contextlib
import dataclasses
import heapq
import io
import itertools
import mmap
import os
import shutil
import struct
import sys
import tempfile
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.distros import DEFAULT_DISTRO, DISTROS
from ...core.errors import MotionFormatError, ReadError
from ...core.inputs import read_input
from ...core.notices import NoticeKind, notify
from ...core.serial.yaml import SafeLoader, YamlError, check_expansion
from . import _mcap, _metadata, _types

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

    With ``head``, reads from the start of the file see ``head`` instead of the file's
    first ``resume`` bytes (see :func:`_mcap.ros2_head`); the first seek ends that.
    """

    def __init__(self, raw: io.RawIOBase, head: bytes = b"", resume: int = 0) -> None:
        super().__init__(raw)
        self._end = os.fstat(raw.fileno()).st_size
        self._head = head
        self._head_pos = 0
        if head:
            super().seek(resume)

    def read(self, size: int | None = -1, /) -> bytes:
        if self._head:
            part = self._head[self._head_pos :] if size is None or size < 0 else self._head[self._head_pos :][:size]
            self._head_pos += len(part)
            if self._head_pos == len(self._head):
                self._head = b""
            more = -1 if size is None or size < 0 else size - len(part)
            return part + (self.read(more) if more else b"")
        if size is not None and size > _CLAMP_ABOVE:
            size = min(size, max(0, self._end - self.tell()))
        return super().read(size)

    def tell(self) -> int:
        return self._head_pos if self._head else super().tell()

    def seek(self, offset: int, whence: int = 0, /) -> int:
        self._head = b""
        return super().seek(offset, whence)


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
            raw = io.FileIO(os.fspath(self), "rb")
            head, resume = _mcap.ros2_head(raw) if self.suffix == ".mcap" else (b"", 0)
            raw.seek(0)
            return _BoundedReader(raw, head, resume)
        return super().open(mode, buffering, encoding, errors, newline)


def is_rosbag2_folder(path: Path) -> bool:
    """A folder with ``metadata.yaml`` or with storage files (``.db3``, ``.mcap``, ``.zstd`` of them)."""
    return _metadata.is_storage_folder(path)


def quick_candidate(path: Path) -> bool:
    """A rosbag2 folder with ``metadata.yaml`` and sqlite3 storage: it may open quickly (see ``_sqlite``)."""
    try:
        return (path / "metadata.yaml").is_file() and any(p.suffix == ".db3" for p in path.iterdir())
    except OSError:
        return False


def _from_yaml(text: str) -> tuple[dict[str, str], str | None]:
    """custom_data and ros_distro of a bag's metadata YAML."""
    import yaml

    try:
        doc = yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
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


def _embedded_metadata(files: list[Path]) -> tuple[dict[str, str], str | None]:
    """custom_data and distro of bare storage files (the copy of metadata.yaml each storage keeps)."""
    for f in files:
        try:
            if f.suffix == ".mcap":
                scanner = _mcap.McapScanner(f)
                records = scanner.summary_metadata()  # through the summary: no scan of the data
                if records is None:
                    records = scanner.index().metadata
                record = records.get("rosbag2", {})
                if "serialized_metadata" in record:
                    custom, distro = _from_yaml(record["serialized_metadata"])
                    return custom, distro or record.get("ROS_DISTRO") or None
            elif f.suffix == ".db3":
                import sqlite3

                con = sqlite3.connect(f"file:{f}?mode=ro&immutable=1", uri=True)
                try:
                    row = con.execute("SELECT metadata FROM metadata ORDER BY id DESC LIMIT 1").fetchone()
                finally:
                    con.close()
                if row:
                    return _from_yaml(str(row[0]))
        except Exception:  # noqa: S112 - no embedded metadata: nothing to restore
            continue
    return {}, None


def _zstd() -> Any:
    if sys.version_info >= (3, 14):  # pragma: no cover - the standard library's module
        from compression import zstd  # type: ignore[import-not-found]
    else:
        from backports import zstd
    return zstd


#: zstd frames start with these bytes (RFC 8878); CDR and ROS 1 messages never do.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BLOCK = 1 << 20


#: A compressed storage file may expand to this many times its size (bags of real data
#: compress a few times to a few tens of times), but at least :data:`MIN_EXPANSION` bytes.
MAX_RATIO = 200
MIN_EXPANSION = 64 << 20


class ExpansionError(MotionFormatError):
    """A compressed file would decompress to more than its limit (internal; a ReadError to callers)."""

    def __init__(self, limit: int, declared: int | None = None) -> None:
        super().__init__(limit, declared)
        self.limit = limit
        self.declared = declared


def expansion_limit(src: Path, folder: Path) -> int:
    """How many bytes ``src`` may decompress to in ``folder``: a bounded multiple of its size,
    and never more than the space free there (less a margin)."""
    limit = max(MIN_EXPANSION, MAX_RATIO * src.stat().st_size)
    free = shutil.disk_usage(folder).free - (16 << 20)
    return max(0, min(limit, free))


def declared_size(head: bytes) -> int | None:
    """The content size a zstd frame header states (RFC 8878 §3.1.1.1), if it does."""
    if len(head) < 5 or head[:4] != ZSTD_MAGIC:
        return None
    descriptor = head[4]
    fcs_flag, single, dict_flag = descriptor >> 6, (descriptor >> 5) & 1, descriptor & 3
    pos = 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag]
    width = (1 if single else 0, 2, 4, 8)[fcs_flag]
    if not width or len(head) < pos + width:
        return None
    value = int.from_bytes(head[pos : pos + width], "little")
    return value + 256 if width == 2 else value


def decompress_file(src: Path, dest: Path, limit: int | None = None) -> tuple[int, bool]:
    """Stream-decompress a zstd file (rosbag2 file compression) into ``dest``.

    A file cut short (the recorder was killed while compressing) or damaged gives what
    decompresses before the cut. With ``limit``, a first frame that states a larger size
    is refused before anything is written, and writing stops at ``limit`` bytes.

    Returns:
        (bytes written, whether the last frame was complete).

    Raises:
        ExpansionError: The content is larger than ``limit``.
    """
    zstd = _zstd()
    if limit is not None:
        with open(src, "rb") as fin:
            declared = declared_size(fin.read(18))
        if declared is not None and declared > limit:
            raise ExpansionError(limit, declared)
    written = 0
    started = False  # the current decompressor has been fed part of a frame
    with open(src, "rb") as fin, open(dest, "wb") as fout:
        dec = zstd.ZstdDecompressor()
        try:
            while chunk := fin.read(_BLOCK):
                pending = chunk
                while True:
                    if pending:
                        started = True
                    out = dec.decompress(pending, max_length=4 * _BLOCK)
                    pending = b""
                    if limit is not None and written + len(out) > limit:
                        raise ExpansionError(limit)
                    fout.write(out)
                    written += len(out)
                    if dec.eof:
                        pending = dec.unused_data
                        dec = zstd.ZstdDecompressor()
                        started = False
                        if not pending:
                            break
                        continue
                    if dec.needs_input:
                        break
        except zstd.ZstdError:
            return written, False
    return written, not started


@dataclasses.dataclass
class Topic:
    """One topic of a bag."""

    name: str
    msgtype: str
    count: int


class _Readers:
    """rosbags' readers of the files of one bag, opened without parsing any message definition.

    rosbags' ``AnyReader`` parses every topic's definition when it opens a bag and fails
    on the first it cannot parse (e.g. the service definitions Jazzy stores for service
    event topics); this opens the same readers and leaves definitions to :class:`BagSource`,
    which parses only those of the topics a command reads.
    """

    def __init__(self, paths: list[Path], ledger: list[Any] | None = None) -> None:
        self.is2 = any(p.suffix != ".bag" for p in paths)
        if self.is2 and ledger is not None and all(p.is_dir() for p in paths):
            from ._sqlite import QuickReader

            self.readers: list[Any] = [QuickReader(p, ledger) for p in paths]
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
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        while self._opened:
            reader = self._opened.pop()
            with contextlib.suppress(Exception):
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
            yield from heapq.merge(*streams, key=lambda m: m[1])


class BagSource:
    """An open bag (see the module docstring). Use as a context manager."""

    def __init__(self, path: Path, distro: str | None = None, quick: bool = False) -> None:
        self.path = path
        #: With ``quick``: the sqlite3 storages of a rosbag2 folder that opened without
        #: counting their messages (see ``_sqlite``); :meth:`settle` pays what they owe.
        self.quick: list[Any] | None = [] if quick else None
        self.requested_distro = distro
        self.ros1 = False
        self.topics: dict[str, Topic] = {}
        self.custom: dict[str, str] = {}
        self.distro: str | None = None
        self.recovered: int | None = None
        self.typestore: Any = None
        self._reader: _Readers | None = None
        self._scanners: list[tuple[_mcap.McapScanner, dict[int, str]]] = []
        self._plan: _metadata.FolderPlan | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._shown: dict[Path, Path] = {}  # decompressed copy → the file it came from
        #: Definitions each topic's connections carry: (``msg`` / ``idl``, text).
        self._definitions: dict[str, list[tuple[str, str]]] = {}
        self._digests: dict[str, str] = {}
        self._connections: dict[str, list[Any]] = {}
        self._problems: dict[str, str | None] = {}
        self._defaults_loaded = False

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
        if self._tmp is not None:
            tmp, self._tmp = self._tmp, None
            tmp.cleanup()

    def open(self) -> None:
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    def _open(self) -> None:
        path = self.path
        if not path.exists():
            raise ReadError(path, "no such file")
        if path.is_dir():
            plan = _metadata.plan_folder(path)
            meta = path / "metadata.yaml"
            for note in plan.notes:  # each names the metadata file first
                prefix = f"{meta}: "
                if note.startswith(prefix):
                    notify(NoticeKind.INCONSISTENT, note[len(prefix) :], file=meta, stacklevel=5)
                else:
                    notify(NoticeKind.INCONSISTENT, note, stacklevel=5)
            if plan.direct:
                self._plan = plan
                self._check_magic(plan.files)
                files = self._materialize(plan.files)
            else:
                files = [path]
        elif path.suffix.lower() in BAG_SUFFIXES:
            files = [path]
        else:
            raise ReadError(path, f"not a bag (expected a rosbag2 folder or a {', '.join(BAG_SUFFIXES)} file)")
        self._check_magic(files)
        recovering = self._plan.recovering if self._plan is not None else None
        try:
            self._open_reader(files)
        except ReadError:
            raise
        except Exception as exc:
            # rosbags, sqlite3 and the decompressors fail on damaged bags with every kind
            # of error (ReaderError, struct.error, TypeError from a mistyped metadata.yaml
            # field, RuntimeError from lz4, AssertionError …): all of them mean "damaged".
            if self._reader is not None:
                self._reader.close()
                self._reader = None
            mcaps = self._mcap_files(files)
            if mcaps and self._footer_missing(mcaps):
                self._open_scan(mcaps, recovering)
                return
            raise ReadError(path, f"cannot read bag: {_reason(exc)}") from exc
        if recovering is not None:
            self.recovered = sum(t.count for t in self.topics.values())
            notify(
                NoticeKind.RECOVERED,
                f"{recovering}; read its storage files directly and recovered {self.recovered} messages",
                file=path,
                stacklevel=5,
            )

    def _show(self, p: Path) -> Path:
        """The file a user knows: the compressed original of a decompressed copy."""
        return self._shown.get(p, p)

    def _materialize(self, files: list[Path]) -> list[Path]:
        """Storage files ready to open: ``.zstd`` ones decompressed into a temporary folder."""
        out: list[Path] = []
        for f in files:
            if not f.name.endswith(_metadata.COMPRESSED_SUFFIX):
                out.append(f)
                continue
            if self._tmp is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="motion_formats_bag_")
            dest = Path(self._tmp.name) / f.name[: -len(_metadata.COMPRESSED_SUFFIX)]
            try:
                size, complete = decompress_file(f, dest, expansion_limit(f, dest.parent))
            except ExpansionError as exc:
                dest.unlink(missing_ok=True)
                stated = f" (its header states {exc.declared} bytes)" if exc.declared is not None else ""
                raise ReadError(
                    f,
                    f"decompresses to more than {exc.limit} bytes{stated}: more than {MAX_RATIO} times its size "
                    "or the space free for the temporary copy (a decompression bomb?)",
                ) from None
            except OSError as exc:
                dest.unlink(missing_ok=True)
                raise ReadError(f, f"cannot decompress: {exc.strerror or exc}") from exc
            if not size:
                raise ReadError(f, "cut short before the end of its first zstd block: nothing decompresses")
            if not complete:
                notify(
                    NoticeKind.RECOVERED,
                    "the compressed file ends before its last zstd frame does (compression was "
                    f"interrupted); read the {size} bytes that decompress",
                    file=f,
                    stacklevel=6,
                )
            self._shown[dest] = f
            out.append(dest)
        return out

    def _check_magic(self, files: list[Path]) -> None:
        magics = {".mcap": b"\x89MCAP0\r\n", ".db3": b"SQLite format 3\x00", ".bag": b"#ROSBAG V2.0\n"}
        for f in files:
            if f.is_dir():
                continue
            suffix = f.suffix.lower()
            want = ZSTD_MAGIC if suffix == _metadata.COMPRESSED_SUFFIX else magics[suffix]
            head = read_input(f, len(want), name=self._show(f))
            if head != want:
                if suffix == _metadata.COMPRESSED_SUFFIX:
                    kind = "zstd"
                else:
                    kind = {".mcap": "MCAP", ".db3": "SQLite", ".bag": "ROS 1 bag"}[suffix]
                shown = self._show(f)
                extra = " after decompression" if shown != f else ""
                raise ReadError(shown, f"not a bag: no {kind} signature at the start{extra}", offset=0)

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
        from rosbags.interfaces import MessageDefinitionFormat
        from rosbags.typesys import Stores, get_typestore

        reader = _Readers([_BoundedPath(f) for f in files], self.quick)
        reader.open()
        self._reader = reader
        self.ros1 = not reader.is2
        if reader.is2:
            inner: Any = reader.readers[0]
            distro = inner.ros_distro
            self.distro = distro if isinstance(distro, str) and distro else None
            custom = getattr(inner.storage, "metadata", None)
            custom_data = getattr(custom, "custom", None)
            if isinstance(custom_data, dict):
                self.custom = {str(k): str(v) for k, v in custom_data.items()}
        else:
            self.distro = "noetic"
        if self._plan is not None:
            self.custom = self._plan.custom or self.custom
            self.distro = self._plan.distro or self.distro
        if reader.is2 and not (self.custom and self.distro):
            custom, distro = _embedded_metadata(files)
            self.custom = self.custom or custom
            self.distro = self.distro or distro
        kinds = {MessageDefinitionFormat.MSG: "msg", MessageDefinitionFormat.IDL: "idl"}
        for name, (msgtype, count, conns) in reader.topics().items():
            self._connections[name] = conns
            self.topics[name] = Topic(name, msgtype, count)
            self._definitions[name] = [
                (kinds[c.msgdef.format], c.msgdef.data) for c in conns if c.msgdef.format in kinds and c.msgdef.data
            ]
            digest = next((c.digest for c in conns if c.digest), "")
            if digest and reader.is2:
                self._digests[name] = digest
        self.typestore = get_typestore(Stores.EMPTY)

    def _open_scan(self, mcaps: list[Path], recovering: str | None) -> None:
        from rosbags.typesys import Stores, get_typestore

        kinds = {"ros2msg": "msg", "ros1msg": "msg", "ros2idl": "idl", "omgidl": "idl"}
        self.topics = {}
        self._definitions = {}
        recovered = 0
        lost = []
        for f in mcaps:
            scanner = _mcap.McapScanner(f)
            try:
                result = scanner.index()
            except (_mcap.ScanError, OSError) as exc:
                raise ReadError(self._show(f), f"cannot read bag: {exc}") from exc
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
                    if topic.msgtype != schema.name:
                        topic.msgtype = ""
                names[cid] = channel.topic
                if schema.data and schema.encoding in kinds:
                    self._definitions.setdefault(channel.topic, []).append((kinds[schema.encoding], schema.data))
            recovered += sum(result.counts.values())
            if not result.complete:
                lost.append(f"{self._show(f).name} ends in an incomplete record at byte {result.stop_offset}")
            self._scanners.append((scanner, names))
        self.typestore = get_typestore(Stores.EMPTY)
        self.recovered = recovered
        why = f"{recovering}; " if recovering else ""
        notify(
            NoticeKind.RECOVERED,
            f"{why}recording was not closed (MCAP without footer/summary: "
            f"{', '.join(lost) or 'no index'}); recovered {recovered} messages up to the last intact one",
            file=self.path,
            stacklevel=6,
        )

    # ------------------------------------------------------------------ types
    def _default_store(self) -> Any:
        if self.requested_distro is not None:
            return typestore_for(self.requested_distro)
        if self.distro in DISTROS:
            return typestore_for(str(self.distro))
        return typestore_for("noetic" if self.ros1 else DEFAULT_DISTRO)

    def _load_defaults(self) -> None:
        """Types the bag does not define: the distro's typestore, then :data:`_types.KNOWN`."""
        if self._defaults_loaded:
            return
        self._defaults_loaded = True
        have = self.typestore.fielddefs
        default = self._default_store()
        self.typestore.register({k: v for k, v in default.fielddefs.items() if k not in have})
        self.typestore.register({k: v for k, v in _types.known_types().items() if k not in have})

    def type_problem(self, topic: str) -> str | None:
        """Why ``topic``'s messages cannot be decoded, or None when they can (its types are loaded).

        Only this topic's definition is parsed (once); a definition that rosbags cannot parse
        (a service event's, a damaged one) concerns its topic only.
        """
        if topic not in self._problems:
            self._problems[topic] = self._load_types(topic)
        return self._problems[topic]

    def _load_types(self, topic: str) -> str | None:
        info = self.topics.get(topic)
        if info is None:
            return "no such topic"
        msgtype = info.msgtype
        if not msgtype:
            return "its connections have different message types"
        if _types.is_service_event(msgtype):
            return "service events (service requests and responses), not convertible"
        store = self.typestore
        failed = ""
        for kind, text in self._definitions.get(topic, []):
            try:
                parsed = _types.parse_definition(kind, text, msgtype)
                new = {k: v for k, v in parsed.items() if k not in store.fielddefs}
                if new:
                    store.register(new)
            except Exception as exc:  # rosbags' parse / codegen errors: this definition is unusable
                failed = _reason(exc)
                continue
            break
        if _types.missing_types(store.fielddefs, msgtype):
            self._load_defaults()
        missing = _types.missing_types(store.fielddefs, msgtype)
        if missing:
            if failed:
                return f"cannot parse its definition: {failed}"
            distro = self.requested_distro or self.distro or DEFAULT_DISTRO
            return f"no definition of {', '.join(sorted(missing))} (neither in the bag nor the {distro} types)"
        digest = self._digests.get(topic)
        if digest and not failed and self._definitions.get(topic):
            try:
                mismatch = store.hash_rihs01(msgtype) != digest
            except Exception:  # rosbags cannot hash every type: no check
                mismatch = False
            if mismatch:
                notify(
                    NoticeKind.INCONSISTENT,
                    f"the bag's definition of {msgtype} does not match the type hash "
                    "recorded with it; its messages may decode wrongly",
                    file=self.path,
                    field=topic,
                    stacklevel=4,
                )
        return None

    def standard_joint_state(self, msgtype: str) -> bool:
        """Whether the loaded definition of ``msgtype`` (and its header's) is JointState's own.

        Only then does the bulk decoder read what rosbags' deserializer would (with a
        damaged or different definition in the bag, messages are decoded one by one).
        """
        reference = typestore_for("noetic" if self.ros1 else DEFAULT_DISTRO).fielddefs
        have = self.typestore.fielddefs
        names = (msgtype, "sensor_msgs/msg/JointState", "std_msgs/msg/Header", "builtin_interfaces/msg/Time")
        if msgtype != names[1]:
            return False
        return all(name in have and have[name][1] == reference[name][1] for name in names[1:])

    def require_types(self, topics: Collection[str]) -> None:
        """Load the types of ``topics``.

        Raises:
            ReadError: A topic's messages cannot be decoded (names the topic and why).
        """
        for topic in topics:
            problem = self.type_problem(topic)
            if problem is not None:
                raise ReadError(self.path, f"topic {topic!r} ({self.topics[topic].msgtype}): {problem}")

    # ------------------------------------------------------------------ reading
    def deserialize(self, raw: bytes | memoryview, msgtype: str) -> Any:
        """A message object from its payload.

        A CDR payload may carry bytes after the message (what
        ``rclpy.serialization.serialize_message`` returns with Fast DDS, stored as it is
        by rosbag2): they are ignored. A payload too short for its message is refused.

        Raises:
            PayloadTooShortError: The payload ends inside the message.
            Exception: Whatever rosbags raises on other malformed payloads.
        """
        if self.ros1:
            return self.typestore.deserialize_ros1(raw, msgtype)
        return deserialize_cdr(self.typestore, raw, msgtype)

    def messages(self, topics: Collection[str]) -> Iterator[tuple[str, int, bytes]]:
        """(topic, receive time ns, raw message) for ``topics``, in receive-time order.

        Raises:
            ReadError: The bag's data is damaged (a chunk does not decompress, a record
                is cut short …).
        """
        try:
            if self._plan is not None and self._plan.message_compression is not False:
                yield from self._unzstd(self._messages(topics), always=bool(self._plan.message_compression))
            else:
                yield from self._messages(topics)
        except ReadError:
            raise
        except Exception as exc:  # rosbags / decompressors on damaged data: see open()
            raise ReadError(self.path, f"cannot read bag messages: {_reason(exc)}") from exc

    @staticmethod
    def _unzstd(stream: Iterator[tuple[str, int, bytes]], always: bool) -> Iterator[tuple[str, int, bytes]]:
        """Messages of ``compression_mode: message`` bags (or detected by their zstd magic)."""
        zstd = _zstd()
        for topic, t, raw in stream:
            if always or raw[:4] == ZSTD_MAGIC:
                raw = zstd.decompress(raw)
            yield topic, t, raw

    def _messages(self, topics: Collection[str]) -> Iterator[tuple[str, int, bytes]]:
        wanted = set(topics)
        fast = self._mcap_chunks(wanted)
        if fast is not None:
            yield from fast
            return
        if self._reader is not None:
            conns = [c for t in wanted for c in self._connections.get(t, [])]
            if not conns:
                return
            for conn, timestamp, raw in self._reader.messages(conns):
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

    def blocks(self, topics: Collection[str]) -> Iterator[Block] | None:
        """The messages of ``topics`` in blocks (per topic, in bag order within it), or None.

        Each block holds many messages of one topic, as one byte matrix when their sizes
        are equal, read without a Python step per message: from indexed MCAP chunks
        through their message indexes, from sqlite3 storage with one query per topic.
        The order within a topic is that of :meth:`messages`; across topics it is not
        kept. None when the bag is of another kind (ROS 1, split, compressed or recovered
        storage, a metadata.yaml read around): use :meth:`messages`.

        Raises:
            ReadError: The bag's data is damaged.
        """
        reader = self._reader
        if reader is None or not reader.is2 or len(reader.readers) != 1 or not topics:
            return None
        if self._plan is not None and self._plan.message_compression is not False:
            return None
        from rosbags.rosbag2.reader import DirectoryReader
        from rosbags.rosbag2.storage_mcap import McapReader
        from rosbags.rosbag2.storage_sqlite3 import Sqlite3Reader

        storage = reader.readers[0].storage
        if isinstance(storage, DirectoryReader):
            if storage.metadata.compression_mode or len(storage.storages) != 1:
                return None
            storage = storage.storages[0]
        wanted = set(topics)
        if isinstance(storage, McapReader) and storage.chunks and storage.bio:
            return self._guard(_mcap_blocks(storage, wanted))
        if isinstance(storage, Sqlite3Reader) and storage.dbconn is not None:
            return self._guard(_sqlite_blocks(storage, wanted))
        return None

    def settle(self) -> None:
        """Run the message-table scan that a quick open left out, unless a read has done it.

        Raises:
            Exception: Whatever the scan meets on a damaged table (the read is to be
                redone without ``quick``, which then fails as it always did).
        """
        for storage in self.quick or ():
            storage.check()

    def _guard(self, blocks: Iterator[Block]) -> Iterator[Block]:
        try:
            yield from blocks
        except ReadError:
            raise
        except Exception as exc:  # sqlite / decompressors on damaged data: see open()
            raise ReadError(self.path, f"cannot read bag messages: {_reason(exc)}") from exc

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


class PayloadTooShortError(MotionFormatError, ValueError):
    """A CDR payload that ends before its message does (counted and reported by the reader)."""


def deserialize_cdr(typestore: Any, raw: bytes | memoryview, msgtype: str) -> Any:
    """rosbags' CDR deserializer, accepting bytes after the message (see :meth:`BagSource.deserialize`)."""
    from rosbags.serde import SerdeError

    if len(raw) < 4:
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype}")
    if bytes(raw[:2]) not in (b"\x00\x00", b"\x00\x01"):
        return typestore.deserialize_cdr(raw, msgtype)  # rosbags names the problem
    msgdef = typestore.get_msgdef(msgtype)
    func = msgdef.deserialize_cdr_le if raw[1] else msgdef.deserialize_cdr_be
    try:
        message, pos = func(memoryview(raw)[4:], 0, msgdef.cls, typestore)
    except (struct.error, IndexError) as exc:
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype}") from exc
    except (SerdeError, ValueError) as exc:
        text = str(exc)
        past_end = text.startswith(("Invalid string length", "Invalid sequence length"))  # rosbags' bound checks
        if not past_end and "buffer is smaller" not in text:  # numpy.frombuffer past the end
            raise
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype} ({text})") from exc
    if pos + 4 > len(raw):  # defensive: the generated code checks its reads, this checks the end
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype} (needs {pos + 4})")
    return message


@dataclasses.dataclass
class Block:
    """Messages of one topic read at once (see :meth:`BagSource.blocks`).

    Attributes:
        topic: The topic.
        times: Receive times (ns), in the order of the payloads.
        rows: (M, size) bytes when every payload has the same size (row i is message i), else None.
        raws: The payloads when their sizes differ, else None.
    """

    topic: str
    times: npt.NDArray[np.int64]
    rows: npt.NDArray[np.uint8] | None = None
    raws: list[bytes] | None = None

    def __len__(self) -> int:
        return int(self.times.size)

    def payloads(self) -> list[bytes]:
        """Every payload as bytes."""
        if self.raws is not None:
            return self.raws
        assert self.rows is not None
        return [row.tobytes() for row in self.rows]


def _block(topic: str, times: Sequence[int], raws: Sequence[bytes]) -> Block:
    """A block of payloads: a byte matrix when they all have the same size."""
    stamps = np.fromiter(times, dtype=np.int64, count=len(times))
    if raws and len(set(map(len, raws))) == 1:
        rows = np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(len(raws), len(raws[0]))
        return Block(topic, stamps, rows=rows)
    return Block(topic, stamps, raws=list(raws))


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
                data = _chunk_data(bio, chunk, records, crc)
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


#: Messages per block read from sqlite3 storage (bounds the rows held at once; a block of
#: about a megabyte stays in the CPU's cache while it is joined, checked and copied).
SQLITE_BLOCK = 1024


def _sqlite_blocks(storage: Any, wanted: set[str]) -> Iterator[Block]:
    """Blocks of the wanted topics of an sqlite3 storage, in the order rosbags reads them."""
    conn = storage.dbconn
    for topic in sorted(wanted):
        ids = sorted({c.id for c in storage.connections if c.topic == topic})
        if not ids:
            continue
        marks = ",".join("?" for _ in ids)
        sql = f"SELECT timestamp, data FROM messages WHERE topic_id IN ({marks}) ORDER BY timestamp, id"  # noqa: S608
        every_row = False
        if getattr(storage, "owed", False):  # a quick open: this read may do the scan it left out
            from ._sqlite import visits_every_row

            every_row = visits_every_row(conn, sql, ids)
        cursor = conn.execute(sql, ids)
        while rows := list(itertools.islice(cursor, SQLITE_BLOCK)):
            times, raws = zip(*rows, strict=True)
            yield _block(topic, times, raws)
        if every_row:
            storage.visited()


_MSG_HEAD = 31  # opcode, record length, channel id, sequence, log time, publish time


def _mcap_blocks(storage: Any, wanted: set[str]) -> Iterator[Block]:
    """Blocks of the wanted channels of indexed MCAP storage, chunk by chunk in file order.

    Messages are located through each chunk's message index (vectorised); a chunk without
    an index for a wanted channel, or whose index does not match its records, is walked
    record by record instead.
    """

    ids = {c.id: c.topic for c in storage.connections if c.topic in wanted}
    bio = storage.bio
    mapping = _Mapping.of(bio)
    mapped = mapping.view if mapping is not None else None
    for chunk in sorted(storage.chunks, key=lambda c: c.chunk_start_offset):
        if mapping is not None:  # the chunks before this one are done with
            mapping.drop_before(chunk.chunk_start_offset)
        present = [cid for cid in ids if chunk.channel_count.get(cid)]
        if not present:
            continue
        try:
            bio.seek(chunk.chunk_start_offset + 9 + 24)
            (crc,) = struct.unpack("<I", bio.read(4))
            records = chunk.chunk_start_offset + 9 + 40 + len(chunk.compression)
            if chunk.compression == "" and not crc and chunk.uncompressed_size > BIG_CHUNK:
                found: dict[str, tuple[list[int], list[bytes]]] = {}
                for topic, t, raw in _iter_records(bio, records, chunk.uncompressed_size, ids):
                    times, raws = found.setdefault(topic, ([], []))
                    times.append(t)
                    raws.append(raw)
                yield from (_block(topic, times, raws) for topic, (times, raws) in found.items())
                continue
            data = _chunk_data(bio, chunk, records, crc, mapped)
        except Exception as exc:  # short reads, bad CRC, a decompressor's error
            raise ReadError(
                storage.path, f"damaged MCAP chunk: {_reason(exc)}", offset=chunk.chunk_start_offset
            ) from exc
        # A topic on several channels of the chunk interleaves them: walked, in file order.
        single = len({ids[cid] for cid in present}) == len(present)
        indexed = [_indexed_block(bio, chunk, data, cid, ids[cid], mapped) for cid in present] if single else [None]
        if all(b is not None for b in indexed):
            yield from (b for b in indexed if b is not None and len(b))
            continue
        try:
            yield from _walked_blocks(data, {cid: ids[cid] for cid in present})
        except Exception as exc:
            raise ReadError(
                storage.path, f"damaged MCAP chunk: {_reason(exc)}", offset=chunk.chunk_start_offset
            ) from exc


def _walked_blocks(data: bytes, ids: dict[int, str]) -> Iterator[Block]:
    """Blocks of a decompressed chunk's records, walked one by one (the general way), one per topic."""
    rec = struct.Struct("<BQ").unpack_from
    msg = struct.Struct("<HIQ").unpack_from
    found: dict[str, tuple[list[int], list[bytes]]] = {topic: ([], []) for topic in ids.values()}
    pos, end = 0, len(data)
    while pos < end:
        op, length = rec(data, pos)
        if pos + 9 + length > end:
            raise ValueError(f"MCAP record at chunk byte {pos} runs past the chunk")
        if op == 0x05:
            cid, _, log_time = msg(data, pos + 9)
            topic = ids.get(cid)
            if topic is not None:
                found[topic][0].append(log_time)
                found[topic][1].append(bytes(data[pos + _MSG_HEAD : pos + 9 + length]))
        pos += 9 + length
    for topic, (times, raws) in found.items():
        if times:
            yield _block(topic, times, raws)


def _gather(buf: npt.NDArray[np.uint8], at: npt.NDArray[np.int64], dtype: str) -> npt.NDArray[Any]:
    """The ``dtype`` value at each byte offset ``at`` of ``buf``."""
    width = np.dtype(dtype).itemsize
    out: npt.NDArray[Any] = buf[at[:, None] + np.arange(width)].view(dtype)[:, 0]
    return out


def _index_entries(bio: Any, where: int, cid: int, mapped: memoryview | None) -> bytes | memoryview | None:
    """The (time, offset) entries of the message index record at ``where``, or None when it is not one."""
    if mapped is not None:
        head: bytes | memoryview = mapped[where : where + 15]
    else:
        bio.seek(where)
        head = bio.read(15)
    if len(head) != 15:
        return None
    op, _, channel, size = struct.unpack("<BQHI", head)
    if op != 0x07 or channel != cid or size % 16:
        return None
    entries = mapped[where + 15 : where + 15 + size] if mapped is not None else bio.read(size)
    return entries if len(entries) == size else None


def _field(buf: npt.NDArray[np.uint8], first: int, n: int, stride: int, dtype: str) -> npt.NDArray[Any]:
    """The ``dtype`` value at ``first``, ``first + stride`` … (n of them) of ``buf``: a strided view."""
    width = np.dtype(dtype).itemsize
    view = np.lib.stride_tricks.as_strided(buf[first:], shape=(n, width), strides=(stride, 1), writeable=False)
    out: npt.NDArray[Any] = view.view(dtype)[:, 0]
    return out


def _indexed_block(
    bio: Any, chunk: Any, data: Any, cid: int, topic: str, mapped: memoryview | None = None
) -> Block | None:
    """A channel's messages of a decompressed chunk, located by its message index; None: walk instead.

    Records one after another at a constant stride (messages of one size, nothing in
    between: the usual case) are checked and read through strided views, without a
    gather per field.
    """
    where = chunk.message_index_offsets.get(cid)
    if where is None:
        return None
    entries = _index_entries(bio, where, cid, mapped)
    if entries is None:
        return None
    offsets = np.frombuffer(entries, dtype="<u8").reshape(-1, 2)[:, 1].astype(np.int64)
    n = offsets.size
    if n > 1 and not bool(np.all(offsets[1:] > offsets[:-1])):
        offsets = np.sort(offsets)
    if n != chunk.channel_count.get(cid) or (n and (offsets[0] < 0 or offsets[-1] + _MSG_HEAD > len(data))):
        return None
    if n > 1 and not bool(np.all(np.diff(offsets) > 0)):
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    if not n:
        return Block(topic, np.zeros(0, dtype=np.int64), raws=[])
    first = int(offsets[0])
    stride = int(offsets[1] - offsets[0]) if n > 1 else 0
    if n > 1 and bool(np.all(np.diff(offsets) == stride)) and stride >= _MSG_HEAD:
        size = stride - _MSG_HEAD  # every record exactly fills the gap to the next one
        if (
            first + (n - 1) * stride + _MSG_HEAD + size <= len(data)
            and bool(np.all(_field(buf, first, n, stride, "<u1") == 0x05))
            and bool(np.all(_field(buf, first + 1, n, stride, "<u8") == size + _MSG_HEAD - 9))
            and bool(np.all(_field(buf, first + 9, n, stride, "<u2") == cid))
        ):
            times = _field(buf, first + 15, n, stride, "<u8").astype(np.int64)
            rows = np.lib.stride_tricks.as_strided(
                buf[first + _MSG_HEAD :], shape=(n, size), strides=(stride, 1), writeable=False
            )
            return Block(topic, times, rows=rows)
    lengths = _gather(buf, offsets + 1, "<u8").astype(np.int64)
    if (
        not bool(np.all(buf[offsets] == 0x05))
        or not bool(np.all(_gather(buf, offsets + 9, "<u2") == cid))
        or not bool(np.all(lengths >= _MSG_HEAD - 9))
        or not bool(np.all(offsets + 9 + lengths <= len(data)))
        or (n > 1 and not bool(np.all(offsets[:-1] + 9 + lengths[:-1] <= offsets[1:])))
    ):
        return None
    times = _gather(buf, offsets + 15, "<u8").astype(np.int64)
    sizes = lengths - (_MSG_HEAD - 9)
    size = int(sizes[0])
    if not bool(np.all(sizes == size)):
        raws = [
            bytes(data[o + _MSG_HEAD : o + _MSG_HEAD + k])
            for o, k in zip(offsets.tolist(), sizes.tolist(), strict=True)
        ]
        return Block(topic, times, raws=raws)
    starts = offsets + _MSG_HEAD
    steps = np.diff(starts)
    if n == 1 or bool(np.all(steps == steps[0])):
        stride = int(steps[0]) if n > 1 else size
        rows = np.lib.stride_tricks.as_strided(
            buf[int(starts[0]) :], shape=(n, size), strides=(stride, 1), writeable=False
        )
        return Block(topic, times, rows=rows)
    return Block(topic, times, rows=buf[starts[:, None] + np.arange(size)])


class _Mapping:
    """A storage file memory-mapped read-only: its chunks are read without a copy.

    The pages of the chunks already read are given back (``madvise``), so that the
    process does not keep the whole file resident; they are still in the page cache, and
    a view that reads them again gets them back from there.
    """

    def __init__(self, mm: mmap.mmap) -> None:
        self.mm = mm
        self.view = memoryview(mm)
        self.dropped = 0

    @classmethod
    def of(cls, bio: Any) -> _Mapping | None:
        """The file behind ``bio`` mapped, or None when it cannot be (empty, not a real file)."""
        try:
            if not os.fstat(bio.fileno()).st_size:
                return None
            return cls(mmap.mmap(bio.fileno(), 0, access=mmap.ACCESS_READ))
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            return None

    def drop_before(self, offset: int) -> None:
        """Give back the resident pages before ``offset``."""
        end = offset - offset % mmap.PAGESIZE
        if end > self.dropped and hasattr(mmap, "MADV_DONTNEED"):
            with contextlib.suppress(OSError, ValueError):
                self.mm.madvise(mmap.MADV_DONTNEED, self.dropped, end - self.dropped)
            self.dropped = end


def _chunk_data(bio: Any, chunk: Any, records: int, crc: int, mapped: memoryview | None = None) -> Any:
    """A chunk's records, decompressed and checked against ``crc`` (0: none), from offset ``records``.

    From ``mapped`` (the mapped file) an uncompressed chunk is a view of the file's
    pages (no copy) and a compressed one is decompressed straight from them.
    """
    from rosbags.rosbag2.storage_mcap import decompress

    if mapped is not None:
        compressed = mapped[records : records + chunk.compressed_size]
        if len(compressed) != chunk.compressed_size:
            raise ValueError("truncated MCAP chunk")
        return decompress(compressed, chunk.compression, chunk.uncompressed_size, crc)  # type: ignore[arg-type]
    bio.seek(records)
    compressed = bio.read(chunk.compressed_size)
    if len(compressed) != chunk.compressed_size:
        raise ValueError("truncated MCAP chunk")
    return decompress(compressed, chunk.compression, chunk.uncompressed_size, crc)
