"""One row per frame, one column per value: the column layout shared by Parquet and CSV.

Columns, in this order:

- ``time``: seconds, relative (the first recorded sample at 0), float64;
- ``<joint>.<channel>`` for every joint channel (``position``, ``velocity``,
  ``acceleration``, ``effort``, ``temperature`` and extra ones such as ``stiffness``);
  a joint of several DOF gets ``<joint>.<channel>[k]``;
- ``mask.<name>.<joint>`` (``[k]`` likewise): per-joint boolean states (``.mof`` "off");
- ``root.x`` ``root.y`` ``root.z`` ``root.qx`` ``root.qy`` ``root.qz`` ``root.qw``;
- ``link.<name>.<channel>.<component>`` and ``imu.<name>.<channel>.<component>``
  (components ``x y z`` for vectors, ``qx qy qz qw`` for orientations, ``0 1 …`` otherwise);
- ``series.<name>.<component>`` (the series' component names, else ``0 1 …``);
- ``time.<name>``: extra per-frame time columns.

:func:`columns` lays a Motion out; :func:`parse` rebuilds a Motion from the header and
the column arrays (used for both formats; Parquet adds the names, dims, series frames,
interpolation and rate from its schema metadata, see :func:`structure`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...core.errors import MotionFormatError
from ...core.model import IMU_CHANNELS, JOINT_CHANNELS, LINK_CHANNELS, Motion, Series

ROOT_COLUMNS = ("root.x", "root.y", "root.z", "root.qx", "root.qy", "root.qz", "root.qw")
_VECTOR = ("x", "y", "z")
_QUATERNION = ("qx", "qy", "qz", "qw")
#: SI units by joint channel (a prismatic joint's are metres where a revolute joint's are radians).
JOINT_UNITS = {
    "position": "rad or m",
    "velocity": "rad/s or m/s",
    "acceleration": "rad/s^2 or m/s^2",
    "effort": "N*m or N",
    "temperature": "degC",
}
ENTITY_UNITS = {
    "position": "m",
    "orientation": "1",
    "linear_velocity": "m/s",
    "angular_velocity": "rad/s",
    "linear_acceleration": "m/s^2",
}
_INDEXED = re.compile(r"^(.*)\[(\d+)\]$")


@dataclasses.dataclass
class Column:
    """One column: its header, values (N,) and unit ('' when unknown)."""

    name: str
    values: np.ndarray
    unit: str = ""


def _components(channel: str, width: int) -> tuple[str, ...]:
    if channel == "orientation" and width == 4:
        return _QUATERNION
    if width == 3 and channel in ("position", "linear_velocity", "angular_velocity", "linear_acceleration"):
        return _VECTOR
    return tuple(str(i) for i in range(width))


def _joint_headers(m: Motion, prefix: str, suffix: str) -> list[str]:
    out = []
    for name, dims in zip(m.joint_names, m.joint_dims, strict=True):
        if dims == 1:
            out.append(f"{prefix}{name}{suffix}")
        else:
            out.extend(f"{prefix}{name}{suffix}[{k}]" for k in range(dims))
    return out


def columns(m: Motion) -> list[Column]:
    """The motion as table columns (see the module docstring for the layout)."""
    out = [Column("time", m.times, "s")]
    for channel, values in m.channels().items():
        unit = JOINT_UNITS.get(channel, "")
        out.extend(Column(h, values[:, i], unit) for i, h in enumerate(_joint_headers(m, "", f".{channel}")))
    for mask, states in m.joint_masks.items():
        out.extend(Column(h, states[:, i]) for i, h in enumerate(_joint_headers(m, f"mask.{mask}.", "")))
    if m.root_position is not None:
        out.extend(Column(h, m.root_position[:, i], "m") for i, h in enumerate(ROOT_COLUMNS[:3]))
    if m.root_orientation is not None:
        out.extend(Column(h, m.root_orientation[:, i], "1") for i, h in enumerate(ROOT_COLUMNS[3:]))
    for kind, names, entities in (("link", m.link_names, m.links), ("imu", m.imu_names, m.imus)):
        for channel, values in entities.items():
            comps = _components(channel, values.shape[2])
            for e, entity in enumerate(names):
                out.extend(
                    Column(f"{kind}.{entity}.{channel}.{c}", values[:, e, i], ENTITY_UNITS.get(channel, ""))
                    for i, c in enumerate(comps)
                )
    for name, s in m.series.items():
        comps = s.components or tuple(str(i) for i in range(s.values.shape[1]))
        out.extend(Column(f"series.{name}.{c}", s.values[:, i]) for i, c in enumerate(comps))
    out.extend(Column(f"time.{name}", values, "s") for name, values in m.time_columns.items())
    return out


def structure(m: Motion) -> dict[str, Any]:
    """What the header alone does not say, for Parquet's schema metadata (JSON-able)."""
    return {
        "joint_names": list(m.joint_names),
        "joint_dims": list(m.joint_dims),
        "link_names": list(m.link_names),
        "imu_names": list(m.imu_names),
        "series": {k: {"frame": s.frame, "components": list(s.components)} for k, s in m.series.items()},
        "interpolation": list(m.interpolation) if m.interpolation is not None else None,
        "loop": list(m.loop) if m.loop is not None else None,
        "marks": [[t, name] for t, name in m.marks],
        "rate": m.rate,
    }


class LayoutError(MotionFormatError, ValueError):
    """A header the layout cannot place (the codec turns it into a ReadError with its column)."""

    def __init__(self, column: int, reason: str) -> None:
        self.column = column
        super().__init__(reason)


def _entity_slot(kind: str, rest: str, names: list[str], known: Mapping[str, int]) -> tuple[str, str, int, str] | None:
    """(entity, channel, width, component) of ``link.<rest>`` / ``imu.<rest>``, or None."""
    parts = rest.split(".")
    if len(parts) < 3:
        return None
    comp, channel, entity = parts[-1], parts[-2], ".".join(parts[:-2])
    if entity not in names:
        names.append(entity)
    return entity, channel, known.get(channel, -1), comp


def _check_headers(headers: Sequence[str]) -> None:
    """No column twice, and a ``time`` column."""
    if len(set(headers)) != len(headers):
        dup = next(h for i, h in enumerate(headers) if h in headers[:i])
        raise LayoutError(headers.index(dup, headers.index(dup) + 1), f"column {dup!r} appears twice")
    if "time" not in headers:
        raise LayoutError(0, "no 'time' column (seconds)")


def _root_fields(root: Mapping[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """The root position and orientation from their columns (a missing component is NaN)."""
    fields = {}
    if root.keys() & set(ROOT_COLUMNS[:3]):
        fields["root_position"] = np.column_stack([root.get(h, np.full(n, np.nan)) for h in ROOT_COLUMNS[:3]])
    if root.keys() & set(ROOT_COLUMNS[3:]):
        fields["root_orientation"] = np.column_stack([root.get(h, np.full(n, np.nan)) for h in ROOT_COLUMNS[3:]])
    return fields


def _joint_fields(
    joint_names: Sequence[str],
    dims: Mapping[str, int],
    joint_cells: Mapping[str, Mapping[tuple[str, int], np.ndarray]],
    mask_cells: Mapping[str, Mapping[tuple[str, int], np.ndarray]],
    n: int,
) -> tuple[dict[str, Any], dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The joint channels of the model (as Motion fields), the other channels, and the masks, as (N, dof) arrays."""
    offsets: dict[str, int] = {}
    total = 0
    for name in joint_names:
        offsets[name] = total
        total += max(dims[name], 1)

    def joint_array(cells: Mapping[tuple[str, int], np.ndarray], dtype: Any, fill: Any) -> np.ndarray:
        out = np.full((n, total), fill, dtype=dtype)
        for (name, k), v in cells.items():
            out[:, offsets[name] + k] = v
        return out

    fields: dict[str, Any] = {}
    extra_channels = {}
    for channel, cells in joint_cells.items():
        if channel in JOINT_CHANNELS:
            fields[channel] = joint_array(cells, np.float64, np.nan)
        else:
            extra_channels[channel] = joint_array(cells, np.float64, np.nan)
    masks = {name: joint_array(cells, bool, False) for name, cells in mask_cells.items()}
    return fields, extra_channels, masks


def _entity_arrays(
    kind: str,
    names: Sequence[str],
    cells_by_channel: Mapping[str, Mapping[tuple[str, str], np.ndarray]],
    headers: Sequence[str],
    n: int,
) -> dict[str, np.ndarray]:
    """Each link / IMU channel as an (N, entities, components) array."""
    known = LINK_CHANNELS if kind == "link" else IMU_CHANNELS
    arrays = {}
    index = {name: k for k, name in enumerate(names)}
    for channel, entity_cells in cells_by_channel.items():
        width = known.get(channel) or len({c for _, c in entity_cells})
        parts = _components(channel, width)
        arr = np.full((n, len(names), width), np.nan)
        for (entity, part), v in entity_cells.items():
            if part not in parts:
                raise LayoutError(
                    list(headers).index(f"{kind}.{entity}.{channel}.{part}"),
                    f"{kind} channel {channel!r} has no component {part!r} (expected {', '.join(parts)})",
                )
            arr[:, index[entity], parts.index(part)] = v
        arrays[channel] = arr
    return arrays


def _series(series_cells: Mapping[str, Mapping[str, np.ndarray]], series_meta: Mapping[str, Any]) -> dict[str, Series]:
    """The series of the table, with the frames and component names the metadata gives."""
    series = {}
    for name, comp_cells in series_cells.items():
        info = series_meta.get(name, {})
        labels = list(comp_cells)
        named = tuple(info.get("components", ())) or (() if labels == [str(i) for i in range(len(labels))] else labels)
        series[name] = Series(np.column_stack(list(comp_cells.values())), info.get("frame", "world"), tuple(named))
    return series


def parse(
    headers: Sequence[str],
    values: Sequence[np.ndarray],
    meta: Mapping[str, Any] | None = None,
) -> Motion:
    """The Motion a table holds: ``values[i]`` (N,) is the column ``headers[i]``.

    ``meta`` (Parquet's :func:`structure`) fixes the joint order and dims, entity names,
    series frames, interpolation and rate; without it (CSV) they come from the header.

    Raises:
        LayoutError: a column that is not in the layout, repeated, or no ``time`` column.
    """
    meta = meta or {}
    _check_headers(headers)
    n = values[headers.index("time")].shape[0]
    joint_names: list[str] = list(meta.get("joint_names", []))
    dims: dict[str, int] = dict(zip(joint_names, meta.get("joint_dims", [1] * len(joint_names)), strict=False))
    joint_cells: dict[str, dict[tuple[str, int], np.ndarray]] = {}  # channel → (joint, k) → values
    mask_cells: dict[str, dict[tuple[str, int], np.ndarray]] = {}
    root: dict[str, np.ndarray] = {}
    entities: dict[str, dict[str, dict[tuple[str, str], np.ndarray]]] = {"link": {}, "imu": {}}
    entity_names: dict[str, list[str]] = {
        "link": list(meta.get("link_names", [])),
        "imu": list(meta.get("imu_names", [])),
    }
    series_cells: dict[str, dict[str, np.ndarray]] = {}
    time_columns: dict[str, np.ndarray] = {}
    times = None

    def joint_slot(text: str) -> tuple[str, int]:
        hit = _INDEXED.match(text)
        name, k = (hit.group(1), int(hit.group(2))) if hit else (text, 0)
        if name not in dims:
            joint_names.append(name)
            dims[name] = 0
        if not meta.get("joint_dims"):
            dims[name] = max(dims[name], k + 1)
        return name, k

    for i, (h, v) in enumerate(zip(headers, values, strict=True)):
        if h == "time":
            times = v
        elif h in ROOT_COLUMNS:
            root[h] = v
        elif h.startswith("time.") and len(h) > 5:
            time_columns[h[5:]] = v
        elif h.startswith("mask.") and h.count(".") >= 2:
            mask, _, rest = h[5:].partition(".")
            mask_cells.setdefault(mask, {})[joint_slot(rest)] = v
        elif h.startswith(("link.", "imu.")) and (
            slot := _entity_slot(
                h.split(".")[0],
                h.partition(".")[2],
                entity_names[h.split(".")[0]],
                LINK_CHANNELS if h.startswith("link.") else IMU_CHANNELS,
            )
        ):
            entity, channel, _, comp = slot
            entities[h.split(".")[0]].setdefault(channel, {})[(entity, comp)] = v
        elif h.startswith("series.") and h.count(".") >= 2:
            name, _, comp = h[7:].rpartition(".")
            series_cells.setdefault(name, {})[comp] = v
        elif "." in h.rstrip("]"):
            base = _INDEXED.match(h)
            stem = base.group(1) if base else h
            joint, _, channel = stem.rpartition(".")
            if not joint or not channel:
                raise LayoutError(i, f"column {h!r} is not JOINT.CHANNEL nor any other column of the layout")
            joint_cells.setdefault(channel, {})[joint_slot(joint + (f"[{base.group(2)}]" if base else ""))] = v
        else:
            raise LayoutError(i, f"column {h!r} is not JOINT.CHANNEL nor any other column of the layout")
    assert times is not None

    fields, extra_channels, masks = _joint_fields(joint_names, dims, joint_cells, mask_cells, n)
    fields.update(_root_fields(root, n))
    for kind in ("link", "imu"):
        fields["links" if kind == "link" else "imus"] = _entity_arrays(
            kind, entity_names[kind], entities[kind], headers, n
        )
        fields[f"{kind}_names"] = tuple(entity_names[kind])
    series = _series(series_cells, meta.get("series", {}))
    interpolation = meta.get("interpolation")
    loop = meta.get("loop")
    return Motion(
        times=times,
        joint_names=tuple(joint_names),
        joint_dims=tuple(max(dims[name], 1) for name in joint_names),
        joint_channels=extra_channels,
        joint_masks=masks,
        series=series,
        time_columns=time_columns,
        interpolation=tuple(interpolation) if interpolation is not None else None,
        loop=(float(loop[0]), float(loop[1])) if loop else None,
        marks=tuple((float(t), str(name)) for t, name in meta.get("marks") or ()),
        rate=meta.get("rate"),
        **fields,
    )


#: Header prefixes of the non-joint columns: a joint name may not start with them.
RESERVED = ("time.", "mask.", "root.", "link.", "imu.", "series.")


def check_names(m: Motion) -> str | None:
    """Why the motion's names cannot be laid out unambiguously, or None."""
    for name in m.joint_names:
        if name == "time" or name.startswith(RESERVED) or name.endswith("]") or not name:
            return (
                f"joint name {name!r} would be read back as another column (time, mask., root., link., imu., series.)"
            )
    for kind, names in (("link", m.link_names), ("imu", m.imu_names)):
        for name in names:
            if not name:
                return f"empty {kind} name"
    return None


def group_paths(path: Any, groups: Sequence[str]) -> list[Any]:
    """Output files for ``groups``: ``path`` for one group, ``NAME.GROUP.SUFFIX`` beside it for several."""
    if len(groups) == 1:
        return [path]
    return [path.with_name(f"{path.stem}.{g}{path.suffix}") for g in groups]
