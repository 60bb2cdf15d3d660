"""The robot in the box without ROS: joint_trajectory_controller's checks and interpolation, goals, falls."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from support.jtcsim import Controller
from support.robots import TWO_LINK_ARM as ARM

from motion_formats_ros.core.examples import biped_urdf
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.simulation.jtc import Point, Request, Tolerances, Trajectory, refusal

JOINTS = ("a", "b")


def _req(points: list[Point], names: tuple[str, ...] = JOINTS, start: float = 0.0) -> Request:
    return Request(list(names), points, start)


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        (_req([Point(1.0, [0.0, 0.0])], names=()), "empty joint names"),
        (_req([Point(1.0, [0.0])], names=("a",)), "do not match the controller's 2 joints"),
        (_req([Point(1.0, [0.0, 0.0])], names=("a", "a")), "joint a is given twice"),
        (_req([Point(1.0, [0.0, 0.0])], names=("a", "c")), "incoming joint c"),
        (_req([]), "empty trajectory"),
        (_req([Point(1.0, [0.0, 0.0]), Point(1.0, [0.1, 0.1])]), "not strictly increasing"),
        (_req([Point(1.0, [0.0])]), "joint_names (2) and positions (1) at point 0"),
        (_req([Point(1.0, [0.0, 0.0], [0.0])]), "velocities (1)"),
        (_req([Point(1.0, [0.0, math.nan])]), "non-finite"),
        (_req([Point(1.0, [0.0, 0.0])], start=5.0), "ends in the past"),
    ],
)
def test_trajectories_are_refused_as_the_controller_refuses_them(request_: Request, words: str) -> None:
    reason = refusal(request_, JOINTS, now=10.0)
    assert reason is not None and words in reason


def test_a_partial_trajectory_is_taken_when_allowed_and_the_rest_hold() -> None:
    request = _req([Point(1.0, [0.5])], names=("b",))
    assert refusal(request, JOINTS, now=0.0, allow_partial=True) is None
    traj = Trajectory(request, JOINTS, 0.0, np.array([0.3, 0.0]), np.zeros(2))
    pos, _ = traj.sample(np.array([0.5, 1.0, 2.0]))
    np.testing.assert_allclose(pos[:, 0], 0.3)
    np.testing.assert_allclose(pos[:, 1], [0.25, 0.5, 0.5])


@pytest.mark.parametrize("fields", ["linear", "cubic", "quintic"])
def test_interpolation_by_the_fields_matches_the_reference_controller(fields: str) -> None:
    t = np.array([0.5, 1.0, 1.7, 2.0])
    q = np.column_stack([np.sin(t), np.cos(2 * t)])
    v = np.column_stack([np.cos(t), -2 * np.sin(2 * t)])
    a = np.column_stack([-np.sin(t), -4 * np.cos(2 * t)])
    points = [
        Point(
            float(t[i]),
            list(q[i]),
            list(v[i]) if fields != "linear" else [],
            list(a[i]) if fields == "quintic" else [],
        )
        for i in range(t.size)
    ]
    start = np.array([0.1, 0.2])
    mine = Trajectory(_req(points), JOINTS, 0.0, start, np.zeros(2))
    ref = Controller(JOINTS, start)
    ref.receive(
        0,
        JOINTS,
        [(p.time, np.array(p.positions), np.array(p.velocities) if p.velocities else None,
          np.array(p.accelerations) if p.accelerations else None) for p in points],
        0.0,
    )  # fmt: skip
    at = np.linspace(0.0, 2.5, 251)
    np.testing.assert_allclose(mine.sample(at)[0], ref.positions(at), atol=1e-9)


def test_goal_tolerances_override_the_defaults() -> None:
    defaults = Tolerances.defaults(2, path=0.1, goal=0.05, goal_time=0.5)
    tol = defaults.overridden(JOINTS, [("a", 0.3, 0.0), ("b", -1.0, 0.0)], [("b", 0.0, 0.0)], 0.0)
    assert not isinstance(tol, str)
    np.testing.assert_allclose(tol.path, [0.3, 0.0])  # replaced, removed
    np.testing.assert_allclose(tol.goal, [0.05, 0.05])  # 0 keeps the default
    assert tol.goal_time == 0.5
    assert "joint c" in str(defaults.overridden(JOINTS, [("c", 0.1, 0.0)], [], 0.0))
    assert "-2" in str(defaults.overridden(JOINTS, [("a", -2.0, 0.0)], [], 0.0))


mujoco = pytest.importorskip("mujoco")

from motion_formats_ros.simulation.box import (  # noqa: E402
    GOAL_TOLERANCE_VIOLATED,
    PATH_TOLERANCE_VIOLATED,
    BoxController,
    Goal,
    Pace,
    SimulatedRobot,
)


def _arm(**tolerances: float) -> BoxController:
    robot = SimulatedRobot(RobotModel.from_urdf(ARM, "arm.urdf"), kp=200.0, kd=5.0)
    return BoxController(robot, Tolerances.defaults(2, **tolerances))


def _run(box: BoxController, goal: Goal, seconds: float) -> None:
    end = box.time + seconds
    while not goal.done.is_set() and box.time < end:
        box.advance(10)


def test_a_goal_is_tracked_to_success_and_cancel_holds_position() -> None:
    box = _arm()
    goal = Goal(box.defaults)
    box.replace(_req([Point(1.0, [0.5, -0.5], [0.0, 0.0])]), goal)
    _run(box, goal, 3.0)
    assert goal.result is not None and goal.result.status == "succeeded", goal.result
    np.testing.assert_allclose(box.robot.position(), [0.5, -0.5], atol=0.01)
    moving = Goal(box.defaults)
    box.replace(_req([Point(2.0, [-0.5, 0.5], [0.0, 0.0])]), moving)
    box.advance(700)
    box.cancel(moving)
    assert moving.result is not None and moving.result.status == "canceled"
    held = box.robot.position()
    box.advance(1000)
    np.testing.assert_allclose(box.robot.position(), held, atol=0.02)  # stays where it was, not at the target


def test_a_new_goal_replaces_the_running_one_from_the_current_state() -> None:
    box = _arm()
    first = Goal(box.defaults)
    box.replace(_req([Point(2.0, [1.0, 0.0])]), first)
    box.advance(1000)
    middle = box.robot.position()
    second = Goal(box.defaults)
    replaced = box.replace(_req([Point(1.0, [0.0, 0.0])]), second)
    assert replaced is first and first.result is not None and first.result.status == "canceled"
    assert "new incoming action" in first.result.message
    box.advance(1)
    assert abs(box.snapshot.desired[0] - middle[0]) < 0.01  # from where the robot was, no jump
    _run(box, second, 3.0)
    assert second.result is not None and second.result.status == "succeeded"


def test_path_and_goal_tolerances_abort() -> None:
    box = _arm(path=1e-4)
    goal = Goal(box.defaults)
    box.replace(_req([Point(0.3, [2.0, 0.0])]), goal)
    _run(box, goal, 2.0)
    assert goal.result is not None and goal.result.code == PATH_TOLERANCE_VIOLATED
    assert "path tolerance" in goal.result.message and "joint a" in goal.result.message
    box = _arm(goal=1e-3, goal_time=0.2)  # joint a sags under gravity more than that
    goal = Goal(box.defaults)
    box.replace(_req([Point(0.3, [1.0, 0.0])]), goal)
    _run(box, goal, 3.0)
    assert goal.result is not None and goal.result.code == GOAL_TOLERANCE_VIOLATED


def test_a_fall_aborts_the_goal_saying_when(tmp_path: Path) -> None:
    urdf = tmp_path / "biped.urdf"
    urdf.write_text(biped_urdf())
    robot = SimulatedRobot(RobotModel.from_urdf(biped_urdf(), str(urdf)), kp=30.0, kd=0.5)
    assert robot.floating and abs(robot.data.qpos[2] - 0.33) < 1e-6  # its soles on the floor
    box = BoxController(robot, Tolerances.defaults(len(robot.joints)))
    box.advance(3000)
    assert box.fell_at is None  # it stands in its zero pose
    lean = [0.0] * len(robot.joints)
    for side in (0, 6):
        lean[side + 2] = -1.2  # both hips forward: it folds over its feet
    goal = Goal(box.defaults)
    box.replace(_req([Point(0.3, lean)], names=robot.joints), goal)
    _run(box, goal, 3.0)
    assert goal.result is not None and goal.result.code == PATH_TOLERANCE_VIOLATED, goal.result
    assert goal.result.message.startswith("the robot fell at t = ")
    assert box.fell_at is not None and 0.5 < box.fell_at < 3.5
    again = Goal(box.defaults)
    box.replace(_req([Point(1.0, [0.0] * 12)], names=robot.joints), again)
    assert again.result is not None and "fell" in again.result.message  # a fallen robot takes no goal


def test_the_pace_keeps_simulated_time_on_wall_time() -> None:
    pace = Pace(0.001, start=100.0, max_behind=0.05)
    assert pace.due(100.0104) == 10
    assert pace.due(100.0104) == 0
    assert pace.due(101.0) == 50  # far behind: no burst beyond max_behind
    assert pace.due(101.01) == 10
