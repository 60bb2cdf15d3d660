"""OMF writing: a MotionFile as the document the reference implementation writes, in each encoding."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ...core.errors import WriteError, listed
from ...core.keyframes import interpolation_dropped
from ...core.model import Motion, MotionFile
from ...core.notices import NoticeKind, notify
from ...core.serial import msgpack as _msgpack
from ...core.timing import rate_beyond
from .layout import (
    _RESERVED,
    IMU_FIELDS,
    JOINT_FIELDS,
    LINK_FIELDS,
    REFERENCE_JOINT_FIELDS,
    ROBOT_DESCRIPTION_KEY,
    STAMP,
    START_TIME_KEY,
    VERSION,
    OmfRecord,
    _kept,
    format_date,
)


def to_document(motion_file: MotionFile, path: str | Path = "<output>") -> dict[str, Any]:
    """The OMF document (dicts, scalars and float arrays) for ``motion_file``.

    Groups with different joints are written with the union of their joints (absent
    values NaN), as OMF has one joint list per file: the warning names the joints each
    group is given that it lacks. Data OMF cannot hold is dropped with a warning naming it.
    """
    groups = motion_file.groups
    for name in groups:
        if name in _RESERVED:
            raise WriteError(path, f"group name {name!r} is reserved in OMF")
    joints = _union([list(zip(m.joint_names, m.joint_dims, strict=True)) for m in groups.values()], path, "joint")
    joint_names = [n for n, _ in joints]
    joint_dims = [d for _, d in joints]
    link_names = [n for n, _ in _union([[(n, 1) for n in m.link_names] for m in groups.values()], path, "link")]
    imu_names = [n for n, _ in _union([[(n, 1) for n in m.imu_names] for m in groups.values()], path, "imu")]
    needs_stamp = any(
        _fps(m) is None or (m.num_frames and m.times[0] != 0.0) or _kept(m).stamped for m in groups.values()
    )
    time_names: list[str] = [STAMP] if needs_stamp else []
    for m in groups.values():  # a column of the motion's named like OMF's stamp column is not written (said)
        time_names.extend(k for k in m.time_columns if k not in time_names and k != STAMP)

    basic: dict[str, Any] = {
        "name": motion_file.name,
        "robot": motion_file.robot,
        "date": _format_date(motion_file),
        "joint_names": joint_names,
        "joint_dims": joint_dims,
        "link_names": link_names,
        "imu_names": imu_names,
        "time_names": time_names,
        "data_names": list(groups),
    }
    if motion_file.start_time_ns is not None:
        basic[START_TIME_KEY] = int(motion_file.start_time_ns)
    if motion_file.robot_description:
        basic[ROBOT_DESCRIPTION_KEY] = motion_file.robot_description
    kept = motion_file.record(OmfRecord) or OmfRecord()
    basic.update(kept.basic)
    doc: dict[str, Any] = {"version": VERSION, "format": "omf", "basic": basic}
    for name, motion in groups.items():
        doc[name] = _section(motion, name, joint_names, joint_dims, link_names, imu_names, time_names, path)
    for key, value in kept.top.items():
        doc.setdefault(key, value)
    return doc


def _union(lists: list[list[tuple[str, int]]], path: str | Path, what: str) -> list[tuple[str, int]]:
    seen: dict[str, int] = {}
    for items in lists:
        for name, dim in items:
            if seen.setdefault(name, dim) != dim:
                raise WriteError(path, f"{what} {name!r} has {seen[name]} and {dim} dimensions in different groups")
    return list(seen.items())


def _format_date(motion_file: MotionFile) -> str | None:
    if motion_file.date is not None:
        return format_date(motion_file.date)
    return motion_file.date_text


def _expand(
    values: np.ndarray | None, names: list[str], have: tuple[str, ...], dims: list[int], have_dims: tuple[int, ...]
) -> np.ndarray | None:
    """Joint columns in the file's joint order (NaN for joints this group lacks)."""
    if values is None or list(have) == names:
        return values
    out = np.full((values.shape[0], int(sum(dims))), np.nan)
    starts = np.concatenate([[0], np.cumsum(dims)]).astype(int)
    own = np.concatenate([[0], np.cumsum(have_dims)]).astype(int)
    column = {name: j for j, name in enumerate(names)}
    for i, name in enumerate(have):
        j = column[name]
        out[:, starts[j] : starts[j + 1]] = values[:, own[i] : own[i + 1]]
    return out


def _expand_entities(values: np.ndarray, names: list[str], have: tuple[str, ...]) -> np.ndarray:
    if list(have) == names:
        return values
    out = np.full((values.shape[0], len(names), values.shape[2]), np.nan)
    column = {name: j for j, name in enumerate(names)}
    for i, name in enumerate(have):
        out[:, column[name]] = values[:, i]
    return out


def _fps(m: Motion) -> float | None:
    """The ``fps`` a reader takes for ``m``'s uniform frames, or None: its times go in the stamp
    column (frames at no uniform rate, or closer than the highest rate a reader takes)."""
    return m.rate if m.rate is not None and rate_beyond(m.rate) is None else None


def _variable_rate(fps: Any) -> bool:
    """A declared ``fps`` of 0 (variable rate: times from the stamp column)."""
    return isinstance(fps, (int, float)) and not isinstance(fps, bool) and fps == 0


def _section(
    m: Motion,
    name: str,
    joint_names: list[str],
    joint_dims: list[int],
    link_names: list[str],
    imu_names: list[str],
    time_names: list[str],
    path: str | Path,
) -> dict[str, Any]:
    empty = np.zeros((0,))
    dropped: list[str] = []
    sec: dict[str, Any] = {}
    declared = _kept(m).fps
    if _variable_rate(declared) and (STAMP in time_names or np.array_equal(m.times, np.arange(m.num_frames))):
        sec["fps"] = declared  # fps 0 stays 0: its times are in the stamp column (or 1 s apart, as read)
    elif (rate := _fps(m)) is not None:
        sec["fps"] = int(rate) if float(rate).is_integer() else rate
    else:
        sec["fps"] = declared if declared is not None else 0
    sec["length"] = m.num_frames
    sec["root_pos"] = m.root_position if m.root_position is not None else empty
    sec["root_rot"] = m.root_orientation if m.root_orientation is not None else empty

    def joint_values(values: np.ndarray | None) -> np.ndarray:
        out = _expand(values, joint_names, m.joint_names, joint_dims, m.joint_dims)
        return empty if out is None else out

    joint: dict[str, Any] = {}
    reverse = {v: k for k, v in JOINT_FIELDS.items()}
    for key in REFERENCE_JOINT_FIELDS:
        channel = JOINT_FIELDS.get(key)
        joint[key] = joint_values(getattr(m, channel) if channel else m.joint_channels.get(key))
    for key, values in m.joint_channels.items():
        if key in reverse or key in JOINT_FIELDS:
            dropped.append(f"joint channel {key!r} (clashes with a standard OMF field)")
            continue
        joint[key] = joint_values(values)
    sec["joint"] = joint
    sec["link"] = _entity_fields(m.links, LINK_FIELDS, link_names, m.link_names)
    sec["imu"] = _entity_fields(m.imus, IMU_FIELDS, imu_names, m.imu_names)
    if time_names:
        columns = {**m.time_columns, STAMP: m.times}  # a column of the motion's named stamp: said above
        sec["time"] = (
            np.column_stack([columns.get(t, np.full(m.num_frames, np.nan)) for t in time_names])
            if m.num_frames
            else empty
        )
    else:
        sec["time"] = empty
    for key, value in _kept(m).section.items():
        sec.setdefault(key, value)

    for what, names, have in (
        ("joints", joint_names, m.joint_names),
        ("links", link_names, m.link_names),
        ("IMUs", imu_names, m.imu_names),
    ):
        lacking = [repr(n) for n in names if n not in have]
        if lacking:  # one list per file: the group is given the others' (its values NaN)
            dropped.append(
                f"its own {what[:-1]} list (OMF has one per file: {what} of other groups written here as NaN: "
                f"{listed(lacking)})"
            )
    if STAMP in m.time_columns:
        dropped.append(f"time column {STAMP!r} (OMF's {STAMP!r} column holds the frame times)")
    if m.joint_masks:
        dropped.append("joint masks " + ", ".join(repr(k) for k in m.joint_masks))
    if m.series:
        dropped.append("series " + ", ".join(repr(k) for k in m.series))
    curves = interpolation_dropped(m)
    if curves is not None:
        dropped.append(curves)
    if m.loop is not None:
        dropped.append(f"loop {m.loop[0]:g}-{m.loop[1]:g} s")
    if dropped:
        notify(
            NoticeKind.LOSSY_WRITE,
            f"OMF cannot hold, dropped from group {name!r}: " + "; ".join(dropped),
            file=path,
            stacklevel=4,
        )
    return sec


def _entity_fields(
    channels: dict[str, np.ndarray], names: dict[str, str], all_names: list[str], have: tuple[str, ...]
) -> dict[str, Any]:
    reverse = {v: k for k, v in names.items()}
    out: dict[str, Any] = {key: np.zeros((0,)) for key in names}
    for channel, values in channels.items():
        out[reverse.get(channel, channel)] = _expand_entities(values, all_names, have)
    return out


def encode(motion_file: MotionFile, encoding: str, path: str | Path = "<output>") -> bytes:
    """The bytes of ``motion_file`` as OMF in ``encoding``."""
    return b"".join(_encode_parts(motion_file, encoding, path))


def _encode_parts(motion_file: MotionFile, encoding: str, path: str | Path) -> Iterator[bytes | memoryview]:
    doc = to_document(motion_file, path)
    if encoding == "msgpack":
        return _msgpack.iter_pack(doc)
    if encoding == "yaml":
        from ...core.serial import yaml as _yaml  # PyYAML is loaded for YAML files only

        return iter([_yaml.dump(doc).encode("utf-8")])
    return iter([_json_dump(doc).encode("utf-8")])


def _json_dump(doc: dict[str, Any]) -> str:
    """JSON with one row per line (NaN/Infinity as Python's json writes them)."""
    import json  # for the JSON encoding only

    out: list[str] = []

    def scalar(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    def node(value: Any, indent: str) -> str:
        if isinstance(value, dict):
            if not value:
                return "{}"
            inner = indent + "  "
            items = [f"{inner}{scalar(str(k))}: {node(v, inner)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + indent + "}"
        if isinstance(value, np.ndarray):
            if value.size == 0:
                return "[]"
            if value.ndim == 1:
                return "[" + ", ".join(_json_floats(value)) + "]"
            inner = indent + "  "
            texts = _json_floats(value)
            per = value[0].size
            rows = []
            for r in range(value.shape[0]):
                chunk = texts[r * per : (r + 1) * per]
                if value.ndim == 2:
                    rows.append(inner + "[" + ", ".join(chunk) + "]")
                else:
                    g = int(np.prod(value.shape[2:]))
                    parts = ["[" + ", ".join(chunk[k * g : (k + 1) * g]) + "]" for k in range(value.shape[1])]
                    rows.append(inner + "[" + ", ".join(parts) + "]")
            return "[\n" + ",\n".join(rows) + "\n" + indent + "]"
        return scalar(value)

    out.append(node(doc, ""))
    return "\n".join(out) + "\n"


def _json_floats(values: np.ndarray) -> list[str]:
    texts = list(map(repr, np.asarray(values, dtype=np.float64).ravel().tolist()))
    if any(t in ("nan", "inf", "-inf") for t in texts):
        texts = [{"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(t, t) for t in texts]
    return texts
