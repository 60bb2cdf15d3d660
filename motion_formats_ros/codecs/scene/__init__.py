"""Scene Description (JSON5): models, objects, transforms and spline trajectories.

Spec: ../shared/specs/002_*.txt; decisions: ../shared/specs/README.md ("Scene
Description (JSON5)"). Reading a scene file gives the joint motion of its robots (see
:mod:`.motion`); :func:`load_scene` gives the validated :class:`~.preprocess.Scene`
itself (for forward kinematics see :mod:`.kinematics`). Writing turns
a motion into a scene whose trajectories reproduce it (see :mod:`.writer`).

Modules: :mod:`.loader` (JSON5 and ``uri`` references), :mod:`.preprocess`
(validation, canonical scene), :mod:`.transforms`, :mod:`.trajectory`, :mod:`.motion`,
:mod:`.writer`.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...core.errors import ReadError
from ...core.model import MotionFile
from ...core.options import NUMBER, PATH, Option
from .loader import load, parse_json5
from .motion import SceneRecord, scene_to_motion, scene_to_motion_file
from .preprocess import Scene, load_scene, preprocess
from .problems import Problem, SceneError
from .trajectory import Trajectory
from .transforms import Ref, Transform, parse_transform
from .writer import write

_KEY = re.compile(r"""^\s*(?:"|')?(models|objects|trajectories)(?:"|')?\s*:""", re.MULTILINE)


#: Options of :func:`read` and :func:`write`.
READ_OPTIONS = (
    Option("rate", NUMBER, None, "sample at this many frames per second (default: the control points)"),
    Option("links", (bool,), False, "also give every object's and link's world pose (forward kinematics)"),
)
WRITE_OPTIONS = (
    Option("group", (str,), None, "the group to write (default: the first)"),
    Option("joint_limits", (object,), None, "joint name -> limits (scene keys, (min, max) or an object)"),
    Option("urdf", PATH, None, "a URDF file to take joint limits from"),
)


def read(path: Path, rate: float | None = None, links: bool = False) -> MotionFile:
    """Read a scene file as the joint motion of its robots.

    Args:
        path: The scene (``.json5`` or ``.json``).
        rate: Sample at this many frames per second (default: the control points).
        links: Also give every object's and link's world pose (forward kinematics).
    """
    return scene_to_motion_file(load_scene(path), rate=rate, links=links)


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
    "READ_OPTIONS",
    "WRITE_OPTIONS",
    "Problem",
    "Ref",
    "Scene",
    "SceneError",
    "SceneRecord",
    "Trajectory",
    "Transform",
    "load",
    "load_scene",
    "parse_transform",
    "preprocess",
    "read",
    "scene_to_motion",
    "scene_to_motion_file",
    "sniff",
    "write",
]
