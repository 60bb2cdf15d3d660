"""How the player hands a trajectory plan to a controller: the "send the motion" step.

A sender executes a :class:`~motion_formats_ros.playback.plan.TrajectoryPlan` and
returns once the controller has run it to its end (True) or the player is stopping
(False); a controller that refuses or fails it raises :class:`SendError` with the reason.
:class:`TopicSender` publishes JointTrajectory messages on a topic, as
joint_trajectory_controller's ``~/joint_trajectory`` subscription takes them (fire and
forget); :class:`ActionSender` sends the plan as one ``control_msgs/FollowJointTrajectory``
goal and follows it to its result. What a goal holds apart from messages (tolerances,
why a goal was refused) is :mod:`motion_formats_ros.playback.goal`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from action_msgs.msg import GoalStatus
from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTolerance
from rcl_interfaces.srv import GetParameters
from rclpy.action.client import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.serialization import serialize_message
from trajectory_msgs.msg import JointTrajectory

from ..playback.goal import (
    SendError,
    Tolerance,
    describe_tolerance,
    parse_tolerance,
    rejection_reason,
    tolerance_entries,
)
from ..playback.plan import TrajectoryPlan, split_chunks
from . import adapters


class TrajectorySender(Protocol):
    """Executes a plan; blocks until it has run (True) or ``stop`` is set (False)."""

    def execute(self, plan: TrajectoryPlan) -> bool: ...


def trajectory_messages(plan: TrajectoryPlan, chunk_duration: float = 0.0, stamp_ns: int = 0) -> list[JointTrajectory]:
    """The message(s) that carry ``plan``: one, or its chunks when ``chunk_duration`` > 0."""
    return [adapters.trajectory(plan, first, last, stamp_ns) for first, last in split_chunks(plan, chunk_duration)]


def message_bytes(msg: Any) -> int:
    """Serialized (CDR) size of a message: what goes over the wire."""
    return len(serialize_message(msg))


class TopicSender:
    """Publishes a plan as one JointTrajectory (or, opt-in, chunks) and waits while it runs.

    Args:
        node: The node the publisher belongs to (clock, logger).
        publisher: JointTrajectory publisher.
        stop: Set when the player stops: waiting ends, nothing more is published.
        start_delay: Seconds: > 0 stamps the message now + delay (a common start for
            several controllers); 0 stamps it 0, "start on receipt".
        chunk_duration: > 0 splits the plan into messages of about this many seconds that
            share one absolute start, each sent half a chunk before it begins. Only a
            controller that queues messages executes them all; joint_trajectory_controller
            replaces its trajectory with each message.
    """

    def __init__(
        self,
        node: Node,
        publisher: Any,
        stop: threading.Event,
        start_delay: float = 0.0,
        chunk_duration: float = 0.0,
    ) -> None:
        self.node = node
        self.publisher = publisher
        self.stop = stop
        self.start_delay = max(start_delay, 0.0)
        self.chunk_duration = max(chunk_duration, 0.0)

    def execute(self, plan: TrajectoryPlan) -> bool:
        if self.stop.is_set():
            return False
        chunks = split_chunks(plan, self.chunk_duration)
        now_ns = self.node.get_clock().now().nanoseconds
        if len(chunks) == 1:
            stamp = now_ns + round(self.start_delay * 1e9) if self.start_delay > 0 else 0
            self.publisher.publish(adapters.trajectory(plan, 0, plan.points, stamp))
            end = time.monotonic() + self.start_delay + plan.duration
        else:
            # One absolute start, so that a queueing controller splices the chunks; each
            # goes out half a chunk before it begins.
            lead = max(0.2, self.start_delay)
            stamp = now_ns + round(lead * 1e9)
            start = time.monotonic() + lead
            for first, last in chunks:
                send_at = start + float(plan.time_from_start_ns[first]) / 1e9 - self.chunk_duration / 2
                if self.stop.wait(max(0.0, send_at - time.monotonic())):
                    return False
                self.publisher.publish(adapters.trajectory(plan, first, last, stamp))
            end = start + plan.duration
        # Stay up while the controller executes it (logs and services stay available).
        return not self.stop.wait(max(0.0, end - time.monotonic()))


#: FollowJointTrajectory result codes in words.
RESULT_WORDS = {
    FollowJointTrajectory.Result.SUCCESSFUL: "SUCCESSFUL",
    FollowJointTrajectory.Result.INVALID_GOAL: "INVALID_GOAL",
    FollowJointTrajectory.Result.INVALID_JOINTS: "INVALID_JOINTS",
    FollowJointTrajectory.Result.OLD_HEADER_TIMESTAMP: "OLD_HEADER_TIMESTAMP",
    FollowJointTrajectory.Result.PATH_TOLERANCE_VIOLATED: "PATH_TOLERANCE_VIOLATED",
    FollowJointTrajectory.Result.GOAL_TOLERANCE_VIOLATED: "GOAL_TOLERANCE_VIOLATED",
}
STATUS_WORDS = {
    GoalStatus.STATUS_SUCCEEDED: "succeeded",
    GoalStatus.STATUS_ABORTED: "aborted",
    GoalStatus.STATUS_CANCELED: "canceled",
    GoalStatus.STATUS_UNKNOWN: "unknown",
}


def tolerances(name: str, tolerance: Tolerance, joints: Sequence[str]) -> list[JointTolerance]:
    """JointTolerance entries (position) for the goal; none where the controller's default applies.

    Raises:
        SendError: The map names a joint the motion does not send.
    """
    return [JointTolerance(name=j, position=v) for j, v in tolerance_entries(name, tolerance, joints)]


def _wait(future: Any, stop: threading.Event, lost: Callable[[], bool] | None = None) -> Any:
    """The future's result once done; None when ``stop`` is set first.

    Raises:
        SendError: ``lost()`` says the other side is gone (checked every 0.1 s).
    """
    checked = time.monotonic()
    while not future.done():
        if stop.wait(0.01):
            return None
        if lost is not None and time.monotonic() - checked >= 0.1:
            checked = time.monotonic()
            if lost():
                raise SendError("the action server went away (no result)")
    return future.result()


class ActionSender:
    """Sends each plan as one FollowJointTrajectory goal and follows it to its result.

    Args:
        node: The node the client belongs to (clock, logger).
        controller: Controller namespace (``/arm_controller``): the action is
            ``<controller>/follow_joint_trajectory``.
        stop: Set when the player stops: waiting ends; :meth:`cancel` cancels a running goal.
        start_delay: > 0 stamps the trajectory now + delay; 0 stamps it 0 (start on receipt).
        path_tolerance, goal_tolerance: See :func:`parse_tolerance`.
        goal_time_tolerance: Seconds after the end the goal may take to be reached (0 = the
            controller's default).
        wait_for_server: Seconds to wait for the action server.
    """

    #: Seconds between progress lines.
    FEEDBACK_PERIOD = 1.0
    #: Seconds without the action server in the ROS graph (while a goal runs) after which it
    #: counts as gone. A killed process stays in the graph until its DDS lease expires, so:
    SERVER_LOST = 2.0
    #: … also gone when feedback had been coming (joint_trajectory_controller sends it at 20 Hz)
    #: and stopped for this many seconds.
    FEEDBACK_SILENCE = 3.0

    def __init__(
        self,
        node: Node,
        controller: str,
        stop: threading.Event,
        start_delay: float = 0.0,
        path_tolerance: Any = 0.0,
        goal_tolerance: Any = 0.0,
        goal_time_tolerance: float = 0.0,
        wait_for_server: float = 10.0,
    ) -> None:
        self.node = node
        self.stop = stop
        self.controller = "/" + controller.strip("/")
        self.start_delay = max(start_delay, 0.0)
        self.path_tolerance = parse_tolerance("path_tolerance", path_tolerance)
        self.goal_tolerance = parse_tolerance("goal_tolerance", goal_tolerance)
        self.goal_time_tolerance = max(goal_time_tolerance, 0.0)
        self.timeout = max(wait_for_server, 0.0)
        self.client: ActionClient[Any, Any, Any] = ActionClient(
            node,
            FollowJointTrajectory,
            f"{self.controller}/follow_joint_trajectory",
            callback_group=ReentrantCallbackGroup(),
        )
        self.action = node.resolve_topic_name(f"{self.controller}/follow_joint_trajectory")
        self._lock = threading.Lock()
        self._goal_future: Any = None
        self._goal_handle: Any = None
        self._result_future: Any = None
        self._last_feedback = 0.0
        self._feedback_at: float | None = None
        self._duration = 0.0
        self.goals = 0

    # ----------------------------------------------------------------- server
    def wait_for_server(self) -> bool:
        """True once the server is there, False when stopping first.

        Raises:
            SendError: No server within ``wait_for_server`` seconds.
        """
        deadline = time.monotonic() + self.timeout
        while not self.client.server_is_ready():
            if time.monotonic() >= deadline:
                raise SendError(
                    f"no FollowJointTrajectory action server at {self.action} after {self.timeout:g} s "
                    "(is the controller loaded and active? see wait_for_server)"
                )
            if self.stop.wait(0.05):
                return False
        self.node.get_logger().info(f"action server {self.action} is there")
        return True

    # ----------------------------------------------------------------- goal
    def goal(self, plan: TrajectoryPlan) -> Any:
        """The FollowJointTrajectory goal for ``plan`` (stamped now + start_delay, or 0)."""
        now_ns = self.node.get_clock().now().nanoseconds
        stamp = now_ns + round(self.start_delay * 1e9) if self.start_delay > 0 else 0
        joints = list(plan.joint_names)
        goal = FollowJointTrajectory.Goal()
        goal.trajectory = adapters.trajectory(plan, 0, plan.points, stamp)
        goal.path_tolerance = tolerances("path_tolerance", self.path_tolerance, joints)
        goal.goal_tolerance = tolerances("goal_tolerance", self.goal_tolerance, joints)
        goal.goal_time_tolerance = adapters.duration_ns(round(self.goal_time_tolerance * 1e9))
        return goal

    def execute(self, plan: TrajectoryPlan) -> bool:
        if self.stop.is_set():
            return False
        log = self.node.get_logger()
        goal = self.goal(plan)
        self.goals += 1
        self._duration = plan.duration
        self._last_feedback = time.monotonic()
        self._feedback_at = None
        log.info(
            f"sending goal {self.goals} to {self.action}: {plan.points} points, {plan.duration:.3f} s, "
            f"path_tolerance {describe_tolerance(self.path_tolerance)}, "
            f"goal_tolerance {describe_tolerance(self.goal_tolerance)}, "
            f"goal_time_tolerance {self.goal_time_tolerance:g} s"
        )
        with self._lock:
            self._goal_future = self.client.send_goal_async(goal, feedback_callback=self._on_feedback)
        handle = _wait(self._goal_future, self.stop)
        if handle is None:
            return False
        if not handle.accepted:
            with self._lock:
                self._goal_future = None
            raise SendError(f"{self.action} rejected the goal: {self._rejection_reason(plan)}")
        log.info(f"{self.action} accepted goal {self.goals}")
        with self._lock:
            self._goal_handle = handle
            self._result_future = handle.get_result_async()
        seen = [time.monotonic()]

        def lost() -> bool:
            now = time.monotonic()
            if self.client.server_is_ready():
                seen[0] = now
            silent = self._feedback_at is not None and now - self._feedback_at > self.FEEDBACK_SILENCE
            return silent or now - seen[0] > self.SERVER_LOST

        try:
            response = _wait(self._result_future, self.stop, lost)
        except SendError as exc:
            with self._lock:
                self._goal_future = self._goal_handle = self._result_future = None
            raise SendError(f"{self.action}: goal {self.goals}: {exc}") from None
        if response is None:
            return False
        with self._lock:  # nothing left to cancel
            self._goal_future = self._goal_handle = self._result_future = None
        result = response.result
        words = RESULT_WORDS.get(result.error_code, f"error code {result.error_code}")
        said = f": {result.error_string}" if result.error_string else ""
        status = STATUS_WORDS.get(response.status, f"status {response.status}")
        if (
            response.status == GoalStatus.STATUS_SUCCEEDED
            and result.error_code == FollowJointTrajectory.Result.SUCCESSFUL
        ):
            log.info(f"{self.action}: goal {self.goals} {status}, result SUCCESSFUL{said}")
            return True
        raise SendError(f"{self.action}: goal {self.goals} {status}, result {words}{said}")

    def _on_feedback(self, message: Any) -> None:
        now = self._feedback_at = time.monotonic()
        if now - self._last_feedback < self.FEEDBACK_PERIOD:
            return
        self._last_feedback = now
        fb = message.feedback
        t = fb.desired.time_from_start.sec + fb.desired.time_from_start.nanosec * 1e-9
        errors = [abs(e) for e in fb.error.positions]
        if errors and len(errors) == len(fb.joint_names):
            worst = max(range(len(errors)), key=errors.__getitem__)
            error = f"largest error {errors[worst]:.4g} on {fb.joint_names[worst]!r}"
        else:
            error = "no position error reported"
        self.node.get_logger().info(f"{self.action}: {t:.1f} s of {self._duration:.1f} s, {error}")

    def _rejection_reason(self, plan: TrajectoryPlan) -> str:
        """Why the goal was rejected, as far as the controller's parameters tell.

        A rejected goal carries no reason in ROS 2 (joint_trajectory_controller logs it):
        compare the joints sent with the controller's ``joints`` parameter.
        """
        return rejection_reason(plan.joint_names, self._controller_parameters(("joints", "allow_partial_joints_goal")))

    def _controller_parameters(self, names: Sequence[str], timeout: float = 1.0) -> dict[str, Any] | None:
        client: Any = self.node.create_client(GetParameters, f"{self.controller}/get_parameters")
        try:
            deadline = time.monotonic() + timeout
            while not client.service_is_ready():
                if time.monotonic() > deadline or self.stop.wait(0.02):
                    return None
            future = client.call_async(GetParameters.Request(names=list(names)))
            while not future.done():
                if time.monotonic() > deadline or self.stop.wait(0.01):
                    return None
            response: Any = future.result()
            values = response.values if response is not None else []
            return {n: _parameter_value(v) for n, v in zip(names, values, strict=False)}
        finally:
            self.node.destroy_client(client)

    # ----------------------------------------------------------------- cancel
    def cancel(self, spin: Callable[[float], None], timeout: float) -> None:
        """Cancel the running goal and wait (spinning) up to ``timeout`` s for the server to acknowledge."""
        deadline = time.monotonic() + timeout
        with self._lock:
            pending, handle, result = self._goal_future, self._goal_handle, self._result_future
        if handle is None and pending is not None:
            while not pending.done() and time.monotonic() < deadline:
                spin(0.02)
            handle = pending.result() if pending.done() else None
            result = None
        if handle is None or not handle.accepted or (result is not None and result.done()):
            return
        log = self.node.get_logger()
        cancel = handle.cancel_goal_async()
        while not cancel.done() and time.monotonic() < deadline:
            spin(0.02)
        if cancel.done():
            log.info(f"{self.action}: goal {self.goals} canceled (the server acknowledged)")
        else:
            log.warning(f"{self.action}: no acknowledgement of the cancel within {timeout:g} s")


def _parameter_value(value: Any) -> Any:
    """The Python value of an rcl_interfaces/ParameterValue."""
    from rclpy.parameter import parameter_value_to_python

    return parameter_value_to_python(value)


__all__ = [
    "ActionSender",
    "SendError",
    "TopicSender",
    "TrajectorySender",
    "parse_tolerance",
    "tolerances",
]
