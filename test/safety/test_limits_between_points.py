"""Limits judged on what joint_trajectory_controller plays, not only at the frames.

The player sends a motion's own velocities when it has them, else velocities it derives;
the controller joins the points with a cubic Hermite polynomial. ``check`` and the
player's refusal judge the velocities sent against the velocity limits and the positions
that cubic reaches between the points against the position limits.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import read
from motion_formats_ros.core.model import JointLimit
from motion_formats_ros.playback.config import PlayerConfig, PlayerError
from motion_formats_ros.playback.plan import evaluate
from motion_formats_ros.playback.session import open_session
from motion_formats_ros.safety.limits import LimitViolationError, check_limits

#: One revolute joint, ±1 rad, 2 rad/s, on a base fixed to the world.
ARM = """<?xml version="1.0"?>
<robot name="arm1">
  <link name="world"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/></joint>
  <link name="base"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" velocity="2" effort="10"/></joint>
  <link name="l1"><collision><origin xyz="0 0 0.2"/><geometry><box size="0.05 0.05 0.3"/></geometry></collision></link>
</robot>
"""

#: Still at 0, yet stating 100 rad/s at every inner frame: the cubic the controller makes of
#: it swings to ±1.48 rad between the frames.
STATED = "time,j1.position,j1.velocity\n" + "".join(f"{k / 10:.1f},0,{0 if k in (0, 10) else 100}\n" for k in range(11))
#: Sparse frames up to the upper limit and held there.
SPARSE = "time,j1.position\n0,0\n1.0,0.99\n1.01,1.0\n2.0,1.0\n3.0,1.0\n"
#: The same positions with the velocities a second-order derivative gives them at 1.0 and 1.01 s.
SPARSE_STATED = "time,j1.position,j1.velocity\n0,0,0\n1.0,0.99,0.99\n1.01,1.0,0.99\n2.0,1.0,0\n3.0,1.0,0\n"


@pytest.fixture
def arm(tmp_path: Path) -> Path:
    path = tmp_path / "arm1.urdf"
    path.write_text(ARM)
    return path


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _sent_range(path: Path, arm: Path) -> tuple[float, float]:
    """The lowest and highest position the controller plays of what the player sends."""
    session = open_session(PlayerConfig(file=str(path), urdf_file=str(arm)))
    session.begin()
    plan = session.plan({})
    t = plan.time_from_start
    q = evaluate(t, plan.positions, plan.velocities, plan.accelerations, np.linspace(t[0], t[-1], 200001))
    return float(q.min()), float(q.max())


# --------------------------------------------------------------------------- stated velocities
def test_check_judges_stated_velocities_and_the_cubic_they_make(arm: Path, tmp_path: Path) -> None:
    pytest.importorskip("coal")
    code, out, err, _ = cli("check", _file(tmp_path, "vel5.csv", STATED), "--urdf", arm)
    assert code == 3, out + err
    # The velocities as stated, and the cubic between them: from rest to 100 rad/s over a
    # standing segment, it runs backwards at 33 rad/s a third of the way in (its fastest there).
    assert "error: joint j1 beyond its velocity limit 2 rad/s at t = 0.033 s (worst 100 rad/s) [0.033-0.967 s]" in out
    # 0 → 0 from rest to 100 rad/s in 0.1 s: 0.1·100·(u³ − u²), lowest at u = 2/3.
    assert "error: joint j1 beyond its position limit -1 rad at t = 0.067 s (worst -1.48148 rad)" in out, out


def test_the_player_refuses_stated_velocities_beyond_the_limits(arm: Path, tmp_path: Path) -> None:
    path = _file(tmp_path, "vel5.csv", STATED)
    # The gate, without the collision check (which needs the optional coal): the arm without shapes.
    arm = _file(tmp_path, "bare.urdf", re.sub(r"<collision>.*?</collision>", "", arm.read_text()))
    # First beyond a limit: the speed the cubic reaches a third into the first segment.
    with pytest.raises(
        PlayerError,
        match=r"joint 'j1' faster than its velocity limit 2 rad/s at t = 0\.0333333 s \(speed 33\.3333 at playback",
    ):
        open_session(PlayerConfig(file=str(path), urdf_file=str(arm)))
    # Then the position two thirds in, when the speed limit is not in the way.
    loose = tmp_path / "loose.urdf"
    loose.write_text(arm.read_text().replace('velocity="2"', 'velocity="1000"'))
    with pytest.raises(
        PlayerError, match=r"joint 'j1' below its lower limit -1 at t = 0\.0666667 s \(value -1\.48148\)"
    ):
        open_session(PlayerConfig(file=str(path), urdf_file=str(loose)))
    motion = read(path).group(None)
    faster = r"joint 'j1' faster than its velocity limit 1 rad/s at t = 0\.0333333 s"
    with pytest.raises(LimitViolationError, match=faster):
        check_limits(motion, {"j1": JointLimit(velocity=1.0)})  # the velocities sent, as the file states them
    limits = {"j1": JointLimit(-1.0, 1.0)}
    check_limits(motion, limits, interpolation="linear")  # positions only are sent: a straight line at 0


# --------------------------------------------------------------------------- sparse positions
def test_check_and_the_sent_trajectory_agree_on_sparse_frames(arm: Path, tmp_path: Path) -> None:
    pytest.importorskip("coal")
    path = _file(tmp_path, "sparse.csv", SPARSE)
    code, out, err, _ = cli("check", path, "--urdf", arm)
    assert code == 0 and "no findings" in out, out + err
    # What the check calls safe is what the controller plays: never beyond the data's 0 … 1.
    low, high = _sent_range(path, arm)
    assert low >= -1e-9 and high <= 1.0 + 1e-9, (low, high)


def test_check_judges_the_overshoot_of_stated_velocities_on_sparse_frames(arm: Path, tmp_path: Path) -> None:
    pytest.importorskip("coal")
    path = _file(tmp_path, "sparse_v.csv", SPARSE_STATED)
    code, out, err, _ = cli("check", path, "--urdf", arm)
    assert code == 3, out + err
    # 1.01 → 2.0 s, 1.0 → 1.0 rad leaving at 0.99 rad/s: the cubic peaks a third of the way.
    assert "error: joint j1 beyond its position limit 1 rad at t = 1.34 s (worst 1.1452 rad)" in out, out
    with pytest.raises(PlayerError, match=r"joint 'j1' above its upper limit 1 at t = 1\.34 s \(value 1\.1452\)"):
        open_session(PlayerConfig(file=str(path), urdf_file=str(arm)))


def test_the_check_the_viewer_runs_judges_the_same(arm: Path, tmp_path: Path) -> None:
    """The viewer's page shows ``safety.check``'s report: the same findings as the command."""
    pytest.importorskip("coal")
    from motion_formats_ros.safety import check

    report = check(read(_file(tmp_path, "sparse_v.csv", SPARSE_STATED)), arm)
    (finding,) = report.of_kind("position_limit")
    assert (finding.joint, finding.limit) == ("j1", 1.0)
    assert abs(finding.worst - 1.1452) < 1e-4 and abs(finding.worst_time - (1.01 + 0.99 / 3)) < 1e-9
    assert report.of_kind("velocity_limit") == []  # the cubics reach 1.32 rad/s at most, within 2
