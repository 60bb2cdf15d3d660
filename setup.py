"""ament_python package that also installs with plain pip (no ROS needed for the core)."""

import os
from glob import glob

from setuptools import find_packages, setup

package_name = "motion_formats_ros"


def config_files():
    """config/** installed under share/<package>/config, keeping sub-folders."""
    entries = []
    for folder, _, files in sorted(os.walk("config")):
        paths = sorted(os.path.join(folder, f) for f in files if not f.startswith("."))
        if paths:
            entries.append((os.path.join("share", package_name, folder), paths))
    return entries


setup(
    name=package_name,
    version="0.2.0",
    packages=find_packages(exclude=["test", "test.*", "bench", "bench.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/launch", glob("launch/*.launch.py")),
        *config_files(),
    ],
    package_data={package_name: ["py.typed"]},
    python_requires=">=3.10",
    # The core: what reading, writing, converting and bags need. Floors are the versions
    # `make test-min` tests (tools/min-constraints.txt); rosdep keys are in package.xml.
    install_requires=[
        "numpy>=1.23.2",
        "scipy>=1.9.3",
        "PyYAML>=6.0",
        "msgpack>=1.0.3",  # Debian 12, Ubuntu 22.04 and 24.04 ship 1.0.3
        "rosbags>=0.11.7",  # the first with backports.zstd, which the MCAP scanner uses
        "json5>=0.9.10",  # Debian 12 ships 0.9.10
    ],
    # Optional: a command that needs a missing one says which extra to install.
    extras_require={
        # JSON5 scenes ~400x faster; same results as json5 from the json5 release on that reads
        # every literal pyjson5 reads (with an older json5 the accelerator is left unused).
        "fast": ["pyjson5>=2.0", "json5>=0.15.0"],
        "plot": ["matplotlib>=3.5"],
        "progress": ["tqdm>=4.60"],
        # motion-formats batch --scheduler (a Dask cluster) and Parquet tables; floors as tested.
        "batch": ["dask>=2026.8.0", "distributed>=2026.8.0"],
        # pyarrow 26 needs NumPy 2; 25.0.1 works with the core's NumPy floor (and has the
        # page checksums the Parquet codec writes and verifies).
        "parquet": ["pyarrow>=25.0.1"],
        # motion-formats view: the page (viser: its server and three.js client) and mesh files.
        # view/viser_adapter.py uses viser's and websockets' internals as of viser 1.1.1 and
        # websockets 16.1: a viser release past 1.1 has to be tried before it is admitted.
        "view": ["viser>=1.1.1,<1.2", "websockets>=13.1,<17", "trimesh>=4.0"],
        "xacro": ["xacro>=2.0"],  # .urdf.xacro robot models (motion2bag --urdf, the player)
        # motion-formats check, the player's and the viewer's collision check: coal collides,
        # trimesh reads Collada (DAE) and unusual mesh files (STL and plain OBJ are read without it).
        "check": ["coal>=3.0", "trimesh>=4.0"],
        # motion-formats simulate: the physics preview (MuJoCo 4: its model specification, rollout
        # and contact sensors); trimesh reads Collada (DAE) and unusual mesh files.
        "sim": ["mujoco>=4.0", "trimesh>=4.0"],
        # MCAP chunk compressors; rosbags brings both, these name them for a trimmed install.
        "zstd": ["backports.zstd>=1.0; python_version < '3.14'"],
        "lz4": ["lz4>=4.0"],
        "all": [
            "pyjson5>=2.0",
            "json5>=0.15.0",
            "matplotlib>=3.5",
            "tqdm>=4.60",
            "dask>=2026.8.0",
            "distributed>=2026.8.0",
            "pyarrow>=25.0.1",
            "viser>=1.1.1,<1.2",
            "websockets>=13.1,<17",
            "trimesh>=4.0",
            "xacro>=2.0",
            "coal>=3.0",
            "mujoco>=4.0",
        ],
        # The manual (make docs): Sphinx with Markdown pages, as rosdoc2 builds it.
        "docs": ["sphinx==9.0.4", "myst-parser==5.2.0"],
        "test": [
            "rosbags==0.11.9",
            "mcap==1.6.0",  # the MCAP reference reader the bag tests check our files with
            "tqdm==4.70.1",
            "pyjson5==2.0.1",
            "json5==0.17.3",
            "pytest==9.2.0",
            "pytest-xdist==3.8.0",  # make test runs the suite on two processes
            "hypothesis==6.170.15",
            "ruff==0.17.5",
            "mypy==2.4.1",
            "types-PyYAML",
            "otter-motion-format==0.1.5",
            "matplotlib==3.11.2",
            "dask==2026.8.0",
            "distributed==2026.8.0",
            "pyarrow==26.0.1",
            "viser==1.1.1",
            "trimesh==5.2.0",
            "xacro==2.1.1",
            "yourdfpy==0.0.60",  # the independent forward kinematics the robot-model tests compare with
            # The motion check's references: pinocchio (collisions, centre of mass, ZMP) on
            # example-robot-data's robots (URDF + SRDF + meshes); python-fcl for bench/bench_check.py.
            "coal==3.0.3",
            "pin==4.1.0",
            "example-robot-data==6.0.0",
            "python-fcl==0.7.0.11",
            "mujoco==4.0.0",  # the physics preview (the sim extra)
        ],
    },
    zip_safe=True,
    maintainer="motion_formats_ros developers",
    maintainer_email="motion-formats-ros@example.org",
    description="Robot motion files (Choreonoid .seq, OMF, scene JSON5, .mof, .mtn, rosbag2) "
    "as first-class citizens of ROS 2: play, record, convert.",
    license="Apache-2.0",
    entry_points={
        "console_scripts": [
            "motion-formats = motion_formats_ros.cli.main:entry",
            "motion_player = motion_formats_ros.ros:player_entry",
            "motion_recorder = motion_formats_ros.ros:recorder_entry",
            "motion_sim = motion_formats_ros.ros:sim_entry",
        ],
    },
)
