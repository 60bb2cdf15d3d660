"""Mimic joints follow their leader in everything the player sends.

A robot model's mimic joint takes ``multiplier * value(leader) + offset`` (along chains
of mimic joints). robot_state_publisher computes a mimic joint from its leader only when
the JointState it hears lacks it (a value it is given wins), and the player's own link
TF computes it from the leader: so a motion's column for a mimic joint is replaced by the
value its leader gives (positions, velocities and accelerations; efforts are the joint's
own), and JointState, ``/tf`` and the trajectory agree. A mimic joint the motion lacks is
not added: robot_state_publisher derives it from its leader as the player's TF does, and
joint_trajectory_controller commands only the joints it is configured with (ros2_control
moves a mimic joint from its leader). Which joints are mimic joints, and of which leader, is
:func:`..core.joint_limits.followers`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..core.joint_limits import Follower
from ..core.model import Motion


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
