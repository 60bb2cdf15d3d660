"""Loading scene files: JSON5 parsing with positions, and ``{uri: …}`` references.

A reference is an object whose only key is ``uri``. It is replaced by the value it
points to: ``file://./robots.json5#/ur5e`` is resolved relative to the file that holds
the reference (RFC 3986), the fragment is a JSON pointer (RFC 6901; empty = the whole
document). Only ``file:`` URIs (or scheme-less relative references such as
``robots.json5#/ur5e`` and ``#/models/ur5e``) are accepted, only files inside the top
scene's folder tree, and cycles are errors.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ...core.errors import ReadError
from ...core.inputs import read_input
from ...core.serial.nesting import first_long_digits, json_too_deep, long_integer, too_deep_reason
from .problems import PathPart, Problems, SceneError, json_path

#: Deepest chain of references followed (a guard, real scenes use one or two levels).
MAX_REFERENCE_DEPTH = 64


def _position(text: str, index: int) -> tuple[int, int]:
    """1-based (line, column) of character ``index`` in ``text``."""
    index = max(0, min(index, len(text)))
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def decode_text(data: bytes, path: str | os.PathLike[str]) -> str:
    """UTF-8 text (a BOM is dropped) or a ReadError with the byte offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReadError(path, f"not UTF-8 text: {exc.reason}", offset=exc.start) from None
    return text[1:] if text.startswith("\ufeff") else text


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_TOKEN_CHARS = frozenset("0123456789abcdefABCDEFxX_.+-$ghijklmnopqrstuvwyzGHIJKLMNOPQRSTUVWYZ")


def _has_digit_separator(text: str) -> bool:
    """Whether a number is written with a digit separator (``1_000``), which only pyjson5
    accepts (JSON5 and json5 do not). Identifiers such as ``joint_1`` are not numbers."""
    at = text.find("_", 1)
    while at != -1 and at + 1 < len(text):
        if text[at - 1] in _HEX_DIGITS and text[at + 1] in _HEX_DIGITS:
            start = at
            while start > 0 and text[start - 1] in _TOKEN_CHARS:
                start -= 1
            if text[start] in "0123456789.+-":
                return True
        at = text.find("_", at + 1)
    return False


#: json5's syntax errors: ``<string>:LINE Unexpected "X" at column C``.
_JSON5_WHERE = re.compile(r"^<string>:(\d+) (.*?)(?: at column (\d+))?$", re.DOTALL)


#: The first json5 release that reads every literal pyjson5 reads the same way (signed hex
#: such as ``-0x10``, ``+Infinity``); the ``fast`` extra requires it.
REFERENCE_AGREES_FROM = (0, 15)


def reference_agrees(version: str) -> bool:
    """Whether json5 ``version`` gives what pyjson5 gives (older ones refuse signed hex, ``+Infinity``)."""
    parts = []
    for part in version.split(".")[:2]:
        digits = re.match(r"\d*", part)
        parts.append(int(digits.group()) if digits and digits.group() else 0)
    return tuple(parts) >= REFERENCE_AGREES_FROM


@functools.cache
def _fast_parser() -> tuple[Any, type[Exception]] | None:
    """pyjson5's ``loads`` and its error class when the accelerator is installed and the
    installed json5 (the reference) reads the same; else None: json5 alone decides."""
    try:
        import pyjson5
    except ImportError:
        return None
    from importlib import metadata

    try:
        if not reference_agrees(metadata.version("json5")):
            return None
    except metadata.PackageNotFoundError:
        return None
    return pyjson5.loads, pyjson5.Json5Exception


def parse_json5(text: str, path: str | os.PathLike[str] = "<text>") -> Any:
    """Parse JSON5 ``text``; syntax errors become ReadErrors with line and column.

    The pure-Python ``json5`` package is the reference (it is what rosdep installs).
    ``pyjson5``, when installed, parses the same documents about 400 times faster; it is
    used only where it agrees with the reference: a text it rejects, or one with digit
    separators (which only pyjson5 accepts), is parsed by ``json5``, so values and error
    messages never depend on which is installed.
    """
    fast = _fast_parser()
    if fast is not None and not _has_digit_separator(text):
        loads, fast_error = fast
        try:
            return loads(text)
        except (fast_error, RecursionError) as exc:
            _refuse_long_integer(text, str(exc), path)
            # else the reference says what is wrong, and where, the same with or without pyjson5
    import json5

    # The pure-Python parser takes seconds on a text nested thousands deep (pyjson5 stops at 32).
    deep = json_too_deep(text, json5=True)
    if deep is not None:
        raise ReadError(path, f"JSON5 syntax error: {too_deep_reason()}", line=deep)
    try:
        return json5.loads(text)
    except RecursionError:
        line, _ = _position(text, len(text))
        raise ReadError(path, "JSON5 syntax error: nested too deeply", line=line) from None
    except ValueError as exc:
        message = str(exc)
        where = _JSON5_WHERE.match(message)
        if "integer string conversion" in message:  # Python's int() of too many digits: json5 says not where
            long, reason = long_integer(text)
            raise ReadError(path, f"JSON5 syntax error: {reason}", line=long) from None
        if where:
            line, column = int(where.group(1)), int(where.group(3) or 1)
            message = where.group(2)
        else:
            line, column = _position(text, _token_offset(text, message))
        raise ReadError(path, f"column {column}: JSON5 syntax error: {message}", line=line) from None


_QUOTED_TOKEN = re.compile(r": '([^']+)'$")
#: pyjson5's error for a numeric literal longer than it reads; the position is 1-based.
_LONG_LITERAL = re.compile(r"Unclosed b'NumericLiteral' starting near (\d+)")


def _refuse_long_integer(text: str, message: str, path: str | os.PathLike[str]) -> None:
    """Raise the reference's error for an integer longer than Python converts, when that is what
    pyjson5 stopped at: the reference would fail on it too, after seconds of parsing a large file."""
    stopped = _LONG_LITERAL.search(message)
    found = first_long_digits(text) if stopped else None
    if stopped is None or found is None:
        return
    start = int(stopped.group(1)) - 1
    if found.start() - start in (0, 1) and text[found.end() : found.end() + 1] not in (".", "e", "E"):
        line, reason = long_integer(text)
        raise ReadError(path, f"JSON5 syntax error: {reason}", line=line)


def _token_offset(text: str, message: str) -> int:
    """Where the token a json5 message quotes (``could not convert string to float: '1e'``)
    first stands alone in ``text``; the end of the text when the message names none."""
    quoted = _QUOTED_TOKEN.search(message)
    if quoted:
        token = re.escape(quoted.group(1))
        found = re.search(rf"(?<![\w.$+-]){token}(?![\w.$])", text)
        if found:
            return found.start()
    return len(text)


def read_json5(path: Path) -> Any:
    """Read and parse one JSON5 file (no reference resolution)."""
    data = read_input(path)
    return parse_json5(decode_text(data, path), path)


def is_reference(node: Any) -> bool:
    """True for ``{uri: "…"}`` (an object whose only key is ``uri``)."""
    return type(node) is dict and len(node) == 1 and "uri" in node


@dataclasses.dataclass
class LoadedScene:
    """A scene document with every reference resolved.

    Attributes:
        data: The resolved document (plain dicts / lists / numbers / strings).
        path: The top scene file.
        files: Every file read, the top one first.
        origins: JSON path (as a tuple) of each resolved reference → ``file#pointer``
            it came from, to tell where a problem really is.
    """

    data: Any
    path: Path
    files: list[Path]
    origins: dict[tuple[PathPart, ...], str]


class _Resolver:
    def __init__(self, top: Path, text: str | None = None) -> None:
        self.top = top
        self.root = top.resolve().parent
        self.docs: dict[Path, Any] = {}
        self.files: list[Path] = []
        self.origins: dict[tuple[PathPart, ...], str] = {}
        self.problems = Problems()
        self.stack: list[tuple[Path, str]] = []
        key = top.resolve()
        self.docs[key] = parse_json5(text, top) if text is not None else read_json5(top)
        self.files.append(top)

    def _relative(self, file: Path) -> str:
        try:
            return str(file.relative_to(self.root))
        except ValueError:
            return str(file)

    def document(self, file: Path, where: tuple[PathPart, ...]) -> Any:
        if file not in self.docs:
            try:
                self.docs[file] = read_json5(file)
            except ReadError as exc:
                if exc.line is not None:
                    reason = f"{exc.reason} (file referenced at {json_path(where)})"
                    raise ReadError(exc.path, reason, line=exc.line) from None
                reason = f"cannot read {self._relative(file)}: {exc.reason}"
                raise ReadError(self.top, reason, field=json_path(where)) from exc
            self.files.append(file)
        return self.docs[file]

    def target(self, uri: Any, base: Path, where: tuple[PathPart, ...]) -> tuple[Path, str] | None:
        """(resolved file, pointer) of ``uri`` relative to ``base``, or None (problem recorded)."""
        if not isinstance(uri, str):
            self.problems.error(where, f"uri must be a string, got {type(uri).__name__}")
            return None
        parts = urlsplit(uri)
        scheme = parts.scheme.lower()
        if scheme not in ("", "file"):
            self.problems.error(where, f"only file: URIs are supported, got {uri!r}")
            return None
        if scheme == "file" and uri[len("file:") :].startswith("//"):
            # file://./x and file://../x (the spec's example) are relative; file:///x absolute.
            path_text = uri[len("file://") :].split("#", 1)[0].split("?", 1)[0]
        else:
            path_text = parts.path
            if parts.netloc:
                self.problems.error(where, f"file URIs with a host are not supported: {uri!r}")
                return None
        path_text = unquote(path_text)
        if not path_text:
            file = base
        elif os.path.isabs(path_text):
            file = Path(path_text)
        else:
            file = base.parent / path_text
        file = file.resolve()
        if file != self.root and self.root not in file.parents:
            self.problems.error(
                where, f"uri {uri!r} points outside the scene's folder {str(self.root)!r} (to {str(file)!r})"
            )
            return None
        if not file.is_file():
            self.problems.error(where, f"uri {uri!r}: file {self._relative(file)!r} does not exist")
            return None
        return file, unquote(parts.fragment)

    def pointer(self, doc: Any, pointer: str, file: Path, uri: str, where: tuple[PathPart, ...]) -> tuple[bool, Any]:
        if pointer and not pointer.startswith("/"):
            self.problems.error(where, f"uri {uri!r}: the fragment must be a JSON pointer starting with '/'")
            return False, None
        node = doc
        walked = ""
        for raw in pointer.split("/")[1:] if pointer else []:
            token = raw.replace("~1", "/").replace("~0", "~")
            if is_reference(node):
                ok, node = self.reference(node, file, where)
                if not ok:
                    return False, None
            if isinstance(node, dict):
                if token not in node:
                    self.problems.error(
                        where, f"uri {uri!r}: no key {token!r} at {walked or '/'} in {self._relative(file)}"
                    )
                    return False, None
                node = node[token]
            elif isinstance(node, list):
                if not re.fullmatch(r"0|[1-9][0-9]*", token) or int(token) >= len(node):
                    self.problems.error(
                        where,
                        f"uri {uri!r}: {token!r} is not an index of the {len(node)}-element array at "
                        f"{walked or '/'} in {self._relative(file)}",
                    )
                    return False, None
                node = node[int(token)]
            else:
                self.problems.error(where, f"uri {uri!r}: {walked or '/'} is not an object or array")
                return False, None
            walked += "/" + raw
        return True, node

    def reference(self, node: dict[str, Any], base: Path, where: tuple[PathPart, ...]) -> tuple[bool, Any]:
        uri = node["uri"]
        target = self.target(uri, base, where)
        if target is None:
            return False, None
        file, pointer = target
        if (file, pointer) in self.stack:
            chain = " → ".join(f"{self._relative(f)}#{p}" for f, p in [*self.stack, (file, pointer)])
            self.problems.error(where, f"reference cycle: {chain}")
            return False, None
        if len(self.stack) >= MAX_REFERENCE_DEPTH:
            self.problems.error(where, f"references nested more than {MAX_REFERENCE_DEPTH} deep")
            return False, None
        doc = self.document(file, where)
        self.stack.append((file, pointer))
        try:
            ok, value = self.pointer(doc, pointer, file, uri, where)
            if not ok:
                return False, None
            self.origins.setdefault(where, f"{self._relative(file)}#{pointer}")
            return True, self.expand(value, file, where)
        finally:
            self.stack.pop()

    def expand(self, node: Any, base: Path, where: tuple[PathPart, ...]) -> Any:
        if is_reference(node):
            ok, value = self.reference(node, base, where)
            return value if ok else None
        if type(node) is dict:
            for key, child in node.items():
                if type(child) in (dict, list):
                    node[key] = self.expand(child, base, (*where, key))
        elif type(node) is list:
            for i, child in enumerate(node):
                if type(child) in (dict, list):
                    node[i] = self.expand(child, base, (*where, i))
        return node


def load(path: str | os.PathLike[str], text: str | None = None) -> LoadedScene:
    """Read the scene at ``path`` (or ``text`` as if it were there) and resolve references.

    Raises:
        ReadError: syntax errors (with line and column), unreadable files.
        SceneError: every reference that cannot be resolved, with its JSON path.
    """
    top = Path(path)
    if text is None:
        text = decode_text(read_input(top), top)
    resolver = _Resolver(top, text)
    doc = resolver.docs[top.resolve()]
    if "uri" in text:  # no reference anywhere: skip the walk (large trajectory files)
        doc = resolver.expand(doc, top.resolve(), ())
    if resolver.problems.errors:
        raise SceneError(top, resolver.problems.items)
    return LoadedScene(doc, top, resolver.files, resolver.origins)
