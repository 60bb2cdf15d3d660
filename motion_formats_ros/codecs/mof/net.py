"""A parsed ``.mof`` motion net expanded: from a label through its transitions to the rows of one motion."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .parser import ALL_MOTIONS, EXTERN, SUFFIX, MofFile, Row, StiffnessLine, parse


@dataclasses.dataclass
class Expansion:
    """The rows one run through the net plays, in order.

    Attributes:
        rows: (file, row, stiffness line issued just before the row or None).
        loop_from: Index into ``rows`` where the loop starts (None: no loop).
        loop_label: Label the looping jump goes to.
        tail_stiffness: A stiffness line issued after the last row.
        files: Every file the run went through, in order.
        marks: (number of rows played before, file, label) for every label the run
            passes, in order.
    """

    rows: list[tuple[MofFile, Row, StiffnessLine | None]]
    loop_from: int | None = None
    loop_label: str | None = None
    tail_stiffness: StiffnessLine | None = None
    files: list[MofFile] = dataclasses.field(default_factory=list)
    marks: list[tuple[int, MofFile, str]] = dataclasses.field(default_factory=list)


class MotionNet:
    """The ``.mof`` files of one folder, parsed on demand."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._files: dict[str, MofFile] = {}

    def add(self, mof: MofFile) -> None:
        self._files.setdefault(mof.motion_id, mof)

    def motion(self, name: str, at: MofFile, line: int) -> MofFile:
        """The file of motion ``name`` (a jump at ``at``:``line`` refers to it)."""
        if name == at.motion_id:
            return at
        if name not in self._files:
            if not name or any(c in name for c in "/\\\0") or name in (".", ".."):
                raise at.fail(line, f"invalid target motion {name!r} (expected the name of a .mof file in the folder)")
            path = self.folder / f"{name}{SUFFIX}"
            try:
                found = path.is_file()
            except OSError:  # e.g. a name too long for the file system
                found = False
            if not found:
                raise at.fail(line, f"unknown target motion {name!r} (no {path.name} in {self.folder})")
            mof = parse(path)
            self._files[name] = mof
        return self._files[name]

    def expand(self, start: MofFile, requested: str | None = None) -> Expansion:
        """Run from ``label start`` of ``start`` with ``requested`` (default: its own motion)."""
        requested = requested or start.motion_id
        out = Expansion(rows=[], files=[start])
        seen: dict[tuple[Path, int], int] = {}
        mof, index = start, start.labels["start"]
        pending: StiffnessLine | None = None
        while index < len(mof.nodes):
            if (mof.path, index) not in seen:
                out.marks.extend((len(out.rows), mof, name) for name, at in mof.labels.items() if at == index)
            seen.setdefault((mof.path, index), len(out.rows))
            node = mof.nodes[index]
            if isinstance(node, Row):
                out.rows.append((mof, node, pending))
                pending = None
                index += 1
            elif isinstance(node, StiffnessLine):
                pending = node
                index += 1
            elif node.condition in (ALL_MOTIONS, requested):
                if node.target == EXTERN:
                    break
                target = self.motion(node.target, mof, node.line)
                if node.label not in target.labels:
                    raise mof.fail(node.line, f"unknown label {node.label!r} in motion {node.target!r}")
                if target.joints is not None and start.joints is not None and target.joints != start.joints:
                    raise target.fail(
                        _first_row_line(target),
                        f"wrong column count: {target.joints} joints, the net started in "
                        f"{start.path.name} with {start.joints}",
                    )
                dest = (target.path, target.labels[node.label])
                if dest in seen:
                    played = seen[dest]
                    if played == len(out.rows):
                        raise mof.fail(
                            node.line,
                            f"transition loop to {node.target} {node.label} that never plays a row",
                        )
                    out.loop_from = played
                    out.loop_label = node.label
                    break
                if target not in out.files:
                    out.files.append(target)
                mof, index = target, dest[1]
            else:
                index += 1
        out.tail_stiffness = pending
        return out


def _first_row_line(mof: MofFile) -> int:
    for node in mof.nodes:
        if isinstance(node, (Row, StiffnessLine)):
            return node.line
    return mof.first_line
