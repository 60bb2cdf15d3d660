"""What both nodes share: parameters, QoS profiles, signals and the executor loop.

- A node's parameters are the options of its configuration dataclass (core.options):
  :func:`declare_config` checks every value the node was given (unknown names, types,
  values; all at once, one line), declares them with ROS descriptors (read-only ones are
  refused by ROS itself once the node runs) and returns the typed configuration;
  :func:`check_changes` checks run-time changes (the on-set callback: no state changes).
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
import faulthandler
import functools
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import Any, TypeVar

import rclpy
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import Executor, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions

from ..core.errors import MotionFormatError
from ..core.notices import MotionFormatWarning
from ..core.options import ChoiceEnum, Option, build_config, settings_of

C = TypeVar("C")

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


#: A parameter value as ROS holds it.
ParameterLike = bool | int | float | str | list[str]


class ParameterError(MotionFormatError):
    """Parameters a node cannot start with (unknown names, wrong types, invalid values)."""


@dataclasses.dataclass(frozen=True)
class Param:
    """One node parameter: an option of the node's configuration and its default as ROS holds it.

    Attributes:
        setting: The option (type, help, checks).
        default: Its ROS default (a list of one empty string stands for an empty list of
            names, which ROS cannot type).
    """

    setting: Option
    default: ParameterLike

    @property
    def description(self) -> str:
        return self.setting.help


def to_ros(spec: Option, value: Any) -> ParameterLike:
    """A checked value as the ROS parameter of ``spec`` holds it (its one type: a float parameter
    holds ``2`` as ``2.0``; an empty list of names as ``[""]``)."""
    if isinstance(value, (list, tuple)):
        return list(value) or [""]
    if spec.kind is float and isinstance(value, int):
        return float(value)
    return str(value) if isinstance(value, ChoiceEnum) else value


def from_ros(spec: Option, value: Any) -> Any:
    """A ROS parameter's value as the option takes it: ``[""]`` (an empty list to ROS) and empty
    names left out of a list of names; an integer given for a float parameter as a float."""
    if spec.kind is tuple and isinstance(value, (list, tuple)):
        return tuple(v for v in value if v != "")
    if spec.kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def parameters(config: type) -> dict[str, Param]:
    """The ROS parameters of a configuration dataclass, in field order."""
    return {name: Param(spec, to_ros(spec, spec.default)) for name, spec in settings_of(config).items()}


def parameter_overrides(node: Node) -> dict[str, Parameter[Any]]:
    """The parameter values given to ``node`` (``-p``, ``--params-file``, launch), by name.

    rclpy reads them (the context's arguments, matched to the node's name) when it creates
    the node and keeps them only in this attribute; there is no public accessor, and
    parsing the command line again would miss parameter files and name matching.
    """
    return dict(node._parameter_overrides)


def command_line_parameters(argv: Sequence[str]) -> set[str]:
    """Names set by ``-p NAME:=VALUE`` / ``--param`` rules on a command line (``node:NAME`` too).

    A parameters file lists every parameter (a copy of the package's config does); what
    the user typed is what counts as given on purpose, e.g. an empty ``urdf_file``.
    """
    names = set()
    ros = False
    args = list(argv)
    for i, arg in enumerate(args):
        if arg == "--ros-args":
            ros = True
        elif arg == "--":
            ros = False
        elif ros and arg in ("-p", "--param") and i + 1 < len(args):
            rule = args[i + 1].split(":=", 1)[0]
            names.add(rule.rsplit(":", 1)[-1])
    return names


def declare_config(node: Node, config: type[C]) -> C:
    """Declare the configuration's parameters on ``node`` and return the configuration they give.

    Every value given to the node is checked first, all at once: a name the node does not
    declare (a misspelled safety setting must never be ignored), a value of the wrong type
    (``rate:=fast``; an integer is taken for a float), an empty list (ROS cannot type it),
    an invalid value, an empty value typed on the command line for a setting that must not
    be empty. Parameters are read-only unless their setting is ``runtime``.

    Raises:
        ParameterError: One line naming each bad parameter (unknown ones with the valid names).
    """
    table = parameters(config)
    given = parameter_overrides(node)
    unknown = sorted(n for n in given if n not in table and not node.has_parameter(n))
    if unknown:
        valid = sorted({*table, *node.list_parameters([], 0).names})
        raise ParameterError(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for {node.get_name()}; "
            f"valid: {', '.join(valid)}"
        )
    values: dict[str, Any] = {}
    problems = []
    typed_here = command_line_parameters(sys.argv)
    for name, param in table.items():
        spec = param.setting
        if name not in given:
            values[name] = spec.default
            continue
        override = given[name]
        if override.type_ == Parameter.Type.NOT_SET:
            problems.append(
                f"{name} must be a {spec.parameter_type}, got no value or an empty list (ROS cannot type one)"
            )
            continue
        values[name] = from_ros(spec, override.value)
        problem = spec.problem(values[name], given=name in typed_here)
        if problem:
            problems.append(problem)
    if problems:
        raise ParameterError(f"bad parameter{'s' if len(problems) > 1 else ''}: {'; '.join(problems)}")
    for name, param in table.items():
        spec = param.setting
        descriptor = ParameterDescriptor(description=spec.help, read_only=not spec.runtime, dynamic_typing=spec.dynamic)
        node.declare_parameter(name, to_ros(spec, values[name]), descriptor, ignore_override=True)
    return build_config(config, values)


def check_changes(config: type, changes: Sequence[Parameter[Any]]) -> str | None:
    """Why a run-time change is refused (invalid value, start-only parameter), or None."""
    table = settings_of(config)
    for p in changes:
        spec = table.get(p.name)
        if spec is None:
            continue  # the node's own (use_sim_time): rclpy checks them
        if not spec.runtime:
            return f"{p.name} can only be set at start"
        problem = spec.problem(from_ros(spec, p.value))
        if problem:
            return problem
    return None


class StopRequest:
    """SIGINT / SIGTERM set an event instead of raising or tearing ROS down under the node.

    While the node is being built (:attr:`interrupting`: reading its file, its robot model,
    the collision check of its motion, all in the main thread) the signal also raises
    :class:`KeyboardInterrupt` there, as Python's own SIGINT handler would, so that none of
    that work has to finish first. A library that swallows every exception (trimesh's
    imports do) could keep it from arriving: the process then exits with status 0
    :data:`START_STOP_GRACE` seconds after the signal. A single operation in native code
    that holds the interpreter longer than that (numpy over a huge motion) delays both;
    :data:`START_STOP_HARD` seconds after the signal the process ends all the same, from a
    thread of faulthandler's that needs no interpreter (status 1).
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, name: str = "node") -> None:
        self.name = name
        self.event = threading.Event()
        self.signal: int | None = None
        self.interrupting = False
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signal = signum
        self.event.set()
        if self.interrupting:
            self.interrupting = False  # once: the way out is not interrupted again
            _exit_later(self.name, 0, START_STOP_GRACE, "stopping its start-up")
            _end_regardless(START_STOP_HARD)
            raise KeyboardInterrupt

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


_Init = TypeVar("_Init", bound=Callable[..., None])


def destroyed_if_refused(init: _Init) -> _Init:
    """A node's ``__init__`` that destroys the node when it raises (a refused parameter, a bad file).

    rclpy's shutdown destroys every node its context still tracks; a node whose constructor
    raised is still tracked, as garbage held in reference cycles, and would be destroyed
    there in whatever state a collection had left it (once a SIGSEGV instead of exit status
    1). Destroyed here, it is whole and still referenced.
    """

    @functools.wraps(init)
    def building(self: Node, *args: Any, **kwargs: Any) -> None:
        try:
            init(self, *args, **kwargs)
        except BaseException:
            if hasattr(self, "handle"):  # rclpy made the node before the refusal
                self.destroy_node()
            raise

    return building  # type: ignore[return-value]


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
    stop = StopRequest(name)
    stop.install()
    shown = warnings.showwarning
    warnings.showwarning = functools.partial(_log_warning, name)
    node: Any = None
    executor: Executor | None = None
    code = 0
    try:
        try:
            rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
        except RuntimeError as exc:  # rcl's error: a command line it cannot parse (`-p name:=` without a value)
            print(f"error: {str(exc).split(', at ')[0]}", file=sys.stderr)
            return 1
        try:
            node = _build(make_node, stop)
            executor = MultiThreadedExecutor(num_threads=threads) if threads > 1 else SingleThreadedExecutor()
            executor.add_node(node)
            spin_until_done(executor, node.done, stop.event)
            code = node.exit_code
        except KeyboardInterrupt:
            code = 0  # asked to stop before the node was built: nothing was sent, nothing to finish
        except Exception as exc:
            if node is None and stop.event.is_set():
                code = 0  # stopping while built: what failed on the way out (the interrupt swallowed) is not news
            elif isinstance(exc, errors):
                rclpy.logging.get_logger(name).error(str(exc))
                print(f"error: {exc}", file=sys.stderr)
                code = 1
            else:
                raise
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
        warnings.showwarning = shown
    return code


def _log_warning(name: str, message: Any, category: Any, filename: str, lineno: int, *args: Any) -> None:
    """A Python warning (a notice of the package's: data a format cannot hold …) as one line of
    the node's log, as its other messages are: no source file, no source line."""
    text = " ".join(str(message).split())
    if not issubclass(category, MotionFormatWarning):
        text = f"{category.__name__}: {text}"
    rclpy.logging.get_logger(name).warning(text)


def _build(make_node: Callable[[], Any], stop: StopRequest) -> Any:
    """``make_node()``, which a signal interrupts (:class:`KeyboardInterrupt`), also one come before it."""
    stop.interrupting = True
    try:
        if stop.event.is_set():
            raise KeyboardInterrupt
        return make_node()
    finally:
        stop.interrupting = False


#: Seconds the middleware gets to tear down once the node has finished its work.
TEARDOWN_TIMEOUT = 1.5
#: Seconds a node being built has after SIGINT / SIGTERM to end on its own (the process exits within 2 s).
START_STOP_GRACE = 1.0
#: Seconds after which the process ends even while native code holds the interpreter.
START_STOP_HARD = 1.7


def _end_regardless(timeout: float) -> None:
    """End the process (status 1) after ``timeout`` seconds, whatever holds the interpreter then.

    faulthandler's watchdog is a thread of its own that needs no interpreter lock; what it
    writes (every thread's stack) goes nowhere.
    """
    sink = open(os.devnull, "w")  # noqa: SIM115 (kept open for the watchdog, which may write when it fires)
    faulthandler.dump_traceback_later(timeout, exit=True, file=sink)


def _exit_later(name: str, code: int, timeout: float, what: str) -> threading.Timer:
    """A started timer that exits the process with ``code`` after ``timeout`` seconds unless canceled."""

    def expire() -> None:
        print(
            f"[WARN] [{name}]: {what} took over {timeout:g} s; exiting with status {code}",
            file=sys.stderr,
            flush=True,
        )
        sys.stdout.flush()
        os._exit(code)

    timer = threading.Timer(timeout, expire)
    timer.daemon = True
    timer.start()
    return timer


@contextlib.contextmanager
def _teardown_watchdog(name: str, code: int, timeout: float = TEARDOWN_TIMEOUT) -> Iterator[None]:
    """Exit the process with ``code`` if the block has not finished after ``timeout`` seconds."""
    timer = _exit_later(name, code, timeout, "ROS middleware teardown")
    try:
        yield
    finally:
        timer.cancel()
