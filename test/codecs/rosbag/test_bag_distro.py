"""Bags we write say which ROS distro they were written for (ros2 bag info shows it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_walk


@pytest.mark.parametrize("distro", ["humble", "jazzy", "kilted"])
def test_metadata_names_the_distro(tmp_path: Path, distro: str) -> None:
    bag = tmp_path / "walk"
    write(biped_walk(rate=20.0, cycles=1), bag, format="rosbag", distro=distro)
    text = (bag / "metadata.yaml").read_text()
    assert f"ros_distro: {distro}" in text and "ros_distro: rosbags" not in text
    assert read(bag).motion.num_frames == 25
