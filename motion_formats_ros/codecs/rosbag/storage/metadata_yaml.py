"""rosbag2's ``metadata.yaml`` as recorders write it, read without a YAML library.

rosbag2 (yaml-cpp), rosbags and this package write the metadata in block style: nested
mappings and sequences of plain, quoted or empty-collection scalars. :func:`load` reads
exactly that subset and gives what PyYAML and rosbags' YAML 1.2 parser both give for
it; anything else (flow collections with items, anchors, tags, block scalars, comments,
multi-line quoted strings, a plain scalar the two YAML versions read apart such as
``yes`` or ``1e3``, a key given twice …) raises :class:`NotPlainYaml`, and the caller
parses the text with a YAML library.
"""

from __future__ import annotations

import re
from typing import Any

from ....core.errors import FallbackSignal


class NotPlainYaml(FallbackSignal):
    """The text is not in the subset :func:`load` reads: a YAML library reads it.

    A planned fallback, so no :class:`~motion_formats_ros.core.errors.MotionFormatError`:
    the caller always catches it, and nothing that handles the package's errors takes it for one.
    """


_INT = re.compile(r"-?(0|[1-9][0-9]*)")
_WORD = re.compile(r"[A-Za-z_/][^#:\[\]{},&*!|>'\"%@`]*")
#: Words that YAML 1.1 or 1.2 read as booleans or null in some spelling.
_KEYWORDS = frozenset(
    "y Y yes Yes YES n N no No NO on On ON off Off OFF True TRUE False FALSE Null NULL".split(" ")  # noqa: SIM905
)
#: Plain words both YAML versions read as a boolean or null.
_RESOLVED = frozenset(["true", "false", "null"])
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n", "t": "\t", "/": "/", "r": "\r"}


def alike(plain: str) -> bool:
    """Whether a plain scalar reads the same in YAML 1.1 and 1.2: an integer, true / false, null or a word."""
    if plain in ("", "~", "null", "true", "false") or _INT.fullmatch(plain):
        return True
    return bool(_WORD.fullmatch(plain)) and plain not in _KEYWORDS


def scalar(text: str) -> Any:
    """A scalar as both YAML versions read it (plain, quoted, or an empty flow collection)."""
    if text in ("", "~", "null"):
        return None
    if text in ("true", "false"):
        return text == "true"
    if text == "[]":
        return []
    if text == "{}":
        return {}
    if _INT.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts: a YAML library says where
            raise NotPlainYaml(text[:20]) from None
    if len(text) >= 2 and text[0] == text[-1] == "'":
        inner = text[1:-1]
        if "'" in inner.replace("''", ""):
            raise NotPlainYaml(text)
        return inner.replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return _double_quoted(text[1:-1])
    if _WORD.fullmatch(text) and text not in _KEYWORDS and text == text.strip():
        return text
    raise NotPlainYaml(text)


def _double_quoted(inner: str) -> str:
    out, i = [], 0
    while i < len(inner):
        c = inner[i]
        if c == '"':
            raise NotPlainYaml(inner)
        if c == "\\":
            if i + 1 >= len(inner) or inner[i + 1] not in _ESCAPES:
                raise NotPlainYaml(inner)
            out.append(_ESCAPES[inner[i + 1]])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _lines(text: str) -> list[tuple[int, str]]:
    out = []
    for raw in text.split("\n"):
        line = raw.rstrip(" \r")
        if not line:
            continue
        body = line.lstrip(" ")
        if not line.isprintable() or body.startswith(("#", "---", "...", "%")):
            raise NotPlainYaml("tabs, control characters, comments or document markers")
        out.append((len(line) - len(body), body))
    return out


class _Reader:
    def __init__(self, lines: list[tuple[int, str]]) -> None:
        self.lines = lines
        self.i = 0

    def block(self, indent: int) -> Any:
        """The collection whose first line is the current one, at ``indent``."""
        col, body = self.lines[self.i]
        if col != indent:
            raise NotPlainYaml("indentation")
        if body == "-" or body.startswith("- "):
            return self.sequence(indent)
        return self.mapping(indent)

    def sequence(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while self.i < len(self.lines):
            col, body = self.lines[self.i]
            if col < indent or not (body == "-" or body.startswith("- ")):
                break  # the sequence ends (its parent mapping's next key may sit at its indentation)
            if col != indent:
                raise NotPlainYaml("a sequence's indentation")
            rest = body[1:].lstrip(" ")
            if not rest:
                self.i += 1
                items.append(self.nested(indent, allow_same=False))
                continue
            inner = indent + len(body) - len(rest)
            if _key_of(rest) is not None:  # "- key: value": a mapping inside the item
                self.lines[self.i] = (inner, rest)
                items.append(self.mapping(inner))
            else:
                self.i += 1
                items.append(scalar(rest))
        return items

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self.i < len(self.lines):
            col, body = self.lines[self.i]
            if col < indent:
                break
            if col != indent:
                raise NotPlainYaml("a mapping's indentation")
            found = _key_of(body)
            if found is None:
                raise NotPlainYaml(body)
            key, rest = found
            if key in out:
                raise NotPlainYaml(f"the key {key!r} twice")
            self.i += 1
            out[key] = scalar(rest) if rest else self.nested(indent, allow_same=True)
        return out

    def nested(self, indent: int, allow_same: bool) -> Any:
        """What follows a key or dash without a value on its line: a collection, a plain scalar, or null."""
        if self.i >= len(self.lines):
            return None
        col, body = self.lines[self.i]
        if allow_same and col == indent and (body == "-" or body.startswith("- ")):
            return self.sequence(indent)  # a block sequence may sit at its key's indentation
        if col <= indent:
            return None
        if body == "-" or body.startswith("- ") or _key_of(body) is not None:
            return self.block(col)
        parts = []  # a plain scalar on the following lines (folded with spaces)
        while self.i < len(self.lines) and self.lines[self.i][0] > indent:
            parts.append(self.lines[self.i][1])
            self.i += 1
        value = " ".join(parts)
        if not _WORD.fullmatch(value) or value in _KEYWORDS or value in _RESOLVED:
            raise NotPlainYaml(value)
        return value


def _key_of(body: str) -> tuple[str, str] | None:
    """(key, rest) of ``key: rest`` / ``key:``, or None when the line is no mapping entry."""
    if body.endswith(":"):
        key, rest = body[:-1], ""
    elif ": " in body:
        key, rest = body.split(": ", 1)
        rest = rest.strip(" ")
    else:
        return None
    if not key or key[0] in "'\"":
        raise NotPlainYaml(body)  # quoted keys (and colons inside quotes): a library reads them
    if not _WORD.fullmatch(key) or key in _KEYWORDS or key in _RESOLVED or key != key.strip():
        raise NotPlainYaml(body)
    return key, rest


def load(text: str) -> Any:
    """The document ``text`` holds (see the module docstring).

    Raises:
        NotPlainYaml: The text is not in the subset read here.
    """
    lines = _lines(text)
    if not lines:
        return None
    if len(lines) == 1:  # a document of one scalar (``[]``: a topic's QoS profiles, none)
        body = lines[0][1]
        if not (body == "-" or body.startswith("- ") or body.endswith(":") or ": " in body):
            return scalar(body)
    reader = _Reader(lines)
    doc = reader.block(lines[0][0])
    if reader.i != len(lines):
        raise NotPlainYaml("text after the document")
    return doc
