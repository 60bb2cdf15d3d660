"""Triangle meshes for a robot model's visuals: mesh files found and loaded, shapes built.

Mesh file names are taken as a model writes them: ``package://PKG/path`` is looked up
in the ``share/PKG`` folder of every ``AMENT_PREFIX_PATH`` entry, then in every folder
of ``ROS_PACKAGE_PATH`` and of the viewer's ``--package-path`` (a folder that is the
package, or holds it); ``file://`` and absolute paths are taken as they are; relative
paths are relative to the model file. STL, DAE (Collada) and OBJ files are read with
trimesh. Shapes (box, cylinder and capsule along z, sphere) are built the same way, so
the page draws every visual as one kind of mesh.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import require

FloatArray = npt.NDArray[np.float64]


@dataclasses.dataclass(frozen=True)
class TriMesh:
    """Vertices (V, 3) float32 and faces (F, 3) uint32 in the visual's frame."""

    vertices: npt.NDArray[np.float32]
    faces: npt.NDArray[np.uint32]


def _trimesh() -> Any:
    return require("trimesh", "view", package="trimesh", extra="view", rosdep_key="python3-trimesh")


def package_roots(extra: Iterable[str | os.PathLike[str]] = ()) -> list[tuple[str, Path]]:
    """Where ``package://`` names are looked for, in order: (kind, folder)."""
    roots: list[tuple[str, Path]] = []
    for entry in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        if entry:
            roots.append(("prefix", Path(entry)))
    for entry in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
        if entry:
            roots.append(("folder", Path(entry)))
    roots.extend(("folder", Path(p)) for p in extra)
    return roots


def resolve(filename: str, base: Path | None, roots: Sequence[tuple[str, Path]]) -> Path | None:
    """The file a mesh name refers to, or None when it is not found."""
    if filename.startswith("package://"):
        rest = filename[len("package://") :]
        package, _, inner = rest.partition("/")
        for kind, root in roots:
            candidates = (
                [root / "share" / package / inner]
                if kind == "prefix"
                else [root / package / inner, root / inner if root.name == package else None]
            )
            for candidate in candidates:
                if candidate is not None and candidate.is_file():
                    return candidate
        return None
    if filename.startswith("file://"):
        filename = filename[len("file://") :]
    path = Path(filename)
    if not path.is_absolute() and base is not None:
        path = base / path
    return path if path.is_file() else None


def load_mesh(path: Path, scale: Sequence[float] = (1.0, 1.0, 1.0)) -> TriMesh:
    """One mesh of every geometry in the file (scaled), or ValueError when it cannot be read."""
    trimesh = _trimesh()
    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as exc:  # trimesh raises many kinds for bad files
        raise ValueError(f"{path}: cannot read the mesh: {exc}") from None
    vertices = np.asarray(getattr(loaded, "vertices", ()), dtype=np.float64).reshape(-1, 3)
    faces = np.asarray(getattr(loaded, "faces", ()), dtype=np.int64).reshape(-1, 3)
    if faces.size == 0:
        raise ValueError(f"{path}: no triangles in the mesh")
    vertices = vertices * np.asarray(scale, dtype=np.float64)
    return TriMesh(vertices.astype(np.float32), faces.astype(np.uint32))


def _from_trimesh(mesh: Any) -> TriMesh:
    return TriMesh(np.asarray(mesh.vertices, dtype=np.float32), np.asarray(mesh.faces, dtype=np.uint32))


def box(size: Sequence[float]) -> TriMesh:
    return _from_trimesh(_trimesh().creation.box(extents=[float(s) for s in size]))


def cylinder(radius: float, length: float) -> TriMesh:
    """A cylinder along z centred at the origin."""
    return _from_trimesh(_trimesh().creation.cylinder(radius=float(radius), height=float(length), sections=24))


def sphere(radius: float) -> TriMesh:
    return _from_trimesh(_trimesh().creation.icosphere(subdivisions=2, radius=float(radius)))


def capsule(radius: float, length: float) -> TriMesh:
    """A capsule along z: ``length`` between the centres of its end spheres."""
    return _from_trimesh(_trimesh().creation.capsule(height=float(length), radius=float(radius), count=[16, 16]))


def bone(start: npt.ArrayLike, end: npt.ArrayLike, radius: float) -> TriMesh:
    """A cylinder from ``start`` to ``end`` (a link drawn as the segments to its children)."""
    a, b = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    axis = b - a
    length = float(np.linalg.norm(axis))
    if length < 1e-9:
        return sphere(radius)
    mesh = _trimesh().creation.cylinder(radius=float(radius), segment=np.stack([a, b]), sections=12)
    return _from_trimesh(mesh)


__all__ = ["TriMesh", "bone", "box", "capsule", "cylinder", "load_mesh", "package_roots", "resolve", "sphere"]
