"""The player checks a motion for self-collisions and the floor before it sends anything (a real node process)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.robots import PANDA_SRDF, PANDA_URDF, group_state, robot_file, share
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import write
from motion_formats_ros.core.model import Motion, MotionFile

pytestmark = [requires_ros, pytest.mark.ros]
pytest.importorskip("coal")


def panda_urdf(tmp_path: Path) -> Path:
    """The Panda's URDF with its package:// mesh names written as the absolute files pip installed."""
    text = robot_file(*PANDA_URDF).read_text()
    path = tmp_path / "panda.urdf"
    path.write_text(text.replace("package://example-robot-data/", f"{share() / 'example-robot-data'}/"))
    return path


def folding(tmp_path: Path) -> Path:
    """The Panda folding its hand onto its base (links 1 and 2 meet the fingers from t = 1.24 s)."""
    pose = group_state(robot_file(*PANDA_SRDF), "default")
    names = tuple(pose)
    values = np.tile(list(pose.values()), (50, 1))
    values[:, names.index("panda_joint4")] = np.linspace(-2.35619, -3.05, 50)
    values[:, names.index("panda_joint2")] = np.linspace(-0.785398, -1.76, 50)
    values[:, names.index("panda_joint6")] = np.linspace(1.5707, 0.3, 50)
    path = tmp_path / "fold.csv"
    write(MotionFile.single(Motion(times=np.arange(50) * 0.04, joint_names=names, position=values)), path)
    return path


def test_player_refuses_a_self_collision(tmp_path: Path) -> None:
    urdf, motion = panda_urdf(tmp_path), folding(tmp_path)
    srdf = robot_file(*PANDA_SRDF)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={motion}", f"urdf_file:={urdf}", f"srdf_file:={srdf}")
        assert player.wait(60) == 1
        out = player.output()
        assert "refusing to play: self-collision between panda_link1 and panda_leftfinger at t = 1.24 s" in out
        assert "set ignore_collisions" in out
        ok = ros.start_player(
            f"file:={motion}",
            f"urdf_file:={urdf}",
            f"srdf_file:={srdf}",
            "ignore_collisions:=true",
            "mode:=stream",
            "wait_for_subscribers:=0",
            "end_time:=0.1",
        )
        assert ok.wait(60) == 0, ok.output()
        text = ok.output()
        assert "playing despite (ignore_collisions): self-collision between panda_link1" in text
        assert "collision check:" in text and "link pairs" in text  # its cost is logged


def test_player_plays_the_default_pose(tmp_path: Path) -> None:
    pose = group_state(robot_file(*PANDA_SRDF), "default")
    path = tmp_path / "still.csv"
    values = np.tile(list(pose.values()), (10, 1))
    write(MotionFile.single(Motion(times=np.arange(10) * 0.01, joint_names=tuple(pose), position=values)), path)
    with ros_session(tmp_path) as ros:
        ok = ros.start_player(
            f"file:={path}",
            f"urdf_file:={panda_urdf(tmp_path)}",
            f"srdf_file:={robot_file(*PANDA_SRDF)}",
            "mode:=stream",
            "wait_for_subscribers:=0",
        )
        assert ok.wait(60) == 0, ok.output()
        assert "collision check: 10 frames" in ok.output()
        assert "refusing" not in ok.output()
