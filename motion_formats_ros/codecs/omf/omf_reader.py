"""OMF reading: the document (msgpack, YAML or JSON) checked field by field into a MotionFile."""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ...core.errors import ReadError, number
from ...core.model import IMU_CHANNELS, LINK_CHANNELS, Motion, MotionFile
from ...core.notices import NoticeKind, notify
from ...core.serial import msgpack as _msgpack
from ...core.timing import rate_beyond
from .layout import (
    _BASIC_KEYS,
    _RESERVED,
    _SECTION_KEYS,
    _TOP_KEYS,
    DATE_FORMAT,
    IMU_FIELDS,
    JOINT_FIELDS,
    LINK_FIELDS,
    ROBOT_DESCRIPTION_KEY,
    STAMP,
    START_TIME_KEY,
    VERSION,
    OmfMotionRecord,
    OmfRecord,
)


def decode(data: bytes, encoding: str, path: str | Path = "<bytes>") -> MotionFile:
    """Parse OMF ``data`` in ``encoding`` into a MotionFile."""
    if encoding == "msgpack":
        try:
            doc = _msgpack.unpack(data)
        except _msgpack.MsgpackError as exc:
            raise ReadError(path, exc.reason, offset=exc.offset) from None
    elif encoding == "yaml":
        from ...core.serial import yaml as _yaml  # PyYAML is loaded for YAML files only

        try:
            doc = _yaml.load(_text(data, path))
        except _yaml.YamlError as exc:
            raise ReadError(path, exc.reason, line=exc.line) from None
    else:
        import json  # JSON and its nesting check only for a JSON document

        from ...core.serial import nesting as _nesting

        text = _text(data, path)
        deep = _nesting.json_too_deep(text)
        if deep is not None:
            raise ReadError(path, f"invalid JSON: {_nesting.too_deep_reason()}", line=deep)
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReadError(path, f"invalid JSON: {exc.msg}", line=exc.lineno) from None
        except ValueError:  # an integer of more digits than Python converts
            line, reason = _nesting.long_integer(text)
            raise ReadError(path, f"invalid JSON: {reason}", line=line) from None
    return _Reader(path, len(data)).file(doc)


def _text(data: bytes, path: str | Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReadError(path, "not valid UTF-8 text", offset=exc.start) from None


#: The fraction of a second in a date's text (``12:00:00.123456789``: ``123456789``).
_FRACTION = re.compile(r"[0-9]{2}:[0-9]{2}:[0-9]{2}[.,]([0-9]+)")


class _Fields:
    """Typed values of a decoded OMF document; every error names the field path."""

    def __init__(self, path: str | Path, size: int | None = None) -> None:
        self.path = path
        self.size = size  # the document's bytes: no group declares more frames than that

    def fail(self, field: str, reason: str) -> ReadError:
        return ReadError(self.path, reason, field=field)

    def mapping(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field, f"expected a mapping, got {_type_name(value)}")
        return value

    def names(self, value: Any, field: str) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, (list, tuple)):
            raise self.fail(field, f"expected a list of names, got {_type_name(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.fail(f"{field}[{i}]", f"expected a string, got {_type_name(item)}")
        if len(set(value)) != len(value):
            dup = sorted({v for v in value if value.count(v) > 1})
            raise self.fail(field, f"duplicate names {dup}")
        return list(value)

    def text(self, value: Any, field: str) -> str:
        if value is not None and not isinstance(value, str):
            raise self.fail(field, f"expected a string, got {_type_name(value)}")
        return value or ""

    def integer(self, value: Any, field: str, minimum: int = 0) -> int:
        if isinstance(value, float) and math.isfinite(value) and value == int(value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):  # (an int beyond the float range too)
            raise self.fail(field, f"expected an integer, got {_type_name(value)} {number(value)}")
        if value < minimum:
            raise self.fail(field, f"expected an integer >= {minimum}, got {number(value)}")
        return int(value)

    def number(self, value: Any, field: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(field, f"expected a number, got {_type_name(value)} {number(value)}")
        try:
            return float(value)
        except OverflowError:  # an integer beyond the float range
            raise self.fail(field, f"expected a number in the float range, got {number(value)}") from None

    def array(self, value: Any, field: str, length: int, row_shape: tuple[int, ...] | None) -> np.ndarray | None:
        """A (length, *row_shape) float array (any row shape for None), None when empty."""
        if isinstance(value, np.ndarray):
            arr = value
        elif isinstance(value, (list, tuple)):
            if len(value) == 0:
                return None
            arr = self._convert(value, field)
        else:
            raise self.fail(field, f"expected a list, got {_type_name(value)}")
        if arr.shape[0] == 0:
            return None
        if arr.shape[0] != length:
            raise self.fail(field, f"expected 0 or {length} frames (length), got {arr.shape[0]}")
        if row_shape is not None and arr.shape[1:] != row_shape:
            flat = math.prod(row_shape)
            # The reference also accepts link/imu rows flattened to L*k values.
            if len(row_shape) > 1 and arr.ndim == 2 and arr.shape[1] == flat:
                return arr.reshape((length, *row_shape))
            self._row_error(value, field, row_shape)
        return arr

    def _convert(self, value: list[Any] | tuple[Any, ...], field: str) -> np.ndarray:
        try:
            arr = np.asarray(value)
        except ValueError:
            arr = None
        if arr is None or arr.dtype.kind not in "fiu":
            # Ragged rows or non-numbers: find the first offending element.
            self._first_bad(value, field)
            raise self.fail(field, "expected numbers")  # pragma: no cover - _first_bad raises
        return arr.astype(np.float64, copy=False)

    def _first_bad(self, value: Any, field: str, shape: tuple[int, ...] | None = None) -> None:
        def walk(node: Any, path: str, depth: int, expect: tuple[int, ...] | None) -> None:
            if isinstance(node, (list, tuple, np.ndarray)):
                if expect is not None and expect and len(node) != expect[0]:
                    raise self.fail(path, f"expected {number(expect[0])} values, got {len(node)}")
                for i, item in enumerate(node):
                    walk(item, f"{path}[{i}]", depth + 1, expect[1:] if expect else None)
            elif isinstance(node, bool) or not isinstance(node, (int, float, np.floating, np.integer)):
                raise self.fail(path, f"expected a number, got {_type_name(node)} {number(node)}")
            elif expect:
                raise self.fail(path, f"expected a list of {expect[0]} values, got a number")

        first_row = value[0] if len(value) else None
        if shape is None and isinstance(first_row, (list, tuple, np.ndarray)):
            shape = _nested_shape(first_row)
        for i, row in enumerate(value):
            walk(row, f"{field}[{i}]", 1, shape)

    def _row_error(self, value: Any, field: str, row_shape: tuple[int, ...]) -> None:
        rows = value if not isinstance(value, np.ndarray) else list(value)
        self._first_bad(rows, field, row_shape)
        raise self.fail(field, f"expected rows of shape {row_shape}")  # pragma: no cover


class _Reader(_Fields):
    """Turns a decoded OMF document into the model, with field paths in every error."""

    def file(self, doc: Any) -> MotionFile:
        doc = self.mapping(doc, "(top level)")
        fmt = doc.get("format")
        if fmt != "omf":
            raise self.fail("format", f"expected 'omf', got {number(fmt)}")
        version = doc.get("version")
        if version != VERSION:
            raise self.fail("version", f"unsupported version {number(version)} (supported: {VERSION})")
        basic = self.mapping(doc.get("basic", {}), "basic")
        ctx, data_names = self.context(doc, basic)
        groups = {name: self.section(doc.get(name, {}), name, ctx) for name in data_names}
        record = OmfRecord(
            basic={k: v for k, v in basic.items() if k not in _BASIC_KEYS},
            top={k: v for k, v in doc.items() if k not in _TOP_KEYS and k not in data_names},
        )
        date, date_text = self.date(basic.get("date"))
        return MotionFile(
            groups=groups,
            name=str(basic.get("name") or ""),
            robot=str(basic.get("robot") or ""),
            date=date,
            date_text=date_text,
            start_time_ns=self.start_time(basic.get(START_TIME_KEY)),
            robot_description=self.text(basic.get(ROBOT_DESCRIPTION_KEY), f"basic.{ROBOT_DESCRIPTION_KEY}") or None,
            records={OmfRecord.codec: record},
        )

    def start_time(self, value: Any) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not -(1 << 63) <= value < 1 << 63:
            raise self.fail(
                f"basic.{START_TIME_KEY}",
                f"expected an integer (ns since the epoch), got {_type_name(value)} {number(value)}",
            )
        return int(value)

    def context(self, doc: dict[str, Any], basic: dict[str, Any]) -> tuple[_Context, list[str]]:
        """The names every group shares (``basic``), and the data groups' names."""
        joint_names = self.names(basic.get("joint_names"), "basic.joint_names")
        dims_raw = basic.get("joint_dims")
        if dims_raw is None or (isinstance(dims_raw, list) and not dims_raw and joint_names):
            joint_dims = [1] * len(joint_names)
        else:
            if not isinstance(dims_raw, (list, np.ndarray)):
                raise self.fail("basic.joint_dims", f"expected a list, got {_type_name(dims_raw)}")
            joint_dims = [self.integer(d, f"basic.joint_dims[{i}]", 1) for i, d in enumerate(list(dims_raw))]
            wide = next((i for i, d in enumerate(joint_dims) if self.size is not None and d > self.size), None)
            if wide is not None:
                raise self.fail(
                    f"basic.joint_dims[{wide}]",
                    f"{number(joint_dims[wide])} is more values than a file of {self.size:,} bytes can hold "
                    "(at most one per byte)",
                )
            if len(joint_dims) != len(joint_names):
                raise self.fail(
                    "basic.joint_dims",
                    f"has {len(joint_dims)} entries but basic.joint_names has {len(joint_names)}",
                )
        link_names = self.names(basic.get("link_names"), "basic.link_names")
        imu_names = self.names(basic.get("imu_names"), "basic.imu_names")
        time_names = self.names(basic.get("time_names"), "basic.time_names")
        data_names = self.names(basic.get("data_names"), "basic.data_names")
        if not data_names:
            data_names = [k for k, v in doc.items() if k not in _RESERVED and isinstance(v, dict)]
        for name in data_names:
            if name in _RESERVED:
                raise self.fail("basic.data_names", f"{name!r} is reserved")
        if not data_names:
            raise self.fail("basic.data_names", "no data groups")
        return _Context(joint_names, joint_dims, link_names, imu_names, time_names), data_names

    def date(self, value: Any) -> tuple[datetime | None, str | None]:
        """``basic.date`` as a date and time, else as its text (with a warning), else none."""
        if value is None or value == "":
            return None, None
        if isinstance(value, datetime):
            return value, None
        if isinstance(value, str):
            for parse in (lambda s: datetime.strptime(s, DATE_FORMAT), datetime.fromisoformat):
                try:
                    parsed = parse(value)
                except ValueError:
                    continue
                self.finer_than_microseconds(value, parsed)
                return parsed, None
        # YAML's own timestamp without a time of day comes as a date: shown as the file has it.
        shown = f"{value.isoformat()} (a day without a time)" if isinstance(value, date) else number(value)
        notify(
            NoticeKind.KEPT_UNUSED,
            f"cannot parse {shown} as a date and time; kept as text",
            file=self.path,
            field="basic.date",
            stacklevel=4,
        )
        return None, str(value)

    def finer_than_microseconds(self, text: str, parsed: datetime) -> None:
        """Warn when ``text`` gives a fraction of a second finer than the microseconds a date holds
        (``fromisoformat`` drops the digits after the sixth without a word)."""
        fraction = _FRACTION.search(text)
        if fraction is None or not fraction.group(1)[6:].strip("0"):
            return
        notify(
            NoticeKind.READ_CHOICE,
            f"{number(text)} gives {len(fraction.group(1))} digits of a second; read to the microsecond "
            f"({parsed.isoformat(timespec='microseconds')}), the finest a date holds",
            file=self.path,
            field="basic.date",
            stacklevel=5,
        )

    def section(self, value: Any, name: str, ctx: _Context) -> Motion:
        sec = self.mapping(value, name)
        declared = sec.get("length")
        if declared is None:
            length = max((_len(sec.get(k)) for k in ("root_pos", "root_rot", "time")), default=0)
            for group in ("joint", "link", "imu"):
                sub = sec.get(group)
                if isinstance(sub, dict):
                    length = max([length, *(_len(v) for v in sub.values())])
        else:
            length = self.integer(declared, f"{name}.length")
            if self.size is not None and length > self.size:
                raise self.fail(
                    f"{name}.length",
                    f"{number(length)} is more frames than a file of {self.size:,} bytes can hold "
                    "(at most one per byte)",
                )
        fps_raw = sec.get("fps")
        fps = 0.0 if fps_raw is None else self.number(fps_raw, f"{name}.fps")
        if fps < 0 or not math.isfinite(fps):
            raise self.fail(f"{name}.fps", f"expected a positive frame rate, got {number(fps_raw)}")
        beyond = rate_beyond(fps)
        if beyond is not None:
            raise self.fail(f"{name}.fps", beyond)
        d = ctx.dof
        fields: dict[str, Any] = {}
        fields["root_position"] = self.array(sec.get("root_pos", []), f"{name}.root_pos", length, (3,))
        fields["root_orientation"] = self.array(sec.get("root_rot", []), f"{name}.root_rot", length, (4,))
        joint = self.mapping(sec.get("joint", {}), f"{name}.joint")
        extra_channels: dict[str, np.ndarray] = {}
        for key, raw in joint.items():
            arr = self.array(raw, f"{name}.joint.{key}", length, (d,))
            if arr is None:
                continue
            if key in JOINT_FIELDS:
                fields[JOINT_FIELDS[key]] = arr
            else:
                extra_channels[str(key)] = arr
        fields["joint_channels"] = extra_channels
        fields["links"] = self.entities(
            sec.get("link", {}), f"{name}.link", length, len(ctx.link_names), LINK_FIELDS, LINK_CHANNELS
        )
        fields["imus"] = self.entities(
            sec.get("imu", {}), f"{name}.imu", length, len(ctx.imu_names), IMU_FIELDS, IMU_CHANNELS
        )
        times, time_columns = self.times(sec.get("time", []), name, length, fps, ctx.time_names)
        record = OmfMotionRecord(
            section={k: v for k, v in sec.items() if k not in _SECTION_KEYS},
            fps=fps_raw if fps_raw is not None and (fps == 0 or STAMP in time_columns) else None,
            stamped=STAMP in time_columns,  # written back with its stamp column, however regular its times
        )
        time_columns.pop(STAMP, None)
        try:
            return Motion(
                times=times,
                joint_names=tuple(ctx.joint_names),
                joint_dims=tuple(ctx.joint_dims),
                link_names=tuple(ctx.link_names),
                imu_names=tuple(ctx.imu_names),
                time_columns=time_columns,
                records={OmfMotionRecord.codec: record},
                **fields,
            )
        except ValueError as exc:
            raise self.fail(name, str(exc)) from None

    def entities(
        self, value: Any, field: str, length: int, count: int, names: dict[str, str], widths: dict[str, int]
    ) -> dict[str, np.ndarray]:
        sub = self.mapping(value, field)
        out: dict[str, np.ndarray] = {}
        for key, raw in sub.items():
            channel = names.get(key, str(key))
            width = widths.get(channel)
            if width is None:
                # A custom field: its width comes from the data.
                probe = raw if isinstance(raw, np.ndarray) else self._convert(raw, f"{field}.{key}") if raw else None
                if probe is None or probe.size == 0:
                    continue
                if probe.ndim == 0:
                    raise self.fail(f"{field}.{key}", f"expected rows of numbers, got {_type_name(raw)} {number(raw)}")
                width = probe.shape[-1] if probe.ndim == 3 else probe.shape[-1] // max(count, 1)
                raw = probe
            arr = self.array(raw, f"{field}.{key}", length, (count, width))
            if arr is not None:
                out[channel] = arr
        return out

    def times(
        self, value: Any, name: str, length: int, fps: float, time_names: list[str]
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        columns: dict[str, np.ndarray] = {}
        arr = self.array(value, f"{name}.time", length, None)
        if arr is not None:
            if arr.ndim == 1:
                arr = arr[:, None]
            width = max(len(time_names), 1)
            if arr.ndim != 2 or arr.shape[1] != width:
                raise self.fail(f"{name}.time", f"expected {width} columns (time_names), got shape {arr.shape[1:]}")
            labels = time_names or ["time"]
            columns = {labels[i]: np.ascontiguousarray(arr[:, i]) for i in range(width)}
        if STAMP in columns:
            return columns[STAMP], columns
        if fps > 0:
            return np.arange(length, dtype=np.float64) / fps, columns
        if length > 1:
            notify(
                NoticeKind.READ_CHOICE,
                f"no fps and no '{STAMP}' time column; frames placed 1 s apart",
                file=self.path,
                field=name,
                stacklevel=4,
            )
        return np.arange(length, dtype=np.float64), columns


class _Context:
    def __init__(
        self,
        joint_names: list[str],
        joint_dims: list[int],
        link_names: list[str],
        imu_names: list[str],
        time_names: list[str],
    ) -> None:
        self.joint_names = joint_names
        self.joint_dims = joint_dims
        self.link_names = link_names
        self.imu_names = imu_names
        self.time_names = time_names
        self.dof = int(sum(joint_dims))


def _len(value: Any) -> int:
    return len(value) if isinstance(value, (list, tuple, np.ndarray)) else 0


def _nested_shape(node: Any) -> tuple[int, ...]:
    shape = []
    while isinstance(node, (list, tuple, np.ndarray)):
        shape.append(len(node))
        if not len(node):
            break
        node = node[0]
    return tuple(shape)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "integer", float: "number"}.get(
        type(value), type(value).__name__
    )
