"""What a Choreonoid ``.seq`` read keeps for writing the file back (and nothing else reads)."""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from ...core.model import CodecRecord


@dataclasses.dataclass
class SeqRecord(CodecRecord):
    """The file's top-level keys the model has no slot for (``MotionFile.record(SeqRecord)``).

    Attributes:
        top: Key → plain value, in file order (written back after the known keys).
    """

    codec: ClassVar[str] = "seq"
    top: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class SeqMotionRecord(CodecRecord):
    """What a ``.seq`` read keeps of the motion (``Motion.record(SeqMotionRecord)``).

    Attributes:
        format_version: The file's ``formatVersion`` (an int when whole).
        components: Components the model has no slot for, as plain data, in file order
            (written back after the known ones).
        component_keys: Model channel (``position``, ``link``, ``zmp`` …) → the other keys
            of its component, written back with it.
        has_frame_time: The reference component lists a time per frame.
        frame_rate: The ``frameRate`` it declares beside those times.
        se3_format: The pose layout of its ``MultiSE3Seq`` component.
    """

    codec: ClassVar[str] = "seq"
    format_version: float | int | None = None
    components: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    component_keys: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    has_frame_time: bool = False
    frame_rate: float | None = None
    se3_format: str | None = None


__all__ = ["SeqMotionRecord", "SeqRecord"]
