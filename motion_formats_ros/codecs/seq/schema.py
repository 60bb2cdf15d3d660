"""What a Choreonoid body motion file may say: versions, keys, types, contents; sniffing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...core.errors import MotionFormatError
from ...core.serial.yaml import Rows

#: Format versions this codec reads, and the ones it writes.
READ_VERSIONS = (1, 2, 3, 4)
WRITE_VERSIONS = (2, 4)
DEFAULT_VERSION = 2

#: camelCase key → snake_case key (format version 4 writes the latter).
KEYS = {
    "formatVersion": "format_version",
    "frameRate": "frame_rate",
    "numFrames": "num_frames",
    "numParts": "num_parts",
    "hasFrameTime": "has_frame_time",
    "isRootRelative": "is_root_relative",
    "partLabels": "part_labels",
}
SNAKE = {v: k for k, v in KEYS.items()}

#: MultiValueSeq contents → joint channel.
JOINT_CONTENTS = {
    "JointDisplacement": "position",
    "JointPosition": "position",
    "MultiJointDisplacementSeq": "position",
    "JointVelocity": "velocity",
    "JointEffort": "effort",
}
#: Joint channel → content written.
JOINT_CONTENT_FOR = {"position": "JointDisplacement", "velocity": "JointVelocity", "effort": "JointEffort"}
LINK_CONTENTS = ("LinkPosition", "MultiLinkPositionSeq")
ZMP_CONTENTS = ("ZMP", "ZMPSeq", "RelativeZMP")
TYPES = ("MultiValueSeq", "MultiSE3Seq", "Vector3Seq")

#: An extra top-level key of ours (Choreonoid ignores it): the absolute ROS time (ns since the
#: epoch) of the first frame of a recording from ROS data (MotionFile.start_time_ns).
START_TIME_KEY = "startTimeNs"
TOP_KEYS = {"type", "content", "formatVersion", "frameRate", "numFrames", "hasFrameTime", "components", START_TIME_KEY}
COMPONENT_KEYS = {
    "type",
    "content",
    "purpose",
    "frameRate",
    "numFrames",
    "numParts",
    "hasFrameTime",
    "SE3Format",
    "format",
    "isRootRelative",
    "frames",
}
#: The most parts a component may declare, joints or links alike: numParts alone is not backed by data.
MAX_PARTS = 100_000

_SNIFF_BLOCK = re.compile(r"^type:[ \t]*['\"]?(?:CompositeSeq|BodyMotion)['\"]?[ \t]*(?:#.*)?$", re.MULTILINE)
_SNIFF_FLOW = re.compile(r"['\"]?type['\"]?[ \t]*:[ \t]*['\"]?(?:CompositeSeq|BodyMotion)\b")


class DeclineError(MotionFormatError):
    """The fast path's data does not fit what a component needs: parse with YAML instead."""


# --------------------------------------------------------------------------- sniffing
def sniff(path: Path, head: str) -> bool:
    """True when ``head`` has a top-level ``type: CompositeSeq`` or ``type: BodyMotion``."""
    if _SNIFF_BLOCK.search(head):
        return True
    return head.lstrip().startswith("{") and _SNIFF_FLOW.search(head) is not None


def camel(key: Any) -> Any:
    """The camelCase spelling of a key (keys in either spelling are read)."""
    return SNAKE.get(key, key) if isinstance(key, str) else key


def kind_of(value: Any) -> str:
    """What ``value`` is, for error messages (``a mapping``, ``a list of frames`` …)."""
    if value is None:
        return "null"
    if isinstance(value, Rows):
        return "a list of frames"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return type(value).__name__


__all__ = [
    "COMPONENT_KEYS",
    "DEFAULT_VERSION",
    "JOINT_CONTENTS",
    "JOINT_CONTENT_FOR",
    "KEYS",
    "LINK_CONTENTS",
    "MAX_PARTS",
    "READ_VERSIONS",
    "SNAKE",
    "TOP_KEYS",
    "TYPES",
    "WRITE_VERSIONS",
    "ZMP_CONTENTS",
    "DeclineError",
    "camel",
    "kind_of",
    "sniff",
]
