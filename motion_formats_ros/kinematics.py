"""Forward kinematics of a scene: the pose of every object and link at any time.

ROS-free; the player publishes the result as TF. Frames are named ``object`` (an
object's frame, attached to the world frame, to another object or to a link of a
robot object) and ``object/link`` (a robot link, attached to its parent link or to
the object's frame). Edges come parent before child. An edge is *static* when its
transform depends on no trajectory (directly or through a joint value), *moving*
otherwise; static edges are evaluated once.

Example::

    kin = SceneKinematics.from_file("waving_robot.json")
    for tf in kin.static_transforms():            # publish once on /tf_static
        ...
    times = np.arange(0.0, 2.0, 0.01)
    for tf in kin.moving_transforms(times):        # tf.translation (N, 3), tf.rotation (N, 4)
        ...
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

from .codecs.scene import load_scene
from .codecs.scene.preprocess import Scene
from .codecs.scene.transforms import Transform, compose

FloatArray = npt.NDArray[np.float64]

#: Default name of the root frame.
WORLD_FRAME = "world"


@dataclasses.dataclass(frozen=True)
class StaticTransform:
    """A transform that never changes: parent → child, translation (3,), quaternion x, y, z, w (4,)."""

    parent: str
    child: str
    translation: FloatArray
    rotation: FloatArray


@dataclasses.dataclass(frozen=True)
class MovingTransform:
    """A transform at N times: translation (N, 3), quaternion x, y, z, w (N, 4)."""

    parent: str
    child: str
    translation: FloatArray
    rotation: FloatArray


@dataclasses.dataclass(frozen=True)
class Edge:
    """One edge of the frame tree.

    Attributes:
        parent, child: Frame names.
        obj: The object whose values (joints) the transform reads.
        transform: The parsed transform.
        moving: Whether it depends on a trajectory.
    """

    parent: str
    child: str
    obj: str
    transform: Transform
    moving: bool


def object_frame(obj: str) -> str:
    """Frame name of an object."""
    return obj


def link_frame(obj: str, link: str) -> str:
    """Frame name of a robot object's link."""
    return f"{obj}/{link}"


class SceneKinematics:
    """The frame tree of a scene and its evaluation at arrays of times."""

    def __init__(self, scene: Scene, world_frame: str = WORLD_FRAME) -> None:
        self.scene = scene
        self.world_frame = world_frame
        edges: list[Edge] = []
        for name, obj in scene.objects.items():
            if obj.parent is None:
                parent = world_frame
            elif obj.parent_link is None:
                parent = object_frame(obj.parent)
            else:
                parent = link_frame(obj.parent, obj.parent_link)
            moving = bool(scene.transform_trajectories(obj.transform, name))
            edges.append(Edge(parent, object_frame(name), name, obj.transform, moving))
            model = scene.models[obj.model]
            for link in model.links.values():
                lparent = object_frame(name) if link.parent is None else link_frame(name, link.parent)
                lmoving = bool(scene.transform_trajectories(link.transform, name))
                edges.append(Edge(lparent, link_frame(name, link.name), name, link.transform, lmoving))
        self.edges: tuple[Edge, ...] = tuple(edges)
        self._static = self._evaluate_static()

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], world_frame: str = WORLD_FRAME) -> SceneKinematics:
        """Load, validate and build the kinematics of the scene at ``path``."""
        return cls(load_scene(Path(path)), world_frame)

    # ------------------------------------------------------------------ structure
    @property
    def frames(self) -> list[str]:
        """Every frame, the world first, parent before child."""
        return [self.world_frame] + [e.child for e in self.edges]

    @property
    def moving_edges(self) -> list[Edge]:
        return [e for e in self.edges if e.moving]

    @property
    def time_range(self) -> tuple[float, float]:
        """(start, end) of the trajectories that move something ((0, 0) when static)."""
        names = {ref.name for e in self.moving_edges for ref in self.scene.transform_trajectories(e.transform, e.obj)}
        if not names:
            return 0.0, 0.0
        trajs = [self.scene.trajectories[n] for n in names]
        return min(t.start for t in trajs), max(t.end for t in trajs)

    # ------------------------------------------------------------------ evaluation
    def _evaluate_static(self) -> dict[str, StaticTransform]:
        out: dict[str, StaticTransform] = {}
        ev = self.scene.evaluator([0.0])
        for e in self.edges:
            if not e.moving:
                t, q = e.transform.evaluate(ev.lookup(e.obj), 1)
                out[e.child] = StaticTransform(e.parent, e.child, t[0], q[0])
        return out

    def static_transforms(self) -> list[StaticTransform]:
        """Every static edge (publish once, e.g. on ``/tf_static``), parent before child."""
        return [self._static[e.child] for e in self.edges if not e.moving]

    def moving_transforms(self, times: npt.ArrayLike) -> list[MovingTransform]:
        """Every moving edge evaluated at ``times`` (N,), parent before child."""
        t = np.atleast_1d(np.asarray(times, dtype=np.float64))
        ev = self.scene.evaluator(t)
        out = []
        for e in self.edges:
            if e.moving:
                tr, q = e.transform.evaluate(ev.lookup(e.obj), t.size)
                out.append(MovingTransform(e.parent, e.child, tr, q))
        return out

    def transforms(self, times: npt.ArrayLike) -> list[MovingTransform]:
        """Every edge at ``times`` (static ones repeated), parent before child."""
        t = np.atleast_1d(np.asarray(times, dtype=np.float64))
        moving = {m.child: m for m in self.moving_transforms(t)}
        out = []
        for e in self.edges:
            if e.moving:
                out.append(moving[e.child])
            else:
                s = self._static[e.child]
                out.append(
                    MovingTransform(
                        e.parent, e.child, np.tile(s.translation, (t.size, 1)), np.tile(s.rotation, (t.size, 1))
                    )
                )
        return out

    def world_poses(self, times: npt.ArrayLike) -> dict[str, tuple[FloatArray, FloatArray]]:
        """Frame → (translation (N, 3), quaternion (N, 4)) in the world frame, parent before child."""
        t = np.atleast_1d(np.asarray(times, dtype=np.float64))
        n = t.size
        poses: dict[str, tuple[FloatArray, FloatArray]] = {
            self.world_frame: (np.zeros((n, 3)), np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)))
        }
        for tf in self.transforms(t):
            pt, pq = poses[tf.parent]
            poses[tf.child] = compose(pt, pq, tf.translation, tf.rotation)
        return poses


__all__ = [
    "WORLD_FRAME",
    "Edge",
    "MovingTransform",
    "SceneKinematics",
    "StaticTransform",
    "link_frame",
    "object_frame",
]
