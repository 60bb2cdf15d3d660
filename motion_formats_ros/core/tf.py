"""The one TF buffer: poses of one frame in another over time (recorder and bag2motion).

Transforms come as samples of edges ``parent → child`` (from ``/tf``, dynamic, and
``/tf_static``, static), each with its header stamp and receive time in ns.
:class:`TfSamples` collects them (the recorder's journal and the bag reader both feed
it); :meth:`TfSamples.buffer` turns them into a :class:`TfBuffer` on a time axis
relative to an origin (the motion's first sample). A pose request ``parent → child``
walks both frames up to their common ancestor and composes the hops at each query
time: each dynamic edge is interpolated between its neighbouring samples (linear
translation, slerp rotation; held before the first and after the last sample), static
edges are constant. Quaternions are x, y, z, w.

Rules (tf2's, made explicit):

- A frame has one parent. When two publishers give a frame two different parents, the
  conflict is reported and the parent with the most samples is used (never a mix).
- Two samples of one edge at the same stamp that disagree (two publishers of one edge)
  are reported; the later one is kept (no averaging).
- A static edge does not replace a dynamic edge of the same child (reported).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from . import timing
from .spatial import compose, invert
from .stamps import choose_times

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Samples of one edge at the same stamp differing by more than this disagree.
CONFLICT_TOLERANCE = 1e-9
#: Stamps and origins beyond this many ns (about 146 years) are refused: no int64 overflow.
MAX_NS = 1 << 62


class Edge:
    """Samples of the transform parent → child (times in seconds, sorted, unique):
    translations (K, 3) and rotations (K, 4, x y z w) at ``times``."""

    __slots__ = ("child", "parent", "rotation", "static", "times", "translation")

    def __init__(
        self,
        parent: str,
        child: str,
        times: FloatArray,
        translation: FloatArray,
        rotation: FloatArray,
        static: bool = False,
    ) -> None:
        self.parent = parent
        self.child = child
        self.times = times
        self.translation = translation
        self.rotation = rotation
        self.static = static

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
        #: What was inconsistent in the transforms (reported by the caller).
        self.problems: list[str] = []

    def add(self, edge: Edge) -> None:
        have = self.edges.get(edge.child)
        if have is not None and have.static != edge.static:
            # A static transform does not replace a dynamic one of the same child.
            self.problems.append(
                f"frame {edge.child!r} is published both on /tf and /tf_static; the /tf transform is used"
            )
            if edge.static:
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


class _EdgeRows:
    """The samples of one edge as received: stamps and receive times (ns), x y z qx qy qz qw each."""

    __slots__ = ("recv", "stamps", "values")

    def __init__(self) -> None:
        self.stamps: list[int] = []
        self.recv: list[int] = []
        self.values: list[Sequence[float]] = []


def _frame(name: str) -> str:
    return name[1:] if name.startswith("/") else name


class TfSamples:
    """Transform samples as received, by (parent, child, static); see the module docstring."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str, bool], _EdgeRows] = {}

    def __bool__(self) -> bool:
        return bool(self.rows)

    def add(self, parent: str, child: str, stamp_ns: int, recv_ns: int, values: Sequence[float], static: bool) -> None:
        """One transform: ``values`` is x, y, z, qx, qy, qz, qw. Frame names lose a leading ``/``.

        Raises ValueError for a stamp beyond ±2**62 ns (no time this far is real).
        """
        if not (-MAX_NS < stamp_ns < MAX_NS and -MAX_NS < recv_ns < MAX_NS):
            raise ValueError(f"transform {parent} -> {child}: stamp {stamp_ns} ns is out of range")
        rows = self.rows.setdefault((_frame(parent), _frame(child), bool(static)), _EdgeRows())
        rows.stamps.append(int(stamp_ns))
        rows.recv.append(int(recv_ns))
        rows.values.append(values)

    def add_block(
        self, parent: str, child: str, stamps: IntArray, recv: IntArray, values: FloatArray, static: bool
    ) -> None:
        """Many samples of one edge at once (arrays of equal length; values (K, 7))."""
        stamps = np.asarray(stamps, dtype=np.int64)
        recv = np.asarray(recv, dtype=np.int64)
        if stamps.size != recv.size or len(values) != stamps.size:
            raise ValueError(
                f"transform {parent} -> {child}: {stamps.size} stamps, {recv.size} times, {len(values)} values"
            )
        if stamps.size and max(int(np.abs(stamps).max()), int(np.abs(recv).max())) >= MAX_NS:
            bad = int(stamps[np.argmax(np.abs(stamps))])
            raise ValueError(f"transform {parent} -> {child}: stamp {bad} ns is out of range")
        rows = self.rows.setdefault((_frame(parent), _frame(child), bool(static)), _EdgeRows())
        rows.stamps.extend(stamps.tolist())
        rows.recv.extend(recv.tolist())
        rows.values.extend(np.asarray(values, dtype=np.float64).reshape(-1, 7))

    def first_ns(self, mode: str) -> int | None:
        """The earliest dynamic sample time (``mode`` as for :func:`choose_times`)."""
        firsts = []
        for (_, _, static), rows in self.rows.items():
            if not static and rows.stamps:
                times, _ = choose_times(np.array(rows.stamps, np.int64), np.array(rows.recv, np.int64), mode)
                firsts.append(int(times.min()))
        return min(firsts) if firsts else None

    def buffer(self, origin_ns: int, mode: str = "auto") -> tuple[TfBuffer, list[str]]:
        """The buffer on times in seconds from ``origin_ns``, and notes on the stamps used."""
        if not -MAX_NS < origin_ns < MAX_NS:
            raise ValueError(f"time origin {origin_ns} ns is out of range")
        buf = TfBuffer()
        notes: list[str] = []
        parents: dict[str, dict[str, int]] = {}
        for (parent, child, static), rows in self.rows.items():
            if not static:
                parents.setdefault(child, {})
                parents[child][parent] = parents[child].get(parent, 0) + len(rows.stamps)
        chosen: dict[str, str] = {}
        for child, counts in parents.items():
            best = max(sorted(counts), key=lambda p: counts[p])
            chosen[child] = best
            if len(counts) > 1:
                listing = ", ".join(f"{p!r} ({n} samples)" for p, n in sorted(counts.items()))
                buf.problems.append(
                    f"frame {child!r} is published with several parents: {listing} (two TF publishers "
                    f"disagree); {best!r} is used"
                )
        # Static edges first: a dynamic edge of the same child then replaces it (reported).
        for (parent, child, static), rows in sorted(self.rows.items(), key=lambda kv: not kv[0][2]):
            if not static and chosen.get(child) != parent:
                continue
            stamps = np.array(rows.stamps, dtype=np.int64)
            recv = np.array(rows.recv, dtype=np.int64)
            ns, note = (stamps, None) if static else choose_times(stamps, recv, mode)  # static: time-free
            if note:
                notes.append(f"tf {parent} -> {child}: {note}")
            values = np.array(rows.values, dtype=np.float64).reshape(-1, 7)
            order = np.argsort(ns, kind="stable")
            ns, values = ns[order], values[order]
            later_same = ns[1:] == ns[:-1]
            if later_same.any() and not static:
                differ = np.any(np.abs(values[1:] - values[:-1]) > CONFLICT_TOLERANCE, axis=1) & later_same
                if differ.any():
                    buf.problems.append(
                        f"edge {parent} -> {child}: {int(differ.sum())} samples disagree with another sample "
                        "at the same stamp (two TF publishers of one edge?); the later one is used"
                    )
            keep = np.append(~later_same, True)  # equal times: the later wins
            ns, values = ns[keep], values[keep]
            times = (ns - np.int64(origin_ns)) / 1e9
            buf.add(Edge(parent, child, times, values[:, :3], values[:, 3:], static=static))
        return buf, notes


__all__ = ["CONFLICT_TOLERANCE", "Edge", "TfBuffer", "TfSamples"]
