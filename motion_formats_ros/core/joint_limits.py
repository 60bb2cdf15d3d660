"""Joint limits: the one place they are built, for the check, the player, the viewer and the simulator.

:class:`JointLimits` holds each joint's :class:`~.model.JointLimit` and how each mimic
joint follows its leader. It is built once from a robot model (:meth:`JointLimits.of_model`:
a URDF, ``.urdf.xacro`` or Choreonoid ``.body``), from URDF text
(:meth:`JointLimits.from_urdf`) or from the limits a file states; a MoveIt
``joint_limits.yaml`` is laid over it with :meth:`JointLimits.overlay`.

What a model states:

- revolute and prismatic joints: ``lower`` and ``upper`` (a URDF's missing ones are 0, as
  URDF defines them; a ``.body`` without a range states none), ``velocity``, ``effort``;
- continuous joints: ``velocity`` and ``effort`` only; other joints nothing;
- a velocity or effort of 0 is not stated (what many files write for joints they do not limit);
- a mimic joint has its own limits and takes ``multiplier * leader + offset`` of its
  first non-mimic leader (:attr:`JointLimits.followers`): it is judged on that value,
  whether or not a motion names it.

A MoveIt ``joint_limits.yaml`` (``joint_limits: {JOINT: {has_velocity_limits: true,
max_velocity: …, has_acceleration_limits: …, max_acceleration: …, has_jerk_limits: …,
max_jerk: …, has_position_limits: …, min_position: …, max_position: …}}``) overrides the
model where it states a limit and adds acceleration and jerk limits. Values are in the
units the files use (rad, rad/s, rad/s², rad/s³; m for prismatic joints).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .errors import ReadError, number
from .kinematics import Joint, RobotModel
from .kinematics.urdf import read_urdf
from .model import JointLimit
from .naming import Yaml12Loader, line_of, load_safe

#: Joint types that take one value and can state limits.
LIMITED_TYPES = ("revolute", "prismatic", "continuous")


@dataclasses.dataclass(frozen=True)
class Follower:
    """A mimic joint: ``value = multiplier * value(leader) + offset`` (chains composed)."""

    joint: str
    leader: str
    multiplier: float
    offset: float

    def describe(self) -> str:
        offset = f" {'+' if self.offset >= 0 else '-'} {abs(self.offset):g}" if self.offset else ""
        return f"{self.joint!r} mimics {self.leader!r} ({self.multiplier:g} × {self.leader}{offset})"


def followers(joints: RobotModel | Sequence[Joint]) -> dict[str, Follower]:
    """Every mimic joint of a model (or of its joints) with its first non-mimic leader."""
    listed = joints.joints if isinstance(joints, RobotModel) else joints
    by_name = {j.name: j for j in listed}
    out: dict[str, Follower] = {}
    for joint in listed:
        if joint.mimic is None:
            continue
        multiplier, offset = 1.0, 0.0
        current = joint
        while current.mimic is not None:  # the model's reader refuses loops and unknown leaders
            m = current.mimic
            offset += multiplier * m.offset
            multiplier *= m.multiplier
            current = by_name[m.joint]
        out[joint.name] = Follower(joint.name, current.name, multiplier, offset)
    return out


class JointLimits(Mapping[str, JointLimit]):
    """Joint name → its limits, and the mimic joints that follow a leader.

    Args:
        limits: Each limited joint's limits.
        followers: Mimic joints (name → how it follows its leader).
    """

    def __init__(
        self, limits: Mapping[str, JointLimit] | None = None, followers: Mapping[str, Follower] | None = None
    ) -> None:
        self._limits = dict(limits or {})
        self.followers: dict[str, Follower] = dict(followers or {})

    @classmethod
    def of_model(cls, model: RobotModel) -> JointLimits:
        """The limits ``model`` states for its joints, mimic joints included."""
        return cls._of_joints(model.joints, urdf=model.urdf_text is not None)

    @classmethod
    def from_urdf(cls, urdf: str, source: str | os.PathLike[str] = "<robot_description>") -> JointLimits:
        """The limits of the URDF text ``urdf`` (which need not describe its links).

        Raises:
            ReadError: Not a URDF, or a value that is not a number (named with its line).
        """
        return cls._of_joints(read_urdf(urdf, source, links_required=False).joints, urdf=True)

    @classmethod
    def _of_joints(cls, joints: Sequence[Joint], urdf: bool) -> JointLimits:
        default = 0.0 if urdf else None  # URDF's lower and upper default to 0; a .body states none
        limits: dict[str, JointLimit] = {}
        for joint in joints:
            if joint.type not in LIMITED_TYPES or joint.limit is None:
                continue
            stated = joint.limit
            velocity = stated.velocity if stated.velocity and stated.velocity > 0 else None
            effort = stated.effort if stated.effort and stated.effort > 0 else None
            lower = upper = None
            if joint.type != "continuous":
                lower = stated.lower if stated.lower is not None else default
                upper = stated.upper if stated.upper is not None else default
            limit = JointLimit(lower, upper, velocity, effort=effort)
            if limit != JointLimit():
                limits[joint.name] = limit
        return cls(limits, followers(joints))

    def __getitem__(self, name: str) -> JointLimit:
        return self._limits[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._limits)

    def __len__(self) -> int:
        return len(self._limits)

    def __repr__(self) -> str:
        return f"JointLimits({self._limits!r}, followers={self.followers!r})"

    def driven(self) -> dict[str, JointLimit]:
        """The limits of the joints that are no mimic joint."""
        return {n: lim for n, lim in self._limits.items() if n not in self.followers}

    def overlay(self, path: str | os.PathLike[str]) -> JointLimits:
        """These limits with what a MoveIt ``joint_limits.yaml`` states laid over them.

        A limit is read where its ``has_…_limits`` flag is true. A speed, acceleration or jerk
        limit of 0 is taken as not stated (the model's limit stays), a negative one is refused,
        and so is a ``min_position`` above ``max_position``.

        Raises:
            ReadError: The file cannot be read, is not such a file, or a stated limit is not a
                number or not one of those (naming the joint and the key).
        """
        doc = load_safe(path, "joint limits file", Yaml12Loader)  # read as ROS reads it: ``5e1`` is a number
        table = doc.get("joint_limits") if isinstance(doc, Mapping) else None
        if not isinstance(table, Mapping):
            raise ReadError(path, "not a joint limits file (a mapping with a 'joint_limits' mapping)")
        out = dict(self._limits)
        for joint, entry in table.items():
            if not isinstance(entry, Mapping):
                raise ReadError(path, f"expected a mapping, got {entry!r}", field=f"joint_limits.{joint}")
            name = str(joint)
            out[name] = dataclasses.replace(out.get(name, JointLimit()), **_stated(path, name, entry))
        return JointLimits(out, self.followers)


def _stated(path: str | os.PathLike[str], name: str, entry: Mapping[str, Any]) -> dict[str, float]:
    """The limits one joint's entry of a ``joint_limits.yaml`` states."""
    fields: dict[str, float] = {}
    if entry.get("has_position_limits"):
        lower = fields["lower"] = _number(path, name, entry, "min_position", "has_position_limits")
        upper = fields["upper"] = _number(path, name, entry, "max_position", "has_position_limits")
        if lower > upper:
            raise ReadError(
                path,
                f"min_position {number(entry['min_position'])} is above max_position {number(entry['max_position'])}",
                field=f"joint_limits.{name}",
            )
    for flag, key, attr in (
        ("has_velocity_limits", "max_velocity", "velocity"),
        ("has_acceleration_limits", "max_acceleration", "acceleration"),
        ("has_jerk_limits", "max_jerk", "jerk"),
    ):
        if entry.get(flag):
            value = _rate_limit(path, name, entry, key, flag)
            if value is not None:
                fields[attr] = value
    return fields


def _number(path: str | os.PathLike[str], joint: str, entry: Mapping[str, Any], key: str, flag: str) -> float:
    """The number ``entry`` states as ``key``, which its ``flag`` (true) says it states."""
    if key not in entry:
        raise ReadError(
            path,
            f"{key} is missing ({flag} is true)",
            line=line_of(entry, flag),
            field=f"joint_limits.{joint}",
        )
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ReadError(
            path,
            f"{key} is not a number: {number(value)}",
            line=line_of(entry, key),
            field=f"joint_limits.{joint}.{key}",
        )
    try:
        result = float(value)
    except OverflowError:  # an integer beyond the float range
        result = math.inf
    if not math.isfinite(result):
        raise ReadError(path, f"{key} is not a finite number: {number(value)}", field=f"joint_limits.{joint}.{key}")
    return result


def _rate_limit(
    path: str | os.PathLike[str], joint: str, entry: Mapping[str, Any], key: str, flag: str
) -> float | None:
    """A stated speed, acceleration or jerk limit; None for 0 (not stated, as in a URDF: the model's
    limit stays). A negative one is refused: it would turn the check off."""
    value = _number(path, joint, entry, key, flag)
    if value < 0:
        raise ReadError(
            path, f"{key} is negative ({number(entry[key])}); 0 means not stated", field=f"joint_limits.{joint}.{key}"
        )
    return value or None


__all__ = ["LIMITED_TYPES", "Follower", "JointLimits", "followers"]
