"""``check`` and the player judge a motion against the same joint limits, and agree.

Both read the one home of joint limits (core.joint_limits) and the one judgement
(safety.limits): a ``.body`` joint that states a speed but no range has no position limit,
and a mimic joint the motion does not name is judged on the value its leader gives it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.robots import pincer_urdf

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.core.joint_limits import JointLimits
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.playback.config import PlayerConfig, PlayerError
from motion_formats_ros.playback.session import open_session

#: A .body joint with a speed limit (1 rad/s) and no range.
BODY = """format: ChoreonoidBody
formatVersion: 1.0
angleUnit: radian
name: arm
links:
  - name: BASE
    jointType: fixed
  - name: LINK1
    parent: BASE
    jointType: revolute
    jointId: 0
    jointAxis: [0, 0, 1]
    translation: [0, 0, 0.1]
    maxJointVelocity: 1.0
"""


def _motion(path: Path, names: tuple[str, ...], columns: list[np.ndarray], seconds: float) -> Path:
    times = np.linspace(0.0, seconds, len(columns[0]))
    write(MotionFile.single(Motion(times=times, joint_names=names, position=np.column_stack(columns))), path)
    return path


@pytest.fixture
def body(tmp_path: Path) -> Path:
    path = tmp_path / "arm.body"
    path.write_text(BODY)
    return path


@pytest.fixture
def pincer(tmp_path: Path) -> Path:
    path = tmp_path / "pincer.urdf"
    path.write_text(pincer_urdf("j1"))
    return path


# --------------------------------------------------------------------------- the one home
def test_a_body_joint_without_a_range_states_no_position_limit(body: Path) -> None:
    limits = JointLimits.of_model(RobotModel.from_body(body))
    assert limits["LINK1"].velocity == 1.0
    assert limits["LINK1"].lower is None and limits["LINK1"].upper is None


def test_a_mimic_joint_has_its_own_limits_and_its_leader(pincer: Path) -> None:
    limits = JointLimits.of_model(RobotModel.from_urdf(pincer.read_text(), pincer))
    assert (limits["j2"].lower, limits["j2"].upper) == (-3.0, 3.0)
    follower = limits.followers["j2"]
    assert (follower.leader, follower.multiplier, follower.offset) == ("j1", -8.0, 0.1)
    assert "j2" not in limits.driven()


# --------------------------------------------------------------------------- (a) a .body speed limit, no range
def test_check_judges_the_speed_of_a_body_joint_without_a_range(body: Path, tmp_path: Path) -> None:
    pytest.importorskip("coal")
    slow = _motion(tmp_path / "slow.csv", ("LINK1",), [np.linspace(0.0, 0.3, 11)], 1.0)  # 0.3 rad/s
    code, out, err, _ = cli("check", slow, "--body", body)
    assert code == 0, out + err
    assert "position" not in out and "beyond" not in out, out
    fast = _motion(tmp_path / "fast.csv", ("LINK1",), [np.linspace(0.0, 0.3, 11)], 0.1)  # 3 rad/s
    code, out, err, _ = cli("check", fast, "--body", body)
    assert code == 3, out + err
    # 3 rad/s between frames, and 4 rad/s in the last segment's cubic, which brings it to rest
    assert "joint LINK1 beyond its velocity limit 1 rad/s at t = 0 s (worst 4 rad/s)" in out, out
    assert "value limit" not in out, out


def test_the_player_judges_the_speed_of_a_body_joint_without_a_range(body: Path, tmp_path: Path) -> None:
    slow = _motion(tmp_path / "slow.msgpack", ("LINK1",), [np.linspace(0.0, 0.3, 11)], 1.0)
    session = open_session(PlayerConfig(file=str(slow), body_file=str(body)))
    assert session.limits["LINK1"].lower is None
    assert session.speed_problem(2.0) is None  # 0.6 rad/s
    problem = session.speed_problem(4.0)  # 1.2 rad/s: the speed scales with the playback rate
    assert problem is not None and "joint 'LINK1' faster than its velocity limit 1 rad/s" in problem, problem
    fast = _motion(tmp_path / "fast.msgpack", ("LINK1",), [np.linspace(0.0, 0.3, 11)], 0.1)
    with pytest.raises(PlayerError, match=r"joint 'LINK1' faster than its velocity limit 1 rad/s"):
        open_session(PlayerConfig(file=str(fast), body_file=str(body)))


# --------------------------------------------------------------------------- (b) a mimic joint the motion does not name
def test_check_judges_a_mimic_joint_through_its_leader(pincer: Path, tmp_path: Path) -> None:
    pytest.importorskip("coal")
    leader_only = _motion(tmp_path / "j1.csv", ("j1",), [np.linspace(0.1, 0.9, 11)], 1.0)  # j2 ends at -7.1
    code, out, err, _ = cli("check", leader_only, "--urdf", pincer, "--json")
    assert code == 3, out + err
    assert '"joint": "j2"' in out and '"kind": "position_limit"' in out, out
    assert '"value": -7.1' in out, out
    # A column the motion gives the mimic joint is not what the robot does: its leader's value is judged.
    named = _motion(tmp_path / "both.csv", ("j1", "j2"), [np.linspace(0.1, 0.9, 11), np.full(11, 0.5)], 1.0)
    code, out, err, _ = cli("check", named, "--urdf", pincer)
    assert code == 3 and "joint j2 beyond its position limit -3 rad at t = 0.4 s (worst -7.1 rad)" in out, out + err
    within = _motion(tmp_path / "within.csv", ("j1",), [np.linspace(0.1, 0.3, 11)], 1.0)  # j2 down to -2.3
    code, out, err, _ = cli("check", within, "--urdf", pincer)
    assert code == 0, out + err


def test_the_player_judges_a_mimic_joint_through_its_leader(pincer: Path, tmp_path: Path) -> None:
    leader_only = _motion(tmp_path / "j1.msgpack", ("j1",), [np.linspace(0.1, 0.9, 11)], 1.0)
    with pytest.raises(PlayerError) as caught:
        open_session(PlayerConfig(file=str(leader_only), urdf_file=str(pincer)))
    message = str(caught.value)
    assert "joint 'j2' below its lower limit -3 at t = 0.4 s (value -3.26)" in message, message
    assert "'j2' mimics 'j1' (-8 × j1 + 0.1)" in message, message
    within = _motion(tmp_path / "within.msgpack", ("j1",), [np.linspace(0.1, 0.3, 11)], 1.0)
    session = open_session(PlayerConfig(file=str(within), urdf_file=str(pincer)))
    assert "j2" in session.limits


#: A slide (prismatic, 0 to 0.2 m, 0.5 m/s) and a hinge (revolute, ±1 rad, 2 rad/s).
SLIDE_AND_HINGE = """<robot name="slider">
  <link name="base"/><link name="carriage"/><link name="arm"/>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="carriage"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.2" velocity="0.5" effort="40"/></joint>
  <joint name="hinge" type="revolute"><parent link="carriage"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="2" effort="3"/></joint>
</robot>
"""


def test_check_names_each_limit_and_gives_its_values_in_the_joints_units(tmp_path: Path) -> None:
    urdf = tmp_path / "slider.urdf"
    urdf.write_text(SLIDE_AND_HINGE)
    columns = [np.linspace(0.0, 0.3, 11), np.linspace(0.0, 1.5, 11)]  # 0.3 m and 1.5 rad in 0.5 s
    motion = _motion(tmp_path / "both.csv", ("slide", "hinge"), columns, 0.5)
    code, out, err, _ = cli("check", motion, "--urdf", urdf)
    assert code == 3, out + err
    findings = [line for line in out.splitlines() if line.startswith("error: joint")]
    assert any(line.startswith("error: joint slide beyond its position limit 0.2 m at") for line in findings), out
    assert any("joint slide beyond its velocity limit 0.5 m/s at" in line and "m/s)" in line for line in findings), out
    assert any(line.startswith("error: joint hinge beyond its position limit 1 rad at") for line in findings), out
    assert any("joint hinge beyond its velocity limit 2 rad/s at" in line and "rad/s)" in line for line in findings), (
        out
    )
    assert all(" rad" in line or " m" in line for line in findings), out
    code, out, err, _ = cli("check", motion, "--urdf", urdf, "--json")
    units = {(f["joint"], f["kind"]): f["worst"]["unit"] for f in json.loads(out)["findings"]}
    assert units[("slide", "velocity_limit")] == "m/s" and units[("hinge", "velocity_limit")] == "rad/s", units
