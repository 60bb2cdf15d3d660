"""A scene file drawn whole: every object and robot link with its shapes, moving as its trajectories say.

The scene's own kinematics (:class:`~motion_formats_ros.codecs.scene.scene_kinematics.SceneKinematics`)
gives every frame's world pose; they are evaluated once on a grid at the display rate
and looked up while playing. Shapes are the scene's: spheres, boxes, cylinders,
swept-sphere hulls (drawn as capsules between consecutive points) and meshes. The
world path of every object that moves, and of every robot's end links (those no other
link hangs from), is drawn as a line over the whole motion.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.model import MotionFile
from . import meshes

FloatArray = npt.NDArray[np.float64]

#: Most samples of the precomputed frame poses.
MAX_SAMPLES = 4000
SAMPLE_RATE = 60.0
OBJECT_COLOR = (150, 160, 140)
ROBOT_COLOR = (70, 110, 165)
PATH_COLOR = (230, 120, 40)
#: Most points of a drawn path.
PATH_POINTS = 2000
#: A frame whose origin moves less than this over the motion gets no path (m).
STILL = 1e-4


def scene_drawing_for(motion_file: MotionFile) -> SceneDrawing | None:
    """The drawing of ``motion_file``'s scene when it was read from a scene file, else None."""
    from ..registry import CODECS

    info = CODECS.get(motion_file.format or "")
    if info is None or info.module != "motion_formats_ros.codecs.scene" or not motion_file.source:
        return None
    return SceneDrawing(Path(motion_file.source))


def _quat_between_z(axis: FloatArray) -> tuple[float, float, float, float]:
    """wxyz rotating +z onto ``axis``."""
    a = axis / (np.linalg.norm(axis) or 1.0)
    z = np.array([0.0, 0.0, 1.0])
    c = float(np.dot(z, a))
    if c < -0.999999:
        return (0.0, 1.0, 0.0, 0.0)
    v = np.cross(z, a)
    w = 1.0 + c
    n = math.sqrt(w * w + float(np.dot(v, v)))
    return (w / n, float(v[0]) / n, float(v[1]) / n, float(v[2]) / n)


class SceneDrawing:
    """Every frame of a scene with its shapes; :meth:`attach` adds them to a server."""

    def __init__(self, path: Path) -> None:
        from ..codecs.scene import load_scene
        from ..codecs.scene.scene_kinematics import SceneKinematics

        self.scene = load_scene(path)
        self.kin = SceneKinematics(self.scene)
        self.start, self.end = self.kin.time_range
        n = int(min(MAX_SAMPLES, max(2, math.ceil((self.end - self.start) * SAMPLE_RATE) + 1)))
        self.times = np.linspace(self.start, self.end, n) if self.end > self.start else np.array([self.start])
        poses = self.kin.world_poses(self.times)
        self.frames = [f for f in poses if f != self.kin.world_frame]
        self.translation = np.stack([poses[f][0] for f in self.frames], axis=1) if self.frames else np.zeros((n, 0, 3))
        self.rotation = np.stack([poses[f][1] for f in self.frames], axis=1) if self.frames else np.zeros((n, 0, 4))
        self.handles: list[Any] = []
        self.paths = self._paths()
        self.path_handles: dict[str, Any] = {}

    def _paths(self) -> dict[str, FloatArray]:
        """Frame → its origin's world positions (at most PATH_POINTS), for objects and robot end links that move."""
        step = max(1, math.ceil(self.times.size / PATH_POINTS))
        out: dict[str, FloatArray] = {}
        for i, frame in enumerate(self.frames):
            obj, _, link = frame.partition("/")
            if link:
                links = self.scene.model_of(obj).links
                if any(other.parent == link for other in links.values()):
                    continue  # an inner link: its robot's end links show where the robot goes
            pts = self.translation[::step, i, :]
            pts = pts[np.isfinite(pts).all(axis=1)]
            if len(pts) > 1 and float(np.ptp(pts, axis=0).max()) > STILL:
                out[frame] = pts
        return out

    def extent_points(self) -> FloatArray:
        pts = self.translation.reshape(-1, 3)
        return pts[np.isfinite(pts).all(axis=1)] if pts.size else np.zeros((1, 3))

    def _shapes(self, frame: str) -> tuple[dict[str, Any], bool]:
        """The shapes drawn in ``frame`` and whether it belongs to a robot."""
        obj, _, link = frame.partition("/")
        model = self.scene.model_of(obj)
        if not link:
            return (dict(model.body.get("shapes") or {}) if not model.is_robot else {}), False
        out: dict[str, Any] = {}
        for part in model.links[link].parts:
            for name, shape in (model.part_models.get(part, {}).get("shapes") or {}).items():
                out[f"{part}.{name}"] = shape
        return out, True

    def attach(self, server: Any) -> None:
        from ..codecs.scene import parse_transform
        from ..codecs.scene.problems import Problems

        for i, frame in enumerate(self.frames):
            node = server.scene.add_frame(f"/scene/f{i}", show_axes=False)
            self.handles.append(node)
            shapes, robot = self._shapes(frame)
            color = ROBOT_COLOR if robot else OBJECT_COLOR
            for k, shape in enumerate(shapes.values()):
                self._add_shape(server, f"/scene/f{i}/s{k}", shape, color, parse_transform, Problems)
        size = float(max(np.ptp(self.extent_points(), axis=0).max(), 0.3))
        for j, (frame, pts) in enumerate(self.paths.items()):
            segments = np.stack([pts[:-1], pts[1:]], axis=1).astype(np.float32)
            self.path_handles[frame] = server.scene.add_line_segments(
                f"/scene/paths/p{j}", segments, colors=PATH_COLOR, thickness=max(0.002, 0.003 * size)
            )
        self.draw(self.start)

    def _add_shape(self, server: Any, name: str, shape: dict[str, Any], color: Any, parse: Any, problems: Any) -> None:
        kind = shape.get("kind")
        if kind == "sphere":
            m = meshes.sphere(shape["radius"])
            server.scene.add_mesh_simple(
                name, m.vertices, m.faces, color=color, position=tuple(shape.get("center") or (0, 0, 0))
            )
        elif kind == "box":
            m = meshes.box(shape["size"])
            pose = parse(shape.get("pose"), [], problems(), allow_refs=False)
            t, q = pose.evaluate() if pose is not None else (np.zeros((1, 3)), np.array([[0, 0, 0, 1.0]]))
            x, y, z, w = (float(v) for v in q[0])
            server.scene.add_mesh_simple(
                name, m.vertices, m.faces, color=color, position=tuple(float(v) for v in t[0]), wxyz=(w, x, y, z)
            )
        elif kind == "cylinder":
            m = meshes.cylinder(shape["radius"], shape["height"])
            axis = np.asarray(shape.get("axis") or (0, 0, 1), dtype=np.float64)
            server.scene.add_mesh_simple(
                name,
                m.vertices,
                m.faces,
                color=color,
                position=tuple(shape.get("center") or (0, 0, 0)),
                wxyz=_quat_between_z(axis),
            )
        elif kind == "orangeNet":
            points = [np.asarray(p, dtype=np.float64) for p in shape.get("points") or []]
            radius = float(shape.get("radius") or 0.0) or 0.01
            if len(points) == 1:
                m = meshes.sphere(radius)
                server.scene.add_mesh_simple(name, m.vertices, m.faces, color=color, position=tuple(points[0]))
            for j, (a, b) in enumerate(itertools.pairwise(points)):
                length = float(np.linalg.norm(b - a))
                m = meshes.capsule(radius, length) if length > 1e-9 else meshes.sphere(radius)
                server.scene.add_mesh_simple(
                    f"{name}_{j}",
                    m.vertices,
                    m.faces,
                    color=color,
                    position=tuple(float(v) for v in (a + b) / 2),
                    wxyz=_quat_between_z(b - a) if length > 1e-9 else (1.0, 0.0, 0.0, 0.0),
                )
        elif kind == "mesh":
            vertices = np.asarray(shape.get("vertices") or [], dtype=np.float32).reshape(-1, 3)
            tris = [f[:3] for f in shape.get("faces") or []]
            if vertices.size and tris:
                server.scene.add_mesh_simple(
                    name, vertices, np.asarray(tris, dtype=np.uint32), color=color, side="double"
                )

    def draw(self, t: float) -> None:
        if not self.handles:
            return
        k = int(np.clip(np.searchsorted(self.times, t, side="right") - 1, 0, self.times.size - 1))
        for handle, p, q in zip(self.handles, self.translation[k], self.rotation[k], strict=True):
            handle.position = (float(p[0]), float(p[1]), float(p[2]))
            handle.wxyz = (float(q[3]), float(q[0]), float(q[1]), float(q[2]))


__all__ = ["SceneDrawing", "scene_drawing_for"]
