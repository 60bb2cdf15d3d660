"""What a rosbag2 folder holds, and whether rosbags can read it through its ``metadata.yaml``.

rosbags reads a folder through its ``metadata.yaml`` and refuses one whose metadata lacks
a field (a ``KeyError``), names no storage plugin, or is missing. Real folders have all
of these: crashed recordings (no ``metadata.yaml``, or one cut short), stubs written by
tools (``storage_identifier: ''``), and metadata of rosbag2 versions older than rosbags
knows (the pre-release layout of 2018 had no ``version``, a top-level ``encoding``,
``topic_and_type`` instead of ``topic_metadata`` and, earliest, ``time_start`` instead of
``starting_time``). :func:`plan_folder` decides, without opening any storage file:

- the metadata is complete for its version → rosbags reads the folder as it is;
- the metadata is unusable or incomplete → the storage files are read directly (their
  own topic tables / MCAP summaries say which topics and types they hold), with one
  warning per missing field naming the default used instead;
- the folder has no storage file to read → a ReadError naming the missing field.

Fields each version introduced (rosbag2's own reader requires them from that version on):
1: ``version storage_identifier relative_file_paths duration starting_time message_count
topics_with_message_count`` (topic: ``name type serialization_format``, ``message_count``);
3: ``compression_format compression_mode``; 4: ``offered_qos_profiles`` (per topic);
5: ``files``; 6: ``custom_data``; 7: ``type_description_hash`` (per topic);
8: ``ros_distro``; 9: QoS profiles as YAML lists instead of strings.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath
from typing import Any

from ....core.errors import ReadError
from . import metadata_yaml

#: Storage file suffixes, and the suffix rosbag2's file compression appends.
STORAGE_SUFFIXES = (".db3", ".mcap")
COMPRESSED_SUFFIX = ".zstd"
STORAGE_IDS = {".db3": "sqlite3", ".mcap": "mcap"}
#: The newest metadata version rosbags reads.
NEWEST_VERSION = 9

#: Top-level fields by the version that introduced them (rosbag2 requires them from then on).
_FIELDS_SINCE = {
    "storage_identifier": 1,
    "relative_file_paths": 1,
    "duration": 1,
    "starting_time": 1,
    "message_count": 1,
    "topics_with_message_count": 1,
    "compression_format": 3,
    "compression_mode": 3,
    "files": 5,
    "custom_data": 6,
    "ros_distro": 8,
}
#: Fields rosbags reads with a default when they are missing (the rest it cannot do without).
_OPTIONAL = {"compression_format", "compression_mode", "files", "custom_data", "ros_distro"}
#: What a missing field is replaced with, for the warning.
_DEFAULTS = {
    "relative_file_paths": "the storage files in the folder",
    "duration": "the storage files' own times and counts",
    "starting_time": "the storage files' own times and counts",
    "message_count": "the storage files' own times and counts",
    "topics_with_message_count": "the topics, types and counts the storage files list",
    "compression_format": "no compression unless the files end in '.zstd'",
    "compression_mode": "no compression unless the files end in '.zstd'",
    "files": "the storage files in the folder",
    "custom_data": "no custom data",
    "ros_distro": "the default distro's types where the bag defines none",
}


def storage_kind(path: Path) -> str | None:
    """``sqlite3`` / ``mcap`` for a storage file (compressed or not) by its name, else None."""
    name = path.name
    if name.endswith(COMPRESSED_SUFFIX):
        name = name[: -len(COMPRESSED_SUFFIX)]
    return STORAGE_IDS.get(PurePath(name).suffix)


def _split_index(path: Path) -> tuple[str, int, str]:
    """Sort key: ``rec_10.mcap`` after ``rec_9.mcap`` (rosbag2 numbers split files)."""
    stem = path.name.split(".", 1)[0]
    m = re.match(r"^(.*?)(\d+)$", stem)
    if m:
        return m.group(1), int(m.group(2)), path.name
    return stem, -1, path.name


def storage_files(folder: Path) -> list[Path]:
    """The storage files of a folder in split order, compressed (``.zstd``) ones included.

    When both ``x.mcap`` and ``x.mcap.zstd`` exist the recorder was killed while it
    compressed ``x.mcap`` (it deletes the original when the compressed file is complete):
    the uncompressed one is read.
    """
    found = [p for p in folder.iterdir() if p.is_file() and storage_kind(p) is not None]
    names = {p.name for p in found}
    keep = [p for p in found if not (p.name.endswith(COMPRESSED_SUFFIX) and p.name[:-5] in names)]
    return sorted(keep, key=_split_index)


def is_storage_folder(path: Path) -> bool:
    """A folder with ``metadata.yaml`` or with storage files (``.db3``, ``.mcap``, ``.zstd`` of them)."""
    if not path.is_dir():
        return False
    if (path / "metadata.yaml").is_file():
        return True
    return any(p.is_file() and storage_kind(p) is not None for p in path.iterdir())


class FolderPlan:
    """How to read a rosbag2 folder.

    Attributes:
        direct: Read ``files`` directly instead of letting rosbags read the folder.
        files: Storage files to read (``.zstd`` ones are decompressed first), split order.
        notes: Warnings to give (one per missing field or recovery step).
        recovering: Why the recording looks unclosed (no / a cut ``metadata.yaml``), or None.
        custom: ``custom_data`` of the metadata (direct reads only).
        distro: ``ros_distro`` of the metadata (direct reads only).
        message_compression: The messages themselves are zstd-compressed (``compression_mode:
            message``); None: unknown (detected per message by the zstd frame magic).
    """

    __slots__ = ("custom", "direct", "distro", "files", "message_compression", "notes", "recovering")

    def __init__(
        self,
        direct: bool,
        files: list[Path] | None = None,
        notes: list[str] | None = None,
        recovering: str | None = None,
        custom: dict[str, str] | None = None,
        distro: str | None = None,
        message_compression: bool | None = False,
    ) -> None:
        self.direct = direct
        self.files: list[Path] = [] if files is None else files
        self.notes: list[str] = [] if notes is None else notes
        self.recovering = recovering
        self.custom: dict[str, str] = {} if custom is None else custom
        self.distro = distro
        self.message_compression = message_compression


def _load(meta: Path) -> tuple[Any, str | None]:
    """(document, problem): the YAML document, or why it cannot be used."""
    try:
        text = meta.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot be read ({exc})"
    if not text.strip():
        return None, "is empty"
    try:
        doc = metadata_yaml.load(text)  # as recorders write it: no YAML library needed
    except metadata_yaml.NotPlainYaml:
        return _load_yaml(text)
    if not isinstance(doc, dict) or not isinstance(doc.get("rosbag2_bagfile_information"), dict):
        return None, "has no 'rosbag2_bagfile_information' mapping"
    return doc["rosbag2_bagfile_information"], None


def _load_yaml(text: str) -> tuple[Any, str | None]:
    """:func:`_load` of any YAML text, with PyYAML."""
    import yaml

    from ....core.serial.nesting import long_integer
    from ....core.serial.yaml import YamlError, check_expansion

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        return None, f"is not valid YAML{where} (cut short?)"
    except ValueError:  # PyYAML's int() of more digits than Python converts
        line, reason = long_integer(text)
        return None, f"is not usable: {reason} (line {line})"
    try:
        check_expansion(doc, text)
    except YamlError as exc:
        return None, f"is not usable: {exc.reason} (line {exc.line})"
    if not isinstance(doc, dict) or not isinstance(doc.get("rosbag2_bagfile_information"), dict):
        return None, "has no 'rosbag2_bagfile_information' mapping"
    return doc["rosbag2_bagfile_information"], None


def _present(info: dict[str, Any], key: str) -> bool:
    value = info.get(key)
    return value is not None and value != ""


def _topic_problems(info: dict[str, Any]) -> list[str]:
    """Per-topic fields rosbags needs (name, type, serialization_format, message_count) that are missing."""
    topics = info.get("topics_with_message_count")
    if not isinstance(topics, list):
        return []
    missing: dict[str, None] = {}
    for entry in topics:
        if not isinstance(entry, dict):
            continue
        meta = entry.get("topic_metadata")
        if meta is None:  # the pre-release layout has 'topic_and_type' (name, type) instead
            missing["topics_with_message_count[].topic_metadata"] = None
        elif isinstance(meta, dict):
            for field in ("name", "type", "serialization_format"):
                if not _present(meta, field):
                    missing[f"topics_with_message_count[].topic_metadata.{field}"] = None
        if "message_count" not in entry:
            missing["topics_with_message_count[].message_count"] = None
    return list(missing)


def plan_folder(folder: Path) -> FolderPlan:
    """Decide how to read ``folder`` (see the module docstring).

    Raises:
        ReadError: Nothing readable: no storage file where the metadata names none.
    """
    meta = folder / "metadata.yaml"
    on_disk = storage_files(folder)
    if not meta.is_file():
        if not on_disk:
            raise ReadError(folder, "not a rosbag2 folder (no metadata.yaml, no .db3 / .mcap files)")
        return FolderPlan(
            direct=True,
            files=on_disk,
            recovering="no metadata.yaml (the recording was not closed)",
            message_compression=None,
        )
    info, problem = _load(meta)
    if problem is not None:
        if not on_disk:
            raise ReadError(meta, f"metadata.yaml {problem}, and the folder holds no .db3 / .mcap file")
        return FolderPlan(
            direct=True,
            files=on_disk,
            recovering=f"metadata.yaml {problem} (the recording was not closed)",
            message_compression=None,
        )
    assert isinstance(info, dict)
    return _plan_with_metadata(folder, meta, info, on_disk)


def _plan_with_metadata(folder: Path, meta: Path, info: dict[str, Any], on_disk: list[Path]) -> FolderPlan:
    notes: list[str] = []
    version = info.get("version")
    if "version" not in info:
        layout = "the pre-release rosbag2 layout" if _looks_prerelease(info) else "no version"
        notes.append(f"{meta}: no 'version' ({layout}); read as version 1 from the storage files")
        version = 1
        direct = True
    elif not isinstance(version, int) or isinstance(version, bool):
        return FolderPlan(direct=False)  # rosbags reports the mistyped field
    else:
        direct = version > NEWEST_VERSION
        if direct:
            notes.append(f"{meta}: metadata version {version} is newer than {NEWEST_VERSION}; read the storage files")

    # Missing fields: those rosbags needs send the read to the storage files themselves.
    missing = [
        key
        for key, since in _FIELDS_SINCE.items()
        if version >= since and key not in info and not (key == "starting_time" and "time_start" in info)
    ]
    missing += _topic_problems(info)
    if "time_start" in info or any(key not in _OPTIONAL for key in missing):
        direct = True

    # Storage: the named plugin, else detected from the files.
    storage_id = info.get("storage_identifier")
    if storage_id is None or storage_id == "":
        direct = True
        state = "missing" if storage_id is None else "empty"
        kinds = sorted({kind for p in on_disk if (kind := storage_kind(p))})
        if len(kinds) != 1:
            what = f"files of several storages ({', '.join(kinds)})" if kinds else "no storage file (.db3, .mcap)"
            raise ReadError(meta, f"'storage_identifier' is {state} and the folder holds {what} to detect it from")
        notes.append(f"{meta}: 'storage_identifier' is {state}; the files are {kinds[0]} storage (detected)")
        if "storage_identifier" in missing:
            missing.remove("storage_identifier")

    # Files: the listed ones (or their compressed / uncompressed counterpart), else the folder's.
    found = _listed_files(folder, meta, info, on_disk, notes, missing)
    if found is None:
        return FolderPlan(direct=False)  # rosbags reports the mistyped field
    files, moved = found
    direct = direct or moved

    if missing:
        used = sorted({_DEFAULTS.get(key.split("[", 1)[0], "the storage files' own") for key in missing})
        notes.append(
            f"{meta}: no {', '.join(repr(k) for k in missing)} (metadata version {version}); using {'; '.join(used)}"
        )

    mode = str(info.get("compression_mode") or "").lower()
    fmt = str(info.get("compression_format") or "")
    if mode not in ("", "none", "file", "message"):
        return FolderPlan(direct=False)  # rosbags reports the unknown mode
    if mode == "message" and fmt not in ("", "zstd"):
        raise ReadError(meta, f"'compression_format' {fmt!r} is not supported (only zstd)")
    if mode == "message" and not fmt:
        notes.append(f"{meta}: 'compression_mode' is message but 'compression_format' is empty; assuming zstd")
        direct = True
    if mode in ("file", "message"):
        # Compressed files and messages are decompressed here, bounded (rosbags would
        # decompress files, and plain files too, into a temporary folder, and each message
        # whole, without any limit).
        direct = True

    if not direct:
        return FolderPlan(direct=False, notes=notes)
    custom = info.get("custom_data")
    distro = info.get("ros_distro")
    return FolderPlan(
        direct=True,
        files=files,
        notes=notes,
        custom={str(k): str(v) for k, v in custom.items()} if isinstance(custom, dict) else {},
        distro=distro if isinstance(distro, str) and distro else None,
        message_compression=mode == "message",
    )


def _listed_files(
    folder: Path, meta: Path, info: dict[str, Any], on_disk: list[Path], notes: list[str], missing: list[str]
) -> tuple[list[Path], bool] | None:
    """The storage files to read, and whether they must be read directly; None: a mistyped list."""
    listed = info.get("relative_file_paths")
    files: list[Path] = []
    direct = False
    if isinstance(listed, list) and listed and all(isinstance(x, str) for x in listed):
        for name in listed:
            p = folder / PurePath(name).name
            if _is_file(p):
                files.append(p)
                continue
            twin = _counterpart(p)
            if twin is None:
                raise ReadError(meta, f"'relative_file_paths' names {p.name}, which is not in {folder}")
            notes.append(f"{meta}: lists {p.name}, which is missing; read {twin.name} instead")
            files.append(twin)
            direct = True
        extra = [p for p in on_disk if p not in files and _counterpart(p) not in files]
        if extra:
            notes.append(
                f"{meta}: lists {len(files)} storage files, the folder holds {len(extra)} more "
                f"({', '.join(p.name for p in extra)}); read them all"
            )
            files = sorted(files + extra, key=_split_index)
            direct = True
    elif listed is None or listed == []:
        if not on_disk:
            state = "missing" if listed is None else "empty"
            raise ReadError(meta, f"'relative_file_paths' is {state} and the folder holds no .db3 / .mcap file")
        if listed == []:
            missing.append("relative_file_paths")
        files = on_disk
        direct = True
    else:
        return None
    return files, direct


def _counterpart(p: Path) -> Path | None:
    """``x.mcap`` for ``x.mcap.zstd`` and the other way round, when it exists."""
    twin = p.with_name(p.name[:-5]) if p.name.endswith(COMPRESSED_SUFFIX) else p.with_name(p.name + COMPRESSED_SUFFIX)
    return twin if _is_file(twin) else None


def _is_file(p: Path) -> bool:
    """Whether ``p`` is a file; a name the metadata makes up that no file system takes is not one."""
    try:
        return p.is_file()
    except OSError:  # e.g. ENAMETOOLONG: Path.is_file raises it before Python 3.12
        return False


def _looks_prerelease(info: dict[str, Any]) -> bool:
    if "encoding" in info or "time_start" in info or "combined_bag_size" in info:
        return True
    topics = info.get("topics_with_message_count")
    return isinstance(topics, list) and any(isinstance(t, dict) and "topic_and_type" in t for t in topics)
