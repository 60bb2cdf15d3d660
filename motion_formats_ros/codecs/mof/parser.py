"""The ``.mof`` text parsed: motion ids, labels, keyframe rows, stiffness lines and transitions, with their lines."""

from __future__ import annotations

import dataclasses
import math
import re
from pathlib import Path

from ...core.errors import ReadError, excerpt, number
from ...core.inputs import read_input
from ...core.notices import NoticeKind, notify

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
#: The largest Int a row may hold: the column is a bit field that the robots' code reads as a
#: C++ ``int``.
INT_MAX = 2**31 - 1


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


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
        raise ReadError(mof, f"bad number {number(token)} for {what}", line=line)
    value = float(token)
    if math.isinf(value):  # digits beyond the float range (the pattern takes no "inf")
        raise ReadError(mof, f"{what}: {number(token)} is beyond the float range", line=line)
    return value


def _row(tokens: list[str], path: Path, line: int) -> Row:
    """A row of joint values (numbers, ``*``, ``-``), its Int code and its duration (ms)."""
    values = tokens[:-2]
    for i, tok in enumerate(values):
        if tok not in ("*", "-"):
            _number(tok, path, line, f"joint column {i + 1}")
    digits = tokens[-2].lstrip("0")
    if not _INTEGER.match(tokens[-2]) or len(digits) > 10 or int(digits or "0") > INT_MAX:
        reason = f"bad number {number(tokens[-2])} for Int (0 or 1, bit 1 deShake; at most {INT_MAX})"
        raise ReadError(path, reason, line=line)
    duration = _number(tokens[-1], path, line, "Dur (ms)")
    if duration < 0:
        raise ReadError(path, f"negative duration {number(tokens[-1])}", line=line)
    return Row(line, tuple(values), int(digits or "0"), duration)


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
            check_count(len(tokens[:-2]), lineno, "this row", "Int and Dur")
            nodes.append(_row(tokens, path, lineno))
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
