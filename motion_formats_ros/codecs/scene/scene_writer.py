"""Motion → scene file whose trajectories reproduce the motion.

One robot model (named after the file's robot, else ``robot``) whose joints are the
motion's joints, with the limits known for them; one object ``robot`` whose
``jointValues`` read the dimensions of one vector trajectory ``motion``: one control
point per frame with absolute ``t``, ``f``, and ``df`` / ``ddf`` where the motion has
velocities / accelerations (cubic / quintic Hermite segments, which pass through every
control point); as a control point has them for every joint or none, the velocities a motion
lacks (NaN) are filled in with the shape-preserving ones the player derives (so the spline
stays within the frames), a warning naming the joints (:func:`_derivatives`). A root pose
becomes a 7-D trajectory ``root`` (x, y, z, qx, qy, qz, qw) read by the object's pose; without
one the object has no pose, which a reader takes as no root pose. A loop over the whole motion
becomes ``repeat: {t: end}``.

When the motion came from a scene (its :class:`~.motion.SceneRecord`) with the same joints, that
scene's models and objects are kept and only the joint values are replaced.

Numbers are written with Python's shortest round-trip repr, so reading the file back
gives the same values at the control points. ``.json`` output is strict JSON (no
comments, no NaN / Infinity).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...core.atomic import check_writable, write_bytes_atomic
from ...core.errors import WriteError, listed, number
from ...core.hermite import shape_preserving_velocities
from ...core.inputs import read_input
from ...core.keyframes import interpolation_dropped
from ...core.model import Motion, MotionFile
from ...core.notices import NoticeKind, notify
from ...core.options import option
from ...core.spatial import unit_quaternions
from ...core.timing import derivative
from .motion import SceneRecord
from .trajectory import SplineOverflowError, Trajectory

FloatArray = npt.NDArray[np.float64]

TRAJECTORY = "motion"
ROOT_TRAJECTORY = "root"
_PLACEHOLDER = "@@CONTROL_POINTS_{}@@"


def _limits_from_option(value: Any) -> dict[str, float]:
    """Scene joint keys from a (lo, hi) pair, a scene-style dict or a JointLimit-like object."""
    out: dict[str, float] = {}
    if isinstance(value, Mapping):
        for key in (
            "minValue",
            "maxValue",
            "maxVelocity",
            "maxAcceleration",
            "maxDeceleration",
            "maxJerk",
            "maxEffort",
        ):
            if value.get(key) is not None:
                out[key] = float(value[key])
        return out
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return {"minValue": float(value[0]), "maxValue": float(value[1])}
    for attr, key in (("lower", "minValue"), ("upper", "maxValue"), ("velocity", "maxVelocity")):
        v = getattr(value, attr, None)
        if v is not None:
            out[key] = float(v)
    return out


def _collect_limits(
    motion_file: MotionFile, names: list[str], joint_limits: Mapping[str, Any] | None, urdf: Any
) -> dict[str, dict[str, float]]:
    limits: dict[str, dict[str, float]] = {}
    kept = motion_file.record(SceneRecord)
    if kept is not None:
        for name, spelled in kept.limits.items():
            limits[str(name)] = _limits_from_option(spelled)
    if urdf is not None:
        from ...core.joint_limits import JointLimits

        text = read_input(urdf, what="robot model").decode("utf-8")
        for name, value in JointLimits.from_urdf(text, urdf).driven().items():
            limits[name] = _limits_from_option(value)
    if joint_limits:
        for name, value in joint_limits.items():
            limits[str(name)] = _limits_from_option(value)
    return {n: limits[n] for n in names if limits.get(n)}


def _unwrap_quaternions(q: FloatArray) -> FloatArray:
    """Unit quaternions, signs flipped so that consecutive ones are on the same side (interpolable).

    They are normalised first (:func:`~...core.spatial.unit_quaternions`), so a motion's
    quaternions of any finite non-zero length (``1e-320`` or ``1e200`` times a rotation) are
    written as the rotations a reader normalises, and no product overflows. A row that is no
    rotation (zero, non-finite) stays NaN: an absent pose.
    """
    out = unit_quaternions(q)
    for i in range(1, len(out)):
        if float(np.dot(out[i], out[i - 1])) < 0:
            out[i] = -out[i]
    return out


def _number(x: float, strict: bool, where: str, path: Path) -> str:
    if math.isfinite(x):
        return repr(float(x))
    if strict:
        raise WriteError(path, f"{where}: {x} cannot be written to strict JSON (use .json5)")
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def _points(
    times: FloatArray,
    f: FloatArray,
    df: FloatArray | None,
    ddf: FloatArray | None,
    strict: bool,
    path: Path,
    name: str,
    indent: str,
) -> str:
    lines = []
    for i, t in enumerate(times):
        where = f"trajectory {name!r} point {i}"
        parts = [f'"t": {_number(t, strict, where, path)}']
        parts.append('"f": [' + ", ".join(_number(x, strict, where, path) for x in f[i]) + "]")
        has_df = df is not None and bool(np.all(np.isfinite(df[i])))
        if has_df and df is not None:
            parts.append('"df": [' + ", ".join(repr(float(x)) for x in df[i]) + "]")
            if ddf is not None and bool(np.all(np.isfinite(ddf[i]))):
                parts.append('"ddf": [' + ", ".join(repr(float(x)) for x in ddf[i]) + "]")
        lines.append(indent + "{" + ", ".join(parts) + "}")
    return "[\n" + ",\n".join(lines) + "\n" + indent[:-2] + "]"


def _refuse_overflow(
    times: FloatArray,
    f: FloatArray,
    df: FloatArray | None,
    ddf: FloatArray | None,
    repeat: Any,
    columns: list[str],
    path: Path,
) -> None:
    """Refuse control points (as :func:`_points` writes them) whose spline a reader refuses.

    The test is the reader's own: the :class:`~.trajectory.Trajectory` they make is built here.
    """
    has_df = np.all(np.isfinite(df), axis=1) if df is not None else np.zeros(len(times), dtype=bool)
    written_df = np.where(has_df[:, None], df, np.nan) if df is not None else None
    written_ddf = None
    if ddf is not None and written_df is not None:
        has_ddf = has_df & np.all(np.isfinite(ddf), axis=1)
        written_ddf = np.where(has_ddf[:, None], ddf, np.nan)
    repeat_at = repeat["t"] if isinstance(repeat, dict) else None
    try:
        Trajectory(times, f, written_df, written_ddf, repeat_at)
    except SplineOverflowError as exc:
        raise WriteError(
            path,
            f"{columns[exc.column]} from t = {number(exc.start)} to {number(exc.end)} s: its spline through "
            f"these values overflows (beyond the float range), which a scene reader refuses",
        ) from None


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """Options of :func:`write`."""

    group: str | None = option(None, "the group to write (default: the first)", metavar="NAME")
    joint_limits: Any = option(None, "joint name -> limits (scene keys, (min, max) or an object)")
    urdf: str | os.PathLike[str] | None = option(None, "a URDF file to take joint limits from", metavar="FILE")


def _source_scene(motion_file: MotionFile, names: list[str]) -> dict[str, Any] | None:
    """The source scene when its robots' joints are exactly ``names`` (same order)."""
    kept = motion_file.record(SceneRecord)
    scene = kept.scene if kept is not None else None
    if not isinstance(scene, dict) or not scene:
        return None
    try:
        objects = scene["objects"]
        models = scene["models"]
        robots = [o for o, v in objects.items() if models[v["model"]].get("kind") == "robot"]
        joints = [
            (f"{o}.{j}" if len(robots) > 1 else j, o, j) for o in robots for j in models[objects[o]["model"]]["joints"]
        ]
    except (KeyError, TypeError, AttributeError):
        return None
    if [n for n, _, _ in joints] != names:
        return None
    out = copy.deepcopy(scene)
    for i, (_, o, j) in enumerate(joints):
        out["objects"][o].setdefault("jointValues", {})[j] = {"trajectory": TRAJECTORY, "index": i}
    out["trajectories"] = {k: v for k, v in out.get("trajectories", {}).items() if k != TRAJECTORY}
    return out


def build(motion_file: MotionFile, path: Path, options: WriteOptions, *, strict: bool = False) -> str:
    """The scene text for ``motion_file`` (see the module documentation)."""
    motion = motion_file.group(options.group)
    if options.group is None and len(motion_file.groups) > 1:
        dropped = [g for g in motion_file.groups if g != next(iter(motion_file.groups))]
        notify(
            NoticeKind.LOSSY_WRITE, f"a scene holds one motion; groups {dropped} not written", file=path, stacklevel=3
        )
    if motion.num_frames == 0:
        raise WriteError(path, "the motion has no frames (a trajectory needs at least one control point)")
    names = _joint_names(motion, path)
    _warn_dropped(motion, path)
    position = motion.position if motion.position is not None else np.full((motion.num_frames, len(names)), np.nan)
    if motion.position is None and names:
        notify(NoticeKind.MISSING, "the motion has no joint positions; writing NaN", file=path, stacklevel=3)
    velocity, acceleration = _derivatives(motion, position, names, path)
    repeat: Any = False
    if motion.loop is not None:
        start, end = motion.loop
        if start == motion.times[0] and end >= motion.times[-1]:
            repeat = {"t": float(end)}
        else:
            notify(
                NoticeKind.LOSSY_WRITE,
                f"loop {motion.loop} does not start at the first frame; not written",
                file=path,
                stacklevel=3,
            )

    scene = _source_scene(motion_file, names)
    robot_object = "robot"
    if scene is None:
        model_name = motion_file.robot or "robot"
        limits = _collect_limits(motion_file, names, options.joint_limits, options.urdf)
        scene = {
            "models": {model_name: {"kind": "robot", "joints": {n: limits.get(n, {}) for n in names}, "links": {}}},
            "objects": {robot_object: {"model": model_name, "parent": "__WORLD__"}},
            "trajectories": {},
        }
        obj = scene["objects"][robot_object]
        obj["jointValues"] = {n: {"trajectory": TRAJECTORY, "index": i} for i, n in enumerate(names)}
    elif options.joint_limits or options.urdf is not None:
        limits = _collect_limits(motion_file, names, options.joint_limits, options.urdf)
        notify(
            NoticeKind.LOSSY_WRITE,
            f"joint limits come from the source scene; {sorted(limits)} not applied",
            file=path,
            stacklevel=3,
        )
    blocks: dict[str, str] = {}
    trajectories = scene.setdefault("trajectories", {})
    indent = " " * 8
    if names:
        trajectories[TRAJECTORY] = {"controlPoints": _PLACEHOLDER.format(TRAJECTORY), "repeat": repeat}
        columns = [f"joint {n!r}" for n in names]
        _refuse_overflow(motion.times, position, velocity, acceleration, repeat, columns, path)
        blocks[TRAJECTORY] = _points(motion.times, position, velocity, acceleration, strict, path, TRAJECTORY, indent)
    if motion.root_position is not None or motion.root_orientation is not None:
        n = motion.num_frames
        rp = motion.root_position if motion.root_position is not None else np.zeros((n, 3))
        ro = motion.root_orientation if motion.root_orientation is not None else np.tile([0.0, 0, 0, 1], (n, 1))
        root = np.hstack([rp, _unwrap_quaternions(ro)])
        trajectories[ROOT_TRAJECTORY] = {"controlPoints": _PLACEHOLDER.format(ROOT_TRAJECTORY), "repeat": repeat}
        columns = [f"the root's {c}" for c in ("x", "y", "z", "qx", "qy", "qz", "qw")]
        _refuse_overflow(motion.times, root, None, None, repeat, columns, path)
        blocks[ROOT_TRAJECTORY] = _points(motion.times, root, None, None, strict, path, ROOT_TRAJECTORY, indent)
        objects = scene["objects"]
        target = robot_object if robot_object in objects else next(iter(objects))
        objects[target]["pose"] = {
            "xyz": [{"trajectory": ROOT_TRAJECTORY, "index": i} for i in range(3)],
            "qxyzw": [{"trajectory": ROOT_TRAJECTORY, "index": i} for i in range(3, 7)],
        }
    try:
        text = dumps(scene, allow_nan=not strict)
    except ValueError as exc:
        raise WriteError(path, f"{exc} (strict JSON has no NaN / Infinity: use .json5)") from None
    for name, block in blocks.items():
        text = text.replace(json.dumps(_PLACEHOLDER.format(name)), block)
    if not strict:
        source = f" from {motion_file.source}" if motion_file.source else ""
        text = f"// Scene written by motion_formats_ros{source}.\n" + text
    return text + "\n"


def dumps(data: Any, *, allow_nan: bool = True, width: int = 100, indent: int = 2) -> str:
    """JSON text (valid JSON5) with short containers on one line and long ones broken up."""

    def inline(node: Any) -> str:
        return json.dumps(node, allow_nan=allow_nan, ensure_ascii=False, separators=(", ", ": "))

    def dump(node: Any, level: int, room: int) -> str:
        text = inline(node)
        forced = isinstance(node, dict) and "@@CONTROL_POINTS_" in text
        if (len(text) <= room and not forced) or not isinstance(node, (dict, list)) or not node:
            return text
        pad = " " * (indent * (level + 1))
        end = " " * (indent * level)
        inner = width - len(pad)
        if isinstance(node, dict):
            items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: " for k in node]
            body = [
                f"{head}{dump(v, level + 1, inner - len(head) + len(pad))}"
                for head, v in zip(items, node.values(), strict=True)
            ]
            return "{\n" + ",\n".join(body) + "\n" + end + "}"
        return "[\n" + ",\n".join(pad + dump(v, level + 1, inner) for v in node) + "\n" + end + "]"

    return dump(data, 0, width)


def _derivatives(
    motion: Motion, position: FloatArray, names: list[str], path: Path
) -> tuple[FloatArray | None, FloatArray | None]:
    """The velocities and accelerations to write as ``df`` / ``ddf``: the motion's, each missing
    value (NaN) filled in, since a control point has a derivative for every dimension or none.

    A missing velocity is the one the player derives for a motion without velocities
    (:func:`~...core.hermite.shape_preserving_velocities`: the slope of the positions, limited so
    that no cubic segment leaves the range of its two frames), a missing acceleration the slope of
    the velocities written (:func:`~...core.timing.derivative`); 0 where those give no finite value
    (a position absent). A warning names the joints filled in. A channel without a finite value is
    not written (nothing of it is lost).
    """
    velocity = motion.velocity
    if velocity is None or not np.isfinite(velocity).any():
        if motion.acceleration is not None and np.isfinite(motion.acceleration).any():
            notify(
                NoticeKind.LOSSY_WRITE,
                "joint accelerations not written: the motion has no velocities (a scene's ddf needs df)",
                file=path,
                stacklevel=4,
            )
        return None, None
    df = _filled(
        velocity,
        lambda: shape_preserving_velocities(position, motion.times),
        names,
        "velocities",
        "the shape-preserving velocities the player derives from the positions",
        path,
    )
    acceleration = motion.acceleration
    if acceleration is None or not np.isfinite(acceleration).any():
        return df, None
    return df, _filled(
        acceleration, lambda: derivative(df, motion.times), names, "accelerations", "the slopes of the velocities", path
    )


def _filled(
    values: FloatArray,
    slopes: Callable[[], FloatArray],
    names: list[str],
    what: str,
    how: str,
    path: Path,
) -> FloatArray:
    """``values`` with each NaN (or infinity) replaced by the finite ``slopes()`` there, else 0;
    ``how`` says what those are, in the warning."""
    missing = ~np.isfinite(values)
    if not missing.any():
        return values
    with np.errstate(invalid="ignore"):
        estimate = slopes()
    estimate = np.where(np.isfinite(estimate), estimate, 0.0)
    joints = [names[j] for j in np.flatnonzero(missing.any(axis=0))]
    notify(
        NoticeKind.LOSSY_WRITE,
        f"the motion has no {what} for joints {listed(joints)} at {int(missing.any(axis=1).sum()):,} frame(s): "
        f"written as {how} there (a scene's control point has {what} for every joint or none)",
        file=path,
        stacklevel=5,
    )
    return np.asarray(np.where(missing, estimate, values), dtype=np.float64)


def _joint_names(motion: Motion, path: Path) -> list[str]:
    names = []
    for name, dims in zip(motion.joint_names, motion.joint_dims, strict=True):
        if dims == 1:
            names.append(name)
        else:
            notify(
                NoticeKind.LOSSY_WRITE,
                f"joint {name!r} has {dims} DOF; written as {name}.0 … {name}.{dims - 1}",
                file=path,
                stacklevel=4,
            )
            names.extend(f"{name}.{k}" for k in range(dims))
    return names


def _warn_dropped(motion: Motion, path: Path) -> None:
    dropped = [
        label
        for label, _ in motion.iter_arrays()
        if not label.startswith(("joint.position", "joint.velocity", "joint.acceleration", "root."))
    ]
    if dropped:
        notify(
            NoticeKind.LOSSY_WRITE, f"a scene cannot hold {', '.join(dropped)}; not written", file=path, stacklevel=4
        )
    curves = interpolation_dropped(motion)  # its trajectories' segments are splines through the keyframes
    if curves is not None:
        notify(NoticeKind.LOSSY_WRITE, f"a scene cannot hold {curves}", file=path, stacklevel=4)


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> int:
    """Write ``motion_file`` as a scene (strict JSON for ``.json``, JSON5 otherwise).

    Args:
        motion_file: What to write (one group: the options' ``group`` or the first).
        path: Output file.
        options: The group to write; joint limits (joint name → (min, max), a dict with
            scene keys (``minValue`` …) or an object with ``lower`` / ``upper`` /
            ``velocity``); a URDF file to take joint limits from.
        overwrite: Replace an existing file.

    Returns:
        The frames written: those of the one group a scene holds.
    """
    path = Path(path)
    check_writable(path, overwrite)
    strict = path.suffix.lower() == ".json"
    opts = options or WriteOptions()
    text = build(motion_file, path, opts, strict=strict)
    write_bytes_atomic(path, text.encode("utf-8"), overwrite)
    return motion_file.group(opts.group).num_frames
