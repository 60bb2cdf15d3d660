"""Keyframe reduction: the fewest frames that reproduce a motion by linear interpolation.

Used by the keyframe formats' writers (``.mof``, ``.mtn``) to turn a sampled motion
into keyframes.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np

from . import timing
from .errors import listed
from .model import Motion
from .notices import NoticeKind, notify
from .spatial import unit_quaternions


def reduce_keyframes(motion: Motion, tolerance: float = 0.1, keep: Sequence[int] = ()) -> Motion:
    """The fewest frames (Ramer–Douglas–Peucker) that reproduce ``motion`` by linear interpolation.

    Joint positions (and the root orientation, slerped) stay within ``tolerance`` degrees
    at every original frame. Frames where a mask, the NaN pattern or an extra channel
    changes, the ends and the frames in ``keep`` are always kept. Returns a keyframed
    motion (linear segments).
    """
    n = motion.num_frames
    if n <= 2:
        chosen = np.arange(n)
    else:
        t = motion.times
        values = motion.position if motion.position is not None else np.zeros((n, 0))
        quats = motion.root_orientation
        tol = math.radians(tolerance)
        must = np.zeros(n, dtype=bool)
        must[[0, -1]] = True
        must[np.asarray(list(keep), dtype=np.intp)] = True
        states = [np.isnan(values)] + ([np.isnan(quats)] if quats is not None else [])
        states.extend(motion.joint_masks.values())
        for arr in states:
            change = np.any(arr[1:] != arr[:-1], axis=1)
            must[1:] |= change
            must[:-1] |= change
        for arr in (*motion.joint_channels.values(), *motion.time_columns.values()):
            flat = arr.reshape(n, -1)
            same = (flat[1:] == flat[:-1]) | (np.isnan(flat[1:]) & np.isnan(flat[:-1]))
            change = ~np.all(same, axis=1)
            must[1:] |= change
            must[:-1] |= change
        chosen_mask = must.copy()
        anchors = np.flatnonzero(must)
        stack = [(int(a), int(b)) for a, b in itertools.pairwise(anchors) if b - a > 1]
        while stack:
            a, b = stack.pop()
            inner = slice(a + 1, b)
            f = ((t[inner] - t[a]) / (t[b] - t[a]))[:, None]
            with np.errstate(invalid="ignore"):
                err = np.abs(values[a] + (values[b] - values[a]) * f - values[inner])
            err = np.where(np.isnan(err), 0.0, err).max(axis=1, initial=0.0)
            if quats is not None:  # the angle between the slerp of the ends and the frame
                q = timing.slerp(quats[a][None], quats[b][None], f)
                dot = np.abs(np.sum(q * unit_quaternions(quats[inner]), axis=1))
                with np.errstate(invalid="ignore"):
                    angle = 2 * np.arccos(np.clip(dot, 0.0, 1.0))
                err = np.maximum(err, np.where(np.isnan(angle), 0.0, angle))
            k = int(np.argmax(err))
            if err[k] > tol:
                m = a + 1 + k
                chosen_mask[m] = True
                if m - a > 1:
                    stack.append((a, m))
                if b - m > 1:
                    stack.append((m, b))
        chosen = np.flatnonzero(chosen_mask)
    sampled = motion.sample(motion.times[chosen])
    return dataclasses.replace(sampled, interpolation=("linear",) * max(len(chosen) - 1, 0), rate=None)


# --------------------------------------------------------------------------- lossy writes
def _moved(values: np.ndarray) -> np.ndarray:
    """(N-1, k) whether each value changes from one frame to the next (NaN to NaN is no change)."""
    a, b = values[:-1], values[1:]
    with np.errstate(invalid="ignore"):
        return (a != b) & ~(np.isnan(a) & np.isnan(b))  # type: ignore[no-any-return]


def interpolation_dropped(
    motion: Motion,
    lost: Collection[str] = ("step", "next", "cosine"),
    how: str = "written as linear; resample first to keep it",
) -> str | None:
    """What a format that holds only frames (linear between them) loses of ``motion``'s keyframe
    segments of the kinds ``lost``: one phrase naming the kinds, the joints that move along such
    segments and the segments' times, then ``how`` in brackets, for a lossy-write notice.

    None when there is nothing to lose: no such segment, or none along which a value changes
    (a hold between equal keyframes is the same line).
    """
    kinds = motion.interpolation
    if not kinds or not set(kinds) & set(lost):
        return None
    n = motion.num_frames
    curved = np.array([k in lost for k in kinds], dtype=bool)
    joint_of = np.repeat(np.arange(len(motion.joint_names)), motion.joint_dims)
    moved = _moved(motion.position) if motion.position is not None else np.zeros((n - 1, 0), dtype=bool)
    root = np.zeros(n - 1, dtype=bool)
    for values in (motion.root_position, motion.root_orientation):
        if values is not None:
            root |= _moved(values).any(axis=1)
    t = motion.times
    spans: list[str] = []
    used: set[str] = set()
    for i in np.flatnonzero(curved & (moved.any(axis=1) | root)).tolist():
        names = [motion.joint_names[j] for j in dict.fromkeys(joint_of[moved[i]].tolist())]
        if root[i]:
            names.append("the root pose")
        spans.append(f"{listed(names, 3)} at {t[i]:g}–{t[i + 1]:g} s")
        used.add(kinds[i])
    if not spans:
        return None
    return f"{'/'.join(sorted(used))} interpolation between keyframes of {listed(spans, 3, sep='; ')} ({how})"


#: Deviations up to this (radians, 0.2") are the formats' own resolution, not a loss.
LOSS_TOLERANCE_RAD = 1e-6


def lossy_write_report(source: Motion, written: Motion) -> tuple[int, float, str]:
    """What writing ``source`` as ``written`` (the file read back) lost.

    Returns:
        Frames dropped (source frames minus written keyframes, at least 0), the largest
        joint deviation (radians) at the source's frames (for keyframes also at eighths of
        every segment; the written motion starts at 0, the source's first frame is matched
        to it), and where it occurs.
    """
    dropped = max(source.num_frames - written.num_frames, 0)
    if source.position is None or written.position is None or source.num_frames == 0 or written.num_frames == 0:
        return dropped, 0.0, ""
    times = source.times
    want = source.position
    if source.is_keyframed and times.size > 1:
        inner = times[:-1, None] + np.diff(times)[:, None] * (np.arange(1, 8) / 8.0)
        times = np.sort(np.concatenate([times, inner.ravel()]))
        sampled = source.sample(times).position
        assert sampled is not None
        want = sampled
    got = written.sample(times - times[0]).position
    assert got is not None
    worst, where = 0.0, ""
    for name in source.joint_names:
        if name not in written.joint_names:
            continue
        a = want[:, source.joint_columns(name)]
        b = got[:, written.joint_columns(name)]
        if a.shape != b.shape:
            continue
        with np.errstate(invalid="ignore"):
            diff = np.abs(b - a)
        diff = np.where(np.isnan(diff), 0.0, diff)
        k = int(np.argmax(diff.max(axis=1)))
        if diff[k].max() > worst:
            worst = float(diff[k].max())
            where = f"{name} at {times[k] - times[0]:.6g} s"
    return dropped, worst, where


def warn_lossy_write(source: Motion, written: Motion, path: Path, fmt: str, tolerance: float, beyond: str) -> None:
    """Warn when a keyframe format's file does not reproduce ``source``: how many frames
    were dropped and the largest resulting deviation.

    Args:
        tolerance: The keyframe reduction's tolerance (degrees).
        beyond: What else moves values in this format (``keyframes on the 16 ms frame grid``),
            said when the deviation exceeds the tolerance.
    """
    dropped, worst, where = lossy_write_report(source, written)
    if dropped == 0 and worst <= LOSS_TOLERANCE_RAD:
        return
    parts = [f"{written.num_frames} keyframe(s) for {source.num_frames} frame(s)"]
    over = worst > math.radians(tolerance) + LOSS_TOLERANCE_RAD
    if dropped:
        parts.append(f"{dropped} dropped (keyframe reduction, tolerance {tolerance:g}°)")
    deviation = f"largest deviation {math.degrees(worst):.3g}°" + (f" ({where})" if where else "")
    if over:
        deviation += (
            f"; beyond the {tolerance:g}° reduction tolerance, from {beyond} or another change this write names"
        )
    parts.append(deviation)
    notify(NoticeKind.LOSSY_WRITE, f"lossy {fmt} write: " + ", ".join(parts), file=path, stacklevel=4)


__all__ = ["LOSS_TOLERANCE_RAD", "interpolation_dropped", "lossy_write_report", "reduce_keyframes", "warn_lossy_write"]
