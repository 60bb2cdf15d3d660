"""What every node of the package shares: parameters, spinning, and its process's life."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node


class RunnableNode(Protocol):
    """A node that says when it is done and with which exit status."""

    done: threading.Event
    exit_code: int

    def destroy_node(self) -> None: ...


def declare_parameters(node: Node, parameters: Mapping[str, tuple[Any, str]]) -> None:
    """Declare name → (default, description); types follow the defaults."""
    for name, (default, description) in parameters.items():
        node.declare_parameter(name, default, ParameterDescriptor(description=description))


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


def run(
    make_node: Callable[[], Any],
    name: str,
    errors: tuple[type[BaseException], ...],
    finish: Callable[[Any, int], int] | None = None,
    args: list[str] | None = None,
) -> int:
    """Run a node in the humble/jazzy-compatible try/finally form; returns the exit status.

    ``errors`` (bad files, bad parameters) end the process with their message and status
    1, never a traceback. ``finish(node, status)`` runs after spinning (also after
    SIGINT / SIGTERM), before the node is destroyed, and returns the final status.
    """
    rclpy.init(args=args)
    node: Any = None
    code = 0
    try:
        node = make_node()
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        spin_until_done(executor, node.done)
        code = node.exit_code
    except (KeyboardInterrupt, ExternalShutdownException):
        code = 0
    except errors as exc:
        rclpy.logging.get_logger(name).error(str(exc))
        print(f"error: {exc}", file=sys.stderr)
        code = 1
    finally:
        if node is not None:
            if finish is not None:
                code = finish(node, code)
            node.destroy_node()
        rclpy.try_shutdown()
    return code
