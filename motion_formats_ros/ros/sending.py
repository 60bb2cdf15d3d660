"""How the player hands a trajectory plan to a controller: the "send the motion" step.

A sender executes a :class:`~motion_formats_ros.core.trajectory.TrajectoryPlan` and
returns once the controller has run it to its end (True) or the player is stopping
(False). :class:`TopicSender` publishes JointTrajectory messages on a topic, as
joint_trajectory_controller's ``~/joint_trajectory`` subscription takes them; a
FollowJointTrajectory action client is another sender with the same interface.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Protocol

from rclpy.node import Node
from rclpy.serialization import serialize_message
from trajectory_msgs.msg import JointTrajectory

from ..core.trajectory import TrajectoryPlan, split_chunks
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
