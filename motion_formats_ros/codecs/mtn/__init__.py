"""Sony AIBO motion files ``.mtn`` (OPEN-R ``OMTN`` binary).

Little-endian. ``OMTN`` magic, then sections, each starting with (number u32, size u32)
where size counts the 8-byte header and the padding to a 4-byte boundary:

- 0: number of sections u32, version major/minor u16, keyframe count u16, frame rate
  u16 (ms per frame), reserved u32;
- 1: motion name, creator, design label (strings: length u8 + bytes);
- 2: joint count u16 and one OPEN-R PRM locator string per joint;
- 3: data type u32 (0 = angle line data), then keyframe 0 (body roll, pitch, yaw and
  one s32 per joint, micro-radians) and for every later keyframe its interpolation
  count N (s32) followed by the keyframe.

Timing as Sony's player: the segment to keyframe i + 1 lasts (N + 1) frames of
``frameRate`` ms, interpolated linearly. Joint names come from the PRM locator maps in
``config/joint_maps`` (ERS-110/111, ERS-210/220, ERS-7; unknown locators keep the
locator string).

The first AIBO generation (ERS-110/111, design label ``DRX-700``, format 1.0 and 1.1)
differs: the frame rate (byte 22) is 0 and each keyframe's count field is the duration
of its segment in milliseconds (a choice: the files give no frame length; ``info`` and a
warning say so); section 1 is not padded to 4 bytes; section 3 stores the data type as
a u16. Sections may declare more bytes than their content (kept as they are). Every
section's bytes after its content are kept, so the file round-trips byte for byte. The
Skitter motion editor (ERS-7) writes section 1's size without its 8-byte header and a
motion name longer than its length byte; both are read with a notice and written back as
the file had them (a motion not read from such a file gets the standard layout).
Body roll/pitch/yaw become the root orientation (REP 103: the file's pitch is positive
leaning backward, ROS pitch is positive nose down, so the sign flips) and are also kept
as the series ``body_rpy`` in the file's own convention.

Parsing is bounded: every size and count is checked against the file length before
anything is allocated, and every problem is a :class:`ReadError` with its byte offset.
Reading then writing a file gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from ...core.atomic import check_writable, write_bytes_atomic
from ...core.inputs import read_input
from ...core.model import MotionFile
from .mtn_reader import ReadOptions, _head_check, decode
from .mtn_writer import WriteOptions, encode
from .sections import (
    ANGLE_LINE_DATA,
    DEFAULT_FRAME_RATE_MS,
    DEFAULT_VERSION,
    FIRST_GENERATION_DESIGN,
    FORMAT_1_2,
    HEADER,
    MAGIC,
    MICRO,
    RPY_SERIES,
    SECTION,
    U16,
    U32,
    MtnMotionRecord,
    MtnRecord,
    body_rpy_from_quaternion,
    quaternion_from_body_rpy,
)


def sniff(path: Path, head: str) -> bool:
    """True when the file starts with the ``OMTN`` magic."""
    return head.startswith(MAGIC.decode("ascii"))


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read a ``.mtn`` file.

    Args:
        path: The file.
        options: The joint map (name, path or :class:`~motion_formats_ros.core.joint_maps.JointMap`)
            to name the joints; by default the map whose design labels include the file's,
            else the one that knows every locator.
    """
    data = read_input(path, head=(4 + SECTION.size, _head_check(path)))
    return decode(data, path, joint_map=(options or ReadOptions()).joint_map)


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> int:
    """Write ``motion_file`` (one group) as ``.mtn``.

    Args:
        motion_file: What to write.
        path: The ``.mtn`` file.
        options: The group to write (the first by default); milliseconds per frame (the
            file's own, else 16; 0 writes the first generation's timing: each keyframe's
            count field is its duration in ms); the map from joint names to PRM locators
            (the file's own, else the map that knows the most joint names; unknown names
            are written as they are); the tolerance in degrees a dense (not keyframed)
            motion is reduced to the keyframes that reproduce it within.
        overwrite: Replace an existing file.

    Returns:
        The number of keyframes in the written file.
    """
    out = check_writable(path, overwrite)
    data = encode(motion_file, out, options)
    write_bytes_atomic(out, data, overwrite)
    (count,) = U16.unpack_from(data, 4 + SECTION.size + 8)  # section 0's keyframe count
    return int(count)


__all__ = [
    "ANGLE_LINE_DATA",
    "DEFAULT_FRAME_RATE_MS",
    "DEFAULT_VERSION",
    "FIRST_GENERATION_DESIGN",
    "FORMAT_1_2",
    "HEADER",
    "MAGIC",
    "MICRO",
    "RPY_SERIES",
    "SECTION",
    "U16",
    "U32",
    "MtnMotionRecord",
    "MtnRecord",
    "ReadOptions",
    "WriteOptions",
    "body_rpy_from_quaternion",
    "decode",
    "encode",
    "quaternion_from_body_rpy",
    "read",
    "sniff",
    "write",
]
