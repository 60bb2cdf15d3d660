"""Otter Motion Format (OMF): ``.msgpack`` (default), ``.yaml``, ``.json``.

Layout (the reference implementation is ``otter-motion-format`` on
PyPI): ``version: 1``, ``format: omf``, ``basic`` (names, dims,
``data_names``) and one section per data name (``target``, ``actual`` …) holding
``fps``, ``length``, ``root_pos``, ``root_rot`` (x, y, z, w), ``joint`` (pos, vel, acc,
tau, temp, …), ``link`` and ``imu`` channels, and ``time`` (length × len(time_names)).
Every array is empty or ``length`` long.

Reading validates everything and reports the field path (``actual.joint.pos[17]:
expected 31 values, got 30``). Variable-rate motions (and motions that do not start at
t = 0) carry their times in a ``stamp`` time column. Files stay plain msgpack / YAML /
JSON with float64 values, exactly as the reference writes them, so both read each other.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import stat
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..core.atomic import atomic_output, check_writable
from ..core.errors import ReadError, WriteError
from ..core.inputs import TEXT_PROBE, read_input, text_check
from ..core.model import DEFAULT_GROUP, IMU_CHANNELS, LINK_CHANNELS, CodecRecord, Motion, MotionFile
from ..core.notices import NoticeKind, notify
from ..core.options import ChoiceEnum, option
from ..core.serial import msgpack as _msgpack
from ..core.serial import nesting as _nesting
from ..core.serial import yaml as _yaml

VERSION = 1


class Encoding(ChoiceEnum):
    """How an OMF file is encoded."""

    MSGPACK = "msgpack"
    YAML = "yaml"
    JSON = "json"


ENCODINGS = Encoding.values()
DATE_FORMAT = "%Y%m%dT%H:%M:%S.%f"
STAMP = "stamp"

#: OMF joint field → model channel.
JOINT_FIELDS = {"pos": "position", "vel": "velocity", "acc": "acceleration", "tau": "effort", "temp": "temperature"}
#: Joint fields the reference always writes (empty when absent).
REFERENCE_JOINT_FIELDS = ("pos", "vel", "acc", "tau", "temp", "voltage", "current")
LINK_FIELDS = {"pos": "position", "rot": "orientation", "lin_vel": "linear_velocity", "ang_vel": "angular_velocity"}
IMU_FIELDS = {
    "pos": "position",
    "rot": "orientation",
    "gyro": "angular_velocity",
    "acc": "linear_acceleration",
    "lin_vel": "linear_velocity",
}
_SECTION_KEYS = {"fps", "length", "root_pos", "root_rot", "joint", "link", "imu", "time"}
_BASIC_KEYS = {
    *("name", "robot", "date", "joint_names", "joint_dims"),
    *("link_names", "imu_names", "time_names", "data_names", "start_time_ns", "robot_description"),
}
#: ``basic.start_time_ns``: the absolute ROS time (ns since the epoch) of the first frame of a
#: recording from ROS data, whose frame times are relative (MotionFile.start_time_ns). An extra
#: key of ``basic``, which the reference implementation keeps as it is.
START_TIME_KEY = "start_time_ns"
#: ``basic.robot_description``: the robot's URDF (MotionFile.robot_description), an extra key too.
ROBOT_DESCRIPTION_KEY = "robot_description"
_TOP_KEYS = {"version", "format", "basic"}
_RESERVED = {"version", "format", "basic"}

_OMF_YAML = re.compile(rb"^format:[ \t]*['\"]?omf['\"]?[ \t]*(#.*)?$", re.MULTILINE)
_OMF_JSON = re.compile(rb'"format"\s*:\s*"omf"')
#: The sniffer scans a file in pieces of this size, each overlapping the last by _SNIFF_OVERLAP.
_SNIFF_PIECE = 1 << 22
_SNIFF_OVERLAP = 4096


#: Options of :func:`read` and :func:`write`.
@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read`."""

    encoding: Encoding | None = option(None, "the encoding (default: from the suffix)")


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    encoding: Encoding | None = option(None, "the encoding (default: from the suffix)")


# --------------------------------------------------------------------------- sniffing
def sniff(path: Path, head: str) -> bool:
    """True when ``path`` holds OMF (a top-level ``format: omf``)."""
    suffix = path.suffix.lower()
    pattern = _OMF_JSON if suffix == ".json" else _OMF_YAML
    if pattern.search(head.encode("utf-8", "replace")):
        return True
    # Key order is free (a sorted dump puts the big sections first): scan the file, a
    # piece at a time; a NUL byte ends the scan (no JSON or YAML text holds one).
    try:
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return False
            carry = b""
            while piece := fh.read(_SNIFF_PIECE):
                text = carry + piece
                if pattern.search(text) is not None:
                    return True
                if b"\0" in piece:
                    return False
                keep = text[-_SNIFF_OVERLAP:]  # from a line's start, for the YAML pattern's ``^``
                carry = keep[max(keep.find(b"\n"), 0) :]
            return False
    except OSError:
        return False


def encoding_for(path: Path, encoding: Encoding | None = None) -> str:
    """msgpack / yaml / json from an explicit choice or the suffix (msgpack otherwise)."""
    if encoding is not None:
        return str(encoding)
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix == ".json":
        return "json"
    return "msgpack"


# --------------------------------------------------------------------------- reading
def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read an OMF file (encoding from the options or the suffix).

    The first bytes are checked before the rest is read: msgpack data must start with a
    map, JSON and YAML text must hold no NUL byte.
    """
    given = (options or ReadOptions()).encoding
    guess = given is None and path.suffix.lower() not in (".yaml", ".yml", ".json", ".msgpack")

    def check(first: bytes, size: int) -> None:
        chosen = _guess_encoding(first) if guess else encoding_for(path, given)
        if chosen != "msgpack":
            text_check(path)(first, size)
        elif first and not _is_map(first[0]):
            kind = _msgpack_kind(first[0])
            raise ReadError(path, f"expected a mapping, got {kind}", offset=0, field="(top level)")

    data = read_input(path, head=(TEXT_PROBE, check))
    if guess:
        return decode(data, _guess_encoding(data), path)
    return decode(data, encoding_for(path, given), path)


def _msgpack_kind(first: int) -> str:
    """What a msgpack value starting with the byte ``first`` is (as :func:`_type_name` says it)."""
    if first <= 0x7F or first >= 0xE0 or 0xCC <= first <= 0xD3:
        return "integer"
    kinds = (
        ((0x90, 0x9F), "list"),
        ((0xDC, 0xDD), "list"),
        ((0xA0, 0xBF), "string"),
        ((0xD9, 0xDB), "string"),
        ((0xC0, 0xC0), "null"),
        ((0xC2, 0xC3), "boolean"),
        ((0xCA, 0xCB), "number"),
        ((0xC4, 0xC6), "bytes"),
    )
    return next((kind for (lo, hi), kind in kinds if lo <= first <= hi), f"byte 0x{first:02x} (no msgpack value)")


def _is_map(first: int) -> bool:
    """Whether a msgpack value starting with the byte ``first`` is a map."""
    return 0x80 <= first <= 0x8F or first in (0xDE, 0xDF)


def _guess_encoding(data: bytes) -> str:
    first = data.lstrip()[:1]
    if first == b"{":
        return "json"
    if data[:1] and _is_map(data[0]):
        return "msgpack"
    return "yaml"


def decode(data: bytes, encoding: str, path: str | Path = "<bytes>") -> MotionFile:
    """Parse OMF ``data`` in ``encoding`` into a MotionFile."""
    if encoding == "msgpack":
        try:
            doc = _msgpack.unpack(data)
        except _msgpack.MsgpackError as exc:
            raise ReadError(path, exc.reason, offset=exc.offset) from None
    elif encoding == "yaml":
        try:
            doc = _yaml.load(_text(data, path))
        except _yaml.YamlError as exc:
            raise ReadError(path, exc.reason, line=exc.line) from None
    else:
        text = _text(data, path)
        deep = _nesting.json_too_deep(text)
        if deep is not None:
            raise ReadError(path, f"invalid JSON: {_nesting.too_deep_reason()}", line=deep)
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ReadError(path, f"invalid JSON: {exc.msg}", line=exc.lineno) from None
    return _Reader(path).file(doc)


def _text(data: bytes, path: str | Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReadError(path, "not valid UTF-8 text", offset=exc.start) from None


@dataclasses.dataclass
class OmfRecord(CodecRecord):
    """What an OMF read keeps of the file for writing it back (``MotionFile.record(OmfRecord)``).

    Attributes:
        basic: Keys of ``basic`` the model has no slot for, as read.
        top: Top-level keys that are neither known nor a data section, as read.
        date_text: ``basic.date`` as written, when it does not parse as a date.
    """

    codec: ClassVar[str] = "omf"
    basic: dict[str, Any] = dataclasses.field(default_factory=dict)
    top: dict[str, Any] = dataclasses.field(default_factory=dict)
    date_text: Any = None


@dataclasses.dataclass
class OmfMotionRecord(CodecRecord):
    """What an OMF read keeps of one data section (``Motion.record(OmfMotionRecord)``).

    Attributes:
        section: Keys of the section the model has no slot for, as read.
        fps: ``fps`` as written, when the times do not come from it (0, or a stamp column).
        stamped: The section has a stamp time column (written back with one).
    """

    codec: ClassVar[str] = "omf"
    section: dict[str, Any] = dataclasses.field(default_factory=dict)
    fps: Any = None
    stamped: bool = False


def _kept(m: Motion) -> OmfMotionRecord:
    """The motion's OMF record, or an empty one."""
    return m.record(OmfMotionRecord) or OmfMotionRecord()


class _Fields:
    """Typed values of a decoded OMF document; every error names the field path."""

    def __init__(self, path: str | Path) -> None:
        self.path = path

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
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value != int(value)
        ):
            raise self.fail(field, f"expected an integer, got {_type_name(value)} {value!r}")
        if value < minimum:
            raise self.fail(field, f"expected an integer >= {minimum}, got {value!r}")
        return int(value)

    def number(self, value: Any, field: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(field, f"expected a number, got {_type_name(value)} {value!r}")
        return float(value)

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
                    raise self.fail(path, f"expected {expect[0]} values, got {len(node)}")
                for i, item in enumerate(node):
                    walk(item, f"{path}[{i}]", depth + 1, expect[1:] if expect else None)
            elif isinstance(node, bool) or not isinstance(node, (int, float, np.floating, np.integer)):
                raise self.fail(path, f"expected a number, got {_type_name(node)} {node!r}")
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
            raise self.fail("format", f"expected 'omf', got {fmt!r}")
        version = doc.get("version")
        if version != VERSION:
            raise self.fail("version", f"unsupported version {version!r} (supported: {VERSION})")
        basic = self.mapping(doc.get("basic", {}), "basic")
        ctx, data_names = self.context(doc, basic)
        groups = {name: self.section(doc.get(name, {}), name, ctx) for name in data_names}
        record = OmfRecord(
            basic={k: v for k, v in basic.items() if k not in _BASIC_KEYS},
            top={k: v for k, v in doc.items() if k not in _TOP_KEYS and k not in data_names},
        )
        date = self.date(basic.get("date"), record)
        return MotionFile(
            groups=groups,
            name=str(basic.get("name") or ""),
            robot=str(basic.get("robot") or ""),
            date=date,
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
                f"expected an integer (ns since the epoch), got {_type_name(value)} {value!r}",
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

    def date(self, value: Any, record: OmfRecord) -> datetime | None:
        if value is None or value == "":
            return None
        if isinstance(value, datetime):
            return value
        if isinstance(value, str):
            for parse in (lambda s: datetime.strptime(s, DATE_FORMAT), datetime.fromisoformat):
                try:
                    return parse(value)
                except ValueError:
                    continue
        notify(
            NoticeKind.KEPT_UNUSED,
            f"cannot parse {value!r}; kept as text",
            file=self.path,
            field="basic.date",
            stacklevel=4,
        )
        record.date_text = value
        return None

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
        fps_raw = sec.get("fps")
        fps = 0.0 if fps_raw is None else self.number(fps_raw, f"{name}.fps")
        if fps < 0 or not math.isfinite(fps):
            raise self.fail(f"{name}.fps", f"expected a positive frame rate, got {fps_raw!r}")
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
                    raise self.fail(f"{field}.{key}", f"expected rows of numbers, got {_type_name(raw)} {raw!r}")
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


# --------------------------------------------------------------------------- writing
def to_document(motion_file: MotionFile, path: str | Path = "<output>") -> dict[str, Any]:
    """The OMF document (dicts, scalars and float arrays) for ``motion_file``.

    Groups with different joints are written with the union of their joints (absent
    values NaN), as OMF has one joint list per file. Data OMF cannot hold is dropped
    with a warning naming it.
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
        m.rate is None or (m.num_frames and m.times[0] != 0.0) or _kept(m).stamped for m in groups.values()
    )
    time_names: list[str] = [STAMP] if needs_stamp else []
    for m in groups.values():
        time_names.extend(k for k in m.time_columns if k not in time_names)

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
        return motion_file.date.strftime(DATE_FORMAT)
    kept = motion_file.record(OmfRecord)
    text = kept.date_text if kept is not None else None
    return str(text) if text is not None else None


def _expand(
    values: np.ndarray | None, names: list[str], have: tuple[str, ...], dims: list[int], have_dims: tuple[int, ...]
) -> np.ndarray | None:
    """Joint columns in the file's joint order (NaN for joints this group lacks)."""
    if values is None or list(have) == names:
        return values
    out = np.full((values.shape[0], int(sum(dims))), np.nan)
    starts = np.concatenate([[0], np.cumsum(dims)]).astype(int)
    own = np.concatenate([[0], np.cumsum(have_dims)]).astype(int)
    for i, name in enumerate(have):
        j = names.index(name)
        out[:, starts[j] : starts[j + 1]] = values[:, own[i] : own[i + 1]]
    return out


def _expand_entities(values: np.ndarray, names: list[str], have: tuple[str, ...]) -> np.ndarray:
    if list(have) == names:
        return values
    out = np.full((values.shape[0], len(names), values.shape[2]), np.nan)
    for i, name in enumerate(have):
        out[:, names.index(name)] = values[:, i]
    return out


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
    elif m.rate is not None:
        sec["fps"] = int(m.rate) if float(m.rate).is_integer() else m.rate
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
        columns = {**m.time_columns, STAMP: m.times}
        sec["time"] = (
            np.column_stack([columns.get(t, np.full(m.num_frames, np.nan)) for t in time_names])
            if m.num_frames
            else empty
        )
    else:
        sec["time"] = empty
    for key, value in _kept(m).section.items():
        sec.setdefault(key, value)

    if m.joint_masks:
        dropped.append("joint masks " + ", ".join(repr(k) for k in m.joint_masks))
    if m.series:
        dropped.append("series " + ", ".join(repr(k) for k in m.series))
    if m.interpolation is not None and set(m.interpolation) - {"linear"}:
        kinds = "/".join(sorted(set(m.interpolation) - {"linear"}))
        dropped.append(f"{kinds} interpolation between keyframes (resample first to keep it)")
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
        return iter([_yaml.dump(doc).encode("utf-8")])
    return iter([_json_dump(doc).encode("utf-8")])


def _json_dump(doc: dict[str, Any]) -> str:
    """JSON with one row per line (NaN/Infinity as Python's json writes them)."""
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


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> None:
    """Write ``motion_file`` as OMF (encoding from the options or the suffix)."""
    check_writable(path, overwrite)
    parts = _encode_parts(
        motion_file, encoding_for(path, (options or WriteOptions()).encoding), path
    )  # checks before the file exists
    with atomic_output(path, overwrite) as fh:
        for part in parts:  # large arrays are encoded a chunk at a time while writing
            fh.write(part)


__all__ = [
    "DEFAULT_GROUP",
    "ReadOptions",
    "WriteOptions",
    "decode",
    "encode",
    "read",
    "sniff",
    "to_document",
    "write",
]
