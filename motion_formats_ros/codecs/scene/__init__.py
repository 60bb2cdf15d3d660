"""Scene Description (JSON5): models, objects, transforms and spline trajectories.

Reading a scene file gives the joint motion of its robots (see
:mod:`.motion`); :func:`load_scene` gives the validated :class:`~.description.Scene`
itself (for forward kinematics see :mod:`.scene_kinematics`). Writing turns
a motion into a scene whose trajectories reproduce it (see :mod:`.scene_writer`).

Modules: :mod:`.loader` (JSON5 and ``uri`` references), :mod:`.preprocess`
(validation, canonical scene), :mod:`.transforms`, :mod:`.trajectory`, :mod:`.motion`,
:mod:`.scene_writer`.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from ...core.errors import ReadError
from ...core.model import MotionFile
from ...core.options import option
from ...core.validation import Validation
from .description import Scene
from .loader import load, parse_json5
from .motion import SceneRecord, scene_to_motion, scene_to_motion_file
from .preprocess import load_scene, preprocess
from .problems import Problem, SceneError
from .scene_writer import WriteOptions, write
from .trajectory import Trajectory
from .transforms import Ref, Transform, parse_transform

_KEY = re.compile(r"""^\s*(?:"|')?(models|objects|trajectories)(?:"|')?\s*:""", re.MULTILINE)


#: Options of :func:`read` and :func:`write`.
@dataclasses.dataclass(frozen=True)
class ReadOptions:
    """Options of :func:`read`."""

    rate: float | None = option(None, "sample at this rate (default: the control points)", unit="Hz")
    links: bool = option(False, "also give every object's and link's world pose (forward kinematics)")


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read a scene file as the joint motion of its robots.

    Args:
        path: The scene (``.json5`` or ``.json``).
        options: The rate to sample at, in frames per second (default: the control
            points); whether to give every object's and link's world pose too (forward
            kinematics).
    """
    opts = options or ReadOptions()
    return scene_to_motion_file(load_scene(path), rate=opts.rate, links=opts.links)


def validate(path: Path) -> Validation:
    """Every problem of the scene at ``path`` with its JSON path (``motion-formats validate``).

    A scene with errors is invalid (its problems are the errors and warnings found); a
    file that cannot be parsed at all raises :class:`~...core.errors.ReadError`.
    """
    try:
        scene = load_scene(path)
    except SceneError as exc:
        return Validation(False, tuple(exc.problems), f"{len(exc.paths)} error(s)")
    summary = (
        f"valid scene ({len(scene.models)} models, {len(scene.objects)} objects, "
        f"{len(scene.trajectories)} trajectories, {len(scene.problems)} warning(s))"
    )
    return Validation(True, tuple(scene.problems), summary, scene.canonical)


def sniff(path: Path, head: str) -> bool:
    """True when the top level has ``models``, ``objects`` or ``trajectories``."""
    if len(head) < 65536:
        try:
            data = parse_json5(head, path)
        except ReadError:  # not parseable (a truncated head …): fall back to the key pattern
            return _KEY.search(head) is not None and '"format": "omf"' not in head
        return isinstance(data, dict) and any(k in data for k in ("models", "objects", "trajectories"))
    return _KEY.search(head) is not None


__all__ = [
    "Problem",
    "ReadOptions",
    "Ref",
    "Scene",
    "SceneError",
    "SceneRecord",
    "Trajectory",
    "Transform",
    "WriteOptions",
    "load",
    "load_scene",
    "parse_transform",
    "preprocess",
    "read",
    "scene_to_motion",
    "scene_to_motion_file",
    "sniff",
    "validate",
    "write",
]
