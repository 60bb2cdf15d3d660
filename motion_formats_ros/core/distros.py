"""ROS distributions, rosbag2 storages and MCAP chunk compressions the bag codec knows (names only).

The storages and compressions are :class:`~motion_formats_ros.core.options.ChoiceEnum` enums: the bag
writer's options are typed with them, so the options layer checks a value once and the command line
offers their members. Nothing here needs the bag codec (or numpy) loaded.
"""

from __future__ import annotations

from .options import ChoiceEnum


class Distro(ChoiceEnum):
    """A ROS distribution whose message types the bag codec knows (see :data:`DISTROS`)."""

    NOETIC = "noetic"
    FOXY = "foxy"
    GALACTIC = "galactic"
    HUMBLE = "humble"
    IRON = "iron"
    JAZZY = "jazzy"
    KILTED = "kilted"


#: ``--distro`` names → rosbags typestores (reading).
DISTROS = {
    "noetic": "ros1_noetic",
    "foxy": "ros2_foxy",
    "galactic": "ros2_galactic",
    "humble": "ros2_humble",
    "iron": "ros2_iron",
    "jazzy": "ros2_jazzy",
    "kilted": "ros2_kilted",
}
#: Distro assumed for rosbag2 bags that name none (and carry no message definitions).
DEFAULT_DISTRO = "humble"
#: Distros whose message definitions and metadata layout bags are written with.
WRITE_DISTROS = ("humble", "jazzy", "kilted")
DEFAULT_WRITE_DISTRO = "jazzy"


class Storage(ChoiceEnum):
    """A rosbag2 storage plugin the bag writer writes."""

    MCAP = "mcap"
    SQLITE3 = "sqlite3"


class Compression(ChoiceEnum):
    """An MCAP chunk compression the bag writer writes; ``ros2 bag record`` compresses MCAP chunks with zstd."""

    ZSTD = "zstd"
    LZ4 = "lz4"
    NONE = "none"


#: rosbag2 storage plugins written.
STORAGES = Storage.values()
#: MCAP chunk compressions written.
COMPRESSIONS = Compression.values()
DEFAULT_COMPRESSION = Compression.ZSTD


def default_write_distro(environ: dict[str, str] | None = None) -> str:
    """The distro bags are written for by default: ``$ROS_DISTRO`` when it is one of
    :data:`WRITE_DISTROS`, else :data:`DEFAULT_WRITE_DISTRO` (as ``ros2 bag record`` names
    the environment's distro)."""
    import os

    value = (os.environ if environ is None else environ).get("ROS_DISTRO", "").strip().lower()
    return value if value in WRITE_DISTROS else DEFAULT_WRITE_DISTRO
