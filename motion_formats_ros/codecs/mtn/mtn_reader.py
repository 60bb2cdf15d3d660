"""A ``.mtn`` read: sections found and checked against the file's length, keyframes, timing and joint names."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np

from ...core import joint_maps
from ...core.errors import ReadError
from ...core.model import Motion, MotionFile, Series
from ...core.notices import NoticeKind, notify
from .sections import (
    _REQUIRED,
    ANGLE_LINE_DATA,
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
    quaternion_from_body_rpy,
)


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read`."""

    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()


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


class _Parser:
    def __init__(self, data: bytes, path: str | Path) -> None:
        self.data = data
        self.path = path
        self.sections: dict[int, tuple[int, int]] = {}  # number: (offset, length)
        self.order: list[int] = []
        self.tails: dict[str, str] = {}  # bytes after each required section's fields, hex
        self.content_only: list[int] = []  # sections whose size field left out the header
        self.name_length_bytes: dict[str, int] = {}  # a name whose length byte is shorter than it

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
                self.content_only.append(number)
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
            f"{SECTION.size} bytes later, after the header); read as {length + SECTION.size}, written back as it is",
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
            self.name_length_bytes[name] = self.data[s1 + 8]
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
                    f"{len(name)} bytes ({name!r}); read whole, written back with the file's length byte",
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
        content_only_sizes=p.content_only,
        name_length_bytes=p.name_length_bytes,
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
