"""``tf2_msgs/TFMessage`` serialized straight from arrays, for a stream whose frames never change.

A stream of the robot's TF sends, at every tick, the same transforms (the same parent
and child frames, in the same order) with new stamps and values. Building one
``TransformStamped`` per transform in Python and having rclpy convert them costs about
30 µs per transform: 200 links take longer than a 500 Hz period. :class:`TFEncoder` lays
the message out once for its frames (CDR, as rmw serializes it) and then only writes the
stamps and the seven numbers of each transform into it: the bytes go to
``Publisher.publish``, which takes a serialized message as it is.

Layout (little-endian CDR, alignment counted from byte 4)::

    00 01 00 00 | uint32 count | count × (int32 sec, uint32 nanosec, string frame_id,
    string child_frame_id, [pad to 8] double tx, ty, tz, qx, qy, qz, qw)

with each string a uint32 length that counts its closing NUL, its bytes and the NUL.
Rotations are normalised as :func:`.adapters.transform` does (a zero or non-finite one
becomes the identity).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

_HEADER = b"\x00\x01\x00\x00"
_U32 = struct.Struct("<I")


def _string(text: str) -> bytes:
    data = text.encode("utf-8") + b"\x00"
    return _U32.pack(len(data)) + data


class TFEncoder:
    """Serialized TFMessages for one fixed list of (parent, child) frames.

    Args:
        frames: (parent, child) of each transform, in the order the values will come.
    """

    def __init__(self, frames: Sequence[tuple[str, str]]) -> None:
        self.frames = tuple(frames)
        body = bytearray(_U32.pack(len(self.frames)))
        stamps: list[int] = []
        values: list[int] = []
        for parent, child in self.frames:
            body += b"\x00" * (-len(body) % 4)
            stamps.append(len(body))
            body += b"\x00" * 8  # sec, nanosec
            body += _string(parent)
            body += b"\x00" * (-len(body) % 4)
            body += _string(child)
            body += b"\x00" * (-len(body) % 8)
            values.append(len(body))
            body += b"\x00" * 56  # 7 doubles
        self._template = np.frombuffer(_HEADER + bytes(body), dtype=np.uint8).copy()
        offset = len(_HEADER)
        # Byte positions of every stamp (8 bytes each) and every transform's 7 doubles (56 bytes).
        self._stamp_bytes = (np.asarray(stamps, dtype=np.intp)[:, None] + offset + np.arange(8)).ravel()
        self._value_bytes = (np.asarray(values, dtype=np.intp)[:, None] + offset + np.arange(56)).ravel()

    def encode(self, stamp_ns: int, translation: FloatArray, rotation: FloatArray) -> bytes:
        """The serialized message: every transform stamped ``stamp_ns``, (K, 3) and (K, 4) values."""
        count = len(self.frames)
        sec, nanosec = divmod(int(stamp_ns), 1_000_000_000)
        q = np.asarray(rotation, dtype=np.float64).reshape(count, 4)
        norm = np.sqrt(np.einsum("ij,ij->i", q, q))
        bad = ~(np.isfinite(norm) & (norm >= 1e-9))
        q = q / np.where(bad, 1.0, norm)[:, None]
        q[bad] = (0.0, 0.0, 0.0, 1.0)
        values = np.empty((count, 7), dtype="<f8")
        values[:, :3] = np.asarray(translation, dtype=np.float64).reshape(count, 3)
        values[:, 3:] = q
        out = self._template.copy()
        stamp = np.frombuffer(struct.pack("<iI", sec, nanosec), dtype=np.uint8)
        out[self._stamp_bytes] = np.tile(stamp, count)
        out[self._value_bytes] = values.view(np.uint8).ravel()
        return bytes(out.tobytes())
