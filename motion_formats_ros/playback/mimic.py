"""Mimic joints follow their leader in everything the player sends.

A robot model's mimic joint takes ``multiplier * value(leader) + offset`` (along chains
of mimic joints). robot_state_publisher computes a mimic joint from its leader only when
the JointState it hears lacks it (a value it is given wins), and the player's own link
TF computes it from the leader: so a motion's column for a mimic joint is replaced by the
value its leader gives (positions, velocities and accelerations; efforts are the joint's
own), and JointState, ``/tf`` and the trajectory agree. A mimic joint the motion lacks is
not added: robot_state_publisher derives it from its leader as the player's TF does, and
joint_trajectory_controller commands only the joints it is configured with (ros2_control
moves a mimic joint from its leader).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..core.kinematics import RobotModel
from ..core.model import JointLimit, Motion


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


def followers(model: RobotModel) -> dict[str, Follower]:
    """Every mimic joint of ``model`` with its first non-mimic leader."""
    out: dict[str, Follower] = {}
    for joint in model.joints:
        if joint.mimic is None:
            continue
        multiplier, offset = 1.0, 0.0
        current = joint
        while current.mimic is not None:  # the model refuses loops and unknown leaders
            m = current.mimic
            offset += multiplier * m.offset
            multiplier *= m.multiplier
            current = model.joint(m.joint)
        out[joint.name] = Follower(joint.name, current.name, multiplier, offset)
    return out


def follow_leaders(motion: Motion, mimics: dict[str, Follower]) -> tuple[Motion, list[Follower], list[Follower]]:
    """``motion`` with each mimic joint's columns given by its leader.

    Returns:
        The motion, the mimic joints it has whose values now come from their leader, and
        those whose leader it lacks (held at 0, as the model's forward kinematics holds it).
    """
    single = {n for n, d in zip(motion.joint_names, motion.joint_dims, strict=True) if d == 1}
    present = [f for name, f in mimics.items() if name in single]
    if not present:
        return motion, [], []
    changes: dict[str, Any] = {}
    orphans = [f for f in present if f.leader not in single]
    for channel in ("position", "velocity", "acceleration"):
        values = getattr(motion, channel)
        if values is None:
            continue
        out = np.array(values, dtype=np.float64, copy=True)
        for f in present:
            col = motion.joint_columns(f.joint).start
            if f.leader in single:
                lead = values[:, motion.joint_columns(f.leader).start]
            else:
                lead = np.zeros(motion.num_frames)
            out[:, col] = f.multiplier * lead + (f.offset if channel == "position" else 0.0)
        changes[channel] = out
    return dataclasses.replace(motion, **changes), present, orphans


def model_limits(model: RobotModel) -> dict[str, JointLimit]:
    """The limits the model states for its joints, mimic joints included (something to check only).

    Revolute and prismatic joints give lower, upper and velocity (a URDF's unstated lower
    and upper are 0; a ``.body``'s are unlimited); continuous joints only velocity; other
    joints nothing.
    """
    default = 0.0 if model.urdf_text is not None else None
    limits: dict[str, JointLimit] = {}
    for joint in model.joints:
        if joint.type not in ("revolute", "prismatic", "continuous") or joint.limit is None:
            continue
        velocity = joint.limit.velocity if joint.limit.velocity and joint.limit.velocity > 0 else None
        if joint.type == "continuous":
            limit = JointLimit(velocity=velocity)
        else:
            lower, upper = joint.limit.lower, joint.limit.upper
            limit = JointLimit(
                lower if lower is not None else default, upper if upper is not None else default, velocity
            )
        if (limit.lower, limit.upper, limit.velocity) != (None, None, None):
            limits[joint.name] = limit
    return limits
