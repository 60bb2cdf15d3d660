"""Where ``recover`` writes a journal's motion file when no output is given.

Beside the journal, under the journal's own name less ``.journal``, ending in the suffix of
the output the recording was made for (``run.msgpack.journal`` → ``run.msgpack``,
``crash.journal`` of a ``.seq`` recording → ``crash.seq``). The journal's metadata only
lends that suffix: a folder or path it names (``../../x.csv``, an absolute path) is never
written to, and a notice says so when it differs from where the file goes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any

from ..core.errors import ReadError
from ..core.notices import NoticeKind, notify

#: The suffix of the recorder's journals (``OUTPUT.journal``).
JOURNAL_SUFFIX = ".journal"


def _suffix(recorded: Any, fmt: Any) -> str | None:
    """The output suffix the metadata gives: the recorded output's (the longest registered one
    it ends with), else the first of the recorded format's; None when neither names one."""
    from ..registry import CODECS

    writable = [info for info in CODECS.values() if info.writable]
    if isinstance(recorded, str):
        name = PurePath(recorded).name.lower()
        suffixes = sorted((s for info in writable for s in (*info.suffixes, *info.shared)), key=len, reverse=True)
        found = next((s for s in suffixes if name.endswith(s) and name != s), None)
        if found is not None:
            return found
    info = next((info for info in writable if info.name == fmt and info.suffixes), None)
    return info.suffixes[0] if info is not None else None


def default_output(journal: str | os.PathLike[str], metadata: Mapping[str, Any], offset: int) -> Path:
    """The file ``recover`` writes for ``journal`` without an output (see the module's docstring).

    Raises:
        ReadError: The metadata (at byte ``offset``) names no output file nor format.
    """
    recorded = metadata.get("output")
    suffix = _suffix(recorded, metadata.get("format"))
    if suffix is None:
        raise ReadError(journal, "the metadata names no output file: give one", offset=offset)
    path = Path(journal)
    stem = path.name[: -len(JOURNAL_SUFFIX)] if path.name.endswith(JOURNAL_SUFFIX) else path.name
    name = stem if stem.lower().endswith(suffix) and len(stem) > len(suffix) else stem + suffix
    out = path.with_name(name)
    if isinstance(recorded, str) and not _same_place(recorded, out):
        notify(
            NoticeKind.READ_CHOICE,
            f"the journal names {recorded!r} as its output; written beside the journal instead (give OUTPUT to choose)",
            file=out,
            stacklevel=3,
        )
    return out


def _same_place(recorded: str, out: Path) -> bool:
    """Whether the metadata's output is ``out``, which is beside the journal (the recorder names
    it by its absolute path; a relative one is read from the journal's folder)."""
    try:
        return (out.parent / recorded).resolve() == out.resolve()
    except (OSError, RuntimeError, ValueError):
        return False


__all__ = ["JOURNAL_SUFFIX", "default_output"]
