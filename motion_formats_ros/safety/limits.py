"""Joint limits of a motion: position and velocity from the robot model, and a MoveIt ``joint_limits.yaml``.

The model gives position limits (revolute and prismatic joints; URDF's missing
``lower`` / ``upper`` mean 0, as for the player) and velocity limits (a positive
``velocity``). A MoveIt ``joint_limits.yaml`` (``joint_limits: {JOINT: {has_velocity_limits:
true, max_velocity: …, has_acceleration_limits: …, max_acceleration: …, has_jerk_limits: …,
max_jerk: …, has_position_limits: …, min_position: …, max_position: …}}``) overrides the
model where it states a limit, and adds acceleration and jerk limits. Values are in the
units the files use (rad, rad/s, rad/s², rad/s³; m for prismatic joints).

Velocities, accelerations and jerks are the finite differences (second order) of the
frames checked, so they are those of the frames a player sends.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import ReadError
from ..core.kinematics import RobotModel
from ..core.naming import load_safe
from .findings import Finding, intervals

FloatArray = npt.NDArray[np.float64]

#: Relative slack before a rate counts as beyond its limit, absolute slack for positions.
TOLERANCE = 1e-6


@dataclasses.dataclass(frozen=True)
class Limits:
    """One joint's limits (None: none)."""

    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None
    acceleration: float | None = None
    jerk: float | None = None


def model_limits(model: RobotModel) -> dict[str, Limits]:
    """Position and velocity limits the model states for its driven joints."""
    out: dict[str, Limits] = {}
    for j in model.joints:
        if j.type not in ("revolute", "prismatic", "continuous") or j.mimic is not None or j.limit is None:
            continue
        velocity = j.limit.velocity if j.limit.velocity and j.limit.velocity > 0 else None
        if j.type == "continuous":
            out[j.name] = Limits(velocity=velocity)
        else:
            out[j.name] = Limits(j.limit.lower or 0.0, j.limit.upper or 0.0, velocity)
    return out


def _number(path: str | os.PathLike[str], joint: str, entry: Mapping[str, Any], key: str) -> float:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ReadError(path, f"{key} is not a number: {value!r}", field=f"joint_limits.{joint}.{key}")
    return float(value)


def _rate_limit(path: str | os.PathLike[str], joint: str, entry: Mapping[str, Any], key: str) -> float | None:
    """A stated speed, acceleration or jerk limit; None for 0 (not stated, as in a URDF: the model's
    limit stays). A negative one is refused: it would turn the check off."""
    value = _number(path, joint, entry, key)
    if value < 0:
        raise ReadError(
            path, f"{key} is negative ({entry[key]!r}); 0 means not stated", field=f"joint_limits.{joint}.{key}"
        )
    return value or None


def read_joint_limits(path: str | os.PathLike[str], base: Mapping[str, Limits]) -> dict[str, Limits]:
    """``base`` with what a MoveIt ``joint_limits.yaml`` states laid over it.

    A limit is read where its ``has_…_limits`` flag is true. A speed, acceleration or jerk
    limit of 0 is taken as not stated (the model's limit stays), a negative one is refused,
    and so is a ``min_position`` above ``max_position``.

    Raises:
        ReadError: The file cannot be read, is not such a file, or a stated limit is not a
            number or not one of those (naming the joint and the key).
    """
    doc = load_safe(path, "joint limits file")
    table = doc.get("joint_limits") if isinstance(doc, Mapping) else None
    if not isinstance(table, Mapping):
        raise ReadError(path, "not a joint limits file (a mapping with a 'joint_limits' mapping)")
    out = dict(base)
    for joint, entry in table.items():
        if not isinstance(entry, Mapping):
            raise ReadError(path, f"expected a mapping, got {entry!r}", field=f"joint_limits.{joint}")
        name = str(joint)
        old = out.get(name, Limits())
        fields: dict[str, float | None] = {}
        if entry.get("has_position_limits"):
            lower = fields["lower"] = _number(path, name, entry, "min_position")
            upper = fields["upper"] = _number(path, name, entry, "max_position")
            if lower > upper:
                raise ReadError(
                    path,
                    f"min_position {entry['min_position']!r} is above max_position {entry['max_position']!r}",
                    field=f"joint_limits.{name}",
                )
        for flag, key, attr in (
            ("has_velocity_limits", "max_velocity", "velocity"),
            ("has_acceleration_limits", "max_acceleration", "acceleration"),
            ("has_jerk_limits", "max_jerk", "jerk"),
        ):
            if entry.get(flag):
                value = _rate_limit(path, name, entry, key)
                if value is not None:
                    fields[attr] = value
        out[name] = dataclasses.replace(old, **fields)
    return out


def _rate(values: FloatArray, times: FloatArray) -> FloatArray:
    if times.size < 2:
        return np.zeros_like(values)
    return np.asarray(np.gradient(values, times, axis=0, edge_order=2 if times.size > 2 else 1))


def _finding(
    kind: str, joint: str, times: FloatArray, excess: FloatArray, value: FloatArray, limit: float
) -> Finding | None:
    bad = excess > 0
    if not bad.any():
        return None
    i = int(np.argmax(excess))
    return Finding(kind, intervals(times, bad), float(value[i]), float(times[i]), joint=joint, limit=limit)


def limit_findings(
    joint_names: tuple[str, ...], positions: FloatArray, times: FloatArray, limits: Mapping[str, Limits]
) -> list[Finding]:
    """Position, velocity, acceleration and jerk findings of each single-valued joint with limits."""
    found: list[Finding] = []
    for c, name in enumerate(joint_names):
        lim = limits.get(name)
        if lim is None:
            continue
        q = positions[:, c]
        if lim.lower is not None and lim.upper is not None:
            excess = np.maximum(lim.lower - q, q - lim.upper) - TOLERANCE
            bound = lim.lower if q[int(np.argmax(excess))] < lim.lower else lim.upper
            f = _finding("position_limit", name, times, excess, q, bound)
            if f is not None:
                found.append(f)
        rates = [("velocity_limit", lim.velocity), ("acceleration_limit", lim.acceleration), ("jerk_limit", lim.jerk)]
        if all(limit is None for _, limit in rates):
            continue
        value = q
        for kind, limit in rates:
            value = _rate(value, times)
            if limit is None:
                continue
            size = np.abs(value)
            f = _finding(kind, name, times, size - limit * (1 + TOLERANCE), size, limit)
            if f is not None:
                found.append(f)
    return found


__all__ = ["Limits", "limit_findings", "model_limits", "read_joint_limits"]
