"""A ``.mof`` motion read: the expanded net's rows as keyframes, stiffness and timing."""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ...core import joint_maps
from ...core.errors import SelectionError
from ...core.model import Motion
from ...core.notices import NoticeKind, collect, notify
from ...core.options import option
from .generations import IntBits, MofMotionRecord, _row_values, _token_state, choose_int_bits, segment_kind
from .net import Expansion, MotionNet
from .parser import MASK_KEEP, MASK_OFF, STIFFNESS, STIFFNESS_RAMP, StiffnessLine, parse_text


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read`."""

    motion: str | None = option(None, "the requested motion (selects conditional transitions)", metavar="NAME")
    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()
    start_pose: Mapping[str, float] | None = option(
        None, "joint name -> angle to start from", unit="rad", metavar="JOINT:RAD,JOINT:RAD"
    )
    int_bits: IntBits | None = option(None, "whose Int bit meanings (default: from the file)")


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


def _start_frame(
    v: np.ndarray, keep: np.ndarray, off: np.ndarray, start_pose: Mapping[str, float] | None, jmap: joint_maps.JointMap
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The frame before a first row that lasts: the row's values with ``start_pose`` laid over them."""
    v0, keep0, off0 = v.copy(), keep.copy(), off.copy()
    if start_pose:
        for name, value in start_pose.items():
            j = jmap.names.index(name) if name in jmap.names else -1
            if j < 0:
                raise SelectionError(f"start_pose: unknown joint {name!r}; joints: {', '.join(jmap.names)}")
            v0[j], keep0[j], off0[j] = float(value), False, False
    return v0, keep0, off0


def _hold_kept(vals_l: list[np.ndarray], keep_a: np.ndarray, off_a: np.ndarray) -> dict[str, np.ndarray]:
    """The masks of ``*`` and ``-``; each ``*`` value (in ``vals_l``) becomes the previous keyframe's.

    ``*`` keeps the previous target: the value is the previous keyframe's (as the robot
    plays it), the mask remembers the ``*`` for writing back. A ``*`` before any number
    stays NaN (the robot's pose, unknown here).
    """
    for k in range(1, len(vals_l)):
        held = keep_a[k] & ~off_a[k]
        if held.any():
            vals_l[k] = np.where(held, vals_l[k - 1], vals_l[k])
    masks = {}
    if keep_a.any():
        masks[MASK_KEEP] = keep_a
    if off_a.any():
        masks[MASK_OFF] = off_a
    return masks


def _loop_of(run: Expansion, elapsed: float) -> tuple[tuple[float, float] | None, str | None]:
    """The loop (start, end in s) and its label, when the net's motion jumps back into itself."""
    if run.loop_from is not None:
        start_ms = sum(r.duration for _, r, _ in run.rows[: run.loop_from])
        if elapsed > start_ms:
            return (start_ms / 1000.0, elapsed / 1000.0), run.loop_label
    return None, None


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
            v0, keep0, off0 = _start_frame(v, keep, off, start_pose, jmap)
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
    masks = _hold_kept(vals_l, keep_a, off_a)
    loop, loop_label = _loop_of(run, elapsed)
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
