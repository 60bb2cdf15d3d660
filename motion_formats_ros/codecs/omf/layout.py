"""The OMF document's layout: its keys, the model channel of each field, and what a read keeps."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any, ClassVar

from ...core.model import CodecRecord, Motion
from ...core.options import ChoiceEnum

VERSION = 1


class Encoding(ChoiceEnum):
    """How an OMF file is encoded."""

    MSGPACK = "msgpack"
    YAML = "yaml"
    JSON = "json"


ENCODINGS = Encoding.values()


DATE_FORMAT = "%Y%m%dT%H:%M:%S.%f"


def format_date(date: datetime) -> str:
    """``basic.date`` as the reference writes it (``20240101T12:00:00.000000``, :data:`DATE_FORMAT`),
    from ``isoformat`` rather than ``strftime``: the year always has four digits (``strftime``
    gives ``1`` for year 1 on Linux, which no reader parses), and a date with a time zone keeps
    its offset after the seconds (``+02:00``), which ``datetime.fromisoformat`` reads back.
    """
    text = date.isoformat(timespec="microseconds")  # YYYY-MM-DDTHH:MM:SS.ffffff[+HH:MM]
    return text[:10].replace("-", "") + text[10:]


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


@dataclasses.dataclass
class OmfRecord(CodecRecord):
    """What an OMF read keeps of the file for writing it back (``MotionFile.record(OmfRecord)``).

    Attributes:
        basic: Keys of ``basic`` the model has no slot for, as read.
        top: Top-level keys that are neither known nor a data section, as read.
    """

    codec: ClassVar[str] = "omf"
    basic: dict[str, Any] = dataclasses.field(default_factory=dict)
    top: dict[str, Any] = dataclasses.field(default_factory=dict)


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
