"""Model data → ROS 2 messages (the only conversions between numpy and rclpy types)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import TransformStamped
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..playback.plan import TrajectoryPlan


def time_msg(nanoseconds: int) -> Time:
    """builtin_interfaces/Time from integer nanoseconds (non-negative)."""
    sec, nsec = divmod(int(nanoseconds), 1_000_000_000)
    return Time(sec=sec, nanosec=nsec)


def joint_state(
    names: Sequence[str],
    stamp_ns: int,
    position: np.ndarray | None,
    velocity: np.ndarray | None = None,
    effort: np.ndarray | None = None,
) -> JointState:
    """A JointState with the channels that are present."""
    msg = JointState()
    msg.header.stamp = time_msg(stamp_ns)
    msg.name = list(names)
    if position is not None:
        msg.position = position.tolist()
    if velocity is not None:
        msg.velocity = velocity.tolist()
    if effort is not None:
        msg.effort = effort.tolist()
    return msg


def duration_ns(nanoseconds: int) -> Duration:
    """builtin_interfaces/Duration from integer nanoseconds (non-negative)."""
    sec, nsec = divmod(int(nanoseconds), 1_000_000_000)
    return Duration(sec=sec, nanosec=nsec)


def trajectory(plan: TrajectoryPlan, first: int, last: int, stamp_ns: int) -> JointTrajectory:
    """Points ``first`` to ``last`` (exclusive) of a plan; ``stamp_ns`` 0 means "start on receipt"."""
    msg = JointTrajectory()
    msg.header.stamp = time_msg(stamp_ns)
    msg.joint_names = list(plan.joint_names)
    points = []
    for i in range(first, last):
        point = JointTrajectoryPoint()
        point.positions = plan.positions[i].tolist()
        if plan.velocities is not None:
            point.velocities = plan.velocities[i].tolist()
        if plan.accelerations is not None:
            point.accelerations = plan.accelerations[i].tolist()
        point.time_from_start = duration_ns(int(plan.time_from_start_ns[i]))
        points.append(point)
    msg.points = points
    return msg


def transform(
    parent: str, child: str, stamp_ns: int, translation: npt.ArrayLike, rotation_xyzw: npt.ArrayLike
) -> TransformStamped:
    """A TransformStamped (child pose in parent), quaternion x, y, z, w."""
    msg = TransformStamped()
    msg.header.stamp = time_msg(stamp_ns)
    msg.header.frame_id = parent
    msg.child_frame_id = child
    t = msg.transform.translation
    t.x, t.y, t.z = (float(v) for v in np.asarray(translation, dtype=np.float64))
    r = msg.transform.rotation
    q = np.asarray(rotation_xyzw, dtype=np.float64)
    norm = float(np.linalg.norm(q))
    if not np.isfinite(norm) or norm < 1e-9:
        q, norm = np.array([0.0, 0.0, 0.0, 1.0]), 1.0
    r.x, r.y, r.z, r.w = (float(v) / norm for v in q)
    return msg
