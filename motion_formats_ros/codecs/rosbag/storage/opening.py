"""Opening a bag: which storage files, decompressed and checked, read how (own readers, rosbags' or the salvage scan).

With ``direct``, the package's own readers open the bag (``direct``) and anything they
do not know raises ``UnusualLayoutError``: the caller then opens it again without. A
folder whose ``metadata.yaml`` rosbags cannot use (see ``folder``) is read from its
storage files directly; ``.zstd`` storage files are decompressed into a temporary folder
(``compression``); a crashed recording (MCAP without footer / summary) is recovered up
to its last intact message by the scanner (``mcap_scan``), with a warning saying how
many were found. :class:`OpenedBag` holds what the open found: topics, their
connections and definitions, the bag's custom data and distro.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ....core.errors import ReadError
from ....core.inputs import MAX_RATIO, read_input
from ....core.notices import NoticeKind, notify
from . import folder, mcap_scan
from .bounded import BoundedPath
from .compression import (
    ZSTD_MAGIC,
    Budget,
    DecompressionBombError,
    ExpansionError,
    OverexpansionError,
    bomb,
    decompress_file,
    expansion_limit,
)
from .direct import DirectReader, OpenOrClosed, UnusualLayoutError
from .mcap_records import MAGIC, TAIL_SIZE
from .readers import BAG_SUFFIXES, Readers, Topic, embedded_metadata, reason, storage_files

if TYPE_CHECKING:
    import tempfile


class OpenedBag(OpenOrClosed):
    """The files of one bag, opened (see the module docstring); :meth:`close` releases them."""

    def __init__(self, path: Path, quick: list[Any] | None = None, direct: bool = False) -> None:
        self.path = path
        #: The sqlite3 storages that opened without counting their messages (see ``direct``).
        self.quick = quick
        #: Opened by the package's own readers only (``direct``): what they do not know raises UnusualLayoutError.
        self.direct = direct
        self.ros1 = False
        self.topics: dict[str, Topic] = {}
        self.custom: dict[str, str] = {}
        self.distro: str | None = None
        self.recovered: int | None = None
        self.reader: Readers | None = None
        self.scanners: list[tuple[mcap_scan.McapScanner, dict[int, str]]] = []
        self.plan: folder.FolderPlan | None = None
        #: Definitions each topic's connections carry: (``msg`` / ``idl``, text).
        self.definitions: dict[str, list[tuple[str, str]]] = {}
        self.digests: dict[str, str] = {}
        self.connections: dict[str, list[Any]] = {}
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._shown: dict[Path, Path] = {}  # decompressed copy → the file it came from
        self._walked = False  # the MCAP files were walked bounded for rosbags' message reading

    def close(self) -> None:
        if self.reader is not None:
            reader, self.reader = self.reader, None
            reader.close()
        if self._tmp is not None:
            tmp, self._tmp = self._tmp, None
            tmp.cleanup()

    def _open(self) -> None:
        path = self.path
        if not path.exists():
            raise ReadError(path, "no such file")
        if path.is_dir():
            plan = folder.plan_folder(path)
            meta = path / "metadata.yaml"
            for note in plan.notes:  # each names the metadata file first
                prefix = f"{meta}: "
                if note.startswith(prefix):
                    notify(NoticeKind.INCONSISTENT, note[len(prefix) :], file=meta, stacklevel=6)
                else:
                    notify(NoticeKind.INCONSISTENT, note, stacklevel=6)
            if plan.direct and self.direct:
                raise UnusualLayoutError("a folder read around its metadata.yaml")
            if plan.direct:
                self.plan = plan
                self._check_magic(plan.files)
                files = self._materialize(plan.files)
            else:
                files = [path]
        elif path.suffix.lower() in BAG_SUFFIXES:
            files = [path]
        else:
            raise ReadError(path, f"not a bag (expected a rosbag2 folder or a {', '.join(BAG_SUFFIXES)} file)")
        self._check_magic(files)
        recovering = self.plan.recovering if self.plan is not None else None
        try:
            self._open_reader(files)
        except ReadError:
            raise
        except Exception as exc:
            if self.direct:
                raise
            # rosbags, sqlite3 and the decompressors fail on damaged bags with every kind
            # of error (ReaderError, struct.error, TypeError from a mistyped metadata.yaml
            # field, RuntimeError from lz4, AssertionError …): all of them mean "damaged".
            if self.reader is not None:
                self.reader.close()
                self.reader = None
            mcaps = self._mcap_files(files)
            if mcaps and self._footer_missing(mcaps):
                self._open_scan(mcaps, recovering)
                return
            raise ReadError(path, f"cannot read bag: {reason(exc)}") from exc
        lie = self._chunk_index_lie()
        if lie is not None and self.direct:
            raise UnusualLayoutError(lie)
        if lie is not None:  # read as if it had no summary, without claiming a crash
            if self.reader is not None:
                self.reader.close()
                self.reader = None
            notify(
                NoticeKind.INCONSISTENT,
                f"the summary's chunk index does not match the file ({lie}); its records were scanned instead",
                file=path,
                stacklevel=6,
            )
            self._open_scan(self._mcap_files(files), recovering, salvage=False)
            return
        if recovering is not None:
            self.recovered = sum(t.count for t in self.topics.values())
            notify(
                NoticeKind.RECOVERED,
                f"{recovering}; read its storage files directly and recovered {self.recovered} messages",
                file=path,
                stacklevel=6,
            )

    def _show(self, p: Path) -> Path:
        """The file a user knows: the compressed original of a decompressed copy."""
        return self._shown.get(p, p)

    def _materialize(self, files: list[Path]) -> list[Path]:
        """Storage files ready to open: ``.zstd`` ones decompressed into a temporary folder."""
        out: list[Path] = []
        for f in files:
            if not f.name.endswith(folder.COMPRESSED_SUFFIX):
                out.append(f)
                continue
            if self._tmp is None:
                import tempfile  # for compressed files only: it is slow to import

                self._tmp = tempfile.TemporaryDirectory(prefix="motion_formats_bag_")
            dest = Path(self._tmp.name) / f.name[: -len(folder.COMPRESSED_SUFFIX)]
            try:
                size, complete = decompress_file(f, dest, expansion_limit(f, dest.parent))
            except ExpansionError as exc:
                dest.unlink(missing_ok=True)
                stated = f" (its header states {exc.declared} bytes)" if exc.declared is not None else ""
                raise DecompressionBombError(
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
                    stacklevel=7,
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
            want = ZSTD_MAGIC if suffix == folder.COMPRESSED_SUFFIX else magics[suffix]
            head = read_input(f, len(want), name=self._show(f))
            if head != want:
                if suffix == folder.COMPRESSED_SUFFIX:
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
                if fh.read(len(MAGIC)) != MAGIC or size < TAIL_SIZE + len(MAGIC):
                    return True
        return False

    def _open_reader(self, files: list[Path]) -> None:
        if not self.direct:
            mcaps = self._mcap_files(files)
            self._walk_bounded([f for f in mcaps if not self._footer_missing([f]) and mcap_scan.unindexed_chunks(f)])
        reader = Readers([BoundedPath(f) for f in files], self.quick, self.direct)
        reader.open()
        self.reader = reader
        self.ros1 = not reader.is2
        if reader.is2:
            inner: Any = reader.readers[0]
            distro = inner.ros_distro
            self.distro = distro if isinstance(distro, str) and distro else None
            if isinstance(inner, DirectReader):
                custom_data = inner.custom
            else:
                custom_data = getattr(getattr(inner.storage, "metadata", None), "custom", None)
            if isinstance(custom_data, dict):
                self.custom = {str(k): str(v) for k, v in custom_data.items()}
        else:
            self.distro = "noetic"
        if self.plan is not None:
            self.custom = self.plan.custom or self.custom
            self.distro = self.plan.distro or self.distro
        if reader.is2 and not (self.custom and self.distro):
            custom, distro = embedded_metadata(files)
            self.custom = self.custom or custom
            self.distro = self.distro or distro
        kinds = {"MSG": "msg", "IDL": "idl"}  # rosbags' MessageDefinitionFormat names, or the own readers'
        for name, (msgtype, count, conns) in reader.topics().items():
            self.connections[name] = conns
            self.topics[name] = Topic(name, msgtype, count)
            formats = [getattr(c.msgdef.format, "name", c.msgdef.format) for c in conns]
            self.definitions[name] = [
                (kinds[f], c.msgdef.data) for f, c in zip(formats, conns, strict=True) if f in kinds and c.msgdef.data
            ]
            digest = next((c.digest for c in conns if c.digest), "")
            if digest and reader.is2:
                self.digests[name] = digest

    def _chunk_index_lie(self) -> str | None:
        """Where the summary of an MCAP storage file points at no chunk it has, or None."""
        reader = self.reader
        if reader is None or not reader.is2:
            return None
        for inner in reader.readers:
            for part in storage_files(inner):
                chunks, where = getattr(part, "chunks", None), getattr(part, "path", None)
                if chunks and where is not None:
                    self._check_claims(Path(where), chunks)
                    problem = mcap_scan.chunk_index_problem(Path(where), chunks)
                    if problem is not None:
                        return f"{self._show(Path(where)).name}: {problem}"
        return None

    def _walk_bounded(self, mcaps: list[Path]) -> None:
        """Walk ``mcaps``, decompressing each chunk bounded, before rosbags decompresses them on its own.

        rosbags decompresses a chunk whole, whatever it expands to: when it opens a file
        whose summary does not index its chunks, and when it reads the messages of the
        MCAP files of a bag that the package's chunk reading does not (``source``). The
        walk refuses a bomb first.

        Raises:
            DecompressionBombError: A chunk states, or expands to, more than it can justify.
        """
        for f in mcaps:
            try:
                mcap_scan.McapScanner(f).check()
            except DecompressionBombError as exc:
                if self._show(f) == f:
                    raise
                raise DecompressionBombError(self._show(f), exc.reason, offset=exc.offset) from None
            except (mcap_scan.ScanError, OSError):
                continue  # not MCAP, or unreadable: the reader says so

    def walk_chunks(self) -> None:
        """Walk the MCAP files of the bag bounded (see :meth:`_walk_bounded`) before rosbags reads their messages.

        Once per open bag: its files do not change between reads.
        """
        reader = self.reader
        if reader is not None and reader.is2 and not self._walked:
            self._walked = True
            paths = [Path(p.path) for inner in reader.readers for p in storage_files(inner) if hasattr(p, "path")]
            self._walk_bounded([p for p in paths if p.suffix == ".mcap"])

    def _check_claims(self, where: Path, chunks: Any) -> None:
        """Refuse a file whose chunk index states sizes its chunks and the file cannot justify (see ``compression``).

        Raises:
            DecompressionBombError: A chunk states more than its compressed size, or the chunks
                together more than the file, may expand to.
        """
        budget = Budget(where.stat().st_size)
        for chunk in chunks:
            if chunk.compression:
                try:
                    budget.take(chunk.chunk_start_offset, chunk.uncompressed_size, chunk.compressed_size)
                except OverexpansionError as exc:
                    what = f"the {chunk.compression} chunk"
                    raise bomb(self._show(where), what, exc, chunk.chunk_start_offset) from None

    def _open_scan(self, mcaps: list[Path], recovering: str | None, salvage: bool = True) -> None:
        """The MCAP files read by walking their records (``salvage``: a crashed recording, said so)."""
        kinds = {"ros2msg": "msg", "ros1msg": "msg", "ros2idl": "idl", "omgidl": "idl"}
        self.topics = {}
        self.definitions = {}
        self.connections = {}
        recovered = 0
        lost = []
        for f in mcaps:
            scanner = mcap_scan.McapScanner(f)
            try:
                result = scanner.index()
            except (mcap_scan.ScanError, OSError) as exc:
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
                    self.definitions.setdefault(channel.topic, []).append((kinds[schema.encoding], schema.data))
            recovered += sum(result.counts.values())
            if not result.complete:
                lost.append(f"{self._show(f).name} ends in an incomplete record at byte {result.stop_offset}")
            self.scanners.append((scanner, names))
        if not salvage:
            return
        self.recovered = recovered
        why = f"{recovering}; " if recovering else ""
        notify(
            NoticeKind.RECOVERED,
            f"{why}recording was not closed (MCAP without footer/summary: "
            f"{', '.join(lost) or 'no index'}); recovered {recovered} messages up to the last intact one",
            file=self.path,
            stacklevel=7,
        )
