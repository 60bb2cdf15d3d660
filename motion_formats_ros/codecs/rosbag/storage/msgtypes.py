"""Message types of a bag: parsing its definitions, and finding joint data inside any type.

A bag carries the definitions of its types (MCAP schemas, the ``message_definitions``
table of rosbag2 sqlite3 since Iron, ROS 1 connection headers); older rosbag2 bags carry
none and rely on the ROS distro's types, plus :data:`KNOWN` for types no rosbags
typestore has (MoveIt's trajectory displays).

:func:`joint_fields` walks a type's fields (rosbags' ``fielddefs`` parse trees) to every
``trajectory_msgs/JointTrajectory`` and ``sensor_msgs/JointState`` inside it and names
each by its field path, ``[]`` marking a list: ``trajectory[].joint_trajectory`` in
``moveit_msgs/msg/DisplayTrajectory``. :func:`values_at` takes those values out of a
deserialized message.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

JOINT_TRAJECTORY = "trajectory_msgs/msg/JointTrajectory"
JOINT_STATE = "sensor_msgs/msg/JointState"
#: What each joint-data type converts to.
JOINT_TYPES = {JOINT_TRAJECTORY: "target group", JOINT_STATE: "joints"}
#: Fields deeper than this are not searched (ROS types cannot recurse; this only bounds the walk).
MAX_DEPTH = 12

# rosbags' parse-tree node kinds (rosbags.interfaces.Nodetype): BASE, NAME, ARRAY, SEQUENCE.
_BASE, _NAME, _ARRAY, _SEQUENCE = 1, 2, 3, 4


def is_service_event(msgtype: str) -> bool:
    """Service introspection records (``pkg/srv/Name_Event``, Jazzy and later)."""
    return "/srv/" in msgtype and msgtype.endswith("_Event")


def parse_definition(kind: str, text: str, msgtype: str) -> dict[str, Any]:
    """rosbags parse trees of a definition: ``kind`` ``msg`` (ROS 1 / ros2msg) or ``idl``.

    Raises:
        Exception: Whatever rosbags raises on a definition it cannot parse.
    """
    from rosbags.typesys import get_types_from_idl, get_types_from_msg

    if kind == "msg":
        return dict(get_types_from_msg(text, msgtype))
    sep = "=" * 80 + "\n"
    out: dict[str, Any] = {}
    for part in text.split(sep):
        if part.startswith("IDL: "):
            part = part.split("\n", 1)[1] if "\n" in part else ""
        if part.strip():
            out.update(get_types_from_idl(part))
    return out


def _named(desc: Any) -> tuple[str | None, bool]:
    """(message type a field holds, whether it is a list) for one field's parse tree."""
    kind, detail = desc
    if kind == _NAME:
        return str(detail), False
    if kind in (_ARRAY, _SEQUENCE):
        inner_kind, inner = detail[0]
        if inner_kind == _NAME:
            return str(inner), True
    return None, False


def missing_types(fielddefs: Mapping[str, Any], root: str) -> set[str]:
    """Types ``root`` needs (itself included) that ``fielddefs`` lacks."""
    missing: set[str] = set()
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        entry = fielddefs.get(name)
        if entry is None:
            missing.add(name)
            continue
        for _, desc in entry[1]:
            inner, _ = _named(desc)
            if inner is not None:
                todo.append(inner)
    return missing


class JointField(NamedTuple):
    """A JointTrajectory / JointState inside another type.

    Attributes:
        path: Field path, ``[]`` after a list field (``trajectory[].joint_trajectory``).
        msgtype: ``trajectory_msgs/msg/JointTrajectory`` or ``sensor_msgs/msg/JointState``.
        steps: (field name, is a list) per path component.
    """

    path: str
    msgtype: str
    steps: tuple[tuple[str, bool], ...]

    @property
    def depth(self) -> int:
        return len(self.steps)


def joint_fields(fielddefs: Mapping[str, Any], root: str) -> list[JointField]:
    """Every JointTrajectory / JointState field inside ``root`` (not ``root`` itself), in field order."""
    out: list[JointField] = []

    def walk(name: str, steps: tuple[tuple[str, bool], ...], stack: tuple[str, ...]) -> None:
        entry = fielddefs.get(name)
        if entry is None or len(steps) >= MAX_DEPTH or name in stack:
            return
        for field, desc in entry[1]:
            inner, is_list = _named(desc)
            if inner is None:
                continue
            here = (*steps, (str(field), is_list))
            if inner in JOINT_TYPES:
                out.append(JointField(format_path(here), inner, here))
            else:
                walk(inner, here, (*stack, name))

    walk(root, (), ())
    return out


def format_path(steps: tuple[tuple[str, bool], ...]) -> str:
    return ".".join(name + ("[]" if is_list else "") for name, is_list in steps)


def parse_path(text: str) -> tuple[str, ...]:
    """Field names of a path as a user writes it (``trajectory[].joint_trajectory`` or without ``[]``)."""
    return tuple(part.replace("[]", "").strip() for part in text.strip().split("."))


def values_at(msg: Any, steps: tuple[tuple[str, bool], ...]) -> Iterator[Any]:
    """The values at a field path of a deserialized message (every element of each list)."""
    current = [msg]
    for name, is_list in steps:
        nxt: list[Any] = []
        for obj in current:
            value = getattr(obj, name)
            if is_list:
                nxt.extend(value)
            else:
                nxt.append(value)
        current = nxt
    yield from current


#: Definitions of types that carry joint trajectories but are in no rosbags typestore, for
#: bags that carry no definitions (rosbag2 sqlite3 before Iron). Field layouts of MoveIt 2's
#: moveit_msgs (Humble and later) and their dependencies; standard types come from the
#: distro typestore.
KNOWN: dict[str, str] = {
    "object_recognition_msgs/msg/ObjectType": """
string key
string db
""",
    "moveit_msgs/msg/CollisionObject": """
byte ADD=0
byte REMOVE=1
byte APPEND=2
byte MOVE=3
std_msgs/Header header
geometry_msgs/Pose pose
string id
object_recognition_msgs/ObjectType type
shape_msgs/SolidPrimitive[] primitives
geometry_msgs/Pose[] primitive_poses
shape_msgs/Mesh[] meshes
geometry_msgs/Pose[] mesh_poses
shape_msgs/Plane[] planes
geometry_msgs/Pose[] plane_poses
string[] subframe_names
geometry_msgs/Pose[] subframe_poses
byte operation
""",
    "moveit_msgs/msg/AttachedCollisionObject": """
string link_name
moveit_msgs/CollisionObject object
string[] touch_links
trajectory_msgs/JointTrajectory detach_posture
float64 weight
""",
    "moveit_msgs/msg/RobotState": """
sensor_msgs/JointState joint_state
sensor_msgs/MultiDOFJointState multi_dof_joint_state
moveit_msgs/AttachedCollisionObject[] attached_collision_objects
bool is_diff
""",
    "moveit_msgs/msg/RobotTrajectory": """
trajectory_msgs/JointTrajectory joint_trajectory
trajectory_msgs/MultiDOFJointTrajectory multi_dof_joint_trajectory
""",
    "moveit_msgs/msg/DisplayTrajectory": """
string model_id
moveit_msgs/RobotTrajectory[] trajectory
moveit_msgs/RobotState trajectory_start
""",
}


def known_types() -> dict[str, Any]:
    """Parse trees of :data:`KNOWN`."""
    from rosbags.typesys import get_types_from_msg

    out: dict[str, Any] = {}
    for name, text in KNOWN.items():
        out.update(get_types_from_msg(text, name))
    return out
