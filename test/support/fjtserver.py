"""A stand-in for joint_trajectory_controller's FollowJointTrajectory action server (own process).

Run as ``python test/fjtserver.py --ros-args -r __node:=arm_controller -p joints:=[a, b] …``:
the node's name is the controller's, so the action is ``/arm_controller/follow_joint_trajectory``
and the state topic ``/arm_controller/controller_state``, as ros2_control names them.

Goals are checked the way joint_trajectory_controller checks them before accepting:

- every joint name is one of the configured ``joints``; all of them unless
  ``allow_partial_joints_goal``; no joint twice;
- at least one point; ``time_from_start`` strictly increasing (and not negative);
- every ``positions`` the size of ``joint_names`` and finite; ``velocities`` and
  ``accelerations`` empty or that size; no ``effort``;
- a non-zero header stamp may not make the trajectory end in the past (beyond the goal
  time tolerance).

An invalid goal is rejected (``invalid:=reject``, as joint_trajectory_controller does:
the reason goes to its log only) or accepted and aborted with INVALID_JOINTS /
OLD_HEADER_TIMESTAMP / INVALID_GOAL and the reason (``invalid:=abort``, as other
FollowJointTrajectory servers do). A valid goal is executed by time with test/jtcsim.py's
interpolation (the same rules as the controller's), feedback is published about every
20 ms and ``~/controller_state`` (control_msgs/JointTrajectoryControllerState) every
20 ms. Path tolerances are checked while moving, goal tolerances at the end (within
the goal time tolerance); a cancel is honoured at once. ``violate:=path`` / ``goal``
makes the "measured" position of the first joint lag ``violation`` rad behind while
moving / at the end, so that a tolerance is violated.

Everything that happens goes as JSON lines to the ``record`` file (goals with their
points, rejections, cancels, results, each with ``time.time()``).
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.jtcsim import Controller, from_msg
from support.rosutil import assert_confined

RATE = 50.0


def main() -> int:
    import rclpy
    from control_msgs.action import FollowJointTrajectory
    from control_msgs.msg import JointTrajectoryControllerState
    from rclpy.action import ActionServer, CancelResponse, GoalResponse
    from rclpy.callback_groups import ReentrantCallbackGroup
    from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
    from rclpy.node import Node
    from trajectory_msgs.msg import JointTrajectoryPoint

    result_type = FollowJointTrajectory.Result

    class StandIn(Node):
        def __init__(self) -> None:
            super().__init__("controller")
            self.joints = list(self.declare_parameter("joints", ["j0"]).value)
            self.allow_partial = bool(self.declare_parameter("allow_partial_joints_goal", False).value)
            initial = list(self.declare_parameter("initial", [0.0]).value)
            self.state = np.zeros(len(self.joints))
            self.state[: len(initial)] = initial[: len(self.joints)]
            self.default_path = float(self.declare_parameter("path_tolerance", 0.0).value)
            self.default_goal = float(self.declare_parameter("goal_tolerance", 0.0).value)
            self.default_goal_time = float(self.declare_parameter("goal_time", 0.5).value)
            self.invalid = str(self.declare_parameter("invalid", "reject").value)
            self.violate = str(self.declare_parameter("violate", "").value)
            self.violation = float(self.declare_parameter("violation", 0.3).value)
            record = str(self.declare_parameter("record", "").value)
            self._record = open(record, "a") if record else None  # noqa: SIM115
            self.lock = threading.Lock()
            self.reference = self.state.copy()
            self.actual = self.state.copy()
            group = ReentrantCallbackGroup()
            self.server = ActionServer(
                self,
                FollowJointTrajectory,
                "~/follow_joint_trajectory",
                execute_callback=self.execute,
                goal_callback=self.on_goal,
                cancel_callback=self.on_cancel,
                callback_group=group,
            )
            self.state_pub = self.create_publisher(JointTrajectoryControllerState, "~/controller_state", 100)
            self.create_timer(1.0 / RATE, self.publish_state, callback_group=group)
            self.invalid_reasons: dict[bytes, tuple[int, str]] = {}

        def log(self, event: str, **fields: Any) -> None:
            if self._record is not None:
                self._record.write(json.dumps({"event": event, "time": time.time(), **fields}) + "\n")
                self._record.flush()

        # ------------------------------------------------------------ checks
        def problem(self, goal: Any) -> tuple[int, str] | None:
            traj = goal.trajectory
            names = list(traj.joint_names)
            unknown = [n for n in names if n not in self.joints]
            if unknown or len(set(names)) != len(names):
                return result_type.INVALID_JOINTS, f"joints not configured or repeated: {', '.join(unknown) or names}"
            missing = [n for n in self.joints if n not in names]
            if missing and not self.allow_partial:
                return result_type.INVALID_JOINTS, f"joints missing (partial goals not allowed): {', '.join(missing)}"
            if not traj.points:
                return result_type.INVALID_GOAL, "empty trajectory"
            previous = -1.0
            for i, p in enumerate(traj.points):
                t = p.time_from_start.sec + p.time_from_start.nanosec * 1e-9
                if t < 0 or (i > 0 and t <= previous):
                    return result_type.INVALID_GOAL, f"time_from_start of point {i} is not strictly increasing"
                previous = t
                if len(p.positions) != len(names) or not all(math.isfinite(v) for v in p.positions):
                    return result_type.INVALID_GOAL, f"point {i}: positions not {len(names)} finite values"
                for field in ("velocities", "accelerations"):
                    values = getattr(p, field)
                    if len(values) not in (0, len(names)) or not all(math.isfinite(v) for v in values):
                        return result_type.INVALID_GOAL, f"point {i}: {field} of the wrong size or not finite"
                if len(p.effort):
                    return result_type.INVALID_GOAL, "trajectories with effort fields are not supported"
            stamp = traj.header.stamp.sec * 1_000_000_000 + traj.header.stamp.nanosec
            if stamp:
                end = stamp / 1e9 + previous + self.goal_time(goal)
                if end < self.get_clock().now().nanoseconds / 1e9:
                    return result_type.OLD_HEADER_TIMESTAMP, "the trajectory ends in the past"
            return None

        def goal_time(self, goal: Any) -> float:
            t = goal.goal_time_tolerance.sec + goal.goal_time_tolerance.nanosec * 1e-9
            return t if t > 0 else self.default_goal_time

        def tolerances(self, entries: Any, default: float, names: list[str]) -> dict[str, float]:
            out = dict.fromkeys(names, default)
            for e in entries:
                if e.name in out and e.position != 0:
                    out[e.name] = 0.0 if e.position < 0 else e.position
            return out

        # ------------------------------------------------------------ action
        def on_goal(self, goal: Any) -> Any:
            _, names, points = from_msg(goal.trajectory)
            self.log(
                "goal",
                joint_names=list(names),
                stamp_ns=goal.trajectory.header.stamp.sec * 1_000_000_000 + goal.trajectory.header.stamp.nanosec,
                points=[[t, p.tolist(), None if v is None else v.tolist()] for t, p, v, _ in points],
                path_tolerance=[[e.name, e.position] for e in goal.path_tolerance],
                goal_tolerance=[[e.name, e.position] for e in goal.goal_tolerance],
                goal_time_tolerance=goal.goal_time_tolerance.sec + goal.goal_time_tolerance.nanosec * 1e-9,
            )
            problem = self.problem(goal)
            if problem is not None and self.invalid == "reject":
                self.get_logger().error(f"goal rejected: {problem[1]}")
                self.log("rejected", code=problem[0], reason=problem[1])
                return GoalResponse.REJECT
            return GoalResponse.ACCEPT

        def on_cancel(self, goal_handle: Any) -> Any:
            self.log("cancel_requested")
            return CancelResponse.ACCEPT

        def finish(self, goal_handle: Any, outcome: str, code: int = 0, text: str = "") -> Any:
            self.log(outcome, code=code, error_string=text)
            if outcome == "succeeded":
                goal_handle.succeed()
            elif outcome == "canceled":
                goal_handle.canceled()
            else:
                goal_handle.abort()
            return result_type(error_code=code, error_string=text)

        def execute(self, goal_handle: Any) -> Any:
            goal = goal_handle.request
            problem = self.problem(goal)
            if problem is not None:  # invalid:=abort
                return self.finish(goal_handle, "aborted", *problem)
            self.log("accepted")
            _, names, points = from_msg(goal.trajectory)
            cols = [self.joints.index(n) for n in names]
            with self.lock:
                start_state = self.reference[cols].copy()
            controller = Controller(names, start_state)
            stamp = goal.trajectory.header.stamp.sec * 1_000_000_000 + goal.trajectory.header.stamp.nanosec
            now = time.monotonic()
            start = now if stamp == 0 else now + (stamp - self.get_clock().now().nanoseconds) / 1e9
            controller.receive(0, names, points, at=start)
            end = start + points[-1][0]
            path_tol = self.tolerances(goal.path_tolerance, self.default_path, list(names))
            goal_tol = self.tolerances(goal.goal_tolerance, self.default_goal, list(names))
            goal_time = self.goal_time(goal)
            feedback = FollowJointTrajectory.Feedback(joint_names=list(names))
            final = points[-1][1]
            while True:
                if goal_handle.is_cancel_requested:
                    return self.finish(goal_handle, "canceled")
                now = time.monotonic()
                reference = controller.positions(np.array([now]))[0]
                actual = reference.copy()
                moving = start < now < end
                if (self.violate == "path" and moving and now - start > 0.3 * (end - start)) or (
                    self.violate == "goal" and now >= end
                ):
                    actual[0] -= self.violation
                error = reference - actual
                with self.lock:
                    self.reference[cols] = reference
                    self.actual[cols] = actual
                feedback.header.stamp = self.get_clock().now().to_msg()
                since = max(now - start, 0.0)
                feedback.desired = JointTrajectoryPoint(positions=reference.tolist())
                feedback.desired.time_from_start.sec = int(since)
                feedback.desired.time_from_start.nanosec = int((since % 1) * 1e9)
                feedback.actual = JointTrajectoryPoint(positions=actual.tolist())
                feedback.error = JointTrajectoryPoint(positions=error.tolist())
                goal_handle.publish_feedback(feedback)
                if now < end:
                    for j, name in enumerate(names):
                        tol = path_tol[name]
                        if tol > 0 and abs(error[j]) > tol:
                            text = f"path tolerance violated: joint {name} position error {abs(error[j]):.4g} > {tol:g}"
                            return self.finish(goal_handle, "aborted", result_type.PATH_TOLERANCE_VIOLATED, text)
                else:
                    off = {n: abs(actual[j] - final[j]) for j, n in enumerate(names)}
                    bad = [n for n in names if goal_tol[n] > 0 and off[n] > goal_tol[n]]
                    if not bad:
                        return self.finish(goal_handle, "succeeded")
                    if now > end + goal_time:
                        n = bad[0]
                        text = (
                            f"goal tolerance violated: joint {n} is {off[n]:.4g} from its goal > {goal_tol[n]:g} "
                            f"after the goal time tolerance {goal_time:g} s"
                        )
                        return self.finish(goal_handle, "aborted", result_type.GOAL_TOLERANCE_VIOLATED, text)
                time.sleep(1.0 / RATE)

        def publish_state(self) -> None:
            msg = JointTrajectoryControllerState()
            msg.header.stamp = self.get_clock().now().to_msg()
            msg.joint_names = list(self.joints)
            with self.lock:
                reference, actual = self.reference.copy(), self.actual.copy()
            msg.reference = JointTrajectoryPoint(positions=reference.tolist())
            msg.feedback = JointTrajectoryPoint(positions=actual.tolist())
            msg.error = JointTrajectoryPoint(positions=(reference - actual).tolist())
            msg.speed_scaling_factor = 1.0
            self.state_pub.publish(msg)

    assert_confined(os.environ)  # started by test_ros_action.start_server with rosutil's env
    rclpy.init()
    node = StandIn()
    executor = MultiThreadedExecutor(num_threads=4)
    executor.add_node(node)
    print("ready", flush=True)
    try:
        executor.spin()
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        # A second Ctrl-C or SIGTERM while shutting down (a test ending on a loaded machine) must
        # not print a traceback over the first: the stand-in is ending anyway.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
