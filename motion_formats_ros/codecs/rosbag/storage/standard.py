"""The standard ROS 2 messages a motion bag holds, known without rosbags: their fields, type hashes and CDR decoding.

JointState, TFMessage, JointTrajectory and String (with the types inside them) are the
same in every ROS 2 distro. A bag's ``ros2msg`` definition of one of them is recognised
field by field (:func:`is_standard`); when it is the standard one, its messages decode
here (:func:`decode`) to objects with the fields rosbags' deserializer gives them
(sequences of float64 as numpy arrays, strings as str). Anything else is left to rosbags:
:func:`is_standard` says False, :func:`decode` returns None for a payload it does not
decode exactly as rosbags would (another byte order, a string without its terminator,
a length past the end …), and the caller then deserializes it with rosbags.
"""

from __future__ import annotations

import re
import struct
from types import SimpleNamespace
from typing import Any

import numpy as np

from ....core.errors import MotionFormatError

_TIME = (("int32", "sec"), ("uint32", "nanosec"))
_XYZ = (("float64", "x"), ("float64", "y"), ("float64", "z"))
_HEADER = "std_msgs/msg/Header"

#: Fields of each standard type: (type, name); ``[]`` marks an unbounded sequence.
FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "builtin_interfaces/msg/Time": _TIME,
    "builtin_interfaces/msg/Duration": _TIME,
    _HEADER: (("builtin_interfaces/msg/Time", "stamp"), ("string", "frame_id")),
    "std_msgs/msg/String": (("string", "data"),),
    "sensor_msgs/msg/JointState": (
        (_HEADER, "header"),
        ("string[]", "name"),
        ("float64[]", "position"),
        ("float64[]", "velocity"),
        ("float64[]", "effort"),
    ),
    "geometry_msgs/msg/Vector3": _XYZ,
    "geometry_msgs/msg/Quaternion": (*_XYZ, ("float64", "w")),
    "geometry_msgs/msg/Transform": (
        ("geometry_msgs/msg/Vector3", "translation"),
        ("geometry_msgs/msg/Quaternion", "rotation"),
    ),
    "geometry_msgs/msg/TransformStamped": (
        (_HEADER, "header"),
        ("string", "child_frame_id"),
        ("geometry_msgs/msg/Transform", "transform"),
    ),
    "tf2_msgs/msg/TFMessage": (("geometry_msgs/msg/TransformStamped[]", "transforms"),),
    "trajectory_msgs/msg/JointTrajectoryPoint": (
        ("float64[]", "positions"),
        ("float64[]", "velocities"),
        ("float64[]", "accelerations"),
        ("float64[]", "effort"),
        ("builtin_interfaces/msg/Duration", "time_from_start"),
    ),
    "trajectory_msgs/msg/JointTrajectory": (
        (_HEADER, "header"),
        ("string[]", "joint_names"),
        ("trajectory_msgs/msg/JointTrajectoryPoint[]", "points"),
    ),
}

#: The messages a bag's topics carry that are known here, with their RIHS01 type hashes
#: (as rosbags computes them from these fields; the same in every ROS 2 distro).
HASHES = {
    "sensor_msgs/msg/JointState": "RIHS01_a13ee3a330e346c9d87b5aa18d24e11690752bd33a0350f11c5882bc9179260e",
    "tf2_msgs/msg/TFMessage": "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
    "trajectory_msgs/msg/JointTrajectory": "RIHS01_179b33eba59d676f6d967ac71fe35e7ca2f64b2f3928f4a018cec115e213796e",
    "std_msgs/msg/String": "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
}
TOPIC_TYPES = frozenset(HASHES)

_PRIMITIVES = {"int32", "uint32", "float64", "string"}
_SEPARATOR = re.compile(r"^=+[ \t]*$", re.MULTILINE)


def closure(msgtype: str) -> set[str]:
    """``msgtype`` and every standard type inside it."""
    out: set[str] = set()
    todo = [msgtype]
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        todo += [kind.removesuffix("[]") for kind, _ in FIELDS[name] if kind.removesuffix("[]") in FIELDS]
    return out


def _full_name(kind: str, package: str) -> str | None:
    base, seq = (kind[:-2], "[]") if kind.endswith("[]") else (kind, "")
    if base in _PRIMITIVES:
        return kind
    if not re.fullmatch(r"[A-Za-z][\w/]*", base):
        return None  # bounded or fixed-size arrays and strings: not in the standard types
    parts = base.split("/")
    if len(parts) == 1:
        parts = [package, "msg", parts[0]]
    elif len(parts) == 2:
        parts = [parts[0], "msg", parts[1]]
    if len(parts) != 3 or parts[1] != "msg" or (parts[2] == "Header" and parts[0] != "std_msgs"):
        return None
    return "/".join(parts) + seq


def parse_msg(text: str, msgtype: str) -> dict[str, tuple[tuple[str, str], ...]] | None:
    """The fields of each type a ``ros2msg`` definition defines, or None when it has anything else.

    Constants, default values beyond a plain number, and bounded or fixed-size fields are
    "anything else" (the standard types have none of them).
    """
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    for i, section in enumerate(_SEPARATOR.split(text)):
        lines = [line.split("#", 1)[0].strip() for line in section.splitlines()]
        lines = [line for line in lines if line]
        name = msgtype
        if i:
            if not lines or not lines[0].startswith("MSG: "):
                return None
            name = _full_name(lines.pop(0)[5:].strip(), "")  # type: ignore[assignment]
            if name is None or name in out:
                return None
        package = name.split("/")[0]
        fields = []
        for line in lines:
            words = line.split()
            if "=" in line or len(words) not in (2, 3):
                return None
            if len(words) == 3 and not re.fullmatch(r"-?\d+(\.\d*)?", words[2]):
                return None
            kind = _full_name(words[0], package)
            if kind is None:
                return None
            fields.append((kind, words[1]))
        out[name] = tuple(fields)
    return out


def is_standard(msgtype: str, text: str) -> bool:
    """Whether a ``ros2msg`` definition of ``msgtype`` is exactly the standard one, with nothing else in it."""
    if msgtype not in TOPIC_TYPES:
        return False
    parsed = parse_msg(text, msgtype)
    if parsed is None:
        return False
    wanted = closure(msgtype)
    return set(parsed) == wanted and all(parsed[name] == FIELDS[name] for name in wanted)


# --------------------------------------------------------------------------- decoding
class _DeclinedError(MotionFormatError):
    """The payload is not decoded here (rosbags decodes it, and says what is wrong)."""


_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")
_F64 = struct.Struct("<d")


class _Cursor:
    __slots__ = ("buf", "pos")

    def __init__(self, buf: memoryview) -> None:
        self.buf = buf
        self.pos = 0

    def align(self, n: int) -> None:
        self.pos = (self.pos + n - 1) & -n

    def scalar(self, kind: str) -> Any:
        if kind == "float64":
            self.align(8)
            fmt = _F64
        else:
            self.align(4)
            fmt = _I32 if kind == "int32" else _U32
        if self.pos + fmt.size > len(self.buf):
            raise _DeclinedError
        (value,) = fmt.unpack_from(self.buf, self.pos)
        self.pos += fmt.size
        return value

    def string(self) -> str:
        size = self.scalar("uint32")
        end = self.pos + size
        if size < 1 or end > len(self.buf) or self.buf[end - 1] != 0:
            raise _DeclinedError
        try:
            text = bytes(self.buf[self.pos : end - 1]).decode()
        except UnicodeDecodeError:
            raise _DeclinedError from None
        self.pos = end
        return text

    def count(self, minimum: int) -> int:
        size = int(self.scalar("uint32"))
        if self.pos + size * minimum > len(self.buf):
            raise _DeclinedError
        return size

    def floats(self) -> np.ndarray[Any, Any]:
        size = self.count(8)
        if size:
            self.align(8)
        if self.pos + 8 * size > len(self.buf):
            raise _DeclinedError
        values = np.frombuffer(self.buf, dtype=np.float64, count=size, offset=self.pos)
        self.pos += 8 * size
        return values


def _message(cur: _Cursor, msgtype: str) -> SimpleNamespace:
    values: dict[str, Any] = {}
    for kind, name in FIELDS[msgtype]:
        if kind == "string":
            values[name] = cur.string()
        elif kind in ("int32", "uint32", "float64"):
            values[name] = cur.scalar(kind)
        elif kind == "float64[]":
            values[name] = cur.floats()
        elif kind == "string[]":
            values[name] = [cur.string() for _ in range(cur.count(5))]
        elif kind.endswith("[]"):
            values[name] = [_message(cur, kind[:-2]) for _ in range(cur.count(1))]
        else:
            values[name] = _message(cur, kind)
    return SimpleNamespace(**values, __msgtype__=msgtype)


def decode(raw: bytes | memoryview, msgtype: str) -> Any:
    """A little-endian CDR payload of a standard type decoded as rosbags decodes it, or None (see the module docstring).

    Bytes after the message are ignored, as rosbag2 stores them.
    """
    if msgtype not in TOPIC_TYPES or len(raw) < 4 or bytes(raw[:2]) != b"\x00\x01":
        return None
    cur = _Cursor(memoryview(raw)[4:])
    try:
        message = _message(cur, msgtype)
    except _DeclinedError:
        return None
    if cur.pos + 4 > len(raw):
        return None
    return message
