"""Kinematics in the core: frame trees and robot models, vectorised over frames.

- :mod:`.frame_tree`: a frame tree of static and moving edges evaluated at arrays of times
  (what the scene codec builds for its objects and links);
- :mod:`.robot`: a robot model from URDF, ``.urdf.xacro`` or Choreonoid ``.body``
  (:func:`load_robot_model`), every link's pose for all frames in one call
  (:meth:`RobotModel.link_poses`) and robot_state_publisher's frames
  (:meth:`RobotModel.joint_transforms`);
- :mod:`.robot_parts`: links (visuals, collision shapes, inertial data), joints, and the one check of a model's tree;
- :mod:`.urdf`, :mod:`.body`: the readers (and the URDF writer).
"""

from __future__ import annotations

from .frame_tree import (
    WORLD_FRAME,
    Edge,
    EdgeTransform,
    Kinematics,
    MovingTransform,
    StaticTransform,
    Values,
    link_frame,
    object_frame,
)
from .robot import LinkPoses, RobotModel, expand_xacro, load_robot_model
from .robot_parts import (
    Box,
    Capsule,
    Cylinder,
    Geometry,
    Inertial,
    Joint,
    Limit,
    Link,
    Mesh,
    Mimic,
    Sphere,
    Visual,
)

__all__ = [
    "WORLD_FRAME",
    "Box",
    "Capsule",
    "Cylinder",
    "Edge",
    "EdgeTransform",
    "Geometry",
    "Inertial",
    "Joint",
    "Kinematics",
    "Limit",
    "Link",
    "LinkPoses",
    "Mesh",
    "Mimic",
    "MovingTransform",
    "RobotModel",
    "Sphere",
    "StaticTransform",
    "Values",
    "Visual",
    "expand_xacro",
    "link_frame",
    "load_robot_model",
    "object_frame",
]
