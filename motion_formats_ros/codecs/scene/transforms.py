"""Scene transforms: parsing every kind in the spec and evaluating them, vectorised.

A pose is Translation · Rotation (points map as ``p' = R p + t``). A transform object
holds at most one translation part (``xyz`` or ``axisDistance``) and at most one
rotation part (``qxyzw``, ``qwxyz``, ``rows3x3``, ``cols3x3``, ``euler``, ``axisAngle``,
``rotvec``), or exactly one complete transform (``rows4x4``, ``cols4x4``, ``dh``).
An empty object (or no pose) is the identity.

Every number may be a Value reference (``{joint: "elbow"}``, ``{trajectory: "wave",
index: 2}``); such transforms are evaluated for many times at once from arrays of the
referenced values. Quaternions and axes are normalised (error when the norm is below
1e-7); 3×3 / 4×4 matrices must be rotations (orthonormal, determinant +1, within 1e-5)
and 4×4 ones must end with the row 0 0 0 1.

Euler angles: ``{z0y1x2: [a, b, c]}`` or ``{order: "z0y1x2", angles: [a, b, c]}``; all
digits 0 = extrinsic rotations about the fixed axes in the order written
(``x0y0z0`` = Rz(c)·Ry(b)·Rx(a)); digits 0, 1, 2 = intrinsic (``z0y1x2`` =
Rz(a)·Ry(b)·Rx(c)). Twelve axis sequences × two = the 24 conventions. ``dh`` is classic
Denavit–Hartenberg: Rz(theta)·Tz(s)·Tx(a)·Rx(alpha).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy.spatial.transform import Rotation

from ...core.errors import MotionFormatError
from ...core.spatial import unit_rows
from .problems import PathPart, Problems, json_path

FloatArray = npt.NDArray[np.float64]

#: Norm below which a quaternion or axis cannot be normalised.
MIN_NORM = 1e-7
#: Largest deviation of R·Rᵀ from I (and of det R from 1) accepted for matrices.
ORTHONORMAL_TOLERANCE = 1e-5

TRANSLATION_KINDS = ("xyz", "axisDistance")
ROTATION_KINDS = ("qxyzw", "qwxyz", "rows3x3", "cols3x3", "euler", "axisAngle", "rotvec")
COMPLETE_KINDS = ("rows4x4", "cols4x4", "dh")
KINDS = TRANSLATION_KINDS + ROTATION_KINDS + COMPLETE_KINDS
#: ``{chain: [transform, …]}``: a product of transforms (the canonical form of dependent poses).
CHAIN = "chain"
DH_KEYS = ("a", "alpha", "theta", "s")
AXES = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}

_EULER = re.compile(r"^([xyz])([0-2])([xyz])([0-2])([xyz])([0-2])$")


class TransformError(MotionFormatError, ValueError):
    """A transform cannot be evaluated (degenerate quaternion or axis, not a rotation …)."""


@dataclasses.dataclass(frozen=True)
class Ref:
    """A Value that refers to a joint of the same object or to a trajectory.

    Attributes:
        kind: ``"joint"`` or ``"trajectory"``.
        name: Joint or trajectory name (``"wave.2"`` style names are split by the
            preprocessor into name and index).
        index: Dimension of a vector trajectory, or None.
    """

    kind: str
    name: str
    index: int | None = None

    def __str__(self) -> str:
        return f"{self.kind} {self.name!r}" + ("" if self.index is None else f"[{self.index}]")

    def canonical(self) -> dict[str, Any]:
        """The JSON form (``{trajectory: name, index: i}`` / ``{joint: name}``)."""
        out: dict[str, Any] = {self.kind: self.name}
        if self.index is not None:
            out["index"] = self.index
        return out


Value = float | Ref
#: Gives the values of a reference at the evaluation times, shape (N,).
Lookup = Callable[[Ref], FloatArray]


def euler_sequence(order: str) -> str | None:
    """scipy's sequence for a spec convention (``x0y0z0`` → ``xyz``, ``z0y1x2`` → ``ZYX``)."""
    m = _EULER.match(order)
    if not m:
        return None
    a, da, b, db, c, dc = m.groups()
    if a == b or b == c:
        return None
    digits = da + db + dc
    if digits == "000":
        return a + b + c
    if digits == "012":
        return (a + b + c).upper()
    return None


def euler_conventions() -> list[str]:
    """All 24 conventions in the spec's key syntax."""
    out = []
    for a in "xyz":
        for b in "xyz":
            for c in "xyz":
                if a != b and b != c:
                    out.append(f"{a}0{b}0{c}0")
                    out.append(f"{a}0{b}1{c}2")
    return out


# --------------------------------------------------------------------------- values
def parse_value(node: Any, parts: Sequence[PathPart], problems: Problems) -> Value | None:
    """A number or a ``{joint: …}`` / ``{trajectory: …, index: i}`` reference."""
    if isinstance(node, bool):
        problems.error(parts, "expected a number, got a boolean")
        return None
    if isinstance(node, (int, float)):
        return float(node)
    if isinstance(node, dict):
        if set(node) == {"joint"}:
            if not isinstance(node["joint"], str):
                problems.error([*parts, "joint"], "expected a joint name (string)")
                return None
            return Ref("joint", node["joint"])
        if "trajectory" in node and set(node) <= {"trajectory", "index"}:
            name = node["trajectory"]
            if not isinstance(name, str):
                problems.error([*parts, "trajectory"], "expected a trajectory name (string)")
                return None
            index = node.get("index")
            if index is not None and (isinstance(index, bool) or not isinstance(index, int) or index < 0):
                problems.error([*parts, "index"], f"expected a non-negative integer index, got {index!r}")
                return None
            return Ref("trajectory", name, index)
        problems.error(
            parts,
            f"expected a number or a Value reference ({{joint: …}} or {{trajectory: …, index: …}}), "
            f"got an object with keys {sorted(node)}",
        )
        return None
    problems.error(parts, f"expected a number or a Value reference, got {_type_name(node)}")
    return None


def _type_name(node: Any) -> str:
    if node is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(node), type(node).__name__
    )


def _values(node: Any, count: int, parts: Sequence[PathPart], problems: Problems) -> tuple[Value, ...] | None:
    if not isinstance(node, list) or len(node) != count:
        got = f"{len(node)} elements" if isinstance(node, list) else _type_name(node)
        problems.error(parts, f"expected an array of {count} values, got {got}")
        return None
    out = [parse_value(v, [*parts, i], problems) for i, v in enumerate(node)]
    if any(v is None for v in out):
        return None
    return tuple(v for v in out if v is not None)


def _matrix(node: Any, size: int, parts: Sequence[PathPart], problems: Problems) -> tuple[Value, ...] | None:
    if not isinstance(node, list) or len(node) != size:
        got = f"{len(node)} rows" if isinstance(node, list) else _type_name(node)
        problems.error(parts, f"expected {size} arrays of {size} values, got {got}")
        return None
    rows = [_values(row, size, [*parts, i], problems) for i, row in enumerate(node)]
    if any(r is None for r in rows):
        return None
    return tuple(v for r in rows if r is not None for v in r)


def _axis(node: Any, parts: Sequence[PathPart], problems: Problems) -> tuple[Value, ...] | None:
    if isinstance(node, str):
        if node in AXES:
            return AXES[node]
        problems.error(parts, f"unknown axis {node!r}; expected 'x', 'y', 'z' or [x, y, z]")
        return None
    return _values(node, 3, parts, problems)


def _keys(
    node: Any, parts: Sequence[PathPart], problems: Problems, required: Sequence[str], optional: Sequence[str] = ()
) -> bool:
    if not isinstance(node, dict):
        problems.error(parts, f"expected an object with keys {list(required) + list(optional)}, got {_type_name(node)}")
        return False
    ok = True
    for key in node:
        if key not in required and key not in optional:
            problems.error([*parts, key], f"unknown key {key!r}; expected {list(required) + list(optional)}")
            ok = False
    for key in required:
        if key not in node:
            problems.error(parts, f"missing key {key!r}")
            ok = False
    return ok


# --------------------------------------------------------------------------- elements
@dataclasses.dataclass(frozen=True)
class Element:
    """One transform kind with its components (numbers or references), flattened.

    Attributes:
        kind: One of :data:`KINDS`.
        values: Components: xyz 3; axisDistance axis 3 + distance; qxyzw / qwxyz 4;
            rows3x3 / cols3x3 9 (as written, row after row); rows4x4 / cols4x4 16;
            euler 3 angles; axisAngle axis 3 + angle; rotvec 3; dh a, alpha, theta, s.
        path: JSON path of the element.
        order: Euler convention in the spec's syntax (``z0y1x2``), euler only.
    """

    kind: str
    values: tuple[Value, ...]
    path: str = ""
    order: str = ""

    @property
    def refs(self) -> set[Ref]:
        return {v for v in self.values if isinstance(v, Ref)}

    @property
    def is_static(self) -> bool:
        return not any(isinstance(v, Ref) for v in self.values)

    def components(self, lookup: Lookup | None, n: int) -> FloatArray:
        """(n, k) array of the component values."""
        out = np.empty((n, len(self.values)), dtype=np.float64)
        for i, v in enumerate(self.values):
            if isinstance(v, Ref):
                if lookup is None:
                    raise TransformError(f"{self.path}: {v} needs values to evaluate")
                out[:, i] = lookup(v)
            else:
                out[:, i] = v
        return out

    def evaluate(self, lookup: Lookup | None = None, n: int = 1) -> tuple[FloatArray, FloatArray]:
        """Translation (n, 3) and unit quaternion x, y, z, w (n, 4) of this element."""
        try:
            t, q = self._evaluate(lookup, n)
        except TransformError:
            raise
        except ValueError as exc:  # scipy on angles so large that sin / cos lose all meaning
            raise TransformError(f"{self.path}: the values give no valid rotation ({exc})") from None
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(q))):
            # Finite but huge values (1e308) overflow: cos(1e308) is fine, 1e308 * 1e308 is not.
            raise TransformError(f"{self.path}: the values give a pose that is not finite (too large)")
        return t, q

    def _evaluate(self, lookup: Lookup | None, n: int) -> tuple[FloatArray, FloatArray]:
        c = self.components(lookup, n)
        zero = np.zeros((n, 3))
        identity = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
        k = self.kind
        if k == "xyz":
            return c, identity
        if k == "axisDistance":
            return _unit(c[:, :3], "axis", self.path) * c[:, 3:4], identity
        if k == "qxyzw":
            return zero, _unit(c, "quaternion", self.path)
        if k == "qwxyz":
            return zero, _unit(c[:, [1, 2, 3, 0]], "quaternion", self.path)
        if k in ("rows3x3", "cols3x3"):
            m = c.reshape(n, 3, 3)
            if k == "cols3x3":
                m = m.transpose(0, 2, 1)
            return zero, _rotation_matrix(m, self.path)
        if k in ("rows4x4", "cols4x4"):
            m = c.reshape(n, 4, 4)
            if k == "cols4x4":
                m = m.transpose(0, 2, 1)
            bottom = np.abs(m[:, 3, :] - [0.0, 0.0, 0.0, 1.0]).max(axis=1)
            if np.any(bottom > ORTHONORMAL_TOLERANCE):
                i = int(np.argmax(bottom))
                raise TransformError(f"{self.path}: the last row must be [0, 0, 0, 1], got {m[i, 3].tolist()}")
            return m[:, :3, 3].copy(), _rotation_matrix(m[:, :3, :3], self.path)
        if k == "euler":
            seq = euler_sequence(self.order)
            assert seq is not None
            return zero, Rotation.from_euler(seq, c).as_quat()
        if k == "axisAngle":
            axis = _unit(c[:, :3], "axis", self.path)
            return zero, Rotation.from_rotvec(axis * c[:, 3:4]).as_quat()
        if k == "rotvec":
            return zero, Rotation.from_rotvec(c).as_quat()
        if k == "dh":
            a, alpha, theta, s = c.T
            t = np.stack([a * np.cos(theta), a * np.sin(theta), s], axis=1)
            rz = Rotation.from_rotvec(np.stack([np.zeros(n), np.zeros(n), theta], axis=1))
            rx = Rotation.from_rotvec(np.stack([alpha, np.zeros(n), np.zeros(n)], axis=1))
            return t, (rz * rx).as_quat()
        raise TransformError(f"{self.path}: unknown transform kind {k!r}")

    def canonical(self) -> dict[str, Any]:
        """The element in the spec's syntax (references as objects)."""

        def j(v: Value) -> Any:
            return v.canonical() if isinstance(v, Ref) else v

        vals = [j(v) for v in self.values]
        k = self.kind
        if k in ("xyz", "qxyzw", "qwxyz", "rotvec"):
            return {k: vals}
        if k == "axisDistance":
            return {k: {"axis": vals[:3], "distance": vals[3]}}
        if k == "axisAngle":
            return {k: {"axis": vals[:3], "angle": vals[3]}}
        if k in ("rows3x3", "cols3x3"):
            return {k: [vals[i : i + 3] for i in range(0, 9, 3)]}
        if k in ("rows4x4", "cols4x4"):
            return {k: [vals[i : i + 4] for i in range(0, 16, 4)]}
        if k == "euler":
            return {k: {"order": self.order, "angles": vals}}
        return {k: dict(zip(DH_KEYS, vals, strict=True))}


def _unit(v: FloatArray, what: str, path: str) -> FloatArray:
    out, norm = unit_rows(v)
    bad = ~((norm >= MIN_NORM) & np.isfinite(out[:, 0]))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise TransformError(f"{path}: the {what} {v[i].tolist()} has norm {norm[i]:.3g}, cannot normalise it")
    return out


def _rotation_matrix(m: FloatArray, path: str) -> FloatArray:
    err = np.abs(m @ m.transpose(0, 2, 1) - np.eye(3)).max(axis=(1, 2))
    det = np.linalg.det(m)
    bad = ~((err <= ORTHONORMAL_TOLERANCE) & (np.abs(det - 1.0) <= ORTHONORMAL_TOLERANCE))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        what = "a reflection (determinant -1)" if abs(det[i] + 1.0) <= ORTHONORMAL_TOLERANCE else "not orthonormal"
        raise TransformError(f"{path}: the matrix {m[i].tolist()} is {what}")
    q: FloatArray = Rotation.from_matrix(m).as_quat()
    return q


def compose(t1: FloatArray, q1: FloatArray, t2: FloatArray, q2: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(t1, q1) · (t2, q2) for (n, 3) / (n, 4) arrays (quaternions x, y, z, w)."""
    r1 = Rotation.from_quat(q1)
    t: FloatArray = t1 + r1.apply(t2)
    q: FloatArray = (r1 * Rotation.from_quat(q2)).as_quat()
    return t, q


# --------------------------------------------------------------------------- transforms
@dataclasses.dataclass(frozen=True)
class Transform:
    """A parsed pose: a product of elements (translation first, then rotation).

    Attributes:
        elements: The factors, applied left to right.
        path: JSON path of the transform.
    """

    elements: tuple[Element, ...] = ()
    path: str = ""

    @property
    def refs(self) -> set[Ref]:
        out: set[Ref] = set()
        for e in self.elements:
            out |= e.refs
        return out

    @property
    def is_static(self) -> bool:
        return all(e.is_static for e in self.elements)

    def evaluate(self, lookup: Lookup | None = None, n: int = 1) -> tuple[FloatArray, FloatArray]:
        """Translation (n, 3) and unit quaternion x, y, z, w (n, 4)."""
        t = np.zeros((n, 3))
        q = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
        for i, e in enumerate(self.elements):
            te, qe = e.evaluate(lookup, n)
            if i == 0:
                t, q = te, qe
            else:
                t, q = compose(t, q, te, qe)
        return t, q

    def static_pose(self) -> tuple[FloatArray, FloatArray]:
        """(3,) translation and (4,) quaternion of a static transform."""
        t, q = self.evaluate(None, 1)
        return t[0], q[0]

    def canonical(self) -> dict[str, Any]:
        """``{xyz, qxyzw}`` when static; else ``{chain: [element, …]}`` (static runs folded)."""
        if self.is_static:
            t, q = self.static_pose()
            return {"xyz": _clean(t), "qxyzw": _clean(q)}
        chain: list[dict[str, Any]] = []
        run: list[Element] = []

        def flush() -> None:
            if run:
                t, q = Transform(tuple(run)).static_pose()
                chain.append({"xyz": _clean(t), "qxyzw": _clean(q)})
                run.clear()

        for e in self.elements:
            if e.is_static:
                run.append(e)
            else:
                flush()
                chain.append(e.canonical())
        flush()
        return {"chain": chain}


def _clean(v: FloatArray) -> list[float]:
    return [0.0 if x == 0 else float(x) for x in v]


IDENTITY = Transform()


def parse_transform(
    node: Any, parts: Sequence[PathPart], problems: Problems, *, allow_refs: bool = True
) -> Transform | None:
    """Parse a Transform object; every problem goes to ``problems`` (None when invalid).

    Static transforms are evaluated once here so that degenerate quaternions, axes and
    matrices are reported with their path.
    """
    parts = list(parts)
    path = json_path(parts)
    if node is None:
        return IDENTITY
    if not isinstance(node, dict):
        problems.error(parts, f"expected a transform object, got {_type_name(node)}")
        return None
    if "chain" in node:  # the canonical form of poses that depend on values
        return _parse_chain(node, parts, problems, allow_refs)
    unknown = [k for k in node if k not in KINDS]
    for key in unknown:
        problems.error([*parts, key], f"unknown transform key {key!r}; known: {', '.join(KINDS)}")
    kinds = [k for k in node if k in KINDS]
    translation = [k for k in kinds if k in TRANSLATION_KINDS]
    rotation = [k for k in kinds if k in ROTATION_KINDS]
    complete = [k for k in kinds if k in COMPLETE_KINDS]
    ok = not unknown
    if complete and len(kinds) > 1:
        problems.error(parts, f"{complete[0]} is a complete transform and cannot be combined with {kinds}")
        ok = False
    if len(translation) > 1:
        problems.error(parts, f"more than one translation: {translation}")
        ok = False
    if len(rotation) > 1:
        problems.error(parts, f"more than one rotation: {rotation}")
        ok = False
    ordered = translation + rotation + complete
    elements: list[Element] = []
    for kind in ordered:
        element = _parse_element(kind, node[kind], [*parts, kind], problems)
        if element is None:
            ok = False
            continue
        if not allow_refs and not element.is_static:
            problems.error([*parts, kind], "must be static here (no joint or trajectory references)")
            ok = False
        elements.append(element)
    if not ok:
        return None
    transform = Transform(tuple(elements), path)
    for e in transform.elements:
        if e.is_static:
            try:
                e.evaluate()
            except TransformError as exc:
                problems.error([*parts, e.kind], str(exc).split(": ", 1)[-1])
                ok = False
    return transform if ok else None


def _parse_chain(node: dict[str, Any], parts: list[PathPart], problems: Problems, allow_refs: bool) -> Transform | None:
    chain = node["chain"]
    if len(node) != 1:
        problems.error(parts, f"chain cannot be combined with {sorted(k for k in node if k != 'chain')}")
        return None
    if not isinstance(chain, list):
        problems.error([*parts, "chain"], f"expected an array of transforms, got {_type_name(chain)}")
        return None
    elements: list[Element] = []
    ok = True
    for i, item in enumerate(chain):
        t = parse_transform(item, [*parts, "chain", i], problems, allow_refs=allow_refs)
        if t is None:
            ok = False
        else:
            elements.extend(t.elements)
    return Transform(tuple(elements), json_path(parts)) if ok else None


def _parse_element(kind: str, node: Any, parts: list[PathPart], problems: Problems) -> Element | None:
    path = json_path(parts)
    values: tuple[Value, ...] | None
    if kind in ("xyz", "rotvec"):
        values = _values(node, 3, parts, problems)
    elif kind in ("qxyzw", "qwxyz"):
        values = _values(node, 4, parts, problems)
    elif kind in ("rows3x3", "cols3x3"):
        values = _matrix(node, 3, parts, problems)
    elif kind in ("rows4x4", "cols4x4"):
        values = _matrix(node, 4, parts, problems)
    elif kind in ("axisDistance", "axisAngle"):
        scalar = "distance" if kind == "axisDistance" else "angle"
        if not _keys(node, parts, problems, ("axis", scalar)):
            return None
        axis = _axis(node["axis"], [*parts, "axis"], problems)
        amount = parse_value(node[scalar], [*parts, scalar], problems)
        values = None if axis is None or amount is None else (*axis, amount)
    elif kind == "euler":
        return _parse_euler(node, parts, problems)
    else:  # dh
        if not isinstance(node, dict):
            problems.error(parts, f"expected an object with keys {list(DH_KEYS)}, got {_type_name(node)}")
            return None
        node = dict(node)
        if "alhpa" in node:  # the spec's own spelling in its DenavitHartenberg section
            if "alpha" in node:
                problems.error(parts, "both 'alpha' and 'alhpa' given")
                return None
            node["alpha"] = node.pop("alhpa")
        if not _keys(node, parts, problems, (), DH_KEYS):
            return None
        got = [parse_value(node.get(k, 0.0), [*parts, k], problems) for k in DH_KEYS]
        values = None if any(v is None for v in got) else tuple(v for v in got if v is not None)
    if values is None:
        return None
    return Element(kind, values, path)


def _parse_euler(node: Any, parts: list[PathPart], problems: Problems) -> Element | None:
    path = json_path(parts)
    if not isinstance(node, dict):
        problems.error(parts, f"expected an object such as {{z0y1x2: [a, b, c]}}, got {_type_name(node)}")
        return None
    if "order" in node or "angles" in node:
        if not _keys(node, parts, problems, ("order", "angles")):
            return None
        order, angles, where = node["order"], node["angles"], [*parts, "angles"]
        if not isinstance(order, str) or euler_sequence(order) is None:
            problems.error([*parts, "order"], f"unknown Euler convention {order!r}; {_EULER_HELP}")
            return None
    else:
        if len(node) != 1:
            problems.error(parts, f"expected exactly one convention key, got {sorted(node)}; {_EULER_HELP}")
            return None
        order, angles = next(iter(node.items()))
        where = [*parts, order]
        if euler_sequence(order) is None:
            problems.error(where, f"unknown Euler convention {order!r}; {_EULER_HELP}")
            return None
    values = _values(angles, 3, where, problems)
    if values is None:
        return None
    return Element("euler", values, path, order)


_EULER_HELP = (
    "expected three axes with digits 000 (extrinsic, e.g. x0y0z0) or 012 (intrinsic, e.g. z0y1x2), "
    "no axis twice in a row"
)
