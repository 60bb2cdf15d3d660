"""Bulk numpy decode / encode of ``sensor_msgs/JointState`` (CDR and ROS 1).

A recording holds thousands of JointState messages that differ only in their stamp and
their float arrays: same joint names, same frame id, same array lengths. For such a
*regular* batch the serialized messages have the same size and the same bytes outside
the stamp and the arrays, so the whole batch is one ``(M, size)`` byte matrix and every
field a strided column of it. :func:`decode` checks that (cheaply, with numpy) and
returns None when a batch is not regular; the caller then falls back to rosbags'
deserializer message by message. :func:`encode` does the reverse for the writer.

Layouts (little-endian CDR / XCDR1 as rmw writes it, ROS 1 as rosbag writes it)::

    CDR:   00 01 00 00 | int32 sec, uint32 nanosec, string frame_id,
           sequence<string> name, sequence<double> position, velocity, effort
           (alignment relative to byte 4; doubles aligned to 8 when the sequence is
           not empty; strings carry a NUL counted in their length). What
           ``rclpy.serialization.serialize_message`` returns with Fast DDS may carry
           bytes after the data and uninitialised alignment padding: neither is part of
           the message, so neither is compared (rosbag2 stores such payloads as they are).
    ROS 1: uint32 seq, uint32 sec, uint32 nsec, string frame_id, string[] name,
           float64[] position, velocity, effort (no alignment, no NUL)
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

CHANNELS = ("position", "velocity", "effort")

_U32 = struct.Struct("<I")


class Layout(NamedTuple):
    """Where the fields of one serialized JointState are.

    Attributes:
        size: Message size in bytes.
        ros1: ROS 1 serialization (else little-endian CDR).
        stamp: Byte offset of the stamp's seconds (nanoseconds follow).
        frame_id: Header frame id.
        names: Joint names.
        arrays: Channel → (byte offset of the first double, count).
        static: Byte ranges that every message of a regular batch shares (the bytes
            that carry meaning: encapsulation, frame id, names, sequence lengths; not
            the stamp, the doubles, alignment padding or trailing bytes).
        coarse: The static ranges joined across the padding between them (fewer,
            wider ranges: a fast first comparison).
        template: The message the layout was read from.
    """

    size: int
    ros1: bool
    stamp: int
    frame_id: str
    names: tuple[str, ...]
    arrays: dict[str, tuple[int, int]]
    static: tuple[tuple[int, int], ...]
    coarse: tuple[tuple[int, int], ...] = ()
    template: bytes = b""


def _merged(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sorted, non-empty, adjacent ones joined."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def _joined(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """``ranges`` (sorted, apart) with gaps shorter than 8 bytes (alignment padding) filled."""
    out: list[tuple[int, int]] = []
    for start, end in ranges:
        if out and start - out[-1][1] < 8:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return tuple(out)


def parse_layout(raw: bytes | memoryview, ros1: bool) -> Layout | None:
    """The layout of one serialized JointState, or None when it is not a well-formed one.

    Not well-formed includes: big-endian CDR, a CDR string without its NUL terminator,
    arrays whose length is neither 0 nor the number of names, duplicate names, a message
    cut short; for ROS 1 also trailing
    bytes (CDR payloads may carry trailing bytes, see the module docstring).
    """
    data = bytes(raw)
    try:
        if ros1:
            return _parse_ros1(data)
        return _parse_cdr(data)
    except (struct.error, UnicodeDecodeError, IndexError, ValueError):
        return None


def _parse_ros1(data: bytes) -> Layout | None:
    u32 = _U32.unpack_from
    pos = 12
    (n,) = u32(data, pos)
    frame_id = data[pos + 4 : pos + 4 + n].decode()
    pos += 4 + n
    (count,) = u32(data, pos)
    pos += 4
    if count > len(data):
        return None
    names = []
    for _ in range(count):
        (n,) = u32(data, pos)
        names.append(data[pos + 4 : pos + 4 + n].decode())
        pos += 4 + n
    arrays: dict[str, tuple[int, int]] = {}
    static = [(12, pos)]  # frame id and names (seq, sec, nsec before them vary)
    for channel in CHANNELS:
        (k,) = u32(data, pos)
        static.append((pos, pos + 4))
        pos += 4
        arrays[channel] = (pos, k)
        pos += 8 * k
    if pos != len(data):
        return None
    return _finish(data, True, 4, frame_id, names, arrays, static)


def _parse_cdr(data: bytes) -> Layout | None:
    if data[:2] != b"\x00\x01":
        return None
    u32 = _U32.unpack_from
    base = 4

    def align(rel: int, n: int) -> int:
        return (rel + n - 1) & -n

    static: list[tuple[int, int]] = [(0, 2)]  # encapsulation kind (the options bytes are not data)
    rel = 8
    (n,) = u32(data, base + rel)
    if n < 1 or base + rel + 4 + n > len(data) or data[base + rel + 4 + n - 1]:
        return None  # a string's length counts its NUL terminator, which must be there
    frame_id = data[base + rel + 4 : base + rel + 4 + n - 1].decode()
    static.append((base + rel, base + rel + 4 + n))
    rel += 4 + n
    rel = align(rel, 4)
    (count,) = u32(data, base + rel)
    static.append((base + rel, base + rel + 4))
    rel += 4
    if count > len(data):
        return None
    names = []
    for _ in range(count):
        rel = align(rel, 4)
        (n,) = u32(data, base + rel)
        if n < 1 or base + rel + 4 + n > len(data) or data[base + rel + 4 + n - 1]:
            return None
        names.append(data[base + rel + 4 : base + rel + 4 + n - 1].decode())
        static.append((base + rel, base + rel + 4 + n))
        rel += 4 + n
    arrays: dict[str, tuple[int, int]] = {}
    for channel in CHANNELS:
        rel = align(rel, 4)
        (k,) = u32(data, base + rel)
        static.append((base + rel, base + rel + 4))
        rel += 4
        if k:
            rel = align(rel, 8)
        arrays[channel] = (base + rel, k)
        rel += 8 * k
    if base + rel > len(data):
        return None
    return _finish(data, False, base, frame_id, names, arrays, static)


def _finish(
    data: bytes,
    ros1: bool,
    stamp: int,
    frame_id: str,
    names: list[str],
    arrays: dict[str, tuple[int, int]],
    static: list[tuple[int, int]],
) -> Layout | None:
    if any(k not in (0, len(names)) for _, k in arrays.values()) or len(set(names)) != len(names):
        return None
    return Layout(
        size=len(data),
        ros1=ros1,
        stamp=stamp,
        frame_id=frame_id,
        names=tuple(names),
        arrays=arrays,
        static=_merged(static),
        coarse=_joined(_merged(static)),
        template=data,
    )


class Decoded(NamedTuple):
    """A regular batch: stamps (ns) and the channels that are present, (M, J) each.

    The channels are (strided) views of the batch's bytes, not copies: copy them (into
    the arrays they end up in) before the bytes go.
    """

    layout: Layout
    stamps: npt.NDArray[np.int64]
    channels: dict[str, npt.NDArray[np.float64]]


def decode(raws: Sequence[bytes | memoryview], ros1: bool) -> Decoded | None:
    """Decode a batch of serialized JointStates at once, or None when it is not regular."""
    if not raws:
        return None
    size = len(raws[0])
    m = len(raws)
    sizes = np.fromiter(map(len, raws), dtype=np.int64, count=m)
    if not bool(np.all(sizes == size)):
        return None
    rows = np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(m, size)
    return decode_rows(rows, ros1)


def rows_of(raws: Sequence[bytes | memoryview]) -> npt.NDArray[np.uint8] | None:
    """``raws`` as one (M, size) byte matrix when they all have the same size, else None."""
    if not raws:
        return None
    size = len(raws[0])
    if any(len(r) != size for r in raws):
        return None
    return np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(len(raws), size)


def size_runs(
    rows: npt.NDArray[np.uint8] | None, raws: Sequence[bytes | memoryview] | None
) -> Iterator[tuple[int, int, npt.NDArray[np.uint8]]]:
    """``(start, end, matrix)`` of consecutive messages of one size: ``rows`` whole, or ``raws`` cut."""
    if rows is not None:
        yield 0, rows.shape[0], rows
        return
    assert raws is not None
    sizes = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))
    cuts = [0, *(np.flatnonzero(np.diff(sizes)) + 1).tolist(), len(raws)]
    for lo, hi in itertools.pairwise(cuts):
        yield lo, hi, np.frombuffer(b"".join(raws[lo:hi]), dtype=np.uint8).reshape(hi - lo, int(sizes[lo]))


def decode_rows(rows: npt.NDArray[np.uint8], ros1: bool, hint: Layout | None = None) -> Decoded | None:
    """:func:`decode` of ``rows`` (M, size): row i is message i (any strides).

    ``hint`` is the layout of an earlier batch: when every row matches its message,
    the layout is not parsed again.
    """
    m = rows.shape[0]
    if not m:
        return None
    if hint is not None and hint.ros1 == ros1 and hint.size == rows.shape[1]:
        head = np.frombuffer(hint.template, dtype=np.uint8)
        if _regular_prefix(rows, hint, head) == m:
            return _decoded(rows, hint)
    layout = parse_layout(rows[0].tobytes(), ros1)
    if layout is None or _regular_prefix(rows, layout) != m:
        return None
    return _decoded(rows, layout)


def runs(rows: npt.NDArray[np.uint8], ros1: bool) -> Iterator[tuple[int, int, Decoded | None]]:
    """``rows`` (M, size) cut into runs of one layout: ``(start, end, decoded)`` in row order.

    A run ends the moment a message's bytes differ from its first message's outside the
    stamp and the doubles (names, frame id, array lengths); ``decoded`` is None for a
    single message that is not a well-formed JointState (its caller decodes it the
    general way). The comparison grows its window as a run goes on, so a bag whose
    layout changes often costs no more than one that never does.
    """
    m = rows.shape[0]
    i = 0
    while i < m:
        layout = parse_layout(rows[i].tobytes(), ros1)
        if layout is None:
            yield i, i + 1, None
            i += 1
            continue
        end, window = i + 1, 256
        while end < m:
            stop = min(m, end + window)
            k = _regular_prefix(rows[end:stop], layout, rows[i])
            end += k
            if end < stop:
                break
            window *= 4
        yield i, end, _decoded(rows[i:end], layout)
        i = end


def _decoded(rows: npt.NDArray[np.uint8], layout: Layout) -> Decoded:
    """The fields of ``rows`` that all share ``layout``: views, except the stamps."""
    sec_type = "<u4" if layout.ros1 else "<i4"
    sec = rows[:, layout.stamp : layout.stamp + 4].view(sec_type)[:, 0]
    nsec = rows[:, layout.stamp + 4 : layout.stamp + 8].view("<u4")[:, 0]
    stamps = sec.astype(np.int64) * 1_000_000_000 + nsec.astype(np.int64)
    channels: dict[str, npt.NDArray[np.float64]] = {}
    for channel, (offset, count) in layout.arrays.items():
        if count:
            block = rows[:, offset : offset + 8 * count].view("<f8")
            channels[channel] = block.astype(np.float64, copy=False)  # native order (a view here)
    return Decoded(layout, stamps, channels)


#: Rows whose coarse ranges :func:`_regular_prefix` compares at once as one byte string.
ALIKE_ROWS = 4096


def _regular_prefix(rows: npt.NDArray[np.uint8], layout: Layout, head: npt.NDArray[np.uint8] | None = None) -> int:
    """How many leading rows have ``head``'s (default: row 0's) bytes in the layout's static ranges.

    Rows whose coarse ranges (static ranges with the few padding bytes between them)
    all equal ``head``'s, the usual case, are found by comparing each range of a group
    of rows, copied out as one byte string, with ``head``'s repeated (one memory
    compare). From the first group where a range differs, rows are compared one by one
    on the coarse ranges, and those that differ there range by range, since padding may
    differ between messages that are alike.
    """
    m = int(rows.shape[0])
    if not m:
        return 0
    ref = rows[0] if head is None else head
    width = rows.shape[1]
    if width != layout.size:
        return 0
    alike = _alike_groups(rows, layout, ref)
    if alike == m:
        return m
    return alike + _regular_rows(rows[alike:], layout, ref)


def _alike_groups(rows: npt.NDArray[np.uint8], layout: Layout, ref: npt.NDArray[np.uint8]) -> int:
    """How many leading rows, in whole groups of :data:`ALIKE_ROWS`, have ``ref``'s coarse ranges byte for byte."""
    m = int(rows.shape[0])
    if rows.ndim != 2 or rows.strides[1] != 1 or ref.strides[0] != 1:
        return 0
    ranges = [(start, end, ref[start:end].tobytes()) for start, end in layout.coarse]
    for lo in range(0, m, ALIKE_ROWS):
        group = rows[lo : lo + ALIKE_ROWS]
        n = int(group.shape[0])
        for start, end, want in ranges:
            # One fixed-size item per row: the copy is one memcpy per row, the compare one memcmp.
            if group[:, start:end].view(f"V{end - start}").tobytes() != want * n:
                return lo
    return m


def _regular_rows(rows: npt.NDArray[np.uint8], layout: Layout, ref: npt.NDArray[np.uint8]) -> int:
    """:func:`_regular_prefix` row by row (numpy compares of every row's ranges)."""
    m = int(rows.shape[0])
    differ = np.zeros(m, dtype=bool)
    for start, end in layout.coarse:
        words = (end - start) // 8 * 8  # compared 8 bytes at a time, the rest byte by byte
        if words:
            wide = rows[:, start : start + words].view("<u8")
            differ |= (wide != ref[start : start + words].view("<u8")).any(axis=1)
        if start + words < end:
            differ |= (rows[:, start + words : end] != ref[start + words : end]).any(axis=1)
    suspects = np.flatnonzero(differ)
    if not suspects.size:
        return m
    sub = rows[suspects]
    bad = np.zeros(suspects.size, dtype=bool)
    for start, end in layout.static:
        bad |= (sub[:, start:end] != ref[start:end]).any(axis=1)
    first = np.flatnonzero(bad)
    return int(suspects[first[0]]) if first.size else m


class Encoder:
    """Serialize many JointStates sharing names / frame id / present channels at once.

    Built from one template message serialized by rosbags (so the bytes are exactly
    what rosbags writes); :meth:`encode` fills stamps and values into tiled copies.
    """

    def __init__(self, template: bytes | memoryview, ros1: bool = False) -> None:
        layout = parse_layout(template, ros1)
        if layout is None:
            raise ValueError("the template is not a well-formed JointState")
        self.layout = layout
        self.template = np.frombuffer(bytes(template), dtype=np.uint8)

    def encode(
        self, stamps_ns: npt.NDArray[np.int64], channels: dict[str, npt.NDArray[np.float64]]
    ) -> npt.NDArray[np.uint8]:
        """(M, size) bytes: row i is message i."""
        layout = self.layout
        m = int(stamps_ns.size)
        rows = np.tile(self.template, (m, 1))
        sec, nsec = np.divmod(stamps_ns.astype(np.int64), 1_000_000_000)
        sec_type = "<u4" if layout.ros1 else "<i4"
        rows[:, layout.stamp : layout.stamp + 4] = sec.astype(sec_type).view(np.uint8).reshape(m, 4)
        rows[:, layout.stamp + 4 : layout.stamp + 8] = nsec.astype("<u4").view(np.uint8).reshape(m, 4)
        for channel, (offset, count) in layout.arrays.items():
            if count:
                values = np.ascontiguousarray(channels[channel], dtype="<f8")
                rows[:, offset : offset + 8 * count] = values.view(np.uint8).reshape(m, 8 * count)
        return rows


#: JointTrajectoryPoint's sequences, in message order.
POINT_FIELDS = ("positions", "velocities", "accelerations", "effort")


def _point_layout(start: int, counts: Sequence[int]) -> tuple[list[tuple[int, int]], int, int]:
    """One JointTrajectoryPoint at CDR body offset ``start`` (relative to the body).

    Returns ([(count offset, data offset)] per field, stamp offset, end), all relative
    to the body.
    """

    def align(rel: int, n: int) -> int:
        return (rel + n - 1) & -n

    rel = start
    fields = []
    for k in counts:
        rel = align(rel, 4)
        count_at = rel
        rel += 4
        if k:
            rel = align(rel, 8)
        fields.append((count_at, rel))
        rel += 8 * k
    rel = align(rel, 4)
    return fields, rel, rel + 8


def _column(
    buf: npt.NDArray[np.uint8], offset: int, dtype: str, rows: int, stride: int, width: int = 0
) -> npt.NDArray[Any]:
    """A strided view into ``buf``: (rows,) or, with ``width``, (rows, width) doubles."""
    shape, strides = ((rows, width), (stride, 8)) if width else ((rows,), (stride,))
    view: npt.NDArray[Any] = np.ndarray(shape, dtype=dtype, buffer=buf, offset=offset, strides=strides)
    return view


def encode_trajectory(
    prefix: bytes | memoryview,
    offsets_ns: npt.NDArray[np.int64],
    channels: dict[str, npt.NDArray[np.float64]],
    joints: int,
) -> bytes | None:
    """A whole ``trajectory_msgs/JointTrajectory`` serialized (little-endian CDR) at once.

    ``prefix`` is rosbags' serialization of the same message without points (header and
    joint names, then a zero point count as its last four bytes); ``channels`` maps the
    point fields (:data:`POINT_FIELDS`) that are present to (M, joints) arrays;
    ``offsets_ns`` are the points' time_from_start. Returns None when the layout is not
    the expected one (the caller then serializes with rosbags).
    """
    head = bytes(prefix)
    if len(head) < 8 or head[:2] != b"\x00\x01" or head[-4:] != b"\x00\x00\x00\x00" or len(head) % 4:
        return None
    base = 4
    m = int(offsets_ns.size)
    counts = [joints if f in channels else 0 for f in POINT_FIELDS]
    first = len(head) - base  # body offset of point 0
    fields0, stamp0, end0 = _point_layout(first, counts)
    fields1, stamp1, end1 = _point_layout(end0, counts)
    stride = end1 - end0
    _, _, end2 = _point_layout(end1, counts)
    if m > 2 and end2 - end1 != stride:  # later points would not share one stride
        return None
    total = base + (end0 if m == 1 else end0 + (m - 1) * stride) if m else len(head)
    buf = np.zeros(total, dtype=np.uint8)
    buf[: len(head)] = np.frombuffer(head, dtype=np.uint8)
    buf[len(head) - 4 : len(head)] = np.frombuffer(_U32.pack(m), dtype=np.uint8)
    if not m:
        return buf.tobytes()
    sec, nsec = np.divmod(offsets_ns.astype(np.int64), 1_000_000_000)
    groups = [(0, 1, fields0, stamp0, 0)]
    if m > 1:
        groups.append((1, m, fields1, stamp1, stride))
    for lo, hi, fields, stamp, step in groups:
        rows, stride_ = hi - lo, step or 8
        for name, k, (count_at, data_at) in zip(POINT_FIELDS, counts, fields, strict=True):
            _column(buf, base + count_at, "<u4", rows, stride_)[:] = k
            if k:
                _column(buf, base + data_at, "<f8", rows, stride_, k)[:] = channels[name][lo:hi].reshape(rows, k)
        _column(buf, base + stamp, "<i4", rows, stride_)[:] = sec[lo:hi]
        _column(buf, base + stamp + 4, "<u4", rows, stride_)[:] = nsec[lo:hi]
    return buf.tobytes()
