"""ROS distributions, rosbag2 storages and MCAP chunk compressions the bag codec knows (names only).

The command line builds its ``--distro`` / ``--storage`` / ``--compression`` choices from here without
loading the bag codec, and the codec validates against the same names.
"""

from __future__ import annotations

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
#: rosbag2 storage plugins written.
STORAGES = ("mcap", "sqlite3")
#: MCAP chunk compressions written; ``ros2 bag record`` compresses MCAP chunks with zstd.
COMPRESSIONS = ("zstd", "lz4", "none")
DEFAULT_COMPRESSION = "zstd"


def default_write_distro(environ: dict[str, str] | None = None) -> str:
    """The distro bags are written for by default: ``$ROS_DISTRO`` when it is one of
    :data:`WRITE_DISTROS`, else :data:`DEFAULT_WRITE_DISTRO` (as ``ros2 bag record`` names
    the environment's distro)."""
    import os

    value = (os.environ if environ is None else environ).get("ROS_DISTRO", "").strip().lower()
    return value if value in WRITE_DISTROS else DEFAULT_WRITE_DISTRO
