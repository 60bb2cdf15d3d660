"""The one JointState merge (recorder and bag2motion): samples of several streams by joint name.

A :class:`Segment` is consecutive samples of one stream sharing joint names and present
channels, with their times (ns, already chosen by :func:`..stamps.choose_times`).
:func:`merge` puts every segment on the union of the sample times, joints in order of
first appearance (the caller orders the segments), channels (N, J) with NaN where a
joint has no sample at a time, or its last value before it with ``hold``. For equal
times within the segments the later sample wins. :func:`merge_on_grid` instead
interpolates every joint on its own samples onto a uniform grid (the recorder's
``rate``). :func:`joint_state_problem` is the one validity check of a JointState
message, :func:`select_joints` the one selection of joints by name, :func:`imu_row`
the one reading of an IMU message's covariance flags.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence, Sized
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .errors import MotionValueError, SelectionError, spelled
from .memory import available_memory, require_room, size_text
from .notices import NoticeKind, notify

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

#: JointState channels, in the model's order.
CHANNELS = ("position", "velocity", "effort")


class Segment:
    """Consecutive samples of one stream sharing joint names and present channels: header
    stamps and receive times (ns), (M, J) values per channel, and the times chosen from
    them (ns; empty until chosen)."""

    __slots__ = ("channels", "names", "recv", "stamps", "stream", "times")

    def __init__(
        self,
        names: tuple[str, ...],
        stamps: IntArray,
        recv: IntArray,
        channels: dict[str, FloatArray],
        times: IntArray | None = None,
        stream: str = "",
    ) -> None:
        self.names = names
        self.stamps = stamps
        self.recv = recv
        self.channels = channels
        self.times: IntArray = np.zeros(0, dtype=np.int64) if times is None else times
        self.stream = stream


class Command(NamedTuple):
    """One trajectory message: its points at ``base`` + ``offsets`` (ns), channels (P, J) by name."""

    base: int
    names: tuple[str, ...]
    offsets: IntArray
    channels: dict[str, FloatArray]


def trajectory_bases(stamps: IntArray, recv: IntArray, mode: str) -> IntArray:
    """Where trajectory messages start: ``header`` stamps, ``receive`` times, or (``auto``) the
    stamp unless it is zero, which means "start on receipt" as for a trajectory controller."""
    if mode == "receive":
        return recv
    if mode == "header":
        return stamps
    return np.where(stamps == 0, recv, stamps)


def place_trajectories(commands: Sequence[Command]) -> list[Segment]:
    """Trajectory messages on one timeline, in the order received.

    Each message's points are at its base + time_from_start; a message replaces what is
    left of the one before it (joint_trajectory_controller's rule): points of a message
    at or after the next message's base are dropped. Merge the result with :func:`merge`.
    """
    segments = []
    for k, c in enumerate(commands):
        t = c.base + c.offsets
        keep = t < commands[k + 1].base if k + 1 < len(commands) else np.ones(t.size, dtype=bool)
        if keep.any():
            kept = t[keep]
            segments.append(Segment(c.names, kept, kept, {ch: v[keep] for ch, v in c.channels.items()}, times=kept))
    return segments


def joint_state_problem(names: Sequence[str], *channels: Sized) -> str | None:
    """Why a JointState message cannot be merged (None when it can)."""
    n = len(names)
    if any(len(c) not in (0, n) for c in channels):
        return "name and position/velocity/effort lengths differ"
    if len(set(names)) != n:
        return "duplicate joint names"
    return None


def merge(segments: Sequence[Segment], hold: bool) -> tuple[IntArray, tuple[str, ...], dict[str, FloatArray]]:
    """Union of sample times, joints by first appearance, channels (N, J) NaN where absent.

    Memory: channel by channel, each segment's values are released as soon as they are
    copied into the merged array, so the peak stays below twice the merged arrays (the
    segments are consumed: their ``channels`` are empty afterwards). Samples of one
    stream dropped for sharing a time with a later one are reported (a warning).
    """
    joined = _joined(segments)
    if joined is not None:
        return joined
    names: dict[str, int] = {}
    for seg in segments:
        for joint in seg.names:
            names.setdefault(joint, len(names))
    times = np.unique(np.concatenate([seg.times for seg in segments])) if segments else np.zeros(0, np.int64)
    _report_shared_stamps(segments)
    n, d = times.size, len(names)
    order = list(dict.fromkeys(ch for seg in segments if seg.times.size for ch in seg.channels))
    _require_merge_room(n, d, len(order), hold)
    placed = []
    for seg in segments:
        if not seg.times.size:
            seg.channels = {}
            continue
        rows = np.searchsorted(times, seg.times)
        cols = np.array([names[x] for x in seg.names], dtype=np.intp)
        placed.append((seg, rows, cols, bool(np.all(np.diff(rows) > 0))))
    out: dict[str, FloatArray] = {}
    for ch in order:
        merged = np.full((n, d), np.nan)
        filled = np.zeros((n, d), dtype=bool) if hold else None
        for seg, rows, cols, increasing in placed:
            values = seg.channels.pop(ch, None)
            if values is None:
                continue
            if increasing:
                merged[rows[:, None], cols[None, :]] = values
            else:  # duplicate or unsorted times within a segment: the later message wins
                for i in range(rows.size):
                    merged[rows[i], cols] = values[i]
            if filled is not None:
                filled[rows[:, None], cols[None, :]] = True
            del values
        if filled is not None and not filled.all():
            _hold(merged, filled)
        out[ch] = merged
    return times, tuple(names), out


def _require_merge_room(times: int, joints: int, channels: int, hold: bool) -> None:
    """Refuse a merge whose (times × joints) arrays this process cannot hold, before they exist.

    Streams that each name joints of their own (a file of many small messages, each with new
    names) make arrays that grow with the product of the two counts, far beyond the file.

    Raises:
        MotionValueError: One line with the counts and the size they would need.
    """
    needed = times * joints * (8 * channels + (1 if hold else 0))
    room = available_memory()
    if room is not None and needed > room:
        raise MotionValueError(
            f"merging joint states by joint name: {times:,} sample times × {joints:,} joints would need "
            f"{size_text(needed)}, more than the {size_text(room)} this process can still allocate"
        )


def _joined(segments: Sequence[Segment]) -> tuple[IntArray, tuple[str, ...], dict[str, FloatArray]] | None:
    """:func:`merge` of segments that share names and channels, with times increasing throughout.

    Their merge is their concatenation (one segment: its own arrays, no copy); None when
    they are not such segments.
    """
    used = [seg for seg in segments if seg.times.size]
    if not used or len(used) != len(segments):
        return None
    first = used[0]
    if any(seg.names != first.names or list(seg.channels) != list(first.channels) for seg in used):
        return None
    if len(set(first.names)) != len(first.names) or any(
        v.shape[0] != first.times.size for v in first.channels.values()
    ):
        return None
    for seg in used:
        if seg.times.size > 1 and not bool(np.all(seg.times[1:] > seg.times[:-1])):
            return None
    if any(int(b.times[0]) <= int(a.times[-1]) for a, b in itertools.pairwise(used)):
        return None
    if len(used) == 1:
        channels = dict(first.channels)
        first.channels = {}
        return (
            first.times,
            tuple(first.names),
            {ch: np.ascontiguousarray(v, dtype=np.float64) for ch, v in channels.items()},
        )
    times = np.concatenate([seg.times for seg in used])
    out: dict[str, FloatArray] = {}
    for ch in list(first.channels):
        out[ch] = np.concatenate([seg.channels.pop(ch) for seg in used]).astype(np.float64, copy=False)
    return times, tuple(first.names), out


def _report_shared_stamps(segments: Sequence[Segment]) -> None:
    by_stream: dict[str, list[IntArray]] = {}
    for seg in segments:
        if seg.stream:
            by_stream.setdefault(seg.stream, []).append(seg.times)
    for stream, parts in by_stream.items():
        t = np.concatenate(parts)
        dropped = int(t.size - np.unique(t).size)
        if dropped:
            notify(
                NoticeKind.REPLACED,
                f"{dropped} of {t.size} samples share a stamp with a later one and were dropped "
                "(stamps: receive keeps them all)",
                field=stream,
                stacklevel=3,
            )


def _hold(values: FloatArray, filled: npt.NDArray[np.bool_]) -> None:
    """In place: a value absent at a row is the joint's last sample before it (NaN before the first)."""
    n, d = values.shape
    idx = np.where(filled, np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)[:, None], -1)
    np.maximum.accumulate(idx, axis=0, out=idx)
    for j in range(d):  # column by column: a (N,) temporary instead of (N, J) ones
        col = idx[:, j]
        values[:, j] = np.where(col >= 0, values[np.clip(col, 0, None), j], np.nan)


def merge_on_grid(segments: Sequence[Segment], rate: float) -> tuple[IntArray, tuple[str, ...], dict[str, FloatArray]]:
    """Every joint interpolated on its own samples onto a uniform grid at ``rate`` Hz.

    The grid starts at the first sample; NaN outside a joint's own samples.
    """
    names: dict[str, None] = {}
    for seg in segments:
        for joint in seg.names:
            names.setdefault(joint, None)
    all_t = np.unique(np.concatenate([seg.times for seg in segments]))
    span = (all_t[-1] - all_t[0]) / 1e9
    frames = int(np.floor(span * rate + 1e-9)) + 1
    channels = [ch for ch in CHANNELS if any(ch in seg.channels for seg in segments)]
    # Every channel's (frames, joints) array, the grid's times and one column's interpolation.
    require_room(
        f"{spelled('rate')} {rate:g}: {frames:,} frames × {len(names):,} joints",
        8 * frames * (len(names) * max(len(channels), 1) + 6),
    )
    times_ns = all_t[0] + np.round(np.arange(frames) * (1e9 / rate)).astype(np.int64)
    t0 = times_ns[0]
    out: dict[str, FloatArray] = {}
    columns = [{name: k for k, name in enumerate(seg.names)} for seg in segments]
    for ch in channels:
        merged = np.full((times_ns.size, len(names)), np.nan)
        for col, name in enumerate(names):
            parts_t, parts_v = [], []
            for seg, column in zip(segments, columns, strict=True):
                if ch in seg.channels and name in column:
                    parts_t.append(seg.times)
                    parts_v.append(seg.channels[ch][:, column[name]])
            if not parts_t:
                continue
            src = np.concatenate(parts_t)
            order = np.argsort(src, kind="stable")
            src, values = src[order], np.concatenate(parts_v)[order]
            keep = np.append(src[1:] != src[:-1], True)
            merged[:, col] = np.interp(
                (times_ns - t0) / 1e9, (src[keep] - t0) / 1e9, values[keep], left=np.nan, right=np.nan
            )
        out[ch] = merged
    return times_ns, tuple(names), out


def select_joints(
    names: Sequence[str], wanted: Sequence[str], *, missing: str = "error", what: str = ""
) -> tuple[list[int | None], list[str]]:
    """Columns of ``wanted`` joints in ``names`` and the joints not found.

    ``missing="error"`` raises SelectionError naming the unknown joints; ``"nan"`` gives None
    for them (a column of NaN: a joint the recorder was told to record but never saw).
    """
    index = {n: i for i, n in enumerate(names)}
    absent = [j for j in wanted if j not in index]
    if absent and missing == "error":
        where = f" in group {what!r}" if what else ""
        raise SelectionError(f"unknown joints {absent}{where}; joints: {', '.join(names)}")
    return [index.get(j) for j in wanted], absent


def take_columns(values: FloatArray, columns: Sequence[int | None]) -> FloatArray:
    """``values[:, columns]`` with NaN columns for None."""
    out = np.full((values.shape[0], len(columns)), np.nan)
    for k, c in enumerate(columns):
        if c is not None:
            out[:, k] = values[:, c]
    return out


def sample_stream(stamps_ns: IntArray, values: FloatArray, origin_ns: int, query: FloatArray, kind: str) -> FloatArray:
    """One stream's samples (IMU, pose, point series) at ``query`` times (s from ``origin_ns``).

    Samples may come in any order; of samples sharing a stamp the later wins. Between
    samples: linear (``kind="value"``) or slerp (``"quaternion"``); held before the first
    and after the last. No sample: NaN.
    """
    from . import timing

    if stamps_ns.size == 0:
        return np.full((query.size, *values.shape[1:]), np.nan)
    order = np.argsort(stamps_ns, kind="stable")
    ns, vals = stamps_ns[order], values[order]
    keep = np.append(ns[1:] != ns[:-1], True)
    where = timing.locate((ns[keep] - origin_ns) / 1e9, query)
    return np.asarray(timing.interpolate(vals[keep], where, kind))


def imu_name(topic: str) -> str:
    """The name an IMU topic's samples get in the model: the topic without its leading ``/``."""
    return topic[1:] if topic.startswith("/") else topic


def imu_row(msg: Any) -> list[float]:
    """One ``sensor_msgs/Imu`` message (rclpy's or rosbags') as 10 values.

    Quaternion x, y, z, w; angular velocity; linear acceleration. The message marks a
    quantity the sensor does not give with -1 as the first element of its covariance:
    that quantity becomes NaN (absent), whatever values the message carries.
    """
    o, g, a = msg.orientation, msg.angular_velocity, msg.linear_acceleration
    row = [float(v) for v in (o.x, o.y, o.z, o.w, g.x, g.y, g.z, a.x, a.y, a.z)]
    covariances = (msg.orientation_covariance, msg.angular_velocity_covariance, msg.linear_acceleration_covariance)
    for (start, width), cov in zip(((0, 4), (4, 3), (7, 3)), covariances, strict=True):
        if len(cov) and cov[0] == -1:
            row[start : start + width] = [float("nan")] * width
    return row


__all__ = [
    "CHANNELS",
    "Command",
    "Segment",
    "imu_name",
    "imu_row",
    "joint_state_problem",
    "merge",
    "merge_on_grid",
    "place_trajectories",
    "sample_stream",
    "select_joints",
    "take_columns",
    "trajectory_bases",
]
