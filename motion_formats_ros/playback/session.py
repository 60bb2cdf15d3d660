"""A playback session: everything the player does that needs no ROS.

:class:`PlaybackSession` takes a motion and a :class:`~.config.PlayerConfig`
and a configuration and does the rest of the work the node used to do itself: the
joints to send (undefined values resolved, the robot's current state where needed), the
joint limits (a URDF, a Choreonoid ``.body`` or the file's own), the trajectory plan
and the playback clock (speed, pause, seek, loops). :func:`open_session` reads the file
first. The node keeps publishers, services, the action client and parameters only.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import MotionFormatError, ReadError, command_line, fixed
from ..core.joint_limits import JointLimits, followers
from ..core.kinematics import Kinematics, RobotModel, load_robot_model
from ..core.model import JointLimit, Motion, MotionFile
from ..core.nonfinite import MissingJointError, defined_joints, first_nonfinite, resolve
from ..registry import CODECS, CodecInfo, codec_for_path, read, with_body
from ..safety import Checker
from ..safety.gate import check_before_playing
from ..safety.limits import LimitViolationError, check_limits
from .clock import PlaybackClock
from .config import MAX_STREAM_RATE, PARAMETER_SPELLING, Log, PlayerConfig, PlayerError
from .config import silent as _silent
from .emit import LinkFrames
from .mimic import follow_leaders
from .plan import TrajectoryPlan, approach_speeds, plan_trajectory, played_window
from .sampler import FrameSampler


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
        raise PlayerError(
            "parameter 'file' is required (motion_player --ros-args -p file:=walk.seq; "
            "motion_player --help lists every parameter)"
        )
    options: dict[str, Any] = {}
    if config.joint_names:
        options["joint_names"] = list(config.joint_names)
    reader = _reader(path, config.format)
    if config.body_file and reader is not None:  # the joint names of a .seq; else only the robot model
        options = with_body(options, reader, body=Path(config.body_file))[0]
    motion_file = read(path, format=config.format or None, **options)
    motion = motion_file.group(config.group or None)
    if motion.num_frames == 0:
        raise PlayerError(f"{path}: the motion has no frames")
    log(
        "info",
        f"loaded {path} ({motion_file.format}): {motion.num_frames} frames, {fixed(motion.duration)} s, "
        f"{len(motion.joint_names)} joints"
        + (f", loop {motion.loop[0]:g}-{motion.loop[1]:g} s" if motion.loop else ""),
    )
    return LoadedMotion(
        motion,
        f"{path} ({motion_file.format})",
        _frame_tree(motion_file, config),
        dict(motion_file.joint_limits),
    )


def _reader(path: str, format_name: str) -> CodecInfo | None:
    """The codec that reads ``path``, or None when none does (the read then says why)."""
    try:
        return CODECS[format_name] if format_name in CODECS else codec_for_path(path)
    except MotionFormatError:
        return None


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
    if config.urdf_file:  # the one robot-model loader: a URDF or a .urdf.xacro
        model = _load_model(config.urdf_file)
        return RobotDescription(model.description, config.urdf_file, model=model)
    if config.body_file:
        model = _load_model(config.body_file)
        return RobotDescription(model.description, config.body_file, from_body=True, model=model)
    return None


def _load_model(path: str) -> RobotModel:
    try:
        return load_robot_model(path)
    except ReadError as exc:
        if _blank(Path(path)):
            raise PlayerError(f"{path}: empty robot description: no joint limits to check") from None
        raise PlayerError(str(exc)) from None
    except MotionFormatError as exc:  # e.g. a .xacro without the xacro package
        raise PlayerError(str(exc)) from None


def _blank(path: Path) -> bool:
    try:
        return path.is_file() and not path.read_bytes().strip()
    except OSError:
        return False


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
        self.robot = robot if robot is not None else robot_description(config)
        self._model: RobotModel | None = None
        self._checker: Checker | None = None  # the robot model prepared for the collision check
        # Mimic joints of the robot model: the motion's columns for them follow their leader.
        model = self.robot_model()
        self.followers = followers(model) if model is not None else {}
        # Until the robot's state is heard, undefined leading values take the file's first
        # defined value; joints only the state can give are left to the final resolution.
        self.motion = self.resolve({}, preliminary=True)
        self.limits, self.limits_source = self._limits(loaded.limits)
        # The speed lives in the clock alone: ``config.speed`` is only where it starts.
        self.clock = self._clock()
        self._preflight(self.motion, first=True)
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
        motion, following, orphans = follow_leaders(resolution.motion, self.followers)
        if following and preliminary:  # said once, at the start
            self.log(
                "info", "mimic joints sent as their leader gives them: " + "; ".join(f.describe() for f in following)
            )
        for f in orphans if preliminary else ():
            self.log("warning", f"{f.describe()}, which the motion lacks: {f.joint!r} follows it held at 0")
        return motion

    def prepare(self, current: Mapping[str, float], heard_on: str = "") -> None:
        """The final motion, once the robot's state is known (empty: nobody publishes it on ``heard_on``)."""
        self.motion = self.resolve(current, heard_on=heard_on)
        if current:  # the robot's state changed what is played: checked again
            self._preflight(self.motion)
        self.sampler = FrameSampler(self.motion)

    # ----------------------------------------------------------------- checks before playing
    def _preflight(self, motion: Motion, first: bool = False) -> None:
        """Every check made before ``motion`` is played: the one place for them.

        Run on the file's motion when the session is made (``first``: the log says what was
        checked) and again on the final motion when the robot's state has changed it: the
        collision check (when the robot model has collision geometry: self-collision and the
        floor refuse, balance warns) and the joint limits (a mimic joint against its own).

        Raises:
            PlayerError: A check refuses the motion.
        """
        model = self.robot_model()
        if model is not None:
            try:
                with command_line(PARAMETER_SPELLING):  # a message names the parameter that sets it
                    self._checker = check_before_playing(
                        self._checker or model,
                        motion,
                        self.log,
                        srdf=self.config.srdf_file or None,
                        package_paths=self.config.package_path,
                        ignore=self.config.ignore_collisions,
                    )
            except MotionFormatError as exc:
                raise PlayerError(str(exc)) from None
        if not self.limits:
            if first:
                self.log("info", "no joint limits given (urdf_file, robot_description, body_file): nothing checked")
            return
        checked = self._check(motion)
        if first and checked:
            self.log(
                "info",
                f"motion within the limits: {len(checked)} of the motion's {len(motion.joint_names)} joints "
                f"checked against the limits from {self.limits_source}",
            )

    # ----------------------------------------------------------------- limits
    def _limits(self, file_limits: Mapping[str, JointLimit]) -> tuple[JointLimits, str]:
        model = self.robot_model()
        if self.robot is None or model is None:
            return JointLimits(file_limits), "the file"
        limits = JointLimits.of_model(model)  # mimic joints too: each one against its own limits
        names = set(self.source.joint_names)
        if self.robot.from_body and not limits:
            return JointLimits(file_limits), "the file"  # a .body need not state limits
        source = self.robot.source
        if not names & set(limits) and not any(f.leader in names for f in self.followers.values() if f.joint in limits):
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
            check_limits(
                self._played(motion, self.clock.speed),
                self.limits,
                speed=self.clock.speed,
                interpolation=self.config.trajectory_interpolation,
            )
        except LimitViolationError as exc:
            follower = self.followers.get(exc.joint)
            if follower is not None:
                exc = LimitViolationError(f"{exc}; {follower.describe()}", exc.joint)
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
            if not self.robot.urdf.strip():
                raise PlayerError(f"{self.robot.source}: empty robot description: no joint limits to check")
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
            played = self._played(self.motion, speed)
            check_limits(played, self.limits, speed=speed, interpolation=self.config.trajectory_interpolation)
        except LimitViolationError as exc:
            return f"refused: {exc}"
        return None

    # ----------------------------------------------------------------- trajectory
    def _played(self, motion: Motion, speed: float) -> Motion:
        """The part of ``motion`` played (start_time .. end_time), as the trajectory sends it: the
        one motion the limit check judges and :meth:`plan` plans.

        Raises:
            PlayerError: The window cannot be cut (naming start_time and end_time).
        """
        clock = self.clock
        start = clock.start if clock.start > float(motion.times[0]) else None
        end = clock.end if clock.end < float(motion.times[-1]) else None
        try:
            return played_window(motion, start, end, speed)
        except ValueError as exc:
            raise PlayerError(f"{self._cut_named()}: {exc}") from None

    def _cut_named(self) -> str:
        """The parameters that cut the window played, as a message names them."""
        return f"start_time {self.config.start_time:g}, end_time {self.config.end_time:g}"

    def plan(self, current: Mapping[str, float]) -> TrajectoryPlan:
        """The trajectory to send (points within the tolerance), checked from the robot's state."""
        clock = self.clock
        if clock.loop is not None and not self.config.controller:
            self.log("warning", "loop applies to the JointState/TF stream; the trajectory is sent once")
        played = self._played(self.motion, clock.speed)
        try:
            plan = plan_trajectory(
                played,
                speed=clock.speed,
                approach_time=self.config.approach_time,
                interpolation=self.config.trajectory_interpolation,
                tolerance=self.config.trajectory_tolerance,
            )
        except ValueError as exc:
            cut = played is not self.motion
            where = f" ({self._cut_named()})" if cut else ""
            raise PlayerError(f"cannot send the trajectory{where}: {exc}") from None
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
        if config.end_time > 0 and config.end_time < config.start_time:
            raise PlayerError(f"end_time {config.end_time:g} is before start_time {config.start_time:g}")
        if start > end:
            raise PlayerError(
                f"start_time {config.start_time:g} is after the end of the motion ({float(m.times[-1]) - t0:g} s)"
            )
        loop: tuple[float, float] | None = None
        if config.loop:
            if m.loop is not None and start <= m.loop[0] and m.loop[1] <= end + 1e-9:
                loop = m.loop
            elif end > start:
                loop = (start, end)
        clock = PlaybackClock(start, end, loop, speed=config.speed)
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

    @property
    def speed(self) -> float:
        """The speed factor playing now (the clock's: set with :meth:`set_speed`)."""
        return self.clock.speed

    def set_speed(self, speed: float, elapsed: float) -> None:
        self.clock.set_speed(speed, elapsed)

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


def open_session(config: PlayerConfig, log: Log = _silent) -> PlaybackSession:
    """Read the configured file and make its session."""
    return PlaybackSession(load(config, log), config, log)
