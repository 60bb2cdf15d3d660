"""The robot's current joint positions, heard on a JointState topic before playing."""

from __future__ import annotations

import math
import threading

from rclpy.node import Node
from sensor_msgs.msg import JointState

from .scaffold import STATE_QOS


class StateListener:
    """Collects the latest position of every joint heard (several publishers merge by name).

    Listening stops with :meth:`close` (the player does so before its own JointState
    stream starts, which may use the same topic).
    """

    def __init__(self, node: Node, topic: str) -> None:
        self.node = node
        self._lock = threading.Lock()
        self._positions: dict[str, float] = {}
        self._open = True
        self.messages = 0
        self.subscription = node.create_subscription(JointState, topic, self._on_state, STATE_QOS)
        self.topic: str = self.subscription.topic_name  # resolved (remapped) name

    def _on_state(self, msg: JointState) -> None:
        if not self._open or len(msg.position) != len(msg.name):
            return
        with self._lock:
            for name, value in zip(msg.name, msg.position, strict=True):
                if math.isfinite(value):
                    self._positions[name] = float(value)
            self.messages += 1

    def other_publishers(self) -> int:
        """Publishers on the topic that are not this node (its own stream does not count)."""
        me = (self.node.get_name(), self.node.get_namespace())
        return sum(
            1
            for info in self.node.get_publishers_info_by_topic(self.topic)
            if (info.node_name, info.node_namespace) != me
        )

    def positions(self) -> dict[str, float]:
        with self._lock:
            return dict(self._positions)

    def close(self, unsubscribe: bool = True) -> None:
        """Stop listening; with ``unsubscribe`` also stop DDS from delivering anything more to us.

        Destroying the subscription from a thread other than the executor's may race with the
        executor building its wait set (rclpy then raises InvalidHandle in the spinning
        thread): a node that publishes nothing on the topic itself keeps it and ignores it.
        """
        if self._open:
            self._open = False
            if unsubscribe:
                self.node.destroy_subscription(self.subscription)
