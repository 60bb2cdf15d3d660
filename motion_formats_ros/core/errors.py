"""Error hierarchy shared by every codec and command.

Every error a user can cause with a bad file is a :class:`ReadError` that names the
file and *where* in it the problem is: a line (text formats), a byte offset (binary
formats) or a field path (structured formats such as OMF). The CLI prints ``str(err)``
as ``error: FILE:LINE: reason`` and exits 1.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


class FallbackSignal(Exception):  # noqa: N818 - a signal, not a failure
    """A fast path's "this is not mine": its caller hands the input to the general path.

    Deliberately no :class:`MotionFormatError`: it never leaves the package as an error (its
    caller always catches it), and no handler of the package's errors takes it for one.
    """


class MotionFormatError(Exception):
    """Base class of every error raised by motion_formats_ros."""


#: The longest reason an error quotes in full; longer ones (a whole line of a huge file) are cut.
MAX_REASON = 1000


def shorten(text: str, limit: int = MAX_REASON) -> str:
    """``text`` cut to about ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit - 60], text[-40:]
    return f"{head}… [{len(text) - len(head) - len(tail)} characters cut] …{tail}"


#: How many items of a list a message shows before "… and N more".
MAX_LISTED = 10


def listed(items: Iterable[object], limit: int = MAX_LISTED, sep: str = ", ") -> str:
    """``items`` joined for a message, the first ``limit`` of them and then ``… and 99,990 more``.

    Every message that lists names (joints, topics, files) goes through this, so that a
    file with a hundred thousand joints gives a warning of one short line.
    """
    shown: list[str] = []
    more = 0
    for item in items:
        if len(shown) < limit:
            shown.append(str(item))
        else:
            more += 1
    text = sep.join(shown)
    return f"{text} … and {more:,} more" if more else text


_COMMAND_LINE: contextvars.ContextVar[Mapping[str, str] | None] = contextvars.ContextVar(
    "motion_formats_command_line", default=None
)


@contextlib.contextmanager
def command_line(flags: Mapping[str, str]) -> Iterator[None]:
    """Within this, messages name the command line's flags (``--overwrite``) instead of the
    Python API's keywords (``overwrite=True``); see :func:`spelled`.

    Args:
        flags: How the command line sets each option a message may name, by keyword
            (``{"overwrite": "--overwrite", "body": "--body FILE"}``). Only the command line
            knows its flags; the code that words a message names the keyword.
    """
    token = _COMMAND_LINE.set(flags)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


def spelled(keyword: str, value: str = "") -> str:
    """How a message names an option: inside :func:`command_line`, the flag that sets it
    there; else the keyword and ``value`` (``spelled("overwrite", "=True")`` gives
    ``overwrite=True`` to a Python caller and ``--overwrite`` on the command line)."""
    flags = _COMMAND_LINE.get()
    if flags is not None and keyword in flags:
        return flags[keyword]
    return keyword + value


def number(value: object) -> str:
    """How a message shows a value a file gave: ``1e+308`` rather than its 309 digits.

    Floats and large integers in ``%g`` form; an integer beyond the float range by its digit
    count (an exact ``str`` of one may even be refused by Python's conversion limit); a text
    (an attribute, a token) as its quoted start, each run of more than 15 digits in it shown
    by its first digits and its length (``'0 999…(400 digits) 0'``); anything else as its
    (shortened) ``repr``.
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**15:
        try:
            return f"{float(value):g}"
        except OverflowError:
            digits = int(value.bit_length() * 0.30103) + 1
            return f"{'a negative' if value < 0 else 'an'} integer of about {digits:,} digits"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return excerpt(_LONG_DIGITS.sub(_digit_count, value))
    return excerpt(value) if isinstance(value, bytes) else shorten(repr(value))


#: A run of more digits than a float holds (a 400-digit number in a file): shortened in messages.
_LONG_DIGITS = re.compile(r"[0-9]{16,}")


def _digit_count(run: re.Match[str]) -> str:
    return f"{run.group()[:3]}…({len(run.group()):,} digits)"


def fixed(value: float, places: int = 3) -> str:
    """``value`` to ``places`` decimals (``2.400``) for a message or a label, or in ``%g`` form
    from a trillion on, where the decimals would take hundreds of digits (a time near the end
    of the float range from a file)."""
    return f"{value:.{places}f}" if abs(value) < 1e12 or value != value else f"{value:.6g}"


def excerpt(text: str | bytes, limit: int = 60) -> str:
    """The ``repr`` of the start of ``text`` (what an error quotes of a file), at most about
    ``limit`` characters, without building the ``repr`` of all of it."""
    quoted = repr(text[:limit])
    if len(quoted) > limit + 3:
        quoted = quoted[:limit] + "…"
    elif len(text) <= limit:
        return quoted
    return f"{quoted}… ({len(text)} {'bytes' if isinstance(text, bytes) else 'characters'})"


class ReadError(MotionFormatError):
    """A file could not be read.

    Attributes:
        path: The file (or ``"<bytes>"`` for in-memory data).
        line: 1-based line number for text formats.
        offset: 0-based byte offset for binary formats.
        field: A field path such as ``actual.joint.pos[17]`` for structured formats.
        reason: What was wrong and what was expected.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        reason: str,
        *,
        line: int | None = None,
        offset: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = os.fspath(path) if path is not None else "<bytes>"
        self.reason = shorten(reason)
        self.line = line
        self.offset = offset
        self.field = field
        super().__init__(self._format())

    def _format(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        parts = [where]
        if self.offset is not None:
            parts.append(f"byte {self.offset}")
        if self.field:
            parts.append(self.field)
        parts.append(self.reason)
        return ": ".join(parts)


class NoMotionError(ReadError):
    """A file that holds no motion but still describes something (a motion net with only
    labels and transitions, like B-Human's ``extern.mof``).

    Attributes:
        net: What ``info`` shows instead of a motion (labels, transitions, targets).
    """

    def __init__(
        self, path: str | os.PathLike[str] | None, reason: str, *, line: int | None, net: dict[str, Any]
    ) -> None:
        self.net = net
        super().__init__(path, reason, line=line)


class MotionValueError(MotionFormatError, ValueError):
    """A motion, or a value given to an operation on one, is not valid (shapes, rates, methods …)."""


class OutOfRangeError(MotionValueError):
    """A value the caller gave (an option, a keyword) is outside what it can be.

    The message names the option as the caller spells it (:func:`spelled`); the command
    line prints it as a usage error of the subcommand (exit status 2).
    """


class SelectionError(MotionValueError, KeyError):
    """A selection names a joint, group or time range the motion does not have.

    A ``KeyError`` and a ``ValueError`` too, for callers that caught those before.
    """

    __str__ = BaseException.__str__  # the message as it is, not quoted as KeyError quotes a key


class WriteError(MotionFormatError):
    """A file could not be written (exists, unwritable, or data the format cannot hold)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = shorten(reason)
        super().__init__(f"{self.path}: {self.reason}")


class UnknownFormatError(MotionFormatError):
    """The format of a file could not be determined, or a format name is unknown."""

    def __init__(self, what: str, known: Iterable[str], hint: str = "") -> None:
        self.what = what
        self.known = sorted(known)
        message = f"{what}: unknown format"
        if hint:
            message += f" ({hint})"
        message += "; known formats: " + ", ".join(self.known)
        super().__init__(message)


class OptionError(MotionFormatError, TypeError, ValueError):
    """A codec was given an option it does not accept, or a value of the wrong type or outside its choices.

    Attributes:
        codec: The codec's name (``seq``, ``omf`` …).
        operation: ``read`` or ``write``.
        option: The option refused.
        accepted: The names of the options the codec accepts for ``operation``.
    """

    def __init__(
        self, codec: str, operation: str, option: str, accepted: Iterable[str] | None, reason: str = ""
    ) -> None:
        self.codec = codec
        self.operation = operation
        self.option = option
        self.accepted = list(accepted) if accepted is not None else []
        problem = reason or "is not an option of this format"
        message = f"{codec} {operation} option {option!r} {problem}"
        if accepted is not None:
            message += "; accepted: " + (", ".join(self.accepted) if self.accepted else "none")
        super().__init__(message)


class MissingDependencyError(MotionFormatError):
    """An optional package a feature needs is not installed (one line: what, and how to get it)."""

    def __init__(self, feature: str, package: str, extra: str, rosdep_key: str | None = None) -> None:
        self.feature = feature
        self.package = package
        self.extra = extra
        self.rosdep_key = rosdep_key
        how = f"pip install 'motion_formats_ros[{extra}]'"
        if rosdep_key:
            how += f" (ROS: rosdep key {rosdep_key})"
        super().__init__(f"{feature} needs the optional package {package}: {how}")


def require(module: str, feature: str, *, package: str, extra: str, rosdep_key: str | None = None) -> Any:
    """Import an optional ``module``, or raise :class:`MissingDependencyError` saying how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(feature, package, extra, rosdep_key) from None
