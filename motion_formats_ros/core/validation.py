"""What a codec's own validation of a file found, for ``motion-formats validate``.

A codec whose format has more to check than its reader reports (a scene: every problem
with its JSON path, errors and warnings alike) offers ``validate(path) -> Validation``;
the CLI prints it without knowing the format.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any


@dataclasses.dataclass(frozen=True)
class Validation:
    """The outcome of validating one file.

    Attributes:
        valid: Whether the file is valid (warnings allowed).
        problems: Every problem found, in order: each prints as one line (its place and
            message) and is a dataclass whose fields are the ``--json`` record.
        summary: The closing line after ``FILE:``, e.g. ``valid scene (…)`` or ``2 error(s)``.
        canonical: The file's canonical form as plain data (``--canonical``), when valid
            and the format has one.
    """

    valid: bool
    problems: Sequence[Any]
    summary: str
    canonical: Callable[[], Any] | None = None


__all__ = ["Validation"]
