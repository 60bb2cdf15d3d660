"""What both nodes share: parameters, QoS profiles, signals and the executor loop.

- :class:`Param` describes one parameter (default, description, what values are valid,
  whether it may change at run time); :func:`declare` declares a table of them with
  ROS descriptors (read-only ones are refused by ROS itself once the node runs) and
  checks the values the node starts with; :func:`check_changes` checks run-time changes.
- The QoS profiles the nodes publish and subscribe with.
- :func:`run` is a node process's life: SIGINT and SIGTERM only *ask* the node to stop;
  the loop then lets it finish (stop its publishing threads, write its file) while the
  ROS context is still valid, destroys it and shuts ROS down, and returns the exit status.
  Nothing publishes into a context that is gone, so a Ctrl-C under ``ros2 launch`` ends
  with status 0 and no error output.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import FrameType
from typing import Any, Protocol

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import Executor, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions

#: Streams a node publishes (JointState, /tf): reliable, deep enough for bursts.
STREAM_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
#: What late subscribers must still get (/tf_static).
LATCHED_QOS = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)
#: Commands (JointTrajectory), /clock.
COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
#: What the recorder subscribes to: deep, so a slow disk does not drop samples.
RECORD_QOS = QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
#: Listening to a robot's state: best effort matches reliable and best-effort publishers.
STATE_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT, history=HistoryPolicy.KEEP_LAST)
#: Latched subscriptions (/tf_static).
LATCHED_SUB_QOS = QoSProfile(
    depth=100, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE
)


@dataclasses.dataclass(frozen=True)
class Param:
    """One node parameter; its type is the default's.

    Attributes:
        default: The value when none is given (a list of one empty string stands for an
            empty string list, which ROS cannot type).
        description: What it does (``ros2 param describe``).
        choices: The allowed values, if only some are.
        minimum: Smallest allowed number (inclusive), if any.
        above: Numbers must be greater than this, if given.
        runtime: May change while the node runs; otherwise only at start (read-only).
        dynamic: Any type is accepted (e.g. a number or a string that holds a map).
    """

    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    minimum: float | None = None
    above: float | None = None
    runtime: bool = False
    dynamic: bool = False

    def problem(self, name: str, value: Any) -> str | None:
        """Why ``value`` is not valid for this parameter, or None."""
        if self.choices and value not in self.choices:
            return f"{name} must be one of {', '.join(str(c) for c in self.choices)}, got {value!r}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                return f"{name} must be a finite number, got {value}"
            if self.minimum is not None and value < self.minimum:
                return f"{name} must be at least {self.minimum:g}, got {value:g}"
            if self.above is not None and not value > self.above:
                return f"{name} must be greater than {self.above:g}, got {value:g}"
        return None


def declare(node: Node, parameters: Mapping[str, Param]) -> None:
    """Declare every parameter (described; read-only unless ``runtime``) and check the values.

    Raises:
        ValueError: A value the node starts with is not valid (the message says why).
    """
    for name, spec in parameters.items():
        descriptor = ParameterDescriptor(
            description=spec.description, read_only=not spec.runtime, dynamic_typing=spec.dynamic
        )
        node.declare_parameter(name, spec.default, descriptor)
    problems = [p for name, spec in parameters.items() if (p := spec.problem(name, node.get_parameter(name).value))]
    if problems:
        raise ValueError("; ".join(problems))


def check_changes(parameters: Mapping[str, Param], changes: Sequence[Parameter[Any]]) -> str | None:
    """Why a run-time change is refused (invalid value, start-only parameter), or None."""
    for p in changes:
        spec = parameters.get(p.name)
        if spec is None:
            continue
        if not spec.runtime:
            return f"{p.name} can only be set at start"
        problem = spec.problem(p.name, p.value)
        if problem:
            return problem
    return None


class RunnableNode(Protocol):
    """A node that says when it is done and with which exit status."""

    done: threading.Event
    exit_code: int

    def destroy_node(self) -> None: ...


class StopRequest:
    """SIGINT / SIGTERM set an event instead of raising or tearing ROS down under the node."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signal: int | None = None
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signal = signum
        self.event.set()

    def install(self) -> None:
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()


def spin_until_done(executor: Executor, done: threading.Event, stop: threading.Event, period: float = 0.05) -> None:
    """Spin until the node is done, a stop is requested or the context shuts down."""
    while rclpy.ok(context=executor.context) and not done.is_set() and not stop.is_set():
        try:
            executor.spin_once(timeout_sec=period)
        except Exception:
            if rclpy.ok(context=executor.context) and not stop.is_set():
                raise
            return


def run(
    make_node: Callable[[], Any],
    name: str,
    errors: tuple[type[BaseException], ...],
    finish: Callable[[Any, int], int] | None = None,
    args: list[str] | None = None,
    threads: int = 1,
) -> int:
    """Run a node until it is done or a signal asks it to stop; returns the exit status.

    ``errors`` (bad files, bad parameters) end the process with their message and status
    1, never a traceback. ``finish(node, status)`` runs after spinning, also after SIGINT
    or SIGTERM, while the ROS context is still valid and before the node is destroyed:
    it stops what the node publishes from its own threads and returns the final status.
    ``threads`` > 1 spins with a multi-threaded executor.
    """
    stop = StopRequest()
    stop.install()
    node: Any = None
    executor: Executor | None = None
    code = 0
    try:
        rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
        try:
            node = make_node()
            executor = MultiThreadedExecutor(num_threads=threads) if threads > 1 else SingleThreadedExecutor()
            executor.add_node(node)
            spin_until_done(executor, node.done, stop.event)
            code = node.exit_code
        except errors as exc:
            rclpy.logging.get_logger(name).error(str(exc))
            print(f"error: {exc}", file=sys.stderr)
            code = 1
        finally:
            if node is not None and finish is not None:
                code = finish(node, code)
            # The node's work is done (its file written). Tearing DDS down can hang in the
            # middleware (a reader destroyed while a fast writer floods it); the process must
            # still end, as ros2 launch expects, with the status it earned.
            with _teardown_watchdog(name, code):
                if node is not None:
                    if executor is not None:
                        executor.shutdown(timeout_sec=1.0)
                    node.destroy_node()
                rclpy.try_shutdown()
    finally:
        stop.restore()
    return code


#: Seconds the middleware gets to tear down once the node has finished its work.
TEARDOWN_TIMEOUT = 1.5


@contextlib.contextmanager
def _teardown_watchdog(name: str, code: int, timeout: float = TEARDOWN_TIMEOUT) -> Iterator[None]:
    """Exit the process with ``code`` if the block has not finished after ``timeout`` seconds."""

    def expire() -> None:
        print(
            f"[WARN] [{name}]: ROS middleware teardown took over {timeout:g} s; exiting with status {code}",
            file=sys.stderr,
            flush=True,
        )
        sys.stdout.flush()
        os._exit(code)

    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
