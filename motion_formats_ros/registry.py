"""The format registry: one explicit map from format name to codec module.

Codec modules are imported only when used (their optional dependencies with them).
Each codec module exposes::

    read(path: Path, **options) -> MotionFile
    write(motion_file: MotionFile, path: Path, *, overwrite: bool, **options) -> None
    sniff(path: Path, head: str) -> bool        # only for shared suffixes

The codec for a path comes from its (compound) suffix; where several codecs share a
suffix (``.yaml``, ``.json``) the content decides, and on write the first codec that
lists the suffix wins (OMF for ``.yaml`` and ``.json``).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from .core.errors import ReadError, UnknownFormatError
from .core.model import MotionFile

#: Bytes read from the start of a file for content sniffing.
SNIFF_BYTES = 65536


@dataclasses.dataclass(frozen=True)
class CodecInfo:
    """How to find a codec and which files are its own.

    Attributes:
        name: Format name used on the command line (``--from``/``--to``).
        module: Module implementing read/write(/sniff).
        suffixes: Suffixes only this codec uses (compound ones like ``.omf.json`` too).
        shared: Suffixes other codecs use too: the content decides on read.
        description: One line for ``motion-formats formats``.
        writable: Whether the codec can write.
        directories: Whether a directory can be a file of this format (rosbag2).
    """

    name: str
    module: str
    suffixes: tuple[str, ...]
    shared: tuple[str, ...] = ()
    description: str = ""
    writable: bool = True
    directories: bool = False

    def load(self) -> ModuleType:
        """Import the codec module."""
        return importlib.import_module(self.module)


#: Every codec, in the order that breaks ties on write for shared suffixes.
CODECS: dict[str, CodecInfo] = {
    "omf": CodecInfo(
        name="omf",
        module="motion_formats_ros.codecs.omf",
        suffixes=(".msgpack", ".omf.msgpack", ".omf.yaml", ".omf.yml", ".omf.json"),
        shared=(".yaml", ".yml", ".json"),
        description="Otter Motion Format (msgpack, YAML or JSON)",
    ),
    "seq": CodecInfo(
        name="seq",
        module="motion_formats_ros.codecs.seq",
        suffixes=(".seq",),
        shared=(".yaml", ".yml"),
        description="Choreonoid Standard Body Motion, format versions 1-4 (YAML)",
    ),
    "pseq": CodecInfo(
        name="pseq",
        module="motion_formats_ros.codecs.pseq",
        suffixes=(".pseq",),
        description="Choreonoid PoseSeq key poses (read only)",
        writable=False,
    ),
    "mof": CodecInfo(
        name="mof",
        module="motion_formats_ros.codecs.mof",
        suffixes=(".mof",),
        description="B-Human / GermanTeam motion net (NAO keyframes)",
    ),
    "mtn": CodecInfo(
        name="mtn",
        module="motion_formats_ros.codecs.mtn",
        suffixes=(".mtn",),
        description="Sony AIBO motion (OMTN binary keyframes)",
    ),
    "scene": CodecInfo(
        name="scene",
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
    ),
}


def known_formats() -> list[str]:
    """Names of every registered format."""
    return list(CODECS)


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


def codec_by_name(name: str) -> CodecInfo:
    """The codec registered as ``name``."""
    try:
        return CODECS[name.lower()]
    except KeyError:
        raise UnknownFormatError(f"format {name!r}", CODECS) from None


def read_head(path: Path, size: int = SNIFF_BYTES) -> str:
    """The first ``size`` bytes of ``path`` as text (undecodable bytes replaced)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError as exc:
        raise ReadError(path, exc.strerror or str(exc)) from exc


def codec_for_path(path: str | os.PathLike[str], *, for_write: bool = False) -> CodecInfo:
    """The codec for ``path``, by suffix and (for shared suffixes, on read) by content."""
    p = Path(path)
    if not for_write and p.is_dir():
        for info in CODECS.values():
            if info.directories and info.load().sniff(p, ""):
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
        if info.load().sniff(p, head):
            return info
    names = ", ".join(info.name for info in candidates)
    raise UnknownFormatError(str(p), CODECS, f"{best[0][0]} files can be {names}, and the content matches none of them")


def read(path: str | os.PathLike[str], format: str | None = None, **options: Any) -> MotionFile:
    """Read a motion file.

    Args:
        path: The file (or rosbag2 folder).
        format: A name from :data:`CODECS`; by default from the suffix / content.
        **options: Codec options (e.g. ``joint_names`` for formats without names).

    Raises:
        ReadError: The file is missing or malformed (names the file and the place).
        UnknownFormatError: The format cannot be determined.
    """
    p = Path(path)
    if not p.exists():
        raise ReadError(p, "no such file")
    info = codec_by_name(format) if format else codec_for_path(p)
    motion_file: MotionFile = info.load().read(p, **options)
    motion_file.source = str(p)
    motion_file.format = info.name
    return motion_file


def write(
    motion_file: MotionFile,
    path: str | os.PathLike[str],
    format: str | None = None,
    overwrite: bool = False,
    **options: Any,
) -> None:
    """Write ``motion_file`` to ``path`` atomically.

    Args:
        motion_file: What to write.
        path: Output path; its suffix picks the format unless ``format`` is given.
        format: A name from :data:`CODECS`.
        overwrite: Replace an existing file (never done otherwise).
        **options: Codec options.

    Raises:
        WriteError: The output exists, cannot be written, or cannot hold the data.
        UnknownFormatError: The format cannot be determined.
    """
    p = Path(path)
    info = codec_by_name(format) if format else codec_for_path(p, for_write=True)
    if not info.writable:
        raise UnknownFormatError(
            f"format {info.name!r}", [c for c in CODECS if CODECS[c].writable], "cannot be written"
        )
    info.load().write(motion_file, p, overwrite=overwrite, **options)
