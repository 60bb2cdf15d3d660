"""The format registry: one explicit map from format name to codec, typed by :class:`Codec`.

Every codec is a module under ``codecs/`` that provides what :class:`CodecModule` says::

    ReadOptions: type                          # frozen dataclass: the keyword options read() accepts
    WriteOptions: type                         # frozen dataclass: the keyword options write() accepts
    read(path: Path, options: ReadOptions | None = None) -> MotionFile
    write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool) -> Written
    sniff(path: Path, head: str) -> bool       # whether the content is this format's

The registry knows each codec by a :class:`CodecInfo` (name, suffixes, …), which is the
:class:`Codec` the rest of the package (and the CLI) uses: its ``read``/``write`` take
keyword options, import the module only when used (its optional dependencies with it),
refuse options the codec does not declare (:class:`~motion_formats_ros.core.errors.OptionError`,
listing the accepted ones) and hand the codec its options dataclass holding the rest
(:func:`~motion_formats_ros.core.options.build_options`).

The codec for a path comes from its (compound) suffix; where several codecs share a
suffix (``.yaml``, ``.json``) the content decides, and on write the first codec that
lists the suffix wins (OMF for ``.yaml`` and ``.json``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from .core.errors import ReadError, UnknownFormatError, WriteError, listed
from .core.inputs import interruptible, read_input, refuse_binary
from .core.notices import NoticeKind, collect, notify, overflow_noted
from .core.options import Option, build_options, options_of

if TYPE_CHECKING:
    from .core.model import Motion, MotionFile
    from .core.validation import Validation

#: Bytes read from the start of a file for content sniffing.
SNIFF_BYTES = 65536

#: What a write says it wrote: the frames (keyframes) of the one group a format holds (``.seq``,
#: ``.mof``, ``.mtn`` …), the frames of each group written when a format holds some groups of the
#: file (a bag: the joint states' and the trajectory's), or None: every group, frame for frame.
Written = int | dict[str, int] | None


def written_counts(written: Written, motion_file: MotionFile) -> tuple[int, int]:
    """(groups, frames) in the output of a write of ``motion_file`` that returned ``written``."""
    if isinstance(written, dict):
        return len(written), sum(written.values())
    if written is not None:
        return 1, written
    return len(motion_file.groups), sum(m.num_frames for m in motion_file.groups.values())


class CodecModule(Protocol):
    """What a codec module provides (structurally: codecs never import the registry)."""

    @property
    def ReadOptions(self) -> type:  # noqa: N802 - a class
        """The frozen dataclass whose fields are the keyword options ``read`` accepts."""
        ...

    @property
    def WriteOptions(self) -> type:  # noqa: N802 - a class
        """The frozen dataclass whose fields are the keyword options ``write`` accepts (besides ``overwrite``)."""
        ...

    @property
    def read(self) -> Callable[..., MotionFile]:
        """``read(path, options)``: ``options`` is a ``ReadOptions``."""
        ...

    @property
    def write(self) -> Callable[..., Written]:
        """``write(motion_file, path, options, *, overwrite)``: ``options`` is a ``WriteOptions``."""
        ...

    def sniff(self, path: Path, head: str, /) -> bool:
        """Whether the content (``head``: the first bytes as text) is this format's."""
        ...


class Codec(Protocol):
    """A file format as the registry, the conversion and the CLI use it."""

    @property
    def name(self) -> str:
        """Format name used on the command line (``--from``/``--to``)."""
        ...

    @property
    def suffixes(self) -> tuple[str, ...]:
        """Suffixes only this codec uses (compound ones like ``.omf.json`` too)."""
        ...

    @property
    def shared(self) -> tuple[str, ...]:
        """Suffixes other codecs use too: the content decides on read."""
        ...

    @property
    def description(self) -> str: ...

    @property
    def writable(self) -> bool: ...

    @property
    def directories(self) -> bool:
        """Whether a directory can be a file of this format (rosbag2)."""
        ...

    @property
    def recording(self) -> bool:
        """Whether its files are recordings of ROS topics, read with the bag options."""
        ...

    @property
    def per_group(self) -> bool:
        """Whether a write of several groups makes one file per group (tables)."""
        ...

    @property
    def content_decides(self) -> bool:
        """Whether a file met while searching a folder is this format's only when its content says so."""
        ...

    @property
    def read_options(self) -> tuple[Option, ...]: ...

    @property
    def write_options(self) -> tuple[Option, ...]: ...

    def accepted(self, options: Mapping[str, Any], direction: str) -> dict[str, Any]: ...

    def sniff(self, path: Path, head: str) -> bool: ...

    def output_paths(self, path: Path, groups: list[str]) -> list[Path]: ...

    def validate(self, path: Path) -> Validation | None: ...

    def read(self, path: Path, **options: Any) -> MotionFile: ...

    def write(self, motion_file: MotionFile, path: Path, *, overwrite: bool = False, **options: Any) -> Written: ...


class CodecInfo(NamedTuple):
    """A registered codec: how to find it and which files are its own; a :class:`Codec`.

    Attributes:
        name: Format name used on the command line (``--from``/``--to``).
        module: Module implementing :class:`CodecModule`.
        suffixes: Suffixes only this codec uses (compound ones like ``.omf.json`` too).
        shared: Suffixes other codecs use too: the content decides on read.
        description: One line for ``motion-formats formats``.
        writable: Whether the codec can write.
        directories: Whether a directory can be a file of this format (rosbag2).
        text: Whether every file of the format is text: a NUL byte near the start is
            refused before the whole file is loaded (a disk image, zeros).
        recording: Whether its files are recordings of ROS topics (bags): the reader
            declares the bag options (topics, stamps, TF frames, …) and cuts, selects
            and resamples while reading (``joints``, ``start``, ``end``, ``rate``).
        per_group: Whether a write of several groups makes one file per group beside the
            output (the module's ``output_paths(path, groups)`` names them), as tables do.
        content_decides: Whether files that are no motion commonly use its suffixes too
            (any CSV table): a file met while searching a folder is one of this format's
            only when its content says so.
        robot_description: Whether its files keep :attr:`MotionFile.robot_description` (the
            robot's URDF, e.g. from a bag's /robot_description); a write to another
            format says that it is dropped.
        one_motion: Whether a file holds one motion and no group name: a write of several
            groups writes one of them (the codec's choice, or its ``group`` option); a read
            names its motion ``target`` (``DEFAULT_GROUP``).
        marks: Whether its files keep :attr:`Motion.marks` (named instants: a ``.mof`` net's
            labels); a write to another format names the marks it drops (all but a ``start``
            at the first frame, which says nothing the motion does not). A codec that keeps
            only some (a ``.mof`` writes the start and loop labels) names the rest itself.
    """

    name: str
    module: str
    suffixes: tuple[str, ...]
    shared: tuple[str, ...] = ()
    description: str = ""
    writable: bool = True
    directories: bool = False
    text: bool = False
    recording: bool = False
    per_group: bool = False
    content_decides: bool = False
    robot_description: bool = False
    one_motion: bool = False
    marks: bool = False

    def load(self) -> CodecModule:
        """Import the codec module."""
        return cast(CodecModule, importlib.import_module(self.module))

    @property
    def read_options(self) -> tuple[Option, ...]:
        """The options ``read`` accepts, as the codec's ``ReadOptions`` declares them."""
        return options_of(self.load().ReadOptions)

    @property
    def write_options(self) -> tuple[Option, ...]:
        """The options ``write`` accepts, as the codec's ``WriteOptions`` declares them."""
        return options_of(self.load().WriteOptions)

    def accepted(self, options: Mapping[str, Any], direction: str) -> dict[str, Any]:
        """The part of ``options`` this codec declares for ``direction`` (``"read"`` or ``"write"``)."""
        declared = {o.name for o in (self.read_options if direction == "read" else self.write_options)}
        return {k: v for k, v in options.items() if k in declared}

    def sniff(self, path: Path, head: str) -> bool:
        """Whether ``path`` (whose first bytes are ``head``) is a file of this format."""
        return self.load().sniff(path, head)

    def describe(self, path: Path) -> dict[str, Any] | None:
        """What ``info`` shows of a container (a bag: its topics and counts) instead of a motion summary.

        A codec module offers it with ``describe(path) -> dict`` (plain data; the command
        line words it). None when the format has no such view.
        """
        describe = getattr(self.load(), "describe", None)
        if describe is None:
            return None
        info: dict[str, Any] = describe(path)
        return info

    def output_paths(self, path: Path, groups: list[str]) -> list[Path]:
        """The files a write of ``groups`` to ``path`` creates: ``path``, or one per group (``per_group``)."""
        if not self.per_group:
            return [path]
        return list(self.load().output_paths(path, groups))  # type: ignore[attr-defined]

    def validate(self, path: Path) -> Validation | None:
        """The codec's own validation of ``path`` (every problem, with its place), or None.

        A codec module offers it with ``validate(path) -> Validation``; formats without it
        are validated by reading them.
        """
        validate = getattr(self.load(), "validate", None)
        return None if validate is None else cast("Validation", validate(path))

    def read(self, path: Path, **options: Any) -> MotionFile:
        """Read ``path`` with this codec; options it does not declare are refused."""
        module = self.load()
        typed: object = build_options(self.name, "read", module.ReadOptions, options)
        with overflow_noted(path, "reading"):
            return module.read(path, typed)

    def write(self, motion_file: MotionFile, path: Path, *, overwrite: bool = False, **options: Any) -> Written:
        """Write ``motion_file`` to ``path`` with this codec; options it does not declare are refused.

        Returns what the codec says it wrote (see :data:`Written`).
        """
        if not self.writable:
            raise UnknownFormatError(
                f"format {self.name!r}", [c for c in CODECS if CODECS[c].writable], "cannot be written"
            )
        module = self.load()
        typed: object = build_options(self.name, "write", module.WriteOptions, options)
        self._note_dropped(motion_file, path)  # before the write: a strict run puts no output in place
        with overflow_noted(path, "writing"):
            written = module.write(motion_file, path, typed, overwrite=overwrite)
        if isinstance(written, Mapping):
            return {str(group): int(frames) for group, frames in written.items()}
        return written if isinstance(written, int) and not isinstance(written, bool) else None

    def _note_dropped(self, motion_file: MotionFile, path: Path) -> None:
        """Say what of the model the format has no place for whatever the codec does: the robot
        description and the marks (each codec names the rest of what it drops)."""
        if motion_file.robot_description and not self.robot_description:
            notify(
                NoticeKind.LOSSY_WRITE,
                f"{self.name} cannot hold the robot description (URDF); dropped",
                file=path,
                field="robot_description",
            )
        if self.marks:
            return
        marked = [
            (f"group {name!r}: " if len(motion_file.groups) > 1 else "")
            + listed(f"{label} at {t:g} s" for t, label in kept)
            for name, motion in motion_file.groups.items()
            if (kept := _telling_marks(motion))
        ]
        if marked:
            notify(
                NoticeKind.LOSSY_WRITE,
                f"{self.name} cannot hold named instants (a .mof net's labels); dropped: " + "; ".join(marked),
                file=path,
                field="marks",
            )


def _telling_marks(motion: Motion) -> list[tuple[float, str]]:
    """The marks that say something the motion does not: all but ``start`` at its first frame (the
    entry label every ``.mof`` net has, which any format's motion starts at)."""
    first = float(motion.times[0]) if motion.num_frames else 0.0
    return [(t, label) for t, label in motion.marks if not (label == "start" and t == first)]


def with_body(
    options: Mapping[str, Any],
    reader: CodecInfo,
    *,
    body: str | os.PathLike[str] | None = None,
    writer: CodecInfo | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The one rule for a robot's Choreonoid ``.body`` given beside a motion: the read options and
    the write options it makes.

    The ``.body`` (``options["body"]``: ``--body``; else ``body``: the player's ``body_file``, the
    viewer's model) goes to the read only where ``reader`` declares a ``body`` read option (it
    names a ``.seq``'s columns), and to the write where ``writer`` declares a ``body`` write option
    (it orders them). Without ``writer`` it is the robot model: a read that does not take it is
    not given it. With ``writer`` (``convert``, where it is no robot model) one that neither takes
    stays in the read options, which refuse it naming the option.

    Returns:
        (read options, write options it adds): new dicts.
    """
    reads = {k: v for k, v in options.items() if k != "body"}
    given = options.get("body", body)
    writes: dict[str, Any] = {}
    if given is None:
        return reads, writes
    if writer is not None and writer.accepted({"body": given}, "write"):
        writes["body"] = given
    if reader.accepted({"body": given}, "read") or (writer is not None and not writes):
        reads["body"] = given
    return reads, writes


#: Every codec, in the order that breaks ties on write for shared suffixes.
CODECS: dict[str, CodecInfo] = {
    "omf": CodecInfo(
        name="omf",
        module="motion_formats_ros.codecs.omf",
        suffixes=(".msgpack", ".omf.msgpack", ".omf.yaml", ".omf.yml", ".omf.json"),
        shared=(".yaml", ".yml", ".json"),
        description="Otter Motion Format (msgpack, YAML or JSON)",
        robot_description=True,
    ),
    "seq": CodecInfo(
        name="seq",
        one_motion=True,
        text=True,
        module="motion_formats_ros.codecs.seq",
        suffixes=(".seq",),
        shared=(".yaml", ".yml"),
        description="Choreonoid Standard Body Motion, format versions 1-4 (YAML)",
    ),
    "pseq": CodecInfo(
        name="pseq",
        text=True,
        module="motion_formats_ros.codecs.pseq",
        suffixes=(".pseq",),
        description="Choreonoid PoseSeq key poses (read only)",
        writable=False,
    ),
    "mof": CodecInfo(
        name="mof",
        one_motion=True,
        text=True,
        module="motion_formats_ros.codecs.mof",
        suffixes=(".mof",),
        description="B-Human / GermanTeam motion net (NAO keyframes)",
        marks=True,
    ),
    "mtn": CodecInfo(
        name="mtn",
        one_motion=True,
        module="motion_formats_ros.codecs.mtn",
        suffixes=(".mtn",),
        description="Sony AIBO motion (OMTN binary keyframes)",
    ),
    "scene": CodecInfo(
        name="scene",
        one_motion=True,
        text=True,
        module="motion_formats_ros.codecs.scene",
        suffixes=(".json5",),
        shared=(".json",),
        description="Scene Description (JSON5): robots, objects, spline trajectories",
    ),
    "rosbag": CodecInfo(
        name="rosbag",
        module="motion_formats_ros.codecs.rosbag",
        suffixes=(".db3", ".mcap", ".bag"),
        description="ROS bags: rosbag2 folders (MCAP / sqlite3), .mcap, .db3, ROS 1 .bag",
        directories=True,
        recording=True,
        robot_description=True,
    ),
    "parquet": CodecInfo(
        name="parquet",
        module="motion_formats_ros.codecs.tables.parquet",
        suffixes=(".parquet",),
        description="Parquet table, one row per frame (pyarrow: extra [parquet])",
        per_group=True,
        marks=True,
    ),
    "csv": CodecInfo(
        name="csv",
        text=True,
        module="motion_formats_ros.codecs.tables.csv_table",
        suffixes=(".csv",),
        description="CSV table, one row per frame (exact values)",
        per_group=True,
        content_decides=True,
    ),
}


def _suffix_matches(name: str) -> list[tuple[str, CodecInfo, bool]]:
    """(suffix, codec, shared) for every registered suffix ``name`` ends with, longest first."""
    lowered = name.lower()
    hits = [
        (suffix, info, shared)
        for info in CODECS.values()
        for shared, suffixes in ((False, info.suffixes), (True, info.shared))
        for suffix in suffixes
        if lowered.endswith(suffix)
    ]
    hits.sort(key=lambda h: -len(h[0]))
    return hits


def suffix_codecs(path: str | os.PathLike[str]) -> tuple[str, list[CodecInfo]]:
    """The longest registered suffix ``path`` ends with and the codecs it names: one for a
    suffix of its own (``.seq``), several for a shared one (``.yaml``); ``("", [])`` for none."""
    hits = _suffix_matches(Path(path).name)
    if not hits:
        return "", []
    longest = hits[0][0]
    return longest, [info for suffix, info, _ in hits if suffix == longest]


def codec_by_name(name: str) -> CodecInfo:
    """The codec registered as ``name``."""
    try:
        return CODECS[name.lower()]
    except KeyError:
        raise UnknownFormatError(f"format {name!r}", CODECS) from None


def read_head(path: Path, size: int = SNIFF_BYTES) -> str:
    """The first ``size`` bytes of ``path`` as text (undecodable bytes replaced)."""
    return read_input(path, size).decode("utf-8", errors="replace")


def codec_for_path(path: str | os.PathLike[str], *, for_write: bool = False) -> CodecInfo:
    """The codec for ``path``, by suffix and (for shared suffixes, on read) by content."""
    p = Path(path)
    if not for_write and p.is_dir():
        for info in CODECS.values():
            if info.directories and info.sniff(p, ""):
                return info
        raise UnknownFormatError(str(p), CODECS, "a folder that no codec recognises")
    hits = _suffix_matches(p.name)
    if not hits:
        raise UnknownFormatError(str(p), CODECS, f"unknown suffix {p.suffix!r}")
    longest = len(hits[0][0])
    best = [h for h in hits if len(h[0]) == longest]
    own = [info for _, info, shared in best if not shared]
    if own:
        return own[0]
    candidates = [info for _, info, _ in best]
    if for_write:
        return candidates[0]
    head = read_head(p)
    for info in candidates:
        if info.sniff(p, head):
            return info
    names = ", ".join(info.name for info in candidates)
    raise UnknownFormatError(str(p), CODECS, f"{best[0][0]} files can be {names}, and the content matches none of them")


def read(path: str | os.PathLike[str], format: str | None = None, **options: Any) -> MotionFile:
    """Read a motion file.

    Args:
        path: The file (or rosbag2 folder).
        format: A name from :data:`CODECS`; by default from the suffix / content.
        **options: Codec options (e.g. ``joint_names`` for formats without names); the
            codec's ``ReadOptions`` declares them (``motion-formats formats --options`` lists them).

    Returns:
        The file; its ``notices`` are the warnings this read gave (each was also issued as
        a :class:`~.core.notices.MotionFormatWarning`, and reached any enclosing
        :func:`~.core.notices.collect`).

    Raises:
        ReadError: The file is missing or malformed (names the file and the place).
        UnknownFormatError: The format cannot be determined.
        OptionError: The codec does not accept an option, or its value's type.
    """
    p = Path(path)
    try:
        if not p.exists():
            raise ReadError(p, "no such file")
        with interruptible():  # SIGTERM ends even a parse in native code
            info = codec_by_name(format) if format else codec_for_path(p)
            if info.text and not p.is_dir():
                refuse_binary(p)
            with collect() as report:
                motion_file = info.read(p, **options)
    except OSError as exc:  # a file or folder this user may not read, a device gone, …
        raise ReadError(p, _os_reason(exc, p)) from exc
    from .core.spatial import require_rotations  # numpy: not loaded for --help

    for group, motion in motion_file.groups.items():  # a stated pose that is no rotation: refused for every use
        field = "root orientation" if len(motion_file.groups) == 1 else f"{group}: root orientation"
        require_rotations(motion.root_orientation, p, field, motion.times)
    motion_file.notices = tuple(report.notices)
    motion_file.source = str(p)
    motion_file.format = info.name
    return motion_file


def write(
    motion_file: MotionFile,
    path: str | os.PathLike[str],
    format: str | None = None,
    overwrite: bool = False,
    **options: Any,
) -> Written:
    """Write ``motion_file`` to ``path`` atomically.

    Args:
        motion_file: What to write.
        path: Output path; its suffix picks the format unless ``format`` is given.
        format: A name from :data:`CODECS`.
        overwrite: Replace an existing file (never done otherwise).
        **options: Codec options (the codec's ``WriteOptions``).

    Returns:
        The number of frames in the written file when the format holds one group (keyframe
        formats that reduce or add frames: ``.mof``, ``.mtn``; ``.seq``, scenes), the frames
        of each group written when it holds only some (a bag), else None: every group as it
        is (:data:`Written`; :func:`written_counts` gives groups and frames of either).

    Raises:
        WriteError: The output exists, cannot be written, or cannot hold the data, or a root
            orientation is no rotation (all zero, or infinite: what :func:`read` refuses).
        UnknownFormatError: The format cannot be determined.
        OptionError: The codec does not accept an option, or its value's type.
    """
    p = Path(path)
    info = codec_by_name(format) if format else codec_for_path(p, for_write=True)
    from .core.spatial import no_rotation_reason  # numpy: not loaded for --help

    for group, motion in motion_file.groups.items():  # never a file that read() refuses
        reason = no_rotation_reason(motion.root_orientation, motion.times)
        if reason is not None:
            field = "root orientation" if len(motion_file.groups) == 1 else f"{group}: root orientation"
            raise WriteError(p, f"{field}: {reason}")
    try:
        return info.write(motion_file, p, overwrite=overwrite, **options)
    except OSError as exc:  # a full disk, a folder this user may not write, …
        raise WriteError(p, _os_reason(exc, p)) from exc


def _os_reason(exc: OSError, path: Path) -> str:
    """The system's reason, with the file it concerns when that is not ``path`` itself."""
    reason = exc.strerror or str(exc)
    other = exc.filename
    if other is not None and os.fspath(other) != os.fspath(path):
        return f"{os.fsdecode(other)}: {reason}"
    return reason


if TYPE_CHECKING:  # mypy checks that every codec module and the registry's records fit the protocols
    from .codecs import mof, mtn, omf, pseq, rosbag, scene, seq
    from .codecs.tables import csv_table, parquet

    _OMF: CodecModule = omf
    _SEQ: CodecModule = seq
    _PSEQ: CodecModule = pseq
    _MOF: CodecModule = mof
    _MTN: CodecModule = mtn
    _SCENE: CodecModule = scene
    _ROSBAG: CodecModule = rosbag
    _PARQUET: CodecModule = parquet
    _CSV: CodecModule = csv_table
    _CODEC: Codec = CODECS["omf"]
