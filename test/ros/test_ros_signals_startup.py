"""SIGTERM ends the player within 2 s while it is still starting, in each of its start-up phases.

The player reads its file, reads its robot model, checks every frame of the motion for
collisions and waits for its controller's action server before it sends anything; each
can take many seconds with a big file, a big model or a long motion. SIGTERM in any of
them ends the process within 2 s with no traceback or error output, as it does while
playing (test_ros_signals.py). The status is 0, as for a node stopped while playing; a
signal that comes while a parser in native code is reading a file ends the process by
the signal's default action at once (core.inputs.interruptible), status -SIGTERM.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import numpy as np
import pytest
from support.rosutil import Player, requires_ros, ros_session

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.core.examples import biped_urdf

pytestmark = [requires_ros, pytest.mark.ros]
BAD = ("Traceback", "[ERROR]", "RCLError", "error:")
#: Seconds a start-up phase is waited for (a loaded machine is slow); not the budget under test.
PHASE = 120.0


def _stop_within_two_seconds(player: Player, statuses: tuple[int, ...] = (0, -signal.SIGTERM)) -> None:
    assert player.proc.poll() is None, f"the player ended before the signal:\n{player.output()}"
    player.proc.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    status = player.wait(30)
    took = time.monotonic() - sent
    out = player.output()
    assert took < 2.0, f"{took:.2f} s to exit after SIGTERM\n{out}"
    assert status in statuses, f"exit {status}\n{out}"
    for bad in BAD:
        assert bad not in out, f"{bad!r} in\n{out}"


def _wait_for(player: Player, text: str) -> None:
    deadline = time.monotonic() + PHASE
    while text not in player.output():
        assert player.proc.poll() is None, player.output()
        assert time.monotonic() < deadline, f"no {text!r} after {PHASE:g} s:\n{player.output()}"
        time.sleep(0.02)


def _long_motion(path: Path, joints: tuple[str, ...], frames: int, root: bool = False) -> Path:
    times = np.arange(frames) / 500.0
    position = np.tile(0.01 * np.sin(times)[:, None], (1, len(joints)))
    extra = {}
    if root:
        extra = {
            "root_position": np.tile([0.0, 0.0, 1.1], (frames, 1)),
            "root_orientation": np.tile([0, 0, 0, 1.0], (frames, 1)),
        }
    write(MotionFile.single(Motion(times=times, joint_names=joints, position=position, **extra)), path)
    return path


@pytest.mark.parametrize("after", [0.0, 1.5])
def test_sigterm_while_a_big_file_is_made_ready(tmp_path: Path, after: float) -> None:
    """A file of 2 million frames: once read, its motion is resolved, checked, sampled and planned for seconds."""
    path = _long_motion(tmp_path / "big.msgpack", tuple(f"j{k}" for k in range(12)), 2_000_000)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={path}", "wait_for_subscribers:=0", "exit_on_end:=false")
        _wait_for(player, "loaded")
        time.sleep(after)
        _stop_within_two_seconds(player, (0,))


def test_sigterm_while_the_robot_model_is_loaded(tmp_path: Path) -> None:
    """A robot model of 20,000 links in a chain."""
    links = 20_000
    parts = ['<robot name="snake">', '<link name="l0"/>']
    for k in range(1, links):
        parts.append(
            f'<link name="l{k}"/><joint name="j{k}" type="revolute"><parent link="l{k - 1}"/><child link="l{k}"/>'
            f'<origin xyz="0 0 0.01"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        )
    urdf = tmp_path / "snake.urdf"
    urdf.write_text("".join(parts) + "</robot>")
    path = _long_motion(tmp_path / "m.msgpack", ("j1", "j2"), 100)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={path}", f"urdf_file:={urdf}", "mode:=stream", "wait_for_subscribers:=0")
        _wait_for(player, "loaded")
        time.sleep(0.5)
        _stop_within_two_seconds(player)


def test_sigterm_during_the_collision_check_of_a_long_motion(tmp_path: Path) -> None:
    """Talos (52 collision shapes, 1147 link pairs) over 60,000 frames: a check of a minute or more."""
    robots = pytest.importorskip("support.robots")
    try:
        urdf = robots.robot_file(*robots.TALOS_URDF)
        share = robots.share()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    from motion_formats_ros.core.kinematics import load_robot_model

    joints = tuple(load_robot_model(urdf).actuated_joints)
    path = _long_motion(tmp_path / "long.msgpack", joints, 60_000, root=True)
    with ros_session(tmp_path) as ros:
        ros.env["AMENT_PREFIX_PATH"] = f"{ros.env.get('AMENT_PREFIX_PATH', '')}:{share.parent}"
        player = ros.start_player(
            f"file:={path}",
            f"urdf_file:={urdf}",
            "mode:=stream",
            "wait_for_subscribers:=0",
            "ignore_limits:=true",
            "ignore_collisions:=true",
        )
        _wait_for(player, "loaded")
        time.sleep(8.0)  # the model's meshes are read: the check runs
        assert "collision check:" not in player.output(), "the check is over already"
        _stop_within_two_seconds(player, (0,))


def test_sigterm_while_waiting_for_the_action_server(tmp_path: Path) -> None:
    path = _long_motion(tmp_path / "m.msgpack", ("a", "b"), 500)
    urdf = tmp_path / "robot.urdf"
    urdf.write_text(biped_urdf())
    with ros_session(tmp_path) as ros:
        player = ros.start_player(
            f"file:={path}", "mode:=trajectory", "controller:=/nobody", "wait_for_server:=60.0", "ignore_limits:=true"
        )
        _wait_for(player, "loaded")
        time.sleep(1.0)
        _stop_within_two_seconds(player, (0,))
