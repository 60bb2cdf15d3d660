"""Choreonoid ``.body`` models (YAML) → links and joints.

What is read, in Choreonoid's meaning:

- ``angleUnit`` (``angle_unit``): ``degree`` (the default) or ``radian``; it applies to
  ``rotation`` angles and to ``joint_range`` of rotational joints. Motion values stay radians.
- ``rootLink`` (``root_link``), else the link without ``parent``; its ``free`` or
  ``fixed`` joint is the root itself (its pose is the motion's root pose).
- Each other link: ``parent``, ``translation`` and ``rotation`` (axis-angle
  ``[x, y, z, angle]`` or a list of them, applied left to right) place the link frame in the
  parent's at value 0; ``joint_type`` revolute, prismatic (or slide), fixed, free (a
  floating joint) and the continuous-track kinds (fixed here); ``joint_axis`` a vector
  or a letter with an optional sign (``X``, ``-Y``), absent meaning Z. Keys are read in
  both spellings (``jointType`` / ``joint_type``).
- ``elements`` (a list of nodes, one node, or a mapping of node type to node): ``Shape``
  nodes (Box, Cylinder, Sphere, Capsule, Resource meshes; Choreonoid's other geometries,
  Cone, TriangleMesh, IndexedFaceSet, Extrusion and ElevationGrid, are left out with a
  notice, and a type Choreonoid does not know is refused, as Choreonoid refuses it),
  ``Transform`` / ``Group`` / ``Visual`` nodes (and devices) placing their children,
  ``Resource`` nodes and ``resource`` entries; ``Collision`` subtrees are not visuals,
  ``Visual`` subtrees are not collision shapes (every other shape is both).
- ``mass``, ``centerOfMass`` and ``inertia`` (about the centre of mass: nine numbers row by
  row, or the six of the upper triangle; one that no body can have is refused or warned about,
  see :func:`.robot_parts.inertia_fault`).
  Choreonoid's cylinders and capsules stand along y; as visuals they are turned onto z.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import ReadError, number
from ..naming import Yaml12Loader, load_safe, parse_safe
from ..notices import NoticeKind, notify
from ..spatial import quat_multiply, quat_rotate
from .robot_parts import (
    IDENTITY_QUAT,
    LARGEST_INERTIA,
    LARGEST_MASS,
    LARGEST_SIZE,
    Box,
    Capsule,
    Cylinder,
    FloatArray,
    Geometry,
    Inertial,
    Joint,
    Limit,
    Link,
    Mesh,
    Sphere,
    Visual,
    direction,
    finite,
    inertia_fault,
    unit_axis,
)

#: Choreonoid joint types → URDF joint types (the root link's joint is not a joint here).
JOINT_TYPES = {
    "revolute": "revolute",
    "prismatic": "prismatic",
    "slide": "prismatic",
    "fixed": "fixed",
    "free": "floating",
    "pseudo_continuous_track": "fixed",
    "pseudocontinuoustrack": "fixed",
}
#: Choreonoid's geometry types that are read here, and those it reads that are not (a notice).
_GEOMETRY = ("Box", "Sphere", "Cylinder", "Capsule", "Resource")
_UNREAD_GEOMETRY = ("Cone", "TriangleMesh", "IndexedFaceSet", "Extrusion", "ElevationGrid")
_LETTER_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
#: A cylinder or capsule along y (Choreonoid) → along z (URDF): a quarter turn about x.
_Y_TO_Z = np.array([-math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)])


def _camel(key: str) -> str:
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)


def _get(node: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """``node[key]`` in snake case or camel case."""
    if key in node:
        return node[key]
    return node.get(_camel(key), default)


class BodyLoader(Yaml12Loader):
    """The YAML 1.2 loader of ``.body`` files (Choreonoid reads them as YAML 1.2), whose mappings are
    :class:`~motion_formats_ros.core.naming.Located`."""


def load_body_document(source: str | os.PathLike[str], text: str | None = None) -> Any:
    """The YAML document of a ``.body`` file (``text`` when given, else the file's contents).

    Read as Choreonoid reads it (YAML 1.2 floats such as ``1e-3``); its mappings are
    :class:`~motion_formats_ros.core.naming.Located`, so that errors name the line.
    """
    if text is None:
        return load_safe(source, "body file", BodyLoader)
    return parse_safe(text, source, "body file", BodyLoader)


def _line(node: Any, key: str) -> int | None:
    """The line of ``node[key]`` (either spelling) when the document says it."""
    lines: dict[Any, int] = getattr(node, "lines", None) or {}
    return lines.get(key, lines.get(_camel(key)))


class _BodyReader:
    def __init__(self, source: str | os.PathLike[str], doc: Any) -> None:
        self.source = source
        if not isinstance(doc, Mapping) or not isinstance(doc.get("links"), list):
            raise ReadError(source, "not a Choreonoid body file (a YAML mapping with a 'links' list)")
        self.doc = doc
        unit = str(_get(doc, "angle_unit", "degree")).lower()
        if unit not in ("degree", "radian"):
            raise ReadError(source, f"angleUnit {unit!r}: expected degree or radian", field="angleUnit")
        self.to_radians = math.pi / 180.0 if unit == "degree" else 1.0
        #: The node type whose subtree is left out: ``Collision`` for visuals, ``Visual`` for collision shapes.
        self.skip = "Collision"
        #: The geometries left out (their fields), each said once.
        self.skipped: set[str] = set()

    def fail(self, field: str, reason: str, line: int | None = None) -> ReadError:
        return ReadError(self.source, reason, field=field, line=line)

    def vector(self, value: Any, field: str, count: int, line: int | None = None) -> FloatArray:
        if (
            not isinstance(value, Sequence)
            or isinstance(value, str)
            or len(value) != count
            or not all(finite(v) for v in value)
        ):
            shown = f"[{', '.join(number(v) for v in value)}]" if isinstance(value, list) else number(value)
            raise self.fail(field, f"expected {count} finite numbers, got {shown}", line)
        return np.array(value, dtype=np.float64)

    def size(self, node: Mapping[str, Any], key: str, field: str, count: int = 1) -> Any:
        """A size (``count`` values) above 0 and at most :data:`LARGEST_SIZE` m (default 1, as Choreonoid's)."""
        value = node.get(key, 1.0 if count == 1 else [1.0] * count)
        line = _line(node, key)
        values = self.vector(value, f"{field}.{key}", count, line) if count > 1 else [value]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= LARGEST_SIZE for v in values):
            shown = f"[{', '.join(number(v) for v in values)}]" if count > 1 else number(value)
            what = "sizes" if count > 1 else "a size"
            raise self.fail(
                f"{field}.{key}", f"expected {what} above 0 and at most {LARGEST_SIZE:g} m, got {shown}", line
            )
        return np.asarray(values, dtype=np.float64) if count > 1 else float(value)

    def place(self, node: Mapping[str, Any], field: str) -> FloatArray:
        """A ``translation``: three finite numbers, none beyond :data:`LARGEST_SIZE` m."""
        line = _line(node, "translation")
        xyz = self.vector(node["translation"], f"{field}.translation", 3, line)
        if np.abs(xyz).max() > LARGEST_SIZE:
            raise self.fail(
                f"{field}.translation",
                f"[{', '.join(number(v) for v in node['translation'])}] is farther than {LARGEST_SIZE:g} m",
                line,
            )
        return xyz

    def rotation(self, value: Any, field: str, line: int | None = None) -> FloatArray:
        """An axis-angle ``[x, y, z, angle]`` or a list of them → quaternion x, y, z, w."""
        if value is None:
            return np.array(IDENTITY_QUAT)
        if (
            isinstance(value, Sequence)
            and value
            and all(isinstance(v, Sequence) and not isinstance(v, str) for v in value)
        ):
            quat = IDENTITY_QUAT.copy()
            for i, part in enumerate(value):
                quat = quat_multiply(quat, self.rotation(part, f"{field}[{i}]", line))
            return np.asarray(quat, dtype=np.float64)
        v = self.vector(value, field, 4, line)
        angle = v[3] * self.to_radians
        unit, norm = direction(v[:3].tolist())
        if norm < 1e-12:
            if angle == 0:
                return np.array(IDENTITY_QUAT)
            raise self.fail(field, f"the rotation axis {list(value[:3])} has no direction", line)
        return np.array([*(unit * math.sin(angle / 2)), math.cos(angle / 2)], dtype=np.float64)

    def axis(self, value: Any, field: str) -> FloatArray:
        if value is None:
            return np.array([0.0, 0.0, 1.0])
        if isinstance(value, str):
            text = value.strip().upper()
            sign = -1.0 if text.startswith("-") else 1.0
            letter = text.lstrip("+-")
            if letter not in _LETTER_AXES:
                raise self.fail(field, f"joint axis {value!r}: expected X, Y, Z (optionally signed) or a vector")
            return sign * np.array(_LETTER_AXES[letter])
        return unit_axis(list(self.vector(value, field, 3)), self.source, field, None)

    # ------------------------------------------------------------------ visuals
    def colour(self, appearance: Any) -> tuple[float, float, float, float] | None:
        if not isinstance(appearance, Mapping):
            return None
        material = appearance.get("material")
        if not isinstance(material, Mapping):
            return None
        diffuse = _get(material, "diffuse") or material.get("diffuseColor")
        if not (
            isinstance(diffuse, Sequence) and len(diffuse) == 3 and all(isinstance(c, (int, float)) for c in diffuse)
        ):
            return None
        transparency = material.get("transparency", 0.0)
        alpha = 1.0 - float(transparency) if isinstance(transparency, (int, float)) else 1.0
        return (float(diffuse[0]), float(diffuse[1]), float(diffuse[2]), alpha)

    def geometry(self, geo: Mapping[str, Any], field: str, line: int | None) -> tuple[Geometry, bool] | None:
        """A geometry and whether it stands along y; None for kinds Choreonoid reads and this
        package does not (a notice says so once); a type Choreonoid does not know is refused,
        as Choreonoid refuses it. ``line``: the geometry's line, where it has no ``type``."""
        kind = geo.get("type")
        if kind in _UNREAD_GEOMETRY:
            if field not in self.skipped:  # the visuals and the collision shapes both meet it
                self.skipped.add(field)
                notify(
                    NoticeKind.SKIPPED,
                    f"a {kind} geometry is neither drawn nor collided here (left out)",
                    file=self.source,
                    line=_line(geo, "type"),
                    field=field,
                )
            return None
        if kind not in _GEOMETRY:
            known = ", ".join((*_GEOMETRY, *_UNREAD_GEOMETRY))
            said = f"unknown geometry type {number(kind)}" if kind is not None else "a geometry without a type"
            raise self.fail(f"{field}.type", f"{said}; Choreonoid knows {known}", _line(geo, "type") or line)
        if kind == "Box":
            return Box(self.size(geo, "size", field, 3)), False
        if kind == "Sphere":
            return Sphere(self.size(geo, "radius", field)), False
        if kind == "Cylinder":
            return Cylinder(self.size(geo, "radius", field), self.size(geo, "height", field)), True
        if kind == "Capsule":
            return Capsule(self.size(geo, "radius", field), self.size(geo, "height", field)), True
        uri = geo.get("uri")  # a Resource
        if not isinstance(uri, str) or not uri:
            raise self.fail(field, "a mesh resource without a uri")
        return Mesh(uri, np.ones(3)), False

    def elements(self, node: Any, field: str, xyz: FloatArray, quat: FloatArray, rgba: Any, out: list[Visual]) -> None:
        """Visuals under ``elements``: a list of nodes, one node (a mapping with a ``type``) or a
        mapping type → node."""
        if isinstance(node, Mapping) and "type" in node:
            items = [(field, node)]
        elif isinstance(node, Mapping):
            items = [(f"{field}.{k}", {"type": k, **v} if isinstance(v, Mapping) else v) for k, v in node.items()]
        elif isinstance(node, list):
            items = [(f"{field}[{i}]", v) for i, v in enumerate(node)]
        else:
            return
        for where, child in items:
            if isinstance(child, list):
                self.elements(child, where, xyz, quat, rgba, out)
            elif isinstance(child, Mapping):
                self.node(child, where, xyz, quat, rgba, out)

    def node(
        self, node: Mapping[str, Any], field: str, xyz: FloatArray, quat: FloatArray, rgba: Any, out: list[Visual]
    ) -> None:
        kind = node.get("type")
        if kind == self.skip:
            return
        if "translation" in node:
            move = self.place(node, field)
            xyz = xyz + quat_rotate(quat, move)
        if "rotation" in node:
            quat = quat_multiply(quat, self.rotation(node["rotation"], f"{field}.rotation", _line(node, "rotation")))
        colour = self.colour(node.get("appearance")) or rgba
        shape: Mapping[str, Any] | None = None
        where = field
        if kind == "Shape" and isinstance(node.get("geometry"), Mapping):
            shape, where = node["geometry"], f"{field}.geometry"
        elif kind == "Resource":
            shape = node
        elif isinstance(node.get("resource"), Mapping):
            shape = {**node["resource"], "type": "Resource"}
        if shape is not None:
            found = self.geometry(shape, where, _line(node, "geometry"))
            if found is not None:
                geometry, along_y = found
                q = quat_multiply(quat, _Y_TO_Z) if along_y else quat
                out.append(Visual(geometry, xyz, q, colour))
        if "elements" in node:
            self.elements(node["elements"], f"{field}.elements", xyz, quat, colour, out)

    # ------------------------------------------------------------------ links, joints
    def read(self) -> tuple[str, str | None, tuple[Link, ...], tuple[Joint, ...]]:
        links: list[Link] = []
        joints: list[Joint] = []
        names = [lk.get("name") for lk in self.doc["links"] if isinstance(lk, Mapping)]
        root = _get(self.doc, "root_link")
        if root is not None and root not in names:
            raise self.fail("rootLink", f"the root link {root!r} is not one of the links")
        for i, lk in enumerate(self.doc["links"]):
            field = f"links[{i}]"
            if not isinstance(lk, Mapping) or not isinstance(lk.get("name"), str) or not lk["name"]:
                raise self.fail(field, "a link must be a mapping with a name")
            name = lk["name"]
            field = f"links[{i}] ({name})"
            visuals: list[Visual] = []
            self.skip = "Collision"
            self.elements(lk.get("elements"), f"{field}.elements", np.zeros(3), IDENTITY_QUAT.copy(), None, visuals)
            collisions: list[Visual] = []
            self.skip = "Visual"
            self.elements(lk.get("elements"), f"{field}.elements", np.zeros(3), IDENTITY_QUAT.copy(), None, collisions)
            links.append(Link(name, tuple(visuals), tuple(collisions), self.inertial(lk, field)))
            parent = lk.get("parent")
            kind_text = str(_get(lk, "joint_type", "fixed"))
            kind = JOINT_TYPES.get(kind_text.lower().replace("-", "_"))
            if kind is None:
                known = ", ".join(sorted(k for k in JOINT_TYPES if "continuous" not in k))
                raise self.fail(f"{field}.jointType", f"unknown joint type {kind_text!r}; known: {known}")
            if parent is None or name == root:
                if root is None:
                    root = name
                continue
            if parent not in names:
                raise self.fail(f"{field}.parent", f"the parent link {parent!r} is not one of the links")
            xyz = np.zeros(3)
            if "translation" in lk:
                xyz = self.place(lk, field)
            quat = self.rotation(lk.get("rotation"), f"{field}.rotation", _line(lk, "rotation"))
            axis = self.axis(_get(lk, "joint_axis"), f"{field}.jointAxis") if kind != "fixed" else np.array([1.0, 0, 0])
            joints.append(Joint(name, kind, str(parent), name, xyz, quat, axis, None, self.limit(lk, kind, field)))
        return str(self.doc.get("name") or ""), root, tuple(links), tuple(joints)

    def inertial(self, lk: Mapping[str, Any], field: str) -> Inertial | None:
        """``mass``, ``centerOfMass`` and ``inertia`` about the centre of mass: 9 numbers, row by
        row, or the 6 of the upper triangle (xx, xy, xz, yy, yz, zz), as Choreonoid reads them."""
        if "mass" not in lk:
            return None
        mass = lk["mass"]
        if not finite(mass) or not 0 <= mass <= LARGEST_MASS:
            raise self.fail(f"{field}.mass", f"expected a mass from 0 to {LARGEST_MASS:g} kg, got {number(mass)}")
        com = _get(lk, "center_of_mass")
        centre = self.vector(com, f"{field}.centerOfMass", 3) if com is not None else np.zeros(3)
        if np.abs(centre).max() > LARGEST_SIZE:
            raise self.fail(f"{field}.centerOfMass", f"{list(com)} is farther than {LARGEST_SIZE:g} m")
        tensor = lk.get("inertia")
        inertia = np.zeros((3, 3))
        if isinstance(tensor, Sequence) and not isinstance(tensor, str) and len(tensor) == 6:
            xx, xy, xz, yy, yz, zz = self.vector(tensor, f"{field}.inertia", 6, _line(lk, "inertia"))
            inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        elif tensor is not None:
            inertia = self.vector(tensor, f"{field}.inertia", 9, _line(lk, "inertia")).reshape(3, 3)
        if np.abs(inertia).max() > LARGEST_INERTIA:
            raise self.fail(
                f"{field}.inertia",
                f"expected entries within ±{LARGEST_INERTIA:g} kg·m², got {np.abs(inertia).max():g}",
                _line(lk, "inertia"),
            )
        line = _line(lk, "inertia")
        fault = inertia_fault(inertia)
        if fault is not None and fault[1]:
            raise self.fail(f"{field}.inertia", fault[0], line)
        if fault is not None:
            said = f"{fault[0]} (used as given)"
            notify(NoticeKind.INCONSISTENT, said, file=self.source, line=line, field=f"{field}.inertia")
        return Inertial(float(mass), centre, inertia, line)

    def limit(self, lk: Mapping[str, Any], kind: str, field: str) -> Limit | None:
        if kind not in ("revolute", "prismatic"):
            return None
        scale = self.to_radians if kind == "revolute" else 1.0
        lower = upper = velocity = None
        rng = _get(lk, "joint_range")
        if isinstance(rng, Sequence) and not isinstance(rng, str):
            lo, hi = self.ordered(rng, f"{field}.jointRange", _line(lk, "joint_range"))
            lower, upper = lo * scale, hi * scale
        elif isinstance(rng, (int, float)) and not isinstance(rng, bool):
            lower, upper = -abs(rng) * scale, abs(rng) * scale
        vel = _get(lk, "joint_velocity_range")
        if isinstance(vel, (int, float)) and not isinstance(vel, bool) and math.isfinite(vel):
            velocity = abs(float(vel)) * scale  # one number: the range [-v, v], as for jointRange
        elif vel is not None:
            lo, hi = self.ordered(vel, f"{field}.jointVelocityRange", _line(lk, "joint_velocity_range"))
            velocity = max(abs(lo), abs(hi)) * scale
        elif _get(lk, "max_joint_velocity") is not None:
            vel = _get(lk, "max_joint_velocity")
            line = _line(lk, "max_joint_velocity")
            if isinstance(vel, bool) or not isinstance(vel, (int, float)) or not math.isfinite(vel) or vel < 0:
                raise self.fail(f"{field}.maxJointVelocity", f"expected a speed of at least 0, got {vel!r}", line)
            velocity = float(vel) * scale
        return Limit(lower, upper, velocity)

    def ordered(self, value: Any, field: str, line: int | None) -> tuple[float, float]:
        """A range ``[min, max]``: two finite numbers, the first not above the second."""
        lo, hi = self.vector(value, field, 2, line)
        if lo > hi:
            raise self.fail(field, f"the range {list(value)} starts above its end", line)
        return float(lo), float(hi)


def read_body(
    doc: Any, source: str | os.PathLike[str] = "<body>"
) -> tuple[str, str | None, tuple[Link, ...], tuple[Joint, ...]]:
    """Name, root link, links and joints (file order) of a loaded ``.body`` document."""
    return _BodyReader(source, doc).read()


__all__ = ["JOINT_TYPES", "load_body_document", "read_body"]
