"""Keyframe reduction: the fewest frames that reproduce a motion by linear interpolation.

Used by the keyframe formats' writers (``.mof``, ``.mtn``) to turn a sampled motion
into keyframes.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence

import numpy as np

from . import timing
from .model import Motion


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
                dot = np.abs(np.sum(q * quats[inner], axis=1))
                with np.errstate(invalid="ignore"):
                    angle = 2 * np.arccos(np.clip(dot / np.linalg.norm(quats[inner], axis=1), 0.0, 1.0))
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


__all__ = ["reduce_keyframes"]
