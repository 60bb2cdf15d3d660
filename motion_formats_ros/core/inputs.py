"""Bounded file input: the one way the package reads an input file.

Every reader of a motion file, a robot model, a joint map or a mesh goes through
:func:`read_input`, which

- refuses what is not a regular file (a character or block device such as ``/dev/zero``,
  a FIFO, a socket) with one line, before reading a byte (a FIFO is opened without
  waiting for a writer);
- reads at most what the file held when it was opened (its size), so that an input cannot
  grow while it is read, and at most ``limit`` bytes when the format can need no more;
- lets the format check the first bytes (``head``) before the rest is read: a file that
  is not of the format is refused after reading a few bytes, not gigabytes of them.

:func:`interruptible` makes SIGTERM end the process at once while an input is read and
parsed (a parse in native code runs no Python signal handler until it returns).

:func:`expansion_bound` is how far compressed input may expand (bag chunks and messages,
Parquet columns): a bounded multiple of its compressed size.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterator

from .errors import ReadError

#: What a file that is not a regular file is, by its type (for the one-line refusal).
_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)
#: How much of a file that reports size 0 (``/proc`` and ``/sys`` files) is read.
_UNSIZED = 1 << 20
#: How much of a text file is searched for a NUL byte before it is read whole.
TEXT_PROBE = 1 << 16

#: Compressed input may expand to this many times its size (real data compresses a few
#: times to a few tens of times), but at least :data:`MIN_EXPANSION` bytes.
MAX_RATIO = 200
MIN_EXPANSION = 64 << 20


def expansion_bound(size: int) -> int:
    """How many bytes ``size`` compressed bytes may expand to: :data:`MAX_RATIO` times, at least MIN_EXPANSION."""
    return max(MIN_EXPANSION, MAX_RATIO * size)


def _refuse(path: str | os.PathLike[str], what: str, reason: str) -> ReadError:
    return ReadError(path, f"cannot read the {what}: {reason}" if what else reason)


def not_a_file(mode: int) -> str | None:
    """What a file of ``mode`` is when it is no regular file (``"a FIFO"``), else None."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"


def read_input(
    path: str | os.PathLike[str],
    size: int = -1,
    *,
    name: str | os.PathLike[str] | None = None,
    what: str = "",
    head: tuple[int, Callable[[bytes, int], None]] | None = None,
    limit: int | None = None,
) -> bytes:
    """The bytes of the input file ``path`` (its first ``size`` bytes when given).

    Args:
        path: The file.
        size: Read at most this many bytes (-1: all of it).
        name: How errors name the file, when the user knows it by another name than ``path``.
        what: What the file is for (``"robot model"``), said in the errors.
        head: ``(count, check)``: ``check(first_bytes, file_size)`` runs on the first
            ``count`` bytes before the rest is read, and raises a :class:`ReadError` for a
            file that is not of the format.
        limit: The most a file of the format can hold; a larger file is refused unread.

    Raises:
        ReadError: The system will not give the file (missing, no permission), it is no
            regular file (a device, a FIFO, a folder), it is larger than ``limit``, or
            ``head`` refused its start.
    """
    shown = path if name is None else name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise _refuse(shown, what, exc.strerror or str(exc)) from exc
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise _refuse(shown, what, os.strerror(errno.EISDIR))  # as open() says it
        kind = not_a_file(info.st_mode)
        if kind is not None:
            raise _refuse(shown, what, f"{kind}, not a regular file")
        if limit is not None and info.st_size > limit:
            raise _refuse(shown, what, f"{info.st_size} bytes, more than such a file can hold ({limit})")
    except BaseException:
        os.close(fd)
        raise
    with open(fd, "rb", closefd=True) as fh:
        try:
            total = info.st_size if info.st_size > 0 else _UNSIZED
            if size >= 0:
                total = min(total, size)
            if head is None:
                return fh.read(total)
            first = fh.read(min(head[0], total))
            head[1](first, info.st_size)
            return first + fh.read(total - len(first)) if total > len(first) else first
        except OSError as exc:
            raise _refuse(shown, what, exc.strerror or str(exc)) from exc


def refuse_binary(path: str | os.PathLike[str], what: str = "", *, name: str | os.PathLike[str] | None = None) -> None:
    """A text file with a NUL byte near its start is no text (zeros, an image): one line naming the byte."""
    probe = read_input(path, TEXT_PROBE, name=name, what=what)
    text_check(path if name is None else name, what)(probe, len(probe))


def text_check(path: str | os.PathLike[str], what: str = "") -> Callable[[bytes, int], None]:
    """A ``head`` check for :func:`read_input` that refuses a NUL byte in the first bytes of a text file."""

    def check(first: bytes, size: int) -> None:
        nul = first.find(b"\0")
        if nul >= 0:
            reason = "binary data (a NUL byte), not a text file"
            raise ReadError(path, f"cannot read the {what}: {reason}" if what else reason, offset=nul)

    return check


def _python_handler(handler: object) -> bool:
    return callable(handler) and not isinstance(handler, signal.Handlers)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """SIGTERM ends the process at once inside this block (the system's default action).

    A parse in native code (the YAML, JSON or msgpack parsers, a regular expression over a
    big file) runs no Python signal handler until it returns, so a handler that stops
    the command cleanly would wait for it. Inputs are only read here, nothing is being
    written, so the default action loses nothing. Only the main thread of a process that
    no pool started changes it (a pool's worker keeps its own way of stopping).
    """
    pool = sys.modules.get("multiprocessing")  # a pool's worker has it imported
    if threading.current_thread() is not threading.main_thread() or (pool is not None and pool.parent_process()):
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if not _python_handler(previous):
        yield
        return
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


__all__ = ["TEXT_PROBE", "interruptible", "not_a_file", "read_input", "refuse_binary", "text_check"]
