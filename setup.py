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
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*", "bench", "bench.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/" + package_name]),
        ("share/" + package_name, ["package.xml"]),
        ("share/" + package_name + "/launch", glob("launch/*.launch.py")),
        *config_files(),
    ],
    package_data={package_name: ["py.typed"]},
    python_requires=">=3.10",
    install_requires=[
        "numpy>=1.22",
        "scipy>=1.8",
        "PyYAML>=5.4",
        "msgpack>=1.0",
    ],
    extras_require={
        "plot": ["matplotlib>=3.5"],
        "bag": ["rosbags>=0.10", "mcap>=1.1", "tqdm>=4.60"],
        "scene": ["pyjson5>=1.6"],
        "test": [
            "rosbags==0.11.9",
            "mcap==1.6.0",
            "tqdm>=4.60",
            "pyjson5==2.0.1",
            "json5==0.17.3",  # the pure-Python peer of bench/bench_scene.py
            "pytest==9.2.0",
            "ruff==0.17.5",
            "mypy==2.4.1",
            "types-PyYAML",
            "otter-motion-format==0.1.5",
            "matplotlib>=3.5",
        ],
    },
    zip_safe=True,
    maintainer="motion_formats_ros developers",
    maintainer_email="motion-formats-ros@example.org",
    description="Robot motion files (Choreonoid .seq, OMF, scene JSON5, .mof, .mtn, rosbag2) "
    "as first-class citizens of ROS 2: play, record, convert.",
    license="Apache-2.0",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "motion-formats = motion_formats_ros.cli.main:entry",
            "motion_player = motion_formats_ros.ros.player:entry",
            "motion_recorder = motion_formats_ros.ros.recorder:entry",
        ],
    },
)
