"""Scene → Motion: the joint values of every robot object over time.

Joints are named by the model's joints, prefixed by the object name
(``robot1.elbow``) when the scene has several robots. The motion covers the span of the
trajectories the robots' joints depend on; a scene without moving joints gives one
frame at t = 0. When every such trajectory repeats over the same window, the motion
reports it as ``loop``.

Times: at ``rate`` Hz when given; otherwise the control point times, with linear
segments kept as they are (exact) and Hermite segments subdivided at ≥ 100 Hz, each
segment's turning points included (where a value peaks between two control points), so that
the frames hold every extreme value the spline reaches. A subdivision or turning point within a
nanosecond of a control point (a turning point found 2e-16 s before it) or of another one is left
out, so that frames a bag or a trajectory can tell apart stay apart; control point times are kept
as the scene gives them.

The root pose is the single robot's world pose, when the scene places it (gives its ``pose`` or
hangs it from another object): a robot under the world without a pose has none, as a motion of
joints only. Velocities (accelerations) are exact where the driving trajectory is cubic or quintic
(quintic) everywhere, 0 for constant joints, NaN otherwise.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ...core.errors import ReadError
from ...core.kinematics import Kinematics
from ...core.model import CodecRecord, FrameTree, JointLimit, Motion, MotionFile
from .description import Scene
from .problems import PathPart, json_path
from .transforms import Ref, TransformError, Value

FloatArray = npt.NDArray[np.float64]

#: Minimum sampling rate of Hermite segments when no rate is asked for.
SUBDIVISION_RATE = 100.0

#: Subdivisions and turning points are more than this far (s) from control points and each other: a
#: bag's stamps and a trajectory's points are whole nanoseconds, closer frames would be one.
MIN_GAP = 1e-9


def joint_names(scene: Scene) -> list[tuple[str, str, str]]:
    """(motion joint name, object, joint) for every joint of every robot object."""
    robots = scene.robots
    out = []
    for obj in robots:
        for joint in scene.objects[obj].joint_values:
            out.append((f"{obj}.{joint}" if len(robots) > 1 else joint, obj, joint))
    return out


def _driver(scene: Scene, value: Value, obj: str) -> Value:
    """Follow joint references to a constant or a trajectory reference."""
    seen: set[str] = set()
    while isinstance(value, Ref) and value.kind == "joint" and value.name not in seen:
        seen.add(value.name)
        value = scene.objects[obj].joint_values.get(value.name, 0.0)
    return 0.0 if isinstance(value, Ref) and value.kind == "joint" else value


def sample_times(scene: Scene, names: set[str], rate: float | None = None) -> FloatArray:
    """The times a motion of the trajectories ``names`` is sampled at."""
    if not names:
        return np.zeros(1)
    trajs = [scene.trajectories[n] for n in sorted(names)]
    start = min(t.start for t in trajs)
    end = max(t.end for t in trajs)
    if rate is not None:
        count = math.floor((end - start) * rate + 1e-9) + 1
        return np.asarray(start + np.arange(count) / rate, dtype=np.float64)
    points, extra = [], []
    for traj in trajs:
        knots = traj.knots
        points.append(knots)
        for i, order in enumerate(traj.orders):
            h = knots[i + 1] - knots[i]
            if order > 1 and h > 0:
                steps = max(math.ceil(h * SUBDIVISION_RATE - 1e-9), 1)
                extra.append(knots[i] + h * np.arange(1, steps) / steps)
        extra.append(traj.turning_points())
    return _spaced(np.concatenate(points), np.concatenate(extra), start, end)


def _spaced(points: FloatArray, extra: FloatArray, start: float, end: float) -> FloatArray:
    """The control point times ``points`` and the ``extra`` sample times (subdivisions, turning
    points) in [start, end], sorted: every control point time, and each extra time more than
    :data:`MIN_GAP` from every control point and from the extra time before it."""
    kept = np.unique(points[(points >= start) & (points <= end)])
    extra = np.unique(extra[(extra >= start) & (extra <= end)])
    extra = extra[np.diff(extra, prepend=-math.inf) > MIN_GAP]
    if kept.size and extra.size:
        after = np.clip(np.searchsorted(kept, extra), 0, kept.size - 1)
        before = np.clip(after - 1, 0, kept.size - 1)
        nearest = np.minimum(np.abs(kept[after] - extra), np.abs(extra - kept[before]))
        extra = extra[nearest > MIN_GAP]
    return np.asarray(np.union1d(kept, extra), dtype=np.float64)


def scene_to_motion(scene: Scene, rate: float | None = None, links: bool = False) -> Motion:
    """The joint motion of every robot object (see the module documentation).

    Args:
        scene: A preprocessed scene.
        rate: Sample at this many frames per second (default: control points).
        links: Also fill ``link_names`` / ``links`` with the world pose of every object
            and link frame (forward kinematics).
    """
    names = joint_names(scene)
    drivers = {(obj, joint): _driver(scene, scene.objects[obj].joint_values[joint], obj) for _, obj, joint in names}
    trajs = {v.name for v in drivers.values() if isinstance(v, Ref)}
    robots = scene.robots
    pose_trajs: set[str] = set()
    for obj in robots:
        pose_trajs |= {r.name for r in scene.transform_trajectories(scene.objects[obj].transform, obj)}
    times = sample_times(scene, trajs | pose_trajs, rate)
    n = times.size
    ev = scene.evaluator(times)
    position = np.empty((n, len(names)))
    velocity = np.full((n, len(names)), np.nan)
    acceleration = np.full((n, len(names)), np.nan)
    for col, (_, obj, joint) in enumerate(names):
        v = drivers[(obj, joint)]
        position[:, col] = ev.value(v, obj)
        if not isinstance(v, Ref):
            velocity[:, col] = 0.0
            acceleration[:, col] = 0.0
            continue
        traj = scene.trajectories[v.name]
        if min(traj.orders, default=1) >= 3:
            velocity[:, col] = traj.evaluate(times, 1)[:, v.index or 0]
        if min(traj.orders, default=1) >= 5:
            acceleration[:, col] = traj.evaluate(times, 2)[:, v.index or 0]
    smooth = any(
        isinstance(v, Ref) and min(scene.trajectories[v.name].orders, default=1) >= 3 for v in drivers.values()
    )
    quintic = any(
        isinstance(v, Ref) and min(scene.trajectories[v.name].orders, default=1) >= 5 for v in drivers.values()
    )
    kwargs: dict[str, Any] = {}
    if robots and (len(robots) == 1 or links):
        from .scene_kinematics import SceneKinematics

        poses = SceneKinematics(scene).world_poses(times)
        if len(robots) == 1 and _placed(scene, robots[0]):
            kwargs["root_position"], kwargs["root_orientation"] = poses[robots[0]]
        if links:
            frames = [f for f in poses if f != "world"]
            kwargs["link_names"] = tuple(frames)
            kwargs["links"] = {
                "position": np.stack([poses[f][0] for f in frames], axis=1),
                "orientation": np.stack([poses[f][1] for f in frames], axis=1),
            }
    loop = None
    repeating = {scene.trajectories[name] for name in trajs | pose_trajs}
    windows = {(t.start, t.repeat_at) for t in repeating}
    if repeating and len(windows) == 1:
        start, repeat_at = next(iter(windows))
        if repeat_at is not None:
            loop = (start, repeat_at)
    return Motion(
        times=times,
        joint_names=tuple(name for name, _, _ in names),
        position=position,
        velocity=velocity if smooth else None,
        acceleration=acceleration if quintic else None,
        loop=loop,
        rate=rate if rate is not None and n > 1 else None,
        **kwargs,
    )


def _placed(scene: Scene, obj: str) -> bool:
    """Whether the scene places object ``obj``: it has a pose, or hangs from another object."""
    placed = scene.objects[obj]
    return placed.has_pose or placed.parent is not None


def joint_limits(scene: Scene) -> dict[str, dict[str, float]]:
    """Motion joint name → its finite limits (scene spelling: minValue, maxVelocity …)."""
    out: dict[str, dict[str, float]] = {}
    for name, obj, joint in joint_names(scene):
        j = scene.model_of(obj).joints[joint]
        limits = {k: v for k, v in j.canonical().items() if math.isfinite(v)}
        if limits:
            out[name] = limits
    return out


@dataclasses.dataclass
class SceneRecord(CodecRecord):
    """What a scene read keeps for writing the scene back (``MotionFile.record(SceneRecord)``).

    Attributes:
        limits: Motion joint name → its finite limits in the scene's spelling
            (``minValue``, ``maxVelocity`` …; see :func:`joint_limits`).
        scene: The canonical scene, so that writing back keeps models and objects.
        repeat: Trajectory → period, for every repeating trajectory that drives a joint.
    """

    codec: ClassVar[str] = "scene"
    limits: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    scene: dict[str, Any] = dataclasses.field(default_factory=dict)
    repeat: dict[str, float] = dataclasses.field(default_factory=dict)


def scene_to_motion_file(scene: Scene, rate: float | None = None, links: bool = False) -> MotionFile:
    """A MotionFile with the scene's joint motion (group ``target``) and its context.

    ``joint_limits``: the robots' limits (typed); ``frame_tree``: the scene's objects and
    links (:class:`.kinematics.SceneKinematics`); its :class:`SceneRecord` keeps the rest.
    """
    try:
        motion = scene_to_motion(scene, rate, links)
    except TransformError as exc:  # a pose driven by trajectory values that overflow or are not finite
        field, _, reason = str(exc).partition(": ")
        culprit = _nonfinite_point(scene)
        if culprit is not None and reason:  # the value to fix, not the model whose pose it drives
            where, value = culprit
            raise ReadError(scene.path, f"{value} (not a finite number): {field}: {reason}", field=where) from None
        raise ReadError(scene.path, reason or field, field=field if reason else None) from None
    robots = scene.robots
    robot = scene.objects[robots[0]].model if len(robots) == 1 else ""
    periods = {name: t.period for name, t in scene.trajectories.items() if t.period is not None}
    limits = joint_limits(scene)
    record = SceneRecord(limits=limits, scene=scene.canonical(), repeat=periods)
    name = scene.path.stem if scene.path is not None else ""
    return MotionFile.single(
        motion,
        name=name,
        robot=robot,
        records={SceneRecord.codec: record},
        joint_limits=typed_limits(limits),
        frame_tree=_frame_tree(scene),
    )


def _nonfinite_point(scene: Scene) -> tuple[str, float] | None:
    """The JSON path and value of the first control-point value that is not finite, if any."""
    for name, trajectory in scene.trajectories.items():
        bad = np.argwhere(~np.isfinite(trajectory.f))
        if bad.size:
            i, j = (int(k) for k in bad[0])
            parts: list[PathPart] = ["trajectories", name, "controlPoints", i, "f"]
            return json_path(parts if trajectory.scalar else [*parts, j]), float(trajectory.f[i, j])
    return None


def typed_limits(limits: dict[str, dict[str, float]]) -> dict[str, JointLimit]:
    """The model's limits from a scene's (minValue / maxValue / maxVelocity)."""
    return {
        name: JointLimit(lower=spec.get("minValue"), upper=spec.get("maxValue"), velocity=spec.get("maxVelocity"))
        for name, spec in limits.items()
    }


def _frame_tree(scene: Scene) -> FrameTree:
    """The scene's frame tree under a given world frame (built when asked: reading does not need it)."""

    def tree(world_frame: str) -> Kinematics:
        from .scene_kinematics import SceneKinematics

        return SceneKinematics(scene, world_frame)

    return tree
