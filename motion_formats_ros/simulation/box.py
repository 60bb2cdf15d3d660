"""The robot in the box: a simulated robot stepped live behind a joint_trajectory_controller, without ROS.

:class:`SimulatedRobot` is the physics of ``simulate`` (:func:`.builder.build`, the same
gains, servos and floor) started in the model's zero pose, a floating base resting on
the floor, and stepped a few steps at a time. :class:`BoxController` is the controller
in front of it: trajectories checked, sampled and replaced as joint_trajectory_controller
does (:mod:`.jtc`), one goal at a time followed to its result (tolerances, goal time,
cancel, a newer goal), and a fall ending the running goal. The node
(:mod:`..ros.sim`) only carries messages to and from it and steps it in real time.
"""

from __future__ import annotations

import dataclasses
import math
import os
import threading
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ..core.kinematics import RobotModel
from .builder import Gains, build, mujoco_module, servo_control
from .gains import default_gains, read_gains
from .jtc import Request, Tolerances, Trajectory, goal_violation, hold, path_violation, refusal
from .physics import FallWatch, add_sensors, disturbance, mujoco_warnings, planned_contacts
from .preview import DEFAULT_TIMESTEP, choose_base, servo_joints, start_height

FloatArray = npt.NDArray[np.float64]

#: FollowJointTrajectory result codes (control_msgs), by name.
SUCCESSFUL = 0
INVALID_GOAL = -1
PATH_TOLERANCE_VIOLATED = -4
GOAL_TOLERANCE_VIOLATED = -5


class SimulatedRobot:
    """A robot model in MuJoCo with a PD servo per joint, stepped on demand.

    Args:
        robot: The robot model.
        gains: Per-joint gains or a gains file (ros2_control's layout); ``kp`` / ``kd`` for all
            others, else ``simulate``'s default.
        floating: Float or fix the base (None: ``simulate``'s rule).
    """

    def __init__(
        self,
        robot: RobotModel,
        *,
        gains: Mapping[str, Gains] | str | os.PathLike[str] | None = None,
        kp: float | None = None,
        kd: float | None = None,
        floating: bool | None = None,
        srdf: str | os.PathLike[str] | None = None,
        package_paths: Iterable[str | os.PathLike[str]] = (),
        timestep: float = DEFAULT_TIMESTEP,
    ) -> None:
        self.mj = mj = mujoco_module()
        self.notes: list[str] = []
        self.joints = servo_joints(robot)
        self.floating, why = choose_base(robot, None, floating)
        self.notes.append(why)
        per_joint = read_gains(gains, self.joints) if gains is not None and not isinstance(gains, Mapping) else {}
        if isinstance(gains, Mapping):
            per_joint = dict(gains)
        self.built = build(
            robot,
            joints=self.joints,
            gains={n: per_joint.get(n, Gains(0.0, 0.0)) for n in self.joints},
            floating=self.floating,
            srdf=srdf,
            package_paths=package_paths,
            timestep=timestep,
        )
        self.built.set_gains(default_gains(mj, self.built, kp, kd, per_joint, self.notes))
        self.notes += self.built.notes
        contact_links, self.model = add_sensors(mj, self.built)
        self.data = mj.MjData(self.model)
        qpos = np.array(self.model.qpos0, dtype=np.float64)
        self.fall_watch: FallWatch | None = None
        if self.floating:
            qpos[2] = start_height(mj, self.built, qpos)
            allowed = planned_contacts(mj, self.model, qpos[None, :], contact_links)
            upright = np.array([qpos[4], qpos[5], qpos[6], qpos[3]])
            self.fall_watch = FallWatch(contact_links, allowed, len(self.joints), upright)
        self.data.qpos[:] = qpos
        mj.mj_forward(self.model, self.data)
        self.timestep = float(self.model.opt.timestep)
        self.steps = 0
        #: Why the physics stopped (MuJoCo warned: a divergence, its controls set to 0 …); None: it runs.
        self.fault: str | None = None

    @property
    def time(self) -> float:
        """Simulated seconds since the start."""
        return self.steps * self.timestep

    def step(self, targets: FloatArray, velocities: FloatArray) -> None:
        """One physics step per row of servo targets (K, J) and target velocities; none once
        MuJoCo has warned (:attr:`fault` says what: the physics cannot go on from there)."""
        if self.fault is not None:
            return
        controls = servo_control(targets, velocities, self.built.gains)
        with mujoco_warnings(self.mj):  # said once, in the package's words, not printed raw
            for row in controls:
                self.data.ctrl[:] = row
                self.mj.mj_step(self.model, self.data)
                said = disturbance(self.mj, self.model, self.data)
                if said is not None:
                    self.fault = f"the simulation cannot go on at t = {self.time:.3f} s (simulated time): {said[0]}"
                    return
                self.steps += 1

    def position(self) -> FloatArray:
        return np.array(self.data.qpos[self.built.qpos_index])

    def velocity(self) -> FloatArray:
        return np.array(self.data.qvel[self.built.qvel_index])

    def effort(self) -> FloatArray:
        return np.array(self.data.actuator_force)

    def root_pose(self) -> tuple[FloatArray, FloatArray] | None:
        """The floating base's position and orientation (x, y, z, w) in the world (None: fixed base)."""
        if not self.floating:
            return None
        q = np.asarray(self.data.qpos)
        return q[:3].copy(), np.array([q[4], q[5], q[6], q[3]])

    def fall_cause(self) -> str | None:
        """Why the robot has fallen as it is now (None: standing, or a fixed base)."""
        if self.fall_watch is None:
            return None
        return self.fall_watch.cause(np.asarray(self.data.qpos), np.asarray(self.data.sensordata))


@dataclasses.dataclass
class GoalResult:
    """How a goal ended: ``status`` succeeded / aborted / canceled, a FollowJointTrajectory code, the words."""

    status: str
    code: int
    message: str = ""


class Goal:
    """A goal the controller follows; ``done`` is set when ``result`` is."""

    def __init__(self, tolerances: Tolerances) -> None:
        self.tolerances = tolerances
        self.result: GoalResult | None = None
        self.done = threading.Event()

    def finish(self, status: str, code: int, message: str = "") -> None:
        if self.result is None:
            self.result = GoalResult(status, code, message)
            self.done.set()


@dataclasses.dataclass
class Snapshot:
    """The controller's state after a step: time, desired and actual positions and velocities, effort."""

    time: float
    desired: FloatArray
    desired_velocity: FloatArray
    position: FloatArray
    velocity: FloatArray
    effort: FloatArray


class BoxController:
    """joint_trajectory_controller in front of a :class:`SimulatedRobot` (thread-safe).

    Args:
        robot: The robot it drives (all of its servo joints).
        defaults: The controller's tolerances (a goal's override them).
        allow_partial: Take trajectories that name only some joints (the rest hold).
    """

    def __init__(self, robot: SimulatedRobot, defaults: Tolerances, allow_partial: bool = False) -> None:
        self.robot = robot
        self.joints = robot.joints
        self.defaults = defaults
        self.allow_partial = allow_partial
        self._lock = threading.Lock()
        self.trajectory = hold(self.joints, 0.0, robot.position())
        self.goal: Goal | None = None
        self._first_sample = False
        self.fell_at: float | None = None
        self.fall_cause: str | None = None
        zero = np.zeros(len(self.joints))
        self.snapshot = Snapshot(0.0, robot.position(), zero, robot.position(), zero, zero)

    @property
    def time(self) -> float:
        return self.robot.time

    def fall_message(self) -> str:
        return f"the robot fell at t = {self.fell_at:.3f} s (simulated time): {self.fall_cause}"

    # ----------------------------------------------------------------- trajectories in
    def check(self, request: Request) -> str | None:
        """Why the trajectory is refused (None: taken), as joint_trajectory_controller decides."""
        return refusal(request, self.joints, self.time, self.allow_partial)

    def goal_tolerances(
        self, path: Sequence[tuple[str, float, float]], goal: Sequence[tuple[str, float, float]], goal_time: float
    ) -> Tolerances | str:
        """The defaults with a goal's tolerances, or why the goal's tolerances are refused."""
        return self.defaults.overridden(self.joints, path, goal, goal_time)

    def replace(self, request: Request, goal: Goal | None = None) -> Goal | None:
        """Run ``request`` (already checked) from the robot's current state; with ``goal`` it is
        followed to its result, and the goal it replaces ends as canceled. Returns the replaced goal."""
        with self._lock:
            replaced = self.goal if goal is not None else None
            if replaced is not None:
                replaced.finish("canceled", INVALID_GOAL, "Current goal cancelled due to new incoming action.")
                self.goal = None
            self.trajectory = Trajectory(request, self.joints, self.time, self.robot.position(), self.robot.velocity())
            self._first_sample = True
            if goal is not None:
                if self.robot.fault is not None:
                    goal.finish("aborted", PATH_TOLERANCE_VIOLATED, self.robot.fault)
                elif self.fell_at is not None:
                    goal.finish("aborted", PATH_TOLERANCE_VIOLATED, self.fall_message())
                else:
                    self.goal = goal
            return replaced

    def cancel(self, goal: Goal) -> None:
        """Cancel ``goal`` if it runs: the robot holds its current position."""
        with self._lock:
            if self.goal is goal:
                self._hold()
                self.goal = None
            goal.finish("canceled", SUCCESSFUL)

    def _hold(self) -> None:
        self.trajectory = hold(self.joints, self.time, self.robot.position())
        self._first_sample = False

    # ----------------------------------------------------------------- stepping
    def advance(self, steps: int) -> Snapshot:
        """Simulate ``steps`` physics steps, the servos following the trajectory; then check the goal."""
        with self._lock:
            robot = self.robot
            if steps > 0:
                at = robot.time + robot.timestep * np.arange(1, steps + 1, dtype=np.float64)
                targets, velocities = self.trajectory.sample(at)
                robot.step(targets, velocities)
            now = robot.time
            desired, desired_velocity = self.trajectory.sample(np.array([now]))
            position, velocity = robot.position(), robot.velocity()
            self.snapshot = Snapshot(now, desired[0], desired_velocity[0], position, velocity, robot.effort())
            if robot.fault is not None and self.goal is not None:
                self.goal.finish("aborted", PATH_TOLERANCE_VIOLATED, robot.fault)
                self.goal = None
            if self.fell_at is None:
                cause = robot.fall_cause()
                if cause is not None:
                    self.fell_at, self.fall_cause = now, cause
                    self._hold()
                    if self.goal is not None:
                        self.goal.finish("aborted", PATH_TOLERANCE_VIOLATED, self.fall_message())
                        self.goal = None
            if self.goal is not None:
                self._judge(self.goal, now, desired[0] - position, desired_velocity[0] - velocity, velocity)
            self._first_sample = False
            return self.snapshot

    def _judge(self, goal: Goal, now: float, error: FloatArray, rate_error: FloatArray, velocity: FloatArray) -> None:
        """Path tolerance while moving (and on the first sample), goal tolerance after the end."""
        tol = goal.tolerances
        moving = self.trajectory.before_last_point(now)
        if moving or self._first_sample:
            broken = path_violation(self.joints, tol, error, rate_error)
            if broken is not None:
                self._hold()
                self.goal = None
                goal.finish("aborted", PATH_TOLERANCE_VIOLATED, f"Aborted due to path tolerance violation: {broken}")
                return
        if moving:
            return
        outside = goal_violation(self.joints, tol, error, velocity)
        if outside is None:
            self.goal = None
            goal.finish("succeeded", SUCCESSFUL)
            return
        late = now - self.trajectory.end
        if tol.goal_time > 0 and late > tol.goal_time:
            self._hold()
            self.goal = None
            goal.finish(
                "aborted",
                GOAL_TOLERANCE_VIOLATED,
                f"Aborted due to goal tolerance violation: {outside} {late:.3f} s after the end "
                f"(goal_time_tolerance {tol.goal_time:g} s)",
            )


class Pace:
    """How many physics steps are due at each wall-clock instant, to keep simulated time on real time.

    At most ``max_behind`` seconds are caught up at once: a process that was stopped or
    starved lets simulated time fall behind rather than jump.
    """

    def __init__(self, timestep: float, start: float, max_behind: float = 0.1) -> None:
        self.timestep = timestep
        self.origin = start
        self.steps = 0
        self.max_steps = max(1, math.ceil(max_behind / timestep))

    def due(self, now: float) -> int:
        wanted = math.floor((now - self.origin) / self.timestep + 1e-9)
        count = wanted - self.steps
        if count > self.max_steps:  # behind: let go of the time that cannot be caught up
            self.origin += (count - self.max_steps) * self.timestep
            count = self.max_steps
        count = max(count, 0)
        self.steps += count
        return count


__all__ = [
    "GOAL_TOLERANCE_VIOLATED",
    "INVALID_GOAL",
    "PATH_TOLERANCE_VIOLATED",
    "SUCCESSFUL",
    "BoxController",
    "Goal",
    "GoalResult",
    "Pace",
    "SimulatedRobot",
    "Snapshot",
]
