"""Recovery: the motion file a journal stands for, written (after a crash, or to finish a recording)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import ReadError
from ..core.model import MotionFile
from ..core.notices import NoticeKind, notify
from .assembly import assemble
from .journal import MAGIC, JournalContent, read_journal

if TYPE_CHECKING:
    from ..registry import CodecInfo

#: The group of what the robot did (joint states, TF, IMUs): what a recording is for.
MEASURED = "actual"
#: How a line about a file of one motion (which names no group) says which group it holds.
_WHAT = {MEASURED: "the measured motion", "target": "the commanded motion"}


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
    codec = codec_for_path(out, for_write=True)
    motion_file = groups_to_write(motion_file, codec, out)
    # The recording's writer options (e.g. a .seq version) apply where the output's codec declares them.
    write_options = codec.accepted(dict(meta.get("write_options", {})), "write")
    write_options.update(options)
    write(motion_file, out, overwrite=overwrite, **write_options)
    return out, motion_file, content


def groups_to_write(motion_file: MotionFile, codec: CodecInfo, path: str | os.PathLike[str]) -> MotionFile:
    """The part of a recording that a file of ``codec`` at ``path`` holds: all of it, or, where a
    file holds one motion (a ``.seq``), the measured group (the point of recording) with a
    warning naming the commanded group left out. (The recorder writes with this too.)"""
    groups = motion_file.groups
    if not codec.one_motion or len(groups) < 2 or MEASURED not in groups:
        return motion_file
    left = ", ".join(f"{name!r} ({m.num_frames} frames)" for name, m in groups.items() if name != MEASURED)
    notify(
        NoticeKind.LOSSY_WRITE,
        f"a {codec.suffixes[0]} file holds one motion: the measured {MEASURED!r} group is written, the "
        f"commanded group {left} is not (record to OMF, .msgpack, to keep both)",
        file=path,
        stacklevel=2,
    )
    return dataclasses.replace(motion_file, groups={MEASURED: groups[MEASURED]})


def written_lines(motion_file: MotionFile, codec: CodecInfo, path: str | os.PathLike[str]) -> list[str]:
    """What was written to ``path``, a line per group: ``run.msgpack: actual: 10 frames, …``. A file
    of one motion names no group (it reads back as ``target`` whatever it holds): ``run.seq:
    10 frames, … (the measured motion)``."""
    lines = []
    for name, m in motion_file.groups.items():
        size = f"{m.num_frames} frames, {m.duration:.3f} s, {len(m.joint_names)} joints"
        if codec.one_motion and len(motion_file.groups) == 1:
            lines.append(f"{os.fspath(path)}: {size} ({_WHAT.get(name, f'the group {name!r}')})")
        else:
            lines.append(f"{os.fspath(path)}: {name}: {size}")
    return lines
