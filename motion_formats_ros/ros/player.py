"""``motion_player``: plays any supported motion file into ROS 2.

Publishes the motion as a ``trajectory_msgs/JointTrajectory`` (for a
joint_trajectory_controller), streams ``sensor_msgs/JointState`` at a fixed rate, and
publishes the root pose (and, on request, link poses) on ``/tf``. Playback control:
speed factor, loop, start/end times, pause/resume/restart services, ``seek`` and
``rate`` changeable at run time, ``publish_clock``. Motions beyond the robot's joint
limits (from a URDF) are refused unless ``ignore_limits`` is set.

    motion_player --ros-args -p file:=walk.seq -p loop:=true
"""

from __future__ import annotations

import gc
import math
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from rcl_interfaces.msg import SetParametersResult
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_srvs.srv import Trigger
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectory

from .. import read
from ..core.errors import MotionFormatError
from ..core.model import Motion
from ..core.playback import (
    FrameSampler,
    JointLimit,
    Lateness,
    LimitViolationError,
    PlaybackClock,
    Schedule,
    check_limits,
    trajectory_plan,
)
from ..core.urdf import joint_limits
from . import adapters
from .spin import declare_parameters, run

MAX_STREAM_RATE = 500.0
#: Seconds to wait after our publisher has matched its readers, for them to match us.
MATCH_SETTLE = 0.2
MODES = ("both", "stream", "trajectory")

#: name → (default, description). Types follow the defaults.
PARAMETERS: dict[str, tuple[Any, str]] = {
    "file": ("", "motion file to play (any supported format)"),
    "format": ("", "format name when the suffix/content is not enough (omf, seq, …)"),
    "group": ("", "group to play (OMF target/actual…); default: the first"),
    "joint_names": ([""], "joint names for formats without them (Choreonoid .seq)"),
    "body_file": ("", "Choreonoid .body file naming the joints of a .seq"),
    "mode": ("both", "both | stream (JointState + TF) | trajectory (JointTrajectory only)"),
    "rate": (1.0, "speed factor (2.0 = twice as fast); changeable at run time"),
    "loop": (False, "repeat the motion (its own loop segment for .mof / repeating scenes)"),
    "start_time": (0.0, "start this many seconds into the motion"),
    "end_time": (0.0, "stop this many seconds into the motion (0 = the end)"),
    "start_paused": (False, "wait for the resume service before playing"),
    "seek": (-1.0, "set at run time to jump to this motion time (s, from the motion start)"),
    "stream_rate": (0.0, "JointState/TF rate in Hz (0 = the file's rate, at most 500)"),
    "approach_time": (1.0, "seconds for the controller to reach the first point"),
    "start_delay": (0.0, "trajectory header stamp = now + this (s); 0 = stamp 0, the controller starts on receipt"),
    "chunk_duration": (10.0, "split longer trajectories into chunks of this many seconds (0 = never)"),
    "derive_velocities": (False, "send velocities/accelerations derived from positions when the file has none"),
    "wait_for_subscribers": (5.0, "seconds to wait for subscribers before playing (0 = don't)"),
    "min_subscribers": (1, "how many subscribers to wait for (e.g. 2: a controller and a recorder)"),
    "world_frame": ("world", "parent frame of the root pose"),
    "root_frame": ("base_link", "frame of the root pose"),
    "frame_prefix": ("", "prefix for the robot's frames (root and links)"),
    "publish_links": (False, "also publish the link poses stored in the file on /tf"),
    "publish_clock": (False, "publish /clock from the played motion time"),
    "robot_description": ("", "URDF text with the joint limits"),
    "urdf_file": ("", "URDF file with the joint limits (instead of robot_description)"),
    "ignore_limits": (False, "play even if the motion exceeds a joint limit"),
    "exit_on_end": (True, "shut down when a non-looping motion has been played"),
}


class PlayerError(MotionFormatError):
    """The player cannot start (bad file, limits, parameters); the node exits non-zero."""


class MotionPlayer(Node):
    """The player node; all playback arithmetic lives in motion_formats_ros.core.playback."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("motion_player", **kwargs)
        declare_parameters(self, PARAMETERS)
        self.done = threading.Event()
        self.exit_code = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

        self.mode = self._param("mode")
        if self.mode not in MODES:
            raise PlayerError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        self.motion = self._load()
        self._check_limits()
        self._setup_playback()
        self._setup_publishers()
        self.add_on_set_parameters_callback(self._on_parameters)
        for service, handler in (
            ("~/pause", self._srv_pause),
            ("~/resume", self._srv_resume),
            ("~/restart", self._srv_restart),
        ):
            self.create_service(Trigger, service, handler)
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
        self.file_extras = motion_file.extras
        self.kinematics: Any = None
        if motion_file.format == "scene":
            from ..codecs.scene.kinematics import SceneKinematics

            # A scene describes its whole TF tree: objects, links, what moves and what doesn't.
            self.kinematics = SceneKinematics.from_file(path, world_frame=self._param("world_frame"))
        if motion.num_frames == 0:
            raise PlayerError(f"{path}: the motion has no frames")
        self.get_logger().info(
            f"loaded {path} ({motion_file.format}): {motion.num_frames} frames, {motion.duration:.3f} s, "
            f"{len(motion.joint_names)} joints"
            + (f", loop {motion.loop[0]:g}-{motion.loop[1]:g} s" if motion.loop else "")
        )
        return motion

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
            limits = _scene_limits(self.file_extras.get("joint_limits"))
            source = "the scene"
            if not limits:
                return
        self.limits = limits
        try:
            check_limits(self.motion, limits, speed=self._param("rate"))
        except LimitViolationError as exc:
            if not self._param("ignore_limits"):
                raise PlayerError(f"refusing to play: {exc} (set ignore_limits to play anyway)") from None
            self.get_logger().warning(f"playing beyond the limits (ignore_limits): {exc}")
        else:
            self.get_logger().info(f"motion within the limits of {len(limits)} joints from {source}")

    def _setup_playback(self) -> None:
        m = self.motion
        t0 = float(m.times[0])
        start = t0 + max(self._param("start_time"), 0.0)
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
        if self._param("start_paused"):
            self.clock_state.pause(0.0)

    def _setup_publishers(self) -> None:
        deep = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
        self.joint_pub = self.create_publisher(JointState, "joint_states", deep)
        self.trajectory_pub = self.create_publisher(JointTrajectory, "joint_trajectory", 10)
        self.tf_pub = self.create_publisher(TFMessage, "/tf", deep)
        static_qos = QoSProfile(
            depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE
        )
        self.tf_static_pub = self.create_publisher(TFMessage, "/tf_static", static_qos)
        self.clock_pub = self.create_publisher(Clock, "/clock", 10) if self._param("publish_clock") else None
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

    def _start_when_subscribed(self) -> None:
        """Wait (bounded) for a subscriber so the first messages are not lost, then play.

        Messages sent before a controller (or any reader) has matched are dropped by DDS;
        the trajectory is waited for in trajectory/both mode, the JointState stream in
        stream mode. Stream and trajectory then start from the same instant.
        """
        publisher = self.trajectory_pub if self.mode in ("both", "trajectory") else self.joint_pub
        timeout = self._param("wait_for_subscribers")
        wanted = max(int(self._param("min_subscribers")), 1)
        deadline = time.monotonic() + timeout
        while timeout > 0 and publisher.get_subscription_count() < wanted:
            if time.monotonic() > deadline:
                self.get_logger().warning(
                    f"no subscriber on {publisher.topic_name} after {timeout:g} s; playing anyway"
                )
                break
            if self._stop.wait(0.02):
                return
        else:
            # Matching is seen from our side first; give the readers a moment to match us
            # too, or they drop what arrives before (DDS volatile readers do).
            if timeout > 0 and self._stop.wait(MATCH_SETTLE):
                return
        if self.sim_time:
            # Wait for /clock: playback follows simulated time from its first value on.
            while self.get_clock().now().nanoseconds == 0:
                if self._stop.wait(0.01):
                    return
        with self._lock:
            self._elapsed_origin = self._now()
            self._stamp_origin = self.get_clock().now().nanoseconds
        workers = []
        if self.mode in ("both", "stream"):
            workers.append(("stream", self._stream_loop))
        if self.mode in ("both", "trajectory"):
            workers.append(("trajectory", self._send_trajectory))
        self._pending = {name for name, _ in workers}
        for name, target in workers:
            self._spawn(target, name)

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
        except Exception as exc:  # a crash in a worker must end the node with its message
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
            schedule = Schedule(self.stream_rate, start_ns=self._elapsed_origin)
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
            with self._lock:
                elapsed = self._elapsed(tick)
                t = self.clock_state.motion_time(elapsed)
                played = self.clock_state.played(elapsed)
                finished = self.clock_state.finished(elapsed)
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
        if self.clock_state.loop is not None:
            self.get_logger().warning("loop applies to the JointState/TF stream; the trajectory is sent once")
        t0 = float(self.motion.times[0])
        plan = trajectory_plan(
            self.motion,
            start=self.clock_state.start if self.clock_state.start > t0 else None,
            end=self.clock_state.end if self.clock_state.end < float(self.motion.times[-1]) else None,
            speed=self.clock_state.speed,
            approach_time=self._param("approach_time"),
            derive=self._param("derive_velocities"),
            chunk_duration=self._param("chunk_duration"),
        )
        delay = max(self._param("start_delay"), 0.0)
        if len(plan.chunks) == 1:
            stamp = self.get_clock().now().nanoseconds + round(delay * 1e9) if delay > 0 else 0
            self.trajectory_pub.publish(adapters.trajectory_chunk(plan, plan.chunks[0], stamp))
            self.get_logger().info(f"sent trajectory: {plan.time_from_start.size} points, {plan.duration:.3f} s")
            wait_until = time.monotonic() + delay + plan.duration
        else:
            # Chunks share one absolute start so the controller splices them; each is sent
            # half a chunk before it starts.
            lead = max(0.2, delay)
            start_ns = self.get_clock().now().nanoseconds + int(lead * 1e9)
            start_mono = time.monotonic() + lead
            chunk_duration = self._param("chunk_duration")
            for first, last in plan.chunks:
                send_at = start_mono + float(plan.time_from_start[first]) - chunk_duration / 2
                if self._stop.wait(max(0.0, send_at - time.monotonic())):
                    return
                self.trajectory_pub.publish(adapters.trajectory_chunk(plan, (first, last), start_ns))
            self.get_logger().info(
                f"sent trajectory in {len(plan.chunks)} chunks: {plan.time_from_start.size} points, "
                f"{plan.duration:.3f} s"
            )
            wait_until = start_mono + plan.duration
        # Stay up while the controller executes it (logs and services stay available).
        if not self._stop.wait(max(0.0, wait_until - time.monotonic())):
            self._finished("trajectory")

    # ----------------------------------------------------------------- control
    def _srv_pause(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        with self._lock:
            self.clock_state.pause(self._elapsed())
            t = self.clock_state.motion_time(self._elapsed())
        response.success, response.message = True, f"paused at {t - float(self.motion.times[0]):.3f} s"
        return response

    def _srv_resume(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        with self._lock:
            self.clock_state.resume(self._elapsed())
        response.success, response.message = True, "playing"
        return response

    def _srv_restart(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        with self._lock:
            self.clock_state.restart(self._elapsed())
        response.success, response.message = True, "restarted"
        return response

    def _on_parameters(self, params: Sequence[Parameter[Any]]) -> SetParametersResult:
        for p in params:
            if p.name == "rate":
                if not (isinstance(p.value, float) and p.value > 0 and math.isfinite(p.value)):
                    return SetParametersResult(successful=False, reason="rate must be a positive number")
                if self.limits and not self._param("ignore_limits"):
                    # Velocities scale with the speed factor: a faster replay may break a limit.
                    try:
                        check_limits(self.motion, self.limits, speed=p.value)
                    except LimitViolationError as exc:
                        return SetParametersResult(successful=False, reason=f"refused: {exc}")
                with self._lock:
                    self.clock_state.set_speed(p.value, self._elapsed())
            elif p.name == "seek":
                if p.value >= 0:
                    with self._lock:
                        self.clock_state.seek(float(self.motion.times[0]) + p.value, self._elapsed())
            elif p.name in ("file", "format", "group", "mode", "joint_names", "body_file"):
                return SetParametersResult(successful=False, reason=f"{p.name} can only be set at start")
        return SetParametersResult(successful=True)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2.0)


def _no_wait() -> None:
    """Sim-time ticks are published when the clock has reached them already."""


def _scene_limits(raw: Any) -> dict[str, JointLimit]:
    """JointLimits from a scene's limits (minValue / maxValue / maxVelocity)."""
    if not isinstance(raw, dict):
        return {}
    return {
        str(name): JointLimit(lower=spec.get("minValue"), upper=spec.get("maxValue"), velocity=spec.get("maxVelocity"))
        for name, spec in raw.items()
        if isinstance(spec, dict)
    }


def _stop(node: MotionPlayer, code: int) -> int:
    node.stop()
    return code


def main(args: list[str] | None = None) -> int:
    """Entry point (``motion_player``); returns the exit status."""
    return run(MotionPlayer, "motion_player", (MotionFormatError, PlayerError, ValueError), _stop, args)


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
