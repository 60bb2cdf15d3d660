"""The robot model of a playback session: one loader (xacro included), mimic joints following their leader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.robots import pincer_urdf

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.playback.config import PlayerConfig, PlayerError
from motion_formats_ros.playback.emit import Emitter
from motion_formats_ros.playback.session import open_session


def _motion(tmp_path: Path, j1: float, j2: float = 0.5) -> str:
    """j1 from 0.1 to ``j1`` over a second; the file's own j2 column constant at ``j2``."""
    times = np.linspace(0.0, 1.0, 11)
    position = np.column_stack([np.linspace(0.1, j1, 11), np.full(11, j2)])
    path = tmp_path / "pincer.msgpack"
    write(
        MotionFile({"target": Motion(times=times, joint_names=("j1", "j2"), position=position)}), path, overwrite=True
    )
    return str(path)


def test_a_mimic_joint_beyond_its_own_limit_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    urdf = tmp_path / "pincer.urdf"
    urdf.write_text(pincer_urdf("j1"))
    with pytest.raises(PlayerError) as caught:
        open_session(PlayerConfig(file=_motion(tmp_path, 0.9), urdf_file=str(urdf)))  # at its end, j2 = -7.1
    message = str(caught.value)
    assert "\n" not in message
    assert "joint 'j2' below its lower limit -3 at t = 0.4 s (value -3.26)" in message, message
    assert "'j2' mimics 'j1' (-8 × j1 + 0.1)" in message, message


def test_a_mimic_joint_is_sent_as_its_leader_gives_it_in_joint_states_and_tf(tmp_path: Path) -> None:
    notes: list[tuple[str, str]] = []
    config = PlayerConfig(file=_motion(tmp_path, 0.3), robot_description=pincer_urdf("j1"))
    session = open_session(config, lambda *n: notes.append(n))
    m = session.motion
    assert m.position is not None
    np.testing.assert_allclose(m.position[:, 1], -8 * m.position[:, 0] + 0.1)  # never the file's 0.5
    assert any("mimic joints sent as their leader gives them" in text for _, text in notes)
    assert "j2" in session.limits  # checked against its own limits
    emitter = Emitter(session, session.link_frames())
    session.begin()
    tick = emitter.at(0.55)
    assert tick.position is not None
    j1, j2 = tick.position
    assert j2 == pytest.approx(-8 * j1 + 0.1)
    # /tf's l1 → l2 rotation is the JointState's j2 (about z: qz = sin(j2 / 2)).
    (l2,) = [r for p, c, _, r in tick.transforms.rows() if (p, c) == ("l1", "l2")]
    assert float(l2[2]) == pytest.approx(np.sin(j2 / 2)) and float(l2[3]) == pytest.approx(np.cos(j2 / 2))


def test_a_mimic_of_a_missing_joint_is_refused(tmp_path: Path) -> None:
    config = PlayerConfig(file=_motion(tmp_path, 0.1), robot_description=pincer_urdf("j9"))
    with pytest.raises(PlayerError, match=r"joint 'j2' mimics joint 'j9', which is not defined"):
        open_session(config)


XACRO = """<?xml version="1.0"?>
<robot name="pincer" xmlns:xacro="http://www.ros.org/wiki/xacro">
  <xacro:property name="lim" value="1"/>
  <link name="base"/><link name="l1"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-${lim}" upper="${lim}" velocity="10" effort="1"/></joint>
</robot>
"""


def test_a_urdf_xacro_is_expanded_by_the_one_robot_model_loader(tmp_path: Path) -> None:
    pytest.importorskip("xacro")
    path = tmp_path / "pincer.urdf.xacro"
    path.write_text(XACRO)
    session = open_session(PlayerConfig(file=_motion(tmp_path, 0.5), urdf_file=str(path)))
    assert session.robot is not None and "${lim}" not in session.robot.urdf and 'lower="-1"' in session.robot.urdf
    assert session.limits["j1"].lower == -1.0 and session.limits["j1"].upper == 1.0
    with pytest.raises(PlayerError, match=r"joint 'j1' above its upper limit 1"):
        open_session(PlayerConfig(file=_motion(tmp_path, 1.5), urdf_file=str(path)))
