"""ROS bags: rosbag2 folders (sqlite3 / MCAP), bare ``.db3`` / ``.mcap`` files, ROS 1 ``.bag``.

Reading (:func:`read`) turns JointState topics (merged by joint name), the TF root pose,
IMUs, point series (ZMP) and JointTrajectory topics (also those inside other types, such
as MoveIt's DisplayTrajectory) into a MotionFile; writing
(:func:`write`) records a motion as a rosbag2 bag that ``ros2 bag play``, Foxglove and
PlotJuggler open. Both use the rosbags library (no ROS installation needed); JointState
messages are decoded / encoded in bulk with numpy when their layout is regular.
See ``_read`` and ``_write`` for the details, :func:`describe` for ``info``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.model import MotionFile
from ._messages import IMU, JOINT_STATE, POINT, TF_TYPES, TRAJECTORY
from ._read import read_bag
from ._read_options import ReadOptions
from ._record import BagMotionRecord, BagRecord
from .storage import BagSource, is_rosbag2_folder
from .storage.msgtypes import joint_fields

if TYPE_CHECKING:
    from . import _write
    from ._write import WriteOptions, resolved_compression, resolved_storage
else:
    #: Loaded when first used: a command that only reads bags does not import the writer
    #: (nor the robot models it records).
    _WRITER_NAMES = ("WriteOptions", "resolved_compression", "resolved_storage")

    def __getattr__(name: str) -> Any:
        if name in _WRITER_NAMES:
            from . import _write

            return getattr(_write, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BagMotionRecord",
    "BagRecord",
    "ReadOptions",
    "WriteOptions",
    "describe",
    "read",
    "resolved_compression",
    "resolved_storage",
    "sniff",
    "write",
]


def sniff(path: Path, head: str) -> bool:
    """True for a rosbag2 folder, or a file with a bag signature."""
    if path.is_dir():
        return is_rosbag2_folder(path)
    return head.startswith(("\ufffdMCAP0", "SQLite format 3", "#ROSBAG V2.0"))


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read a bag (:class:`ReadOptions` says what is read and how)."""
    return read_bag(Path(path), options or ReadOptions())


def write(
    motion_file: MotionFile, path: Path, options: _write.WriteOptions | None = None, *, overwrite: bool = False
) -> dict[str, int]:
    """Write a rosbag2 bag (its ``WriteOptions`` say how); returns the frames of each group written."""
    from ._write import WriteOptions, write_bag

    return write_bag(motion_file, Path(path), options or WriteOptions(), overwrite)


#: Message types this codec converts, and what into.
CONVERTIBLE = {
    JOINT_STATE: "joints",
    TRAJECTORY: "target group",
    IMU: "IMU",
    POINT: "point series (ZMP)",
    **dict.fromkeys(TF_TYPES, "TF (root pose, links)"),
}
#: The read option (:class:`ReadOptions` field) that converts a field inside another type, by the field's type.
FIELD_OPTION = {TRAJECTORY: "trajectory", JOINT_STATE: "topics"}


def describe(path: Path, distro: str | None = None) -> dict[str, Any]:
    """Topics of a bag, which of them convert (and into what) and their message counts.

    A topic of another type is searched for JointTrajectory / JointState fields (using
    the definitions the bag carries, else the distro's and :data:`_types.KNOWN`); each
    is listed under ``fields`` by its path, with the read option that converts it
    (``option``, a :class:`ReadOptions` field) and its value. ``note`` says why a topic does not convert
    when that is not just its type (service events, a definition that does not parse).
    """
    with BagSource(Path(path), distro) as source:
        topics: list[dict[str, Any]] = []
        for t in sorted(source.topics.values(), key=lambda t: t.name):
            entry: dict[str, Any] = {
                "topic": t.name,
                "type": t.msgtype,
                "messages": t.count,
                "converts_to": CONVERTIBLE.get(t.msgtype),
                "fields": [],
                "note": None,
            }
            if entry["converts_to"] is None:
                problem = source.type_problem(t.name)
                if problem is not None:
                    entry["note"] = problem
                else:
                    entry["fields"] = [
                        {
                            "field": f.path,
                            "type": f.msgtype,
                            "converts_to": CONVERTIBLE[f.msgtype],
                            "option": FIELD_OPTION[f.msgtype],
                            "value": f"{t.name}:{f.path}",
                        }
                        for f in joint_fields(source.typestore.fielddefs, t.msgtype)
                    ]
            topics.append(entry)
        return {
            "file": str(path),
            "format": "rosbag",
            "ros1": source.ros1,
            "distro": source.distro,
            "recovered_messages": source.recovered,
            "topics": topics,
        }
