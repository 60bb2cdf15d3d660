"""Self-collision of a robot over many frames: cheap tests first, coal for the pairs that may touch.

For every frame, the bounding spheres of each shape pair (vectorised over all frames)
rule out the pairs that are apart, then boxes around each shape (a primitive's own, a
mesh's along the principal axes of its vertices; the separating-axis test, vectorised)
rule out more. coal then measures the
distance of the convex hulls (a mesh lies inside its hull) or of the convex shapes; a
pair found that far apart (or, after the exact test, as far as coal's lower bound
says) is not asked again until one shape can have moved that far as seen from the
other (a bound from their relative motion), so frames at a high rate cost little. coal's
narrow phase (GJK / EPA for shapes, the triangle hierarchy for meshes) decides the
pairs whose hulls meet. A link pair collides in a frame when any of its shape pairs
does; its depth is the deepest penetration coal reports for the first contact of each
colliding shape pair.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .shapes import MeshHull, Shape, Triangles, coal_module

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Exact tests in a row finding a pair apart before its true distance is measured.
_STREAK = 4
#: Frames × shape pairs whose broad phase runs at once: what bounds the memory of a model
#: with many pairs (each entry costs a few hundred bytes in the sphere, box and travel tests).
BATCH = 1 << 18


@dataclasses.dataclass(frozen=True)
class Contacts:
    """The colliding (frame, link pair)s of a run, frame by frame: ``frames`` (H,), ``pairs`` (H,)
    (indexes into the pairs checked) and ``depth`` (H,) the deepest penetration there; a
    frame and pair appear once."""

    frames: npt.NDArray[np.intp]
    pairs: npt.NDArray[np.intp]
    depth: FloatArray

    def by_pair(self) -> dict[int, tuple[npt.NDArray[np.intp], FloatArray]]:
        """Each colliding pair's frames (ascending) and depths there."""
        if not self.pairs.size:
            return {}
        order = np.lexsort((self.frames, self.pairs))
        pairs, frames, depth = self.pairs[order], self.frames[order], self.depth[order]
        starts = np.flatnonzero(np.r_[True, pairs[1:] != pairs[:-1]])
        ends = np.r_[starts[1:], pairs.size]
        return {int(pairs[a]): (frames[a:b], depth[a:b]) for a, b in zip(starts, ends, strict=True)}


class _Hits:
    """Collisions found so far, in compact arrays (a model whose links all overlap has millions)."""

    def __init__(self) -> None:
        self.frames = array("q")
        self.pairs = array("q")
        self.depth = array("d")

    def add(self, frame: int, pair: int, depth: float) -> None:
        self.frames.append(frame)
        self.pairs.append(pair)
        self.depth.append(depth)

    def contacts(self) -> Contacts:
        """The hits, one per (frame, link pair) with its deepest penetration."""
        frames = np.frombuffer(self.frames, dtype=np.int64).astype(np.intp)
        pairs = np.frombuffer(self.pairs, dtype=np.int64).astype(np.intp)
        depth = np.frombuffer(self.depth, dtype=np.float64)
        if not frames.size:
            return Contacts(frames, pairs, depth.copy())
        order = np.lexsort((frames, pairs))
        frames, pairs, depth = frames[order], pairs[order], depth[order]
        first = np.flatnonzero(np.r_[True, (pairs[1:] != pairs[:-1]) | (frames[1:] != frames[:-1])])
        return Contacts(frames[first], pairs[first], np.maximum.reduceat(depth, first))


class SelfCollision:
    """Collides given link pairs of a set of shapes at many frames.

    Memory stays bounded however many pairs there are: the frames are taken in batches of
    at most :data:`BATCH` frames × shape pairs, coal is asked through its functions (no
    solver object kept per pair) and only collisions are kept.

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
        self.radii = np.array([s.radius for s in self.shapes], dtype=np.float64)
        self.reach = self.radii[self.first] + self.radii[self.second]
        self.centres = np.stack([s.centre for s in self.shapes]) if self.shapes else np.zeros((0, 3))
        # Each shape's box, filled in when a pair of it first gets past the spheres (a mesh's is fitted then).
        self.box_rotation = np.zeros((len(self.shapes), 3, 3))
        self.box_centre = np.zeros((len(self.shapes), 3))
        self.box_half = np.zeros((len(self.shapes), 3))
        self._boxed = np.zeros(len(self.shapes), dtype=bool)
        # The convex hulls (a mesh lies inside its hull) or the convex shapes themselves: their distance.
        # Meshes' triangle hierarchies are built when a pair first needs them (None until then).
        self._geometry = [None if isinstance(s.geometry, Triangles) else s.geometry for s in self.shapes]
        self._hull = [
            None if isinstance(s.convex, MeshHull) else s.convex if s.convex is not None else self._geometry[k]
            for k, s in enumerate(self.shapes)
        ]
        self._collide, self._distance = coal.collide, coal.distance
        self._distance_request = coal.DistanceRequest()
        self._distance_result = coal.DistanceResult()
        self._transform = coal.Transform3s
        self._request = coal.CollisionRequest()
        self._request.enable_contact = True
        self._request.num_max_contacts = 1
        self._result = coal.CollisionResult()

    def near(self, rotation: FloatArray, translation: FloatArray) -> BoolArray:
        """(N, shape pairs): whether the bounding spheres of each shape pair overlap."""
        centres = translation + np.einsum("nsij,sj->nsi", rotation, self.centres)
        centres -= centres[:, :1]  # about the first shape: single precision keeps the differences
        square = np.zeros((centres.shape[0], self.first.size), dtype=np.float32)
        for axis in range(3):  # one coordinate at a time, in single precision: far less memory traffic
            c = np.ascontiguousarray(centres[:, :, axis], dtype=np.float32)
            d = c[:, self.first] - c[:, self.second]
            square += d * d
        reach = self.reach.astype(np.float32) + np.float32(1e-4)  # rounding of single precision
        return np.asarray(square <= (reach * reach)[None, :])

    def boxes_meet(
        self, rotation: FloatArray, translation: FloatArray, frames: npt.NDArray[np.intp], pairs: npt.NDArray[np.intp]
    ) -> BoolArray:
        """For (frame, shape pair) candidates: whether the pair's bounding boxes overlap (separating axes)."""
        i, j = self.first[pairs], self.second[pairs]
        used = np.bincount(np.concatenate([i, j]), minlength=len(self.shapes)) > 0
        for k in np.flatnonzero(used & ~self._boxed).tolist():
            self.box_rotation[k], self.box_centre[k], self.box_half[k] = self.shapes[k].oriented_box()
            self._boxed[k] = True
        ra = rotation[frames, i] @ self.box_rotation[i]
        rb = rotation[frames, j] @ self.box_rotation[j]
        ca = translation[frames, i] + np.einsum("mij,mj->mi", rotation[frames, i], self.box_centre[i])
        cb = translation[frames, j] + np.einsum("mij,mj->mi", rotation[frames, j], self.box_centre[j])
        return ~separated(ra, ca, self.box_half[i], rb, cb, self.box_half[j])

    def travel(self, rotation: FloatArray, translation: FloatArray, pairs: npt.NDArray[np.intp]) -> FloatArray:
        """(N, len(pairs)): for each shape pair, how far any point of its second shape can have
        moved in the frame of its first since the first frame (a bound: the sum over frames of the
        sphere centre's step plus the most a point at the sphere's radius moves by the rotation's
        change, both seen from the first shape). Their distance cannot have changed by more."""
        i, j = self.first[pairs], self.second[pairs]
        ri = rotation[:, i]  # (N, K, 3, 3)
        centre = translation[:, j] + np.einsum("nkab,kb->nka", rotation[:, j], self.centres[j])
        seen = np.einsum("nkba,nkb->nka", ri, centre - translation[:, i])
        turned = np.einsum("nkba,nkbc->nkac", ri, rotation[:, j])
        # A rotation by θ moves a point at distance r by 2 r sin(θ/2) = r √(3 - trace(R_aᵀ R_b)).
        trace = np.einsum("nkab,nkab->nk", turned[:-1], turned[1:])
        step = np.linalg.norm(np.diff(seen, axis=0), axis=2) + self.radii[j] * np.sqrt(np.maximum(3.0 - trace, 0.0))
        return np.concatenate([np.zeros((1, len(pairs))), np.cumsum(step, axis=0)])

    def run(self, rotation: FloatArray, translation: FloatArray) -> Contacts:
        """Collide every pair at N frames of shape poses ((N, S, 3, 3) rotations, (N, S, 3) translations).

        A pair found apart by a distance d is not asked again while the two shapes together
        cannot have moved d (see :meth:`travel`): frames at a high rate cost little. The
        frames are taken in batches of :data:`BATCH` frames × shape pairs; a batch begins
        with the last frame of the one before, so a pair at rest stays at rest across them.
        SIGTERM ends the process at once meanwhile (nothing is written here; a call into coal
        on two meshes of many triangles runs no signal handler until it returns).
        """
        n = rotation.shape[0]
        hits = _Hits()
        if not self.first.size or n == 0:
            return hits.contacts()
        size = max(2, BATCH // self.first.size)
        budget = np.full(self.first.size, -1.0)  # pair k is apart while its travel < budget[k]
        lo = 0
        # Python runs between coal's calls (one pair of one frame each, meshes within the triangle
        # budget), so a stop (SIGTERM in a command, a node's clean exit) is seen between them.
        while lo < n:
            start = max(lo - 1, 0)  # the batch before's last frame: where the budgets are counted from
            hi = min(n, start + size)
            budget = self._batch(rotation[start:hi], translation[start:hi], start, lo - start, budget, hits)
            lo = hi
        return hits.contacts()

    def _batch(
        self, rotation: FloatArray, translation: FloatArray, offset: int, skip: int, budget: FloatArray, hits: _Hits
    ) -> FloatArray:
        """Collide the frames of one batch from its ``skip``-th on (frame numbers from ``offset``);
        the budgets, counted from its first frame, come in and go out as counted from its last."""
        frames, candidates = np.nonzero(self.near(rotation, translation))
        keep = self.boxes_meet(rotation, translation, frames, candidates)
        frames, candidates = frames[keep], candidates[keep]
        # the shape pairs met (ascending); np.unique would import numpy.ma, 0.05 s, on a first check
        seen = np.flatnonzero(np.bincount(candidates, minlength=self.first.size))
        slot = np.full(self.first.size, -1, dtype=np.intp)
        slot[seen] = np.arange(seen.size)
        travel = self.travel(rotation, translation, seen)
        left = budget.tolist()
        later = frames >= skip
        self._narrow(rotation, translation, frames[later], candidates[later], travel, slot, left, hits, offset)
        out = np.full(self.first.size, -1.0)  # a pair not seen in the batch is asked again when next near
        if seen.size:
            out[seen] = np.asarray(left)[seen] - travel[-1]
        return out

    def _narrow(
        self,
        rotation: FloatArray,
        translation: FloatArray,
        frames: npt.NDArray[np.intp],
        candidates: npt.NDArray[np.intp],
        travel_array: FloatArray,
        slot_array: npt.NDArray[np.intp],
        budget: list[float],
        hits: _Hits,
        offset: int = 0,
    ) -> None:
        """coal on the candidate (frame, shape pair)s, in frame order; ``budget`` updated in place."""
        travel, slot = travel_array.tolist(), slot_array.tolist()
        transform, collide, distance = self._transform, self._collide, self._distance
        request, result = self._request, self._result
        drequest, dresult = self._distance_request, self._distance_result
        first, second, owner = self.first.tolist(), self.second.tolist(), self.owner.tolist()
        geometry, hull = self._geometry, self._hull
        streak: dict[int, int] = {}  # exact tests in a row that found pair k apart
        cache: dict[int, Any] = {}
        current = -1
        for f, k in zip(frames.tolist(), candidates.tolist(), strict=True):
            i, j = first[k], second[k]
            moved = travel[f][slot[k]]
            if moved < budget[k]:
                continue
            if f != current:
                cache = {}
                current = f
            ti = cache.get(i)
            if ti is None:
                ti = cache[i] = transform(rotation[f, i], translation[f, i])
            tj = cache.get(j)
            if tj is None:
                tj = cache[j] = transform(rotation[f, j], translation[f, j])
            if hull[i] is None or hull[j] is None:  # a mesh's hull, or a flat mesh's triangles
                self._make_hull(i)
                self._make_hull(j)
            distance(hull[i], ti, hull[j], tj, drequest, dresult)
            gap = dresult.min_distance
            if gap > 0:
                budget[k] = moved + gap
                continue
            if geometry[i] is None or geometry[j] is None:
                self._make(i)
                self._make(j)
            result.clear()
            collide(geometry[i], ti, geometry[j], tj, request, result)
            if result.isCollision():
                hits.add(f + offset, owner[k], _depth(result))
                continue
            # Apart, though the hulls meet: after a few such frames in a row, the true distance
            # (dearer) lets the pair rest for longer; meanwhile coal's lower bound does.
            streak[k] = streak.get(k, 0) + 1
            if streak[k] >= _STREAK:
                streak[k] = 0
                distance(geometry[i], ti, geometry[j], tj, drequest, dresult)
                if dresult.min_distance > 0:
                    budget[k] = moved + dresult.min_distance
                    continue
            if result.distance_lower_bound > 0:
                budget[k] = moved + result.distance_lower_bound

    def _make(self, shape: int) -> None:
        """Build a mesh shape's triangle hierarchy (once) where the geometries are looked up."""
        if self._geometry[shape] is None:
            self._geometry[shape] = self.shapes[shape].collision_geometry()

    def _make_hull(self, shape: int) -> None:
        """Build a mesh shape's convex hull (once; a flat mesh's triangles) where the hulls are looked up."""
        if self._hull[shape] is None:
            convex = self.shapes[shape].convex_geometry()
            if convex is None:
                self._make(shape)
                convex = self._geometry[shape]
            self._hull[shape] = convex


def separated(
    ra: FloatArray, ca: FloatArray, ea: FloatArray, rb: FloatArray, cb: FloatArray, eb: FloatArray
) -> BoolArray:
    """Whether oriented boxes (axes (M, 3, 3) as columns, centres (M, 3), half sizes (M, 3)) are apart:
    the 15 separating-axis tests of two boxes, vectorised over M pairs."""
    r = np.einsum("mki,mkj->mij", ra, rb)  # b's axes in a's frame
    t = np.einsum("mki,mk->mi", ra, cb - ca)  # b's centre in a's frame
    ar = np.abs(r) + 1e-9
    apart = np.zeros(r.shape[0], dtype=bool)
    for k in range(3):
        apart |= np.abs(t[:, k]) > ea[:, k] + np.einsum("mj,mj->m", eb, ar[:, k, :])
        apart |= np.abs(np.einsum("mi,mi->m", t, r[:, :, k])) > np.einsum("mi,mi->m", ea, ar[:, :, k]) + eb[:, k]
    for a in range(3):
        a1, a2 = (a + 1) % 3, (a + 2) % 3
        for b in range(3):
            b1, b2 = (b + 1) % 3, (b + 2) % 3
            lhs = np.abs(t[:, a2] * r[:, a1, b] - t[:, a1] * r[:, a2, b])
            rhs = (
                ea[:, a1] * ar[:, a2, b]
                + ea[:, a2] * ar[:, a1, b]
                + eb[:, b1] * ar[:, a, b2]
                + eb[:, b2] * ar[:, a, b1]
            )
            apart |= lhs > rhs
    return apart


def _depth(result: Any) -> float:
    """The penetration of a collision result's first contact (coal gives it as a negative signed distance)."""
    if not result.numContacts():
        return 0.0
    return abs(float(result.getContact(0).penetration_depth))


__all__ = ["Contacts", "SelfCollision", "separated"]
