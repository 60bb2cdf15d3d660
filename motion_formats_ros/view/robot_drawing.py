"""A robot model's links as viser nodes, nested as the model's tree is.

Each link's node is a child of its parent link's node, so what a pose sends is each
link's pose relative to its parent — and only when it changed: a revolute joint's child
moves only by its rotation, a fixed link never after the first frame, a joint that holds
still not at all. A page thus gets a few messages per drawn frame for the joints that
move, not two per link.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.notices import NoticeKind, notify
from ..core.spatial import quat_conjugate, quat_multiply, quat_rotate
from . import meshes

FloatArray = npt.NDArray[np.float64]

ROBOT_COLOR = (70, 110, 165)
#: A relative pose that moved less than this (m, quaternion component) is not sent again.
SAME_POSE = 1e-6


def wxyz(q_xyzw: Sequence[float] | FloatArray) -> tuple[float, float, float, float]:
    """viser's w, x, y, z of an x, y, z, w quaternion (normalized; identity when degenerate)."""
    x, y, z, w = (float(v) for v in q_xyzw)
    n = math.sqrt(x * x + y * y + z * z + w * w)
    if not math.isfinite(n) or n < 1e-12:
        return (1.0, 0.0, 0.0, 0.0)
    return (w / n, x / n, y / n, z / n)


@dataclasses.dataclass
class _LinkNode:
    name: str
    handle: Any
    parent: str | None  # the parent link (None: a root of the drawing)


class RobotDrawing:
    """A robot model's links as viser nodes (meshes, shapes, or bones where a mesh is missing).

    Args:
        server: The viser server.
        model: A :class:`~motion_formats_ros.core.kinematics.RobotModel`.
        prefix: Scene-tree name of this drawing (``/robot``, ``/ghost``).
        color, opacity: Colour of visuals without their own, and opacity (ghosts).
        own_colors: Use the model's colours where it gives them.
        base: Folder of the model file (relative mesh names).
        package_paths: Extra folders to find ``package://`` meshes in.
        mesh_cache: Meshes already read (shared by the drawings of one page).
    """

    def __init__(
        self,
        server: Any,
        model: Any,
        prefix: str,
        *,
        color: tuple[int, int, int] = ROBOT_COLOR,
        opacity: float | None = None,
        own_colors: bool = True,
        base: Path | None = None,
        package_paths: Sequence[str | Path] = (),
        mesh_cache: dict[tuple[str, tuple[float, ...]], meshes.TriMesh | None] | None = None,
    ) -> None:
        self.model = model
        self.missing_meshes: list[str] = []
        self.nodes: dict[str, _LinkNode] = {}
        #: Each link's drawn shapes and their own colours (to paint a link and back).
        self.visuals: dict[str, list[tuple[Any, tuple[int, ...]]]] = {}
        self._order: tuple[tuple[str, ...], tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] | None = None
        self._sent_p: FloatArray | None = None
        self._sent_q: FloatArray | None = None
        roots = meshes.package_roots(package_paths)
        cache = {} if mesh_cache is None else mesh_cache
        children: dict[str, list[Any]] = {}
        parent_of: dict[str, str] = {}
        for joint in model.joints:
            children.setdefault(joint.parent, []).append(joint)
            parent_of.setdefault(joint.child, joint.parent)
        index = {link.name: i for i, link in enumerate(model.links)}
        paths: dict[str, str] = {}

        def path_of(name: str) -> str:
            if name not in paths:
                parent = parent_of.get(name)
                inside = path_of(parent) if parent is not None and parent in index else prefix
                paths[name] = f"{inside}/l{index[name]}"
            return paths[name]

        # Parents first: a node is made inside its parent's.
        for link in sorted(model.links, key=lambda link: path_of(link.name).count("/")):
            node_name = path_of(link.name)
            node = server.scene.add_frame(node_name, show_axes=False)
            parent = parent_of.get(link.name)
            self.nodes[link.name] = _LinkNode(link.name, node, parent if parent in index else None)
            drawn = 0
            for k, visual in enumerate(link.visuals):
                mesh = self._visual_mesh(visual, base, roots, cache)
                if mesh is None:
                    continue
                rgba = getattr(visual, "rgba", None) if own_colors else None
                rgb = color if rgba is None else tuple(round(255 * float(c)) for c in rgba[:3])
                shape = server.scene.add_mesh_simple(
                    f"{node_name}/v{k}",
                    mesh.vertices,
                    mesh.faces,
                    color=rgb,
                    opacity=opacity,
                    position=tuple(float(v) for v in visual.origin_xyz),
                    wxyz=wxyz(visual.origin_quat),
                )
                self.visuals.setdefault(link.name, []).append((shape, rgb))
                drawn += 1
            if not drawn:
                shapes = self._bones(server, node_name, children.get(link.name, []), color, opacity)
                self.visuals[link.name] = [(shape, tuple(color)) for shape in shapes]

    def _visual_mesh(
        self, visual: Any, base: Path | None, roots: Sequence[tuple[str, Path]], cache: dict[Any, Any]
    ) -> meshes.TriMesh | None:
        g = visual.geometry
        kind = type(g).__name__
        if kind == "Box":
            return meshes.box(g.size)
        if kind == "Cylinder":
            return meshes.cylinder(g.radius, g.length)
        if kind == "Sphere":
            return meshes.sphere(g.radius)
        if kind == "Capsule":
            return meshes.capsule(g.radius, g.length)
        if kind == "Mesh":
            scale = tuple(float(s) for s in np.broadcast_to(np.asarray(g.scale, dtype=np.float64), (3,)))
            key = (g.filename, scale)
            if key not in cache:
                path = meshes.resolve(g.filename, base, roots)
                mesh = None
                if path is None:
                    if g.filename not in self.missing_meshes:
                        self.missing_meshes.append(g.filename)
                else:
                    try:
                        mesh = meshes.load_mesh(path, scale)
                    except ValueError as exc:  # found but unreadable: said here (exc names it), not "not found"
                        notify(NoticeKind.SKIPPED, f"{exc}; the visual is not drawn", stacklevel=2)
                cache[key] = mesh
            return cache[key]  # type: ignore[no-any-return]
        return None

    def _bones(self, server: Any, name: str, joints: Sequence[Any], color: Any, opacity: float | None) -> list[Any]:
        """A link without a drawable visual: a ball at its origin and a bone to each child (their handles)."""
        offsets = [np.asarray(j.origin_xyz, dtype=np.float64) for j in joints]
        lengths = [float(np.linalg.norm(o)) for o in offsets]
        scale = max(lengths, default=0.05)
        radius = min(max(0.08 * scale, 0.004), 0.02)
        ball = meshes.sphere(radius * 1.3)
        shapes = [server.scene.add_mesh_simple(f"{name}/ball", *_arrays(ball), color=color, opacity=opacity)]
        for k, (offset, length) in enumerate(zip(offsets, lengths, strict=True)):
            if length > 1e-6:
                bone = meshes.bone((0.0, 0.0, 0.0), offset, radius)
                shapes.append(
                    server.scene.add_mesh_simple(f"{name}/bone{k}", *_arrays(bone), color=color, opacity=opacity)
                )
        return shapes

    def paint(self, link: str, color: tuple[int, int, int] | None) -> None:
        """Draw a link's shapes in ``color`` (None: their own colours again)."""
        for shape, own in self.visuals.get(link, ()):
            shape.color = own if color is None else color

    def update(self, names: Sequence[str], translation: FloatArray, rotation: FloatArray) -> None:
        """Move the links to world poses (L, 3) / (L, 4) x, y, z, w, in ``names`` order.

        Each node gets its pose relative to its parent link, sent only where it changed.
        """
        names = tuple(names)
        if self._order is None or self._order[0] != names:
            self._order = (names, self._layout(names))
        nodes, parents = self._order[1]
        p = np.asarray(translation, dtype=np.float64)
        q = np.asarray(rotation, dtype=np.float64)
        has_parent = parents >= 0
        pp, pq = p[np.where(has_parent, parents, 0)], q[np.where(has_parent, parents, 0)]
        inv = quat_conjugate(pq)
        rel_p = np.where(has_parent[:, None], quat_rotate(inv, p - pp), p)
        rel_q = np.where(has_parent[:, None], quat_multiply(inv, q), q)
        ok = np.isfinite(rel_p).all(axis=1) & np.isfinite(rel_q).all(axis=1) & (nodes >= 0)
        if self._sent_p is None or self._sent_p.shape != rel_p.shape:
            self._sent_p = np.full_like(rel_p, np.nan)
            self._sent_q = np.full_like(rel_q, np.nan)
        assert self._sent_q is not None
        with np.errstate(invalid="ignore"):
            moved = ok & ~(np.abs(rel_p - self._sent_p) <= SAME_POSE).all(axis=1)
            turned = ok & ~(np.abs(np.sum(rel_q * self._sent_q, axis=1)) > 1.0 - 1e-13)
        handles = list(self.nodes.values())
        for i in np.flatnonzero(moved):
            handles[nodes[i]].handle.position = (float(rel_p[i, 0]), float(rel_p[i, 1]), float(rel_p[i, 2]))
        for i in np.flatnonzero(turned):
            handles[nodes[i]].handle.wxyz = wxyz(rel_q[i])
        self._sent_p[moved] = rel_p[moved]
        self._sent_q[turned] = rel_q[turned]

    def _layout(self, names: tuple[str, ...]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """For each of ``names``: its node's index (-1: none) and its parent's index in ``names`` (-1: a root)."""
        order = {name: i for i, name in enumerate(self.nodes)}
        where = {name: i for i, name in enumerate(names)}
        nodes = np.array([order.get(n, -1) for n in names], dtype=np.int64)
        parents = []
        for n in names:
            node = self.nodes.get(n)
            parent = node.parent if node is not None else None
            parents.append(where.get(parent, -1) if parent is not None else -1)
        return nodes, np.array(parents, dtype=np.int64)

    @property
    def roots(self) -> list[Any]:
        """The handles of the drawing's top nodes (hiding them hides the robot)."""
        return [node.handle for node in self.nodes.values() if node.parent is None]


def _arrays(mesh: meshes.TriMesh) -> tuple[Any, Any]:
    return mesh.vertices, mesh.faces


__all__ = ["ROBOT_COLOR", "RobotDrawing", "wxyz"]
