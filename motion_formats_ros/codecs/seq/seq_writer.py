"""Writing a body motion file in Choreonoid's own layout.

Block nodes, one flow row per frame, ``%.9g`` values (or ``repr`` with ``lossless=True``),
format version 2 (camelCase keys) by default, or 4 (snake_case keys).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ...core.atomic import check_writable, write_bytes_atomic
from ...core.errors import WriteError, listed, number, spelled
from ...core.keyframes import interpolation_dropped
from ...core.model import DEFAULT_GROUP, Motion, MotionFile
from ...core.naming import load_body
from ...core.notices import NoticeKind, notify
from ...core.options import option
from ...core.serial import yaml as _yaml
from ...core.spatial import DEFAULT_SE3_FORMAT, SE3Format, pose_to_se3
from ...core.timing import MAX_RATE, rate_beyond
from .record import SeqMotionRecord, SeqRecord
from .schema import DEFAULT_VERSION, JOINT_CONTENT_FOR, KEYS, START_TIME_KEY, TOP_KEYS, WRITE_VERSIONS, camel


class _Writer:
    """Builds the text of a body motion file in Choreonoid's layout."""

    def __init__(self, version: int, lossless: bool, se3_format: str, path: str | os.PathLike[str]) -> None:
        self.version = version
        self.fmt = "%r" if lossless else "%.9g"
        self.lossless = lossless
        self.se3_format = se3_format
        self.path = path
        self.out: list[str] = []

    def key(self, camel: str) -> str:
        if self.version >= 4 and camel in KEYS and camel not in ("isRootRelative", "partLabels"):
            return KEYS[camel]
        return camel

    def number(self, value: float) -> str:
        value = float(value)
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value) if self.lossless else f"{value:.9g}"

    def rows(self, values: np.ndarray, times: np.ndarray | None, groups: int | None, indent: str) -> None:
        """Frames of ``values`` ((N, F) or (N, groups, width)) with an optional time column."""
        n = values.shape[0]
        if n == 0:
            self.out[-1] += " []"
            return
        flat = values.reshape(n, -1)
        f = self.fmt
        if groups is None:
            body = ", ".join([f] * flat.shape[1])
        else:
            width = flat.shape[1] // groups
            body = ", ".join(["[ " + ", ".join([f] * width) + " ]"] * groups)
        if times is not None:
            body = self.time_format(times) + ", " + body
            flat = np.column_stack([times, flat])
        template = f"{indent}- [ {body} ]\n"
        self.out.append((template * n)[:-1] % tuple(flat.ravel().tolist()))

    def time_format(self, times: np.ndarray) -> str:
        if self.lossless:
            return "%r"
        rounded = np.array([f"{t:.9g}" for t in times.tolist()], dtype=np.float64)
        return "%.9g" if np.all(np.diff(rounded) > 0) else "%r"

    def plain(self, data: Mapping[str, Any], indent: str) -> None:
        """Plain data (kept components and keys) as block YAML, arrays of rows as flow rows."""
        for key, value in data.items():
            k = _yaml.dump_scalar(key)
            if isinstance(value, Mapping):
                if value:
                    self.out.append(f"{indent}{k}:")
                    self.plain(value, indent + "  ")
                else:
                    self.out.append(f"{indent}{k}: {{}}")
            elif isinstance(value, np.ndarray) and value.ndim >= 2:
                self.out.append(f"{indent}{k}:")
                self.rows(value, None, value.shape[1] if value.ndim == 3 else None, indent + "  ")
            elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
                self.out.append(f"{indent}{k}:")
                for item in value:
                    self.out.append(f"{indent}  -")
                    self.plain(item, indent + "    ")
            else:
                self.out.append(f"{indent}{k}: {_yaml.dump_scalar(_lists(value))}")

    def component(
        self,
        typ: str,
        content: str,
        rate: float,
        n: int,
        has_time: bool,
        extra: Mapping[str, Any],
        parts: int | None = None,
    ) -> None:
        self.out.append("  -")
        self.out.append(f"    type: {typ}")
        self.out.append(f"    content: {content}")
        if parts is not None:
            self.out.append(f"    {self.key('numParts')}: {parts}")
        self.out.append(f"    {self.key('frameRate')}: {self.number(rate)}")
        self.out.append(f"    {self.key('numFrames')}: {n}")
        if has_time:
            self.out.append(f"    {self.key('hasFrameTime')}: true")
        if typ == "MultiSE3Seq":
            self.out.append(f"    SE3Format: {self.se3_format}")
        if extra:
            self.plain(extra, "    ")


def _lists(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, list):
        return [_lists(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _lists(v) for k, v in value.items()}
    return value


def _pick_group(motion_file: MotionFile, dropped: list[str]) -> Motion:
    groups = motion_file.groups
    name = DEFAULT_GROUP if DEFAULT_GROUP in groups else next(iter(groups))
    others = [g for g in groups if g != name]
    if others:
        dropped.append("groups " + ", ".join(repr(g) for g in others) + f" (a .seq holds one motion; wrote {name!r})")
    return groups[name]


def _write_rate(m: Motion, path: str | os.PathLike[str]) -> tuple[float, bool]:
    """(frameRate to write, whether frames need their own times).

    Frames get their times unless ``k / frameRate`` reproduces them exactly, so a
    variable-rate (or offset) motion keeps its timestamps and a read-write loses nothing.
    A rate the reader refuses (beyond :data:`~motion_formats_ros.core.timing.MAX_RATE`,
    or infinite: frames a few subnormals apart) is refused here, naming the frames.
    """
    rate, has_time = _rate_and_times(m)
    if not math.isfinite(rate) or rate_beyond(rate):
        steps = np.diff(m.times)
        i = int(np.argmin(steps)) if steps.size else 0
        raise WriteError(
            path,
            f"frames {i} and {i + 1} at {number(float(m.times[i]))} and {number(float(m.times[i + 1]))} s "
            f"give a frameRate of {number(rate)} Hz; a .seq reader takes at most {MAX_RATE:g} Hz",
        )
    return rate, has_time


def _rate_and_times(m: Motion) -> tuple[float, bool]:
    n = m.num_frames
    kept = m.record(SeqMotionRecord)
    declared = kept.frame_rate if kept is not None else None
    if m.rate is not None and (n == 0 or np.array_equal(m.times, np.arange(n, dtype=np.float64) / m.rate)):
        return float(m.rate), False
    if isinstance(declared, (int, float)) and not isinstance(declared, bool) and declared > 0:
        return float(declared), True
    if m.rate is not None:
        return float(m.rate), True
    if n >= 2:
        return float(f"{1.0 / float(np.median(np.diff(m.times))):.9g}"), True
    return 100.0, n > 0 and m.times[0] != 0.0


def encode(
    motion_file: MotionFile,
    *,
    version: int | str | None = None,
    lossless: bool = False,
    se3_format: str | None = None,
    path: str | os.PathLike[str] = "<output>",
    named_by_body: bool = False,
) -> bytes:
    """The bytes of ``motion_file`` as a body motion file (see :func:`write`).

    ``named_by_body``: the joint columns are in a body file's joint-ID order (nothing to say
    about their names).
    """
    try:
        v = DEFAULT_VERSION if version is None else int(version)
    except (TypeError, ValueError):
        raise WriteError(path, f"format version {version!r}: expected one of {WRITE_VERSIONS}") from None
    if v not in WRITE_VERSIONS:
        raise WriteError(path, f"format version {v} cannot be written (choose {' or '.join(map(str, WRITE_VERSIONS))})")
    fmt = str(se3_format or DEFAULT_SE3_FORMAT)
    dropped: list[str] = []
    m = _pick_group(motion_file, dropped)
    w = _Writer(v, lossless, fmt, path)
    rate, has_time = _write_rate(m, path)
    _header(w, motion_file, v, rate, m.num_frames, has_time)
    _components(w, m, rate, has_time, dropped)
    _note_dropped(m, dropped)
    if not named_by_body:
        _note_names(m, dropped)
    if dropped:
        notify(NoticeKind.LOSSY_WRITE, "a .seq cannot hold, dropped: " + "; ".join(dropped), file=path, stacklevel=3)
    w.out.append("")
    return "\n".join(w.out).encode("utf-8")


def _header(w: _Writer, motion_file: MotionFile, version: int, rate: float, n: int, has_time: bool) -> None:
    """The top node's keys (and the ones kept from the file read), up to ``components:``."""
    out = w.out
    out.append("type: CompositeSeq")
    out.append("content: BodyMotion")
    out.append(f"{w.key('formatVersion')}: {version}")
    out.append(f"{w.key('frameRate')}: {w.number(rate)}")
    out.append(f"{w.key('numFrames')}: {n}")
    if has_time:
        out.append(f"{w.key('hasFrameTime')}: true")
    if motion_file.start_time_ns is not None:
        # Quoted: YAML readers that make every number a float would round the nanoseconds.
        out.append(f"{START_TIME_KEY}: '{int(motion_file.start_time_ns)}'")
    kept = motion_file.record(SeqRecord)
    top_extra = kept.top if kept is not None else None
    if isinstance(top_extra, Mapping):
        w.plain({k: val for k, val in top_extra.items() if camel(k) not in TOP_KEYS}, "")
    out.append("components:")


def _components(w: _Writer, m: Motion, rate: float, has_time: bool, dropped: list[str]) -> None:
    """Joint positions, the root and link poses, velocities, efforts, the ZMP, then the kept components."""
    out = w.out
    n = m.num_frames
    times = m.times if has_time else None
    kept = m.record(SeqMotionRecord) or SeqMotionRecord()
    keys = kept.component_keys

    if m.position is not None:
        w.component("MultiValueSeq", "JointDisplacement", rate, n, has_time, keys.get("position", {}), m.dof)
        out.append("    frames:")
        w.rows(m.position, times, None, "      ")
    poses = _poses(m, dropped)
    if poses is not None:
        position, quat = poses
        values = pose_to_se3(position, quat, w.se3_format)
        w.component("MultiSE3Seq", "LinkPosition", rate, n, has_time, keys.get("link", {}), values.shape[1])
        out.append("    frames:")
        w.rows(values, times, values.shape[1], "      ")
    for channel in ("velocity", "effort"):
        data = getattr(m, channel)
        if data is not None:
            w.component("MultiValueSeq", JOINT_CONTENT_FOR[channel], rate, n, has_time, keys.get(channel, {}), m.dof)
            out.append("    frames:")
            w.rows(data, times, None, "      ")
    zmp = m.series.get("zmp")
    if zmp is not None and zmp.values.shape[1] == 3:
        extra = dict(keys.get("zmp", {}))
        if zmp.frame == "root":
            extra = {"isRootRelative": True, **extra}
        elif zmp.frame != "world":
            dropped.append(f"the frame {zmp.frame!r} of series 'zmp' (written as world coordinates)")
        w.component("Vector3Seq", "ZMP", rate, n, has_time, extra)
        out.append("    frames:")
        w.rows(zmp.values, times, None, "      ")
    for comp in kept.components:
        if isinstance(comp, Mapping):
            out.append("  -")
            w.plain(comp, "    ")


def _poses(m: Motion, dropped: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """Positions (N, P, 3) and quaternions (N, P, 4): the root, then the links."""
    n = m.num_frames
    parts_p: list[np.ndarray] = []
    parts_q: list[np.ndarray] = []
    root = m.root_position is not None or m.root_orientation is not None
    if root:
        if m.root_position is None:
            dropped.append("nothing: the root has no position (written as 0, 0, 0)")
        if m.root_orientation is None:
            dropped.append("nothing: the root has no orientation (written as the identity)")
        parts_p.append(m.root_position[:, None] if m.root_position is not None else np.zeros((n, 1, 3)))
        q = m.root_orientation[:, None] if m.root_orientation is not None else np.tile([0.0, 0.0, 0.0, 1.0], (n, 1, 1))
        parts_q.append(q)
    if m.link_names:
        count = len(m.link_names)
        lp = m.links.get("position")
        lq = m.links.get("orientation")
        if lp is not None or lq is not None:
            if not root:
                dropped.append(f"the root pose is absent: link {m.link_names[0]!r} is written as part 0 (the root)")
            parts_p.append(lp if lp is not None else np.zeros((n, count, 3)))
            parts_q.append(lq if lq is not None else np.tile([0.0, 0.0, 0.0, 1.0], (n, count, 1)))
        other = [k for k in m.links if k not in ("position", "orientation")]
        if other:
            dropped.append("link channels " + ", ".join(repr(k) for k in other))
    if not parts_p:
        return None
    return np.concatenate(parts_p, axis=1), np.concatenate(parts_q, axis=1)


def _note_names(m: Motion, dropped: list[str]) -> None:
    """A .seq holds joint values by column, without names: say which names a reader will not see."""
    if not m.joint_names or all(n == f"joint_{i}" for i, n in enumerate(m.joint_names)):
        return  # nothing to lose: no joints, or the names a reader gives them anyway
    body, names = spelled("body", "=FILE"), spelled("joint_names", "=[...]")
    dropped.append(
        f"joint names (columns in this order: {listed(m.joint_names)}; a reader names them joint_0 … "
        f"joint_{len(m.joint_names) - 1} unless given a .body with these joint IDs ({body}) or {names}; "
        f"writing with {body} puts the columns in that body's joint-ID order)"
    )


def by_body(motion_file: MotionFile, body: str | os.PathLike[str], path: str | os.PathLike[str]) -> MotionFile:
    """The motion's joints in the joint-ID order of a Choreonoid ``.body`` file (the .seq's columns).

    Raises:
        WriteError: A joint of the body is not in the motion (its column cannot be written).
    """
    order = load_body(body).joints or []
    if not order:
        raise WriteError(path, f"the body file {os.fspath(body)} has no joint IDs to order the columns by")
    dropped: list[str] = []

    def reorder(m: Motion) -> Motion:
        if not m.joint_names:
            return m
        have = set(m.joint_names)
        missing = [n for n in order if n not in have]
        if missing:
            raise WriteError(
                path,
                f"the body file {os.fspath(body)} has joints the motion lacks: {listed(missing)} "
                f"(a .seq has a column for each joint ID 0 to {len(order) - 1})",
            )
        wanted = set(order)
        extra = [n for n in m.joint_names if n not in wanted]
        if extra:
            dropped.append(listed(extra))
        return m.select_joints(order)

    out = motion_file.map(reorder)
    if dropped:
        notify(
            NoticeKind.LOSSY_WRITE,
            f"joints not in the body file {os.fspath(body)}, dropped: {dropped[0]}",
            file=path,
            stacklevel=4,
        )
    return out


def _note_dropped(m: Motion, dropped: list[str]) -> None:
    for channel in ("acceleration", "temperature"):
        if getattr(m, channel) is not None:
            dropped.append(f"joint {channel}s")
    if m.joint_channels:
        dropped.append("joint channels " + ", ".join(repr(k) for k in m.joint_channels))
    if m.joint_masks:
        dropped.append("joint masks " + ", ".join(repr(k) for k in m.joint_masks))
    if any(d != 1 for d in m.joint_dims):
        dropped.append("joint dimensions (multi-DOF joints are written as flat columns)")
    if m.imu_names or m.imus:
        dropped.append("IMUs " + ", ".join(repr(k) for k in m.imu_names))
    series = [k for k, s in m.series.items() if k != "zmp" or s.values.shape[1] != 3]
    if series:
        dropped.append("series " + ", ".join(repr(k) for k in series))
    if m.time_columns:
        dropped.append("time columns " + ", ".join(repr(k) for k in m.time_columns))
    if m.loop is not None:
        dropped.append(f"loop {m.loop[0]:g}-{m.loop[1]:g} s")
    curves = interpolation_dropped(m)
    if curves is not None:
        dropped.append(curves)


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    version: int | None = option(
        None, "format version: 2 (camelCase keys, the default) or 4 (snake_case)", choices=WRITE_VERSIONS
    )
    lossless: bool = option(False, "values as shortest round-trip repr instead of %.9g")
    se3_format: SE3Format | None = option(None, "pose layout: XYZQWQXQYQZ (the default), XYZQXQYQZQW or XYZRPY")
    body: str | os.PathLike[str] | None = option(
        None,
        "a Choreonoid .body file: the joint columns in its joint-ID order (as Choreonoid reads them)",
        metavar="FILE",
    )


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> int:
    """Write ``motion_file`` as a Choreonoid body motion file.

    Args:
        motion_file: What to write (its ``target`` group, else its first).
        path: Output file.
        options: The format version (2, the default, camelCase keys; or 4, snake_case
            keys), lossless values (shortest round-trip ``repr`` instead of ``%.9g``),
            the pose layout (default ``XYZQWQXQYQZ``; ``XYZQXQYQZQW``, ``XYZRPY``) and a
            ``.body`` file whose joint IDs order the columns.
        overwrite: Replace an existing file.

    Returns:
        The frames written: those of the one group a .seq holds.

    Warns naming what a .seq cannot hold (other groups, IMUs, temperatures …, and the joint
    names when no ``body`` gives their order).
    """
    opts = options or WriteOptions()
    check_writable(path, overwrite)
    if opts.body is not None:
        motion_file = by_body(motion_file, opts.body, path)
    data = encode(
        motion_file,
        version=opts.version,
        lossless=opts.lossless,
        se3_format=opts.se3_format,
        path=path,
        named_by_body=opts.body is not None,
    )
    write_bytes_atomic(path, data, overwrite)
    return _pick_group(motion_file, []).num_frames


__all__ = ["WriteOptions", "encode", "write"]
