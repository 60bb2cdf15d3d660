"""Gains at the ends of their range, and MuJoCo's warnings: a run MuJoCo disturbed is never a verdict.

MuJoCo sets every control of a step to 0 when one is beyond 1e10 or not finite, and its
``rollout`` stops at any warning and repeats the last state to the end of the call: a run
that met one would look frozen and "stood". The servo's control stays of the size of the
motion's values whatever the gains, a motion whose values are beyond it is refused, and any
warning MuJoCo gives ends the run with one line naming the motion and the model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.robots import TWO_LINK_ARM as ARM

from motion_formats_ros import write
from motion_formats_ros.core.errors import MotionValueError, ReadError
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Motion, MotionFile

mujoco = pytest.importorskip("mujoco")

from motion_formats_ros.simulation import physics, simulate  # noqa: E402
from motion_formats_ros.simulation.box import BoxController, Goal, SimulatedRobot  # noqa: E402
from motion_formats_ros.simulation.builder import Gains, compiled, servo_control  # noqa: E402
from motion_formats_ros.simulation.jtc import Point, Request, Tolerances  # noqa: E402

INERTIA = 'ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"'


def _arm(folder: Path, mass: str = "1") -> Path:
    """A link on a vertical revolute joint half a metre above the floor."""
    path = folder / "arm.urdf"
    path.write_text(
        f'<robot name="arm">\n<link name="world"/>\n<link name="base">\n<inertial><mass value="{mass}"/>'
        f'<inertia {INERTIA}/></inertial></link>\n<joint name="j" type="revolute"><parent link="world"/>'
        '<child link="base"/><origin xyz="0 0 0.5"/><axis xyz="0 0 1"/>'
        '<limit lower="-3" upper="3" effort="5" velocity="1"/></joint></robot>\n',
        encoding="utf-8",
    )
    return path


def _turning(seconds: float = 2.0, rate: float = 1.0) -> Motion:
    times = np.linspace(0, seconds, 201)
    return Motion(times=times, joint_names=("j",), position=rate * times[:, None])


def test_a_servo_s_control_stays_the_size_of_the_motion_whatever_the_gains() -> None:
    targets = np.array([[0.5], [0.6]])
    velocities = np.array([[2.0], [-3.0]])
    for p, d in ((1e-10, 5.0), (5e-324, 0.3), (8000.0, 100.0), (0.0, 2.0), (1e9, 1e-300), (0.0, 0.0)):
        u = servo_control(targets, velocities, [Gains(p, d)])
        assert np.all(np.abs(u) <= np.abs(targets) + np.abs(velocities)), (p, d, u)
        scale = max(p, d) if max(p, d) > 0 else 1.0  # what the actuator multiplies the control by
        np.testing.assert_allclose(scale * u, p * targets + d * velocities, rtol=1e-12, atol=1e-300)


def test_a_servo_with_almost_no_stiffness_moves_as_a_damper_does(tmp_path: Path) -> None:
    """kp 1e-10 with kd 1: a control q* + (kd / kp) q̇* would be 1e10 × q̇*, beyond what MuJoCo takes
    (it zeroed every control, and the joint stood still); the servo is a damper following q̇*."""
    urdf = _arm(tmp_path)
    stiff_less = simulate(_turning(), urdf, kp=1e-10, kd=1.0)
    damper = simulate(_turning(), urdf, kp=0.0, kd=1.0)
    moved = stiff_less.position[-1, 0] - stiff_less.position[0, 0]
    assert moved > 1.0, stiff_less.position[::20, 0]  # the target turns 2 rad; the damper lags, it does not stop
    np.testing.assert_allclose(stiff_less.position, damper.position, atol=1e-6)


def test_a_tiny_p_gain_on_the_command_line_says_what_it_derived(tmp_path: Path) -> None:
    source = tmp_path / "turn.csv"
    write(MotionFile(groups={"g": _turning()}), source)
    status, text, err, _ = cli("simulate", source, "--urdf", _arm(tmp_path), "--kp", "1e-10", blocked=())
    assert status == 0 and "Traceback" not in err and "overflow" not in err, err
    assert "note: 1 joints have --kp 1e-10 and no D gain given: each one's D gain is the default servo's" in text
    assert "have no gains given" not in text, text


def test_a_motion_beyond_what_a_servo_takes_is_one_line_naming_the_joint_and_time(tmp_path: Path) -> None:
    with pytest.raises(MotionValueError) as caught:
        simulate(_turning(rate=2e10), _arm(tmp_path), kp=10, kd=1, source="fast.csv")
    message = str(caught.value)
    assert message.startswith(f"fast.csv on {tmp_path / 'arm.urdf'}: joint j's target at t = "), message
    assert "beyond the ±1e+10 MuJoCo takes in a servo's control" in message, message


def test_any_mujoco_warning_ends_the_run_naming_the_motion_and_the_model(tmp_path: Path) -> None:
    """A control MuJoCo zeroes: the loop would go on with a state ``rollout`` froze."""
    done = simulate(_turning(0.1), _arm(tmp_path), kp=10, kd=1)  # a model and a start to run again
    built = done.built
    model = compiled(built.spec)  # with the sensors the simulation added
    sensors = [str(model.sensor(i).name) for i in range(model.nsensor)]
    contact_links = [name.removeprefix("floor/") for name in sensors if name.startswith("floor/")]
    steps = 100
    control = np.zeros((steps, 1))
    control[50:] = 2e10  # from the 51st step on (0.05 s in)
    planned = np.zeros((steps + 1, 1))
    qpos, qvel = np.array(model.qpos0), np.zeros(model.nv)
    with pytest.raises(MotionValueError) as caught:
        physics.run(mujoco, built, model, contact_links, qpos, qvel, control, planned, None, set(), 10, where="m on r")
    message = str(caught.value)
    assert message.startswith("m on r: the simulation cannot go on 0.05 s into the run: the servo control of joint j ")
    assert "CTRL" not in message and "ACTUATOR" not in message


def test_a_mass_below_what_mujoco_takes_names_the_model_link_and_line(tmp_path: Path) -> None:
    for mass in ("1e-300", "5e-324"):
        urdf = _arm(tmp_path, mass=mass)
        with pytest.raises(ReadError) as caught:
            simulate(_turning(0.1), urdf, kp=10, kd=1)
        message = str(caught.value)
        assert message.startswith(f"{urdf}:4: link 'base': cannot simulate a mass of "), message
        assert "state its real mass, or 0 for a massless link" in message and "mjMINVAL" not in message


def test_the_simulated_robot_stops_and_says_so_when_mujoco_warns() -> None:
    """The node's robot: a control MuJoCo zeroes ends the goal with the reason; the physics stops there."""
    robot = SimulatedRobot(RobotModel.from_urdf(ARM, "arm.urdf"), kp=200.0, kd=5.0)
    box = BoxController(robot, Tolerances.defaults(2))
    goal = Goal(box.defaults)
    box.replace(Request(["a", "b"], [Point(1.0, [0.5, 0.0], [0.0, 0.0])], 0.0), goal)
    box.advance(10)
    robot.step(np.array([[2e10, 0.0]]), np.zeros((1, 2)))  # a target no servo control holds
    box.advance(10)
    assert goal.result is not None and goal.result.status == "aborted", goal.result
    assert goal.result.message.startswith("the simulation cannot go on at t = "), goal.result.message
    assert "the servo control of joint a became huge or not finite" in goal.result.message
    stopped = robot.time
    box.advance(10)
    assert robot.time == stopped and robot.fault == goal.result.message


def test_a_servo_with_almost_no_stiffness_on_the_simulated_robot_tracks_as_a_damper() -> None:
    robot = SimulatedRobot(RobotModel.from_urdf(ARM, "arm.urdf"), kp=1e-10, kd=5.0)
    box = BoxController(robot, Tolerances.defaults(2))
    box.replace(Request(["a", "b"], [Point(1.0, [0.0, 0.5], [0.0, 0.0])], 0.0))  # b turns about the vertical
    box.advance(1000)
    assert robot.fault is None
    assert robot.position()[1] > 0.4, robot.position()  # a control of 1e10 × q̇* was zeroed: it did not move
