"""The ``.mtn`` binary sections: magic, section headers and fields, what a read keeps, the body angles' convention."""

from __future__ import annotations

import dataclasses
import struct
from typing import ClassVar

import numpy as np

from ...core.model import CodecRecord
from ...core.spatial import unit_quaternions

MAGIC = b"OMTN"
SECTION = struct.Struct("<II")
#: Section 0 body: number of sections, major, minor, keyframes, frame rate (ms), reserved.
HEADER = struct.Struct("<IHHHHI")
U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
#: Format versions before 1.2 are the first generation's (section 3 data type u16, frame rate 0).
FORMAT_1_2 = (1, 2)
#: The design label of the first generation (ERS-110/111).
FIRST_GENERATION_DESIGN = "DRX-700"
#: The only data type the spec defines (angle line data).
ANGLE_LINE_DATA = 0
DEFAULT_FRAME_RATE_MS = 16
DEFAULT_VERSION = (1, 2)
MICRO = 1e-6
RPY_SERIES = "body_rpy"
_INT32 = (-(2**31), 2**31 - 1)
_REQUIRED = (0, 1, 2, 3)


@dataclasses.dataclass
class MtnRecord(CodecRecord):
    """What a ``.mtn`` read keeps of the file, so that writing it back gives the same bytes.

    Every field has the value a new file gets, so a partial record (say, only
    ``locators``) is enough to steer a write.

    Attributes:
        number_of_sections: The header's section count (None: the sections written).
        version: Format version (major, minor).
        frame_rate_ms: Frame length in ms (0: the first generation's durations).
        reserved: The header's reserved field.
        creator, design_label: The text fields of section 1.
        locators: Each joint's locator as the file spells it (``PRM:/r1/c1-Joint2:j1``).
        section_order: Section numbers in file order.
        section_sizes: Section number → its declared size.
        data_type_size: Width of section 3's data-type field (2 or 4 bytes).
        tails: Section number → bytes after its known fields (hex).
        unknown_sections: Section number → body of a section this reader does not know (hex).
        content_only_sizes: Sections whose size field counted only their content, not the
            8-byte header (section 1 as the Skitter motion editor writes it); written so again.
        name_length_bytes: Motion name → the length byte the file gave it where that byte was
            shorter than the name (Skitter); written so again while the name is unchanged.
    """

    codec: ClassVar[str] = "mtn"
    number_of_sections: int | None = None
    version: tuple[int, int] = DEFAULT_VERSION
    frame_rate_ms: int = DEFAULT_FRAME_RATE_MS
    reserved: int = 0
    creator: str = ""
    design_label: str = ""
    locators: list[str] = dataclasses.field(default_factory=list)
    section_order: list[int] = dataclasses.field(default_factory=list)
    section_sizes: dict[str, int] = dataclasses.field(default_factory=dict)
    data_type_size: int | None = None
    tails: dict[str, str] = dataclasses.field(default_factory=dict)
    unknown_sections: dict[str, str] = dataclasses.field(default_factory=dict)
    content_only_sizes: list[int] = dataclasses.field(default_factory=list)
    name_length_bytes: dict[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class MtnMotionRecord(CodecRecord):
    """What a ``.mtn`` read keeps of the motion: each keyframe's count field as stored."""

    codec: ClassVar[str] = "mtn"
    frame_counts: list[int] = dataclasses.field(default_factory=list)


def quaternion_from_body_rpy(rpy: np.ndarray) -> np.ndarray:
    """x, y, z, w quaternions of AIBO body roll/pitch/yaw (radians, the file's convention).

    The file's pitch is positive when the body leans backward; in ROS (REP 103) that is
    a negative pitch. R = Rz(yaw) · Ry(−pitch) · Rx(roll).
    """
    rpy = np.asarray(rpy, dtype=np.float64)
    r, p, y = rpy[:, 0] / 2, -rpy[:, 1] / 2, rpy[:, 2] / 2
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.column_stack(
        [
            sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy,
            cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy,
        ]
    )


def body_rpy_from_quaternion(q: np.ndarray) -> np.ndarray:
    """Inverse of :func:`quaternion_from_body_rpy` (pitch within ±90°)."""
    q = np.asarray(q, dtype=np.float64)
    q = unit_quaternions(q)
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return np.column_stack([roll, -pitch, yaw])
