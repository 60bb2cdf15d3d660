"""A small offline TF buffer: poses of one frame in another over time.

Transforms come from ``/tf`` (dynamic) and ``/tf_static``. A pose request
``parent:child`` is answered by walking both frames up to their common ancestor and
composing the hops; dynamic hops are interpolated at the query times (linear
translation, slerp rotation, held before the first and after the last sample).
Quaternions are x, y, z, w.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from ...core import timing
from ...core.spatial import compose, invert

FloatArray = npt.NDArray[np.float64]


@dataclasses.dataclass
class Edge:
    """Samples of the transform parent → child (times in seconds, sorted, unique)."""

    parent: str
    child: str
    times: FloatArray
    translation: FloatArray  # (K, 3)
    rotation: FloatArray  # (K, 4)
    static: bool = False

    def at(self, query: FloatArray) -> tuple[FloatArray, FloatArray]:
        if self.static or self.times.size == 1:
            n = query.size
            return np.repeat(self.translation[-1:], n, axis=0), np.repeat(self.rotation[-1:], n, axis=0)
        where = timing.locate(self.times, query)
        return (
            np.asarray(timing.interpolate(self.translation, where, "value")),
            np.asarray(timing.interpolate(self.rotation, where, "quaternion")),
        )


class TfBuffer:
    """Edges by child frame (a TF tree gives every child one parent)."""

    def __init__(self) -> None:
        self.edges: dict[str, Edge] = {}

    def add(self, edge: Edge) -> None:
        have = self.edges.get(edge.child)
        # A static transform does not replace a dynamic one of the same child.
        if have is not None and edge.static and not have.static:
            return
        self.edges[edge.child] = edge

    @property
    def frames(self) -> set[str]:
        out = set(self.edges)
        out.update(e.parent for e in self.edges.values())
        return out

    def chain(self, frame: str) -> list[str]:
        """``frame`` and its ancestors up to the root of its tree."""
        out = [frame]
        seen = {frame}
        while out[-1] in self.edges:
            parent = self.edges[out[-1]].parent
            if parent in seen:
                break  # a cycle in a broken recording: stop
            out.append(parent)
            seen.add(parent)
        return out

    def root_of(self, frame: str) -> str:
        return self.chain(frame)[-1]

    def path(self, parent: str, child: str) -> tuple[list[Edge], list[Edge]] | None:
        """Edges from the common ancestor down to ``parent`` and down to ``child``."""
        up_parent = self.chain(parent)
        up_child = self.chain(child)
        common = next((f for f in up_child if f in set(up_parent)), None)
        if common is None:
            return None
        to_parent = [self.edges[f] for f in up_parent[: up_parent.index(common)]]
        to_child = [self.edges[f] for f in up_child[: up_child.index(common)]]
        return to_parent[::-1], to_child[::-1]

    def dynamic_times(self, parent: str, child: str) -> FloatArray:
        """Sample times of the dynamic hops between ``parent`` and ``child``."""
        found = self.path(parent, child)
        if found is None:
            return np.zeros(0)
        times = [e.times for e in found[0] + found[1] if not e.static]
        if not times:
            return np.zeros(0)
        return np.unique(np.concatenate(times))

    def lookup(self, parent: str, child: str, query: FloatArray) -> tuple[FloatArray, FloatArray] | None:
        """Pose of ``child`` in ``parent`` at ``query`` times, or None when not connected."""
        found = self.path(parent, child)
        if found is None:
            return None
        n = query.size
        identity = (np.zeros((n, 3)), np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)))

        def down(edges: list[Edge]) -> tuple[FloatArray, FloatArray]:
            pose = identity
            for e in edges:
                pose = compose(pose, e.at(query)) if pose is not identity else e.at(query)
            return pose

        to_parent, to_child = found
        if not to_parent:
            return down(to_child)
        return compose(invert(down(to_parent)), down(to_child))
