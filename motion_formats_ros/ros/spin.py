"""Spinning a node until it is done or ROS shuts down (SIGINT / SIGTERM)."""

from __future__ import annotations

import threading

import rclpy
from rclpy.executors import Executor


def spin_until_done(executor: Executor, done: threading.Event, period: float = 0.05) -> None:
    """Spin until ``done`` is set or the context shuts down.

    rclpy's signal handler shuts the context down from under a spinning executor, which
    can then raise from ``spin_once`` (an invalid handle, an rcl error); that is a normal
    stop, not a crash, so it ends the loop quietly and the node can still write its
    results. Errors while the context is still up propagate.
    """
    while rclpy.ok() and not done.is_set():
        try:
            executor.spin_once(timeout_sec=period)
        except Exception:
            if rclpy.ok():
                raise
            return
