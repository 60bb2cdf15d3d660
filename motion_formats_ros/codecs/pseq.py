"""Choreonoid PoseSeq ``.pseq`` (keyframed poses made in the choreography editor), read only.

A PoseSeq lists key poses (``refs``): each at a ``time``, naming some joints by joint ID
with their values ``q``, optionally the base link's pose (``ikLinks`` entry with
``isBaseLink``: translation and a row-major rotation matrix) and the ZMP. A pose need not
name every joint: a joint moves between the poses that name it.

The reader gives a keyframed motion: one keyframe per pose time, each joint interpolated
linearly between the poses that set it and held before its first and after its last
(the mask ``unset`` marks values a pose did not give). Two poses at the same time: the
later one in the file replaces the earlier (as Choreonoid's PoseSeq does), with a
warning naming both lines. Numbers may be written in exponent form (``1e-06``, which
YAML 1.1 resolves to a string, not a float) wherever a number stands. Choreonoid's own interpolator
smooths the transitions with splines and honours ``maxTransitionTime``; that is kept in
the motion's :class:`PseqMotionRecord`, not reproduced. Joint names come from the same options as ``.seq``
(``joint_names``, ``joint_map``, ``body``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import yaml
from scipy.spatial.transform import Rotation

from ..core.errors import ReadError, WriteError, number
from ..core.model import CodecRecord, Motion, MotionFile, Series
from ..core.naming import NamingOptions, note_unnamed, resolve_names
from ..core.naming import load_safe as _load_safe
from ..core.notices import NoticeKind, notify

#: A number as Choreonoid's YAML reader takes it (strtod) that YAML 1.1 leaves a string:
#: exponent form without a dot (``1e-06``, ``-2.5E+01`` has one but ``3E2`` has not).
_EXPONENT_NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+\Z")  # no backtracking


@dataclasses.dataclass
class PseqMotionRecord(CodecRecord):
    """What a ``.pseq`` read keeps of each key pose beyond its values (``Motion.record(PseqMotionRecord)``).

    Attributes:
        pose_extras: Per key pose, its other keys (``maxTransitionTime`` …), in file order.
    """

    codec: ClassVar[str] = "pseq"
    pose_extras: list[dict[str, Any]] = dataclasses.field(default_factory=list)


def _number(value: Any, path: Path, field: str) -> float:
    if isinstance(value, str) and _EXPONENT_NUMBER.match(value.strip()):
        value = float(value)
    if isinstance(value, int) and not isinstance(value, bool):
        with contextlib.suppress(OverflowError):  # an int beyond the float range stays one, and is refused
            value = float(value)
    if not isinstance(value, float) or not math.isfinite(value):
        raise ReadError(path, f"expected a finite number, got {number(value)}", field=field)
    return value


def _pose_lines(path: Path) -> list[int]:
    """1-based line of every entry of ``refs`` (for messages; [] when it cannot tell)."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8-sig"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if isinstance(key, yaml.ScalarNode) and key.value == "refs" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _numbers(value: Any, path: Path, field: str, count: int | None = None) -> list[float]:
    if not isinstance(value, list):
        raise ReadError(path, f"expected a list of numbers, got {type(value).__name__}", field=field)
    if count is not None and len(value) != count:
        raise ReadError(path, f"expected {count} numbers, got {len(value)}", field=field)
    return [_number(v, path, f"{field}[{i}]") for i, v in enumerate(value)]


def _fill(values: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Each column linear between its set values, held outside them (all-NaN stays NaN)."""
    out: np.ndarray = values.copy()
    for col in range(values.shape[1]):
        known = np.isfinite(values[:, col])
        if known.any() and not known.all():
            out[:, col] = np.interp(times, times[known], values[known, col])
    return out


@dataclasses.dataclass(frozen=True)
class ReadOptions(NamingOptions):
    """Options of :func:`read`: names for the joints (and links)."""


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """A PoseSeq is never written: no write options."""


_POSE_SEQ = re.compile(r"^type:[ \t]*['\"]?PoseSeq\b", re.MULTILINE)


def sniff(path: Path, head: str) -> bool:
    """True when ``head`` has a top-level ``type: PoseSeq``."""
    return _POSE_SEQ.search(head) is not None


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> None:
    """PoseSeq files are only read."""
    raise WriteError(path, "Choreonoid PoseSeq (.pseq) files are read only; write a .seq instead")


def _pose_joints(pose: dict[str, Any], path: Path, field: str) -> dict[int, float]:
    """A pose's joint ID → value (``joints`` and ``q`` of the same length, IDs non-negative)."""
    ids = pose.get("joints", [])
    q = _numbers(pose.get("q", []), path, f"{field}.refer.q")
    if not isinstance(ids, list) or len(ids) != len(q):
        raise ReadError(
            path,
            f"joints and q differ in length ({len(ids) if isinstance(ids, list) else '?'} vs {len(q)})",
            field=f"{field}.refer.joints",
        )
    joints: dict[int, float] = {}
    for k, jid in enumerate(ids):
        if isinstance(jid, bool) or not isinstance(jid, int) or not 0 <= jid < 100_000:
            raise ReadError(path, f"expected a joint ID, got {jid!r}", field=f"{field}.refer.joints[{k}]")
        joints[jid] = q[k]
    return joints


def _base_link(pose: dict[str, Any], path: Path, field: str) -> tuple[Any, Any] | None:
    """The pose's base link (translation, quaternion x, y, z, w), the last one marked ``isBaseLink``."""
    base = None
    for k, link in enumerate(pose.get("ikLinks", []) or []):
        if isinstance(link, dict) and link.get("isBaseLink"):
            lf = f"{field}.refer.ikLinks[{k}]"
            xyz = _numbers(link.get("translation"), path, f"{lf}.translation", 3)
            matrix = np.array(_numbers(link.get("rotation"), path, f"{lf}.rotation", 9)).reshape(3, 3)
            if not np.allclose(matrix @ matrix.T, np.eye(3), atol=1e-5):
                raise ReadError(path, "rotation is not orthonormal", field=f"{lf}.rotation")
            base = (xyz, Rotation.from_matrix(matrix).as_quat())
    return base


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read a ``.pseq`` file into a keyframed motion (group ``target``), named as the options say."""
    doc = _load_safe(path, "pose sequence")
    if not isinstance(doc, dict):
        raise ReadError(path, f"not a PoseSeq: the top level is a {type(doc).__name__}, expected a mapping")
    if doc.get("type") != "PoseSeq":
        raise ReadError(path, f"not a PoseSeq (type is {doc.get('type')!r})", field="type")
    refs = doc.get("refs")
    if refs is None or refs == []:
        raise ReadError(path, "no poses")
    if not isinstance(refs, list):
        raise ReadError(path, "expected a list of poses", field="refs")
    poses: list[tuple[float, dict[int, float], Any, Any, dict[str, Any]]] = []
    ref_index: list[int] = []  # the refs entry of each pose
    for i, ref in enumerate(refs):
        field = f"refs[{i}]"
        if not isinstance(ref, dict) or not isinstance(ref.get("refer"), dict):
            raise ReadError(path, "expected a mapping with 'time' and 'refer'", field=field)
        t = _number(ref.get("time"), path, f"{field}.time")
        pose = ref["refer"]
        if pose.get("type", "Pose") != "Pose":
            raise ReadError(
                path, f"unsupported pose type {pose.get('type')!r} (only Pose)", field=f"{field}.refer.type"
            )
        joints = _pose_joints(pose, path, field)
        base = _base_link(pose, path, field)
        zmp = _numbers(pose["zmp"], path, f"{field}.refer.zmp", 3) if "zmp" in pose else None
        other = {k: v for k, v in ref.items() if k not in ("time", "refer")}
        if poses and t < poses[-1][0]:
            raise ReadError(path, f"pose time {t} is before the previous pose's {poses[-1][0]}", field=f"{field}.time")
        if poses and t == poses[-1][0]:  # Choreonoid keeps the later pose at the same time
            lines = _pose_lines(path)
            if len(lines) == len(refs):
                earlier, later = f"line {lines[ref_index[-1]]}", f"line {lines[i]}"
            else:
                earlier, later = f"refs[{ref_index[-1]}]", f"refs[{i}]"
            notify(
                NoticeKind.REPLACED,
                f"two key poses at time {t:g} ({earlier} and {later}): the later one ({later}) "
                "replaces the earlier, as in Choreonoid",
                file=path,
                stacklevel=2,
            )
            poses[-1] = (t, joints, base, zmp, other)
            ref_index[-1] = i
            continue
        poses.append((t, joints, base, zmp, other))
        ref_index.append(i)
    if not poses:
        raise ReadError(path, "no poses")
    if not any(p[1] or p[2] is not None or p[3] is not None for p in poses):
        raise ReadError(path, f"no poses: the {len(poses)} key pose(s) set no joint, base link or ZMP")
    count = max((max(p[1]) + 1 for p in poses if p[1]), default=0)
    names = resolve_names(path, options or ReadOptions())
    if names.joints is not None and count > len(names.joints):
        raise ReadError(path, f"a pose sets joint ID {count - 1}, but {names.source} names {len(names.joints)} joints")
    joint_count = len(names.joints) if names.joints is not None else count
    joint_list = names.joints if names.joints is not None else [f"joint_{i}" for i in range(joint_count)]
    if names.joints is None:
        note_unnamed(path, joint_count, stacklevel=3)
    times = np.array([p[0] for p in poses])
    raw = np.full((len(poses), joint_count), np.nan)
    for k, pose_entry in enumerate(poses):
        for jid, value in pose_entry[1].items():
            raw[k, jid] = value
    fields: dict[str, Any] = {"position": _fill(raw, times), "joint_masks": {"unset": np.isnan(raw)}}
    if any(p[2] is not None for p in poses):
        pos = np.full((len(poses), 3), np.nan)
        rot = np.full((len(poses), 4), np.nan)
        for k, p in enumerate(poses):
            if p[2] is not None:
                pos[k], rot[k] = p[2]
        fields["root_position"] = _fill(pos, times)
        known = np.flatnonzero(np.isfinite(rot[:, 0]))
        # Orientations between base-link poses: slerp, via the model's own sampling.
        fields["root_orientation"] = (
            Motion(times=times[known], root_orientation=rot[known]).sample(times).root_orientation
        )
    if any(p[3] is not None for p in poses):
        zmp_rows = np.array([p[3] if p[3] is not None else [np.nan] * 3 for p in poses])
        fields["series"] = {"zmp": Series(_fill(zmp_rows, times), frame="world", components=("x", "y", "z"))}
    motion = Motion(
        times=times,
        joint_names=tuple(joint_list),
        interpolation=("linear",) * (len(poses) - 1),
        records={PseqMotionRecord.codec: PseqMotionRecord([p[4] for p in poses])},
        **fields,
    )
    return MotionFile.single(
        motion,
        name=str(doc.get("name") or path.stem),
        robot=str(doc.get("targetBody") or names.robot or ""),
    )
