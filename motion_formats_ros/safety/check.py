"""The motion check: a motion's frames on its robot model, and what would hurt the robot.

Example::

    from motion_formats_ros import read
    from motion_formats_ros.safety import check

    report = check(read("wave.omf"), "panda.urdf", srdf="panda.srdf")
    for finding in report.findings:
        print(finding.kind, finding.links or finding.joint, finding.intervals, finding.worst)

The frames are the motion's own (a keyframe motion's keyframes) and, for a keyframe motion,
its frames sampled at ``rate`` with its own interpolation (:mod:`.frames`). The root link is placed by the
motion's root pose when it has one (the robot is then free-floating and its balance is
checked); otherwise upright above the origin, as high as makes the lowest point of its
collision shapes in the first frame rest on the ground (and the report says so).
:class:`Checker` prepares a model once (meshes, pairs, masses, limits) for many checks.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionValueError, ReadError, number, spelled
from ..core.joint_limits import JointLimits
from ..core.kinematics import RobotModel, load_robot_model
from ..core.memory import require_room
from ..core.model import Motion, MotionFile
from ..core.notices import collect
from ..core.spatial import quat_to_matrix
from . import dynamics
from .collide import Contacts, SelfCollision
from .dynamics import Masses, support_distance, zmp
from .findings import (
    BalanceSeries,
    BeyondFloatRangeError,
    CheckReport,
    Finding,
    first_overflow,
    intervals,
    sort_findings,
)
from .frames import DEFAULT_RATE, CheckedFrames, checked_frames, frame_count
from .limits import limit_findings
from .pairs import candidate_pairs, choose_pairs, read_srdf
from .shapes import Shape, collision_shapes, shape_poses

FloatArray = npt.NDArray[np.float64]

#: Frames whose shapes are posed together (bounded memory: their poses, and each shape's points'
#: heights for the floor): at most this many, and at most :data:`_CHUNK_POSES` frames × shapes.
_CHUNK = 1024
_CHUNK_POSES = 1 << 20


class Checker:
    """A robot model prepared for checking motions.

    Args:
        model: The robot model, or its file (URDF, ``.urdf.xacro`` or Choreonoid ``.body``).
        srdf: An SRDF whose ``disable_collisions`` pairs are not checked.
        limits: A MoveIt ``joint_limits.yaml`` (overrides and adds to the model's limits).
        package_paths: Folders to find ``package://`` meshes in (after ``AMENT_PREFIX_PATH``
            and ``ROS_PACKAGE_PATH``).
        floor_tolerance: How far (m) collision geometry may go below the ground.
        balance_margin: How far (m) the ZMP may leave the support polygon.
        contact_height: Points of the collision shapes below this height (m) support the robot.

    Raises:
        ReadError: A model, SRDF, limits or mesh file that cannot be read (naming it).
        MissingDependencyError: coal or trimesh (the ``check`` extra) is not installed.
    """

    def __init__(
        self,
        model: RobotModel | str | os.PathLike[str],
        *,
        srdf: str | os.PathLike[str] | None = None,
        limits: str | os.PathLike[str] | None = None,
        package_paths: Iterable[str | os.PathLike[str]] = (),
        floor_tolerance: float = 0.005,
        balance_margin: float = 0.01,
        contact_height: float = 0.01,
    ) -> None:
        started = time.perf_counter()
        self.model = model if isinstance(model, RobotModel) else load_robot_model(model)
        self.floor_tolerance = float(floor_tolerance)
        self.balance_margin = float(balance_margin)
        self.contact_height = float(contact_height)
        self.notes: list[str] = []
        self.shapes: list[Shape] = collision_shapes(self.model, package_paths)
        rules = self.model.collision_filter() if srdf is None else None
        if rules is not None and rules.links:  # links the model's rules take out of all collision detection
            self.shapes = [s for s in self.shapes if s.link not in rules.links]
            self.notes.append(
                f"the model's collision rules take {', '.join(sorted(rules.links))} out of collision detection "
                "(self-collision, floor and support)"
            )
        linked = list(dict.fromkeys(s.link for s in self.shapes))
        touching: set[frozenset[str]] = set()
        if srdf is None and rules is None and self.shapes:
            touching = self._touching_at_zero(linked)
        choice = choose_pairs(self.model, linked, srdf, touching)
        self.pairs = choice.pairs
        self.notes += choice.notes
        # no collision geometry: nothing to collide, and no collision library needed
        self.collider = SelfCollision(self.shapes, self.pairs) if self.shapes else None
        self.masses = Masses.of(self.model)
        base = JointLimits.of_model(self.model)
        self.limits = base.overlay(limits) if limits is not None else base
        self.prismatic = frozenset(j.name for j in self.model.joints if j.type == "prismatic")
        self.setup_seconds = time.perf_counter() - started

    @property
    def has_collision_geometry(self) -> bool:
        return bool(self.shapes)

    @property
    def name(self) -> str:
        """The model's name and file, for reports (``panda (panda.urdf)``)."""
        file = Path(self.model.source).name if self.model.source else ""
        if self.model.name and file:
            return f"{self.model.name} ({file})"
        return self.model.name or file or "robot model"

    def _touching_at_zero(self, linked: list[str]) -> set[frozenset[str]]:
        """Link pairs whose shapes collide in the zero pose (every joint at 0)."""
        every = candidate_pairs(self.model, linked)
        poses = self.model.link_poses((), np.zeros((1, 0)), warn=False)
        rotation, translation = shape_poses(self.shapes, quat_to_matrix(poses.rotation), poses.translation)
        contacts = SelfCollision(self.shapes, every).run(rotation, translation)
        return {frozenset(every[p]) for p in contacts.pairs.tolist()}

    # ------------------------------------------------------------------ frames and root
    @staticmethod
    def frames(motion: Motion, rate: float = DEFAULT_RATE) -> CheckedFrames:
        """The frames judged (:func:`.frames.checked_frames`): the motion's own, and a keyframe motion
        also sampled at ``rate``."""
        return checked_frames(motion, rate)

    def _root(
        self, motion: Motion, names: tuple[str, ...], positions: FloatArray
    ) -> tuple[FloatArray | None, FloatArray | None, bool, str]:
        """Root position, orientation, whether the base floats, and how the root was placed."""
        floating_joint = any(j.type == "floating" and any(v in names for v in j.variables) for j in self.model.joints)
        if motion.root_position is not None or motion.root_orientation is not None:
            return motion.root_position, motion.root_orientation, True, "the root link follows the motion's root pose"
        if floating_joint:
            return None, None, True, "the root follows the model's floating joint"
        n = positions.shape[0]
        if not self.shapes or n == 0:
            return None, None, False, "the motion has no root pose: the root link stays at the origin"
        first = self.model.link_poses(names, positions[:1], warn=False)
        rotation, translation = shape_poses(self.shapes, quat_to_matrix(first.rotation), first.translation)
        lowest = min(
            float((translation[0, k, 2] + rotation[0, k, 2] @ s.hull.T).min()) for k, s in enumerate(self.shapes)
        )
        lift = -lowest
        root = np.tile([0.0, 0.0, lift], (n, 1))
        text = (
            f"the motion has no root pose: the root link was placed upright above the origin, {lift:.4g} m up, "
            "so that the lowest collision geometry of the first frame rests on the ground"
        )
        return root, None, False, text

    # ------------------------------------------------------------------ the check
    def check(
        self,
        motion: Motion | MotionFile,
        *,
        group: str | None = None,
        rate: float = DEFAULT_RATE,
        series: bool = False,
        source: str | None = None,
    ) -> CheckReport:
        """Check every frame of ``motion`` (a group of a file: ``group``, default the first).

        Raises:
            MotionValueError: The motion has no frames, or no joint of it is a joint of the model.
            BeyondFloatRangeError: A link's place, the centre of mass, the ZMP or a joint's rate
                is beyond the float range at a frame (values near ±1e308): naming the motion,
                the frame and what overflowed.
        """
        if isinstance(motion, MotionFile):
            source = source or str(motion.source or "motion")
            motion = motion.group(group)
        try:
            return self._check(motion, rate, series, source)
        except BeyondFloatRangeError as exc:
            raise exc.of(source or "the motion") from None

    def _check(self, motion: Motion, rate: float, series: bool, source: str | None) -> CheckReport:
        started = time.perf_counter()
        if motion.num_frames == 0:
            raise MotionValueError(f"{source or 'the motion'}: no frames to check")
        self._check_room(motion, rate, source)
        chosen = self.frames(motion, rate)
        frames = chosen.motion
        # rates and the balance are judged on the uniform frames (a view when every frame is one)
        uniform = None if chosen.everything_uniform else chosen.uniform
        grid: slice | npt.NDArray[np.intp] = slice(None) if uniform is None else uniform
        times = np.asarray(frames.times, dtype=np.float64)
        names, positions = _single_joints(frames)
        known = {v for j in self.model.joints for v in (j.name, *j.variables)}
        if names and not any(n in known for n in names):
            raise MotionValueError(
                f"{source or 'the motion'}: none of its joints ({', '.join(names[:5])}"
                f"{' …' if len(names) > 5 else ''}) is a joint of {self.name}"
            )
        report = CheckReport(source or "motion", self.name, times, notes=list(self.notes))
        root_position, root_orientation, floating, placed = self._root(frames, names, positions)
        report.notes.append(placed)
        centred, shift = recentred(root_position, times, source)
        with np.errstate(over="ignore", invalid="ignore"):  # a place beyond the float range: refused below
            poses = self.model.link_poses(names, positions, centred, root_orientation, motion=source)
        frame = first_overflow(poses.translation, np.ones(times.size, dtype=bool))
        if frame is not None:
            raise BeyondFloatRangeError("a link's place", frame, float(times[frame]), _root_cause(root_position, frame))
        findings: list[Finding] = []
        checked = []
        if self.shapes:
            found, lowest = self._collisions_and_floor(times, poses.rotation, poses.translation)
            findings += found
            checked += ["self_collision", "floor"]
        else:
            report.notes.append("the model has no collision geometry: self-collision, floor and balance not checked")
        if floating and self.shapes and self.masses.total > 0:
            try:
                findings += self._balance(
                    times[grid], poses.rotation[grid], poses.translation[grid], lowest[grid], report, series, shift
                )
            except BeyondFloatRangeError as exc:
                frame = int(np.arange(len(times))[grid][exc.frame])  # the balance sees the uniform frames only
                raise BeyondFloatRangeError(exc.what, frame, exc.time, _root_cause(root_position, frame)) from None
            checked.append("balance")
        elif self.shapes:
            why = "the model has no masses" if self.masses.total <= 0 else "the base does not float (no root pose)"
            report.notes.append(f"balance not checked: {why}")
        findings += limit_findings(
            frames, self.limits, linear=self.prismatic, uniform=uniform, own=chosen.own, kinds=motion.interpolation
        )
        checked.append("limits")
        report.findings = sort_findings(findings)
        report.checked = tuple(checked)
        report.pairs = tuple(self.pairs)
        report.seconds = time.perf_counter() - started
        return report

    def frame_bytes(self, joints: int) -> int:
        """Bytes the check holds per frame of a motion of ``joints`` joint values, at its peak.

        Every link's pose (7 values) and the frame's joint values throughout; then the larger
        of the collision stage (a depth and a flag per link pair, each link's and shape's
        lowest point) and the balance stage (each link's rotation matrix, each shape's pose
        and lowest point), and a few dozen values (time, CoM, ZMP, support distance).
        """
        links, shapes, pairs = len(self.model.links), len(self.shapes), len(self.pairs)
        collision = 9 * pairs + 8 * links + 8 * shapes
        balance = 72 * links + 104 * shapes
        stages = max(collision, balance) if self.shapes else 0
        return 8 * (joints + 1) + 56 * links + stages + 256

    def _check_room(self, motion: Motion, rate: float, source: str | None) -> None:
        """Refuse, before allocating, a check whose frames this process cannot hold."""
        if motion.is_keyframed and motion.num_frames > 1:
            frames = frame_count(motion, rate) + 1
            what = f"{spelled('rate')} {rate:g}: {frames:,} frames"
        else:
            frames = motion.num_frames
            what = f"checking {source or 'the motion'}: {frames:,} frames"
        require_room(f"{what} × {len(self.model.links):,} links", frames * self.frame_bytes(motion.dof))

    def _collisions_and_floor(
        self, times: FloatArray, quaternion: FloatArray, translation: FloatArray
    ) -> tuple[list[Finding], FloatArray]:
        """Self-collision and floor findings, and each shape's lowest point per frame (N, S)."""
        n = times.size
        # The colliding (frame, pair)s: all that memory holds of the pairs' collisions.
        hit_frames: list[npt.NDArray[np.intp]] = [np.zeros(0, dtype=np.intp)]
        hit_pairs: list[npt.NDArray[np.intp]] = [np.zeros(0, dtype=np.intp)]
        hit_depth: list[FloatArray] = [np.zeros(0)]
        links = list(dict.fromkeys(s.link for s in self.shapes))
        link_index = {link: k for k, link in enumerate(links)}
        of_link = np.array([link_index[s.link] for s in self.shapes], dtype=np.intp)
        below = np.full((n, len(links)), -np.inf)  # how far each link goes below the ground
        lowest = np.empty((n, len(self.shapes)))  # each shape's lowest point (for the support polygon)
        chunk = max(16, min(_CHUNK, _CHUNK_POSES // max(1, len(self.shapes))))
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            link_rotation = quat_to_matrix(quaternion[lo:hi])
            rotation, place = shape_poses(self.shapes, link_rotation, translation[lo:hi])
            assert self.collider is not None  # there are shapes
            contacts = self.collider.run(rotation, place)
            hit_frames.append(contacts.frames + lo)
            hit_pairs.append(contacts.pairs)
            hit_depth.append(contacts.depth)
            for k, s in enumerate(self.shapes):
                low = place[:, k, 2] + (rotation[:, k, 2, :] @ s.hull.T).min(axis=1)
                lowest[lo:hi, k] = low
                np.maximum(below[lo:hi, of_link[k]], -low, out=below[lo:hi, of_link[k]])
        found: list[Finding] = []
        contacts = Contacts(
            np.concatenate(hit_frames, dtype=np.intp),
            np.concatenate(hit_pairs, dtype=np.intp),
            np.concatenate(hit_depth),
        )
        for p, (frames, depth) in sorted(contacts.by_pair().items()):
            hit = np.zeros(n, dtype=bool)
            hit[frames] = True
            k = int(np.argmax(depth))
            i = int(frames[k])
            found.append(
                Finding("self_collision", intervals(times, hit), float(depth[k]), float(times[i]), self.pairs[p])
            )
        for k, link in enumerate(links):
            sunk = below[:, k] > self.floor_tolerance
            if sunk.any():
                i = int(np.argmax(below[:, k]))
                found.append(
                    Finding(
                        "floor",
                        intervals(times, sunk),
                        float(below[i, k]),
                        float(times[i]),
                        (link,),
                        limit=self.floor_tolerance,
                    )
                )
        return found, lowest

    def _balance(
        self,
        times: FloatArray,
        quaternion: FloatArray,
        translation: FloatArray,
        lowest: FloatArray,
        report: CheckReport,
        series: bool,
        shift: FloatArray,
    ) -> list[Finding]:
        """Balance findings; the series (when asked) back in the motion's frame, ``shift`` from the check's."""
        com, point = zmp(self.masses, quaternion, translation, times)
        polygons: list[FloatArray] | None = [] if series else None
        outside = np.empty(times.size)
        touching = np.empty(times.size, dtype=bool)
        for lo in range(0, times.size, dynamics.CHUNK):  # the shapes' poses a chunk of frames at a time
            hi = min(times.size, lo + dynamics.CHUNK)
            shape_rotation, shape_place = shape_poses(
                self.shapes, quat_to_matrix(quaternion[lo:hi]), translation[lo:hi]
            )
            with np.errstate(over="ignore", invalid="ignore"):  # a distance beyond the float range: refused below
                outside[lo:hi], touching[lo:hi] = support_distance(
                    self.shapes, shape_rotation, shape_place, point[lo:hi], self.contact_height, lowest[lo:hi], polygons
                )
        measured = touching & np.isfinite(point).all(axis=1)
        frame = first_overflow(np.where(measured, outside, 0.0), np.ones(times.size, dtype=bool))
        if frame is not None:
            raise BeyondFloatRangeError("the ZMP's distance from the support polygon", frame, float(times[frame]))
        if polygons is not None:
            report.series = BalanceSeries(
                times.copy(), com + shift, point + shift[:2], tuple(polygon + shift[:2] for polygon in polygons)
            )
        if (~touching).any():
            report.notes.append(
                f"balance: {int((~touching).sum())} of {times.size} frames have no collision geometry within "
                f"{self.contact_height:g} m of the ground (no support polygon; not judged)"
            )
        unpressed = ~np.isfinite(point[:, 0])
        if unpressed.any():
            report.notes.append(
                f"balance: in {int(unpressed.sum())} frames the motion does not press on the ground (no ZMP)"
            )
        with np.errstate(invalid="ignore"):
            bad = np.nan_to_num(outside, nan=-np.inf) > self.balance_margin
        if not bad.any():
            return []
        i = int(np.argmax(np.nan_to_num(outside, nan=-np.inf)))
        return [
            Finding("balance", intervals(times, bad), float(outside[i]), float(times[i]), limit=self.balance_margin)
        ]


#: How far (m) from the check's origin a root may be: beyond 2**33 m floats are more than 1 µm apart.
FARTHEST_ROOT = float(2**33)
#: The check's origin is the first frame's root x, y rounded to a multiple of this (m).
ORIGIN_GRID = 1024.0


def recentred(
    root_position: FloatArray | None, times: FloatArray, source: str | None
) -> tuple[FloatArray | None, FloatArray]:
    """The root positions in the frame the check computes in, and that frame's place in the motion's.

    Collisions, the floor and balance do not change when the robot is moved along the ground,
    but the float spacing grows with the distance from the origin (0.125 m at 1e15 m): the
    check computes in a frame at the first frame's root x, y (the first finite value of each),
    rounded to a multiple of :data:`ORIGIN_GRID` (every result of a motion that starts near the
    origin stays what it was, to the bit; one far away is computed within 512 m of it).

    Raises:
        ReadError: A root position (naming the file, frame and axis) farther than
            :data:`FARTHEST_ROOT` from that frame's origin.
    """
    shift = np.zeros(3)
    if root_position is None:
        return None, shift
    root = np.asarray(root_position, dtype=np.float64)
    for k in range(2):
        finite = np.flatnonzero(np.isfinite(root[:, k]))
        if finite.size:  # a multiple of the grid: a motion within half of it of the origin is computed as it is
            shift[k] = ORIGIN_GRID * np.round(root[finite[0], k] / ORIGIN_GRID) + 0.0  # never -0
    with np.errstate(over="ignore", invalid="ignore"):
        centred = root - shift
    far = np.isfinite(root) & ~(np.abs(centred) <= FARTHEST_ROOT)  # a non-finite value is held, not placed
    if far.any():
        i, k = (int(v) for v in np.argwhere(far)[0])
        axis = "xyz"[k]
        origin = "the ground (z = 0)" if k == 2 else f"the check's origin ({axis} = {number(float(shift[k]))} m)"
        raise ReadError(
            source or "the motion",
            f"at frame {i} (t = {float(times[i]):.6g} s), {axis} = {number(float(root[i, k]))} m is "
            f"{float(np.abs(np.float64(root[i, k]) - shift[k])):.3g} m from {origin}: beyond "
            f"{FARTHEST_ROOT:.3g} m floats are more than 1 µm apart, too coarse to check collisions or balance",
            field="root position",
        )
    return centred, shift


def _root_cause(root_position: FloatArray | None, frame: int) -> str:
    """What of a motion places its links beyond the float range at ``frame``: its root position there."""
    if root_position is None:
        return ""
    return f"the root position there is ({', '.join(number(float(v)) for v in root_position[frame])}) m"


def _single_joints(motion: Motion) -> tuple[tuple[str, ...], FloatArray]:
    """The motion's joint names and positions (N, J); a joint of several values as ``NAME/0``, ``NAME/1`` …"""
    if motion.position is None:
        return (), np.zeros((motion.num_frames, 0))
    names: list[str] = []
    for name, dim in zip(motion.joint_names, motion.joint_dims or (1,) * len(motion.joint_names), strict=True):
        names += [name] if dim == 1 else [f"{name}/{k}" for k in range(dim)]
    return tuple(names), np.asarray(motion.position, dtype=np.float64)


def balance_series(model: RobotModel, motion: Motion, *, source: str | None = None) -> tuple[FloatArray, FloatArray]:
    """The centre of mass (N, 3) and ZMP (N, 2; NaN where the ground is not pressed) at the motion's
    own frames, from the model's masses and inertias and the motion's root pose (no collision
    geometry needed). ``source``: the motion's file, for messages.

    Raises:
        MotionValueError: The motion has no root pose, or the model no masses.
        BeyondFloatRangeError: A link's place, the centre of mass or the ZMP is beyond the float
            range at a frame (see :meth:`Checker.check`).
    """
    if motion.root_position is None and motion.root_orientation is None:
        raise MotionValueError("the centre of mass and ZMP need a motion with a root pose (a floating base)")
    masses = Masses.of(model)
    if masses.total <= 0:
        raise MotionValueError(f"{model.source or model.name}: the model states no masses")
    names, positions = _single_joints(motion)
    times = np.asarray(motion.times, dtype=np.float64)
    root = None if motion.root_position is None else np.asarray(motion.root_position, dtype=np.float64)
    centred, shift = recentred(root, times, source)
    with np.errstate(over="ignore", invalid="ignore"):  # a place beyond the float range: refused below
        poses = model.link_poses(names, positions, centred, motion.root_orientation, motion=source)
    try:
        frame = first_overflow(poses.translation, np.ones(times.size, dtype=bool))
        if frame is not None:
            raise BeyondFloatRangeError("a link's place", frame, float(times[frame]))
        com, point = zmp(masses, poses.rotation, poses.translation, times)
        return com + shift, point + shift[:2]
    except BeyondFloatRangeError as exc:
        cause = _root_cause(root, exc.frame)
        raise BeyondFloatRangeError(exc.what, exc.frame, exc.time, cause, source or "the motion") from None


def check_files(
    model: RobotModel, *, srdf: str | os.PathLike[str] | None = None, limits: str | os.PathLike[str] | None = None
) -> None:
    """Read the SRDF and MoveIt ``joint_limits.yaml`` a check of ``model`` would read, as it reads
    them, so that one it cannot read (a FIFO, a device, a folder, not such a file) is refused at
    once, by the same one line: the viewer calls this before it serves its page, whose check
    runs later. What reading them says (an SRDF of another robot) is left to the check.

    Raises:
        ReadError: The SRDF or the limits file cannot be read (naming it).
    """
    with collect(warn=False, isolated=True):
        if srdf is not None:
            read_srdf(srdf, model)
        if limits is not None:
            JointLimits.of_model(model).overlay(limits)


def check(
    motion: Motion | MotionFile,
    robot: RobotModel | str | os.PathLike[str] | Checker,
    *,
    srdf: str | os.PathLike[str] | None = None,
    limits: str | os.PathLike[str] | None = None,
    package_paths: Iterable[str | os.PathLike[str]] = (),
    rate: float = DEFAULT_RATE,
    group: str | None = None,
    series: bool = False,
    floor_tolerance: float = 0.005,
    balance_margin: float = 0.01,
) -> CheckReport:
    """Check a motion on its robot model (see :class:`Checker` for the arguments); the report's
    ``seconds`` include preparing the model."""
    started = time.perf_counter()
    checker = (
        robot
        if isinstance(robot, Checker)
        else Checker(
            robot,
            srdf=srdf,
            limits=limits,
            package_paths=package_paths,
            floor_tolerance=floor_tolerance,
            balance_margin=balance_margin,
        )
    )
    source = str(motion.source) if isinstance(motion, MotionFile) and motion.source else None
    report = checker.check(motion, group=group, rate=rate, series=series, source=source)
    report.seconds = time.perf_counter() - started
    return report


__all__ = ["DEFAULT_RATE", "Checker", "balance_series", "check", "check_files"]
