"""Triangle meshes for a robot model's visuals: mesh files found and loaded, shapes built.

Mesh file names are taken as a model writes them: ``package://PKG/path`` is looked up
in the ``share/PKG`` folder of every ``AMENT_PREFIX_PATH`` entry, then in every folder
of ``ROS_PACKAGE_PATH`` and of the viewer's ``--package-path`` (a folder that is the
package, or holds it); ``file://`` and absolute paths are taken as they are; relative
paths are relative to the model file. STL, DAE (Collada) and OBJ files are read with
trimesh. Shapes (box, cylinder and capsule along z, sphere) are built the same way, so
the page draws every visual as one kind of mesh; they are built here with numpy (trimesh
is imported only to read a mesh file).
"""

from __future__ import annotations

import dataclasses
import os
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import ReadError, require
from ..core.inputs import TEXT_PROBE, read_input

FloatArray = npt.NDArray[np.float64]
#: Mesh kinds that are text (a NUL byte near the start: not such a file).
_TEXT_MESHES = (".obj", ".dae")


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
    """The file a mesh name refers to, or None when it is not found.

    A ``package://`` name stays inside its package: a ``..`` in it finds nothing.
    """
    if filename.startswith("package://"):
        rest = filename[len("package://") :]
        package, _, inner = rest.partition("/")
        if not package or ".." in Path(rest).parts or Path(inner).is_absolute():
            return None
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


def _check_file(path: Path) -> None:
    """A mesh file that is no regular file, or whose start is not of its kind (an STL whose
    size is not the one its triangle count gives, zeros where text belongs), is refused
    before trimesh reads it (ValueError, without the path)."""
    try:
        head = read_input(path, TEXT_PROBE)
    except ReadError as exc:
        raise ValueError(exc.reason) from None
    size = path.stat().st_size
    if path.suffix.lower() == ".stl" and len(head) >= 84:
        (count,) = struct.unpack_from("<I", head, 80)
        if size == 84 + 50 * count:
            return  # a binary STL
        if not head.lstrip()[:5].lower() == b"solid":
            raise ValueError(
                f"not an STL: {size} bytes, where a binary STL of the {count} triangles its header "
                f"declares has {84 + 50 * count}, and no ASCII STL's 'solid' at the start"
            )
    if path.suffix.lower() in _TEXT_MESHES or path.suffix.lower() == ".stl":
        nul = head.find(b"\0")
        if nul >= 0:
            raise ValueError(f"byte {nul}: binary data (a NUL byte) in a text mesh file")


def load_mesh(path: Path, scale: Sequence[float] = (1.0, 1.0, 1.0)) -> TriMesh:
    """One mesh of every geometry in the file (scaled), or ValueError when it cannot be read.

    The error says why without naming the file (the caller's notice names it).
    """
    trimesh = _trimesh()
    _check_file(path)
    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as exc:  # trimesh raises many kinds for bad files
        raise ValueError(f"cannot read the mesh: {exc}") from None
    vertices = np.asarray(getattr(loaded, "vertices", ()), dtype=np.float64).reshape(-1, 3)
    faces = np.asarray(getattr(loaded, "faces", ()), dtype=np.int64).reshape(-1, 3)
    if faces.size == 0:
        raise ValueError("no triangles in the mesh")
    vertices = vertices * np.asarray(scale, dtype=np.float64)
    return TriMesh(vertices.astype(np.float32), faces.astype(np.uint32))


def _mesh(vertices: npt.ArrayLike, faces: npt.ArrayLike) -> TriMesh:
    return TriMesh(np.asarray(vertices, dtype=np.float32), np.asarray(faces, dtype=np.uint32))


def box(size: npt.ArrayLike) -> TriMesh:
    """A box centred at the origin; four vertices per side (flat sides), faces wound outwards."""
    half = np.asarray(size, dtype=np.float64).reshape(3) / 2
    vertices: list[FloatArray] = []
    faces: list[list[int]] = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3
        for sign in (1.0, -1.0):
            corners = []
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = np.zeros(3)
                p[axis], p[u], p[v] = sign, a, b
                corners.append(p * half)
            k = len(vertices)
            vertices.extend(corners)
            # (u, v, axis) is right-handed: counter-clockwise in (u, v) faces +axis.
            faces += [[k, k + 1, k + 2], [k, k + 2, k + 3]] if sign > 0 else [[k, k + 2, k + 1], [k, k + 3, k + 2]]
    return _mesh(vertices, faces)


def _lathe(profile: FloatArray, sections: int) -> TriMesh:
    """A surface of revolution about z from a (radius, z) profile running from bottom to top."""
    angles = np.linspace(0.0, 2 * np.pi, sections, endpoint=False)
    ring = np.column_stack([np.cos(angles), np.sin(angles)])
    rows = profile.shape[0]
    vertices = np.zeros((rows, sections, 3))
    vertices[:, :, :2] = profile[:, 0, None, None] * ring[None, :, :]
    vertices[:, :, 2] = profile[:, 1, None]
    faces = []
    for r in range(rows - 1):
        for k in range(sections):
            a, b = r * sections + k, r * sections + (k + 1) % sections
            c, d = a + sections, b + sections
            faces += [[a, b, d], [a, d, c]]  # outward for a profile going up
    return _mesh(vertices.reshape(-1, 3), faces)


def cylinder(radius: float, length: float, sections: int = 24) -> TriMesh:
    """A cylinder along z centred at the origin (flat caps)."""
    r, h = float(radius), float(length) / 2
    profile = np.array([[0.0, -h], [r, -h], [r, -h], [r, h], [r, h], [0.0, h]])
    return _lathe(profile, sections)


def sphere(radius: float, rings: int = 12, sections: int = 24) -> TriMesh:
    return capsule(radius, 0.0, rings, sections)


def capsule(radius: float, length: float, rings: int = 12, sections: int = 24) -> TriMesh:
    """A capsule along z: ``length`` between the centres of its end half-spheres (0: a sphere)."""
    r, h = float(radius), float(length) / 2
    lat = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    lower = lat[lat <= 0]
    upper = lat[lat >= 0]
    profile = np.concatenate(
        [
            np.column_stack([r * np.cos(lower), r * np.sin(lower) - h]),
            np.column_stack([r * np.cos(upper), r * np.sin(upper) + h]),
        ]
    )
    return _lathe(profile, sections)


def bone(start: npt.ArrayLike, end: npt.ArrayLike, radius: float) -> TriMesh:
    """A cylinder from ``start`` to ``end`` (a link drawn as the segments to its children)."""
    a, b = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
    axis = b - a
    length = float(np.linalg.norm(axis))
    if length < 1e-9:
        return sphere(radius)
    c = cylinder(radius, length, sections=12)
    z = axis / length
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    rotation = np.column_stack([x, y, z])  # local z → the bone's direction
    vertices = c.vertices.astype(np.float64) @ rotation.T + (a + b) / 2
    return _mesh(vertices, c.faces)


__all__ = ["TriMesh", "bone", "box", "capsule", "cylinder", "load_mesh", "package_roots", "resolve", "sphere"]
