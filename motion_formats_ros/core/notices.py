"""Typed diagnostics: what a reader or writer wants the user to know without failing.

A :class:`Notice` says what kind of thing happened (:class:`NoticeKind`), where (a file
and a line, or a field path such as ``trajectories.a.controlPoints[3].f[1]``) and a
one-line message. Code that has something to say calls :func:`notify`; whoever wants the
notices wraps the work in :func:`collect`::

    with collect() as report:
        motion_file = read(path)
    for notice in report.notices:
        print(notice.kind, notice.file, notice.line, notice.message)

:func:`motion_formats_ros.read` also leaves the notices of that read on the result
(``motion_file.notices``), so a caller that only reads needs no ``collect``.

Every notice is also issued as a Python warning of class :class:`MotionFormatWarning`
(a ``UserWarning`` carrying ``.notice``) whose text is ``str(notice)``, so the usual
``warnings`` filters, ``pytest.warns`` and ``-W error`` keep working; ``collect(warn=False)``
turns that off for the notices reported inside it.

Reports nest: a notice goes to every active report, innermost first, up to and including
the first ``isolated`` one (a tentative path that may be thrown away and redone keeps its
notices to itself and hands them on with :func:`relay` once it is kept). Reports are per
thread / task (a :mod:`contextvars` variable); a worker process collects its own and sends
the notices back (they pickle).

``collect(strict=True)`` is the library side of the command line's ``--strict``: an atomic
write calls :func:`check_commit` before it puts its output in place, which raises
:class:`StrictNoticeError` when a strict report already holds a notice, so a strict run
never leaves an output behind that came with a warning, as a compiler's ``-Werror`` leaves
no object file. Notices reported after the last write still make the run fail (the
caller looks at the report at the end).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import enum
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from .errors import WriteError


class NoticeKind(str, enum.Enum):
    """What a notice is about (the value is what ``--json`` prints)."""

    LOSSY_WRITE = "lossy-write"
    """The output format cannot hold something of the motion: dropped or changed."""
    READ_CHOICE = "read-choice"
    """The reader settled something the file leaves open (joint map, bit meaning, timing)."""
    RESAMPLED = "resampled"
    """Values were moved onto another time base (interpolated)."""
    KEPT_UNUSED = "kept-unused"
    """Data the model has no use for is ignored, kept only to be written back."""
    INCONSISTENT = "inconsistent"
    """The input contradicts itself; the reader went with one side (named in the message)."""
    REPLACED = "replaced"
    """A later entry replaced an earlier one at the same time (duplicate key pose, stamp …)."""
    SKIPPED = "skipped"
    """Input records that cannot be used were skipped (the message counts them)."""
    MISSING = "missing"
    """Something expected is absent; left out or filled with NaN."""
    RECOVERED = "recovered"
    """A recording that was not closed properly was read as far as it is intact."""
    OVERFLOW = "overflow"
    """Arithmetic on values near the end of the float range overflowed: some results are infinite or NaN."""
    FALLBACK = "fallback"
    """A fast path did not handle the input and the general one read it: the result is the same (informational)."""


#: Kinds that change nothing in a result: reported (``--json``, ``motion_file.notices``) but
#: never a Python warning, and no reason for ``--strict`` to refuse an output.
INFORMATIONAL = frozenset({NoticeKind.FALLBACK})


class Notice(NamedTuple):
    """One diagnostic.

    Attributes:
        kind: What it is about.
        message: What happened, in one line, without the place.
        file: The file (or folder, or stream) it concerns, if any.
        line: 1-based line in ``file`` (text formats).
        field: A field path or element name (structured formats, streams).
    """

    kind: NoticeKind
    message: str
    file: str | None = None
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        """``FILE:LINE: FIELD: message`` with the parts that are known (as errors are printed)."""
        parts: list[str] = []
        if self.file is not None:
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.field:
            parts.append(self.field)
        parts.append(self.message)
        return ": ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON: kind, file, line, field, message and the printed ``text``."""
        return {
            "kind": self.kind.value,
            "file": self.file,
            "line": self.line,
            "field": self.field,
            "message": self.message,
            "text": str(self),
        }


class MotionFormatWarning(UserWarning):
    """The Python warning issued for every notice; ``.notice`` is the :class:`Notice`."""

    def __init__(self, notice: Notice) -> None:
        super().__init__(str(notice))
        self.notice = notice


class StrictNoticeError(WriteError):
    """An output was not put in place because a strict report holds notices."""


@dataclasses.dataclass
class Report:
    """The notices reported inside one :func:`collect` block, in order.

    Attributes:
        notices: Every notice, in the order reported.
        warn: Whether notices inside also become Python warnings.
        strict: Whether an atomic write inside refuses to commit once a notice exists.
        isolated: Whether notices stop here instead of also reaching enclosing reports.
    """

    notices: list[Notice] = dataclasses.field(default_factory=list)
    warn: bool = True
    strict: bool = False
    isolated: bool = False

    def __len__(self) -> int:
        return len(self.notices)

    def __iter__(self) -> Iterator[Notice]:
        return iter(self.notices)

    def __bool__(self) -> bool:
        return True  # a report is a report, even an empty one; use len() or .notices to test

    @property
    def warnings(self) -> list[str]:
        """Each notice as printed (``FILE:LINE: message``)."""
        return [str(n) for n in self.notices]

    @property
    def warned(self) -> list[Notice]:
        """The notices that are warnings (all but the :data:`INFORMATIONAL` ones): what ``--strict`` fails on."""
        return [n for n in self.notices if n.kind not in INFORMATIONAL]

    def by_kind(self, *kinds: NoticeKind) -> list[Notice]:
        """The notices of these kinds."""
        return [n for n in self.notices if n.kind in kinds]

    def as_json(self) -> list[dict[str, Any]]:
        """The notices as plain data (see :meth:`Notice.as_dict`)."""
        return [n.as_dict() for n in self.notices]


_ACTIVE: contextvars.ContextVar[tuple[Report, ...]] = contextvars.ContextVar("motion_formats_notices", default=())


@contextlib.contextmanager
def collect(*, warn: bool = True, strict: bool = False, isolated: bool = False) -> Iterator[Report]:
    """Collect the notices reported inside the block into the report it yields.

    Args:
        warn: Also issue each notice as a :class:`MotionFormatWarning` (False: silent).
        strict: Refuse atomic writes inside once a notice exists (:func:`check_commit`).
        isolated: Keep the notices from enclosing reports (hand them on with :func:`relay`).
    """
    report = Report(warn=warn, strict=strict, isolated=isolated)
    token = _ACTIVE.set((*_ACTIVE.get(), report))
    try:
        yield report
    finally:
        _ACTIVE.reset(token)


def _receivers() -> tuple[list[Report], bool]:
    """The reports a notice goes to (innermost first) and whether it becomes a Python warning."""
    active = _ACTIVE.get()
    out: list[Report] = []
    for report in reversed(active):
        out.append(report)
        if report.isolated:
            break
    return out, all(report.warn for report in active)  # any report may silence the warnings inside it


def notify(
    kind: NoticeKind,
    message: str,
    *,
    file: str | os.PathLike[str] | None = None,
    line: int | None = None,
    field: str | None = None,
    stacklevel: int = 1,
) -> Notice:
    """Report a notice to the active reports and (unless suppressed, or :data:`INFORMATIONAL`) as a Python warning.

    Args:
        kind: What it is about.
        message: One line, without the file and line (they are added when printed).
        file, line, field: Where (each optional).
        stacklevel: As for :func:`warnings.warn`, counted from the caller of ``notify``.

    Returns:
        The notice.
    """
    notice = Notice(NoticeKind(kind), message, None if file is None else os.fspath(file), line, field)
    receivers, warn = _receivers()
    for report in receivers:
        report.notices.append(notice)
    if warn and notice.kind not in INFORMATIONAL:
        warnings.warn(MotionFormatWarning(notice), stacklevel=stacklevel + 1)
    return notice


def relay(notices: Iterable[Notice]) -> None:
    """Hand notices collected in an isolated report on to the active reports (no new warning)."""
    receivers, _ = _receivers()
    for notice in notices:
        for report in receivers:
            report.notices.append(notice)


#: The :func:`overflow_noted` blocks running, innermost last: each one's function that reports
#: what it has seen so far (once), for :func:`check_commit` to call before an output is put in place.
_OVERFLOWS: contextvars.ContextVar[tuple[Callable[[], None], ...]] = contextvars.ContextVar(
    "motion_formats_overflows", default=()
)


@contextlib.contextmanager
def overflow_noted(file: str | os.PathLike[str], doing: str) -> Iterator[None]:
    """numpy's floating-point warnings inside (overflow, invalid value, division by zero) become
    one :attr:`NoticeKind.OVERFLOW` notice on ``file`` instead of bare RuntimeWarnings.

    A codec that knows which of its fields gives such values refuses them by name; this is
    the net under every codec's read and write, so that no ``overflow encountered in
    multiply`` reaches the console without the file it came from. The notice is reported when
    the block ends, or earlier when a strict write inside is about to put its output in place
    (:func:`check_commit`), so that the output made with those values is refused. Nothing is
    reported when the block raises before either (its error says more).

    Args:
        file: The file read or written.
        doing: ``"reading"`` or ``"writing"``, for the message.
    """
    import numpy as np  # only the codecs, which load numpy anyway, come here

    seen: dict[str, None] = {}
    reported = False

    def note(kind: str, flag: int) -> None:
        seen[kind] = None

    def report() -> None:
        nonlocal reported
        if seen and not reported:
            reported = True
            notify(
                NoticeKind.OVERFLOW,
                f"{'/'.join(seen)} in arithmetic while {doing} values near the end of the float range: "
                "some results are infinite or NaN",
                file=file,
                stacklevel=4,
            )

    token = _OVERFLOWS.set((*_OVERFLOWS.get(), report))
    try:
        with np.errstate(over="call", invalid="call", divide="call", call=note):
            yield
    finally:
        _OVERFLOWS.reset(token)
    report()


def check_commit(path: str | os.PathLike[str]) -> None:
    """Raise when a strict report is active and holds a notice: ``path`` must not be written.

    Raises:
        StrictNoticeError: Naming ``path`` and how many notices stand in the way.
    """
    active = _ACTIVE.get()
    if any(report.strict for report in active):
        for report_overflow in _OVERFLOWS.get():  # values that overflowed on the way to this output
            report_overflow()
    for report in active:
        if report.strict and report.warned:
            count = len(report.warned)
            raise StrictNoticeError(path, f"not written: {count} warning{'s' if count > 1 else ''} with --strict")


__all__ = [
    "INFORMATIONAL",
    "MotionFormatWarning",
    "Notice",
    "NoticeKind",
    "Report",
    "StrictNoticeError",
    "check_commit",
    "collect",
    "notify",
    "overflow_noted",
    "relay",
]
