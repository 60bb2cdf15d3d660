"""Bulk numpy encoding of ``tf2_msgs/TFMessage`` rows: the same frames at every frame of a motion.

A robot's link TF is one TFMessage per frame holding the same transforms (same parent
and child names) with other stamps and numbers, so every message has the same size and
the same bytes outside the stamps and doubles. One message is serialized by rosbags as
the template; the stamps and doubles of all N messages are written into an (N, size)
byte matrix at offsets found by walking the CDR layout::

    00 01 00 00 | uint32 count | per transform: int32 sec, uint32 nanosec,
    string frame_id, string child_frame_id, float64 x 3 (translation), float64 x 4 (rotation)

(alignment relative to byte 4; strings are a uint32 length counting a closing NUL). A
template whose walked size differs from its real one is refused (None), and the caller
serializes message by message.
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

_U32 = struct.Struct("<I")


def layout(template: bytes, count: int) -> tuple[list[int], list[int]] | None:
    """Byte offsets of each transform's stamp and of its 7 doubles, or None when the layout is not as expected."""
    if len(template) < 8 or template[:4] != b"\x00\x01\x00\x00" or _U32.unpack_from(template, 4)[0] != count:
        return None
    pos = 8
    stamps: list[int] = []
    doubles: list[int] = []

    def align(p: int, n: int) -> int:
        rel = p - 4
        return 4 + (rel + n - 1) // n * n

    try:
        for _ in range(count):
            pos = align(pos, 4)
            stamps.append(pos)
            pos += 8
            for _ in range(2):  # frame_id, child_frame_id
                pos = align(pos, 4)
                length = _U32.unpack_from(template, pos)[0]
                pos += 4 + length
            pos = align(pos, 8)
            doubles.append(pos)
            pos += 56
    except struct.error:
        return None
    if pos != len(template):
        return None
    return stamps, doubles


def encode(
    template: bytes,
    stamps_ns: npt.NDArray[np.int64],
    translations: list[npt.NDArray[np.float64]],
    rotations: list[npt.NDArray[np.float64]],
) -> npt.NDArray[np.uint8] | None:
    """(N, size) rows: the template with transform k's stamp and values of frame i in row i.

    Args:
        template: One serialized TFMessage with the transforms in this order.
        stamps_ns: (N,) header stamps (the same for every transform of a frame).
        translations, rotations: Per transform, (N, 3) and (N, 4) x, y, z, w.
    """
    found = layout(template, len(translations))
    if found is None:
        return None
    stamp_at, double_at = found
    n = stamps_ns.size
    rows = np.tile(np.frombuffer(template, dtype=np.uint8), (n, 1))
    sec, nsec = np.divmod(stamps_ns.astype(np.int64), 1_000_000_000)
    stamp_bytes = np.empty((n, 2), dtype="<u4")
    stamp_bytes[:, 0] = sec.astype("<i4").view("<u4")
    stamp_bytes[:, 1] = nsec.astype("<u4")
    stamp_view = stamp_bytes.view(np.uint8).reshape(n, 8)
    values = np.empty((n, 7), dtype="<f8")
    for k, (s, d) in enumerate(zip(stamp_at, double_at, strict=True)):
        rows[:, s : s + 8] = stamp_view
        values[:, 0:3] = translations[k]
        values[:, 3:7] = rotations[k]
        rows[:, d : d + 56] = values.view(np.uint8).reshape(n, 56)
    return rows


__all__ = ["encode", "layout"]
