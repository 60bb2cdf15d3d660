"""Triangle meshes for a robot model's visuals: mesh files found and loaded, shapes built.

Mesh files are found and read by :mod:`motion_formats_ros.core.mesh_files` (the
viewer's ``--package-path`` folders are searched after ``AMENT_PREFIX_PATH`` and
``ROS_PACKAGE_PATH``). Shapes (box, cylinder and capsule along z, sphere) are built the same way, so
the page draws every visual as one kind of mesh; they are built here with numpy (trimesh
is imported only to read a mesh file).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..core.mesh_files import TriMesh, load_mesh, package_roots, resolve

FloatArray = npt.NDArray[np.float64]


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
