"""What a bag read keeps beyond the motion: where the data came from and its time origin."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from ...core.model import CodecRecord


@dataclasses.dataclass
class BagRecord(CodecRecord):
    """What a bag read keeps of the bag (``MotionFile.record(BagRecord)``).

    Attributes:
        topics: Every topic in the bag → its message type.
        recovered_messages: How many messages were recovered from a bag that was not
            closed properly (None: it was).
    """

    codec: ClassVar[str] = "rosbag"
    topics: dict[str, str] = dataclasses.field(default_factory=dict)
    recovered_messages: int | None = None


@dataclasses.dataclass
class BagMotionRecord(CodecRecord):
    """What a bag read keeps of one motion (``Motion.record(BagMotionRecord)``).

    Attributes:
        time_origin_ns: The stamp (ns) of the motion's time 0; writing a bag back puts
            the messages at their original stamps.
        topics: The topics (``TOPIC`` or ``TOPIC:FIELD``) the motion was read from.
        root: ``PARENT:CHILD`` of the TF edge the root pose came from, if any.
    """

    codec: ClassVar[str] = "rosbag"
    time_origin_ns: int
    topics: list[str] = dataclasses.field(default_factory=list)
    root: str | None = None


__all__ = ["BagMotionRecord", "BagRecord"]
