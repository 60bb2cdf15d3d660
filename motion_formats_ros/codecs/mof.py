"""B-Human / GermanTeam motion nets ``.mof``.

A ``.mof`` file is one motion of a *motion net*: ``motion_id = NAME``, then labels,
rows of joint angles (22 or 26 joints in degrees, ``*`` = keep the previous target,
``-`` = joint off, then ``Int`` and ``Dur`` in ms), ``hardness``/``stiffness`` lines
(per-joint 0..100 or ``*`` = default, then a ramp time in ms) and transitions
``transition COND MOTION LABEL`` (taken when the requested motion is COND or COND is
``allMotions``; MOTION may be another ``.mof`` of the same folder, ``extern`` is the
net's entry and exit).

Reading expands one motion into keyframes the way B-Human's runtime plays it: start at
``label start`` with the motion itself requested, follow the transitions that fire
(also into other files of the folder) and stop when the net exits to ``extern`` or a
jump returns to a place already played (the loop, reported as ``Motion.loop``):

- keyframe 0 at t = 0 is the first row's target (the runtime interpolates from the
  robot's current pose; pass ``start_pose`` to start from a given pose instead), every
  row's target is a keyframe reached ``Dur`` ms after the previous one;
- ``Int`` is a bit field (:data:`INT_BITS`, per code base): bit 0 set: linear
  interpolation from the previous target (``"linear"``; Nao Devils' bit 1 with it:
  ``"cosine"`` easing); clear: jump to the target and hold it (``"next"``). deShake and
  unknown bits warn once each and are kept in the motion's :class:`MofMotionRecord` for writing back;
- ``*`` or 2000/20000 holds the previous target (mask ``keep``), ``-`` or 1000/10000
  gives NaN (mask ``off``);
- hardness/stiffness: the channel ``stiffness`` (0..1, NaN = default) holds the command in
  force at each keyframe, the time column ``stiffness_ramp`` (seconds) the ramp time of
  the line issued before that keyframe's row (NaN where none).

Columns are named by a joint map from ``config/joint_maps`` (26: ``nao_26``; 22: B-Human
2009's ``nao_bhuman2009_22`` or 2010–2014's ``nao_bhuman_22``, see
:func:`choose_joint_map`) or given as the ``joint_map`` option; values are converted to
the standard NAO convention and radians. ``Motion.read_choices`` says how each open
reading was settled (``info`` prints it); guesses also warn. A file with no keyframe
rows (``extern.mof``) raises :class:`NoMotionError`, which carries its description.

Writing produces one self-contained file: ``motion_id``, ``label start``, a header
comment naming the columns, hardness/stiffness lines where the channel changes or a
ramp was given, the rows, a loop label and transition when the motion loops, and the
closing ``transition allMotions extern start``. Reading a ``.mof`` and writing it gives
a file with the same keyframes. A write that loses something warns with the keyframes
dropped and the largest deviation of the written file (read back) from the source.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..core import joint_maps
from ..core.atomic import check_writable, write_bytes_atomic
from ..core.errors import NoMotionError, ReadError, SelectionError, WriteError, excerpt
from ..core.inputs import read_input
from ..core.keyframes import reduce_keyframes, warn_lossy_write
from ..core.model import CodecRecord, Motion, MotionFile
from ..core.notices import NoticeKind, collect, notify
from ..core.options import ChoiceEnum, option

JOINT_COUNTS = (22, 26)
#: Default joint map per column count.
DEFAULT_MAPS = {22: "nao_bhuman_22", 26: "nao_26"}
EXTERN = "extern"
ALL_MOTIONS = "allMotions"
STIFFNESS = "stiffness"
STIFFNESS_RAMP = "stiffness_ramp"
STIFFNESS_KEYWORDS = ("hardness", "stiffness")
MASK_OFF = "off"
MASK_KEEP = "keep"
SUFFIX = ".mof"

_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\Z")
_INTEGER = re.compile(r"[0-9]+\Z")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


# --------------------------------------------------------------------------- parsed net
@dataclasses.dataclass(frozen=True)
class Row:
    """Joint targets: tokens (numbers, ``*``, ``-``), Int code and duration (ms)."""

    line: int
    tokens: tuple[str, ...]
    interpolation: int
    duration: float


@dataclasses.dataclass(frozen=True)
class StiffnessLine:
    """``hardness``/``stiffness`` values (numbers or ``*``) and ramp time (ms)."""

    line: int
    keyword: str
    tokens: tuple[str, ...]
    ramp: float


@dataclasses.dataclass(frozen=True)
class Transition:
    """``transition CONDITION TARGET LABEL``."""

    line: int
    condition: str
    target: str
    label: str


Node = Row | StiffnessLine | Transition


@dataclasses.dataclass
class MofFile:
    """One parsed ``.mof``: its nodes in file order and label → node index."""

    path: Path
    motion_id: str
    nodes: list[Node]
    labels: dict[str, int]
    label_lines: dict[str, int]
    joints: int | None
    first_line: int
    comments: list[tuple[int, str]] = dataclasses.field(default_factory=list)

    def fail(self, line: int | None, reason: str) -> ReadError:
        return ReadError(self.path, reason, line=line)


def _number(token: str, mof: Path, line: int, what: str) -> float:
    if not _NUMBER.match(token):
        raise ReadError(mof, f"bad number {token!r} for {what}", line=line)
    return float(token)


def parse(path: Path) -> MofFile:
    """Parse one ``.mof`` file (no expansion)."""
    raw = read_input(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return parse_text(text, path)


def parse_text(text: str, path: Path) -> MofFile:
    """Parse ``.mof`` text (``path`` names it in errors)."""
    motion_id: str | None = None
    nodes: list[Node] = []
    labels: dict[str, int] = {}
    label_lines: dict[str, int] = {}
    joints: int | None = None
    joints_line = 0
    first_line = 1
    comments: list[tuple[int, str]] = []

    def fail(line: int, reason: str) -> ReadError:
        return ReadError(path, reason, line=line)

    def check_count(count: int, line: int, what: str, extra: str) -> None:
        nonlocal joints, joints_line
        if count not in JOINT_COUNTS:
            raise fail(
                line,
                f"wrong column count: {what} has {count} joint values, expected 22 or 26 (then {extra})",
            )
        if joints is None:
            joints, joints_line = count, line
        elif count != joints:
            raise fail(line, f"wrong column count: {what} has {count} joint values, line {joints_line} has {joints}")

    for lineno, raw_line in enumerate(text.split("\n"), 1):
        tokens = raw_line.split()
        if not tokens:
            continue
        first = tokens[0]
        if first.startswith(('"', "//")):
            comments.append((lineno, raw_line.strip()))
            continue
        if motion_id is None:
            if first.startswith("motion_id"):
                if len(tokens) != 3 or tokens[0] != "motion_id" or tokens[1] != "=":
                    raise fail(lineno, "expected `motion_id = NAME` (spaces around `=`)")
                motion_id = tokens[2]
                first_line = lineno
                continue
            raise fail(lineno, f"expected `motion_id = NAME` first, got {excerpt(first)}")
        if first == "motion_id":
            raise fail(lineno, "a second motion_id")
        if first == "label":
            if len(tokens) != 2:
                raise fail(lineno, "expected `label NAME`")
            name = tokens[1]
            if name in labels:
                raise fail(lineno, f"label {name!r} defined twice (first at line {label_lines[name]})")
            labels[name] = len(nodes)
            label_lines[name] = lineno
            continue
        kind = "transition" if first == "transition" else ("hardness line" if first in STIFFNESS_KEYWORDS else "row")
        if not labels:
            raise fail(lineno, f"a {kind} before any label (`label start` must come first)")
        if first == "transition":
            if len(tokens) != 4:
                raise fail(lineno, "expected `transition CONDITION MOTION LABEL`")
            nodes.append(Transition(lineno, tokens[1], tokens[2], tokens[3]))
        elif first in STIFFNESS_KEYWORDS:
            values = tokens[1:-1]
            check_count(len(values), lineno, f"this {first} line", "the ramp time")
            for i, tok in enumerate(values):
                if tok != "*":
                    _number(tok, path, lineno, f"{first} of column {i + 1}")
            ramp = _number(tokens[-1], path, lineno, f"the {first} ramp time")
            if ramp < 0:
                raise fail(lineno, f"negative {first} ramp time {tokens[-1]}")
            nodes.append(StiffnessLine(lineno, first, tuple(values), ramp))
        else:
            values = tokens[:-2]
            check_count(len(values), lineno, "this row", "Int and Dur")
            for i, tok in enumerate(values):
                if tok not in ("*", "-"):
                    _number(tok, path, lineno, f"joint column {i + 1}")
            if not _INTEGER.match(tokens[-2]):
                raise fail(lineno, f"bad number {tokens[-2]!r} for Int (0 or 1, bit 1 deShake)")
            duration = _number(tokens[-1], path, lineno, "Dur (ms)")
            if duration < 0:
                raise fail(lineno, f"negative duration {tokens[-1]}")
            nodes.append(Row(lineno, tuple(values), int(tokens[-2]), duration))
    if motion_id is None:
        raise fail(1, "no `motion_id = NAME` line")
    if "start" not in labels:
        raise fail(min(label_lines.values(), default=first_line), "no `label start`")
    mof = MofFile(path, motion_id, nodes, labels, label_lines, joints, first_line, comments)
    for node in nodes:
        if isinstance(node, Transition) and node.target == motion_id and node.label not in labels:
            raise fail(node.line, f"unknown label {node.label!r} in motion {motion_id!r}")
    last = nodes[-1] if nodes else None
    if motion_id != EXTERN and not (isinstance(last, Transition) and last.condition == ALL_MOTIONS):
        notify(
            NoticeKind.MISSING,
            f"missing final `transition {ALL_MOTIONS} extern start`",
            file=path,
            line=last.line if last else first_line,
            stacklevel=2,
        )
    return mof


# --------------------------------------------------------------------------- expansion
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


# --------------------------------------------------------------------------- generations
#: NAO joint limits in degrees, standard convention (Aldebaran's NAO documentation, body
#: H25 V3.3 and later). Used to tell the 22-column conventions apart by their result.
NAO_LIMITS_DEG: dict[str, tuple[float, float]] = {
    "HeadYaw": (-119.5, 119.5),
    "HeadPitch": (-38.5, 29.5),
    "LShoulderPitch": (-119.5, 119.5),
    "LShoulderRoll": (-18.0, 76.0),
    "LElbowYaw": (-119.5, 119.5),
    "LElbowRoll": (-88.5, -2.0),
    "LWristYaw": (-104.5, 104.5),
    "RShoulderPitch": (-119.5, 119.5),
    "RShoulderRoll": (-76.0, 18.0),
    "RElbowYaw": (-119.5, 119.5),
    "RElbowRoll": (2.0, 88.5),
    "RWristYaw": (-104.5, 104.5),
    "LHipYawPitch": (-65.62, 42.44),
    "LHipRoll": (-21.74, 45.29),
    "LHipPitch": (-88.0, 27.73),
    "LKneePitch": (-5.29, 121.04),
    "LAnklePitch": (-68.15, 52.86),
    "LAnkleRoll": (-22.79, 44.06),
    "RHipYawPitch": (-65.62, 42.44),
    "RHipRoll": (-45.29, 21.74),
    "RHipPitch": (-88.0, 27.73),
    "RKneePitch": (-5.90, 121.47),
    "RAnklePitch": (-67.97, 53.40),
    "RAnkleRoll": (-44.06, 22.80),
}
#: Limits tests closer than this (degrees of total excess) decide nothing.
LIMITS_MARGIN_DEG = 0.5

#: Numbers some generations write instead of ``*`` and ``-``: B-Human's JointData
#: ``ignore`` / ``off`` (2000 / 1000 up to the 2014 code, 20000 / 10000 from 2015 on).
#: No joint reaches these angles, so they are never read as angles.
KEEP_NUMBERS = (2000.0, 20000.0)
OFF_NUMBERS = (1000.0, 10000.0)

#: The 22-column conventions. A header comment naming the columns with one map's
#: ``source`` labels (2009: HP HT AL0 ...; 2010-2014: HY HP LSP ...) decides between them.
GENERATIONS_22 = {
    "nao_bhuman_22": "B-Human 2010-2014",
    "nao_bhuman2009_22": "B-Human 2009",
}
_MAP_COMMENT = re.compile(r"\bjoint map ([A-Za-z0-9_]+)")
_BITS_COMMENT = re.compile(r"\bInt bits:? *([A-Za-z]+)")

#: What each bit of the Int column means in the code that plays the file (each code
#: base's SpecialActions module): B-Human (2009-2019 releases, and NomadZ, a fork of it)
#: and Nao Devils (bit 1 eases the segment, p(r) = a + (b - a)(1 - cos(pi r))/2, only
#: together with bit 0; deShake moves to bit 2).
INT_BITS: dict[str, dict[int, str]] = {
    "bhuman": {0: "linear", 1: "deShake"},
    "naodevils": {0: "linear", 1: "cosine", 2: "deShake"},
}
INT_BITS_TEAMS = {"bhuman": "B-Human", "naodevils": "Nao Devils"}


class IntBits(ChoiceEnum):
    """Whose meaning of the Int column's bits (the keys of :data:`INT_BITS`)."""

    BHUMAN = "bhuman"
    NAODEVILS = "naodevils"


@dataclasses.dataclass(frozen=True)
class Choice:
    """How a reading that a file leaves open was chosen.

    Attributes:
        value: The reading (a joint map name, an Int bit convention).
        how: ``option``, ``columns``, ``comment`` (the file says so), ``limits`` (the
            NAO joint limits test), ``bits`` (the bits used), ``default`` (nothing
            decides) or ``unused`` (nothing depends on it).
        reason: One sentence for ``info`` and warnings.
    """

    value: str
    how: str
    reason: str

    @property
    def guessed(self) -> bool:
        """True when nothing in the file decided (worth a warning)."""
        return self.how in ("limits", "bits", "default")


def describe_net(mof: MofFile) -> dict[str, Any]:
    """Labels, transitions (and their targets) and row counts of one parsed file."""
    transitions = [n for n in mof.nodes if isinstance(n, Transition)]
    targets = sorted({t.target for t in transitions if t.target not in (EXTERN, mof.motion_id)})
    return {
        "format": "mof",
        "motion_id": mof.motion_id,
        "rows": sum(isinstance(n, Row) for n in mof.nodes),
        "stiffness_lines": sum(isinstance(n, StiffnessLine) for n in mof.nodes),
        "labels": [{"name": name, "line": mof.label_lines[name]} for name in mof.labels],
        "transitions": [
            {"line": t.line, "condition": t.condition, "target": t.target, "label": t.label} for t in transitions
        ],
        "targets": targets,
    }


_SYMBOLS = {"*": MASK_KEEP, "-": MASK_OFF}


def _token_state(token: str) -> str:
    """``keep``, ``off`` or ``angle`` for a row's joint token."""
    if token in _SYMBOLS:
        return _SYMBOLS[token]
    value = float(token)
    if value in KEEP_NUMBERS:
        return MASK_KEEP
    if value in OFF_NUMBERS:
        return MASK_OFF
    return "angle"


def _limit_test(run: Expansion, jmap: joint_maps.JointMap) -> tuple[int, float, str]:
    """Values outside the NAO limits under ``jmap``: count, total excess (deg), the worst."""
    count, total, worst, where = 0, 0.0, 0.0, ""
    limits = [NAO_LIMITS_DEG.get(name) for name in jmap.names]
    for mof, row, _ in run.rows:
        standard = jmap.to_standard(_row_values(row)[0])
        for j, lim in enumerate(limits):
            v = standard[j]
            if lim is None or math.isnan(v):
                continue
            excess = max(lim[0] - v, v - lim[1], 0.0)
            if excess > 0:
                count += 1
                total += excess
                if excess > worst:
                    worst = excess
                    where = f"{jmap.names[j]} {v:g}° at {mof.path.name}:{row.line}"
    return count, total, where


def _comment_choice(run: Expansion, pattern: re.Pattern[str], known: Mapping[str, Any]) -> tuple[str, str] | None:
    """(value, where) of the first comment of the run's files naming a known value."""
    for mof in run.files:
        for line, text in mof.comments:
            hit = pattern.search(text)
            if hit and hit.group(1) in known:
                return hit.group(1), f"{mof.path.name}:{line}"
    return None


def choose_joint_map(run: Expansion, joints: int, spec: Any = None) -> tuple[joint_maps.JointMap, Choice]:
    """The joint map for the columns: given, else what the files say, else the NAO limits test."""
    if spec is not None:
        jmap = joint_maps.load(spec)
        return jmap, Choice(jmap.name, "option", "given as the joint_map option")
    if joints != 22:
        name = DEFAULT_MAPS[joints]
        return joint_maps.load(name), Choice(
            name,
            "columns",
            f"{joints} joint columns: the 2015+ layout (B-Human, NomadZ, Nao Devils), standard NAO convention",
        )
    named = _comment_choice(run, _MAP_COMMENT, joint_maps.available())
    if named is not None:
        jmap = joint_maps.load(named[0])
        if len(jmap) == joints and jmap.format == "mof":
            return jmap, Choice(jmap.name, "comment", f"the comment at {named[1]} names it")
    candidates = {name: joint_maps.load(name) for name in GENERATIONS_22}
    labels = {
        name: set(m.sources).difference(*(o.sources for other, o in candidates.items() if other != name))
        for name, m in candidates.items()
    }
    votes: dict[str, str] = {}
    for mof in run.files:
        for line, text in mof.comments:
            words = set(text.lstrip('"/').split())
            hits = {name: words & names for name, names in labels.items()}
            found = [name for name, h in hits.items() if len(h) >= 3]
            if len(found) == 1 and not any(hits[n] for n in hits if n != found[0]):
                words_shown = " ".join(text.lstrip('"/').split()[:5])
                votes.setdefault(found[0], f"{mof.path.name}:{line} ({words_shown} …)")
    if len(votes) == 1:
        name, where = next(iter(votes.items()))
        return joint_maps.load(name), Choice(
            name, "comment", f"the column header comment at {where} uses {GENERATIONS_22[name]}'s column names"
        )
    conflict = (
        f"header comments disagree ({', '.join(votes.values())}); " if votes else "no comment names the columns; "
    )
    tests = {name: _limit_test(run, m) for name, m in candidates.items()}
    (best, (n_b, e_b, w_b)), (other, (n_o, e_o, w_o)) = sorted(tests.items(), key=lambda kv: kv[1][1])
    if e_o - e_b > LIMITS_MARGIN_DEG:
        detail = f"as {GENERATIONS_22[best]} {n_b} value(s) lie outside the NAO joint limits" + (
            f" (worst {w_b})" if w_b else ""
        )
        detail += f", as {GENERATIONS_22[other]} {n_o} (by {e_o:.0f}° in all, worst {w_o})"
        return joint_maps.load(best), Choice(best, "limits", conflict + detail)
    name = DEFAULT_MAPS[22]
    return joint_maps.load(name), Choice(
        name,
        "default",
        conflict + f"the values fit the NAO joint limits equally well as {' and as '.join(GENERATIONS_22.values())}: "
        f"read as {GENERATIONS_22[name]}, the default",
    )


def choose_int_bits(run: Expansion, joints: int, spec: IntBits | None = None) -> Choice:
    """Whose meaning of the Int bits the net follows (see :data:`INT_BITS`)."""
    if spec is not None:
        return Choice(str(spec), "option", "given as the int_bits option")
    named = _comment_choice(run, _BITS_COMMENT, INT_BITS)
    if named is not None:
        return Choice(named[0], "comment", f"the comment at {named[1]} names them")
    used = [(mof, row) for mof, row, _ in run.rows if row.interpolation > 1]
    if not used:
        return Choice("bhuman", "unused", "only bit 0 (linear) is used, the same in every code base")
    if joints == 22:
        return Choice("bhuman", "columns", "22 joint columns: B-Human's code (Nao Devils' nets have 26)")
    bit2 = [(m, r) for m, r in used if r.interpolation & 4]
    if bit2 and all(r.interpolation < 8 for _, r in used):
        mof, row = bit2[0]
        return Choice(
            "naodevils",
            "bits",
            f"Int {row.interpolation} at {mof.path.name}:{row.line} sets bit 2, which only Nao Devils' code "
            "defines (deShake; bit 1 is then cosine easing)",
        )
    bit1 = [(m, r) for m, r in used if r.interpolation & 2]
    if not bit1:
        return Choice("bhuman", "unused", "bits 1 and 2 unused: the code bases agree on the rest")
    mof, row = bit1[0]
    return Choice(
        "bhuman",
        "default",
        f"Int {row.interpolation} at {mof.path.name}:{row.line}: bit 1 is deShake in B-Human's code (read so) "
        "and cosine easing in Nao Devils'; int_bits='naodevils' reads Nao Devils' nets",
    )


@dataclasses.dataclass
class MofRecord(CodecRecord):
    """What a ``.mof`` read keeps of the file for writing it back (``MotionFile.record(MofRecord)``).

    Attributes:
        motion_id: The file's ``motion_id``.
        requested: The motion read (``motion_id`` unless the ``motion`` option chose another).
        files: The files of the net the rows came from, in order.
        stiffness_keyword: ``stiffness`` or ``hardness`` as the file spells it (None: no such line).
        joint_map: How the joint map was chosen.
        int_bits: How the meaning of the Int bits was chosen.
    """

    codec: ClassVar[str] = "mof"
    motion_id: str
    requested: str
    files: list[str]
    stiffness_keyword: str | None
    joint_map: Choice
    int_bits: Choice


@dataclasses.dataclass
class MofMotionRecord(CodecRecord):
    """What a ``.mof`` read keeps of the motion for writing it back (``Motion.record(MofMotionRecord)``).

    Attributes:
        int_bits: Whose meaning of the Int bits the codes follow (``bhuman``, ``naodevils``).
        int_codes: Each keyframe's Int code as written (None for the first), when any is
            more than plain linear / hold (deShake, easing, unknown bits).
        sentinels: The numbers the file wrote for keep / off, when it wrote them as numbers only.
        loop_label: The label the loop starts at.
        tail_stiffness: A stiffness line after the last row.
    """

    codec: ClassVar[str] = "mof"
    int_bits: str | None = None
    int_codes: list[int | None] | None = None
    sentinels: dict[str, str] = dataclasses.field(default_factory=dict)
    loop_label: str | None = None
    tail_stiffness: StiffnessLine | None = None


def segment_kind(code: int, bits: str) -> str:
    """The model's interpolation kind of a row with Int ``code`` under convention ``bits``."""
    if not code & 1:
        return "next"
    if INT_BITS[bits].get(1) == "cosine" and code & 2:
        return "cosine"
    return "linear"


def _warn_flags(run: Expansion, bits: str) -> None:
    """One warning per Int bit that changes nothing in a trajectory (deShake, unknown bits)."""
    meaning = INT_BITS[bits]
    team = INT_BITS_TEAMS[bits]
    seen: dict[int, list[tuple[MofFile, Row]]] = {}
    for mof, row, _ in run.rows:
        code = row.interpolation
        for bit in range(code.bit_length()):
            if code >> bit & 1 and meaning.get(bit) not in ("linear", "cosine"):
                seen.setdefault(bit, []).append((mof, row))
    for bit, rows in sorted(seen.items()):
        mof, row = rows[0]
        more = f" (and {len(rows) - 1} more row(s))" if len(rows) > 1 else ""
        if meaning.get(bit) == "deShake":
            what = (
                f"bit {bit} is deShake in {team}'s code (the arm joints relax at random while the row plays); "
                "it means nothing for a trajectory"
            )
        else:
            what = f"bit {bit} (value {1 << bit}) means nothing in {team}'s code"
        notify(
            NoticeKind.KEPT_UNUSED,
            f"Int {row.interpolation}{more}: {what}: ignored, kept for writing back",
            file=mof.path,
            line=row.line,
            stacklevel=3,
        )


# --------------------------------------------------------------------------- options, sniffing
@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read`."""

    motion: str | None = option(None, "the requested motion (selects conditional transitions)", metavar="NAME")
    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()
    start_pose: Mapping[str, float] | None = option(
        None, "joint name -> angle to start from", unit="rad", metavar="JOINT:RAD,JOINT:RAD"
    )
    int_bits: IntBits | None = option(None, "whose Int bit meanings (default: from the file)")


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    group: str | None = option(None, "the group to write", metavar="NAME")
    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()
    tolerance: float = option(0.1, "keyframe reduction tolerance", unit="deg")
    motion_id: str | None = option(None, "the motion_id written (default: the file name)", metavar="NAME")
    int_bits: IntBits | None = option(None, "whose Int bit meanings the net follows (default: from the motion)")


_MOTION_ID = re.compile(r"^[ \t]*motion_id[ \t]*=", re.MULTILINE)


def sniff(path: Path, head: str) -> bool:
    """True when ``head`` has a ``motion_id = …`` line."""
    return _MOTION_ID.search(head) is not None


# --------------------------------------------------------------------------- reading
def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read one motion of a motion net as keyframes.

    Args:
        path: A ``.mof`` file; jumps into other motions are followed in its folder.
        options: The requested motion (selects conditional transitions; default the
            file's own ``motion_id``), the joint map (default: see :func:`choose_joint_map`),
            whose meaning of the Int column's bits (default: see :func:`choose_int_bits`),
            the start pose (joint name → radians: keyframe 0 at t = 0 holds it and the
            first row interpolates from it; default the first row's target).

    Raises:
        NoMotionError: The file has no keyframe rows and leads to none (``extern.mof``).
    """
    opts = options or ReadOptions()
    mof = parse(path)
    net = MotionNet(path.parent)
    net.add(mof)
    run = net.expand(mof, opts.motion)
    if not run.rows:
        if not any(isinstance(n, Row) for n in mof.nodes):
            info = describe_net(mof)
            n_labels, n_trans = len(info["labels"]), len(info["transitions"])
            leads = f" (to {', '.join(info['targets'])})" if info["targets"] else ""
            raise NoMotionError(
                path,
                f"no motion in it: a motion net with no keyframe rows, only {n_labels} label(s) and "
                f"{n_trans} transition(s){leads}; convert one of the motions it leads to, "
                "or read it with motion=NAME",
                line=mof.first_line,
                net=info,
            )
        raise mof.fail(
            mof.label_lines["start"], f"the motion net plays no row for motion {opts.motion or mof.motion_id!r}"
        )
    first_file, first_row, _first_line = run.rows[0]
    joints = len(first_row.tokens)
    jmap, map_choice = choose_joint_map(run, joints, opts.joint_map)
    if len(jmap) != joints:
        raise first_file.fail(
            first_row.line, f"joint map {jmap.name!r} has {len(jmap)} columns, the rows have {joints} joint values"
        )
    bits = choose_int_bits(run, joints, opts.int_bits)
    for choice, what, override in (
        (map_choice, f"joint map {map_choice.value}", "joint_map= (--joint-map)"),
        (bits, f"the Int bits as {INT_BITS_TEAMS[bits.value]}'s code does", "int_bits= (--int-bits)"),
    ):
        if choice.guessed:
            notify(
                NoticeKind.READ_CHOICE,
                f"read with {what} ({choice.reason}); {override} overrides",
                file=path,
                stacklevel=2,
            )
    _warn_flags(run, bits.value)
    m = _keyframes(run, jmap, opts.start_pose, bits.value)
    m.read_choices = {"joint map": f"{jmap.name}: {map_choice.reason}"}
    if bits.how != "unused":
        m.read_choices["Int bits"] = f"{INT_BITS_TEAMS[bits.value]}'s: {bits.reason}"
    kept = _motion_record(m)
    kept.int_bits = bits.value
    kept.sentinels = _sentinel_spellings(run)
    record = MofRecord(
        motion_id=mof.motion_id,
        requested=opts.motion or mof.motion_id,
        files=[str(f.path) for f in run.files],
        stiffness_keyword=_stiffness_keyword(run),
        joint_map=map_choice,
        int_bits=bits,
    )
    return MotionFile.single(m, name=opts.motion or mof.motion_id, robot="NAO", records={MofRecord.codec: record})


def _motion_record(m: Motion) -> MofMotionRecord:
    """The motion's ``.mof`` record (made empty when it has none)."""
    found = m.record(MofMotionRecord)
    if found is None:
        found = MofMotionRecord()
        m.records[MofMotionRecord.codec] = found
    return found


def _stiffness_keyword(run: Expansion) -> str | None:
    for _, _, line in run.rows:
        if line is not None:
            return line.keyword
    return run.tail_stiffness.keyword if run.tail_stiffness is not None else None


def _row_values(row: Row) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    states = [_token_state(t) for t in row.tokens]
    vals = np.array([float(t) if s == "angle" else np.nan for t, s in zip(row.tokens, states, strict=True)])
    keep = np.array([s == MASK_KEEP for s in states])
    off = np.array([s == MASK_OFF for s in states])
    return vals, keep, off


def _sentinel_spellings(run: Expansion) -> dict[str, str]:
    """The numbers the run writes for keep / off, when it writes them as numbers only."""
    spelled: dict[str, set[str]] = {MASK_KEEP: set(), MASK_OFF: set()}
    for _, row, _ in run.rows:
        for token in row.tokens:
            state = _token_state(token)
            if state != "angle":
                spelled[state].add(token)
    return {state: next(iter(s)) for state, s in spelled.items() if len(s) == 1 and s != {"*"} and s != {"-"}}


def _stiffness_values(line: StiffnessLine) -> np.ndarray:
    return np.array([np.nan if t == "*" else float(t) / 100.0 for t in line.tokens])


def _keyframes(
    run: Expansion, jmap: joint_maps.JointMap, start_pose: Mapping[str, float] | None, bits: str = "bhuman"
) -> Motion:
    d = len(jmap)
    vals_l: list[np.ndarray] = []
    keep_l: list[np.ndarray] = []
    off_l: list[np.ndarray] = []
    stiff_l: list[np.ndarray] = []
    ramp_l: list[float] = []
    ms_l: list[float] = []
    kinds: list[str] = []
    codes: list[int | None] = []
    stiffness = np.full(d, np.nan)
    any_stiffness = run.tail_stiffness is not None
    elapsed = 0.0
    for i, (mof, row, line) in enumerate(run.rows):
        if len(row.tokens) != d:
            raise mof.fail(row.line, f"wrong column count: {len(row.tokens)} joint values, the net has {d}")
        ramp = math.nan
        if line is not None:
            stiffness = _stiffness_values(line)
            ramp = line.ramp / 1000.0
            any_stiffness = True
        v, keep, off = _row_values(row)
        v = np.radians(jmap.to_standard(v))
        if i == 0 and row.duration > 0:
            v0, keep0, off0 = v.copy(), keep.copy(), off.copy()
            if start_pose:
                for name, value in start_pose.items():
                    j = jmap.names.index(name) if name in jmap.names else -1
                    if j < 0:
                        raise SelectionError(f"start_pose: unknown joint {name!r}; joints: {', '.join(jmap.names)}")
                    v0[j], keep0[j], off0[j] = float(value), False, False
            vals_l.append(v0)
            keep_l.append(keep0)
            off_l.append(off0)
            stiff_l.append(stiffness.copy())
            ramp_l.append(math.nan)
            ms_l.append(0.0)
            codes.append(None)
        elapsed += row.duration
        if not math.isfinite(elapsed) or (vals_l and row.duration > 0 and elapsed <= ms_l[-1]):
            raise mof.fail(
                row.line, f"durations add up to {elapsed:g} ms: too long to tell this keyframe from the one before"
            )
        if vals_l and row.duration == 0:
            if i > 0:
                notify(
                    NoticeKind.REPLACED,
                    "a row lasting 0 ms replaces the previous keyframe",
                    file=mof.path,
                    line=row.line,
                    stacklevel=3,
                )
            vals_l[-1], keep_l[-1], off_l[-1], stiff_l[-1] = v, keep, off, stiffness.copy()
            if not math.isnan(ramp):
                ramp_l[-1] = ramp
            codes[-1] = row.interpolation
            continue
        vals_l.append(v)
        keep_l.append(keep)
        off_l.append(off)
        stiff_l.append(stiffness.copy())
        ramp_l.append(ramp)
        ms_l.append(elapsed)
        codes.append(row.interpolation)
        if len(vals_l) > 1:
            kinds.append(segment_kind(row.interpolation, bits))
    if run.tail_stiffness is not None:
        any_stiffness = True
    n = len(vals_l)
    keep_a, off_a = np.array(keep_l), np.array(off_l)
    # `*` keeps the previous target: the value is the previous keyframe's (as the robot
    # plays it), the mask remembers the `*` for writing back. A `*` before any number
    # stays NaN (the robot's pose, unknown here).
    for k in range(1, n):
        held = keep_a[k] & ~off_a[k]
        if held.any():
            vals_l[k] = np.where(held, vals_l[k - 1], vals_l[k])
    masks = {}
    if keep_a.any():
        masks[MASK_KEEP] = keep_a
    if off_a.any():
        masks[MASK_OFF] = off_a
    loop = None
    loop_label = None
    if run.loop_from is not None:
        start_ms = sum(r.duration for _, r, _ in run.rows[: run.loop_from])
        if elapsed > start_ms:
            loop = (start_ms / 1000.0, elapsed / 1000.0)
            loop_label = run.loop_label
    record = MofMotionRecord(
        loop_label=loop_label or None,
        int_codes=codes if any(c is not None and c not in (0, 1) for c in codes) else None,
        tail_stiffness=run.tail_stiffness,
    )
    starts = np.concatenate([[0.0], np.cumsum([row.duration for _, row, _ in run.rows])]) / 1000.0
    first = run.files[0] if run.files else None
    marks = tuple((float(starts[k]), name if mof is first else f"{mof.motion_id}:{name}") for k, mof, name in run.marks)
    return Motion(
        times=np.array(ms_l) / 1000.0,
        joint_names=jmap.names,
        marks=marks,
        position=np.array(vals_l).reshape(n, d),
        joint_channels={STIFFNESS: np.array(stiff_l)} if any_stiffness else {},
        joint_masks=masks,
        time_columns={STIFFNESS_RAMP: np.array(ramp_l)} if any_stiffness else {},
        interpolation=tuple(kinds),
        loop=loop,
        joint_map=jmap.name,
        joint_sources=dict(zip(jmap.names, jmap.sources, strict=True)),
        records={MofMotionRecord.codec: record},
    )


def _read_back(text: str, path: Path, jmap: joint_maps.JointMap) -> Motion:
    """The keyframes a reader gets from ``text``, the file about to be written to ``path``."""
    with collect(warn=False, isolated=True):
        parsed = parse_text(text, path)
        net = MotionNet(path.parent)
        net.add(parsed)
        run = net.expand(parsed)
        return _keyframes(run, jmap, None, choose_int_bits(run, len(jmap)).value)


# --------------------------------------------------------------------------- writing
def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> int:
    """Write one group of ``motion_file`` as a ``.mof`` motion.

    Args:
        motion_file: What to write.
        path: The ``.mof`` file.
        options: The group to write (the first by default); the joint map (default: the
            motion's own map, else ``nao_26``, else ``nao_bhuman_22`` when the joints fit
            it better); the tolerance in degrees a dense motion is reduced to keyframes
            within; the motion name (default: the file name without ``.mof``, which is
            what transitions of other motions refer to); whose Int bits to write (default
            the motion's own, else ``naodevils`` when it has cosine-eased segments).
        overwrite: Replace an existing file.

    Returns:
        The number of keyframes in the written file (as reading it gives them).
    """
    opts = options or WriteOptions()
    out = check_writable(path, overwrite)
    text, frames = _encode(motion_file, out, opts)
    write_bytes_atomic(out, text.encode("utf-8"), overwrite)
    return frames


def _fmt(x: float) -> str:
    r = round(float(x), 6)
    if r == 0:
        return "0"
    return f"{r:.6f}".rstrip("0").rstrip(".")


def _writer_map(spec: Any, motion: Motion, path: Path) -> joint_maps.JointMap:
    if spec is not None:
        return joint_maps.load(spec)
    own = motion.joint_map
    if own is not None:
        try:
            m = joint_maps.load(own)
        except joint_maps.JointMapError:
            m = None
        if m is not None and m.format == "mof":
            return m
    candidates = [joint_maps.load(DEFAULT_MAPS[26]), joint_maps.load(DEFAULT_MAPS[22])]
    names = set(motion.joint_names)
    scores = [len(names & set(m.names)) for m in candidates]
    if max(scores) == 0 and motion.dof in JOINT_COUNTS:
        return candidates[0] if motion.dof == 26 else joint_maps.load("nao_22")
    if max(scores) == 0:
        raise WriteError(
            path,
            f"no joint of the motion is a NAO joint ({', '.join(motion.joint_names[:5])}…); "
            "pass joint_map= to name the columns",
        )
    return candidates[0] if scores[0] >= scores[1] and not names <= set(candidates[1].names) else candidates[1]


def encode(motion_file: MotionFile, path: Path, options: WriteOptions | None = None) -> str:
    """The ``.mof`` text of one group of ``motion_file`` (``options`` as :func:`write` takes them)."""
    return _encode(motion_file, path, options or WriteOptions())[0]


def _encode(motion_file: MotionFile, path: Path, options: WriteOptions) -> tuple[str, int]:
    """The ``.mof`` text and its keyframe count; warns about what it could not keep."""
    source = motion_file.group(options.group)
    mid = _check_writable_motion(source, path, options.motion_id)
    motion = source if source.is_keyframed else _reduce_keeping_loop(source, options.tolerance)
    dropped: list[str] = []
    jmap = _writer_map(options.joint_map, motion, path)
    targets = _joint_tokens(motion, jmap, dropped)
    _note_unwritable_fields(motion, dropped)
    timing = _timing(motion, options.int_bits, dropped)
    loop, label = _loop_keyframes(motion, dropped)
    file_record = motion_file.record(MofRecord)
    keyword = (file_record.stiffness_keyword if file_record else None) or (
        "stiffness" if len(jmap) == 26 else "hardness"
    )
    lines = _keyframe_lines(motion, mid, targets, timing, loop, label, keyword, dropped)
    kept = motion.record(MofMotionRecord) or MofMotionRecord()
    tail = kept.tail_stiffness
    if tail is not None and len(tail.tokens) == len(jmap):
        lines.append(("text", f"{tail.keyword} {' '.join(tail.tokens)} {_fmt(tail.ramp)}"))

    if dropped:
        notify(
            NoticeKind.LOSSY_WRITE,
            ".mof cannot hold, dropped or changed: " + "; ".join(dropped),
            file=path,
            stacklevel=3,
        )

    text = _layout(motion_file, mid, jmap, timing, lines)
    written = _read_back(text, path, jmap)
    warn_lossy_write(source, written, path, ".mof", f"keyframe reduction within {options.tolerance:g}°")
    return text, written.num_frames


def _check_writable_motion(motion: Motion, path: Path, motion_id: str | None) -> str:
    """The motion id to write; raises WriteError for what a ``.mof`` cannot hold at all."""
    if motion.num_frames == 0:
        raise WriteError(path, "the motion has no frames")
    if any(d != 1 for d in motion.joint_dims):
        raise WriteError(path, ".mof joints have one value each; the motion has multi-DOF joints")
    mid = motion_id or path.stem
    if not _IDENTIFIER.match(mid):
        raise WriteError(path, f"motion id {mid!r} is not an identifier (letters, digits, _)")
    return mid


def _reduce_keeping_loop(motion: Motion, tolerance: float) -> Motion:
    """Keyframes within ``tolerance``, keeping the frames at the loop's ends."""
    keep: list[int] = []
    if motion.loop is not None:
        for edge in motion.loop:
            hit = np.flatnonzero(np.isclose(motion.times, edge, rtol=0, atol=1e-9))
            keep.extend(int(h) for h in hit)
    return reduce_keyframes(motion, tolerance, keep)


@dataclasses.dataclass
class _Targets:
    """Per keyframe, the joint tokens of the target row and of the stiffness line."""

    tokens: list[list[str]]
    stiffness: list[list[str]] | None
    ramp: np.ndarray  # (n,) stiffness ramp in s, NaN where none


def _joint_tokens(motion: Motion, jmap: joint_maps.JointMap, dropped: list[str]) -> _Targets:
    """The motion's joints in the joint map's columns as ``.mof`` tokens (degrees, *, -)."""
    d = len(jmap)
    n = motion.num_frames
    position = motion.position if motion.position is not None else np.full((n, motion.dof), np.nan)
    if motion.joint_names and not (set(motion.joint_names) & set(jmap.names)) and motion.dof == d:
        cols = list(range(d))  # unnamed joints: by position
        dropped.append(f"joint names (columns taken in order as {jmap.name})")
    else:
        cols = [motion.joint_names.index(nm) if nm in motion.joint_names else -1 for nm in jmap.names]
        extra = [nm for nm in motion.joint_names if nm not in jmap.names]
        if extra:
            dropped.append(f"joints not in joint map {jmap.name!r}: {', '.join(extra)}")

    def column(arr: np.ndarray | None) -> np.ndarray:
        out = np.full((n, d), np.nan)
        if arr is not None:
            for j, c in enumerate(cols):
                if c >= 0:
                    out[:, j] = arr[:, c]
        return out

    deg = jmap.from_standard(np.degrees(column(position)))
    off_mask = motion.joint_masks.get(MASK_OFF)
    off = column(off_mask.astype(np.float64) if off_mask is not None else None) == 1.0
    keep_mask = motion.joint_masks.get(MASK_KEEP)
    kept = column(keep_mask.astype(np.float64) if keep_mask is not None else None) == 1.0
    stiff_arr = motion.joint_channels.get(STIFFNESS)
    if stiff_arr is None:
        stiff_arr = motion.joint_channels.get("hardness")
    stiff = column(stiff_arr) if stiff_arr is not None else None
    ramp = motion.time_columns.get(STIFFNESS_RAMP)
    if ramp is None:
        ramp = np.full(n, np.nan)
    keep_token, off_token = _sentinel_tokens(motion)
    tokens = [
        [
            off_token if off[k, j] else (keep_token if kept[k, j] or math.isnan(deg[k, j]) else _fmt(deg[k, j]))
            for j in range(d)
        ]
        for k in range(n)
    ]
    stiff_tokens = (
        [["*" if math.isnan(x) else _fmt(x * 100.0) for x in stiff[k]] for k in range(n)] if stiff is not None else None
    )
    return _Targets(tokens, stiff_tokens, ramp)


def _sentinel_tokens(motion: Motion) -> tuple[str, str]:
    """The tokens for keep and off: ``*`` and ``-``, or the numbers the source wrote for them."""
    sentinels = {MASK_KEEP: "*", MASK_OFF: "-"}
    kept = motion.record(MofMotionRecord)
    spelled = kept.sentinels if kept is not None else {}
    if spelled:
        for which in sentinels:
            token = spelled.get(which)
            if isinstance(token, str) and _NUMBER.match(token) and _token_state(token) == which:
                sentinels[which] = token
    return sentinels[MASK_KEEP], sentinels[MASK_OFF]


def _note_unwritable_fields(motion: Motion, dropped: list[str]) -> None:
    """Name every field of the motion a ``.mof`` has no place for."""
    for name in motion.joint_channels:
        if name not in (STIFFNESS, "hardness"):
            dropped.append(f"joint channel {name!r}")
    for what, present in (
        (
            "velocity/acceleration/effort/temperature",
            any(getattr(motion, c) is not None for c in ("velocity", "acceleration", "effort", "temperature")),
        ),
        ("root pose", motion.root_position is not None or motion.root_orientation is not None),
        ("links", bool(motion.links)),
        ("IMUs", bool(motion.imus)),
        ("series " + ", ".join(motion.series), bool(motion.series)),
    ):
        if present:
            dropped.append(what)


@dataclasses.dataclass
class _Timing:
    """Keyframe times in whole ms and the interpolation of each segment (``Int``)."""

    cum: np.ndarray  # (n,) ms since the first keyframe, rounded cumulatively
    kinds: list[str]  # (n - 1,) segment kinds
    codes: list[Any] | None  # the source's Int codes, when they mean the same in ``bits``
    bits: str  # the Int bit convention
    eased: bool  # the convention has a bit for cosine easing


def _timing(motion: Motion, int_bits: IntBits | None, dropped: list[str]) -> _Timing:
    n = motion.num_frames
    # Durations in whole ms (cumulative rounding, no drift).
    exact = (motion.times - motion.times[0]) * 1000.0
    cum = np.rint(exact)
    if np.any(np.abs(exact - cum) > 1e-6):
        dropped.append("sub-millisecond keyframe times (rounded to ms)")
    kinds = list(motion.interpolation or ("linear",) * (n - 1))
    kept = motion.record(MofMotionRecord) or MofMotionRecord()
    codes = kept.int_codes
    if not (isinstance(codes, list) and len(codes) == n):
        codes = None
    bits = str(int_bits) if int_bits is not None else kept.int_bits
    if bits not in INT_BITS:
        bits = "naodevils" if "cosine" in kinds else "bhuman"
    eased = INT_BITS[bits].get(1) == "cosine"
    if "cosine" in kinds and not eased:
        dropped.append(f"cosine easing ({INT_BITS_TEAMS[bits]}'s Int has no bit for it: written as linear)")
    own = kept.int_bits or "bhuman"
    if codes is not None and own != bits:  # the stored codes mean other things in this convention
        shaping = sum(
            1 << b for b, what in INT_BITS.get(own, INT_BITS["bhuman"]).items() if what in ("linear", "cosine")
        )
        if any(isinstance(c, int) and c & ~shaping for c in codes):  # deShake or unknown bits
            dropped.append(f"Int flags of {INT_BITS_TEAMS.get(own, own)}'s convention (deShake, other bits)")
        codes = None
    return _Timing(cum, kinds, codes, bits, eased)


def _loop_keyframes(motion: Motion, dropped: list[str]) -> tuple[tuple[int, int] | None, str]:
    """The keyframe indices of the loop's start and end (None: no loop), and its label."""
    loop: tuple[int, int] | None = None
    if motion.loop is not None:
        hits = [np.flatnonzero(np.isclose(motion.times, x, rtol=0, atol=1e-9)) for x in motion.loop]
        if hits[0].size and hits[1].size:
            loop = (int(hits[0][0]), int(hits[1][0]))
        else:
            dropped.append(f"loop {motion.loop[0]:g}-{motion.loop[1]:g} s (its ends are not keyframes)")
    kept = motion.record(MofMotionRecord)
    label = (kept.loop_label if kept is not None else None) or "loop"
    if not _IDENTIFIER.match(label):
        label = "loop"
    return loop, label


def _keyframe_lines(
    motion: Motion,
    mid: str,
    targets: _Targets,
    timing: _Timing,
    loop: tuple[int, int] | None,
    label: str,
    keyword: str,
    dropped: list[str],
) -> list[tuple[str, Any]]:
    """The body: ("row", tokens with Int and Dur) and ("text", line) entries in file order."""
    n = motion.num_frames
    tokens, stiff_tokens, ramp, cum = targets.tokens, targets.stiffness, targets.ramp, timing.cum
    # Keyframe 0 is implicit when it equals the first row's target (what reading gives).
    implicit = (
        n > 1
        and tokens[0] == tokens[1]
        and cum[1] > 0
        and (stiff_tokens is None or stiff_tokens[0] == stiff_tokens[1])
        and math.isnan(float(ramp[0]))
    )
    lines: list[tuple[str, Any]] = []  # ("row", tokens) / ("text", str)
    state = ["*"] * len(tokens[0])
    step_warned = False

    def emit_row(toks: list[str], code: int, dur: int) -> None:
        lines.append(("row", [*toks, str(code), str(dur)]))

    def emit_stiffness(k: int) -> None:
        nonlocal state
        if stiff_tokens is None:
            return
        r = float(ramp[k])
        if math.isnan(r) and stiff_tokens[k] == state:
            return
        state = stiff_tokens[k]
        ramp_ms = 0 if math.isnan(r) else r * 1000.0
        lines.append(("text", f"{keyword} {' '.join(state)} {_fmt(ramp_ms)}"))

    first = 1 if implicit else 0
    label_at = -1  # the keyframe whose row the loop label precedes
    if loop is not None:
        label_at = loop[0] + 1
        if label == "start" and label_at != first:
            label = "loop"
    for k in range(first, n):
        if k == label_at and not (label == "start" and k == first):
            lines.append(("text", f"label {label}"))
        emit_stiffness(k)
        if k == 0:
            emit_row(tokens[0], 0, 0)
            continue
        dur = int(cum[k] - cum[k - 1])
        if dur <= 0:
            dropped.append(f"keyframe at {motion.times[k]:g} s (less than 1 ms after the previous one)")
            continue
        kind = timing.kinds[k - 1]
        if kind == "step":
            # Hold the previous target, then jump 1 ms before the keyframe time.
            if not step_warned:
                dropped.append("step segments (the jump happens 1 ms before the keyframe)")
                step_warned = True
            if dur > 1:
                emit_row(tokens[k - 1], 0, dur - 1)
                dur = 1
            emit_row(tokens[k], 0, dur)
        else:
            emit_row(tokens[k], _int_code(kind, k, timing), dur)
        if loop is not None and k == loop[1]:
            lines.append(("text", f"transition {mid} {mid} {label}"))
    return lines


def _int_code(kind: str, k: int, timing: _Timing) -> int:
    """The Int of the segment ending at keyframe ``k``: the stored code when it plays the same."""
    code = {"linear": 1, "cosine": 3 if timing.eased else 1}.get(kind, 0)
    stored = timing.codes[k] if timing.codes is not None else None
    # Keep the stored code (deShake, unknown bits) when it plays the same segment.
    if (
        isinstance(stored, int)
        and not isinstance(stored, bool)
        and stored >= 0
        and segment_kind(stored, timing.bits) == segment_kind(code, timing.bits)
    ):
        code = stored
    return code


def _layout(
    motion_file: MotionFile, mid: str, jmap: joint_maps.JointMap, timing: _Timing, lines: list[tuple[str, Any]]
) -> str:
    """The whole file: header comments, the aligned table of rows, the closing transition."""
    d = len(jmap)
    names = list(jmap.names)
    body = [item for kind, item in lines if kind == "row"]
    widths = [max(len(names[j]) if j < d else 0, *(len(r[j]) for r in body)) for j in range(d)]
    widths += [max(3, *(len(r[d]) for r in body)), max(3, *(len(r[d + 1]) for r in body))]
    header = '"' + " ".join(h.rjust(w) for h, w in zip([*names, "Int", "Dur"], widths, strict=True))
    out = [
        f"motion_id = {mid}",
        f'" {motion_file.name or mid}: joint map {jmap.name}, angles in degrees, Dur in ms',
    ]
    flagged = any(isinstance(c, int) and c > 1 for c in (timing.codes or []))
    if timing.bits != "bhuman" or flagged:  # name the convention where it matters
        meaning = ", ".join(f"{1 << b} {what}" for b, what in INT_BITS[timing.bits].items())
        out.append(f'" Int bits: {timing.bits} ({meaning})')
    out += ["", "label start", "", header]
    for kind_, item in lines:
        if kind_ == "row":
            out.append(" " + " ".join(tok.rjust(w) for tok, w in zip(item, widths, strict=True)))
        else:
            out.append(item)
    out += ["", f"transition {ALL_MOTIONS} {EXTERN} start", ""]
    return "\n".join(out)
