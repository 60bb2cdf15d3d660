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

    motion_player --ros-args -p file:=walk.seq -p loop:=true
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.parameter import Parameter
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectory

from .. import read
from ..core.errors import MotionFormatError
from ..core.model import Motion
from ..core.nonfinite import MissingJointError, defined_joints, first_nonfinite, needs_state, resolve
from ..core.playback import (
    FrameSampler,
    JointLimit,
    Lateness,
    LimitViolationError,
    PlaybackClock,
    Schedule,
    check_limits,
)
from ..core.trajectory import CHOICES, TrajectoryPlan, approach_speeds, plan_trajectory
from ..core.urdf import joint_limits
from . import adapters
from .scaffold import COMMAND_QOS, LATCHED_QOS, STREAM_QOS, Param, check_changes, declare, run
from .sending import ActionSender, SendError, TopicSender, TrajectorySender, message_bytes, trajectory_messages
from .state import StateListener

MAX_STREAM_RATE = 500.0
#: Seconds to wait after our publisher has matched its readers, for them to match us.
MATCH_SETTLE = 0.2
MODES = ("both", "stream", "trajectory")
#: Seconds for discovery to show a publisher of the robot's state, if there is one.
DISCOVERY = 0.5
#: Seconds the node gives its threads to stop when asked to (the process exits within 2 s).
STOP_TIMEOUT = 1.0
#: Seconds to wait for the action server to acknowledge a cancel on SIGINT / SIGTERM.
CANCEL_TIMEOUT = 1.0
#: Seconds (in all) that stopping waits for subscribers to acknowledge what was published:
#: reliable samples still in flight when the node goes away are lost to a recorder.
DRAIN_TIMEOUT = 0.5

PARAMETERS: dict[str, Param] = {
    "file": Param("", "motion file to play (any supported format)"),
    "format": Param("", "format name when the suffix/content is not enough (omf, seq, …)"),
    "group": Param("", "group to play (OMF target/actual…); default: the first"),
    "joint_names": Param([""], "joint names for formats without them (Choreonoid .seq)"),
    "body_file": Param("", "Choreonoid .body file naming the joints of a .seq"),
    "joints": Param(
        [""],
        "joints to send, in this order (default: every joint of the file); a listed joint the file lacks "
        "holds its current position from state_topic",
    ),
    "state_topic": Param(
        "joint_states",
        "JointState topic with the robot's current positions, heard before playing (approach, undefined "
        "leading values, held joints); the player's own stream does not count",
    ),
    "mode": Param("both", "both | stream (JointState + TF) | trajectory (JointTrajectory only)", choices=MODES),
    "rate": Param(1.0, "speed factor (2.0 = twice as fast); changeable at run time", above=0.0, runtime=True),
    "loop": Param(False, "repeat the motion (its own loop segment for .mof / repeating scenes)"),
    "start_time": Param(0.0, "start this many seconds into the motion", minimum=0.0),
    "end_time": Param(0.0, "stop this many seconds into the motion (0 = the end)", minimum=0.0),
    "start_paused": Param(False, "wait for the resume service before playing"),
    "seek": Param(-1.0, "set at run time to jump to this motion time (s, from the motion start)", runtime=True),
    "stream_rate": Param(0.0, "JointState/TF rate in Hz (0 = the file's rate, at most 500)", minimum=0.0),
    "approach_time": Param(1.0, "seconds for the controller to reach the first point", minimum=0.0),
    "start_delay": Param(
        0.0, "trajectory header stamp = now + this (s); 0 = stamp 0, the controller starts on receipt", minimum=0.0
    ),
    "trajectory_tolerance": Param(
        1e-3,
        "largest deviation (rad or m) of the controller's interpolation of the sent points from any frame "
        "of the file; fewer points the larger it is",
        minimum=0.0,
    ),
    "trajectory_interpolation": Param(
        "auto",
        "fields sent, hence joint_trajectory_controller's interpolation: linear (positions), cubic (+ velocities), "
        "quintic (+ accelerations); auto = cubic, keyframed files linear (their own)",
        choices=CHOICES,
    ),
    "controller": Param(
        "",
        "controller namespace (e.g. /arm_controller): send the motion as one FollowJointTrajectory goal to "
        "<controller>/follow_joint_trajectory instead of publishing on joint_trajectory",
    ),
    "wait_for_server": Param(
        10.0, "seconds to wait for the controller's action server (then exit 1 naming it)", minimum=0.0
    ),
    "path_tolerance": Param(
        "",
        'position tolerance while moving, rad or m: one number for every joint or a map "{joint: value}"; '
        "empty or 0 = the controller's default, -1 = none (with controller)",
        dynamic=True,
    ),
    "goal_tolerance": Param(
        "",
        "position tolerance at the end, same form as path_tolerance (with controller)",
        dynamic=True,
    ),
    "goal_time_tolerance": Param(
        0.0,
        "s the controller may take beyond the end to reach the goal; 0 = its default (with controller)",
        minimum=0.0,
    ),
    "chunk_duration": Param(
        0.0,
        "opt-in, 0 = one message: split the trajectory into messages of this many seconds for a controller "
        "that queues them (joint_trajectory_controller replaces its trajectory with each message)",
        minimum=0.0,
    ),
    "wait_for_subscribers": Param(5.0, "seconds to wait for subscribers before playing (0 = don't)", minimum=0.0),
    "min_subscribers": Param(1, "how many subscribers to wait for (e.g. 2: a controller and a recorder)", minimum=1),
    "world_frame": Param("world", "parent frame of the root pose"),
    "root_frame": Param("base_link", "frame of the root pose"),
    "frame_prefix": Param("", "prefix for the robot's frames (root and links)"),
    "publish_links": Param(False, "also publish the link poses stored in the file on /tf"),
    "publish_clock": Param(False, "publish /clock from the played motion time"),
    "robot_description": Param("", "URDF text with the joint limits"),
    "urdf_file": Param("", "URDF file with the joint limits (instead of robot_description)"),
    "ignore_limits": Param(False, "play even if the motion exceeds a joint limit"),
    "exit_on_end": Param(True, "shut down when a non-looping motion has been played"),
}


class PlayerError(MotionFormatError):
    """The player cannot start (bad file, limits, parameters); the node exits non-zero."""


class MotionPlayer(Node):
    """The player node; the arithmetic lives in the ROS-free core (playback, trajectory, nonfinite)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("motion_player", **kwargs)
        self._created = time.monotonic()
        self.done = threading.Event()
        self.exit_code = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._pending: set[str] = set()
        try:
            declare(self, PARAMETERS)
        except ValueError as exc:
            raise PlayerError(str(exc)) from None
        self.mode = self._param("mode")
        self.joints = [j for j in self._param("joints") if j]
        self.source = self._load()
        # Until the robot's state is heard, undefined leading values take the file's first
        # defined value; joints only the state can give are left to the final resolution.
        self.motion = self._resolve({}, preliminary=True)
        self.plan: TrajectoryPlan | None = None
        self._check_limits()
        self._setup_playback()
        self._setup_publishers()
        self.state = StateListener(self, self._param("state_topic"))
        self.controller = self._param("controller")
        self.sender: TrajectorySender = self._sender()
        self.add_on_set_parameters_callback(self._on_parameters)
        services = ReentrantCallbackGroup()  # pause/resume/seek may run at once: the clock is shared safely
        for service, handler in (
            ("~/pause", self._srv_pause),
            ("~/resume", self._srv_resume),
            ("~/restart", self._srv_restart),
        ):
            self.create_service(Trigger, service, handler, callback_group=services)
        self._start_threads()

    # ----------------------------------------------------------------- setup
    def _param(self, name: str) -> Any:
        return self.get_parameter(name).value

    def _load(self) -> Motion:
        path = self._param("file")
        if not path:
            raise PlayerError("parameter 'file' is required (motion_player --ros-args -p file:=walk.seq)")
        options: dict[str, Any] = {}
        names = [n for n in self._param("joint_names") if n]
        if names:
            options["joint_names"] = names
        if self._param("body_file"):
            options["body"] = Path(self._param("body_file"))
        motion_file = read(path, format=self._param("format") or None, **options)
        motion = motion_file.group(self._param("group") or None)
        self.file_limits = motion_file.joint_limits
        self.kinematics: Any = None
        if motion_file.frame_tree is not None:
            # A file (a scene) that describes its whole TF tree: objects, links, what moves and what doesn't.
            self.kinematics = motion_file.frame_tree(self._param("world_frame"))
        if motion.num_frames == 0:
            raise PlayerError(f"{path}: the motion has no frames")
        self.get_logger().info(
            f"loaded {path} ({motion_file.format}): {motion.num_frames} frames, {motion.duration:.3f} s, "
            f"{len(motion.joint_names)} joints"
            + (f", loop {motion.loop[0]:g}-{motion.loop[1]:g} s" if motion.loop else "")
        )
        return motion

    def _sender(self) -> TrajectorySender:
        """Topic (fire and forget) or, with ``controller``, a FollowJointTrajectory action client."""
        if not self.controller:
            return TopicSender(
                self,
                self.trajectory_pub,
                self._stop,
                start_delay=self._param("start_delay"),
                chunk_duration=self._param("chunk_duration"),
            )
        try:
            return ActionSender(
                self,
                self.controller,
                self._stop,
                start_delay=self._param("start_delay"),
                path_tolerance=self._param("path_tolerance"),
                goal_tolerance=self._param("goal_tolerance"),
                goal_time_tolerance=self._param("goal_time_tolerance"),
                wait_for_server=self._param("wait_for_server"),
            )
        except ValueError as exc:
            raise PlayerError(str(exc)) from None

    def _resolve(self, current: dict[str, float], preliminary: bool = False) -> Motion:
        """The motion to play: the ``joints`` asked for, every sent value finite."""
        joints = self.joints
        if preliminary and joints:
            # Joints only the robot's state can give wait for it (the final resolution).
            defined = defined_joints(self.source)
            joints = [j for j in joints if j in defined] or list(defined)
        try:
            resolution = resolve(self.source, current, joints or None)
        except MissingJointError as exc:
            raise PlayerError(f"{exc} (nothing heard on {self.state.topic})") from None
        except ValueError as exc:
            raise PlayerError(f"joints: {exc}") from None
        if not preliminary:
            log = self.get_logger()
            for note in resolution.notes:
                # rclpy fixes a call site's severity: one call site per level.
                if note.level == "warning":
                    log.warning(note.text)
                else:
                    log.info(note.text)
        if not resolution.motion.joint_names:
            raise PlayerError("no joint to play: every joint of the motion is undefined")
        problem = first_nonfinite(resolution.motion)
        if problem is not None:  # resolve() leaves nothing undefined; never send it if it did
            raise PlayerError(f"undefined value left after resolution: {problem}")
        return resolution.motion

    def _check_limits(self) -> None:
        self.limits: dict[str, JointLimit] = {}
        urdf = self._param("robot_description")
        source = "robot_description"
        if not urdf and self._param("urdf_file"):
            source = self._param("urdf_file")
            try:
                urdf = Path(source).read_text()
            except OSError as exc:
                raise PlayerError(f"{source}: {exc.strerror}") from None
        if urdf:
            limits = joint_limits(urdf, source)
        else:
            # A scene knows its robots' joint limits.
            limits = dict(self.file_limits)
            source = "the scene"
            if not limits:
                return
        self.limits = limits
        self.limits_source = source
        if self._limits_ok(self.motion):
            self.get_logger().info(f"motion within the limits of {len(limits)} joints from {source}")

    def _limits_ok(self, motion: Motion) -> bool:
        """Check ``motion`` against the limits: refuse (PlayerError) or warn with ignore_limits."""
        try:
            check_limits(motion, self.limits, speed=self._param("rate"))
        except LimitViolationError as exc:
            if not self._param("ignore_limits"):
                raise PlayerError(f"refusing to play: {exc} (set ignore_limits to play anyway)") from None
            self.get_logger().warning(f"playing beyond the limits (ignore_limits): {exc}")
            return False
        return True

    def _setup_playback(self) -> None:
        m = self.motion
        t0 = float(m.times[0])
        start = t0 + self._param("start_time")
        end_param = self._param("end_time")
        end = t0 + end_param if end_param > 0 else float(m.times[-1])
        end = min(end, float(m.times[-1]))
        if start > end:
            raise PlayerError(f"start_time {self._param('start_time')} is after the end of the motion")
        loop: tuple[float, float] | None = None
        if self._param("loop"):
            if m.loop is not None and start <= m.loop[0] and m.loop[1] <= end + 1e-9:
                loop = m.loop
            elif end > start:
                loop = (start, end)
        self.clock_state = PlaybackClock(start, end, loop, speed=self._param("rate"))
        self.sampler = FrameSampler(m)
        rate = self._param("stream_rate")
        if rate <= 0:
            rate = min(m.rate or MAX_STREAM_RATE, MAX_STREAM_RATE)
        self.stream_rate = rate
        # The clock waits paused until playback starts; pause/resume meanwhile only say
        # whether it will start paused.
        self.clock_state.pause(0.0)
        self._playing = False
        self._start_paused = bool(self._param("start_paused"))

    def _setup_publishers(self) -> None:
        self.joint_pub = self.create_publisher(JointState, "joint_states", STREAM_QOS)
        self.trajectory_pub = self.create_publisher(JointTrajectory, "joint_trajectory", COMMAND_QOS)
        self.tf_pub = self.create_publisher(TFMessage, "/tf", STREAM_QOS)
        self.tf_static_pub = self.create_publisher(TFMessage, "/tf_static", LATCHED_QOS)
        self.clock_pub = self.create_publisher(Clock, "/clock", COMMAND_QOS) if self._param("publish_clock") else None
        prefix = self.frame_prefix = self._param("frame_prefix")
        self.world_frame = self._param("world_frame")
        self.root_frame = prefix + self._param("root_frame")
        self.link_frames = [prefix + name for name in self.motion.link_names]
        self.static_root = None if self.kinematics is not None else self._constant_root()
        stamp = self.get_clock().now().nanoseconds
        static = []
        if self.static_root is not None:
            # A root that never moves (a fixed-base arm) goes once on /tf_static.
            static.append(adapters.transform(self.world_frame, self.root_frame, stamp, *self.static_root))
        if self.kinematics is not None:
            static += [
                adapters.transform(self._frame(t.parent), self._frame(t.child), stamp, t.translation, t.rotation)
                for t in self.kinematics.static_transforms()
            ]
        if static:
            # All in one message: /tf_static keeps only the last message for late subscribers.
            self.tf_static_pub.publish(TFMessage(transforms=static))

    def _frame(self, name: str) -> str:
        """A scene frame with frame_prefix (the world frame keeps its name)."""
        return name if name == self.world_frame else self.frame_prefix + name

    def _constant_root(self) -> tuple[Any, Any] | None:
        m = self.motion
        if m.root_position is None and m.root_orientation is None:
            return None
        pos = m.root_position if m.root_position is not None else np.zeros((m.num_frames, 3))
        rot = m.root_orientation if m.root_orientation is not None else np.tile([0.0, 0.0, 0.0, 1.0], (m.num_frames, 1))
        if np.all(pos == pos[0]) and np.all(rot == rot[0]):
            return pos[0], rot[0]
        return None

    def _start_threads(self) -> None:
        self.sim_time = bool(self._param("use_sim_time"))
        self._elapsed_origin = self._now()
        self._stamp_origin = self.get_clock().now().nanoseconds
        self._spawn(self._start_when_subscribed, "start")

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
        self.state.close()  # from here on the topic may carry our own stream
        self.motion = self._resolve(current)
        if current and self.limits:
            self._limits_ok(self.motion)
        self.sampler = FrameSampler(self.motion)
        if self.mode in ("both", "trajectory"):
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
            self.clock_state.rebase(0.0)
            if not self._start_paused:
                self.clock_state.resume(0.0)
            self._playing = True
        workers: list[tuple[str, Callable[[], None]]] = []
        if self.mode in ("both", "stream"):
            workers.append(("stream", self._stream_loop))
        if self.mode in ("both", "trajectory"):
            workers.append(("trajectory", self._send_trajectory))
        with self._lock:
            self._pending = {name for name, _ in workers}
        for name, target in workers:
            self._spawn(target, name)

    def _wait_for_subscribers(self) -> bool:
        """False when asked to stop while waiting (with ``controller``: for its action server)."""
        if isinstance(self.sender, ActionSender) and self.mode in ("both", "trajectory"):
            return self.sender.wait_for_server()
        publisher = self.trajectory_pub if self.mode in ("both", "trajectory") else self.joint_pub
        timeout = self._param("wait_for_subscribers")
        wanted = int(self._param("min_subscribers"))
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
        timeout = self._param("wait_for_subscribers")
        required = set(needs_state(self.source, self.joints or None))
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
        t0 = float(self.motion.times[0])
        clock = self.clock_state
        if clock.loop is not None and not self.controller:
            self.get_logger().warning("loop applies to the JointState/TF stream; the trajectory is sent once")
        try:
            plan = plan_trajectory(
                self.motion,
                start=clock.start if clock.start > t0 else None,
                end=clock.end if clock.end < float(self.motion.times[-1]) else None,
                speed=clock.speed,
                approach_time=self._param("approach_time"),
                interpolation=self._param("trajectory_interpolation"),
                tolerance=self._param("trajectory_tolerance"),
            )
        except ValueError as exc:
            raise PlayerError(f"cannot send the trajectory: {exc}") from None
        log = self.get_logger()
        for note in plan.notes:
            log.info(note)
        chunks = self._param("chunk_duration") if not self.controller else 0.0
        if self.controller and self._param("chunk_duration") > 0:
            log.warning("chunk_duration is ignored with controller: the motion goes as one goal")
        messages = trajectory_messages(plan, chunks)
        size = sum(message_bytes(m) for m in messages)
        dev = plan.deviation
        bound = f"tolerance {plan.tolerance:g}" if self.source.interpolation is None else "the file's keyframes"
        log.info(
            f"trajectory: {plan.frames} frames -> {plan.points} points ({', '.join(plan.fields)}: "
            f"{plan.rule} interpolation), {len(messages)} message(s) of {size} bytes, {bound}, largest deviation "
            f"{dev.value:.4g} at joint {dev.joint!r}, t = {dev.time - t0:.3f} s; {plan.duration:.3f} s long"
        )
        if len(messages) > 1:
            log.warning(
                f"chunk_duration {self._param('chunk_duration'):g} s: the trajectory goes out as {len(messages)} "
                "messages; joint_trajectory_controller replaces its running trajectory with each new message and "
                "would execute only the last: use chunks only for a controller that queues them"
            )
        if current:
            self._check_approach(plan, current)
        return plan

    def _check_approach(self, plan: TrajectoryPlan, current: dict[str, float]) -> None:
        """The controller's way from the robot's state to the first point, against the limits."""
        speeds = approach_speeds(plan, current)
        if not speeds:
            return
        joint = max(speeds, key=lambda j: speeds[j])
        col = plan.joint_names.index(joint)
        move = abs(float(plan.positions[0, col]) - current[joint])
        self.get_logger().info(
            f"approach from the current state: largest move {move:.4g} on {joint!r} in "
            f"{plan.time_from_start_ns[0] / 1e9:g} s (peak {speeds[joint]:.3g}/s)"
        )
        for name, speed in speeds.items():
            limit = self.limits.get(name)
            if limit is not None and limit.velocity is not None and speed > limit.velocity * (1 + 1e-6):
                message = (
                    f"the approach from the current state moves {name!r} at {speed:.3g} rad/s, beyond its velocity "
                    f"limit {limit.velocity:g}: raise approach_time"
                )
                if not self._param("ignore_limits"):
                    raise PlayerError(f"refusing to play: {message}")
                self.get_logger().warning(f"playing beyond the limits (ignore_limits): {message}")

    def _finished(self, worker: str) -> None:
        """A worker is done; with exit_on_end the node ends when all are."""
        with self._lock:
            self._pending.discard(worker)
            if not self._pending and self._param("exit_on_end"):
                self.done.set()

    def _spawn(self, target: Any, name: str) -> None:
        thread = threading.Thread(target=self._guard, args=(target,), name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _guard(self, target: Any) -> None:
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
            schedule = Schedule(self.stream_rate, start_ns=self._elapsed_origin, sleep=self._stop.wait)
            self._schedule = schedule
            while not self._stop.is_set():
                deadline = schedule.upcoming()
                yield deadline, partial(schedule.sleep_until, deadline)
            return
        clock = self.get_clock()
        period = round(1e9 / self.stream_rate)
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
        m = self.motion
        names = m.joint_names
        end_reported = False
        publish_links = bool(self._param("publish_links")) and bool(self.link_frames)
        self.timing = Lateness()
        gc.freeze()  # what exists now is never collected: no long collection pauses mid-stream
        for tick, wait in self._ticks():
            outgoing: list[tuple[Any, Any]] = []
            t, played, finished = self.clock_state.state(self._elapsed(tick))
            frame = self.sampler.frame(t)
            stamp = self._stamp(tick)
            if m.position is not None or m.velocity is not None or m.effort is not None:
                joint_msg = adapters.joint_state(
                    names, stamp, frame.get("position"), frame.get("velocity"), frame.get("effort")
                )
                outgoing.append((self.joint_pub, joint_msg))
            transforms = []
            if self.kinematics is not None:
                transforms += [
                    adapters.transform(
                        self._frame(mt.parent), self._frame(mt.child), stamp, mt.translation[0], mt.rotation[0]
                    )
                    for mt in self.kinematics.moving_transforms([t])
                ]
            elif self.static_root is None and ("root_position" in frame or "root_orientation" in frame):
                transforms.append(
                    adapters.transform(
                        self.world_frame,
                        self.root_frame,
                        stamp,
                        frame.get("root_position", np.zeros(3)),
                        frame.get("root_orientation", np.array([0.0, 0.0, 0.0, 1.0])),
                    )
                )
            if publish_links:
                pos = frame.get("link.position")
                rot = frame.get("link.orientation")
                for i, child in enumerate(self.link_frames):
                    transforms.append(
                        adapters.transform(
                            self.world_frame,
                            child,
                            stamp,
                            pos[i] if pos is not None else (0.0, 0.0, 0.0),
                            rot[i] if rot is not None else (0.0, 0.0, 0.0, 1.0),
                        )
                    )
            if transforms:
                outgoing.append((self.tf_pub, TFMessage(transforms=transforms)))
            if self.clock_pub is not None:
                outgoing.append((self.clock_pub, Clock(clock=adapters.time_msg(round(played * 1e9)))))
            wait()
            if self._stop.is_set():
                return  # stopping: nothing more goes out
            for publisher, msg in outgoing:
                publisher.publish(msg)
            if not self.sim_time:
                self.timing.add(time.monotonic_ns() - tick)
            if finished and not end_reported:
                end_reported = True
                skipped = self._schedule.skipped if not self.sim_time else 0
                self.get_logger().info(
                    f"played to {t - float(m.times[0]):.3f} s; {skipped} ticks skipped; {self.timing.summary()}"
                )
                self._finished("stream")
                if self._param("exit_on_end"):
                    return

    # ----------------------------------------------------------------- trajectory
    def _send_trajectory(self) -> None:
        """Send the plan; with ``controller`` and ``loop``, a new goal after each success."""
        assert self.plan is not None
        repeat = isinstance(self.sender, ActionSender) and bool(self._param("loop"))
        while self.sender.execute(self.plan):
            if not repeat:
                self._finished("trajectory")
                return

    # ----------------------------------------------------------------- control
    def _srv_pause(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        with self._lock:
            elapsed = self._elapsed()
            if self._playing:
                self.clock_state.pause(elapsed)
            else:
                self._start_paused = True
            t = self.clock_state.motion_time(elapsed)
        response.success, response.message = True, f"paused at {t - float(self.motion.times[0]):.3f} s"
        return response

    def _srv_resume(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        with self._lock:
            if self._playing:
                self.clock_state.resume(self._elapsed())
            else:
                self._start_paused = False
        response.success, response.message = True, "playing"
        return response

    def _srv_restart(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        self.clock_state.restart(self._elapsed())
        response.success, response.message = True, "restarted"
        return response

    def _on_parameters(self, params: Sequence[Parameter[Any]]) -> SetParametersResult:
        problem = check_changes(PARAMETERS, params)
        if problem is not None:
            return SetParametersResult(successful=False, reason=problem)
        for p in params:
            if p.name == "rate":
                if self.limits and not self._param("ignore_limits"):
                    # Velocities scale with the speed factor: a faster replay may break a limit.
                    try:
                        check_limits(self.motion, self.limits, speed=p.value)
                    except LimitViolationError as exc:
                        return SetParametersResult(successful=False, reason=f"refused: {exc}")
                self.clock_state.set_speed(p.value, self._elapsed())
            elif p.name == "seek" and p.value >= 0:
                self.clock_state.seek(float(self.motion.times[0]) + p.value, self._elapsed())
        return SetParametersResult(successful=True)

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
        publishers = (self.joint_pub, self.tf_pub, self.trajectory_pub, self.tf_static_pub, self.clock_pub)
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
    return run(MotionPlayer, "motion_player", (MotionFormatError, PlayerError, ValueError), _stop, args, threads=2)


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
