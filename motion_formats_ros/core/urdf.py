"""Joint limits from a URDF (the player refuses motions beyond them)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from .errors import ReadError
from .playback import JointLimit


def joint_limits(urdf: str, source: str | os.PathLike[str] = "<robot_description>") -> dict[str, JointLimit]:
    """Position and velocity limits of every limited joint in the URDF text ``urdf``.

    Revolute and prismatic joints give lower/upper/velocity; continuous joints only
    velocity; fixed and floating joints nothing. Mimic joints are skipped (they follow).
    """
    try:
        root = ET.fromstring(urdf)  # noqa: S314 - robot descriptions are the user's own files
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise ReadError(source, f"invalid URDF XML: {exc}", line=line) from None
    if root.tag != "robot":
        raise ReadError(source, f"not a URDF: the root element is <{root.tag}>, expected <robot>")
    limits: dict[str, JointLimit] = {}
    for joint in root.iter("joint"):
        name = joint.get("name")
        kind = joint.get("type", "")
        if not name or kind not in ("revolute", "prismatic", "continuous") or joint.find("mimic") is not None:
            continue
        limit = joint.find("limit")
        if limit is None:
            continue

        def number(key: str, joint_name: str = name, element: ET.Element = limit) -> float | None:
            text = element.get(key)
            if text is None:
                return None
            try:
                return float(text)
            except ValueError:
                raise ReadError(source, f"joint {joint_name!r}: limit {key}={text!r} is not a number") from None

        velocity = number("velocity")
        if kind == "continuous":
            limits[name] = JointLimit(velocity=velocity if velocity and velocity > 0 else None)
        else:
            limits[name] = JointLimit(
                lower=number("lower") or 0.0,  # URDF's defaults are 0
                upper=number("upper") or 0.0,
                velocity=velocity if velocity and velocity > 0 else None,
            )
    return limits
