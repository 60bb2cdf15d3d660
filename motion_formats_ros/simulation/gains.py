"""Servo gains: a gains file in ros2_control's layout, ``--kp/--kd`` for all, or a default from the inertia.

A gains file is YAML with a ``gains`` mapping of joint → ``{p: …, d: …}`` (the layout of
ros2_control's controllers: ``i``, ``i_clamp`` and other keys are read past), at the top,
or under a controller's ``ros__parameters``::

    joint_trajectory_controller:
      ros__parameters:
        gains:
          RLEG_HIP_R: {p: 8000.0, d: 100.0}

Each joint's gains come from the file, else ``--kp`` / ``--kd``, else the default: a servo
critically damped at :data:`DEFAULT_BANDWIDTH` Hz for the inertia the joint moves in the
zero pose (MuJoCo's joint-space inertia at the model's start). A joint with ``p`` 0 is a
pure damper.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.errors import MotionValueError, ReadError, number
from ..core.naming import Yaml12Loader, load_safe
from .builder import BuiltModel, Gains

#: The largest gain taken (N·m/rad, N·m·s/rad): beyond it no servo is physical and the physics diverges.
MAX_GAIN = 1e9
#: The default servo's bandwidth (Hz): critically damped at this natural frequency.
DEFAULT_BANDWIDTH = 10.0


def _gain(path: str | os.PathLike[str], joint: str, entry: Mapping[str, Any], key: str) -> float:
    value = entry.get(key, 0.0)
    try:
        gain = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    except OverflowError:  # an integer beyond the float range
        gain = math.inf
    if not (math.isfinite(gain) and 0 <= gain <= MAX_GAIN):
        shown = number(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else repr(value)
        raise ReadError(path, f"expected a gain from 0 to {MAX_GAIN:g}, got {shown}", field=f"gains.{joint}.{key}")
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
    doc = load_safe(path, "gains file", Yaml12Loader)  # read as ROS reads it: ``5e1`` is a number
    table = _table(doc)
    if table is None:
        raise ReadError(path, "not a gains file (a 'gains' mapping of joint: {p: …, d: …})")
    known = set(joints)
    out: dict[str, Gains] = {}
    for joint, entry in table.items():
        name = str(joint)
        if not isinstance(entry, Mapping):
            raise ReadError(path, f"expected a mapping {{p: …, d: …}}, got {entry!r}", field=f"gains.{name}")
        if name not in known:
            raise ReadError(path, f"joint {name} is not a servo joint of the model", field=f"gains.{name}")
        out[name] = Gains(_gain(path, name, entry, "p"), _gain(path, name, entry, "d"))
    return out


def default_gains(
    mj: Any, built: BuiltModel, kp: float | None, kd: float | None, given: Mapping[str, Gains], notes: list[str]
) -> dict[str, Gains]:
    """Every servo joint's gains: ``given``, else ``kp`` / ``kd``, else critically damped at
    :data:`DEFAULT_BANDWIDTH` Hz for the joint's inertia in the start pose."""
    for name, value in (("kp", kp), ("kd", kd)):
        if value is not None and not (math.isfinite(value) and 0 <= value <= MAX_GAIN):
            raise MotionValueError(f"{name} must be a number from 0 to {MAX_GAIN:g}, got {value:g}")
    model = built.model
    omega = 2 * math.pi * DEFAULT_BANDWIDTH
    out: dict[str, Gains] = {}
    derived = []
    for k, name in enumerate(built.servo_joints):
        if name in given:
            out[name] = given[name]
            continue
        inertia = float(model.dof_M0[built.qvel_index[k]])
        p = kp if kp is not None else inertia * omega**2
        d = kd if kd is not None else 2 * inertia * omega
        if kp is None or kd is None:
            derived.append(name)
        out[name] = Gains(p, d)
    if derived:
        notes.append(
            f"{len(derived)} joints have no gains given: each servo is critically damped at "
            f"{DEFAULT_BANDWIDTH:g} Hz for the inertia it moves (--gains or --kp/--kd set them)"
        )
    return out


__all__ = ["DEFAULT_BANDWIDTH", "default_gains", "read_gains"]
