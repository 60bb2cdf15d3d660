"""The simulated robot's settings (``motion_sim``), declared once: each one a ROS parameter of the node.

Parameter names follow joint_trajectory_controller's where they mean the same
(``allow_partial_joints_goal``, ``state_publish_rate``, ``action_monitor_rate``, the
``constraints`` defaults flattened to ``path_tolerance`` / ``goal_tolerance`` /
``goal_time`` / ``stopped_velocity_tolerance``) and ``simulate``'s for the physics.
"""

from __future__ import annotations

import dataclasses

from ..core.errors import MotionFormatError
from ..core.options import option


@dataclasses.dataclass(frozen=True)
class SimConfig:
    """The simulated robot's settings (each one a ROS parameter of the node, with this help)."""

    urdf_file: str = option("", "URDF file of the robot to simulate (its collision shapes and masses)", nonempty=True)
    robot_description: str = option("", "URDF text of the robot (instead of urdf_file)", nonempty=True)
    body_file: str = option("", "Choreonoid .body file of the robot (instead of urdf_file)", nonempty=True)
    srdf_file: str = option("", "SRDF whose disable_collisions pairs self-collision leaves out")
    package_path: tuple[str, ...] = option((), "folders holding ROS packages, for package:// meshes")
    controller: str = option(
        "joint_trajectory_controller",
        "the controller's name: <controller>/follow_joint_trajectory, /joint_trajectory, /controller_state",
    )
    gains_file: str = option("", "servo gains in ros2_control's layout (gains: {joint: {p, d}})")
    kp: float = option(0.0, "P gain of every servo the gains file leaves out (0 = simulate's default)", minimum=0.0)
    kd: float = option(0.0, "D gain of every servo the gains file leaves out (0 = simulate's default)", minimum=0.0)
    fixed_base: bool = option(False, "fix the base to the world (default: it floats when simulate's rule says so)")
    timestep: float = option(0.001, "physics step (s): 1 kHz", above=0.0, maximum=0.01)
    state_rate: float = option(200.0, "/joint_states and /tf rate (Hz)", above=0.0)
    state_publish_rate: float = option(50.0, "<controller>/controller_state rate (Hz)", above=0.0)
    action_monitor_rate: float = option(20.0, "FollowJointTrajectory feedback rate (Hz)", above=0.0)
    allow_partial_joints_goal: bool = option(False, "take trajectories that name only some joints (the rest hold)")
    path_tolerance: float = option(0.0, "default position tolerance while moving, rad or m (0 = none)", minimum=0.0)
    goal_tolerance: float = option(0.0, "default position tolerance at the end, rad or m (0 = none)", minimum=0.0)
    stopped_velocity_tolerance: float = option(
        0.01, "velocity (rad/s or m/s) below which a joint counts as stopped at the end (0 = not checked)", minimum=0.0
    )
    goal_time: float = option(
        0.0, "default s after the end within which the goal tolerance must be met (0 = no limit)", minimum=0.0
    )
    publish_clock: bool = option(False, "publish /clock from the simulated time (for nodes with use_sim_time)")
    world_frame: str = option("world", "parent frame of the floating base's pose on /tf")
    frame_prefix: str = option("", "prefix for the robot's frames")


class SimError(MotionFormatError):
    """The simulated robot cannot start (no model, a bad model, gains or settings); the node exits non-zero."""


__all__ = ["SimConfig", "SimError"]
