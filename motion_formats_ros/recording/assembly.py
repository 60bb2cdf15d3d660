"""A journal's content turned into the motion file it stands for (:func:`assemble`).

Files are assembled with relative times and ``start_time_ns``; the root pose is composed
from the recorded TF edges by the same TF buffer as ``bag2motion``'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import listed
from ..core.merge import (
    CHANNELS,
    Command,
    Segment,
    merge,
    merge_on_grid,
    place_trajectories,
    sample_stream,
    select_joints,
    take_columns,
    trajectory_bases,
)
from ..core.model import IMU_CHANNELS, Motion, MotionFile
from ..core.nonfinite import MASK_KEEP
from ..core.notices import NoticeKind, notify
from ..core.spatial import no_rotation_rows
from ..core.stamps import choose_times
from ..core.tf import TfSamples
from .journal import ERROR_NAME, ERROR_STREAM, TF_STATIC_STREAM, Block, JournalContent

FloatArray = npt.NDArray[np.float64]


def _stream_times(blocks: Sequence[Block], mode: str) -> list[npt.NDArray[np.int64]]:
    """The times of the blocks of one stream, chosen by the one stamps rule (:mod:`.core.stamps`)."""
    stamps = np.concatenate([b.stamps for b in blocks])
    recv = np.concatenate([b.receive for b in blocks])
    _, note = choose_times(stamps, recv, mode)
    use_recv = mode == "receive" or note is not None
    if note:
        notify(NoticeKind.READ_CHOICE, note, field=blocks[0].stream, stacklevel=4)
    return [b.receive if use_recv else b.stamps for b in blocks]


def _by_stream(blocks: Sequence[Block], mode: str) -> list[tuple[Block, npt.NDArray[np.int64]]]:
    """Every block with its times; the stamps rule applies to each stream as a whole."""
    streams: dict[str, list[Block]] = {}
    for b in blocks:
        streams.setdefault(b.stream, []).append(b)
    out: list[tuple[Block, npt.NDArray[np.int64]]] = []
    for group in streams.values():
        out += zip(group, _stream_times(group, mode), strict=True)
    return out


def assemble(
    content: JournalContent,
    *,
    joints: Sequence[str] | None = None,
    stamps: str = "auto",
    rate: float = 0.0,
) -> MotionFile:
    """The motion file a journal stands for.

    JointState streams are merged by joint name (:func:`.core.merge.merge`) into the
    ``actual`` group: with ``rate`` 0 every sample time is a frame and joints a message
    does not carry hold their last value (NaN before their first); with ``rate`` > 0
    every joint's own samples are interpolated onto a uniform grid. The root pose
    (composed from the recorded TF edges by the one TF buffer, :mod:`.core.tf`) and
    IMUs are sampled at the frame times; commanded trajectories become the ``target``
    group. Times are relative to the first joint sample (else the first target point),
    whose absolute ROS time in ns is the file's ``start_time_ns``.
    """
    meta = content.metadata
    error_blocks = [b for b in content.joints if b.stream.startswith(ERROR_STREAM)]
    measured = [b for b in content.joints if not b.stream.startswith(ERROR_STREAM)]
    joint_blocks = _by_stream(measured, stamps) if measured else []
    targets = _target_segments(content, stamps)
    if joint_blocks:
        origin = int(min(int(t.min()) for _, t in joint_blocks if t.size))
    elif targets:
        origin = int(min(int(s.times.min()) for s in targets))
    else:
        raise ValueError("nothing was recorded")
    groups: dict[str, Motion] = {}  # the measured motion first, as bag2motion orders them
    if joint_blocks:
        actual = _actual_group(content, joint_blocks, joints, rate, origin)
        groups["actual"] = _with_errors(
            _with_poses_and_imus(actual, content, stamps, origin), error_blocks, stamps, origin
        )
    if targets:
        groups["target"] = _target_group(targets, origin)
    date = datetime.fromisoformat(meta["date"]) if meta.get("date") else None
    return MotionFile(
        groups=groups,
        name=str(meta.get("name", "")),
        robot=str(meta.get("robot", "")),
        date=date,
        start_time_ns=origin,
    )


def _actual_group(
    content: JournalContent,
    joint_blocks: list[tuple[Block, npt.NDArray[np.int64]]],
    joints: Sequence[str] | None,
    rate: float,
    origin: int,
) -> Motion:
    # Joints in the order of the recorder's topics, then of first appearance: deterministic
    # even though messages of different topics arrive in any order.
    topics = [str(t).lstrip("/") for t in content.metadata.get("topics", [])]
    rank = {t: i for i, t in enumerate(topics)}
    ordered = sorted(joint_blocks, key=lambda bt: rank.get(bt[0].stream.lstrip("/"), len(rank)))
    segments = [Segment(b.names, b.stamps, b.receive, dict(b.channels), times=t, stream=b.stream) for b, t in ordered]
    _report_out_of_order(ordered, origin)
    block, t = ordered[0]
    keep: npt.NDArray[np.bool_] | None = None
    if len(ordered) == 1 and rate <= 0 and (t.size < 2 or bool(np.all(t[1:] > t[:-1]))):
        # One stream in time order (the usual long recording): merging would only copy it.
        times_ns, names, channels = t, block.names, dict(block.channels)
    elif rate > 0:
        times_ns, names, channels = merge_on_grid(segments, rate)
    else:
        times_ns, names, channels = merge(segments, hold=True)
        keep = _held(ordered, times_ns, names, origin)
    if joints:
        columns, absent = select_joints(names, joints, missing="nan")
        if absent:
            notify(NoticeKind.MISSING, f"joints {', '.join(absent)} were never received: recorded as NaN", stacklevel=3)
        channels = {ch: take_columns(v, columns) for ch, v in channels.items()}
        if keep is not None:
            keep = np.stack([keep[:, c] if c is not None else np.zeros(len(times_ns), bool) for c in columns], axis=1)
        names = tuple(joints)
    seconds, rows = _distinct_seconds(times_ns, origin, "joint samples")
    channels_: dict[str, Any] = {ch: channels[ch][rows] for ch in CHANNELS if ch in channels}
    keep = keep[rows] if keep is not None else None
    masks = {MASK_KEEP: keep} if keep is not None and keep.any() else {}
    return Motion(
        times=seconds,
        joint_names=tuple(names),
        rate=rate if rate > 0 else None,
        joint_masks=masks,
        **channels_,
    )


def _report_out_of_order(ordered: Sequence[tuple[Block, npt.NDArray[np.int64]]], origin: int) -> None:
    """Warn, per stream, about samples whose time is before that of a sample received earlier
    (they are put in order). A stream's blocks (messages of other joint sets or channels, which
    interleave) are taken together in the order the journal received them."""
    streams: dict[str, list[tuple[Block, npt.NDArray[np.int64]]]] = {}
    for block, t in ordered:
        streams.setdefault(block.stream, []).append((block, t))
    for stream, parts in streams.items():
        t = np.concatenate([times for _, times in parts])
        if len(parts) > 1:
            t = t[np.argsort(np.concatenate([block.order for block, _ in parts]), kind="stable")]
        back = np.flatnonzero(t[1:] < np.maximum.accumulate(t)[:-1]) + 1
        if back.size:
            first = int(back[0])
            notify(
                NoticeKind.INCONSISTENT,
                f"{stream}: {back.size} of {t.size} samples are stamped before an earlier one (the first: "
                f"message {first}, t = {(int(t[first]) - origin) / 1e9:.6g} s); put in time order",
                stacklevel=4,
            )


def _held(
    ordered: Sequence[tuple[Block, npt.NDArray[np.int64]]],
    times_ns: npt.NDArray[np.int64],
    names: Sequence[str],
    origin: int,
) -> npt.NDArray[np.bool_]:
    """Where a joint's value is held because a message of its own stream left it out, after
    it had carried it (a publisher that renames or drops a joint mid-run): the ``keep``
    mask; a warning per joint names it and where it goes missing. (Frames of other
    topics' messages hold it too, as any merge of streams does: not reported.)"""
    column = {n: i for i, n in enumerate(names)}
    covered = np.zeros((times_ns.size, len(names)), dtype=bool)
    stream_rows: dict[str, npt.NDArray[np.bool_]] = {}
    stream_joints: dict[str, set[str]] = {}
    for block, t in ordered:
        rows = np.searchsorted(times_ns, t)
        covered[rows[:, None], np.array([column[n] for n in block.names], dtype=np.intp)[None, :]] = True
        stream_rows.setdefault(block.stream, np.zeros(times_ns.size, dtype=bool))[rows] = True
        stream_joints.setdefault(block.stream, set()).update(block.names)
    held = np.zeros_like(covered)
    seen = np.maximum.accumulate(covered, axis=0)
    for stream, joints in stream_joints.items():
        for name in sorted(joints, key=column.__getitem__):
            j = column[name]
            missing = stream_rows[stream] & seen[:, j] & ~covered[:, j]
            if not missing.any():
                continue
            rows = np.flatnonzero(missing)
            k = int(rows[0])
            held[:, j] = missing
            notify(
                NoticeKind.MISSING,
                f"{stream}: joint {name!r} is missing from frame {k} (t = {(int(times_ns[k]) - origin) / 1e9:.6g} s) "
                f"on, in {rows.size} message(s): its last value is held there (mask {MASK_KEEP!r})",
                stacklevel=4,
            )
    return held


def _sample_block(
    times: np.ndarray, block: Block, block_times: np.ndarray, origin: int, columns: slice, quaternion: bool
) -> FloatArray:
    values = block.channels["values"][:, columns]
    return sample_stream(block_times, values, origin, times, "quaternion" if quaternion else "value")


def _rotations_only(block: Block, quat: slice, dropped: list[npt.NDArray[np.int64]]) -> FloatArray:
    """``block``'s values with each quaternion (columns ``quat``) that is no rotation made NaN.

    A recorded quaternion of all zeros or with an infinite component states no orientation:
    it becomes absent (NaN, as a reader takes it: the last stated orientation holds) rather
    than a value every reader refuses. The stamps of the dropped samples are added to ``dropped``.
    """
    values: FloatArray = block.channels["values"]
    bad = no_rotation_rows(values[:, quat])
    if not bad.any():
        return values
    dropped.append(block.stamps[bad])
    values = values.copy()
    values[bad, quat] = np.nan
    return values


def _report_no_rotations(content: JournalContent, dropped: list[npt.NDArray[np.int64]], origin: int) -> None:
    """One warning for all the quaternions :func:`_rotations_only` dropped."""
    if not dropped:
        return
    stamps = np.concatenate(dropped)
    first = int(stamps.min())
    notify(
        NoticeKind.SKIPPED,
        f"{content.source or 'journal'}: {stamps.size} orientation sample(s) that are no rotation (all zero or "
        f"infinite), the first at t = {(first - origin) / 1e9:.6g} s (stamp {first} ns): left out, the "
        "orientation before them holds",
        stacklevel=5,
    )


def _root_from_tf(m: Motion, content: JournalContent, stamps: str, origin: int) -> dict[str, FloatArray]:
    world, root = str(content.metadata.get("world_frame", "")), str(content.metadata.get("root_frame", ""))
    if not (world and root and content.tf):
        return {}
    samples = TfSamples()
    dropped: list[npt.NDArray[np.int64]] = []
    for block in content.tf:
        parent, child = block.names
        values = _rotations_only(block, slice(3, 7), dropped)
        samples.add_block(parent, child, block.stamps, block.receive, values, block.stream == TF_STATIC_STREAM)
    _report_no_rotations(content, dropped, origin)
    buf, notes = samples.buffer(origin, stamps)
    for text in [*notes, *buf.problems]:
        notify(NoticeKind.INCONSISTENT, text, stacklevel=4)
    found = buf.lookup(world.lstrip("/"), root.lstrip("/"), m.times)
    if found is None:
        frames = listed(sorted(buf.frames))
        notify(
            NoticeKind.MISSING,
            f"no TF path from {world!r} to {root!r} (frames received: {frames}): no root pose",
            stacklevel=4,
        )
        return {}
    return {"root_position": found[0], "root_orientation": found[1]}


def _with_poses_and_imus(m: Motion, content: JournalContent, stamps: str, origin: int) -> Motion:
    fields: dict[str, Any] = _root_from_tf(m, content, stamps, origin)
    root = content.poses.get("root")
    if root is not None and not fields:  # journals written before TF edges were recorded
        (root_times,) = _stream_times([root], stamps)
        dropped: list[npt.NDArray[np.int64]] = []
        values = _rotations_only(root, slice(3, 7), dropped)
        root = dataclasses.replace(root, channels={**root.channels, "values": values})
        _report_no_rotations(content, dropped, origin)
        fields["root_position"] = _sample_block(m.times, root, root_times, origin, slice(0, 3), False)
        fields["root_orientation"] = _sample_block(m.times, root, root_times, origin, slice(3, 7), True)
    if content.imus:
        names = tuple(content.imus)
        layout = {
            "orientation": (slice(0, 4), True),
            "angular_velocity": (slice(4, 7), False),
            "linear_acceleration": (slice(7, 10), False),
        }
        imu_times = {n: _stream_times([content.imus[n]], stamps)[0] for n in names}
        fields["imu_names"] = names
        fields["imus"] = {
            key: np.stack(
                [_sample_block(m.times, content.imus[n], imu_times[n], origin, cols, quat) for n in names], axis=1
            )
            for key, (cols, quat) in layout.items()
            if key in IMU_CHANNELS
        }
    return dataclasses.replace(m, **fields) if fields else m


def _with_errors(m: Motion, blocks: Sequence[Block], stamps: str, origin: int) -> Motion:
    """The controller's per-joint tracking error as ``m``'s ``error`` channel (joints it never named: NaN)."""
    if not blocks:
        return m
    timed = [(b, t, {name: k for k, name in enumerate(b.names)}) for b, t in _by_stream(blocks, stamps)]
    error = np.full((m.num_frames, len(m.joint_names)), np.nan)
    for col, joint in enumerate(m.joint_names):
        name = ERROR_NAME + joint
        parts = [
            (t, b.channels["position"][:, at[name]]) for b, t, at in timed if name in at and "position" in b.channels
        ]
        if parts:
            ns = np.concatenate([t for t, _ in parts])
            values = np.concatenate([v for _, v in parts])[:, None]
            error[:, col] = sample_stream(ns, values, origin, m.times, "value")[:, 0]
    return dataclasses.replace(m, joint_channels={**m.joint_channels, "error": error})


def _target_segments(content: JournalContent, stamps: str) -> list[Segment]:
    """Commanded trajectories on one timeline, by the rule bag2motion uses (:func:`.core.merge.place_trajectories`)."""
    if not content.targets:
        return []
    stamp_ns = np.array([t[1] for t in content.targets], dtype=np.int64)
    recv_ns = np.array([t[2] for t in content.targets], dtype=np.int64)
    bases = trajectory_bases(stamp_ns, recv_ns, stamps)
    commands = []
    for (names, _, _, offsets, pos, vel), base in zip(content.targets, bases.tolist(), strict=True):
        channels = {"position": pos} if vel is None else {"position": pos, "velocity": vel}
        commands.append(Command(int(base), names, offsets, channels))
    return place_trajectories(commands)


def _target_group(segments: list[Segment], origin: int) -> Motion:
    times_ns, names, channels = merge(segments, hold=False)
    seconds, rows = _distinct_seconds(times_ns, origin, "trajectory points")
    fields: dict[str, Any] = {ch: values[rows] for ch, values in channels.items()}
    return Motion(times=seconds, joint_names=names, **fields)


def _distinct_seconds(
    times_ns: npt.NDArray[np.int64], origin: int, what: str
) -> tuple[FloatArray, npt.NDArray[np.intp]]:
    """Seconds since ``origin`` of the sorted, distinct ``times_ns``, and the rows to keep.

    Stamps a few nanoseconds apart far from the origin (a recording spanning decades) can be
    the same number of seconds in a float: of each such run the last sample is kept (the
    latest, as for samples of one stamp) and one warning says how many were dropped.
    """
    seconds = (np.asarray(times_ns, dtype=np.int64) - origin) / 1e9
    last = np.append(seconds[1:] > seconds[:-1], True) if seconds.size else np.zeros(0, dtype=bool)
    rows = np.flatnonzero(last)
    if rows.size < seconds.size:
        first = int(np.flatnonzero(~last)[0])
        notify(
            NoticeKind.INCONSISTENT,
            f"{seconds.size - rows.size} of {seconds.size} {what} are stamped too close to the next one for "
            f"seconds to tell them apart (the first at t = {seconds[first]:.6f} s, "
            f"{int(times_ns[first + 1]) - int(times_ns[first])} ns before the next); the later one kept",
            stacklevel=4,
        )
    return seconds[rows], rows
