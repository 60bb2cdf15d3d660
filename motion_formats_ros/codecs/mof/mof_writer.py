"""A motion written as a ``.mof``: keyframes reduced, joints mapped, rows laid out."""

from __future__ import annotations

import dataclasses
import math
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from ...core import joint_maps
from ...core.errors import WriteError, listed, spelled
from ...core.keyframes import interpolation_dropped, reduce_keyframes, warn_lossy_write
from ...core.model import Motion, MotionFile
from ...core.notices import NoticeKind, notify
from ...core.options import option
from .generations import INT_BITS, INT_BITS_TEAMS, IntBits, MofMotionRecord, MofRecord, _token_state, segment_kind
from .mof_reader import _read_back
from .parser import (
    _IDENTIFIER,
    _NUMBER,
    ALL_MOTIONS,
    DEFAULT_MAPS,
    EXTERN,
    JOINT_COUNTS,
    MASK_KEEP,
    MASK_OFF,
    STIFFNESS,
    STIFFNESS_RAMP,
)


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    group: str | None = option(None, "the group to write", metavar="NAME")
    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()
    tolerance: float = option(0.1, "keyframe reduction tolerance", unit="deg")
    motion_id: str | None = option(None, "the motion_id written (default: the file name)", metavar="NAME")
    int_bits: IntBits | None = option(None, "whose Int bit meanings the net follows (default: from the motion)")


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
            "name the columns with the write option joint_map (a joint map's name or file)",
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
    _note_unwritten_marks(source, written, path)
    warn_lossy_write(source, written, path, ".mof", options.tolerance, "keyframe times in whole milliseconds")
    return text, written.num_frames


def _note_unwritten_marks(source: Motion, written: Motion, path: Path) -> None:
    """Name the marks of ``source`` the file's labels do not give back (it writes ``start`` and the loop's label)."""
    start = float(source.times[0]) if source.num_frames else 0.0
    kept = {(round(t * 1000), name) for t, name in written.marks}
    lost = [f"{name} at {t:g} s" for t, name in source.marks if (round((t - start) * 1000), name) not in kept]
    if lost:
        notify(
            NoticeKind.LOSSY_WRITE,
            ".mof cannot hold, dropped: marks (labels are written for the start and the loop only): " + listed(lost),
            file=path,
            field="marks",
            stacklevel=4,
        )


def _check_writable_motion(motion: Motion, path: Path, motion_id: str | None) -> str:
    """The motion id to write; raises WriteError for what a ``.mof`` cannot hold at all."""
    if motion.num_frames == 0:
        raise WriteError(path, "the motion has no frames")
    if any(d != 1 for d in motion.joint_dims):
        raise WriteError(path, ".mof joints have one value each; the motion has multi-DOF joints")
    if motion.position is not None:
        with np.errstate(over="ignore"):
            beyond = np.isinf(np.degrees(motion.position)) & np.isfinite(motion.position)
        if beyond.any():
            k, c = (int(i) for i in np.argwhere(beyond)[0])
            raise WriteError(
                path,
                f"{motion.joint_names[c]} at {motion.times[k]:g} s: {motion.position[k, c]:g} rad is beyond "
                "the float range in degrees, .mof's unit",
            )
    if motion_id:
        if not _IDENTIFIER.match(motion_id):
            raise WriteError(path, f"motion id {motion_id!r} is not an identifier (letters, digits, _)")
        return motion_id
    return _id_from_name(path)


def _id_from_name(path: Path) -> str:
    """The motion id a file name gives: its stem, with ``_`` for each character an identifier
    cannot hold (``walk.v2.mof`` → ``walk_v2``, said in a notice)."""
    mid = re.sub(r"[^A-Za-z0-9_]", "_", path.stem)
    if not _IDENTIFIER.match(mid):  # it starts with a digit
        mid = "_" + mid
    if mid != path.stem:
        notify(
            NoticeKind.LOSSY_WRITE,
            f"motion id {mid!r} made from the file name {path.stem!r}, as a motion id is letters, digits and _ "
            f"(another one: {spelled('motion_id', '=NAME')})",
            file=path,
            stacklevel=4,
        )
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
    if motion.times[0] != 0.0:
        dropped.append(f"the start at {motion.times[0]:g} s (a .mof starts at 0)")
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
    held = interpolation_dropped(motion, ("step",), "each jump happens 1 ms before its keyframe")
    if held is not None:
        dropped.append(held)

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
