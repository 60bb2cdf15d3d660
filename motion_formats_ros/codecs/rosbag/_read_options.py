"""What a bag read selects and how it merges: :class:`ReadOptions` (the ``bag2motion`` options)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...core.distros import Distro
from ...core.options import option
from ...core.stamps import Stamps


@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of a bag read (what ``bag2motion`` offers)."""

    topics: Sequence[str] | None = option(
        None, "JointState topics merged by joint name (default /joint_states, else all); TOPIC:FIELD inside others"
    )
    stamps: Stamps = option(Stamps.AUTO, "sample times: header stamp, receive time, or auto")
    root: str | None = option(None, "root pose from TF as PARENT:CHILD; 'none' for no root", metavar="PARENT:CHILD")
    imu: Sequence[str] | None = option(None, "sensor_msgs/Imu topics (default: all; 'none': none)")
    trajectory: Sequence[str] | None = option(None, "JointTrajectory topics -> 'target' group (default: all)")
    points: Sequence[str] | None = option(None, "PointStamped topics -> series (default: /zmp)")
    links: Sequence[str] | None = option(None, "TF frames to record as link poses")
    tf_topic: str = option("/tf", "the TF topic", metavar="TOPIC")
    tf_static_topic: str = option("/tf_static", "the static TF topic", metavar="TOPIC")
    hold: bool = option(False, "hold a joint's last value instead of NaN where it is absent")
    distro: Distro | None = option(None, "typestore for types the bag does not define")
    progress: bool | None = option(None, "progress bar (default: on a terminal, for large bags)")
    bulk: bool = option(True, "decode regular JointState messages in bulk (numpy)")
    start: float | None = option(None, "drop frames before this time (from the first message)", unit="s")
    end: float | None = option(None, "drop frames after this time", unit="s")
    rate: float | None = option(None, "resample to this rate", unit="Hz")
    joints: Sequence[str] | None = option(None, "keep only these joints, in this order")
