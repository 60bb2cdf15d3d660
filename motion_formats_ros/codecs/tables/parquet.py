"""Parquet tables (pyarrow, optional extra ``[parquet]``): one row per frame, zstd-compressed.

The layout is :mod:`._layout`'s. The schema metadata carries the file's metadata as
plain keys a reader of the table sees at once (``robot``, ``name``, ``group``,
``joint_names`` (JSON list), ``start_time_ns`` (absolute time of ``time`` = 0, ns since
the epoch), ``source``, ``date``, ``units`` (JSON: column → unit)) and, under
``motion_formats_ros``, the structure the header alone does not say (joint dims, series
frames, keyframe interpolation, loop, rate), so that reading a table written here gives
back the same motion exactly. Each column's unit is in its field metadata too.

Reading a table without that metadata (written by pandas, Polars, DuckDB …) works from
the header alone, like CSV.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...core.atomic import atomic_output
from ...core.errors import ReadError, require
from ...core.model import DEFAULT_GROUP, CodecRecord, MotionFile
from . import _common, _layout


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """No read options."""


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """No write options."""


MAGIC = "PAR1"
#: Schema metadata key of the structure (JSON).
META_KEY = b"motion_formats_ros"
LAYOUT_VERSION = 1


@dataclasses.dataclass
class ParquetRecord(CodecRecord):
    """What a Parquet read keeps of the file's schema metadata (``MotionFile.record(ParquetRecord)``).

    Attributes:
        source: The file the table was written from, as its metadata names it.
    """

    codec: ClassVar[str] = "parquet"
    source: str = ""


def _pyarrow(feature: str) -> Any:
    """pyarrow (typed as Any: it ships no type information), or the one-line install message."""
    return require("pyarrow", feature, package="pyarrow", extra="parquet")


def _pq() -> Any:
    return importlib.import_module("pyarrow.parquet")


def sniff(path: Path, head: str) -> bool:
    """Parquet files start with ``PAR1``."""
    return head.startswith(MAGIC)


def _metadata(motion_file: MotionFile, group: str, structure: dict[str, Any], units: dict[str, str]) -> dict[str, str]:
    plain: dict[str, Any] = {
        "name": motion_file.name,
        "robot": motion_file.robot,
        "group": group,
        "joint_names": json.dumps(structure["joint_names"]),
        "start_time_ns": "" if motion_file.start_time_ns is None else str(int(motion_file.start_time_ns)),
        "source": motion_file.source or "",
        "date": motion_file.date.isoformat() if motion_file.date else "",
        "units": json.dumps(units),
    }
    plain[META_KEY.decode()] = json.dumps({"version": LAYOUT_VERSION, **structure})
    return plain


def write(motion_file: MotionFile, path: Path, *, overwrite: bool = False) -> None:
    """Write one Parquet table per group (``NAME.GROUP.parquet`` when there are several)."""
    pa = _pyarrow("writing Parquet")
    pq = _pq()

    for out, group, m in _common.plan_write(motion_file, Path(path), overwrite):
        cols = _layout.columns(m)
        fields = [
            pa.field(c.name, pa.bool_() if c.values.dtype == bool else pa.float64(), metadata={"unit": c.unit})
            for c in cols
        ]
        units = {c.name: c.unit for c in cols if c.unit}
        schema = pa.schema(fields, metadata=_metadata(motion_file, group, _layout.structure(m), units))
        table = pa.Table.from_arrays([pa.array(np.ascontiguousarray(c.values)) for c in cols], schema=schema)
        with atomic_output(out, overwrite) as fh:
            pq.write_table(table, fh, compression="zstd")


def _column(path: Path, table: Any, i: int, name: str) -> np.ndarray:
    pa = _pyarrow("reading Parquet")
    column = table.column(i)
    kind = column.type
    if pa.types.is_boolean(kind):
        if column.null_count:
            raise ReadError(path, "boolean column with missing values", field=name)
        return np.asarray(column.to_numpy(zero_copy_only=False), dtype=bool)
    if not (pa.types.is_floating(kind) or pa.types.is_integer(kind)):
        raise ReadError(path, f"column of type {kind}, expected numbers", field=name)
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.float64)


def _json(path: Path, meta: dict[bytes, bytes], key: bytes, default: Any) -> Any:
    raw = meta.get(key)
    if raw is None:
        return default
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReadError(path, f"schema metadata is not JSON: {exc}", field=key.decode()) from None


def read(path: Path) -> MotionFile:
    """Read a Parquet table into a one-group MotionFile."""
    pa = _pyarrow("reading Parquet")
    pq = _pq()

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ReadError(path, f"not a readable Parquet file: {exc}") from None
    meta = dict(table.schema.metadata or {})
    structure = _json(path, meta, META_KEY, {})
    if not isinstance(structure, dict):
        raise ReadError(path, "expected a JSON object", field=META_KEY.decode())
    headers = list(table.column_names)
    values = [_column(path, table, i, name) for i, name in enumerate(headers)]
    if "time" in headers:
        bad = _common.first_unordered(values[headers.index("time")])
        if bad is not None:
            raise ReadError(path, "times must be finite and strictly increasing", field=f"time[{bad}]")
    try:
        motion = _layout.parse(headers, values, structure)
    except _layout.LayoutError as exc:
        raise ReadError(path, str(exc), field=f"column {exc.column}") from None
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise ReadError(path, f"the table and its schema metadata disagree: {exc}") from None

    def text(key: str) -> str:
        return bytes(meta.get(key.encode(), b"")).decode("utf-8", errors="replace")

    start = text("start_time_ns")
    date = text("date")
    try:
        start_ns = int(start) if start else None
        when = datetime.fromisoformat(date) if date else None
    except ValueError as exc:
        raise ReadError(path, f"schema metadata: {exc}", field="start_time_ns / date") from None
    return MotionFile(
        groups={text("group") or DEFAULT_GROUP: motion},
        name=text("name") or Path(path).stem,
        robot=text("robot"),
        date=when,
        start_time_ns=start_ns,
        records={ParquetRecord.codec: ParquetRecord(text("source"))} if text("source") else {},
    )
