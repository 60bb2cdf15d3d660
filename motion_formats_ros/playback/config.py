"""The player's settings, declared once: each one is a ROS parameter of the node, with this help.

Internally ``speed`` is a factor and ``rate`` a frequency in Hz; the speed factor keeps
the parameter name ``rate`` that ``ros2 bag play --rate`` made familiar.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..core.errors import MotionFormatError
from ..core.options import ChoiceEnum, option
from .plan import Interpolation

#: How playback reports: ``log(level, text)`` with level ``info``, ``warning`` or ``error``.
Log = Callable[[str, str], None]


def silent(level: str, text: str) -> None:
    """The default report: nothing."""


#: Highest JointState / TF rate (Hz) when the file's own rate is higher or unknown.
MAX_STREAM_RATE = 500.0
#: Shortest trajectory chunk (s) other than 0: a chunk is at least one control period of a
#: controller at 100 Hz; shorter ones would make a message of a point or two, millions of
#: them for a long motion.
MIN_CHUNK_DURATION = 0.01


class PlayMode(ChoiceEnum):
    """What the player sends: JointState + TF and a trajectory, only the stream, or only the trajectory."""

    BOTH = "both"
    STREAM = "stream"
    TRAJECTORY = "trajectory"


MODES = PlayMode.values()


@dataclasses.dataclass(frozen=True)
class PlayerConfig:
    """The player's settings (each one a ROS parameter of the node, with this help)."""

    file: str = option("", "motion file to play (any supported format)")
    format: str = option("", "format name when the suffix/content is not enough (omf, seq, …)")
    group: str = option("", "group to play (OMF target/actual…); default: the first")
    joint_names: tuple[str, ...] = option((), "joint names for formats without them (Choreonoid .seq)")
    body_file: str = option(
        "", "Choreonoid .body file naming the joints of a .seq; also the robot model (limits, robot_description)"
    )
    joints: tuple[str, ...] = option(
        (),
        "joints to send, in this order (default: every joint of the file); a listed joint the file lacks "
        "holds its current position from state_topic",
    )
    state_topic: str = option(
        "joint_states",
        "JointState topic with the robot's current positions, heard before playing (approach, undefined "
        "leading values, held joints); the player's own stream does not count",
        topic=True,
    )
    mode: PlayMode = option(PlayMode.BOTH, "both | stream (JointState + TF) | trajectory (JointTrajectory only)")
    speed: float = option(
        1.0, "speed factor (2.0 = twice as fast); changeable at run time", above=0.0, runtime=True, name="rate"
    )
    loop: bool = option(False, "repeat the motion (its own loop segment for .mof / repeating scenes)")
    start_time: float = option(0.0, "start this many seconds into the motion", minimum=0.0)
    end_time: float = option(0.0, "stop this many seconds into the motion (0 = the end)", minimum=0.0)
    start_paused: bool = option(False, "wait for the resume service before playing")
    seek: float = option(-1.0, "set at run time to jump to this motion time (s, from the motion start)", runtime=True)
    stream_rate: float = option(0.0, "JointState/TF rate in Hz (0 = the file's rate, at most 500)", minimum=0.0)
    approach_time: float = option(1.0, "seconds for the controller to reach the first point", minimum=0.0)
    start_delay: float = option(
        0.0, "trajectory header stamp = now + this (s); 0 = stamp 0, the controller starts on receipt", minimum=0.0
    )
    trajectory_tolerance: float = option(
        1e-3,
        "largest deviation (rad or m) of the controller's interpolation of the sent points from any frame "
        "of the file; fewer points the larger it is",
        minimum=0.0,
    )
    trajectory_interpolation: Interpolation = option(
        Interpolation.AUTO,
        "fields sent, hence joint_trajectory_controller's interpolation: linear (positions), cubic (+ velocities), "
        "quintic (+ accelerations); auto = cubic, keyframed files linear (their own)",
    )
    controller: str = option(
        "",
        "controller namespace (e.g. /arm_controller): send the motion as one FollowJointTrajectory goal to "
        "<controller>/follow_joint_trajectory instead of publishing on joint_trajectory",
    )
    stream_with_controller: bool = option(
        False,
        "with controller: also stream JointState/TF (off: the controlled robot publishes its own state on "
        "joint_states, and a second publisher there would mix the two)",
    )
    wait_for_server: float = option(
        10.0, "seconds to wait for the controller's action server (then exit 1 naming it)", minimum=0.0
    )
    path_tolerance: str | float = option(
        "",
        'position tolerance while moving, rad or m: one number for every joint or a map "{joint: value}"; '
        "empty or 0 = the controller's default, -1 = none (with controller)",
    )
    goal_tolerance: str | float = option(
        "", "position tolerance at the end, same form as path_tolerance (with controller)"
    )
    goal_time_tolerance: float = option(
        0.0,
        "s the controller may take beyond the end to reach the goal; 0 = its default (with controller)",
        minimum=0.0,
    )
    chunk_duration: float = option(
        0.0,
        "opt-in, 0 = one message: split the trajectory into messages of this many seconds for a controller "
        "that queues them (joint_trajectory_controller replaces its trajectory with each message)",
        minimum=0.0,
        smallest_on=MIN_CHUNK_DURATION,
    )
    wait_for_subscribers: float = option(5.0, "seconds to wait for subscribers before playing (0 = don't)", minimum=0.0)
    min_subscribers: int = option(
        1, "how many subscribers to wait for (e.g. 2: a controller and a recorder)", minimum=1
    )
    world_frame: str = option("world", "parent frame of the root pose")
    root_frame: str = option("base_link", "frame of the root pose")
    frame_prefix: str = option("", "prefix for the robot's frames (root and links)")
    publish_links: bool = option(False, "also publish the link poses stored in the file on /tf")
    publish_clock: bool = option(False, "publish /clock from the played motion time")
    robot_description: str = option("", "URDF text: the joint limits, published on /robot_description", nonempty=True)
    urdf_file: str = option(
        "", "URDF file: the joint limits, published on /robot_description (instead of robot_description)", nonempty=True
    )
    publish_link_tf: bool = option(
        False, "with a robot model: every link's TF as robot_state_publisher would (for setups that run none)"
    )
    ignore_limits: bool = option(False, "play even if the motion exceeds a joint limit")
    ignore_collisions: bool = option(
        False, "play even if the motion collides with the robot itself or the floor (its collision geometry)"
    )
    srdf_file: str = option("", "SRDF whose disable_collisions pairs the collision check leaves out")
    package_path: tuple[str, ...] = option(
        (), "folders holding ROS packages, for package:// meshes (searched after AMENT_PREFIX_PATH, ROS_PACKAGE_PATH)"
    )
    exit_on_end: bool = option(True, "shut down when a non-looping motion has been played")


#: How a message names an option of the checks by the player's parameter that sets it (see
#: :func:`~motion_formats_ros.core.errors.command_line`).
PARAMETER_SPELLING = {"package_paths": "package_path:=[DIR]"}


class PlayerError(MotionFormatError):
    """The player cannot start or go on (bad file, limits, settings); the node exits non-zero."""
