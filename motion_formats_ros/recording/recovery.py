"""Recovery: the motion file a journal stands for, written (after a crash, or to finish a recording)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.errors import ReadError
from ..core.model import MotionFile
from .assembly import assemble
from .journal import MAGIC, JournalContent, read_journal


def recover(
    journal: str | os.PathLike[str],
    output: str | os.PathLike[str] | None = None,
    *,
    overwrite: bool = False,
    limit: int | None = None,
    **options: Any,
) -> tuple[Path, MotionFile, JournalContent]:
    """Write the motion file a journal stands for (after a crash, or to finish a recording).

    The output defaults to a file beside the journal (:func:`.output_path.default_output`), never
    the journal; the options to the journal's. ``limit``: see :func:`read_journal`.
    """
    from ..core.atomic import check_output
    from ..registry import codec_for_path, write
    from .output_path import default_output

    content = read_journal(journal, limit)
    meta = content.metadata
    out = Path(output) if output is not None else default_output(journal, meta, len(MAGIC))
    check_output(out, [journal], overwrite)
    try:
        motion_file = assemble(
            content,
            joints=meta.get("joints") or None,
            stamps=meta.get("stamps", "auto"),
            rate=float(meta.get("rate", 0.0)),
        )
    except (ValueError, TypeError) as exc:  # nothing recorded, or metadata of the wrong type
        raise ReadError(journal, str(exc)) from None
    # The recording's writer options (e.g. a .seq version) apply where the output's codec declares them.
    write_options = codec_for_path(out, for_write=True).accepted(dict(meta.get("write_options", {})), "write")
    write_options.update(options)
    write(motion_file, out, overwrite=overwrite, **write_options)
    return out, motion_file, content
