"""Joint limits from a URDF (what the player and a written scene check motions against).

The URDF is read by the robot model's URDF reader (:mod:`.kinematics.urdf`); the limits
are the model's :class:`~.model.JointLimit` (kept apart from the reader, which the model
module itself uses).
"""

from __future__ import annotations

import os

from .kinematics.urdf import read_urdf
from .model import JointLimit


def joint_limits(urdf: str, source: str | os.PathLike[str] = "<robot_description>") -> dict[str, JointLimit]:
    """Position and velocity limits of every limited joint in the URDF text ``urdf``.

    Revolute and prismatic joints give lower/upper/velocity; continuous joints only
    velocity; fixed, floating and planar joints nothing. Mimic joints are skipped (they follow).

    Raises:
        ReadError: Not a URDF, or a value that is not a number (named with its line).
    """
    limits: dict[str, JointLimit] = {}
    for joint in read_urdf(urdf, source, links_required=False).joints:
        if joint.type not in ("revolute", "prismatic", "continuous") or joint.mimic is not None:
            continue
        if joint.limit is None:
            continue
        velocity = joint.limit.velocity
        velocity = velocity if velocity and velocity > 0 else None
        if joint.type == "continuous":
            limits[joint.name] = JointLimit(velocity=velocity)
        else:
            limits[joint.name] = JointLimit(
                lower=joint.limit.lower or 0.0,  # URDF's defaults are 0
                upper=joint.limit.upper or 0.0,
                velocity=velocity,
            )
    return limits


__all__ = ["joint_limits"]
