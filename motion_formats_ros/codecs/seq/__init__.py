"""Choreonoid Standard Body Motion (``.seq``, also ``.yaml``): format versions 1 to 4.

A body motion is a YAML mapping (``type: CompositeSeq``, ``content: BodyMotion``; v1:
``type: BodyMotion``) whose ``components`` hold one trajectory each (spec:
../shared/specs/000_*.txt, decisions: ../shared/specs/README.md):

- ``MultiValueSeq`` ``JointDisplacement`` (v1 ``JointPosition``, v3
  ``MultiJointDisplacementSeq``): joint values in joint-ID order → ``position``;
  ``JointVelocity`` / ``JointEffort`` → ``velocity`` / ``effort``;
- ``MultiSE3Seq`` ``LinkPosition`` (v3 ``MultiLinkPositionSeq``): part 0 is the root
  pose, further parts are links in link-index order (``SE3Format``, v1 ``format``);
- ``Vector3Seq`` ``ZMP`` (v3 ``ZMPSeq``, v1 ``RelativeZMP``): ``series["zmp"]`` in frame
  ``"root"`` when ``isRootRelative``, else ``"world"``.

Keys are read in both spellings (``frameRate`` / ``frame_rate`` …); components inherit
keys from the top node; ``hasFrameTime`` rows start with their time (kept as the motion's
times). Components the model has no slot for are kept in ``Motion.extras`` and written
back. Joint names come from the ``joint_names`` / ``joint_map`` options, else a
Choreonoid ``.body`` file (``body``), else ``joint_0 …``.

Reading takes the fast path (:mod:`.fast`: frame rows parsed with numpy, only the
small skeleton goes to PyYAML) and falls back to a full safe YAML parse whenever anything
is unusual; errors always come from the YAML path, so they carry the same line numbers.
Writing emits Choreonoid's own layout (block nodes, one flow row per frame, ``%.9g``
values or ``repr`` with ``lossless=True``), format version 2 by default or 4.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core import _yaml, timing
from ...core._flowrows import Rows, to_number
from ...core._nesting import too_deep_reason, yaml_too_deep
from ...core._yaml import SafeLoader, error_line
from ...core.atomic import check_writable, write_bytes_atomic
from ...core.errors import ReadError, WriteError
from ...core.model import DEFAULT_GROUP, Motion, MotionFile, Series
from ...core.naming import Names, load_body, load_joint_map, resolve_names
from ...core.spatial import DEFAULT_SE3_FORMAT, SE3_FORMATS, pose_to_se3, se3_to_pose
from .fast import extract

#: Format versions this codec reads, and the ones it writes.
READ_VERSIONS = (1, 2, 3, 4)
WRITE_VERSIONS = (2, 4)
DEFAULT_VERSION = 2

#: camelCase key → snake_case key (format version 4 writes the latter).
KEYS = {
    "formatVersion": "format_version",
    "frameRate": "frame_rate",
    "numFrames": "num_frames",
    "numParts": "num_parts",
    "hasFrameTime": "has_frame_time",
    "isRootRelative": "is_root_relative",
    "partLabels": "part_labels",
}
_SNAKE = {v: k for k, v in KEYS.items()}

#: MultiValueSeq contents → joint channel.
JOINT_CONTENTS = {
    "JointDisplacement": "position",
    "JointPosition": "position",
    "MultiJointDisplacementSeq": "position",
    "JointVelocity": "velocity",
    "JointEffort": "effort",
}
#: Joint channel → content written.
JOINT_CONTENT_FOR = {"position": "JointDisplacement", "velocity": "JointVelocity", "effort": "JointEffort"}
LINK_CONTENTS = ("LinkPosition", "MultiLinkPositionSeq")
ZMP_CONTENTS = ("ZMP", "ZMPSeq", "RelativeZMP")
TYPES = ("MultiValueSeq", "MultiSE3Seq", "Vector3Seq")

_TOP_KEYS = {"type", "content", "formatVersion", "frameRate", "numFrames", "hasFrameTime", "components"}
_COMPONENT_KEYS = {
    "type",
    "content",
    "purpose",
    "frameRate",
    "numFrames",
    "numParts",
    "hasFrameTime",
    "SE3Format",
    "format",
    "isRootRelative",
    "frames",
}
_MAX_DEPTH = 64
#: Most parts (joints, links) a component may declare: numParts alone is not backed by data.
MAX_PARTS = 100_000
_SAFE_TAGS = frozenset(
    tag
    for tag in yaml.constructor.SafeConstructor.yaml_constructors
    if tag is not None and tag.startswith("tag:yaml.org,2002:") and not tag.endswith(("set", "omap", "pairs"))
)
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
_NUMERIC_TAGS = frozenset({"tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})

_SNIFF_BLOCK = re.compile(r"^type:[ \t]*['\"]?(?:CompositeSeq|BodyMotion)['\"]?[ \t]*(?:#.*)?$", re.MULTILINE)
_SNIFF_FLOW = re.compile(r"['\"]?type['\"]?[ \t]*:[ \t]*['\"]?(?:CompositeSeq|BodyMotion)\b")


class _DeclineError(Exception):
    """The fast path's data does not fit what a component needs: parse with YAML instead."""


# --------------------------------------------------------------------------- sniffing
def sniff(path: Path, head: str) -> bool:
    """True when ``head`` has a top-level ``type: CompositeSeq`` or ``type: BodyMotion``."""
    if _SNIFF_BLOCK.search(head):
        return True
    return head.lstrip().startswith("{") and _SNIFF_FLOW.search(head) is not None


# --------------------------------------------------------------------------- YAML tree
class YMap(dict[Any, Any]):
    """A YAML mapping with the 1-based lines of the node and of each key."""

    line: int | None = None
    key_lines: dict[Any, int]

    def __init__(self, line: int | None = None) -> None:
        super().__init__()
        self.line = line
        self.key_lines = {}


class YSeq(list[Any]):
    """A YAML sequence with the 1-based lines of the node and of each item."""

    line: int | None = None
    item_lines: list[int]

    def __init__(self, line: int | None = None) -> None:
        super().__init__()
        self.line = line
        self.item_lines = []


def load_yaml(text: str, path: str | os.PathLike[str], placeholders: Mapping[str, Rows] | None = None) -> Any:
    """``text`` as a tree of :class:`YMap` / :class:`YSeq` / scalars, with lines.

    Only safe YAML: tags outside the YAML core schema are errors, aliases may not expand
    to more nodes than the text has characters (alias bombs) and may not be recursive.
    Plain scalars that are numbers by :func:`motion_formats_ros.core._flowrows.to_number` become floats (so
    ``1e-08`` is a number, as Choreonoid reads it).
    """
    deep = yaml_too_deep(text)
    if deep is not None:
        raise ReadError(path, f"invalid YAML: {too_deep_reason()}", line=deep)
    loader = SafeLoader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or str(exc)
            raise ReadError(path, f"invalid YAML: {problem}", line=error_line(exc, text)) from None
        if node is None:
            raise ReadError(path, "empty file: expected a body motion mapping", line=1)
        if "&" in text or "*" in text:
            _check_aliases(node, len(text) + 16, path)
        return _Builder(loader, path, placeholders or {}).build(node, 0)
    finally:
        loader.dispose()


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_aliases(root: Node, limit: int, path: str | os.PathLike[str]) -> None:
    """Fail on recursive aliases and on aliases that expand to more than ``limit`` nodes."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            size = 1 + sum(sizes[id(c)] for c in _children(node))
            if size > limit:
                raise ReadError(
                    path,
                    f"aliases expand to more than {limit} nodes (an alias bomb?)",
                    line=node.start_mark.line + 1,
                )
            sizes[key] = size
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise ReadError(path, "recursive alias (a node that contains itself)", line=node.start_mark.line + 1)
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node))


class _Builder:
    def __init__(self, loader: Any, path: str | os.PathLike[str], placeholders: Mapping[str, Rows]) -> None:
        self.loader = loader
        self.path = path
        self.placeholders = placeholders
        self.memo: dict[int, Any] = {}

    def fail(self, node: Node, reason: str) -> ReadError:
        return ReadError(self.path, reason, line=node.start_mark.line + 1)

    def build(self, node: Node, depth: int) -> Any:
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        if depth > _MAX_DEPTH:
            raise self.fail(node, f"nested deeper than {_MAX_DEPTH} levels")
        tag = node.tag
        line = node.start_mark.line + 1
        if isinstance(node, ScalarNode):
            if tag not in _SAFE_TAGS:
                raise self.fail(node, f"YAML tag {tag!r} is not allowed (only plain data)")
            text = node.value
            if not node.style and tag in _NUMERIC_TAGS:
                if text in self.placeholders:
                    return self.placeholders[text]
                number = to_number(text)
                if number is not None:
                    return number
            try:
                value = self.loader.construct_object(node, deep=True)
            except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
                # PyYAML's constructors raise plain ValueError for e.g. ``!!float word``.
                problem = getattr(exc, "problem", None) or str(exc)
                raise self.fail(node, f"invalid value: {problem}") from None
            self.memo[key] = value
            return value
        if isinstance(node, SequenceNode):
            if tag != _SEQ_TAG:
                raise self.fail(node, f"YAML tag {tag!r} is not allowed (only plain data)")
            seq = YSeq(line)
            self.memo[key] = seq
            seq.item_lines = [item.start_mark.line + 1 for item in node.value]
            seq.extend([self.build(item, depth + 1) for item in node.value])
            return seq
        if isinstance(node, MappingNode):
            if tag != _MAP_TAG:
                raise self.fail(node, f"YAML tag {tag!r} is not allowed (only plain data)")
            mapping = YMap(line)
            self.memo[key] = mapping
            for key_node, value_node in node.value:
                k = self.build(key_node, depth + 1)
                if isinstance(k, (list, dict, Rows)):
                    raise self.fail(key_node, "a mapping key must be a scalar")
                if k in mapping:
                    raise self.fail(key_node, f"duplicate key {k!r}")
                mapping.key_lines[k] = key_node.start_mark.line + 1
                mapping[k] = self.build(value_node, depth + 1)
            return mapping
        raise self.fail(node, "unexpected YAML node")  # pragma: no cover - the composer makes only these


# --------------------------------------------------------------------------- plain data
def plain(value: Any) -> Any:
    """A YAML tree as plain dicts, lists and scalars; regular numeric rows as float arrays."""
    if isinstance(value, Rows):
        arr = value.array()
        if arr is None:
            raise _DeclineError
        return arr
    if isinstance(value, YMap):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, YSeq):
        arr = _rows_array(value)
        if arr is not None:
            return arr
        return [plain(v) for v in value]
    return value


def _rows_array(seq: list[Any]) -> np.ndarray | None:
    """(N, w) or (N, k, w) floats when ``seq`` is that regular (what the fast path gives)."""
    if not seq or not all(isinstance(r, list) and r for r in seq):
        return None
    first = seq[0]
    if all(type(v) is float for v in first):
        width = len(first)
        if all(len(r) == width and all(type(v) is float for v in r) for r in seq):
            return np.array(seq, dtype=np.float64)
        return None
    if all(isinstance(g, list) and g for g in first):
        shape = (len(first), len(first[0]))
        for r in seq:
            if len(r) != shape[0]:
                return None
            for g in r:
                if not isinstance(g, list) or len(g) != shape[1] or not all(type(v) is float for v in g):
                    return None
        return np.array(seq, dtype=np.float64)
    return None


# --------------------------------------------------------------------------- reading
def read(
    path: Path,
    *,
    joint_names: Sequence[str] | str | None = None,
    joint_map: str | os.PathLike[str] | Mapping[Any, Any] | Sequence[str] | None = None,
    body: str | os.PathLike[str] | None = None,
    **_: Any,
) -> MotionFile:
    """Read a body motion file.

    Args:
        path: The ``.seq`` / ``.yaml`` file.
        joint_names: Joint names in joint-ID order (a list or ``"a,b,c"``).
        joint_map: A joint map: a YAML file or data (see :func:`load_joint_map`).
        body: A Choreonoid ``.body`` file for joint and link names.

    Raises:
        ReadError: The file is not a body motion or is malformed (with its line).
    """
    names = resolve_names(path, joint_names=joint_names, joint_map=joint_map, body=body)
    extracted = extract(_read_bytes(path))  # the text is freed before the motion is built
    if extracted is not None:
        result = _from_skeleton(extracted, path, names)
        if result is not None:
            return result
    return decode(_read_bytes(path), path, names=names, fast=False)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ReadError(path, exc.strerror or str(exc)) from exc


def _text(data: bytes | str, path: str | os.PathLike[str]) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReadError(path, "not valid UTF-8 text", offset=exc.start, line=line) from None


def decode(
    data: bytes | str, path: str | os.PathLike[str] = "<text>", *, names: Names | None = None, fast: bool = True
) -> MotionFile:
    """Parse a body motion: the fast path, else (or with ``fast=False``) the YAML path."""
    names = names or Names()
    if fast:
        result = decode_fast(data, path, names=names)
        if result is not None:
            return result
    doc = load_yaml(_text(data, path), path)
    try:
        return _Reader(path, names).file(doc)
    except _DeclineError:  # pragma: no cover - YAML trees never decline
        raise ReadError(path, "internal error: unexpected frame layout") from None


def decode_fast(
    data: bytes | str, path: str | os.PathLike[str] = "<text>", *, names: Names | None = None
) -> MotionFile | None:
    """The fast path alone: the file, or None when it declines (unusual or bad input)."""
    extracted = extract(data)
    return None if extracted is None else _from_skeleton(extracted, path, names)


def _from_skeleton(
    extracted: tuple[str, dict[str, Rows]], path: str | os.PathLike[str], names: Names | None
) -> MotionFile | None:
    skeleton, rows = extracted
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            doc = load_yaml(skeleton, path, rows)
            result = _Reader(path, names or Names()).file(doc)
    except (ReadError, _DeclineError):
        return None  # the YAML path decides, with its line numbers
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result


class _Component:
    """One parsed component: its kind, times and values."""

    def __init__(self, index: int, kind: str, channel: str, times: np.ndarray, values: np.ndarray, line: int) -> None:
        self.index = index
        self.kind = kind  # "joint", "link" or "zmp"
        self.channel = channel
        self.times = times
        self.values = values
        self.line = line
        self.uniform_rate: float | None = None
        self.declared_rate: float | None = None
        self.has_time = False
        self.se3_format = DEFAULT_SE3_FORMAT
        self.root_relative = False
        self.labels: list[str] | None = None
        self.other_keys: dict[str, Any] = {}
        self.source: YMap = YMap()


class _Reader:
    def __init__(self, path: str | os.PathLike[str], names: Names) -> None:
        self.path = path
        self.names = names

    def fail(self, reason: str, line: int | None) -> ReadError:
        return ReadError(self.path, reason, line=line)

    # ------------------------------------------------------------------ keys
    def lookup(self, maps: Sequence[YMap], key: str) -> tuple[Any, int | None] | None:
        """(value, line) of ``key`` in either spelling, in the first of ``maps`` that has it."""
        snake = KEYS.get(key)
        for m in maps:
            for k in (key, snake):
                if k is not None and k in m:
                    return m[k], m.key_lines.get(k, m.line)
        return None

    def number(self, maps: Sequence[YMap], key: str) -> tuple[float, int | None] | None:
        found = self.lookup(maps, key)
        if found is None or found[0] is None:
            return None
        value, line = found
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"{key}: expected a number, got {value!r}", line)
        return float(value), line

    def integer(self, maps: Sequence[YMap], key: str) -> tuple[int, int | None] | None:
        found = self.number(maps, key)
        if found is None:
            return None
        value, line = found
        if not math.isfinite(value) or value != int(value) or value < 0:
            raise self.fail(f"{key}: expected a non-negative integer, got {value!r}", line)
        return int(value), line

    def flag(self, maps: Sequence[YMap], key: str) -> bool:
        found = self.lookup(maps, key)
        if found is None or found[0] is None:
            return False
        value, line = found
        if not isinstance(value, bool):
            raise self.fail(f"{key}: expected true or false, got {value!r}", line)
        return value

    def text(self, maps: Sequence[YMap], key: str) -> tuple[str, int | None] | None:
        found = self.lookup(maps, key)
        if found is None:
            return None
        value, line = found
        if not isinstance(value, str):
            raise self.fail(f"{key}: expected a name, got {value!r}", line)
        return value, line

    # ------------------------------------------------------------------ document
    def file(self, doc: Any) -> MotionFile:
        if not isinstance(doc, YMap):
            line = doc.line if isinstance(doc, YSeq) else 1
            raise self.fail(f"expected a body motion mapping at the top level, got {_kind(doc)}", line)
        found = self.lookup([doc], "formatVersion")
        version = 1.0
        if found is not None:
            value, line = found
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise self.fail(f"formatVersion: expected a number, got {value!r}", line)
            if value >= 5:
                raise self.fail(f"format version {value:g} is not supported (versions 1 to 4 are)", line)
            if value < 1:
                raise self.fail(f"formatVersion: expected 1 to 4, got {value:g}", line)
            version = float(value)
        typ = self.text([doc], "type")
        if typ is None:
            raise self.fail("no 'type' key: not a Choreonoid body motion (type: CompositeSeq)", doc.line)
        if typ[0] == "CompositeSeq":
            content = self.text([doc], "content")
            if content is not None and content[0] != "BodyMotion":
                raise self.fail(f"unknown content {content[0]!r} (expected BodyMotion)", content[1])
        elif typ[0] != "BodyMotion":
            raise self.fail(f"unknown type {typ[0]!r} (expected CompositeSeq or BodyMotion)", typ[1])
        components = doc.get("components")
        comp_line = doc.key_lines.get("components", doc.line)
        if components is None:
            components = YSeq(comp_line)
        if not isinstance(components, YSeq):
            raise self.fail(f"components: expected a list, got {_kind(components)}", comp_line)

        parsed: list[_Component] = []
        unknown: list[tuple[int, dict[str, Any]]] = []
        for i, comp in enumerate(components):
            line = components.item_lines[i]
            if not isinstance(comp, YMap):
                raise self.fail(f"component {i + 1}: expected a mapping, got {_kind(comp)}", line)
            c = self.component(i, comp, doc)
            if c is None:
                unknown.append((i, plain(comp)))
            else:
                parsed.append(c)
        top_extra = {str(k): plain(v) for k, v in doc.items() if _camel(k) not in _TOP_KEYS}
        motion = self.combine(parsed, unknown, doc, version)
        extras: dict[str, Any] = {"seq_top": top_extra} if top_extra else {}
        return MotionFile.single(motion, robot=self.names.robot, extras=extras)

    def component(self, index: int, comp: YMap, top: YMap) -> _Component | None:
        maps = [comp, top]
        typ = self.text([comp], "type")
        if typ is None:
            raise self.fail(f"component {index + 1}: no 'type' key", comp.line)
        if typ[0] not in TYPES:
            raise self.fail(f"component {index + 1}: unknown type {typ[0]!r} (known: {', '.join(TYPES)})", typ[1])
        content = self.text([comp], "content") or self.text([comp], "purpose")
        name = content[0] if content is not None else ""
        if typ[0] == "MultiValueSeq" and name in JOINT_CONTENTS:
            kind, channel = "joint", JOINT_CONTENTS[name]
        elif typ[0] == "MultiSE3Seq" and name in LINK_CONTENTS:
            kind, channel = "link", "link"
        elif typ[0] == "Vector3Seq" and name in ZMP_CONTENTS:
            kind, channel = "zmp", "zmp"
        else:
            return None

        has_time = self.flag(maps, "hasFrameTime")
        rate = self.number(maps, "frameRate")
        if rate is not None and not (rate[0] > 0 and math.isfinite(rate[0])):
            raise self.fail(f"frameRate must be positive and finite, got {rate[0]:g}", rate[1])
        if rate is None and not has_time:
            raise self.fail(f"component {index + 1} ({name}): no frameRate (here or in the top node)", comp.line)
        fmt = DEFAULT_SE3_FORMAT
        if kind == "link":
            found = self.text(maps, "SE3Format") or self.text(maps, "format")
            if found is not None:
                if found[0] not in SE3_FORMATS:
                    raise self.fail(f"unknown SE3Format {found[0]!r} (known: {', '.join(SE3_FORMATS)})", found[1])
                fmt = found[0]
        parts_found = self.integer([comp], "numParts") if kind != "zmp" else None
        frames = self.frames(comp)
        offset = 1 if has_time else 0
        if kind == "zmp":
            layout: tuple[int, int | None] = (3, None)
        else:
            if parts_found is None:
                parts_found = self.integer([top], "numParts")
            if parts_found is None:
                parts_found = (self.guess_parts(frames, offset), None)
            if parts_found[0] > MAX_PARTS:
                raise self.fail(
                    f"numParts {parts_found[0]} is more than this reader allows ({MAX_PARTS})", parts_found[1]
                )
            layout = (parts_found[0], None) if kind == "joint" else (parts_found[0], SE3_FORMATS[fmt])
        values, times = self.rows(frames, layout, offset, name or typ[0])
        n = values.shape[0]
        c = _Component(index, kind, channel, times if has_time else np.zeros(0), values, comp.line or 1)
        c.source = comp
        c.has_time = has_time
        c.se3_format = fmt
        if rate is not None:
            c.declared_rate = rate[0]
        if not has_time:
            assert rate is not None
            c.uniform_rate = rate[0]
            c.times = np.arange(n, dtype=np.float64) / rate[0]
        else:
            self.check_times(c.times, frames, name)
        declared = self.integer(maps, "numFrames")
        if declared is not None and declared[0] != n:
            warnings.warn(
                f"{self.path}:{declared[1]}: component {index + 1} ({name}) says numFrames {declared[0]} "
                f"but lists {n} frames (using {n})",
                stacklevel=2,
            )
        c.root_relative = name == "RelativeZMP" or self.flag([comp], "isRootRelative")
        labels = self.lookup([comp], "partLabels")
        if labels is not None and isinstance(labels[0], list) and all(isinstance(s, str) for s in labels[0]):
            c.labels = [str(s) for s in labels[0]]
        c.other_keys = {str(k): plain(v) for k, v in comp.items() if _camel(k) not in _COMPONENT_KEYS}
        return c

    def frames(self, comp: YMap) -> YSeq | Rows:
        if "frames" not in comp:
            raise self.fail("component has no 'frames' key", comp.line)
        frames = comp["frames"]
        line = comp.key_lines.get("frames", comp.line)
        if frames is None:
            return YSeq(line)
        if not isinstance(frames, (YSeq, Rows)):
            raise self.fail(f"frames: expected a list of frames, got {_kind(frames)}", line)
        if isinstance(frames, YSeq):
            for i, row in enumerate(frames):
                self.check_numbers(row, frames.item_lines[i], i)
        return frames

    def check_numbers(self, row: Any, line: int, index: int, depth: int = 0) -> None:
        """Every scalar in a frame row is a number (bounded by the alias check)."""
        if isinstance(row, list):
            if depth > 2:
                raise self.fail(f"frame {index}: nested too deeply", line)
            for v in row:
                self.check_numbers(v, line, index, depth + 1)
        elif type(row) is not float:
            raise self.fail(f"frame {index}: expected a number, got {_kind(row)} {row!r}", line)

    def guess_parts(self, frames: YSeq | Rows, offset: int) -> int:
        """numParts from the first row when the file does not say."""
        if isinstance(frames, Rows):
            inner = frames.layout[1:-1]
            if "[" in inner:
                return inner.count("[")
            return max(inner.count(",") + 1 - offset, 0)
        if not frames:
            return 0
        first = frames[0]
        return max(len(first) - offset, 0) if isinstance(first, list) else 0

    def rows(
        self, frames: YSeq | Rows, layout: tuple[int, int | None], offset: int, what: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """(values (N, parts) or (N, parts, width), times (N,)) of a component's frames."""
        parts, width = layout
        if isinstance(frames, Rows):
            if width is None:
                expected = "[" + "," * (parts + offset - 1) + "]"
            else:
                group = "[" + "," * (width - 1) + "]"
                expected = "[" + ("," if offset else "") + ",".join([group] * parts) + "]"
            if frames.layout != expected or parts == 0:
                raise _DeclineError
            v = frames.values
            times = v[:, 0].copy() if offset else np.zeros(0)
            data = v[:, offset:]
            values = data.reshape(len(frames), parts, width) if width else np.ascontiguousarray(data)
            return values, times
        n = len(frames)
        shape = (n, parts, width) if width else (n, parts)
        need = parts + offset

        def check(i: int, row: Any) -> None:
            line = frames.item_lines[i]
            if not isinstance(row, list):
                raise self.fail(f"{what} frame {i}: expected a list, got {_kind(row)}", line)
            if len(row) != need:
                extra = " (the frame time and" if offset else " ("
                unit = "parts" if width else "values"
                raise self.fail(
                    f"{what} frame {i} has {len(row)} elements, expected {need}{extra} numParts {parts} {unit})", line
                )

        if n:
            check(0, frames[0])  # before allocating: numParts alone is not backed by data
        values = np.empty(shape, dtype=np.float64)
        times = np.empty(n if offset else 0, dtype=np.float64)
        for i, row in enumerate(frames):
            line = frames.item_lines[i]
            check(i, row)
            if offset:
                if isinstance(row[0], list):
                    raise self.fail(f"{what} frame {i}: expected the frame time first, got a list", line)
                times[i] = row[0]
            if width:
                for j in range(parts):
                    g = row[offset + j]
                    if not isinstance(g, list) or len(g) != width:
                        got = f"{len(g)} values" if isinstance(g, list) else _kind(g)
                        raise self.fail(
                            f"{what} frame {i} part {j}: expected a list of {width} values, got {got}", line
                        )
                    if any(isinstance(v, list) for v in g):
                        raise self.fail(f"{what} frame {i} part {j}: expected numbers, got a nested list", line)
                    values[i, j] = g
            else:
                items = row[offset:]
                if any(isinstance(v, list) for v in items):
                    raise self.fail(f"{what} frame {i}: expected numbers, got a nested list", line)
                values[i] = items
        return values, times

    def check_times(self, times: np.ndarray, frames: YSeq | Rows, what: str) -> None:
        if times.size < 2 and np.all(np.isfinite(times)):
            return
        bad = np.flatnonzero(~np.isfinite(times))
        if bad.size:
            i = int(bad[0])
            raise self.fail(f"{what} frame {i}: frame time {times[i]!r} is not finite", self.row_line(frames, i))
        bad = np.flatnonzero(np.diff(times) <= 0)
        if bad.size:
            i = int(bad[0]) + 1
            raise self.fail(
                f"{what} frame {i}: frame time {times[i]!r} does not increase (previous {times[i - 1]!r})",
                self.row_line(frames, i),
            )

    def row_line(self, frames: YSeq | Rows, i: int) -> int | None:
        if isinstance(frames, Rows):
            return frames.line + i
        return frames.item_lines[i] if i < len(frames.item_lines) else frames.line

    # ------------------------------------------------------------------ motion
    def combine(
        self, parsed: list[_Component], unknown: list[tuple[int, dict[str, Any]]], top: YMap, version: float
    ) -> Motion:
        chosen: dict[str, _Component] = {}
        for c in parsed:
            if c.channel in chosen:
                warnings.warn(f"{self.path}: a second {c.channel} component is kept as an extra", stacklevel=3)
                unknown.append((c.index, plain(c.source)))
                continue
            chosen[c.channel] = c
        joints = [c for c in chosen.values() if c.kind == "joint"]
        if joints:
            ref_joint = chosen.get("position") or joints[0]
            for c in joints:
                if c.values.shape[1] != ref_joint.values.shape[1]:
                    warnings.warn(
                        f"{self.path}: {c.channel} has {c.values.shape[1]} joints, "
                        f"{ref_joint.channel} {ref_joint.values.shape[1]}: kept as an extra",
                        stacklevel=3,
                    )
                    unknown.append((c.index, plain(chosen.pop(c.channel).source)))
        # Zero-frame components beside non-empty ones are kept as they are.
        if any(len(c.times) for c in chosen.values()):
            for ch in [k for k, c in chosen.items() if len(c.times) == 0]:
                c = chosen.pop(ch)
                unknown.append((c.index, plain(c.source)))
        order = ["position", "link", "velocity", "effort", "zmp"]
        comps = [chosen[k] for k in order if k in chosen]
        extras: dict[str, Any] = {"seq_format_version": int(version) if version == int(version) else version}
        if unknown:
            extras["seq_components"] = [u for _, u in sorted(unknown, key=lambda u: u[0])]
        if not comps:
            top_rate = self.number([top], "frameRate")
            if top_rate is not None and not (top_rate[0] > 0 and math.isfinite(top_rate[0])):
                raise self.fail(f"frameRate must be positive and finite, got {top_rate[0]:g}", top_rate[1])
            empty_rate = top_rate[0] if top_rate is not None else None
            return Motion(times=np.zeros(0), rate=empty_rate, extras=extras)
        ref = max(comps, key=lambda c: len(c.times))
        times = ref.times
        resampled = [c for c in comps if c is not ref and not np.array_equal(c.times, times)]
        if resampled:
            what = ", ".join(f"{c.channel} ({len(c.times)} frames)" for c in resampled)
            warnings.warn(
                f"{self.path}: {what} not on the time base of {ref.channel} ({len(times)} frames): "
                "interpolated onto it",
                stacklevel=3,
            )
        fields: dict[str, Any] = {}
        rate: float | None = ref.uniform_rate
        if ref.has_time:
            extras["seq_has_frame_time"] = True
            if ref.declared_rate is not None:
                extras["seq_frame_rate"] = ref.declared_rate
        dof = 0
        for c in comps:
            where = timing.locate(c.times, times) if c in resampled and len(c.times) else None

            def fit(values: np.ndarray, kind: str = "value", where: timing.Location | None = where) -> np.ndarray:
                if where is None:
                    return values
                return timing.interpolate(values, where, kind)

            if c.kind == "joint":
                fields[c.channel] = fit(c.values)
                dof = c.values.shape[1]
            elif c.kind == "link":
                position, quat = se3_to_pose(c.values, c.se3_format)
                position, quat = fit(position), fit(quat, "quaternion")
                if c.values.shape[1] >= 1:
                    fields["root_position"] = position[:, 0]
                    fields["root_orientation"] = quat[:, 0]
                if c.values.shape[1] > 1:
                    fields["links"] = {"position": position[:, 1:], "orientation": quat[:, 1:]}
                    fields["link_names"] = self.link_names(c.values.shape[1])
                extras["seq_se3_format"] = c.se3_format
            else:
                frame = "root" if c.root_relative else "world"
                fields["series"] = {"zmp": Series(fit(c.values), frame=frame, components=("x", "y", "z"))}
            if c.other_keys:
                extras.setdefault("seq_component_keys", {})[c.channel] = c.other_keys
        labels = next((c.labels for c in comps if c.kind == "joint" and c.labels and len(c.labels) == dof), None)
        if any(c.kind == "joint" for c in comps):
            fields["joint_names"] = self.joint_names(dof, labels)
        try:
            return Motion(times=times, rate=rate, extras=extras, **fields)
        except ValueError as exc:
            raise self.fail(str(exc), ref.line) from None

    def joint_names(self, count: int, labels: list[str] | None) -> tuple[str, ...]:
        names = self.names
        if names.joints is not None:
            given = names.joints
            if names.explicit and len(given) != count:
                raise self.fail(f"{names.source} gives {len(given)} joint names but the file has {count} joints", None)
            if len(given) != count:
                warnings.warn(
                    f"{self.path}: the {names.source} has {len(given)} joints, the motion {count}: "
                    + ("extra joints named joint_N" if len(given) < count else "extra names ignored"),
                    stacklevel=4,
                )
            out = [given[i] if i < len(given) else f"joint_{i}" for i in range(count)]
        elif labels is not None:
            out = labels
        else:
            out = [f"joint_{i}" for i in range(count)]
        if len(set(out)) != len(out):
            raise self.fail(f"duplicate joint names from the {names.source or 'file'}", None)
        return tuple(out)

    def link_names(self, parts: int) -> tuple[str, ...]:
        links = self.names.links or []
        return tuple(links[i] if i < len(links) else f"link_{i}" for i in range(1, parts))


def _camel(key: Any) -> Any:
    return _SNAKE.get(key, key) if isinstance(key, str) else key


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, Rows):
        return "a list of frames"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


# --------------------------------------------------------------------------- writing
class _Writer:
    """Builds the text of a body motion file in Choreonoid's layout."""

    def __init__(self, version: int, lossless: bool, se3_format: str, path: str | os.PathLike[str]) -> None:
        self.version = version
        self.fmt = "%r" if lossless else "%.9g"
        self.lossless = lossless
        self.se3_format = se3_format
        self.path = path
        self.out: list[str] = []

    def key(self, camel: str) -> str:
        if self.version >= 4 and camel in KEYS and camel not in ("isRootRelative", "partLabels"):
            return KEYS[camel]
        return camel

    def number(self, value: float) -> str:
        value = float(value)
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value) if self.lossless else f"{value:.9g}"

    def rows(self, values: np.ndarray, times: np.ndarray | None, groups: int | None, indent: str) -> None:
        """Frames of ``values`` ((N, F) or (N, groups, width)) with an optional time column."""
        n = values.shape[0]
        if n == 0:
            self.out[-1] += " []"
            return
        flat = values.reshape(n, -1)
        f = self.fmt
        if groups is None:
            body = ", ".join([f] * flat.shape[1])
        else:
            width = flat.shape[1] // groups
            body = ", ".join(["[ " + ", ".join([f] * width) + " ]"] * groups)
        if times is not None:
            body = self.time_format(times) + ", " + body
            flat = np.column_stack([times, flat])
        template = f"{indent}- [ {body} ]\n"
        self.out.append((template * n)[:-1] % tuple(flat.ravel().tolist()))

    def time_format(self, times: np.ndarray) -> str:
        if self.lossless:
            return "%r"
        rounded = np.array([f"{t:.9g}" for t in times.tolist()], dtype=np.float64)
        return "%.9g" if np.all(np.diff(rounded) > 0) else "%r"

    def plain(self, data: Mapping[str, Any], indent: str) -> None:
        """Plain data (kept extras) as block YAML, arrays of rows as flow rows."""
        for key, value in data.items():
            k = _yaml.dump_scalar(key)
            if isinstance(value, Mapping):
                if value:
                    self.out.append(f"{indent}{k}:")
                    self.plain(value, indent + "  ")
                else:
                    self.out.append(f"{indent}{k}: {{}}")
            elif isinstance(value, np.ndarray) and value.ndim >= 2:
                self.out.append(f"{indent}{k}:")
                self.rows(value, None, value.shape[1] if value.ndim == 3 else None, indent + "  ")
            elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
                self.out.append(f"{indent}{k}:")
                for item in value:
                    self.out.append(f"{indent}  -")
                    self.plain(item, indent + "    ")
            else:
                self.out.append(f"{indent}{k}: {_yaml.dump_scalar(_lists(value))}")

    def component(
        self,
        typ: str,
        content: str,
        rate: float,
        n: int,
        has_time: bool,
        extra: Mapping[str, Any],
        parts: int | None = None,
    ) -> None:
        self.out.append("  -")
        self.out.append(f"    type: {typ}")
        self.out.append(f"    content: {content}")
        if parts is not None:
            self.out.append(f"    {self.key('numParts')}: {parts}")
        self.out.append(f"    {self.key('frameRate')}: {self.number(rate)}")
        self.out.append(f"    {self.key('numFrames')}: {n}")
        if has_time:
            self.out.append(f"    {self.key('hasFrameTime')}: true")
        if typ == "MultiSE3Seq":
            self.out.append(f"    SE3Format: {self.se3_format}")
        if extra:
            self.plain(extra, "    ")


def _lists(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, list):
        return [_lists(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _pick_group(motion_file: MotionFile, dropped: list[str]) -> Motion:
    groups = motion_file.groups
    name = DEFAULT_GROUP if DEFAULT_GROUP in groups else next(iter(groups))
    others = [g for g in groups if g != name]
    if others:
        dropped.append("groups " + ", ".join(repr(g) for g in others) + f" (a .seq holds one motion; wrote {name!r})")
    return groups[name]


def _write_rate(m: Motion) -> tuple[float, bool]:
    """(frameRate to write, whether frames need their own times).

    Frames get their times unless ``k / frameRate`` reproduces them exactly, so a
    variable-rate (or offset) motion keeps its timestamps and a read-write loses nothing.
    """
    n = m.num_frames
    declared = m.extras.get("seq_frame_rate")
    if m.rate is not None and (n == 0 or np.array_equal(m.times, np.arange(n, dtype=np.float64) / m.rate)):
        return float(m.rate), False
    if isinstance(declared, (int, float)) and not isinstance(declared, bool) and declared > 0:
        return float(declared), True
    if m.rate is not None:
        return float(m.rate), True
    if n >= 2:
        return float(f"{1.0 / float(np.median(np.diff(m.times))):.9g}"), True
    return 100.0, n > 0 and m.times[0] != 0.0


def encode(
    motion_file: MotionFile,
    *,
    version: int | str | None = None,
    lossless: bool = False,
    se3_format: str | None = None,
    path: str | os.PathLike[str] = "<output>",
) -> bytes:
    """The bytes of ``motion_file`` as a body motion file (see :func:`write`)."""
    try:
        v = DEFAULT_VERSION if version is None else int(version)
    except (TypeError, ValueError):
        raise WriteError(path, f"format version {version!r}: expected one of {WRITE_VERSIONS}") from None
    if v not in WRITE_VERSIONS:
        raise WriteError(path, f"format version {v} cannot be written (choose {' or '.join(map(str, WRITE_VERSIONS))})")
    fmt = se3_format or DEFAULT_SE3_FORMAT
    if fmt not in SE3_FORMATS:
        raise WriteError(path, f"unknown SE3 format {fmt!r} (known: {', '.join(SE3_FORMATS)})")
    dropped: list[str] = []
    m = _pick_group(motion_file, dropped)
    w = _Writer(v, lossless, fmt, path)
    n = m.num_frames
    rate, has_time = _write_rate(m)
    times = m.times if has_time else None
    out = w.out
    out.append("type: CompositeSeq")
    out.append("content: BodyMotion")
    out.append(f"{w.key('formatVersion')}: {v}")
    out.append(f"{w.key('frameRate')}: {w.number(rate)}")
    out.append(f"{w.key('numFrames')}: {n}")
    if has_time:
        out.append(f"{w.key('hasFrameTime')}: true")
    top_extra = motion_file.extras.get("seq_top")
    if isinstance(top_extra, Mapping):
        w.plain({k: val for k, val in top_extra.items() if _camel(k) not in _TOP_KEYS}, "")
    out.append("components:")
    keys = m.extras.get("seq_component_keys", {})
    keys = keys if isinstance(keys, Mapping) else {}

    if m.position is not None:
        w.component("MultiValueSeq", "JointDisplacement", rate, n, has_time, keys.get("position", {}), m.dof)
        out.append("    frames:")
        w.rows(m.position, times, None, "      ")
    poses = _poses(m, dropped)
    if poses is not None:
        position, quat = poses
        values = pose_to_se3(position, quat, fmt)
        w.component("MultiSE3Seq", "LinkPosition", rate, n, has_time, keys.get("link", {}), values.shape[1])
        out.append("    frames:")
        w.rows(values, times, values.shape[1], "      ")
    for channel in ("velocity", "effort"):
        data = getattr(m, channel)
        if data is not None:
            w.component("MultiValueSeq", JOINT_CONTENT_FOR[channel], rate, n, has_time, keys.get(channel, {}), m.dof)
            out.append("    frames:")
            w.rows(data, times, None, "      ")
    zmp = m.series.get("zmp")
    if zmp is not None and zmp.values.shape[1] == 3:
        extra = dict(keys.get("zmp", {}))
        if zmp.frame == "root":
            extra = {"isRootRelative": True, **extra}
        elif zmp.frame != "world":
            dropped.append(f"the frame {zmp.frame!r} of series 'zmp' (written as world coordinates)")
        w.component("Vector3Seq", "ZMP", rate, n, has_time, extra)
        out.append("    frames:")
        w.rows(zmp.values, times, None, "      ")
    for comp in m.extras.get("seq_components", []):
        if isinstance(comp, Mapping):
            out.append("  -")
            w.plain(comp, "    ")
    _note_dropped(m, dropped)
    if dropped:
        warnings.warn(f"{path}: a .seq cannot hold, dropped: " + "; ".join(dropped), stacklevel=3)
    out.append("")
    return "\n".join(out).encode("utf-8")


def _poses(m: Motion, dropped: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """Positions (N, P, 3) and quaternions (N, P, 4): the root, then the links."""
    n = m.num_frames
    parts_p: list[np.ndarray] = []
    parts_q: list[np.ndarray] = []
    root = m.root_position is not None or m.root_orientation is not None
    if root:
        if m.root_position is None:
            dropped.append("nothing: the root has no position (written as 0, 0, 0)")
        if m.root_orientation is None:
            dropped.append("nothing: the root has no orientation (written as the identity)")
        parts_p.append(m.root_position[:, None] if m.root_position is not None else np.zeros((n, 1, 3)))
        q = m.root_orientation[:, None] if m.root_orientation is not None else np.tile([0.0, 0.0, 0.0, 1.0], (n, 1, 1))
        parts_q.append(q)
    if m.link_names:
        count = len(m.link_names)
        lp = m.links.get("position")
        lq = m.links.get("orientation")
        if lp is not None or lq is not None:
            if not root:
                dropped.append(f"the root pose is absent: link {m.link_names[0]!r} is written as part 0 (the root)")
            parts_p.append(lp if lp is not None else np.zeros((n, count, 3)))
            parts_q.append(lq if lq is not None else np.tile([0.0, 0.0, 0.0, 1.0], (n, count, 1)))
        other = [k for k in m.links if k not in ("position", "orientation")]
        if other:
            dropped.append("link channels " + ", ".join(repr(k) for k in other))
    if not parts_p:
        return None
    return np.concatenate(parts_p, axis=1), np.concatenate(parts_q, axis=1)


def _note_dropped(m: Motion, dropped: list[str]) -> None:
    for channel in ("acceleration", "temperature"):
        if getattr(m, channel) is not None:
            dropped.append(f"joint {channel}s")
    if m.joint_channels:
        dropped.append("joint channels " + ", ".join(repr(k) for k in m.joint_channels))
    if m.joint_masks:
        dropped.append("joint masks " + ", ".join(repr(k) for k in m.joint_masks))
    if any(d != 1 for d in m.joint_dims):
        dropped.append("joint dimensions (multi-DOF joints are written as flat columns)")
    if m.imu_names or m.imus:
        dropped.append("IMUs " + ", ".join(repr(k) for k in m.imu_names))
    series = [k for k, s in m.series.items() if k != "zmp" or s.values.shape[1] != 3]
    if series:
        dropped.append("series " + ", ".join(repr(k) for k in series))
    if m.time_columns:
        dropped.append("time columns " + ", ".join(repr(k) for k in m.time_columns))
    if m.loop is not None:
        dropped.append(f"loop {m.loop[0]:g}-{m.loop[1]:g} s")
    if m.interpolation is not None and "step" in m.interpolation:
        dropped.append("step interpolation between keyframes (resample first to keep it)")


def write(
    motion_file: MotionFile,
    path: Path,
    *,
    overwrite: bool = False,
    version: int | str | None = None,
    lossless: bool = False,
    se3_format: str | None = None,
    **options: Any,
) -> None:
    """Write ``motion_file`` as a Choreonoid body motion file.

    Args:
        motion_file: What to write (its ``target`` group, else its first).
        path: Output file.
        overwrite: Replace an existing file.
        version: Format version 2 (default, camelCase keys) or 4 (snake_case keys).
        lossless: Values as shortest round-trip ``repr`` instead of ``%.9g``.
        se3_format: Pose layout (default ``XYZQWQXQYQZ``; ``XYZQXQYQZQW``, ``XYZRPY``).

    Warns naming what a .seq cannot hold (other groups, IMUs, temperatures …).
    """
    if options:
        raise TypeError(f"unknown .seq write options: {', '.join(sorted(options))}")
    check_writable(path, overwrite)
    data = encode(motion_file, version=version, lossless=lossless, se3_format=se3_format, path=path)
    write_bytes_atomic(path, data, overwrite)


__all__ = [
    "KEYS",
    "Names",
    "decode",
    "decode_fast",
    "encode",
    "load_body",
    "load_joint_map",
    "load_yaml",
    "read",
    "resolve_names",
    "sniff",
    "write",
]
