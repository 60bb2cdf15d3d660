"""A playback session: everything the player does that needs no ROS.

:class:`PlayerConfig` declares the player's settings once (the node's ROS parameters,
their descriptions and checks are made from it). :class:`PlaybackSession` takes a motion
and a configuration and does the rest of the work the node used to do itself: the
joints to send (undefined values resolved, the robot's current state where needed), the
joint limits (a URDF, a Choreonoid ``.body`` or the file's own), the trajectory plan
and the playback clock (speed, pause, seek, loops). :func:`open_session` reads the file
first. The node keeps publishers, services, the action client and parameters only.
"""

from __future__ import annotations

import dataclasses
import threading
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import MotionFormatError, ReadError
from ..core.kinematics import Kinematics, MovingTransform, RobotModel, StaticTransform, load_robot_model
from ..core.model import Motion, MotionFile
from ..core.nonfinite import MissingJointError, defined_joints, first_nonfinite, resolve
from ..core.playback import FloatArray, FrameSampler, JointLimit, LimitViolationError, PlaybackClock, check_limits
from ..core.settings import setting
from ..core.trajectory import CHOICES, TrajectoryPlan, approach_speeds, plan_trajectory
from ..core.urdf import joint_limits
from ..registry import CODECS, codec_for_path, read

#: Highest JointState / TF rate (Hz) when the file's own rate is higher or unknown.
MAX_STREAM_RATE = 500.0
MODES = ("both", "stream", "trajectory")

#: How the session reports: ``log(level, text)`` with level ``info``, ``warning`` or ``error``.
Log = Callable[[str, str], None]


def _silent(level: str, text: str) -> None:
    """The default report: nothing."""


@dataclasses.dataclass(frozen=True)
class PlayerConfig:
    """The player's settings (each one a ROS parameter of the node, with this help)."""

    file: str = setting("", "motion file to play (any supported format)")
    format: str = setting("", "format name when the suffix/content is not enough (omf, seq, …)")
    group: str = setting("", "group to play (OMF target/actual…); default: the first")
    joint_names: tuple[str, ...] = setting((), "joint names for formats without them (Choreonoid .seq)")
    body_file: str = setting(
        "", "Choreonoid .body file naming the joints of a .seq; also the robot model (limits, robot_description)"
    )
    joints: tuple[str, ...] = setting(
        (),
        "joints to send, in this order (default: every joint of the file); a listed joint the file lacks "
        "holds its current position from state_topic",
    )
    state_topic: str = setting(
        "joint_states",
        "JointState topic with the robot's current positions, heard before playing (approach, undefined "
        "leading values, held joints); the player's own stream does not count",
    )
    mode: str = setting("both", "both | stream (JointState + TF) | trajectory (JointTrajectory only)", choices=MODES)
    rate: float = setting(1.0, "speed factor (2.0 = twice as fast); changeable at run time", above=0.0, runtime=True)
    loop: bool = setting(False, "repeat the motion (its own loop segment for .mof / repeating scenes)")
    start_time: float = setting(0.0, "start this many seconds into the motion", minimum=0.0)
    end_time: float = setting(0.0, "stop this many seconds into the motion (0 = the end)", minimum=0.0)
    start_paused: bool = setting(False, "wait for the resume service before playing")
    seek: float = setting(-1.0, "set at run time to jump to this motion time (s, from the motion start)", runtime=True)
    stream_rate: float = setting(0.0, "JointState/TF rate in Hz (0 = the file's rate, at most 500)", minimum=0.0)
    approach_time: float = setting(1.0, "seconds for the controller to reach the first point", minimum=0.0)
    start_delay: float = setting(
        0.0, "trajectory header stamp = now + this (s); 0 = stamp 0, the controller starts on receipt", minimum=0.0
    )
    trajectory_tolerance: float = setting(
        1e-3,
        "largest deviation (rad or m) of the controller's interpolation of the sent points from any frame "
        "of the file; fewer points the larger it is",
        minimum=0.0,
    )
    trajectory_interpolation: str = setting(
        "auto",
        "fields sent, hence joint_trajectory_controller's interpolation: linear (positions), cubic (+ velocities), "
        "quintic (+ accelerations); auto = cubic, keyframed files linear (their own)",
        choices=CHOICES,
    )
    controller: str = setting(
        "",
        "controller namespace (e.g. /arm_controller): send the motion as one FollowJointTrajectory goal to "
        "<controller>/follow_joint_trajectory instead of publishing on joint_trajectory",
    )
    wait_for_server: float = setting(
        10.0, "seconds to wait for the controller's action server (then exit 1 naming it)", minimum=0.0
    )
    path_tolerance: str | float = setting(
        "",
        'position tolerance while moving, rad or m: one number for every joint or a map "{joint: value}"; '
        "empty or 0 = the controller's default, -1 = none (with controller)",
    )
    goal_tolerance: str | float = setting(
        "", "position tolerance at the end, same form as path_tolerance (with controller)"
    )
    goal_time_tolerance: float = setting(
        0.0,
        "s the controller may take beyond the end to reach the goal; 0 = its default (with controller)",
        minimum=0.0,
    )
    chunk_duration: float = setting(
        0.0,
        "opt-in, 0 = one message: split the trajectory into messages of this many seconds for a controller "
        "that queues them (joint_trajectory_controller replaces its trajectory with each message)",
        minimum=0.0,
    )
    wait_for_subscribers: float = setting(
        5.0, "seconds to wait for subscribers before playing (0 = don't)", minimum=0.0
    )
    min_subscribers: int = setting(
        1, "how many subscribers to wait for (e.g. 2: a controller and a recorder)", minimum=1
    )
    world_frame: str = setting("world", "parent frame of the root pose")
    root_frame: str = setting("base_link", "frame of the root pose")
    frame_prefix: str = setting("", "prefix for the robot's frames (root and links)")
    publish_links: bool = setting(False, "also publish the link poses stored in the file on /tf")
    publish_clock: bool = setting(False, "publish /clock from the played motion time")
    robot_description: str = setting("", "URDF text: the joint limits, published on /robot_description", nonempty=True)
    urdf_file: str = setting(
        "", "URDF file: the joint limits, published on /robot_description (instead of robot_description)", nonempty=True
    )
    publish_link_tf: bool = setting(
        False, "with a robot model: every link's TF as robot_state_publisher would (for setups that run none)"
    )
    ignore_limits: bool = setting(False, "play even if the motion exceeds a joint limit")
    exit_on_end: bool = setting(True, "shut down when a non-looping motion has been played")


class PlayerError(MotionFormatError):
    """The player cannot start or go on (bad file, limits, settings); the node exits non-zero."""


@dataclasses.dataclass(frozen=True)
class LoadedMotion:
    """A motion file read for playing: the group to play and what the file adds to it.

    Attributes:
        motion: The group to play.
        label: The file and its format, for messages.
        scene: A scene's kinematics (its whole TF tree), when the file is a scene.
        limits: The joint limits the file itself states (a scene's), if any.
    """

    motion: Motion
    label: str
    scene: Kinematics | None = None
    limits: Mapping[str, JointLimit] = dataclasses.field(default_factory=dict)


def load(config: PlayerConfig, log: Log = _silent) -> LoadedMotion:
    """Read ``config.file`` (with its joint names or ``.body``) and pick the group to play."""
    path = config.file
    if not path:
        raise PlayerError("parameter 'file' is required (motion_player --ros-args -p file:=walk.seq)")
    options: dict[str, Any] = {}
    if config.joint_names:
        options["joint_names"] = list(config.joint_names)
    if config.body_file and _reads_option(path, config.format, "body"):
        options["body"] = Path(config.body_file)  # the joint names of a .seq; else only the robot model
    motion_file = read(path, format=config.format or None, **options)
    motion = motion_file.group(config.group or None)
    if motion.num_frames == 0:
        raise PlayerError(f"{path}: the motion has no frames")
    log(
        "info",
        f"loaded {path} ({motion_file.format}): {motion.num_frames} frames, {motion.duration:.3f} s, "
        f"{len(motion.joint_names)} joints"
        + (f", loop {motion.loop[0]:g}-{motion.loop[1]:g} s" if motion.loop else ""),
    )
    return LoadedMotion(
        motion,
        f"{path} ({motion_file.format})",
        _frame_tree(motion_file, config),
        dict(motion_file.joint_limits),
    )


def _reads_option(path: str, format_name: str, option: str) -> bool:
    """Whether the codec reading ``path`` takes ``option`` (True when unsure: reading will say)."""
    try:
        codec = CODECS[format_name] if format_name in CODECS else codec_for_path(path)
        return bool(codec.accepted({option: True}, "read"))
    except MotionFormatError:
        return True


def _frame_tree(motion_file: MotionFile, config: PlayerConfig) -> Kinematics | None:
    """The file's own TF tree (a scene's objects, links, what moves and what doesn't), or None."""
    if motion_file.frame_tree is None:
        return None
    return motion_file.frame_tree(config.world_frame)


@dataclasses.dataclass(frozen=True)
class RobotDescription:
    """The robot's URDF text, where it is from, and its model when already built.

    Attributes:
        urdf: The URDF text (for a ``.body``: the URDF made from it); what
            ``/robot_description`` carries.
        source: ``robot_description``, the URDF file or the ``.body`` file.
        from_body: Made from a Choreonoid ``.body`` (which need not state limits).
        model: The robot model (built from ``urdf`` when first needed, if None).
    """

    urdf: str
    source: str
    from_body: bool = False
    model: RobotModel | None = None


def robot_description(config: PlayerConfig) -> RobotDescription | None:
    """The robot's description from ``robot_description``, ``urdf_file`` or ``body_file``; or None."""
    if config.robot_description:
        return RobotDescription(config.robot_description, "robot_description")
    if config.urdf_file:
        try:
            return RobotDescription(Path(config.urdf_file).read_text(encoding="utf-8"), config.urdf_file)
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise PlayerError(f"{config.urdf_file}: {reason}") from None
    if config.body_file:
        try:
            model = load_robot_model(config.body_file)
        except ReadError as exc:
            raise PlayerError(str(exc)) from None
        return RobotDescription(model.description, config.body_file, from_body=True, model=model)
    return None


class PlaybackSession:
    """One motion played with one configuration: joints, limits, plan and clock, free of ROS.

    Args:
        loaded: The motion to play (from :func:`load`) or a bare :class:`Motion`.
        config: The settings.
        log: Where notes go, as ``log(level, text)``.
        robot: The robot's description (default: from ``config``).

    Raises:
        PlayerError: Nothing to play, joints the file lacks, a motion beyond the limits
            (unless ``ignore_limits``), a URDF none of whose joints the motion has.
    """

    def __init__(
        self,
        loaded: LoadedMotion | Motion,
        config: PlayerConfig,
        log: Log = _silent,
        robot: RobotDescription | None = None,
    ) -> None:
        if isinstance(loaded, Motion):
            loaded = LoadedMotion(loaded, "the motion")
        self.config = config
        self.log = log
        self.source = loaded.motion
        self.scene = loaded.scene
        self._lock = threading.Lock()
        # Until the robot's state is heard, undefined leading values take the file's first
        # defined value; joints only the state can give are left to the final resolution.
        self.motion = self.resolve({}, preliminary=True)
        self.robot = robot if robot is not None else robot_description(config)
        self._model: RobotModel | None = None
        self.limits, self.limits_source = self._limits(loaded.limits)
        if self.limits:
            checked = self._check(self.motion)
            if checked:
                self.log(
                    "info",
                    f"motion within the limits: {len(checked)} of the motion's {len(self.motion.joint_names)} joints "
                    f"checked against the limits from {self.limits_source}",
                )
        else:
            self.log("info", "no joint limits given (urdf_file, robot_description, body_file): nothing checked")
        self.clock = self._clock()
        self.sampler = FrameSampler(self.motion)
        rate = config.stream_rate
        if rate <= 0:
            rate = min(self.motion.rate or MAX_STREAM_RATE, MAX_STREAM_RATE)
        self.stream_rate = rate
        self.playing = False
        self.start_paused = config.start_paused

    # ----------------------------------------------------------------- joints
    def resolve(self, current: Mapping[str, float], preliminary: bool = False, heard_on: str = "") -> Motion:
        """The motion to play: the ``joints`` asked for, every value finite.

        ``current`` is the robot's state, as heard on the topic ``heard_on`` (default: ``state_topic``).
        """
        joints: list[str] = list(self.config.joints)
        if preliminary and joints:
            # Joints only the robot's state can give wait for it (the final resolution).
            defined = defined_joints(self.source)
            joints = [j for j in joints if j in defined] or list(defined)
        try:
            resolution = resolve(self.source, dict(current), joints or None)
        except MissingJointError as exc:
            raise PlayerError(f"{exc} (nothing heard on {heard_on or self.config.state_topic})") from None
        except ValueError as exc:
            raise PlayerError(f"joints: {exc}") from None
        if not preliminary:
            for note in resolution.notes:
                self.log(note.level, note.text)
        if not resolution.motion.joint_names:
            raise PlayerError("no joint to play: every joint of the motion is undefined")
        problem = first_nonfinite(resolution.motion)
        if problem is not None:  # resolve() leaves nothing undefined; never send it if it did
            raise PlayerError(f"undefined value left after resolution: {problem}")
        return resolution.motion

    def prepare(self, current: Mapping[str, float], heard_on: str = "") -> None:
        """The final motion, once the robot's state is known (empty: nobody publishes it on ``heard_on``)."""
        self.motion = self.resolve(current, heard_on=heard_on)
        if current and self.limits:
            self._check(self.motion)
        self.sampler = FrameSampler(self.motion)

    # ----------------------------------------------------------------- limits
    def _limits(self, file_limits: Mapping[str, JointLimit]) -> tuple[dict[str, JointLimit], str]:
        if self.robot is None:
            return dict(file_limits), "the file"
        text, source = self.robot.urdf, self.robot.source
        if not text.strip():
            raise PlayerError(f"{source}: empty robot description: no joint limits to check")
        try:
            limits = {
                name: limit
                for name, limit in joint_limits(text, source).items()
                if (limit.lower, limit.upper, limit.velocity) != (None, None, None)  # something to check
            }
        except ReadError as exc:
            raise PlayerError(str(exc)) from None
        names = set(self.source.joint_names)
        if self.robot.from_body and not limits:
            return dict(file_limits), "the file"  # a .body need not state limits
        if not names & set(limits):
            listed = ", ".join(sorted(limits)[:8]) + (", …" if len(limits) > 8 else "") or "none"
            raise PlayerError(
                f"{source}: none of its limited joints ({listed}) is a joint of the motion "
                f"({', '.join(self.source.joint_names[:8])}{', …' if len(self.source.joint_names) > 8 else ''}): "
                "the wrong robot model?"
            )
        return limits, source

    def _check(self, motion: Motion) -> list[str]:
        """The joints checked against the limits (empty when beyond them with ignore_limits).

        Raises:
            PlayerError: Beyond a limit, unless ``ignore_limits``.
        """
        try:
            check_limits(motion, self.limits, speed=self.config.rate)
        except LimitViolationError as exc:
            if not self.config.ignore_limits:
                raise PlayerError(f"refusing to play: {exc} (set ignore_limits to play anyway)") from None
            self.log("warning", f"playing beyond the limits (ignore_limits): {exc}")
            return []
        return [j for j in motion.joint_names if j in self.limits]

    def robot_model(self) -> RobotModel | None:
        """The robot's model (links and joints, for every link's TF), or None without a description.

        Raises:
            PlayerError: The description is not a valid robot model.
        """
        if self.robot is None:
            return None
        if self._model is None:
            self._model = self.robot.model
        if self._model is None:
            try:
                self._model = RobotModel.from_urdf(self.robot.urdf, self.robot.source)
            except ReadError as exc:
                raise PlayerError(str(exc)) from None
        return self._model

    def link_frames(self, quiet: bool = False, precompute: bool = True) -> LinkFrames:
        """robot_state_publisher's frames of the robot model for the motion as it is now.

        Which joints the model and the motion do not share is said (unless ``quiet``);
        ``precompute=False`` gives the static frames without computing every moving one.

        Raises:
            PlayerError: No robot description, or one that is not a valid model.
        """
        model = self.robot_model()
        if model is None:
            raise PlayerError("publish_link_tf needs a robot model: give urdf_file, robot_description or body_file")
        return LinkFrames(model, self.motion, self.config.frame_prefix, _silent if quiet else self.log, precompute)

    def speed_problem(self, speed: float) -> str | None:
        """Why playing at ``speed`` is refused (velocities scale with it), or None. Changes nothing."""
        if not self.limits or self.config.ignore_limits:
            return None
        try:
            check_limits(self.motion, self.limits, speed=speed)
        except LimitViolationError as exc:
            return f"refused: {exc}"
        return None

    # ----------------------------------------------------------------- trajectory
    def plan(self, current: Mapping[str, float]) -> TrajectoryPlan:
        """The trajectory to send (points within the tolerance), checked from the robot's state."""
        t0 = float(self.motion.times[0])
        clock = self.clock
        if clock.loop is not None and not self.config.controller:
            self.log("warning", "loop applies to the JointState/TF stream; the trajectory is sent once")
        try:
            plan = plan_trajectory(
                self.motion,
                start=clock.start if clock.start > t0 else None,
                end=clock.end if clock.end < float(self.motion.times[-1]) else None,
                speed=clock.speed,
                approach_time=self.config.approach_time,
                interpolation=self.config.trajectory_interpolation,
                tolerance=self.config.trajectory_tolerance,
            )
        except ValueError as exc:
            raise PlayerError(f"cannot send the trajectory: {exc}") from None
        for note in plan.notes:
            self.log("info", note)
        if current:
            self._check_approach(plan, current)
        return plan

    def _check_approach(self, plan: TrajectoryPlan, current: Mapping[str, float]) -> None:
        """The controller's way from the robot's state to the first point, against the limits."""
        speeds = approach_speeds(plan, current)
        if not speeds:
            return
        joint = max(speeds, key=lambda j: speeds[j])
        col = plan.joint_names.index(joint)
        move = abs(float(plan.positions[0, col]) - current[joint])
        self.log(
            "info",
            f"approach from the current state: largest move {move:.4g} on {joint!r} in "
            f"{plan.time_from_start_ns[0] / 1e9:g} s (peak {speeds[joint]:.3g}/s)",
        )
        for name, speed in speeds.items():
            limit = self.limits.get(name)
            if limit is not None and limit.velocity is not None and speed > limit.velocity * (1 + 1e-6):
                message = (
                    f"the approach from the current state moves {name!r} at {speed:.3g} rad/s, beyond its velocity "
                    f"limit {limit.velocity:g}: raise approach_time"
                )
                if not self.config.ignore_limits:
                    raise PlayerError(f"refusing to play: {message}")
                self.log("warning", f"playing beyond the limits (ignore_limits): {message}")

    # ----------------------------------------------------------------- timing
    def _clock(self) -> PlaybackClock:
        m, config = self.motion, self.config
        t0 = float(m.times[0])
        start = t0 + config.start_time
        end = t0 + config.end_time if config.end_time > 0 else float(m.times[-1])
        end = min(end, float(m.times[-1]))
        if start > end:
            raise PlayerError(f"start_time {config.start_time} is after the end of the motion")
        loop: tuple[float, float] | None = None
        if config.loop:
            if m.loop is not None and start <= m.loop[0] and m.loop[1] <= end + 1e-9:
                loop = m.loop
            elif end > start:
                loop = (start, end)
        clock = PlaybackClock(start, end, loop, speed=config.rate)
        # The clock waits paused until playback starts; pause/resume meanwhile only say
        # whether it will start paused.
        clock.pause(0.0)
        return clock

    def begin(self) -> None:
        """Playback starts now (elapsed time 0), paused if asked to."""
        with self._lock:
            self.clock.rebase(0.0)
            if not self.start_paused:
                self.clock.resume(0.0)
            self.playing = True

    def pause(self, elapsed: float) -> float:
        """Pause (before the start: start paused); returns the motion time shown, from the motion's start."""
        with self._lock:
            if self.playing:
                self.clock.pause(elapsed)
            else:
                self.start_paused = True
            return self.clock.motion_time(elapsed) - float(self.motion.times[0])

    def resume(self, elapsed: float) -> None:
        with self._lock:
            if self.playing:
                self.clock.resume(elapsed)
            else:
                self.start_paused = False

    def restart(self, elapsed: float) -> None:
        self.clock.restart(elapsed)

    def set_speed(self, speed: float, elapsed: float) -> None:
        self.clock.set_speed(speed, elapsed)
        self.config = dataclasses.replace(self.config, rate=speed)

    def seek(self, offset: float, elapsed: float) -> None:
        """Jump to ``offset`` seconds from the motion's start."""
        self.clock.seek(float(self.motion.times[0]) + offset, elapsed)

    def constant_root(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The root pose when it never moves (a fixed-base arm), else None."""
        m = self.motion
        if m.root_position is None and m.root_orientation is None:
            return None
        pos = m.root_position if m.root_position is not None else np.zeros((m.num_frames, 3))
        rot = m.root_orientation if m.root_orientation is not None else np.tile([0.0, 0.0, 0.0, 1.0], (m.num_frames, 1))
        if np.all(pos == pos[0]) and np.all(rot == rot[0]):
            return pos[0], rot[0]
        return None


#: Values (frames × movable joints × 7) up to which every frame's link transforms are computed ahead.
PRECOMPUTE_VALUES = 20_000_000


class LinkFrames:
    """A robot model's frames for one motion: fixed joints once, movable joints at any time.

    As robot_state_publisher makes them: one transform per joint, parent link → child
    link, named with ``prefix``. The movable joints' transforms of every frame of the
    motion are computed at once (vectorised) when they fit in :data:`PRECOMPUTE_VALUES`;
    a time between frames is computed from its interpolated joint values.

    Args:
        model: The robot model.
        motion: The motion played (single-valued joints drive the model's joints).
        prefix: Put before every link name.
        log: Where the joints that model and motion do not share are said.
        precompute: Compute every frame's transforms now (else each is computed when asked for).
    """

    def __init__(
        self, model: RobotModel, motion: Motion, prefix: str, log: Log = _silent, precompute: bool = True
    ) -> None:
        starts = np.concatenate([[0], np.cumsum(motion.joint_dims)[:-1]]).astype(int)
        joints = zip(motion.joint_names, motion.joint_dims, starts, strict=True)
        single = [(name, int(col)) for name, dim, col in joints if dim == 1]  # what a model's joint takes
        self.model = model
        self.prefix = prefix
        self.names = [name for name, _ in single]
        self.columns = np.array([col for _, col in single], dtype=int)
        self.times = motion.times
        values = motion.position[:, self.columns] if motion.position is not None else None
        first = values[:1] if values is not None else np.zeros((1, len(self.names)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            static, moving = model.joint_transforms(self.names, first, prefix)
        for w in caught:
            log("warning", str(w.message))
        self.static: list[StaticTransform] = static
        self._table: list[MovingTransform] | None = None
        if precompute and values is not None and motion.num_frames * len(moving) * 7 <= PRECOMPUTE_VALUES:
            self._table = model.joint_transforms(self.names, values, prefix, warn=False)[1]

    def at(self, t: float, position: FloatArray | None) -> list[tuple[str, str, FloatArray, FloatArray]]:
        """(parent, child, translation, rotation x y z w) of every movable joint at motion time ``t``.

        ``position`` is the motion's joint values at ``t`` (its columns).
        """
        table = self._table
        if table is not None:
            i = int(np.searchsorted(self.times, t))
            for k in (i, i - 1):
                if 0 <= k < len(self.times) and abs(float(self.times[k]) - t) <= 1e-9:
                    return [(mt.parent, mt.child, mt.translation[k], mt.rotation[k]) for mt in table]
        values = position[self.columns] if position is not None else np.zeros(len(self.names))
        moving = self.model.joint_transforms(self.names, values[None, :], self.prefix, warn=False)[1]
        return [(mt.parent, mt.child, mt.translation[0], mt.rotation[0]) for mt in moving]


def open_session(config: PlayerConfig, log: Log = _silent) -> PlaybackSession:
    """Read the configured file and make its session."""
    return PlaybackSession(load(config, log), config, log)
