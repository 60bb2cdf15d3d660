"""The YAML of a body motion as a tree of mappings and sequences that know their lines.

Only safe YAML: tags outside the YAML core schema are errors, aliases may not expand to
more nodes than the text has characters (alias bombs) and may not be recursive. The
fast path's placeholders (:mod:`.fast`) come back as their parsed :class:`Rows`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...core.errors import ReadError
from ...core.serial.nesting import too_deep_reason, yaml_too_deep
from ...core.serial.yaml import Rows, SafeLoader, error_line, misplaced_placeholders, to_number
from .schema import DeclineError

_MAX_DEPTH = 64
_SAFE_TAGS = frozenset(
    tag
    for tag in yaml.constructor.SafeConstructor.yaml_constructors
    if tag is not None and tag.startswith("tag:yaml.org,2002:") and not tag.endswith(("set", "omap", "pairs"))
)
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"
_NUMERIC_TAGS = frozenset({"tag:yaml.org,2002:str", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})


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
    Plain scalars that are numbers by :func:`motion_formats_ros.core.serial.yaml.to_number` become floats (so
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
        if placeholders and not _placeholders_in_place(node, placeholders):
            raise DeclineError  # a frames block inside a block or quoted scalar: the YAML path reads it
        if "&" in text or "*" in text:
            _check_aliases(node, len(text) + 16, path)
        return _Builder(loader, path, placeholders or {}).build(node, 0)
    finally:
        loader.dispose()


def _placeholders_in_place(node: Node, placeholders: Mapping[str, Rows]) -> bool:
    lines = {name: rows.key_line for name, rows in placeholders.items()}
    if any(line is None for line in lines.values()):
        return False
    tag = next(iter(placeholders)).rsplit("-", 1)[0] + "-"
    return not misplaced_placeholders(node, tag, lines)  # type: ignore[arg-type]


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
            raise DeclineError
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


__all__ = ["YMap", "YSeq", "load_yaml", "plain"]
