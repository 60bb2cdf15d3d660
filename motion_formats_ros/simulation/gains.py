"""Servo gains: a gains file in ros2_control's layout, ``--kp/--kd`` for all, or a default from the inertia.

A gains file is YAML with a ``gains`` mapping of joint → ``{p: …, d: …}`` (the layout of
ros2_control's controllers: ``i``, ``i_clamp`` and other keys are read past), at the top,
or under a controller's ``ros__parameters``::

    joint_trajectory_controller:
      ros__parameters:
        gains:
          RLEG_HIP_R: {p: 8000.0, d: 100.0}

Each joint's gains come from the file, else ``--kp`` / ``--kd``, else the default: a servo
critically damped at :data:`DEFAULT_BANDWIDTH` Hz for the inertia the joint drives in the
zero pose (:func:`driven_inertia`: for a leg of a floating base what it holds up standing,
for any other joint the most it can move in the air). A joint with ``p`` 0 is a pure damper.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionValueError, ReadError, number, spelled
from ..core.naming import Yaml12Loader, line_of, load_safe
from .builder import BuiltModel, Gains

FloatArray = npt.NDArray[np.float64]

#: The largest gain taken (N·m/rad, N·m·s/rad): beyond it no servo is physical and the physics diverges.
MAX_GAIN = 1e9
#: The default servo's bandwidth (Hz): critically damped at this natural frequency.
DEFAULT_BANDWIDTH = 10.0
#: How far above the zero pose's lowest collision shape a link's shapes may reach and it still is a foot (m).
FOOT_BAND = 0.02


def _gain(path: str | os.PathLike[str], joint: str, entry: Mapping[str, Any], key: str) -> float:
    value = entry.get(key, 0.0)
    try:
        gain = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    except OverflowError:  # an integer beyond the float range
        gain = math.inf
    if not (math.isfinite(gain) and 0 <= gain <= MAX_GAIN):
        shown = number(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value)
        raise ReadError(
            path,
            f"expected a gain from 0 to {MAX_GAIN:g}, got {shown}",
            line=line_of(entry, key),
            field=f"gains.{joint}.{key}",
        )
    return gain


def _table(doc: Any) -> Mapping[str, Any] | None:
    if not isinstance(doc, Mapping):
        return None
    if isinstance(doc.get("gains"), Mapping):
        return doc["gains"]  # type: ignore[no-any-return]
    for value in doc.values():  # controller_name: {ros__parameters: {gains: …}}
        params = value.get("ros__parameters") if isinstance(value, Mapping) else None
        if isinstance(params, Mapping) and isinstance(params.get("gains"), Mapping):
            return params["gains"]  # type: ignore[no-any-return]
    return None


def read_gains(path: str | os.PathLike[str], joints: Sequence[str]) -> dict[str, Gains]:
    """The gains a file states for ``joints`` (joints it names that are not among them are an error).

    Raises:
        ReadError: The file cannot be read, is not a gains file, or a gain is not a number >= 0.
    """
    doc = load_safe(path, "gains file", Yaml12Loader)  # as ROS reads it: ``5e1`` a number, ``1_000`` not
    table = _table(doc)
    if table is None:
        raise ReadError(path, "not a gains file (a 'gains' mapping of joint: {p: …, d: …})")
    known = set(joints)
    out: dict[str, Gains] = {}
    for joint, entry in table.items():
        name = str(joint)
        if not isinstance(entry, Mapping):
            raise ReadError(
                path,
                f"expected a mapping {{p: …, d: …}}, got {entry!r}",
                line=line_of(table, joint),
                field=f"gains.{name}",
            )
        if name not in known:
            raise ReadError(
                path,
                f"joint {name} is not a servo joint of the model",
                line=line_of(table, joint),
                field=f"gains.{name}",
            )
        out[name] = Gains(_gain(path, name, entry, "p"), _gain(path, name, entry, "d"))
    return out


def default_gains(
    mj: Any, built: BuiltModel, kp: float | None, kd: float | None, given: Mapping[str, Gains], notes: list[str]
) -> dict[str, Gains]:
    """Every servo joint's gains: ``given``, else ``kp`` / ``kd``, else critically damped at
    :data:`DEFAULT_BANDWIDTH` Hz for the inertia the joint drives (:func:`driven_inertia`)."""
    for name, value in (("kp", kp), ("kd", kd)):
        if value is not None and not (math.isfinite(value) and 0 <= value <= MAX_GAIN):
            raise MotionValueError(f"{name} must be a number from 0 to {MAX_GAIN:g}, got {value:g}")
    omega = 2 * math.pi * DEFAULT_BANDWIDTH
    inertia = driven_inertia(mj, built) if kp is None or kd is None else np.zeros(len(built.servo_joints))
    out: dict[str, Gains] = {}
    derived = []
    for k, name in enumerate(built.servo_joints):
        if name in given:
            out[name] = given[name]
            continue
        p = kp if kp is not None else float(inertia[k]) * omega**2
        d = kd if kd is not None else 2 * float(inertia[k]) * omega
        if kp is None or kd is None:
            derived.append(name)
        out[name] = Gains(p, d)
    if derived:
        notes.append(_derived_note(len(derived), kp, kd))
    return out


def _derived_note(count: int, kp: float | None, kd: float | None) -> str:
    """What the note says of ``count`` joints whose gains (both, or the one of kp / kd not given) are the default's."""
    default = f"the default servo's (critically damped at {DEFAULT_BANDWIDTH:g} Hz for the inertia it drives)"
    gains, p, d = spelled("gains"), spelled("kp"), spelled("kd")
    if kp is None and kd is None:
        return (
            f"{count} joints have no gains given: each servo is critically damped at {DEFAULT_BANDWIDTH:g} Hz for "
            f"the inertia it drives ({gains} or {p}/{d} set them)"
        )
    given, letter, other = (f"{p} {kp:g}", "D", d) if kd is None else (f"{d} {kd:g}", "P", p)
    return (
        f"{count} joints have {given} and no {letter} gain given: each one's {letter} gain is {default}; "
        f"{other} or {gains} set it"
    )


def driven_inertia(mj: Any, built: BuiltModel) -> FloatArray:
    """Each servo joint's inertia (kg·m², or kg for a sliding joint): for a joint between a floating
    base and a foot, what it holds up standing; for any other, the most it can move in the air
    (each at least its own inertia in the zero pose).

    Standing, a leg's joint holds up the rest of the robot: the links on the base's side of it,
    turning about its axis (or sliding along it) in the zero pose. The feet are the links whose
    collision shapes reach within :data:`FOOT_BAND` of the lowest point of the zero pose; a
    fixed base has none. In the air a hinge moves the links beyond it; as the joints beyond
    turn, they may take each link as far from its axis as the link is from the joint, so each
    counts at that distance.
    """
    model = built.model
    data = mj.MjData(model)
    mj.mj_kinematics(model, data)
    parent = np.asarray(model.body_parentid)
    beyond = [set(_ancestors(parent, b)) for b in range(model.nbody)]  # each body's chain up to the world
    chains = {b for foot in _feet(mj, model, data) for b in beyond[foot]} if built.floating else set()
    out: FloatArray = np.array([float(model.dof_M0[i]) for i in built.qvel_index])
    for k, name in enumerate(built.servo_joints):
        joint = model.joint(name).id
        body = int(model.jnt_bodyid[joint])
        inside = np.array([body in beyond[b] for b in range(model.nbody)])
        if body in chains:
            rest = ~inside
            rest[0] = False  # the world
            out[k] = max(out[k], _about_axis(mj, model, data, joint, rest))
        elif model.jnt_type[joint] != mj.mjtJoint.mjJNT_SLIDE:
            out[k] = max(out[k], _reach(model, data, joint, inside))
    return out


def _reach(model: Any, data: Any, joint: int, bodies: npt.NDArray[np.bool_]) -> float:
    """The most ``bodies`` can weigh on ``joint``'s hinge: each at its distance from the joint, turned its worst way."""
    away = np.asarray(data.xipos)[bodies] - np.asarray(data.xanchor[joint])
    mass = np.asarray(model.body_mass)[bodies]
    return float((np.asarray(model.body_inertia)[bodies].max(axis=1) + mass * np.einsum("bi,bi->b", away, away)).sum())


def _ancestors(parent: npt.NDArray[np.intp], body: int) -> list[int]:
    """``body`` and the bodies above it, up to the world (0)."""
    chain = [body]
    while chain[-1] != 0:
        chain.append(int(parent[chain[-1]]))
    return chain


def _feet(mj: Any, model: Any, data: Any) -> list[int]:
    """The bodies whose collision shapes reach within :data:`FOOT_BAND` of the lowest one (the floor aside)."""
    lowest = np.full(model.nbody, np.inf)
    plane = mj.mjtGeom.mjGEOM_PLANE
    for g in range(model.ngeom):
        if model.geom_type[g] == plane or not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        turn = data.geom_xmat[g].reshape(3, 3)
        centre = data.geom_xpos[g] + turn @ model.geom_aabb[g, :3]
        bottom = centre[2] - np.abs(turn[2]) @ model.geom_aabb[g, 3:]  # the box around the shape, turned
        body = int(model.geom_bodyid[g])
        lowest[body] = min(lowest[body], bottom)
    if not np.isfinite(lowest).any():
        return []
    return [int(b) for b in np.flatnonzero(lowest <= lowest.min() + FOOT_BAND)]


def _about_axis(mj: Any, model: Any, data: Any, joint: int, bodies: npt.NDArray[np.bool_]) -> float:
    """The inertia of ``bodies`` about ``joint``'s axis (a hinge), or their mass (a slide)."""
    mass = np.asarray(model.body_mass)[bodies]
    if model.jnt_type[joint] == mj.mjtJoint.mjJNT_SLIDE:
        return float(mass.sum())
    axis = np.asarray(data.xaxis[joint])
    arm = np.cross(np.asarray(data.xipos)[bodies] - np.asarray(data.xanchor[joint]), axis)
    turns = np.asarray(data.ximat)[bodies].reshape(-1, 3, 3)
    along = np.einsum("bij,j->bi", turns.transpose(0, 2, 1), axis)  # the axis in each body's principal frame
    own = np.einsum("bi,bi->b", along * np.asarray(model.body_inertia)[bodies], along)
    return float(own.sum() + (mass * np.einsum("bi,bi->b", arm, arm)).sum())


__all__ = ["DEFAULT_BANDWIDTH", "FOOT_BAND", "default_gains", "driven_inertia", "read_gains"]
