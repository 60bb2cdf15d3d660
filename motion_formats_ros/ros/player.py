"""``motion_player``: plays any supported motion file into ROS 2.

Sends the motion to a joint_trajectory_controller as **one** ``JointTrajectory`` however
long (points reduced so that the controller's own interpolation stays within
``trajectory_tolerance`` of every frame) — on its topic, or with ``controller`` set as one
``control_msgs/FollowJointTrajectory`` goal whose acceptance, progress and result are
followed (exit status 0 only on SUCCESSFUL; SIGINT/SIGTERM cancel it) — streams ``sensor_msgs/JointState`` at a fixed
rate, and publishes the root pose (and, on request, link poses) on ``/tf``. Playback
control: speed factor, loop, start/end times, pause/resume/restart services, ``seek``
and ``rate`` changeable at run time, ``publish_clock``. Nothing non-finite is ever sent:
undefined values (``.mof`` ``*`` / ``-``) are resolved first (core.nonfinite). Motions
beyond the robot's joint limits (from a URDF) are refused unless ``ignore_limits`` is set.
With a robot model (``urdf_file``, ``robot_description`` or a ``.body``) the node publishes
``/robot_description`` (transient local) and, with ``publish_link_tf``, every link's TF as
robot_state_publisher would.

The node is thin: publishers, services, the action client and parameters. What to play
and when (joints, limits, the plan, the clock, what each tick sends) is the ROS-free
:mod:`motion_formats_ros.playback` package (a
:class:`~motion_formats_ros.playback.session.PlaybackSession` and its
:class:`~motion_formats_ros.playback.emit.Emitter`); the parameters are the settings of its
:class:`~motion_formats_ros.playback.config.PlayerConfig`.

    motion_player --ros-args -p file:=walk.seq -p loop:=true
"""

from __future__ import annotations

import dataclasses
import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.publisher import Publisher
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectory

from ..core.errors import MotionFormatError, OutOfRangeError
from ..core.nonfinite import needs_state
from ..playback.config import PlayerConfig, PlayerError, PlayMode
from ..playback.emit import Emitter, Transforms
from ..playback.plan import TrajectoryPlan, check_message_room
from ..playback.schedule import Lateness, Pace, Schedule
from ..playback.session import PlaybackSession, load
from . import adapters
from .scaffold import (
    COMMAND_QOS,
    LATCHED_QOS,
    STREAM_QOS,
    Param,
    ParameterError,
    check_changes,
    declare_config,
    destroyed_if_refused,
    parameters,
    run,
)
from .sending import ActionSender, SendError, TopicSender, TrajectorySender, message_bytes, trajectory_messages
from .state import StateListener
from .tf_cdr import TFEncoder

#: Seconds to wait after our publisher has matched its readers, for them to match us.
MATCH_SETTLE = 0.2
#: Seconds for discovery to show a publisher of the robot's state, if there is one.
DISCOVERY = 0.5
#: Seconds into the stream during which other publishers on its topic are looked for.
SHARED_WATCH = 3.0
#: The node name rmw reports for a publisher whose node it has not discovered yet.
UNKNOWN_NODE = "_NODE_NAME_UNKNOWN_"
#: Seconds the node gives its threads to stop when asked to (the process exits within 2 s).
STOP_TIMEOUT = 1.0
#: Seconds to wait for the action server to acknowledge a cancel on SIGINT / SIGTERM.
CANCEL_TIMEOUT = 1.0
#: Seconds (in all) that stopping waits for subscribers to acknowledge what was published:
#: reliable samples still in flight when the node goes away are lost to a recorder.
DRAIN_TIMEOUT = 0.5

#: Seconds over which the stream's achieved rate is measured (a warning at most this often while behind).
PACE_WINDOW = 2.0

#: The node's parameters: the settings of PlayerConfig.
PARAMETERS: dict[str, Param] = parameters(PlayerConfig)


class MotionPlayer(Node):
    """The player node: parameters, publishers, services, the action client; the session does the rest."""

    @destroyed_if_refused
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("motion_player", **kwargs)
        self._created = time.monotonic()
        self.done = threading.Event()
        self.exit_code = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._pending: set[str] = set()
        self.config: PlayerConfig = declare_config(self, PlayerConfig)
        if self.config.controller and self.config.mode == PlayMode.BOTH and not self.config.stream_with_controller:
            # The controlled robot publishes its own state: the player's stream would mix with it.
            self.config = dataclasses.replace(self.config, mode=PlayMode.TRAJECTORY)
            self.get_logger().info(
                "controller set: the goal goes to the controller, no JointState/TF stream "
                "(the robot publishes its own state; stream_with_controller:=true streams too)"
            )
        self.sim_time = bool(self.get_parameter("use_sim_time").value)
        self.session = PlaybackSession(load(self.config, self._log), self.config, self._log)
        self.plan: TrajectoryPlan | None = None
        config = self.config
        # Publishers
        # The stream's topic is left alone when nothing streams (a controlled robot publishes there).
        streams = config.mode in ("both", "stream")
        self.joint_pub: Publisher[JointState] | None = (
            self.create_publisher(JointState, "joint_states", STREAM_QOS) if streams else None
        )
        self.trajectory_pub: Publisher[JointTrajectory] = self.create_publisher(
            JointTrajectory, "joint_trajectory", COMMAND_QOS
        )
        self.tf_pub: Publisher[TFMessage] = self.create_publisher(TFMessage, "/tf", STREAM_QOS)
        self.tf_static_pub: Publisher[TFMessage] = self.create_publisher(TFMessage, "/tf_static", LATCHED_QOS)
        self.clock_pub: Publisher[Clock] | None = (
            self.create_publisher(Clock, "/clock", COMMAND_QOS) if config.publish_clock else None
        )
        # The robot: its description (latched, as robot_state_publisher offers it) and, on
        # request, every link's TF from its joints as robot_state_publisher would make it.
        self.description_pub: Publisher[String] | None = None
        if self.session.robot is not None:
            self.description_pub = self.create_publisher(String, "/robot_description", LATCHED_QOS)
            self.description_pub.publish(String(data=self.session.robot.urdf))
        # What each tick sends. The static frames now; every frame's transforms when playing
        # starts, for the final motion (the robot's state may change it).
        self.emitter = Emitter(
            self.session, self.session.link_frames(precompute=False) if config.publish_link_tf else None
        )
        self._publish_static(self.emitter.static_transforms())
        self._check_root_link()
        self.state = StateListener(self, config.state_topic)
        self.sender: TrajectorySender = self._sender()
        # Parameters change at run time: checked in the first callback, applied in the second.
        self.add_on_set_parameters_callback(self._validate_parameters)
        self.add_post_set_parameters_callback(self._apply_parameters)
        services = ReentrantCallbackGroup()  # pause/resume/seek may run at once: the clock is shared safely
        for service, handler in (
            ("~/pause", self._srv_pause),
            ("~/resume", self._srv_resume),
            ("~/restart", self._srv_restart),
        ):
            self.create_service(Trigger, service, handler, callback_group=services)
        # The time base: monotonic, or the ROS clock with use_sim_time (rebased when playing starts).
        self._elapsed_origin = self._now()
        self._stamp_origin = self.get_clock().now().nanoseconds
        self._schedule: Schedule | None = None
        self.timing = Lateness()
        self._tf_encoder: TFEncoder | None = None
        self._spawn(self._start_when_subscribed, "start")

    # ----------------------------------------------------------------- setup
    def _log(self, level: str, text: str) -> None:
        """The session's notes into the ROS log (rclpy fixes a call site's severity: one per level)."""
        log = self.get_logger()
        if level == "error":
            log.error(text)
        elif level == "warning":
            log.warning(text)
        else:
            log.info(text)

    def _sender(self) -> TrajectorySender:
        """Topic (fire and forget) or, with ``controller``, a FollowJointTrajectory action client."""
        config = self.config
        if not config.controller:
            return TopicSender(
                self,
                self.trajectory_pub,
                self._stop,
                start_delay=config.start_delay,
                chunk_duration=config.chunk_duration,
            )
        try:
            return ActionSender(
                self,
                config.controller,
                self._stop,
                start_delay=config.start_delay,
                path_tolerance=config.path_tolerance,
                goal_tolerance=config.goal_tolerance,
                goal_time_tolerance=config.goal_time_tolerance,
                wait_for_server=config.wait_for_server,
            )
        except ValueError as exc:
            raise PlayerError(str(exc)) from None

    def _publish_static(self, transforms: Transforms) -> None:
        """What never moves, once on /tf_static (all in one message: late subscribers get only the last)."""
        if len(transforms):
            stamp = self.get_clock().now().nanoseconds
            messages = [adapters.transform(p, c, stamp, xyz, xyzw) for p, c, xyz, xyzw in transforms.rows()]
            self.tf_static_pub.publish(TFMessage(transforms=messages))

    def _tf(self, transforms: Transforms, stamp: int) -> bytes:
        """A tick's transforms as a serialized TFMessage (laid out once for the stream's frames)."""
        encoder = self._tf_encoder
        if encoder is None or encoder.frames != transforms.frames:
            encoder = self._tf_encoder = TFEncoder(transforms.frames)
        return encoder.encode(stamp, transforms.translation, transforms.rotation)

    def _check_root_link(self) -> None:
        """With link TF, the root pose should reach the model's root link."""
        root_frame = self.emitter.root_frame
        model = self.session.robot_model() if self.emitter.link_frames is not None else None
        if model is None or self.emitter.prefix + model.root_link == root_frame:
            return
        if self.session.constant_root() is not None or self.session.motion.root_position is not None:
            self.get_logger().warning(
                f"the robot model's links hang from {model.root_link!r}, the root pose goes to {root_frame!r}: "
                f"set root_frame:={model.root_link} to join the trees"
            )

    # ----------------------------------------------------------------- start
    def _start_when_subscribed(self) -> None:
        """Wait (bounded) for subscribers and the robot's state, prepare what to send, then play.

        Messages sent before a controller (or any reader) has matched are dropped by DDS;
        the trajectory is waited for in trajectory/both mode, the JointState stream in
        stream mode. Stream and trajectory then start from the same instant.
        """
        if not self._wait_for_subscribers():
            return
        current = self._wait_for_state()
        if current is None:
            return
        # From here on the topic may carry our own stream (nothing of ours without one).
        self.state.close(unsubscribe=self.joint_pub is not None and self.state.topic == self.joint_pub.topic_name)
        self.session.prepare(current, heard_on=self.state.topic)
        if self.emitter.link_frames is not None:
            self.emitter.link_frames = self.session.link_frames(quiet=True)
        mode = self.config.mode
        if mode in ("both", "trajectory"):
            self.plan = self._plan(current)
        if self.sim_time:
            # Wait for /clock: playback follows simulated time from its first value on.
            while self.get_clock().now().nanoseconds == 0:
                if self._stop.wait(0.01):
                    return
        if self._stop.is_set():
            return
        with self._lock:
            self._elapsed_origin = self._now()
            self._stamp_origin = self.get_clock().now().nanoseconds
            self.session.begin()
        workers: list[tuple[str, Callable[[], None]]] = []
        if mode in ("both", "stream"):
            workers.append(("stream", self._stream_loop))
            self._spawn(self._warn_shared_stream, "shared stream")
        if mode in ("both", "trajectory"):
            workers.append(("trajectory", self._send_trajectory))
        with self._lock:
            self._pending = {name for name, _ in workers}
        for name, target in workers:
            self._spawn(target, name)

    def _warn_shared_stream(self) -> None:
        """Warn, naming them, when other nodes publish on the stream's JointState topic.

        Looked for every 0.25 s during the first :data:`SHARED_WATCH` seconds of the stream
        (discovery brings other publishers in its own time); one warning at most.
        """
        me = (self.get_name(), self.get_namespace())
        assert self.joint_pub is not None  # streaming
        topic = self.joint_pub.topic_name
        deadline = time.monotonic() + SHARED_WATCH
        while True:
            others = sorted(
                {
                    (info.node_namespace.rstrip("/") + "/" + info.node_name)
                    for info in self.get_publishers_info_by_topic(topic)
                    if (info.node_name, info.node_namespace) != me
                }
            )
            # A participant's node names arrive after its endpoints: wait for them while there is time.
            named = [n for n in others if UNKNOWN_NODE not in n]
            late = time.monotonic() > deadline
            if named or (others and late):
                who = ", ".join(named) if named else "a node (its name not discovered yet)"
                self.get_logger().warning(
                    f"{who} also publish{'es' if len(named) <= 1 else ''} on {topic}: the player's "
                    "JointState stream mixes with it (mode:=trajectory, or joint_states_topic:=… elsewhere)"
                )
                return
            if late or self._stop.wait(0.25):
                return

    def _wait_for_subscribers(self) -> bool:
        """False when asked to stop while waiting (with ``controller``: for its action server)."""
        trajectory = self.config.mode in ("both", "trajectory")
        if isinstance(self.sender, ActionSender) and trajectory:
            return self.sender.wait_for_server()
        publisher: Publisher[Any] | None = self.trajectory_pub if trajectory else self.joint_pub
        assert publisher is not None  # stream mode streams
        timeout = self.config.wait_for_subscribers
        wanted = self.config.min_subscribers
        # Our own state listener may be on the same topic: it does not count.
        own = 1 if self.state.topic == publisher.topic_name else 0
        deadline = time.monotonic() + timeout
        while timeout > 0 and publisher.get_subscription_count() - own < wanted:
            if time.monotonic() > deadline:
                self.get_logger().warning(
                    f"no subscriber on {publisher.topic_name} after {timeout:g} s; playing anyway"
                )
                return not self._stop.is_set()
            if self._stop.wait(0.02):
                return False
        # Matching is seen from our side first; give the readers a moment to match us
        # too, or they drop what arrives before (DDS volatile readers do).
        return not (timeout > 0 and self._stop.wait(MATCH_SETTLE))

    def _wait_for_state(self) -> dict[str, float] | None:
        """The robot's positions heard on state_topic ({} if none); None when asked to stop.

        When another node publishes there, waits (within wait_for_subscribers) for a first
        message and for the joints that need it (held joints, undefined leading values).
        """
        timeout = self.config.wait_for_subscribers
        required = set(needs_state(self.session.source, list(self.config.joints) or None))
        deadline = time.monotonic() + timeout
        while timeout > 0 and time.monotonic() < deadline:
            if self.state.messages > 0 and not (required - set(self.state.positions())):
                break
            if time.monotonic() - self._created > DISCOVERY and self.state.other_publishers() == 0:
                break  # nobody publishes the robot's state
            if self._stop.wait(0.02):
                return None
        current = self.state.positions()
        if current:
            self.get_logger().info(f"current state of {len(current)} joints heard on {self.state.topic}")
        return current

    def _plan(self, current: dict[str, float]) -> TrajectoryPlan:
        """The session's plan, as the messages that carry it."""
        plan = self.session.plan(current)
        log = self.get_logger()
        controller = bool(self.config.controller)
        chunk_duration = self.config.chunk_duration
        if controller and chunk_duration > 0:
            log.warning("chunk_duration is ignored with controller: the motion goes as one goal")
        try:
            check_message_room(plan, 0.0 if controller else chunk_duration)
        except OutOfRangeError as exc:
            raise PlayerError(str(exc)) from None
        messages = trajectory_messages(plan, 0.0 if controller else chunk_duration)
        size = sum(message_bytes(m) for m in messages)
        dev = plan.deviation
        t0 = float(self.session.motion.times[0])
        bound = f"tolerance {plan.tolerance:g}" if self.session.source.interpolation is None else "the file's keyframes"
        log.info(
            f"trajectory: {plan.frames} frames -> {plan.points} points ({', '.join(plan.fields)}: "
            f"{plan.rule} interpolation), {len(messages)} message(s) of {size} bytes, {bound}, largest deviation "
            f"{dev.value:.4g} at joint {dev.joint!r}, t = {dev.time - t0:.3f} s; {plan.duration:.3f} s long"
        )
        if len(messages) > 1:
            log.warning(
                f"chunk_duration {chunk_duration:g} s: the trajectory goes out as {len(messages)} "
                "messages; joint_trajectory_controller replaces its running trajectory with each new message and "
                "would execute only the last: use chunks only for a controller that queues them"
            )
        return plan

    def _finished(self, worker: str) -> None:
        """A worker is done; with exit_on_end the node ends when all are."""
        with self._lock:
            self._pending.discard(worker)
            if not self._pending and self.config.exit_on_end:
                self.done.set()

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=self._guard, args=(target,), name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _guard(self, target: Callable[[], None]) -> None:
        try:
            target()
        except (PlayerError, SendError) as exc:  # a refusal found later, or the controller's
            self.get_logger().error(str(exc))
            print(f"error: {exc}", file=sys.stderr)
            self.exit_code = 1
            self.done.set()
        except Exception as exc:  # a crash in a worker must end the node with its message
            if self._stop.is_set():
                return  # stopping: whatever failed on the way out is not news
            self.get_logger().error(f"{type(exc).__name__}: {exc}")
            self.exit_code = 1
            self.done.set()

    # ----------------------------------------------------------------- time
    def _now(self) -> int:
        """Now in the playback time base: the ROS clock with use_sim_time, else monotonic."""
        return int(self.get_clock().now().nanoseconds) if self.sim_time else time.monotonic_ns()

    def _elapsed(self, now_ns: int | None = None) -> float:
        now = self._now() if now_ns is None else now_ns
        return (now - self._elapsed_origin) / 1e9

    def _stamp(self, tick_ns: int) -> int:
        """The ROS stamp of a tick (sim time: the tick is ROS time already)."""
        if self.sim_time:
            return tick_ns
        return self._stamp_origin + (tick_ns - self._elapsed_origin)

    def _ticks(self) -> Iterator[tuple[int, Callable[[], None]]]:
        """(tick time, wait until it) at stream_rate, drift-free in either time base.

        The caller prepares the tick's messages, then waits and publishes, so what leaves
        the node at each tick does not depend on how long preparing took.
        """
        if not self.sim_time:
            schedule = Schedule(self.session.stream_rate, start_ns=self._elapsed_origin, sleep=self._stop.wait)
            self._schedule = schedule
            while not self._stop.is_set():
                deadline = schedule.upcoming()
                yield deadline, partial(schedule.sleep_until, deadline)
            return
        clock = self.get_clock()
        period = round(1e9 / self.session.stream_rate)
        k = 0
        while not self._stop.is_set():
            target = self._elapsed_origin + k * period
            while clock.now().nanoseconds < target:  # /clock may advance in any steps
                if self._stop.wait(0.0005):
                    return
            k = max(k + 1, (clock.now().nanoseconds - self._elapsed_origin) // period + 1)
            yield target, _no_wait

    # ----------------------------------------------------------------- stream
    def _stream_loop(self) -> None:
        """At each tick: the emitter's plain data as messages, published on time."""
        session = self.session
        emitter = self.emitter
        names = session.motion.joint_names
        sends_joints = emitter.sends_joints
        end_reported = False
        self.timing = Lateness()
        pace = Pace(session.stream_rate, window=PACE_WINDOW)
        gc.freeze()  # what exists now is never collected: no long collection pauses mid-stream
        for tick, wait in self._ticks():
            outgoing: list[tuple[Any, Any]] = []
            now = emitter.at(self._elapsed(tick))
            stamp = self._stamp(tick)
            if sends_joints:
                joint_msg = adapters.joint_state(names, stamp, now.position, now.velocity, now.effort)
                outgoing.append((self.joint_pub, joint_msg))
            if len(now.transforms):
                outgoing.append((self.tf_pub, self._tf(now.transforms, stamp)))
            if self.clock_pub is not None:
                outgoing.append((self.clock_pub, Clock(clock=adapters.time_msg(round(now.played * 1e9)))))
            wait()
            if self._stop.is_set():
                return  # stopping: nothing more goes out
            for publisher, msg in outgoing:
                publisher.publish(msg)
            if not self.sim_time:
                self.timing.add(time.monotonic_ns() - tick)
                self._keep_pace(pace, tick, len(now.transforms))
            if now.finished and not end_reported:
                end_reported = True
                skipped = self._schedule.skipped if self._schedule is not None else 0
                self.get_logger().info(
                    f"played to {now.time - float(session.motion.times[0]):.3f} s; {skipped} ticks skipped; "
                    f"{self.timing.summary()}"
                )
                self._finished("stream")
                if self.config.exit_on_end:
                    return

    def _keep_pace(self, pace: Pace, tick: int, transforms: int) -> None:
        """Say (at most once per window) that the stream falls behind its rate, and how far."""
        achieved = pace.tick(tick, self._schedule.skipped if self._schedule is not None else 0)
        if achieved is not None:
            self.get_logger().warning(
                f"the stream falls behind: {achieved:.0f} Hz achieved of stream_rate {pace.rate:g} Hz "
                f"({transforms} transforms a tick); ticks are skipped: lower stream_rate"
            )

    # ----------------------------------------------------------------- trajectory
    def _send_trajectory(self) -> None:
        """Send the plan; with ``controller`` and ``loop``, a new goal after each success."""
        assert self.plan is not None
        repeat = isinstance(self.sender, ActionSender) and self.config.loop
        while self.sender.execute(self.plan):
            if not repeat:
                self._finished("trajectory")
                return

    # ----------------------------------------------------------------- control
    def _srv_pause(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        t = self.session.pause(self._elapsed())
        response.success, response.message = True, f"paused at {t:.3f} s"
        return response

    def _srv_resume(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        self.session.resume(self._elapsed())
        response.success, response.message = True, "playing"
        return response

    def _srv_restart(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        self.session.restart(self._elapsed())
        response.success, response.message = True, "restarted"
        return response

    def _validate_parameters(self, params: Sequence[Parameter[Any]]) -> SetParametersResult:
        """Accept or refuse a run-time change; changes nothing."""
        problem = check_changes(PlayerConfig, params)
        if problem is None:
            for p in params:
                if p.name == "rate":
                    # Velocities scale with the speed factor: a faster replay may break a limit.
                    problem = self.session.speed_problem(float(p.value))
        return SetParametersResult(successful=problem is None, reason=problem or "")

    def _apply_parameters(self, params: Sequence[Parameter[Any]]) -> None:
        """Apply run-time changes the validator accepted."""
        for p in params:
            if p.name == "rate":
                self.session.set_speed(float(p.value), self._elapsed())
            elif p.name == "seek" and p.value >= 0:
                self.session.seek(float(p.value), self._elapsed())

    def stop(self) -> None:
        """Stop publishing: every thread of the node ends (bounded), nothing goes out after.

        A goal still running on the controller is canceled first; the executor is spun here
        (the node's own loop has ended) until the server acknowledges, at most CANCEL_TIMEOUT.
        """
        self._stop.set()
        if isinstance(self.sender, ActionSender):
            executor = self.executor

            def spin(seconds: float) -> None:
                if executor is not None:
                    executor.spin_once(timeout_sec=seconds)
                else:
                    time.sleep(seconds)

            self.sender.cancel(spin, CANCEL_TIMEOUT)
        deadline = time.monotonic() + STOP_TIMEOUT
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        self._drain(DRAIN_TIMEOUT)

    def _drain(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s in all) until subscribers have acknowledged every sample."""
        deadline = time.monotonic() + timeout
        publishers = (
            self.joint_pub,
            self.tf_pub,
            self.trajectory_pub,
            self.tf_static_pub,
            self.clock_pub,
            self.description_pub,
        )
        for pub in publishers:
            left = deadline - time.monotonic()
            if pub is None or left <= 0:
                continue
            pub.wait_for_all_acked(Duration(nanoseconds=int(left * 1e9)))  # the context is still valid here


def _no_wait() -> None:
    """Sim-time ticks are published when the clock has reached them already."""


def _stop(node: MotionPlayer, code: int) -> int:
    node.stop()
    return code


def main(args: list[str] | None = None) -> int:
    """Entry point (``motion_player``); returns the exit status."""
    return run(MotionPlayer, "motion_player", (MotionFormatError, PlayerError, ParameterError), _stop, args, threads=2)


def entry() -> None:
    """Console-script entry point.

    The node is done (its publishers drained, ROS shut down): what is left in memory (a long
    motion, its plan and messages) is frozen, so that the interpreter's exit does not walk it
    in its last collections, seconds for millions of objects, after a signal that asked for
    an exit within 2 s; the exit returns that memory anyway.
    """
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry()
