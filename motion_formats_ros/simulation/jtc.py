"""joint_trajectory_controller's trajectory semantics, without ROS: what it accepts, what it commands, when a goal ends.

What ros2_control's joint_trajectory_controller (JTC) does with a trajectory, as
:class:`..ros.sim` offers it on the simulated robot:

- :func:`refusal` checks a trajectory as JTC does before taking it: joint names given,
  known and not repeated (all of the controller's joints unless partial goals are
  allowed), at least one point, ``time_from_start`` strictly increasing, ``positions``
  the size of ``joint_names`` at every point, ``velocities`` / ``accelerations`` /
  ``effort`` empty or that size, every value finite, a non-zero start stamp whose
  trajectory does not end in the past; the goal's tolerances name known joints;
- a :class:`Trajectory` is sampled as JTC samples it: from the robot's state when it
  starts to the first point, then between points by the fields both carry (positions
  only: linear, with velocities: cubic, with accelerations too: quintic), the last
  point held after the end; joints a partial trajectory leaves out hold their position;
- :class:`Tolerances` are the controller's defaults overridden by a goal's (a value > 0
  replaces the default, -1 removes the check, 0 keeps the default); the path tolerance
  is checked while the trajectory runs, the goal tolerance (and the stopped velocity
  tolerance) after its end, within ``goal_time`` seconds when that is not 0.

Times are seconds on the controller's clock.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclasses.dataclass(frozen=True)
class Point:
    """One trajectory point as received: ``time`` (s from the start) and its fields (empty: not given)."""

    time: float
    positions: Sequence[float]
    velocities: Sequence[float] = ()
    accelerations: Sequence[float] = ()
    effort: Sequence[float] = ()


@dataclasses.dataclass(frozen=True)
class Request:
    """A trajectory as received: joint names, start (0: when received) and points."""

    joint_names: Sequence[str]
    points: Sequence[Point]
    start: float = 0.0


def refusal(request: Request, joints: Sequence[str], now: float, allow_partial: bool = False) -> str | None:
    """Why JTC would refuse ``request`` (None: it takes it)."""
    names = list(request.joint_names)
    if not names:
        return "empty joint names on the incoming trajectory"
    if not allow_partial and len(names) != len(joints):
        return (
            f"the trajectory's {len(names)} joints do not match the controller's {len(joints)} joints "
            "(allow_partial_joints_goal is false)"
        )
    seen: set[str] = set()
    for name in names:
        if name in seen:
            return f"joint {name} is given twice"
        seen.add(name)
        if name not in joints:
            return f"incoming joint {name} is not one of the controller's joints"
    if not request.points:
        return "empty trajectory: no points"
    if request.start != 0.0:
        end = request.start + request.points[-1].time
        if end < now:
            return f"the trajectory starts at {request.start:.3f} s and ends in the past ({end:.3f} s < {now:.3f} s)"
    previous = -math.inf
    for i, p in enumerate(request.points):
        if i > 0 and p.time <= previous:
            return f"time between points {i - 1} and {i} is not strictly increasing ({previous:g} s, then {p.time:g} s)"
        if p.time < 0 or not math.isfinite(p.time):
            return f"point {i}: time_from_start {p.time:g} s"
        previous = p.time
        for field, values, required in (
            ("positions", p.positions, True),
            ("velocities", p.velocities, False),
            ("accelerations", p.accelerations, False),
            ("effort", p.effort, False),
        ):
            if (required or len(values)) and len(values) != len(names):
                return f"mismatch between joint_names ({len(names)}) and {field} ({len(values)}) at point {i}"
            if not all(math.isfinite(v) for v in values):
                return f"point {i}: a non-finite value in {field}"
    return None


@dataclasses.dataclass
class Tolerances:
    """Per-joint tolerances (0: not checked), in the controller's joint order.

    Attributes:
        path, goal: Position tolerances (rad or m) while moving and at the end.
        path_velocity, goal_velocity: Velocity tolerances while moving and at the end
            (the controller's stopped velocity tolerance is the default at the end).
        goal_time: Seconds after the end within which the goal tolerance must be met (0: no limit).
    """

    path: FloatArray
    goal: FloatArray
    path_velocity: FloatArray
    goal_velocity: FloatArray
    goal_time: float = 0.0

    @classmethod
    def defaults(
        cls, joints: int, path: float = 0.0, goal: float = 0.0, stopped_velocity: float = 0.01, goal_time: float = 0.0
    ) -> Tolerances:
        return cls(
            np.full(joints, path), np.full(joints, goal), np.zeros(joints), np.full(joints, stopped_velocity), goal_time
        )

    def overridden(
        self,
        joints: Sequence[str],
        path: Sequence[tuple[str, float, float]],
        goal: Sequence[tuple[str, float, float]],
        goal_time: float,
    ) -> Tolerances | str:
        """These tolerances with a goal's: (joint, position, velocity) entries; a message when one is invalid."""
        out = dataclasses.replace(
            self,
            path=self.path.copy(),
            goal=self.goal.copy(),
            path_velocity=self.path_velocity.copy(),
            goal_velocity=self.goal_velocity.copy(),
        )
        for kind, entries, position, velocity in (
            ("path", path, out.path, out.path_velocity),
            ("goal", goal, out.goal, out.goal_velocity),
        ):
            for name, p, v in entries:
                if name not in joints:
                    return f"the goal's {kind} tolerance names joint {name}, not one of the controller's joints"
                k = list(joints).index(name)
                for value, into in ((p, position), (v, velocity)):
                    if not math.isfinite(value) or (value < 0 and value != -1.0):
                        return f"the goal's {kind} tolerance of joint {name} is {value:g} (> 0, 0 = default, -1 = none)"
                    if value == -1.0:
                        into[k] = 0.0
                    elif value > 0:
                        into[k] = value
        if not math.isfinite(goal_time) or goal_time < 0:
            return f"the goal's goal_time_tolerance is {goal_time:g} s"
        if goal_time > 0:
            out.goal_time = goal_time
        return out


def _coefficients(span: float, a: tuple[FloatArray, ...], b: tuple[FloatArray, ...]) -> list[FloatArray]:
    """Polynomial coefficients (per joint) of a segment from ``a`` to ``b`` (positions, velocities?, accelerations?)."""
    p0, p1 = a[0], b[0]
    if span <= 0:
        return [p1]
    if len(a) < 2 or len(b) < 2:
        return [p0, (p1 - p0) / span]
    v0, v1 = a[1], b[1]
    if len(a) < 3 or len(b) < 3:
        return [p0, v0, (3 * (p1 - p0) - (2 * v0 + v1) * span) / span**2, (2 * (p0 - p1) + (v0 + v1) * span) / span**3]
    a0, a1 = a[2], b[2]
    return [
        p0,
        v0,
        0.5 * a0,
        (20 * (p1 - p0) - (8 * v1 + 12 * v0) * span - (3 * a0 - a1) * span**2) / (2 * span**3),
        (30 * (p0 - p1) + (14 * v1 + 16 * v0) * span + (3 * a0 - 2 * a1) * span**2) / (2 * span**4),
        (12 * (p1 - p0) - 6 * (v1 + v0) * span - (a0 - a1) * span**2) / (2 * span**5),
    ]


class Trajectory:
    """A trajectory the controller runs: sampled by the fields its points carry, in the controller's joint order.

    Args:
        request: A trajectory :func:`refusal` accepted.
        joints: The controller's joints.
        received: When it was received (the start when ``request.start`` is 0).
        position, velocity: The robot's state when it starts (joints it leaves out hold ``position``).
    """

    def __init__(
        self, request: Request, joints: Sequence[str], received: float, position: FloatArray, velocity: FloatArray
    ) -> None:
        names = list(request.joint_names)
        index = [names.index(j) if j in names else -1 for j in joints]
        held = np.array([i < 0 for i in index])
        take = np.array([max(i, 0) for i in index])
        self.start = request.start if request.start != 0.0 else received
        self.times = np.array([p.time for p in request.points], dtype=np.float64)
        self.points: list[tuple[FloatArray, ...]] = []
        for p in request.points:
            fields = [p.positions, p.velocities, p.accelerations]
            row: list[FloatArray] = []
            for k, values in enumerate(fields):
                if not len(values) or (k == 2 and len(row) < 2):
                    break
                v = np.asarray(values, dtype=np.float64)[take]
                v[held] = position[held] if k == 0 else 0.0
                row.append(v)
            self.points.append(tuple(row))
        self.before: tuple[FloatArray, ...] = (np.asarray(position, dtype=np.float64).copy(), velocity.copy())
        self.end = self.start + float(self.times[-1])
        self.received = received - self.start  # on the trajectory's own time axis

    def sample(self, at: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Commanded positions and velocities (len(at), J) at controller times ``at`` (increasing)."""
        rel = np.asarray(at, dtype=np.float64) - self.start
        joints = self.before[0].size
        pos = np.empty((rel.size, joints))
        vel = np.zeros((rel.size, joints))
        # Segment k runs from point k - 1 (the state before the trajectory for k = 0) to point k.
        seg = np.searchsorted(self.times, rel, side="right")
        for k in np.unique(seg):
            rows = seg == k
            if k >= len(self.points):  # after the end: the last point held
                pos[rows] = self.points[-1][0]
                continue
            b = self.points[k]
            if k == 0:  # from the state at receipt to the first point, by the fields that point carries
                a = (*self.before, np.zeros(joints))[: len(b)]
                t0 = self.received
            else:
                a, t0 = self.points[k - 1], float(self.times[k - 1])
            span = float(self.times[k]) - t0
            c = _coefficients(span, a, b)
            dt = (rel[rows] - t0)[:, None]
            pos[rows] = sum(ck * dt**n for n, ck in enumerate(c))
            vel[rows] = sum(n * ck * dt ** (n - 1) for n, ck in enumerate(c) if n > 0) if len(c) > 1 else 0.0
        return pos, vel

    def before_last_point(self, at: float) -> bool:
        return at < self.end


def hold(joints: Sequence[str], now: float, position: FloatArray) -> Trajectory:
    """The trajectory JTC sets to hold the current position (after a cancel, an abort, a fall)."""
    request = Request(list(joints), [Point(0.0, [float(v) for v in position])])
    return Trajectory(request, joints, now, position, np.zeros_like(position))


def path_violation(joints: Sequence[str], tol: Tolerances, error: FloatArray, velocity_error: FloatArray) -> str | None:
    """The first joint whose error breaks the path tolerance, in words (None: within)."""
    return _violation(joints, tol.path, tol.path_velocity, error, velocity_error, "path")


def goal_violation(joints: Sequence[str], tol: Tolerances, error: FloatArray, velocity: FloatArray) -> str | None:
    """The first joint outside the goal tolerance after the end (None: the goal is reached)."""
    return _violation(joints, tol.goal, tol.goal_velocity, error, velocity, "goal")


def _violation(
    joints: Sequence[str], position: FloatArray, velocity: FloatArray, error: FloatArray, rate: FloatArray, kind: str
) -> str | None:
    for k, name in enumerate(joints):
        if position[k] > 0 and abs(error[k]) > position[k]:
            return f"joint {name} position error {abs(error[k]):.4g} beyond the {kind} tolerance {position[k]:g}"
        if velocity[k] > 0 and abs(rate[k]) > velocity[k]:
            return f"joint {name} velocity error {abs(rate[k]):.4g} beyond the {kind} tolerance {velocity[k]:g}"
    return None


__all__ = [
    "Point",
    "Request",
    "Tolerances",
    "Trajectory",
    "goal_violation",
    "hold",
    "path_violation",
    "refusal",
]
