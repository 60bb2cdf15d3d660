"""What differs between B-Human's ``.mof`` generations: joint maps, the integer sentinels, the records a read keeps."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ...core import joint_maps
from ...core.model import CodecRecord
from ...core.notices import NoticeKind, notify
from ...core.options import ChoiceEnum
from .net import Expansion
from .parser import DEFAULT_MAPS, EXTERN, MASK_KEEP, MASK_OFF, MofFile, Row, StiffnessLine, Transition

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


def _row_values(row: Row) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    states = [_token_state(t) for t in row.tokens]
    vals = np.array([float(t) if s == "angle" else np.nan for t, s in zip(row.tokens, states, strict=True)])
    keep = np.array([s == MASK_KEEP for s in states])
    off = np.array([s == MASK_OFF for s in states])
    return vals, keep, off
