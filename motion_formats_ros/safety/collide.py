"""Self-collision of a robot over many frames: bounding spheres first, coal for the pairs that may touch.

For every frame, the bounding spheres of each shape pair (vectorised over all frames)
rule out the pairs that are apart; coal's narrow phase (GJK / EPA for shapes, the
triangle hierarchy for meshes) decides the rest. A link pair collides in a frame when
any of its shape pairs does; its depth is the deepest penetration coal reports for the
first contact of each colliding shape pair.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .shapes import Shape, coal_module

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclasses.dataclass(frozen=True)
class Contacts:
    """Per frame and link pair: whether they collide (N, P) and how deep (N, P; 0 where not)."""

    colliding: BoolArray
    depth: FloatArray


class SelfCollision:
    """Collides given link pairs of a set of shapes at many frames.

    Args:
        shapes: The model's collision shapes.
        pairs: Link pairs (names) to check.
    """

    def __init__(self, shapes: Sequence[Shape], pairs: Sequence[tuple[str, str]]) -> None:
        coal = coal_module()
        self.shapes = list(shapes)
        self.pairs = list(pairs)
        by_link: dict[str, list[int]] = {}
        for i, s in enumerate(self.shapes):
            by_link.setdefault(s.link, []).append(i)
        first: list[int] = []
        second: list[int] = []
        owner: list[int] = []
        for p, (a, b) in enumerate(self.pairs):
            for i in by_link.get(a, []):
                for j in by_link.get(b, []):
                    first.append(i)
                    second.append(j)
                    owner.append(p)
        self.first = np.array(first, dtype=np.intp)
        self.second = np.array(second, dtype=np.intp)
        self.owner = np.array(owner, dtype=np.intp)
        self.reach = np.array(
            [self.shapes[i].radius + self.shapes[j].radius for i, j in zip(first, second, strict=True)]
        )
        self.centres = np.stack([s.centre for s in self.shapes]) if self.shapes else np.zeros((0, 3))
        self._compute = [
            coal.ComputeCollision(self.shapes[i].geometry, self.shapes[j].geometry)
            for i, j in zip(first, second, strict=True)
        ]
        self._transform = coal.Transform3s
        self._request = coal.CollisionRequest()
        self._request.enable_contact = True
        self._request.num_max_contacts = 1
        self._result = coal.CollisionResult()

    def near(self, rotation: FloatArray, translation: FloatArray) -> BoolArray:
        """(N, shape pairs): whether the bounding spheres of each shape pair overlap."""
        centres = translation + np.einsum("nsij,sj->nsi", rotation, self.centres)
        gap = np.linalg.norm(centres[:, self.first] - centres[:, self.second], axis=-1)
        return np.asarray(gap <= self.reach[None, :])

    def run(self, rotation: FloatArray, translation: FloatArray) -> Contacts:
        """Collide every pair at N frames of shape poses ((N, S, 3, 3) rotations, (N, S, 3) translations)."""
        n = rotation.shape[0]
        colliding = np.zeros((n, len(self.pairs)), dtype=bool)
        depth = np.zeros((n, len(self.pairs)))
        if not self.first.size or n == 0:
            return Contacts(colliding, depth)
        frames, candidates = np.nonzero(self.near(rotation, translation))
        transform = self._transform
        request, result = self._request, self._result
        first, second, owner, compute = self.first, self.second, self.owner, self._compute
        cache: dict[int, Any] = {}
        current = -1
        for f, k in zip(frames.tolist(), candidates.tolist(), strict=True):
            if f != current:
                cache = {}
                current = f
            i, j = int(first[k]), int(second[k])
            ti = cache.get(i)
            if ti is None:
                ti = cache[i] = transform(rotation[f, i], translation[f, i])
            tj = cache.get(j)
            if tj is None:
                tj = cache[j] = transform(rotation[f, j], translation[f, j])
            result.clear()
            compute[k](ti, tj, request, result)
            if result.isCollision():
                p = int(owner[k])
                colliding[f, p] = True
                d = _depth(result)
                if d > depth[f, p]:
                    depth[f, p] = d
        return Contacts(colliding, depth)


def _depth(result: Any) -> float:
    """The penetration of a collision result's first contact (coal gives it as a negative signed distance)."""
    if not result.numContacts():
        return 0.0
    return abs(float(result.getContact(0).penetration_depth))


__all__ = ["Contacts", "SelfCollision"]
