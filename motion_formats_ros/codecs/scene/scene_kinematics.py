"""The frame tree of a scene: its objects and robot links as edges of a core kinematic tree.

The tree's evaluation (static / moving transforms, world poses) is the core's
(:mod:`motion_formats_ros.core.kinematics`); this module only says which edges a scene
has and how their references get values (the scene's trajectories and joint values).
"""

from __future__ import annotations

import os
from pathlib import Path

from ...core.kinematics import WORLD_FRAME, Edge, Kinematics, link_frame, object_frame
from .description import Scene
from .preprocess import load_scene
from .transforms import Transform


class SceneKinematics(Kinematics):
    """Forward kinematics of a scene: the pose of every object and link at any time."""

    def __init__(self, scene: Scene, world_frame: str = WORLD_FRAME) -> None:
        self.scene = scene
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
        super().__init__(edges, scene.evaluator, world_frame)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], world_frame: str = WORLD_FRAME) -> SceneKinematics:
        """Load, validate and build the kinematics of the scene at ``path``."""
        return cls(load_scene(Path(path)), world_frame)

    @property
    def time_range(self) -> tuple[float, float]:
        """(start, end) of the trajectories that move something ((0, 0) when static)."""
        names = {
            ref.name
            for e in self.moving_edges
            if isinstance(e.transform, Transform)
            for ref in self.scene.transform_trajectories(e.transform, e.obj)
        }
        if not names:
            return 0.0, 0.0
        trajs = [self.scene.trajectories[n] for n in names]
        return min(t.start for t in trajs), max(t.end for t in trajs)


__all__ = ["SceneKinematics"]
