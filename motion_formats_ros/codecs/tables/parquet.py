"""Parquet tables (pyarrow, optional extra ``[parquet]``): one row per frame, zstd-compressed.

The layout is :mod:`._layout`'s. The schema metadata carries the file's metadata as
plain keys a reader of the table sees at once (``robot``, ``name``, ``group``,
``joint_names`` (JSON list), ``start_time_ns`` (absolute time of ``time`` = 0, ns since
the epoch), ``source``, ``date``, ``units`` (JSON: column → unit)), each column's CRC-32
(``motion_formats_ros.crc32``, checked on read, with the page checksums Parquet itself
has) and, under ``motion_formats_ros``, the structure the header alone does not say (joint dims, series
frames, keyframe interpolation, loop, marks, rate), so that reading a table written here gives
back the same motion exactly. Each column's unit is in its field metadata too.

Reading a table without that metadata (written by pandas, Polars, DuckDB …) works from
the header alone, like CSV.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import zlib
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...core.atomic import atomic_output
from ...core.errors import ReadError, require
from ...core.inputs import MAX_RATIO, MIN_EXPANSION, expansion_bound, read_input
from ...core.model import DEFAULT_GROUP, CodecRecord, MotionFile
from . import _common, _layout
from . import output_paths as output_paths  # offered to the registry: a write of several groups makes one file each


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
#: Schema metadata key of each column's CRC-32 (JSON): the footer and page headers have no
#: checksum of their own, so a changed byte there could otherwise change values silently.
CHECKSUM_KEY = b"motion_formats_ros.crc32"


def _meta_crc(metadata: dict[str, str] | dict[bytes, bytes]) -> int:
    """CRC-32 of the plain schema metadata (every key but Arrow's own and the checksums)."""
    items = sorted(
        (k.decode("utf-8", "replace") if isinstance(k, bytes) else k, v if isinstance(v, bytes) else v.encode())
        for k, v in metadata.items()
    )
    crc = 0
    for key, value in items:
        if key != CHECKSUM_KEY.decode() and not key.startswith("ARROW:"):
            crc = zlib.crc32(value, zlib.crc32(key.encode("utf-8", "surrogateescape") + b"\0", crc))
    return crc


def _crc(values: np.ndarray) -> int:
    """CRC-32 of a column's values as written (float64 or bool, little-endian)."""
    data = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<") if values.dtype.itemsize > 1 else None)
    return zlib.crc32(data.tobytes())


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


#: Bytes a value of each Parquet physical type decodes to (others: 8, a float64).
_WIDTHS = {"BOOLEAN": 1, "INT32": 4, "FLOAT": 4}


def _check_expansion(path: Path, source: Any, pa: Any, pq: Any) -> None:
    """Refuse a file whose columns would decode to more than a bounded multiple of its size.

    Compression and run-length encoding let a file of a few kilobytes hold columns of
    gigabytes (a decompression bomb); their decoded size is known from the footer before
    any page is read: each row group's rows times the width of a row, or its stated
    uncompressed size. (Only row-group fields are read: pyarrow aborts the process on
    the column metadata of some damaged footers, which its read reports as errors.)
    """
    try:
        meta = pq.ParquetFile(source).metadata
        row = sum(_WIDTHS.get(meta.schema.column(c).physical_type, 8) for c in range(meta.num_columns))
    except (pa.ArrowException, OSError, ValueError, IndexError):
        return  # the read says what is wrong with the file
    bound = expansion_bound(source.size())
    decoded = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        decoded += max(group.total_byte_size, group.num_rows * row)
        if decoded > bound:
            raise ReadError(
                path,
                f"its columns decode to more than {bound} bytes ({MAX_RATIO} times the file's size, at "
                f"least {MIN_EXPANSION}) (a decompression bomb?)",
                field=f"row group {g}",
            )


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


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> None:
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
        metadata = _metadata(motion_file, group, _layout.structure(m), units)
        sums = {"columns": {c.name: _crc(c.values) for c in cols}, "metadata": _meta_crc(metadata)}
        metadata[CHECKSUM_KEY.decode()] = json.dumps(sums)
        schema = pa.schema(fields, metadata=metadata)
        table = pa.Table.from_arrays([pa.array(np.ascontiguousarray(c.values)) for c in cols], schema=schema)
        with atomic_output(out, overwrite) as fh:
            # Page checksums: a changed byte in the data is an error on read, never a silently different value.
            pq.write_table(table, fh, compression="zstd", write_page_checksum=True)


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


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read a Parquet table into a one-group MotionFile."""
    pa = _pyarrow("reading Parquet")
    pq = _pq()

    # the bytes as every input is read (a FIFO or device refused at once, never more than the file's size)
    source = pa.BufferReader(read_input(path))
    _check_expansion(path, source, pa, pq)
    try:
        table = pq.read_table(source, page_checksum_verification=True)
    except (pa.ArrowException, OSError, ValueError) as exc:
        reason = " ".join(str(exc).split())  # Arrow's messages may run over several lines
        raise ReadError(path, f"not a readable Parquet file: {reason}") from None
    meta = dict(table.schema.metadata or {})
    structure = _json(path, meta, META_KEY, {})
    if not isinstance(structure, dict):
        raise ReadError(path, "expected a JSON object", field=META_KEY.decode())
    try:
        headers = list(table.column_names)
    except UnicodeDecodeError as exc:
        raise ReadError(path, f"a column name is not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    values = [_column(path, table, i, name) for i, name in enumerate(headers)]
    checksums = _json(path, meta, CHECKSUM_KEY, None)
    if checksums is not None:
        columns = checksums.get("columns") if isinstance(checksums, dict) else None
        if not isinstance(columns, dict) or set(columns) != set(headers):
            raise ReadError(path, "does not list the table's columns", field=CHECKSUM_KEY.decode())
        if checksums.get("metadata") != _meta_crc(meta):
            raise ReadError(path, "the schema metadata differs from its checksum (the file was changed)")
        for name, column in zip(headers, values, strict=True):
            if columns[name] != _crc(column):
                raise ReadError(
                    path, "values differ from the checksum written with them (the file was changed)", field=name
                )
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
