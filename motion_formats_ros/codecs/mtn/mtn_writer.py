"""A motion written as ``.mtn``: keyframes reduced to the linear segments the format holds, joints as PRM locators."""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from ...core import joint_maps
from ...core.errors import WriteError
from ...core.memory import available_memory
from ...core.model import Motion, MotionFile
from ...core.notices import NoticeKind, collect, notify
from ...core.options import option
from ...core.spatial import unit_quaternions
from .mtn_reader import decode
from .sections import (
    _INT32,
    _REQUIRED,
    ANGLE_LINE_DATA,
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
    MtnRecord,
    body_rpy_from_quaternion,
    quaternion_from_body_rpy,
)


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    group: str | None = option(None, "the group to write", metavar="NAME")
    frame_rate: int | None = option(None, "frame period (default: the file's own, else 16)", unit="ms")
    joint_map: str | os.PathLike[str] | joint_maps.JointMap | None = joint_maps.joint_map_option()
    tolerance: float = option(0.1, "keyframe reduction tolerance", unit="deg")


def _section(number: int, body: bytes, tail_hex: str | None, size: int | None, content_only: bool = False) -> bytes:
    """A section: header, body, then what followed the content in the file read (``size``
    its size, header included) when the body is as long as it was: byte-identical round
    trips; otherwise zero padding to 4 bytes (none where the file read did not pad).
    ``content_only``: the size field leaves out the 8-byte header, as the file read did."""
    tail = bytes.fromhex(tail_hex) if tail_hex else b""
    if size is None or SECTION.size + len(body) + len(tail) != size:
        aligned = size is None or size % 4 == 0
        tail = b"\0" * ((-(SECTION.size + len(body))) % 4) if aligned else b""
    declared = len(body) + len(tail) + (0 if content_only else SECTION.size)
    return SECTION.pack(number, declared) + body + tail


def _string(text: str, what: str, path: Path, length_byte: int | None = None) -> bytes:
    """A length-prefixed string; ``length_byte`` (shorter than the text) stands in for its length."""
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:
        raise WriteError(path, f"{what} {text!r} has characters .mtn cannot hold (Latin-1 only)") from None
    if len(raw) > 255:
        raise WriteError(path, f"{what} is {len(raw)} bytes long, .mtn strings hold at most 255")
    if length_byte is not None and 0 <= length_byte < len(raw):
        return bytes([length_byte]) + raw
    return bytes([len(raw)]) + raw


def encode(motion_file: MotionFile, path: Path, options: WriteOptions | None = None) -> bytes:
    """The ``.mtn`` bytes of one group of ``motion_file`` (``options`` as :func:`write` takes them)."""
    from ...core.keyframes import reduce_keyframes, warn_lossy_write

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
    last = (float(motion.times[-1]) - float(motion.times[0])) * 1000 / unit_ms  # Python floats: inf, no warning
    if not last <= _INT32[1]:
        count = f"{last:,.0f}" if last < 1e15 else f"{last:g}" if math.isfinite(last) else "more"
        raise WriteError(
            path,
            f"{motion.duration:g} s is {count} frames of {unit_ms} ms: .mtn counts the frames between keyframes "
            f"in 32 bits (at most {_INT32[1]:,})",
        )

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
                dropped.append(
                    f"the end at {motion.duration:.6g} s, between frames of {unit_ms} ms "
                    f"(moved to the next frame, {grid[-1] - grid[0]:.6g} s)"
                )
            motion = reduce_keyframes(motion.sample(grid), opts.tolerance)
        else:
            motion = dataclasses.replace(motion, interpolation=(), rate=None)
    motion, changed = _only_linear(motion, unit_ms / 1000.0)
    if changed:
        dropped.append("step/next interpolation (approximated with an extra keyframe one frame from the jump)")

    times = motion.times - motion.times[0]
    exact = times * 1000 / unit_ms
    frames = np.rint(exact).astype(np.int64)
    grid_name = f"{rate_ms} ms frame grid" if rate_ms else "whole milliseconds (frame rate 0)"
    if np.any(np.abs(exact - frames) > 1e-6):
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
    warn_lossy_write(source, written, path, ".mtn", opts.tolerance, f"keyframes on the {grid_name}")
    return data


def _unwritable(motion: Motion) -> list[str]:
    """What of ``motion`` a ``.mtn`` cannot hold (said in the lossy-write notice)."""
    dropped: list[str] = []
    if motion.num_frames and motion.times[0] != 0.0:
        dropped.append(f"the start at {motion.times[0]:g} s (a .mtn starts at 0)")
    multi = [
        f"{n}[{d}] as {n}_0 … {n}_{d - 1}" for n, d in zip(motion.joint_names, motion.joint_dims, strict=True) if d > 1
    ]
    if multi:
        dropped.append(f"multi-DOF joints (written as flat joints: {', '.join(multi)})")
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
    name_byte = meta.name_length_bytes.get(name)
    body1 = (
        _string(name, "motion name", path, name_byte if isinstance(name_byte, int) else None)
        + _string(creator, "creator", path)
        + _string(design, "design label", path)
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
        content_only = number in meta.content_only_sizes
        out += _section(number, bodies[number], tail, size if isinstance(size, int) else None, content_only)
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
        dots = np.abs(np.sum(mine * unit_quaternions(q), axis=1))
        if np.all(dots > 1 - 1e-12):
            return rpy
    if q is None or np.isnan(q).any():
        return np.zeros((n, 3))
    return body_rpy_from_quaternion(q)
