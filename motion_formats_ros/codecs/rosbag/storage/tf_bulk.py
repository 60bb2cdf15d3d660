"""Bulk numpy encoding and decoding of ``tf2_msgs/TFMessage`` rows: the same frames at every frame of a motion.

A robot's link TF is one TFMessage per frame holding the same transforms (same parent
and child names) with other stamps and numbers, so every message has the same size and
the same bytes outside the stamps and doubles. One message is serialized by rosbags as
the template; the stamps and doubles of all N messages are written into an (N, size)
byte matrix at offsets found by walking the CDR layout::

    00 01 00 00 | uint32 count | per transform: int32 sec, uint32 nanosec,
    string frame_id, string child_frame_id, float64 x 3 (translation), float64 x 4 (rotation)

(alignment relative to byte 4; strings are a uint32 length counting a closing NUL). A
template whose walked size differs from its real one is refused (None), and the caller
serializes message by message. :func:`decode` reads such a batch back when every message
has the first one's size, frame names and counts (else None: the caller deserializes
message by message); alignment padding is not compared (rmw may leave it uninitialised).
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt

_U32 = struct.Struct("<I")


def layout(template: bytes, count: int | None = None) -> tuple[list[int], list[int]] | None:
    """Byte offsets of each transform's stamp and of its 7 doubles, or None when the layout is not as expected."""
    return _walk(template, count)[0]


def _walk(
    template: bytes, count: int | None = None
) -> tuple[tuple[list[int], list[int]] | None, list[tuple[int, int]], list[tuple[str, str]]]:
    """(stamp offsets, double offsets) or None, the byte ranges that carry the names and counts, the frame names."""
    names: list[tuple[str, str]] = []
    fixed: list[tuple[int, int]] = [(0, 8)]
    if len(template) < 8 or template[:4] != b"\x00\x01\x00\x00":
        return None, fixed, names
    found = _U32.unpack_from(template, 4)[0]
    if (count is not None and found != count) or found * 72 > len(template):
        return None, fixed, names
    count = found
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
            pair = []
            for _ in range(2):  # frame_id, child_frame_id
                pos = align(pos, 4)
                length = _U32.unpack_from(template, pos)[0]
                if length == 0 or pos + 4 + length > len(template):
                    return None, fixed, names
                fixed.append((pos, pos + 4 + length))
                pair.append(template[pos + 4 : pos + 3 + length].decode("utf-8"))
                pos += 4 + length
            names.append((pair[0], pair[1]))
            pos = align(pos, 8)
            doubles.append(pos)
            pos += 56
    except (struct.error, UnicodeDecodeError):
        return None, fixed, names
    if pos != len(template):
        return None, fixed, names
    return (stamps, doubles), fixed, names


def decode(
    raws: list[bytes],
) -> tuple[list[tuple[str, str]], npt.NDArray[np.int64], npt.NDArray[np.float64]] | None:
    """(parent, child) per transform, stamps (M, K) in ns and values (M, K, 7) x, y, z, qx, qy, qz, qw.

    None when the messages are not one regular batch (see the module docstring).
    """
    if not raws:
        return None
    first = bytes(raws[0])
    found, fixed, names = _walk(first)
    if found is None or not names or any(len(r) != len(first) for r in raws):
        return None
    stamp_at, double_at = found
    m = len(raws)
    rows = np.frombuffer(b"".join(bytes(r) for r in raws), dtype=np.uint8).reshape(m, len(first))
    head = rows[0]
    for lo, hi in fixed:
        if not np.array_equal(rows[:, lo:hi], np.broadcast_to(head[lo:hi], (m, hi - lo))):
            return None
    k = len(names)
    stamps = np.empty((m, k), dtype=np.int64)
    values = np.empty((m, k, 7), dtype=np.float64)
    for i, (s, d) in enumerate(zip(stamp_at, double_at, strict=True)):
        sec = np.ascontiguousarray(rows[:, s : s + 4]).view("<i4")[:, 0].astype(np.int64)
        nsec = np.ascontiguousarray(rows[:, s + 4 : s + 8]).view("<u4")[:, 0].astype(np.int64)
        stamps[:, i] = sec * 1_000_000_000 + nsec
        values[:, i] = np.ascontiguousarray(rows[:, d : d + 56]).view("<f8")
    return names, stamps, values


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


__all__ = ["decode", "encode", "layout"]
