"""A robot model's collision shapes, ready to collide: coal geometries, bounding spheres, hull points.

Each ``<collision>`` of a URDF link (each collision shape of a ``.body`` link) becomes one
:class:`Shape`: the coal geometry (boxes, cylinders and capsules along z, spheres;
meshes as a bounding-volume hierarchy of their triangles, as MoveIt and pinocchio
collide them), a bounding sphere and box (to skip pairs that are far apart without
asking coal: a primitive's exact ones, a mesh's from its vertices) and points whose
convex hull is the shape (exact for boxes and meshes, 32 around a circle or 200 over a
sphere otherwise) for the floor and the support polygon.

A mesh that cannot be found or read is an error, never a shape left out; so is a missing
collision library (coal, the ``check`` extra).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import ReadError, require, spelled
from ..core.inputs import interruptible
from ..core.kinematics import Box, Capsule, Cylinder, Geometry, Mesh, RobotModel, Sphere
from ..core.mesh_files import TriMesh, load_mesh, package_roots, resolve
from ..core.notices import NoticeKind, notify
from ..core.spatial import quat_to_matrix

FloatArray = npt.NDArray[np.float64]


def coal_module() -> Any:
    """The coal collision library (the ``check`` extra)."""
    return require("coal", "checking collisions", package="coal", extra="check")


@dataclasses.dataclass(frozen=True)
class Shape:
    """One collision shape of a link.

    Attributes:
        link: The link's name; ``link_index`` its index in the model's links.
        rotation, translation: The shape's frame in the link frame ((3, 3), (3,)).
        geometry: The coal geometry, or for a mesh its :class:`Triangles` (coal's hierarchy of
            them is built when first collided: :meth:`collision_geometry`).
        centre, radius: A sphere holding the shape, in the shape frame.
        hull: (V, 3) points (shape frame) whose convex hull is the shape (a mesh's distinct
            vertices, or its hull's vertices).
        label: What it is, for messages (``box``, the mesh file …).
        convex: For a mesh, its convex hull as a coal geometry (a pair whose hulls do not
            meet cannot collide, and coal tells that far faster than for the triangles), or
            the :class:`MeshHull` that builds it when first asked for
            (:meth:`convex_geometry`); None for shapes that are convex themselves.
        box: A box holding the shape, in the shape frame (:meth:`oriented_box`): a
            primitive's own, or for a mesh the :class:`PointsBox` that fits one to its hull
            points when first asked for.
    """

    link: str
    link_index: int
    rotation: FloatArray
    translation: FloatArray
    geometry: Any
    centre: FloatArray
    radius: float
    hull: FloatArray
    label: str
    box: tuple[FloatArray, FloatArray, FloatArray] | PointsBox
    convex: Any = None

    def collision_geometry(self) -> Any:
        """The coal geometry (a mesh's bounding-volume hierarchy, built on the first call)."""
        return self.geometry.model() if isinstance(self.geometry, Triangles) else self.geometry

    def convex_geometry(self) -> Any:
        """A mesh's convex hull as a coal geometry (built on the first call); None for other shapes."""
        return self.convex.made()[0] if isinstance(self.convex, MeshHull) else self.convex

    def support_points(self) -> FloatArray:
        """The vertices of the shape's convex hull (a mesh's built on the first call), or points
        whose hull it is: those that can touch the ground."""
        return self.convex.made()[1] if isinstance(self.convex, MeshHull) else self.hull

    def oriented_box(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """A box holding the shape: axes (3, 3) (columns), centre (3,) and half sizes (3,), in the
        shape frame (a mesh's fitted on the first call)."""
        return self.box.made() if isinstance(self.box, PointsBox) else self.box


class Triangles:
    """A mesh's triangles, made into coal's bounding-volume hierarchy (OBBRSS) when first asked for:
    building it costs more than reading the mesh, and a check whose frames never bring the mesh
    near another shape's never needs it (the floor and the support polygon take the hull points).
    The same object serves every shape of the same mesh file and scale."""

    def __init__(self, vertices: FloatArray, faces: npt.NDArray[np.int64]) -> None:
        self.vertices, self.faces = vertices, faces
        self.count = int(faces.shape[0])
        self._model: Any = None

    def model(self) -> Any:
        """coal's BVHModelOBBRSS of the triangles (built once; SIGTERM ends the process meanwhile)."""
        if self._model is None:
            coal = coal_module()
            with interruptible():
                model = coal.BVHModelOBBRSS()
                model.beginModel(self.count, int(self.vertices.shape[0]))
                model.addVertices(self.vertices)
                model.addTriangles(self.faces)
                model.endModel()
            self._model = model
            self.vertices, self.faces = self.vertices[:0], self.faces[:0]  # coal holds its own copy
        return self._model


class MeshHull:
    """A solid mesh's convex hull (:func:`convex_hull` of its distinct vertices), built when first
    asked for: a check whose frames bring the mesh near no other shape, on a robot whose balance
    is not checked, never needs it (the floor and the bounding volumes take the distinct
    vertices, whose lowest and farthest points are the hull's)."""

    def __init__(self, points: FloatArray) -> None:
        self.points = points
        self._made: tuple[Any, FloatArray] | None = None

    def made(self) -> tuple[Any, FloatArray]:
        """The hull as a coal geometry and its vertices (built once; SIGTERM ends the process meanwhile)."""
        if self._made is None:
            with interruptible():
                self._made = convex_hull(self.points)
        return self._made


class PointsBox:
    """The box :func:`bounding_box` fits to a mesh's hull points, fitted when first asked for: a
    check whose frames bring the mesh near no other shape never needs it."""

    def __init__(self, points: FloatArray) -> None:
        self.points = points
        self._made: tuple[FloatArray, FloatArray, FloatArray] | None = None

    def made(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Axes (3, 3) (columns), centre (3,), half sizes (3,) (fitted once)."""
        if self._made is None:
            self._made = bounding_box(self.points)
        return self._made


def _circle(radius: float, z: float, count: int = 32) -> FloatArray:
    a = np.linspace(0.0, 2 * math.pi, count, endpoint=False)
    return np.column_stack([radius * np.cos(a), radius * np.sin(a), np.full(count, z)])


def _sphere_points(radius: float, count: int = 200) -> FloatArray:
    """Points spread over a sphere (a Fibonacci lattice)."""
    i = np.arange(count) + 0.5
    z = 1 - 2 * i / count
    r = np.sqrt(1 - z * z)
    phi = math.pi * (3 - math.sqrt(5)) * i
    return radius * np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


def _hull_points(points: FloatArray) -> FloatArray:
    """The vertices of the convex hull of ``points`` (all of them when the hull cannot be made)."""
    vertices = hull_indices(points)
    return np.asarray(points if vertices is None else points[vertices], dtype=np.float64)


#: The least spread of a point set across its thinnest direction (a singular value of the centred
#: points, against the largest) for which coal builds its convex hull: coal's hull building ends
#: the process on a flat or nearly flat set, so a thinner one goes to scipy's.
COAL_HULL_SPREAD = 1e-3


def hull_indices(points: FloatArray) -> npt.NDArray[np.intp] | None:
    """The indexes of the vertices of the convex hull of ``points`` (ascending; of points given
    more than once, the first), or None when there is none (flat or degenerate points)."""
    distinct = first_indices(points)
    made = _coal_hull(points[distinct])
    if made is not None:
        return distinct[made[1]]
    found = _scipy_hull(points[distinct])
    return None if found is None else distinct[found[0]]


def first_indices(points: FloatArray) -> npt.NDArray[np.intp]:
    """The index of the first of each distinct point (rows), ascending."""
    if not points.shape[0]:
        return np.zeros(0, dtype=np.intp)
    order = np.lexsort(points.T[::-1])  # stable: among equal points, the first comes first
    ordered = points[order]
    starts = np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)]
    return np.sort(order[starts])


def solid(points: FloatArray) -> bool:
    """Whether distinct points spread well enough in every direction for coal's hull building."""
    if points.shape[0] < 4:
        return False
    spread = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
    return bool(spread[0] > 0 and spread[2] >= spread[0] * COAL_HULL_SPREAD)


def _coal_hull(points: FloatArray) -> tuple[Any, npt.NDArray[np.intp]] | None:
    """coal's convex hull of distinct points as a coal geometry, and the indexes of its vertices
    (ascending); None when the points are too thin for coal or it cannot build their hull."""
    if not solid(points):
        return None
    coal = coal_module()
    given = coal.StdVec_Vec3s()
    given.extend(list(points))
    try:
        hull = coal.ConvexBase.convexHull(given, True, None)
    except (RuntimeError, ValueError):  # e.g. a vertex of more hull edges than coal keeps
        return None
    index = {p: i for i, p in enumerate(map(tuple, points.tolist()))}
    where = np.array([index[tuple(p)] for p in np.asarray(hull.points()).tolist()], dtype=np.intp)
    return hull, np.sort(where)


def _scipy_hull(points: FloatArray) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]] | None:
    """scipy's convex hull of distinct points: the indexes of its vertices (ascending) and its
    triangles; None when there is none."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(points)
    except (QhullError, ValueError):
        return None
    return np.asarray(hull.vertices, dtype=np.intp), np.asarray(hull.simplices, dtype=np.intp)


def convex_hull(points: FloatArray) -> tuple[Any, FloatArray]:
    """The convex hull of the points of a solid mesh as a coal geometry, and its vertices; (None,
    every point) when there is none.

    The hull is qhull's of the distinct points (a mesh file gives each corner once per
    triangle, six times over in a closed mesh: qhull takes that much longer). Coal builds it
    when the points spread well in every direction (coal is imported already, where scipy's
    spatial package takes far longer to import than a robot's hulls take to build); scipy
    builds it otherwise (coal's hull building ends the process on flat or nearly flat points)
    and where coal cannot (it keeps at most 255 edges at a vertex), and coal is handed its
    triangles. Given the same points, both give the same vertices.
    """
    distinct = first_indices(points)
    made = _coal_hull(points[distinct])
    if made is not None:
        return made[0], np.asarray(points[distinct[made[1]]], dtype=np.float64)
    found = _scipy_hull(points[distinct])
    if found is None:
        return None, np.asarray(points, dtype=np.float64)
    vertices, simplices = found
    coal = coal_module()
    corners = np.asarray(points[distinct[vertices]], dtype=np.float64)
    index = np.full(distinct.shape[0], -1, dtype=np.intp)
    index[vertices] = np.arange(vertices.size)
    kept = coal.StdVec_Vec3s()
    for p in corners:
        kept.append(p)
    triangles = coal.StdVec_Triangle()
    for a, b, c in index[simplices].tolist():
        triangles.append(coal.Triangle(a, b, c))
    return coal.Convex(kept, triangles), corners


#: Below this share of a mesh's largest extent, an extent (or a triangle's area, of the square) is none.
FLAT = 1e-9


def mesh_form(
    vertices: FloatArray, faces: npt.NDArray[np.int64], thin: float = FLAT
) -> tuple[int, npt.NDArray[np.bool_]]:
    """How many directions a mesh's vertices span (3: a solid; 2: flat; 1, 0: a line, a point:
    the rank of the centred vertices, a direction they spread less in than ``thin`` of the
    largest counting as none) and which of its triangles have an area."""
    centred = vertices - vertices.mean(axis=0)
    spread = np.linalg.svd(centred, compute_uv=False)
    rank = int((spread > spread[0] * thin).sum()) if spread[0] > 0 else 0
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    extent = float(np.ptp(vertices, axis=0).max())
    return rank, np.linalg.norm(np.cross(b - a, c - a), axis=1) > extent * extent * FLAT


class MeshCache:
    """Mesh files read once (with their scale) and turned into coal models once."""

    def __init__(self, base: Path | None, package_paths: Iterable[str | os.PathLike[str]], source: str) -> None:
        self.base = base
        self.roots = package_roots(package_paths)
        self.source = source
        self._meshes: dict[tuple[str, tuple[float, ...]], tuple[Any, FloatArray, Any]] = {}

    def get(self, mesh: Mesh, link: str) -> tuple[Any, FloatArray, Any]:
        """The triangles (:class:`Triangles`), the hull points and the convex hull (a coal geometry
        or a :class:`MeshHull`, or None when it cannot be made) of a mesh; ReadError naming the
        model when the file is missing or cannot be collided.

        A solid mesh is its triangles and its convex hull; a flat one (all its vertices in a
        plane) only its triangles that have an area (a notice says so); one without such a
        triangle (a line, a point) is refused.
        """
        key = (mesh.filename, tuple(float(s) for s in mesh.scale))
        if key in self._meshes:
            return self._meshes[key]
        where = f"link {link!r}: collision mesh {mesh.filename}"
        path = resolve(mesh.filename, self.base, self.roots)
        if path is None:
            if mesh.filename.startswith("package://"):
                unset = f"no package folders (set {spelled('package_paths')})"
                searched = ", ".join(str(r) for _, r in self.roots) or unset
                looked = f"searched {searched}"
            else:
                looked = f"looked for beside the model, in {self.base}" if self.base else "no folder to look in"
            raise ReadError(self.source, f"{where} not found ({looked})")
        try:
            tri: TriMesh = load_mesh(path, tuple(mesh.scale), extra="check")
        except ValueError as exc:
            raise ReadError(self.source, f"link {link!r}: collision mesh {exc}") from exc
        with interruptible():  # qhull: SIGTERM ends the process at once
            found = self._build(tri, where)
        self._meshes[key] = found
        return found

    def _build(self, tri: TriMesh, where: str) -> tuple[Any, FloatArray, Any]:
        """The triangles (:class:`Triangles`), the hull points and the convex hull (a
        :class:`MeshHull` where coal will build it) of a mesh read."""
        vertices = tri.vertices.astype(np.float64)
        faces = tri.faces.astype(np.int64)
        rank, has_area = mesh_form(vertices, faces)
        if not has_area.any():
            shape = "vertices lie on a line" if rank else "vertices are one point"
            raise ReadError(self.source, f"{where}: no triangle has an area (its {shape})")
        convex: Any = None
        if rank == 3:
            hull = vertices[first_indices(vertices)]
            convex = MeshHull(hull)
            if not solid(hull):  # scipy's hull, or none: known now (a mesh without one is collided as flat)
                convex, hull = convex_hull(hull)
        else:
            hull = np.asarray(vertices[np.unique(faces[has_area])])
        if convex is None:
            faces = faces[has_area]
            notify(
                NoticeKind.READ_CHOICE,
                f"{self.source}: {where} is flat (no convex hull): collided as its {faces.shape[0]} triangles "
                "that have an area",
            )
        return Triangles(vertices, faces), hull, convex


#: A shape's bounding sphere (centre, radius) and box (axes, centre, half sizes), in the shape frame.
Bounds = tuple[FloatArray, float, tuple[FloatArray, FloatArray, FloatArray] | PointsBox]


def _primitive(geometry: Geometry) -> tuple[Any, FloatArray, str, Bounds]:
    """A box, sphere, cylinder or capsule: the coal geometry, its hull points, a label and its bounding
    sphere and box, exact (points spread over a round surface lie inside it, and so would a
    sphere or box fitted to them)."""
    coal = coal_module()
    if isinstance(geometry, Box):
        size = np.asarray(geometry.size, dtype=np.float64)
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=np.float64)
        half = size / 2
        return coal.Box(*(float(s) for s in size)), corners * half, "box", _bounds(half, float(np.linalg.norm(half)))
    if isinstance(geometry, Sphere):
        r = float(geometry.radius)
        return coal.Sphere(r), _sphere_points(r), "sphere", _bounds(np.full(3, r), r)
    if isinstance(geometry, Cylinder):
        r, h = float(geometry.radius), float(geometry.length)
        points = np.vstack([_circle(r, -h / 2), _circle(r, h / 2)])
        return coal.Cylinder(r, h), points, "cylinder", _bounds(np.array([r, r, h / 2]), math.hypot(r, h / 2))
    if isinstance(geometry, Capsule):
        r, h = float(geometry.radius), float(geometry.length)
        ball = _sphere_points(r)
        shift = np.array([0.0, 0.0, h / 2])
        points = _hull_points(np.vstack([ball + shift, ball - shift]))
        return coal.Capsule(r, h), points, "capsule", _bounds(np.array([r, r, r + h / 2]), r + h / 2)
    raise TypeError(f"not a primitive shape: {geometry!r}")


def _bounds(half: FloatArray, radius: float) -> Bounds:
    """The bounding sphere and box of a primitive centred on its frame's origin, along its axes (the
    box a little larger, as :func:`bounding_box` makes it)."""
    return np.zeros(3), radius, (np.eye(3), np.zeros(3), half + 1e-9)


def bounding_box(points: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """A box holding ``points``: axes (3, 3) (columns; the principal axes), centre (3,), half sizes (3,)."""
    if points.shape[0] < 2:
        return np.eye(3), points.mean(axis=0) if points.size else np.zeros(3), np.zeros(3)
    spread = np.cov((points - points.mean(axis=0)).T)
    _, axes = np.linalg.eigh(spread)
    if np.linalg.det(axes) < 0:
        axes[:, 0] = -axes[:, 0]
    local = points @ axes
    lo, hi = local.min(axis=0), local.max(axis=0)
    return axes, axes @ ((lo + hi) / 2), (hi - lo) / 2 + 1e-9


def _mesh_bounds(hull: FloatArray) -> Bounds:
    """A mesh's bounding sphere (about the middle of its hull points' extent) and its box, fitted when first needed."""
    lo, hi = hull.min(axis=0), hull.max(axis=0)
    centre = (lo + hi) / 2
    radius = float(np.linalg.norm(hull - centre, axis=1).max()) if hull.size else 0.0
    return centre, radius, PointsBox(hull)


def collision_shapes(model: RobotModel, package_paths: Iterable[str | os.PathLike[str]] = ()) -> list[Shape]:
    """Every collision shape of the model, links in the model's order.

    Raises:
        ReadError: A mesh file that is missing or cannot be read (naming the model file).
        MissingDependencyError: coal (or trimesh, for meshes) is not installed.
    """
    source = model.source or model.name or "robot model"
    base = Path(model.source).parent if model.source and Path(model.source).is_file() else None
    meshes = MeshCache(base, package_paths, source)
    placed = [(index, link, c) for index, link in enumerate(model.links) for c in link.collisions]
    # every shape's frame at once: one call, not one per shape (a model may have hundreds)
    quats = np.array([c.origin_quat for _, _, c in placed], dtype=np.float64).reshape(-1, 4)
    rotations = quat_to_matrix(quats)
    shapes: list[Shape] = []
    for (index, link, c), rotation in zip(placed, rotations, strict=True):
        convex: Any = None
        if isinstance(c.geometry, Mesh):
            geometry, hull, convex = meshes.get(c.geometry, link.name)
            label = c.geometry.filename
            centre, radius, box = _mesh_bounds(hull)
        else:
            geometry, hull, label, (centre, radius, box) = _primitive(c.geometry)
        translation = np.asarray(c.origin_xyz, dtype=np.float64)
        shapes.append(
            Shape(link.name, index, rotation, translation, geometry, centre, radius, hull, label, box, convex)
        )
    return shapes


def shape_poses(
    shapes: list[Shape], link_rotation: FloatArray, link_translation: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Every shape's frame in the world: rotations (N, S, 3, 3) and translations (N, S, 3).

    Args:
        link_rotation: (N, L, 3, 3) the links' rotations; ``link_translation`` (N, L, 3).
    """
    index = np.array([s.link_index for s in shapes], dtype=np.intp)
    rl = link_rotation[:, index]
    tl = link_translation[:, index]
    r0 = np.stack([s.rotation for s in shapes]) if shapes else np.zeros((0, 3, 3))
    t0 = np.stack([s.translation for s in shapes]) if shapes else np.zeros((0, 3))
    rotation = np.einsum("nsij,sjk->nsik", rl, r0)
    translation = tl + np.einsum("nsij,sj->nsi", rl, t0)
    return rotation, translation


__all__ = [
    "MeshCache",
    "MeshHull",
    "PointsBox",
    "Shape",
    "Triangles",
    "coal_module",
    "collision_shapes",
    "hull_indices",
    "shape_poses",
]
