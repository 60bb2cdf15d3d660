"""The recorder's settings (``motion_recorder``), declared once: each one a ROS parameter of the node."""

from __future__ import annotations

import dataclasses

from ..core.options import option
from ..core.stamps import Stamps
from ..core.timing import MAX_RATE

#: The lowest resampling rate (Hz) other than 0: a frame every 31 years, whose period in ns
#: still fits the int64 arithmetic of stamps.
MIN_RATE = 1e-9


@dataclasses.dataclass(frozen=True)
class RecorderConfig:
    """The recorder's settings (each one a ROS parameter of the node, with this help)."""

    output: str = option("", "file to write: OMF .msgpack/.yaml/.json or Choreonoid .seq")
    overwrite: bool = option(False, "replace an existing output")
    topics: tuple[str, ...] = option(("joint_states",), "JointState topics, merged by joint name", topic=True)
    joints: tuple[str, ...] = option((), "record only these joints, in this order (default: every joint seen)")
    world_frame: str = option("", "with root_frame: record the root pose from TF (world_frame → root_frame)")
    root_frame: str = option("", "the robot's root frame (e.g. base_link)")
    imu_topics: tuple[str, ...] = option((), "sensor_msgs/Imu topics to record", topic=True)
    target_topic: str = option("", "trajectory_msgs/JointTrajectory topic recorded as the target group", topic=True)
    target_joint_state_topic: str = option("", "JointState command topic recorded as the target group", topic=True)
    controller_state_topic: str = option(
        "",
        "control_msgs/JointTrajectoryControllerState topic (e.g. /arm_controller/controller_state): reference "
        "recorded as the target group, feedback as actual, error as actual's 'error' channel",
        topic=True,
    )
    rate: float = option(
        0.0,
        "0 keeps every sample with its own time; > 0 resamples to this rate (Hz)",
        minimum=0.0,
        maximum=MAX_RATE,
        smallest_on=MIN_RATE,
    )
    stamps: Stamps = option(Stamps.AUTO, "header | receive | auto (receive time when header stamps are zero)")
    name: str = option("", "motion name stored in the file")
    robot: str = option("", "robot name stored in the file")
    seq_version: int = option(2, "Choreonoid .seq format version (2 or 4)", choices=(2, 4))
    duration: float = option(0.0, "stop after this many seconds (0 = until stopped)", minimum=0.0)
    max_frames: int = option(0, "stop after this many JointState messages (0 = no limit)", minimum=0)
    flush_interval: float = option(
        1.0, "seconds between journal flushes (at most this much is lost on a crash)", above=0.0
    )
    autostart: bool = option(True, "start recording at once (else wait for ~/start)")


__all__ = ["MIN_RATE", "RecorderConfig"]
