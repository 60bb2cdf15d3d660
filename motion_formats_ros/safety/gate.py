"""The check before playing: a motion that collides with its robot or the floor is refused.

What the player does before it sends anything (its robot model having collision
geometry): every frame checked (:class:`~.check.Checker`); a self-collision or a floor
finding refuses the motion with one line naming the first of them (unless the caller
ignores collisions: then each is logged as a warning); balance findings are logged as
warnings; what the check cost is logged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable

from ..core.errors import MotionFormatError
from ..core.kinematics import RobotModel
from ..core.model import Motion
from .check import Checker
from .findings import CheckReport

#: Where the gate reports: ``log(level, text)`` with level ``info`` or ``warning``.
LogCallback = Callable[[str, str], None]


class CollisionRefusedError(MotionFormatError):
    """The motion collides with its robot or the floor; the message names the first finding."""


def has_collision_geometry(model: RobotModel) -> bool:
    return any(link.collisions for link in model.links)


def checked_text(report: CheckReport, pairs: int) -> str:
    """What a report's check covered, in words: only what was checked (``balance`` only where it was)."""
    parts = [f"{report.times.size} frames"]
    if "self_collision" in report.checked:
        parts.append(f"{pairs} link pairs")
    covered = [word for kind, word in (("floor", "floor"), ("balance", "balance")) if kind in report.checked]
    if covered:
        parts.append(" and ".join(covered))
    return ", ".join(parts)


def check_before_playing(
    model: RobotModel | Checker,
    motion: Motion,
    log: LogCallback,
    *,
    srdf: str | os.PathLike[str] | None = None,
    package_paths: Iterable[str | os.PathLike[str]] = (),
    ignore: bool = False,
) -> Checker | None:
    """Check ``motion`` on ``model`` before it is played (nothing to do without collision geometry).

    Returns the model prepared for the check (pass it again for the next motion), or None
    when the model has no collision geometry.

    Args:
        model: The robot model, or a :class:`Checker` returned before (``srdf`` is then its own).
        srdf: Its ``disable_collisions`` pairs are not checked.
        package_paths: Folders to find ``package://`` meshes in (after ``AMENT_PREFIX_PATH``
            and ``ROS_PACKAGE_PATH``).
        ignore: Log collision and floor findings as warnings instead of refusing.

    Raises:
        CollisionRefusedError: A self-collision or floor finding (unless ``ignore``).
        MotionFormatError: The check cannot be made (a mesh that is missing, coal not installed).
    """
    if isinstance(model, RobotModel) and not has_collision_geometry(model):
        return None
    started = time.perf_counter()
    checker = model if isinstance(model, Checker) else Checker(model, srdf=srdf, package_paths=package_paths)
    report = checker.check(motion)
    log("info", f"collision check: {checked_text(report, len(checker.pairs))} in {time.perf_counter() - started:.2f} s")
    for note in report.notes:
        if note.startswith("balance not checked"):
            log("info", note)
    for finding in report.of_kind("balance"):
        log("warning", finding.message())
    harmful = report.of_kind("self_collision", "floor")
    if not harmful:
        return checker
    first = min(harmful, key=lambda f: f.start)
    if not ignore:
        more = f" ({len(harmful) - 1} more finding(s); motion-formats check lists them)" if len(harmful) > 1 else ""
        raise CollisionRefusedError(f"refusing to play: {first.message()}{more} (set ignore_collisions to play anyway)")
    for finding in sorted(harmful, key=lambda f: f.start):
        log("warning", f"playing despite (ignore_collisions): {finding.message()}")
    return checker


__all__ = ["CollisionRefusedError", "LogCallback", "check_before_playing", "has_collision_geometry"]
