"""A FollowJointTrajectory goal's content, free of messages: tolerances and why a goal was refused.

The player's action client (``ros/sending.py``) turns these into control_msgs fields.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from ..core.errors import MotionFormatError


class SendError(MotionFormatError):
    """The controller refused the motion or did not execute it; the message says why."""


#: A position tolerance: one number for every joint, or joint → number.
Tolerance = float | dict[str, float]


def parse_tolerance(name: str, value: Any) -> Tolerance:
    """A tolerance parameter: one number for every joint, or a map joint → number.

    Strings are read as YAML (``"0.05"``, ``"{elbow: 0.1, wrist: 0.2}"``). 0 (or an empty
    string) leaves the controller's default; -1 lifts the limit (control_msgs/JointTolerance).

    Raises:
        ValueError: Not a number or a map of numbers, or a value that is neither > 0, 0 nor -1.
    """
    if isinstance(value, str):
        try:
            value = yaml.safe_load(value) if value.strip() else 0.0
        except yaml.YAMLError:
            raise ValueError(f"{name}: expected a number or a map joint: number, got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float, dict)):
        raise ValueError(f"{name}: expected a number or a map joint: number, got {value!r}")
    items = value.items() if isinstance(value, dict) else [("", value)]
    out: dict[str, float] = {}
    for joint, v in items:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not (v >= 0 or v == -1):
            where = f" (joint {joint!r})" if joint else ""
            raise ValueError(
                f"{name}{where}: expected a number > 0, 0 (the controller's default) or -1 (none), got {v!r}"
            )
        out[str(joint)] = float(v)
    return out[""] if not isinstance(value, dict) else out


def tolerance_entries(name: str, tolerance: Tolerance, joints: Sequence[str]) -> list[tuple[str, float]]:
    """(joint, position tolerance) for the goal; none where the controller's default applies.

    Raises:
        SendError: The map names a joint the motion does not send.
    """
    if isinstance(tolerance, dict):
        unknown = [j for j in tolerance if j not in joints]
        if unknown:
            raise SendError(f"{name} names joints the motion does not send: {', '.join(unknown)}")
        return [(j, v) for j, v in tolerance.items() if v != 0]
    if tolerance == 0:
        return []
    return [(j, tolerance) for j in joints]


def describe_tolerance(tolerance: Tolerance) -> str:
    """A tolerance as the log says it (``default`` for the controller's own)."""
    if isinstance(tolerance, dict):
        return "{" + ", ".join(f"{j}: {v:g}" for j, v in tolerance.items()) + "}" if tolerance else "default"
    return "default" if tolerance == 0 else f"{tolerance:g}"


#: What a rejected goal's reason is when the controller's parameters do not tell.
NO_REASON = "the action gives no reason (the controller's log says why)"


def rejection_reason(sent: Sequence[str], params: Mapping[str, Any] | None) -> str:
    """Why a goal for the joints ``sent`` was rejected, as far as the controller's parameters tell.

    A rejected goal carries no reason in ROS 2 (joint_trajectory_controller logs it):
    ``params`` are the controller's ``joints`` and ``allow_partial_joints_goal`` (None when
    they could not be read).
    """
    if params is None or not params.get("joints"):
        return NO_REASON
    theirs = [str(j) for j in params["joints"]]
    ours = list(sent)
    unknown = [j for j in ours if j not in theirs]
    missing = [j for j in theirs if j not in ours]
    partial = bool(params.get("allow_partial_joints_goal", False))
    problems = []
    if unknown:
        problems.append(f"joints the controller does not have: {', '.join(unknown)}")
    if missing and not partial:
        problems.append(f"joints missing (allow_partial_joints_goal is false): {', '.join(missing)}")
    if not problems:
        return f"{NO_REASON}; the joints match the controller's ({', '.join(theirs)})"
    return "; ".join(problems) + f" (the controller's joints: {', '.join(theirs)})"
