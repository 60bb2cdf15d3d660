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
section's bytes after its content are kept, so the file round-trips byte for byte.
Body roll/pitch/yaw become the root orientation (REP 103: the file's pitch is positive
leaning backward, ROS pitch is positive nose down, so the sign flips) and are also kept
as the series ``body_rpy`` in the file's own convention.

Parsing is bounded: every size and count is checked against the file length before
anything is allocated, and every problem is a :class:`ReadError` with its byte offset.
Reading then writing a file gives the same bytes.
"""

from __future__ import annotations

import dataclasses
import math
import os
import struct
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..core import joint_maps
from ..core.atomic import check_writable, write_bytes_atomic
from ..core.errors import ReadError, WriteError
from ..core.inputs import read_input
from ..core.memory import available_memory
from ..core.model import CodecRecord, Motion, MotionFile, Series
from ..core.notices import NoticeKind, collect, notify
from ..core.options import option

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


# --------------------------------------------------------------------------- options, sniffing
#: Options of :func:`read` and :func:`write`.
@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read`."""

    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    group: str | None = option(None, "the group to write", metavar="NAME")
    frame_rate: int | None = option(None, "frame period (default: the file's own, else 16)", unit="ms")
    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()
    tolerance: float = option(0.1, "keyframe reduction tolerance", unit="deg")


def sniff(path: Path, head: str) -> bool:
    """True when the file starts with the ``OMTN`` magic."""
    return head.startswith(MAGIC.decode("ascii"))


# --------------------------------------------------------------------------- reading
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


def _head_check(path: str | Path) -> Any:
    """The magic and the first section's header, checked before the rest of the file is read."""

    def check(first: bytes, size: int) -> None:
        if first[:4] != MAGIC:
            raise ReadError(path, f"bad magic {first[:4]!r}, expected {MAGIC!r}", offset=0)
        if len(first) == 4 + SECTION.size:
            number, length = SECTION.unpack_from(first, 4)
            problem = _section_problem(number, length, size - 4)
            if problem is not None:
                raise ReadError(path, problem, offset=8)

    return check


def _section_problem(number: int, length: int, left: int) -> str | None:
    """What is wrong with a section header (number, size) that has ``left`` bytes of the file from its start."""
    if length < SECTION.size:
        return f"section {number} size {length} is smaller than its {SECTION.size}-byte header"
    if length > left:
        return f"section {number} size {length} runs past the end of the file ({left} bytes left)"
    return None


@dataclasses.dataclass(frozen=True)
class _Header:
    """Section 0 of a ``.mtn``."""

    num_sections: int
    major: int
    minor: int
    num_keyframes: int
    frame_rate: int
    reserved: int


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


@dataclasses.dataclass
class MtnMotionRecord(CodecRecord):
    """What a ``.mtn`` read keeps of the motion: each keyframe's count field as stored."""

    codec: ClassVar[str] = "mtn"
    frame_counts: list[int] = dataclasses.field(default_factory=list)


class _Parser:
    def __init__(self, data: bytes, path: str | Path) -> None:
        self.data = data
        self.path = path
        self.sections: dict[int, tuple[int, int]] = {}  # number: (offset, length)
        self.order: list[int] = []
        self.tails: dict[str, str] = {}  # bytes after each required section's fields, hex

    def fail(self, offset: int, reason: str) -> ReadError:
        return ReadError(self.path, reason, offset=offset)

    def string(self, pos: int, end: int, section: int, what: str) -> tuple[str, int]:
        """A length-prefixed string at ``pos`` that must end by ``end``; (text, next pos)."""
        if pos >= end:
            raise self.fail(pos, f"truncated section {section}: it ends before the {what}")
        n = self.data[pos]
        if pos + 1 + n > end:
            raise self.fail(
                pos, f"truncated section {section}: the {what} needs {n} bytes, {end - pos - 1} left in the section"
            )
        return self.data[pos + 1 : pos + 1 + n].decode("latin-1"), pos + 1 + n

    def find_sections(self) -> None:
        """Every section's offset and length, checked against the file size; the required ones present."""
        data, size = self.data, len(self.data)
        if data[:4] != MAGIC:
            raise self.fail(0, f"bad magic {data[:4]!r}, expected {MAGIC!r}")
        offset = 4
        while offset < size:
            if size - offset < SECTION.size:
                raise self.fail(offset, f"truncated section header: {size - offset} bytes left, {SECTION.size} needed")
            number, length = SECTION.unpack_from(data, offset)
            if number == 1 and self._content_only(offset, length):
                length += SECTION.size
            problem = _section_problem(number, length, size - offset)
            if problem is not None:
                raise self.fail(offset + 4, problem)
            if number in self.sections:
                raise self.fail(offset, f"section {number} appears twice (first at byte {self.sections[number][0]})")
            self.sections[number] = (offset, length)
            self.order.append(number)
            offset += length
        for number in _REQUIRED:
            if number not in self.sections:
                raise self.fail(size, f"missing section {number}")

    def _next_fits(self, at: int, number: int) -> bool:
        """Whether a section header ``number`` whose size fits the file starts at ``at``."""
        if at + SECTION.size > len(self.data):
            return False
        found, length = SECTION.unpack_from(self.data, at)
        return found == number and _section_problem(found, length, len(self.data) - at) is None

    def _content_only(self, offset: int, length: int) -> bool:
        """A section 1 whose size counts only its content (a variant some ERS-7 motion editors
        write, e.g. Skitter): section 2 starts 8 bytes after where the size says, not at it."""
        if self._next_fits(offset + length, 2) or not self._next_fits(offset + SECTION.size + length, 2):
            return False
        notify(
            NoticeKind.READ_CHOICE,
            f"byte {offset + 4}: section 1 size {length} counts only its content (section 2 starts "
            f"{SECTION.size} bytes later, after the header); read as {length + SECTION.size}, and written so",
            file=self.path,
            stacklevel=5,
        )
        return True

    def header(self) -> _Header:
        """Section 0."""
        s0, n0 = self.sections[0]
        if n0 < SECTION.size + HEADER.size:
            raise self.fail(s0 + 4, f"truncated section 0: size {n0}, {SECTION.size + HEADER.size} needed")
        header = _Header(*HEADER.unpack_from(self.data, s0 + 8))
        if header.num_keyframes == 0:
            raise self.fail(s0 + 16, "the motion has no keyframes")
        self.tails["0"] = self.data[s0 + 24 : s0 + n0].hex()
        return header

    def names(self) -> tuple[str, str, str]:
        """Section 1: the motion name, creator and design label."""
        s1, n1 = self.sections[1]
        end1 = s1 + n1
        name, pos = self.string(s1 + 8, end1, 1, "motion name")
        longer = self._longer_name(s1 + 8, pos, end1)
        if longer is not None:
            name, pos = longer
        creator, pos = self.string(pos, end1, 1, "creator")
        design_label, pos = self.string(pos, end1, 1, "design label")
        self.tails["1"] = self.data[pos:end1].hex()
        return name, creator, design_label

    def _strings_end(self, pos: int, end: int, count: int) -> int | None:
        """Where ``count`` length-prefixed printable strings from ``pos`` end, if they fit by ``end``."""
        for _ in range(count):
            if pos >= end or pos + 1 + self.data[pos] > end:
                return None
            n = self.data[pos]
            if (
                not self.data[pos + 1 : pos + 1 + n].isascii()
                or not self.data[pos + 1 : pos + 1 + n].decode().isprintable()
            ):
                return None
            pos += 1 + n
        return pos

    def _longer_name(self, start: int, after: int, end: int) -> tuple[str, int] | None:
        """A motion name that runs past its length byte (some ERS-7 editors write a shorter length).

        Taken only when the creator and design label as written do not fit the section while,
        after a longer printable name, they do and only padding (under 4 zero bytes) follows.
        Returns (name, the creator's position) or None.
        """
        if self._strings_end(after, end, 2) is not None:
            return None
        for pos in range(after, end):
            if not 0x20 <= self.data[pos - 1] < 0x7F:
                return None  # the name's characters end here
            tail = self._strings_end(pos, end, 2)
            if tail is not None and end - tail < 4 and not any(self.data[tail:end]):
                name = self.data[start + 1 : pos].decode("latin-1")
                notify(
                    NoticeKind.READ_CHOICE,
                    f"byte {start}: the motion name's length byte says {self.data[start]}, the name runs "
                    f"{len(name)} bytes ({name!r}); read whole, and written with its own length",
                    file=self.path,
                    stacklevel=5,
                )
                return name, pos
        return None

    def locators(self) -> list[str]:
        """Section 2: the joints' PRM locators, each once."""
        s2, n2 = self.sections[2]
        end2 = s2 + n2
        if n2 < SECTION.size + U16.size:
            raise self.fail(s2 + 4, f"truncated section 2: size {n2}, at least {SECTION.size + U16.size} needed")
        (num_joints,) = U16.unpack_from(self.data, s2 + 8)
        room = end2 - (s2 + 10)
        if num_joints > room:  # every locator takes at least its length byte
            raise self.fail(s2 + 8, f"joint count {num_joints} cannot fit in section 2 ({room} bytes for the locators)")
        locators: list[str] = []
        first_seen: dict[str, int] = {}
        pos = s2 + 10
        for i in range(num_joints):
            at = pos
            loc, pos = self.string(pos, end2, 2, f"locator of joint {i}")
            if loc in first_seen:
                raise self.fail(at, f"joint {i} repeats the PRM locator {loc!r} of joint {first_seen[loc]}")
            first_seen[loc] = i
            locators.append(loc)
        self.tails["2"] = self.data[pos:end2].hex()
        return locators

    def motion_data(self, header: _Header, num_joints: int) -> tuple[np.ndarray, np.ndarray, int]:
        """Section 3: (keyframes (K, 3 + joints) µ-units, count fields (K - 1,), data type size).

        The data type is u16 in the first generation, else u32.
        """
        s3, n3 = self.sections[3]
        num_keyframes, frame_rate = header.num_keyframes, header.frame_rate
        width = 3 + num_joints
        need = 4 * (width + (num_keyframes - 1) * (width + 1))
        type_size = U16.size if (header.major, header.minor) < FORMAT_1_2 else U32.size
        if n3 - SECTION.size - type_size < need and n3 - SECTION.size - (6 - type_size) >= need:
            type_size = 6 - type_size  # the other width is the one that fits: trust the size
        if n3 < SECTION.size + type_size:
            raise self.fail(s3 + 4, f"truncated section 3: size {n3}, at least {SECTION.size + type_size} needed")
        (data_type,) = (U16 if type_size == U16.size else U32).unpack_from(self.data, s3 + 8)
        if data_type != ANGLE_LINE_DATA:
            raise self.fail(s3 + 8, f"unknown data type {data_type} (only 0, angle line data, is defined)")
        start3 = s3 + SECTION.size + type_size
        have = s3 + n3 - start3
        if need > have or have - need >= 4:  # more than padding: the counts do not describe it
            raise self.fail(
                start3,
                f"section 3 holds {have} bytes of motion data but {num_keyframes} keyframes of {num_joints} joints "
                f"(joint count at byte {self.sections[2][0] + 8}) need {need}",
            )
        self.tails["3"] = self.data[start3 + need : s3 + n3].hex()
        ints = np.frombuffer(self.data, dtype="<i4", count=need // 4, offset=start3).astype(np.int64)
        rest = ints[width:].reshape(num_keyframes - 1, width + 1)
        counts = rest[:, 0]
        bad = np.flatnonzero(counts < (1 if frame_rate == 0 else 0))
        if bad.size:
            i = int(bad[0])
            at = start3 + 4 * (width + i * (width + 1))
            if frame_rate == 0:
                raise self.fail(
                    at,
                    f"keyframe {i + 1} lasts {int(counts[i])} ms, at least 1 expected "
                    "(frame rate 0: the count field is the segment's duration in ms)",
                )
            raise self.fail(at, f"negative interpolation count {int(counts[i])}")
        return np.vstack([ints[:width][None, :], rest[:, 1:]]), counts, type_size

    def times(self, header: _Header, counts: np.ndarray, choices: dict[str, str]) -> np.ndarray:
        """Keyframe times in s from the count fields (frame rate 0: each is its segment's ms)."""
        if header.frame_rate != 0:
            frames = np.concatenate([[0], np.cumsum(counts + 1)])
            return frames * (header.frame_rate / 1000.0)
        # First generation: no frame length; each count field is its segment's duration.
        choices["timing"] = (
            f"frame rate 0 (byte {self.sections[0][0] + 18}, format {header.major}.{header.minor}): each "
            "keyframe's count field is read as its segment's duration in ms"
        )
        if header.num_keyframes > 1:
            notify(NoticeKind.READ_CHOICE, choices["timing"], file=self.path, stacklevel=4)
        return np.concatenate([[0], np.cumsum(counts)]) / 1000.0


def decode(data: bytes, path: str | Path = "<bytes>", joint_map: Any = None) -> MotionFile:
    """Parse ``.mtn`` bytes into a MotionFile (one keyframed motion)."""
    p = _Parser(data, path)
    p.find_sections()
    header = p.header()
    name, creator, design_label = p.names()
    locators = p.locators()
    keyframes, counts, type_size = p.motion_data(header, len(locators))
    choices: dict[str, str] = {}
    times = p.times(header, counts, choices)

    jmap, why = _choose_map(joint_map, design_label, locators)
    names = _joint_names(locators, jmap)
    if jmap is not None:
        choices = {"joint map": f"{jmap.name}: {why}", **choices}
    rpy = keyframes[:, :3].astype(np.float64) * MICRO
    motion = Motion(
        times=times,
        joint_names=names,
        position=keyframes[:, 3:].astype(np.float64) * MICRO,
        root_orientation=quaternion_from_body_rpy(rpy),
        series={RPY_SERIES: Series(rpy, frame="root", components=("roll", "pitch", "yaw"))},
        interpolation=("linear",) * (header.num_keyframes - 1),
        joint_map=jmap.name if jmap is not None else None,
        joint_sources=dict(zip(names, locators, strict=True)),
        read_choices=choices,
        records={MtnMotionRecord.codec: MtnMotionRecord([int(c) for c in counts])},
    )
    record = MtnRecord(
        number_of_sections=int(header.num_sections),
        version=(int(header.major), int(header.minor)),
        frame_rate_ms=int(header.frame_rate),
        reserved=int(header.reserved),
        creator=creator,
        design_label=design_label,
        locators=locators,
        section_order=p.order,
        section_sizes={str(n): length for n, (_, length) in p.sections.items() if n in _REQUIRED},
        data_type_size=type_size,
        tails=p.tails,
        unknown_sections={
            str(n): data[off + 8 : off + length].hex() for n, (off, length) in p.sections.items() if n not in _REQUIRED
        },
    )
    robot = jmap.robot if jmap is not None and jmap.robot else design_label
    return MotionFile.single(motion, name=name, robot=robot, records={MtnRecord.codec: record})


def _choose_map(spec: Any, design_label: str, locators: list[str]) -> tuple[joint_maps.JointMap | None, str]:
    """The joint map and why: given, the design label's, else the one knowing most locators."""
    if spec is not None:
        return joint_maps.load(spec), "given as the joint_map option"
    maps = joint_maps.for_format("mtn")
    for m in maps:
        if design_label in m.design_labels:
            return m, f"the design label {design_label} is {m.robot}'s"
    best: tuple[int, joint_maps.JointMap | None] = (0, None)
    for m in maps:
        known = sum(1 for loc in locators if m.name_for(loc) is not None)
        if known > best[0]:
            best = (known, m)
    return best[1], f"it knows {best[0]} of the {len(locators)} PRM locators"


def _joint_names(locators: list[str], jmap: joint_maps.JointMap | None) -> tuple[str, ...]:
    names: list[str] = []
    for i, loc in enumerate(locators):
        name = (jmap.name_for(loc) if jmap is not None else None) or loc
        if name in names:  # a map name clashing with an unknown locator: keep the locator
            name = loc
        if name in names:  # that locator is itself another joint's map name
            name = f"{loc}#{i}"
        names.append(name)
    return tuple(names)


# --------------------------------------------------------------------------- rotations
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
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return np.column_stack([roll, -pitch, yaw])


# --------------------------------------------------------------------------- writing
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


def _section(number: int, body: bytes, tail_hex: str | None, size: int | None) -> bytes:
    """A section: header, body, then what followed the content in the file read (``size``
    its declared size) when the body is as long as it was: byte-identical round trips;
    otherwise zero padding to 4 bytes (none where the file read did not pad)."""
    tail = bytes.fromhex(tail_hex) if tail_hex else b""
    if size is None or SECTION.size + len(body) + len(tail) != size:
        aligned = size is None or size % 4 == 0
        tail = b"\0" * ((-(SECTION.size + len(body))) % 4) if aligned else b""
    return SECTION.pack(number, SECTION.size + len(body) + len(tail)) + body + tail


def _string(text: str, what: str, path: Path) -> bytes:
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:
        raise WriteError(path, f"{what} {text!r} has characters .mtn cannot hold (Latin-1 only)") from None
    if len(raw) > 255:
        raise WriteError(path, f"{what} is {len(raw)} bytes long, .mtn strings hold at most 255")
    return bytes([len(raw)]) + raw


def encode(motion_file: MotionFile, path: Path, options: WriteOptions | None = None) -> bytes:
    """The ``.mtn`` bytes of one group of ``motion_file`` (``options`` as :func:`write` takes them)."""
    from ..core.keyframes import reduce_keyframes, warn_lossy_write

    opts = options or WriteOptions()
    motion = motion_file.group(opts.group)
    source = motion
    read_from = motion_file.record(MtnRecord)
    meta = read_from or MtnRecord()
    dropped: list[str] = []
    rate_ms = int(opts.frame_rate if opts.frame_rate is not None else meta.frame_rate_ms)
    if not 0 <= rate_ms <= 0xFFFF:
        raise WriteError(path, f"frame rate {rate_ms} ms does not fit .mtn (0..65535)")
    unit_ms = rate_ms or 1  # frame rate 0 (first generation): counts are durations in ms
    if motion.num_frames == 0:
        raise WriteError(path, "the motion has no frames")

    # Dense motions, and segments only dense samples reproduce, are reduced to keyframes.
    if motion.interpolation is None or "cosine" in motion.interpolation:
        if motion.num_frames > 1:
            steps = math.floor(motion.duration * 1000 / unit_ms + 1e-6)
            room = available_memory()
            if room is not None and 16 * (steps + 2) * (motion.dof + 2) > room:  # the grid's samples, twice over
                raise WriteError(
                    path,
                    f"{motion.duration:g} s is {steps + 1:,} frames of {unit_ms} ms to reduce to keyframes, "
                    "more than this process can still allocate",
                )
            grid = float(motion.times[0]) + np.arange(steps + 1, dtype=np.float64) * (unit_ms / 1000.0)
            if grid[-1] < motion.times[-1] - 1e-9:
                grid = np.append(grid, grid[-1] + unit_ms / 1000.0)
            motion = reduce_keyframes(motion.sample(grid), opts.tolerance)
        else:
            motion = dataclasses.replace(motion, interpolation=(), rate=None)
    motion, changed = _only_linear(motion, unit_ms / 1000.0)
    if changed:
        dropped.append("step/next interpolation (approximated with an extra keyframe one frame from the jump)")

    times = motion.times - motion.times[0]
    exact = times * 1000 / unit_ms
    frames = np.rint(exact).astype(np.int64)
    if np.any(np.abs(exact - frames) > 1e-6):
        grid_name = f"{rate_ms} ms frame grid" if rate_ms else "whole milliseconds (frame rate 0)"
        dropped.append(f"keyframe times off the {grid_name} (moved to the nearest frame)")
    keep = np.concatenate([[True], np.diff(frames) > 0])
    if not keep.all():
        dropped.append(f"{int((~keep).sum())} keyframe(s) closer than one frame to the previous one")
    idx = np.flatnonzero(keep)
    frames = frames[idx]
    if idx.size > 0xFFFF:
        raise WriteError(path, f"{idx.size} keyframes, .mtn holds at most 65535")

    # Joints and locators.
    names, columns = _flat_joints(motion)
    jmap = _writer_map(opts.joint_map, motion, motion_file)
    # The locators the file was read with (only for motions read from .mtn).
    sources = motion.joint_sources if read_from is not None else {}
    locators: list[str] = []
    for n in names:
        loc = sources.get(n) if isinstance(sources, dict) else None
        if not isinstance(loc, str):
            loc = (jmap.source_for(n) if jmap is not None else None) or n
        locators.append(loc)
    if len(names) > 0xFFFF:
        raise WriteError(path, f"{len(names)} joints, .mtn holds at most 65535")
    position = motion.position if motion.position is not None else np.zeros((motion.num_frames, motion.dof))
    values = position[idx][:, columns] if columns is not None else position[idx]
    if np.isnan(values).any():
        dropped.append("absent (NaN) joint values (the previous keyframe's value is held, else 0)")
        values = _fill_nan(values)
    rpy = _body_rpy(motion)[idx]
    micro = np.rint(np.column_stack([rpy, values]) / MICRO)
    if micro.size and (micro.min() < _INT32[0] or micro.max() > _INT32[1] or not np.isfinite(micro).all()):
        raise WriteError(path, "an angle does not fit a 32-bit micro-radian value")
    dropped.extend(_unwritable(motion))
    if dropped:
        notify(
            NoticeKind.LOSSY_WRITE,
            ".mtn cannot hold, dropped or changed: " + "; ".join(dropped),
            file=path,
            stacklevel=3,
        )

    data = _assemble(motion_file, path, meta, jmap, locators, micro, frames, rate_ms)
    with collect(warn=False, isolated=True):
        written = decode(data, path).motion
    warn_lossy_write(source, written, path, ".mtn", f"keyframe reduction within {opts.tolerance:g}°")
    return data


def _unwritable(motion: Motion) -> list[str]:
    """What of ``motion`` a ``.mtn`` cannot hold (said in the lossy-write notice)."""
    dropped: list[str] = []
    for what, present in (
        ("joint channels " + ", ".join(repr(k) for k in motion.joint_channels), bool(motion.joint_channels)),
        ("joint masks " + ", ".join(repr(k) for k in motion.joint_masks), bool(motion.joint_masks)),
        ("root position", motion.root_position is not None),
        (
            "velocity/acceleration/effort/temperature",
            any(getattr(motion, c) is not None for c in ("velocity", "acceleration", "effort", "temperature")),
        ),
        ("links", bool(motion.links)),
        ("IMUs", bool(motion.imus)),
        (f"loop {motion.loop}", motion.loop is not None),
    ):
        if present:
            dropped.append(what)
    return dropped


def _assemble(
    motion_file: MotionFile,
    path: Path,
    meta: MtnRecord,
    jmap: joint_maps.JointMap | None,
    locators: list[str],
    micro: np.ndarray,
    frames: np.ndarray,
    rate_ms: int,
) -> bytes:
    """The file's bytes: its sections (in the order, sizes and tails ``meta`` kept) from the
    keyframes (``micro``: body roll, pitch, yaw and joints in micro-radians, at ``frames``)."""
    idx_size = int(frames.size)
    ints = micro.astype(np.int64)
    counts = np.diff(frames) - (1 if rate_ms else 0)
    version = meta.version
    type_size = meta.data_type_size
    if type_size not in (U16.size, U32.size):
        type_size = U16.size if tuple(version) < FORMAT_1_2 else U32.size
    body3 = bytearray((U16 if type_size == U16.size else U32).pack(ANGLE_LINE_DATA))
    body3 += ints[0].astype("<i4").tobytes()
    if ints.shape[0] > 1:
        rest = np.column_stack([counts, ints[1:]]).astype("<i4")
        body3 += rest.tobytes()

    tails: dict[str, str] = meta.tails
    sizes: dict[str, int] = meta.section_sizes
    name = motion_file.name or path.stem
    creator = meta.creator
    design = meta.design_label or (jmap.design_labels[0] if jmap and jmap.design_labels else "")
    body1 = (
        _string(name, "motion name", path) + _string(creator, "creator", path) + _string(design, "design label", path)
    )
    body2 = U16.pack(len(locators)) + b"".join(_string(loc, "PRM locator", path) for loc in locators)
    unknown = {int(k): bytes.fromhex(v) for k, v in meta.unknown_sections.items()}
    order = [int(n) for n in meta.section_order]
    if sorted(order) != sorted([*_REQUIRED, *unknown]):
        order = [*_REQUIRED, *sorted(unknown)]
    num_sections = int(meta.number_of_sections if meta.number_of_sections is not None else len(order))
    body0 = HEADER.pack(num_sections, int(version[0]), int(version[1]), idx_size, rate_ms, int(meta.reserved))
    bodies = {0: bytes(body0), 1: body1, 2: body2, 3: bytes(body3), **unknown}
    out = bytearray(MAGIC)
    for number in order:
        tail = tails.get(str(number)) if number in _REQUIRED else None
        size = sizes.get(str(number)) if number in _REQUIRED else None
        out += _section(number, bodies[number], tail, size if isinstance(size, int) else None)
    return bytes(out)


def _only_linear(motion: Motion, frame: float) -> tuple[Motion, bool]:
    """A keyframed motion with step/next segments rewritten as linear ones: an extra
    keyframe one ``frame`` (seconds) after the start / before the end of the segment."""
    kinds = motion.interpolation or ()
    if all(k == "linear" for k in kinds):
        return motion, False
    times: list[float] = [float(motion.times[0])]
    for i, kind in enumerate(kinds):
        t0, t1 = float(motion.times[i]), float(motion.times[i + 1])
        if kind != "linear":
            eps = min(frame, (t1 - t0) / 2)
            times.append(t0 + eps if kind == "next" else t1 - eps)
        times.append(t1)
    sampled = motion.sample(np.array(times))
    return dataclasses.replace(sampled, interpolation=("linear",) * (len(times) - 1), rate=None), True


def _flat_joints(motion: Motion) -> tuple[list[str], np.ndarray | None]:
    if all(d == 1 for d in motion.joint_dims):
        return list(motion.joint_names), None
    names: list[str] = []
    for n, d in zip(motion.joint_names, motion.joint_dims, strict=True):
        names.extend([n] if d == 1 else [f"{n}_{i}" for i in range(d)])
    return names, np.arange(motion.dof)


def _writer_map(spec: Any, motion: Motion, motion_file: MotionFile) -> joint_maps.JointMap | None:
    if spec is not None:
        return joint_maps.load(spec)
    name = motion.joint_map
    maps = joint_maps.for_format("mtn")
    for m in maps:
        if m.name == name:
            return m
    # Ties go to the later models: the first generation's locators belong in format 1.0/1.1
    # files only, and the writer emits 1.2 unless the motion came from an older file.
    kept = motion_file.record(MtnRecord)
    old_format = tuple(kept.version if kept is not None else DEFAULT_VERSION) < FORMAT_1_2
    maps.sort(key=lambda m: (FIRST_GENERATION_DESIGN in m.design_labels) != old_format)
    best: tuple[int, joint_maps.JointMap | None] = (0, None)
    for m in maps:
        known = sum(1 for n in motion.joint_names if m.source_for(n) is not None)
        if known > best[0]:
            best = (known, m)
    return best[1]


def _fill_nan(values: np.ndarray) -> np.ndarray:
    out = values.copy()
    for j in range(out.shape[1]):
        col = out[:, j]
        good = np.flatnonzero(~np.isnan(col))
        if good.size == 0:
            col[:] = 0.0
            continue
        idx = np.maximum.accumulate(np.where(~np.isnan(col), np.arange(col.size), -1))
        col[:] = np.where(idx >= 0, col[np.maximum(idx, 0)], col[good[0]])
    return np.asarray(out, dtype=np.float64)


def _body_rpy(motion: Motion) -> np.ndarray:
    """Body roll/pitch/yaw (file convention) per frame: the ``body_rpy`` series when it
    agrees with the root orientation (exact round trips), else from the orientation."""
    n = motion.num_frames
    series = motion.series.get(RPY_SERIES)
    q = motion.root_orientation
    if series is not None and series.values.shape == (n, 3):
        rpy = series.values
        if q is None:
            return rpy
        mine = quaternion_from_body_rpy(rpy)
        dots = np.abs(np.sum(mine * q / np.linalg.norm(q, axis=1, keepdims=True), axis=1))
        if np.all(dots > 1 - 1e-12):
            return rpy
    if q is None or np.isnan(q).any():
        return np.zeros((n, 3))
    return body_rpy_from_quaternion(q)
