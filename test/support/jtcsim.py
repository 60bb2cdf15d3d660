"""A stand-in for ros2_control's joint_trajectory_controller (JTC), as tests judge trajectories by it.

Written from JTC's documented and coded behaviour, independently of the package's own
interpolation (``playback.plan``), so that one checks the other:

- each message received on the topic **replaces** the running trajectory;
- a header stamp of 0 means "start when received", else the stamp is the start;
- before the first point JTC moves from its state at receipt to the first point;
- between points ``a`` and ``b`` it interpolates by the fields both carry: positions
  only linear, with velocities cubic, with velocities and accelerations quintic, from the
  polynomial coefficients of each segment;
- after the last point it holds the last point.

Points are ``(time_from_start_s, positions, velocities or None, accelerations or None)``.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

Point = tuple[float, np.ndarray, "np.ndarray | None", "np.ndarray | None"]


@dataclasses.dataclass
class Trajectory:
    start: float  # absolute seconds
    joint_names: tuple[str, ...]
    points: list[Point]


def from_msg(msg: Any) -> tuple[int, tuple[str, ...], list[Point]]:
    """(stamp ns, joint names, points) of a trajectory_msgs/JointTrajectory."""
    stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
    points: list[Point] = []
    for p in msg.points:
        t = p.time_from_start.sec + p.time_from_start.nanosec * 1e-9
        vel = np.array(p.velocities, dtype=float) if len(p.velocities) else None
        acc = np.array(p.accelerations, dtype=float) if len(p.accelerations) else None
        points.append((t, np.array(p.positions, dtype=float), vel, acc))
    return stamp, tuple(msg.joint_names), points


def coefficients(
    span: float, p0: float, p1: float, v0: float | None, v1: float | None, a0: float | None, a1: float | None
) -> list[float]:
    """Polynomial coefficients c0..c5 of one joint's segment of length ``span``."""
    if v0 is None or v1 is None:
        return [p0, (p1 - p0) / span if span else 0.0]
    if a0 is None or a1 is None:
        return [
            p0,
            v0,
            (3.0 * (p1 - p0) - (2.0 * v0 + v1) * span) / span**2,
            (2.0 * (p0 - p1) + (v0 + v1) * span) / span**3,
        ]
    return [
        p0,
        v0,
        0.5 * a0,
        (20.0 * (p1 - p0) - (8.0 * v1 + 12.0 * v0) * span - (3.0 * a0 - a1) * span**2) / (2.0 * span**3),
        (30.0 * (p0 - p1) + (14.0 * v1 + 16.0 * v0) * span + (3.0 * a0 - 2.0 * a1) * span**2) / (2.0 * span**4),
        (12.0 * (p1 - p0) - 6.0 * (v1 + v0) * span - (a0 - a1) * span**2) / (2.0 * span**5),
    ]


def segment(a: Point, b: Point, elapsed: np.ndarray) -> np.ndarray:
    """Positions (len(elapsed), D) between points a and b, ``elapsed`` seconds after a."""
    span = b[0] - a[0]
    has_v = a[2] is not None and b[2] is not None
    has_a = has_v and a[3] is not None and b[3] is not None
    out = np.empty((elapsed.size, a[1].size))
    for j in range(a[1].size):
        c = coefficients(
            span,
            float(a[1][j]),
            float(b[1][j]),
            float(a[2][j]) if has_v else None,  # type: ignore[index]
            float(b[2][j]) if has_v else None,  # type: ignore[index]
            float(a[3][j]) if has_a else None,  # type: ignore[index]
            float(b[3][j]) if has_a else None,  # type: ignore[index]
        )
        out[:, j] = sum(ck * elapsed**k for k, ck in enumerate(c))
    return out


class Controller:
    """Executes trajectories as JTC does; ``positions(at)`` is what it commands."""

    def __init__(self, joint_names: Sequence[str], initial: Sequence[float]) -> None:
        self.joint_names = tuple(joint_names)
        self.initial = np.asarray(initial, dtype=float)
        self.history: list[tuple[float, Trajectory, np.ndarray]] = []  # (receipt, trajectory, state then)

    def receive(self, stamp_ns: int, joint_names: Sequence[str], points: list[Point], at: float) -> None:
        """A message arrives at absolute time ``at`` (s): it replaces what runs."""
        if not points:
            return
        order = [list(joint_names).index(n) for n in self.joint_names]
        pts = [(t, p[order], None if v is None else v[order], None if a is None else a[order]) for t, p, v, a in points]
        state = self.positions(np.array([at]))[0]
        start = at if stamp_ns == 0 else stamp_ns / 1e9
        self.history.append((at, Trajectory(start, self.joint_names, pts), state))

    def positions(self, times: np.ndarray) -> np.ndarray:
        """Commanded positions at absolute ``times`` (increasing)."""
        out = np.tile(self.initial, (times.size, 1))
        for k, (receipt, traj, state) in enumerate(self.history):
            until = self.history[k + 1][0] if k + 1 < len(self.history) else np.inf
            active = (times >= receipt) & (times < until)
            if not active.any():
                continue
            out[active] = self._sample(traj, state, times[active])
        return out

    @staticmethod
    def _sample(traj: Trajectory, state: np.ndarray, times: np.ndarray) -> np.ndarray:
        rel = times - traj.start
        pts = traj.points
        first = pts[0]
        before: Point = (0.0, state, None if first[2] is None else 0 * state, None if first[3] is None else 0 * state)
        out = np.empty((times.size, state.size))
        chain = [before, *pts]
        for a, b in itertools.pairwise(chain):
            sel = (rel >= a[0]) & (rel < b[0]) if a is not before else rel < b[0]
            if sel.any():
                out[sel] = segment(a, b, np.maximum(rel[sel] - a[0], 0.0))
        after = rel >= pts[-1][0]
        out[after] = pts[-1][1]
        return out


def execute(
    messages: Sequence[tuple[float, Any]], times: np.ndarray, initial: Sequence[float] | None = None
) -> np.ndarray:
    """What JTC commands at ``times`` (s) given JointTrajectory ``messages`` received at their times.

    The controller's joints are those of the first message; it starts at ``initial`` (the
    first message's first point when not given).
    """
    _, names, points = from_msg(messages[0][1])
    jtc = Controller(names, points[0][1] if initial is None else initial)
    for at, msg in messages:
        stamp, joint_names, pts = from_msg(msg)
        jtc.receive(stamp, joint_names, pts, at)
    return jtc.positions(np.asarray(times, dtype=float))
