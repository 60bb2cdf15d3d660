"""Forward kinematics of a frame tree: the pose of every frame at any time.

ROS-free and format-free; the player publishes the result as TF. A tree is a list of
edges, parent before child, each with a transform that gives translation (N, 3) and
quaternion x, y, z, w (N, 4) for the values its references take at N times. An edge is
*static* when its transform depends on no trajectory, *moving* otherwise; static edges
are evaluated once. A format that describes kinematics (the scene codec) builds the
edges and says how references get their values (``values``); see
:class:`motion_formats_ros.codecs.scene.scene_kinematics.SceneKinematics`.

Frames are named ``object`` (an object's frame, attached to the world frame, to another
object or to a link of a robot object) and ``object/link`` (a robot link, attached to its
parent link or to the object's frame).

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
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..spatial import compose

FloatArray = npt.NDArray[np.float64]

#: Default name of the root frame.
WORLD_FRAME = "world"

#: Gives the values of one reference at the evaluation times, shape (N,).
Lookup = Callable[[Any], FloatArray]


class EdgeTransform(Protocol):
    """A transform whose numbers may refer to values that change with time."""

    def evaluate(self, lookup: Lookup | None = None, n: int = 1) -> tuple[FloatArray, FloatArray]:
        """Translation (n, 3) and unit quaternion x, y, z, w (n, 4)."""
        ...


class Values(Protocol):
    """The values every reference takes at fixed times."""

    def lookup(self, obj: str) -> Lookup:
        """A lookup for the references of ``obj`` (the object an edge belongs to)."""
        ...


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
        transform: The transform.
        moving: Whether it depends on a trajectory.
    """

    parent: str
    child: str
    obj: str
    transform: EdgeTransform
    moving: bool


def object_frame(obj: str) -> str:
    """Frame name of an object."""
    return obj


def link_frame(obj: str, link: str) -> str:
    """Frame name of a robot object's link."""
    return f"{obj}/{link}"


class Kinematics:
    """A frame tree and its evaluation at arrays of times.

    Args:
        edges: The edges, parent before child.
        values: Gives the values of the references at an array of times.
        world_frame: Name of the root frame.
    """

    def __init__(
        self, edges: Sequence[Edge], values: Callable[[FloatArray], Values], world_frame: str = WORLD_FRAME
    ) -> None:
        self.world_frame = world_frame
        self.edges: tuple[Edge, ...] = tuple(edges)
        self._values = values
        self._static = self._evaluate_static()

    # ------------------------------------------------------------------ structure
    @property
    def frames(self) -> list[str]:
        """Every frame, the world first, parent before child."""
        return [self.world_frame] + [e.child for e in self.edges]

    @property
    def moving_edges(self) -> list[Edge]:
        return [e for e in self.edges if e.moving]

    # ------------------------------------------------------------------ evaluation
    def _evaluate_static(self) -> dict[str, StaticTransform]:
        out: dict[str, StaticTransform] = {}
        ev = self._values(np.zeros(1))
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
        ev = self._values(t)
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
            poses[tf.child] = compose(poses[tf.parent], (tf.translation, tf.rotation))
        return poses


__all__ = [
    "WORLD_FRAME",
    "Edge",
    "EdgeTransform",
    "Kinematics",
    "MovingTransform",
    "StaticTransform",
    "Values",
    "link_frame",
    "object_frame",
]
