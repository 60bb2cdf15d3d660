"""The scene preprocessor: validate everything, report every problem, canonicalise.

:func:`preprocess` takes a reference-resolved document and returns a :class:`Scene`
(models, objects in parent-before-child order, parsed transforms and trajectories, all
defaults filled in) or raises :class:`~.problems.SceneError` listing every error with
its JSON path. Warnings (unknown keys, joint values outside their limits …) are kept in
``Scene.problems``. :meth:`Scene.canonical` gives the canonical scene: static poses as
``{xyz, qxyzw}`` with a unit quaternion, poses that depend on joints or trajectories as
``{chain: [element, …]}``, trajectories with absolute times and ``repeat: {t: T}``. An
object's pose is there when the file gives one (a robot without one has no root pose).

Kite semantics where the spec is silent: a model's ``kind`` is ``robot`` or
``rigidBody`` (inferred from its keys when absent); a link whose parent is absent,
``ROOT`` or ``__ROOT__`` hangs from the object's frame; an object's parent is the world
(absent, ``__WORLD__`` or ``WORLD``), another object ``obj`` or a link ``obj.link``; a
joint without a value is at 0; ``{trajectory: "name.i"}`` = ``{trajectory: "name",
index: i}``; ``{joint: name}`` is a joint of the same object.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...core.spatial import unit_rows
from .description import (
    BODY_KEYS,
    INERTIA_KEYS,
    JOINT_KEYS,
    ROBOT_KEYS,
    ROOT_NAMES,
    SHAPE_KINDS,
    TOP_KEYS,
    WORLD_NAMES,
    Joint,
    Link,
    Model,
    Scene,
    SceneObject,
)
from .loader import load
from .problems import PathPart, Problems, SceneError
from .trajectory import Trajectory, parse_trajectory
from .transforms import (
    AXES,
    IDENTITY,
    MIN_NORM,
    Ref,
    Transform,
    Value,
    _type_name,
    parse_transform,
    parse_value,
)


# =========================================================================== validation
def _shape_kind(node: dict[str, Any]) -> Any:
    """A shape's ``kind``, or the one its fields imply when it has none."""
    kind = node.get("kind")
    if kind is not None:
        return kind
    if "vertices" in node or "faces" in node:
        return "mesh"
    if "points" in node:
        return "orangeNet"
    if "size" in node:
        return "box"
    if "height" in node:
        return "cylinder"
    if "radius" in node:
        return "sphere"
    return None


class _Preprocessor:
    def __init__(self, problems: Problems) -> None:
        self.p = problems
        self.trajectories: dict[str, Trajectory] = {}
        self.broken_trajectories: set[str] = set()
        self.model_names: list[str] = []

    # ---------------------------------------------------------------- small checks
    def dict_of(self, node: Any, parts: Sequence[PathPart], what: str) -> dict[str, Any]:
        if node is None:
            return {}
        if not isinstance(node, dict):
            self.p.error(parts, f"expected an object of {what}, got {_type_name(node)}")
            return {}
        return node

    def number(
        self, node: Any, parts: Sequence[PathPart], *, default: float | None = None, minimum: float | None = None
    ) -> float | None:
        if node is None and default is not None:
            return default
        if isinstance(node, bool) or not isinstance(node, (int, float)) or math.isnan(node):
            self.p.error(parts, f"expected a number, got {_type_name(node) if node is not None else 'nothing'}")
            return None
        if minimum is not None and node < minimum:
            self.p.error(parts, f"must be at least {minimum:g}, got {node:g}")
            return None
        return float(node)

    def vector(
        self, node: Any, parts: Sequence[PathPart], default: Sequence[float] | None = None
    ) -> list[float] | None:
        if node is None and default is not None:
            return list(default)
        if (
            not isinstance(node, list)
            or len(node) != 3
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in node)
        ):
            self.p.error(parts, f"expected an array of 3 finite numbers, got {_short(node)}")
            return None
        return [float(x) for x in node]

    def unit_axis(self, node: Any, parts: Sequence[PathPart], default: str = "z") -> list[float] | None:
        if node is None:
            node = default
        if isinstance(node, str):
            if node not in AXES:
                self.p.error(parts, f"unknown axis {node!r}; expected 'x', 'y', 'z' or [x, y, z]")
                return None
            return list(AXES[node])
        vec = self.vector(node, parts)
        if vec is None:
            return None
        unit, norm = unit_rows(vec)
        if not (norm >= MIN_NORM and np.isfinite(unit).all()):
            self.p.error(parts, f"the axis {vec} has norm {float(norm):.3g}, cannot normalise it")
            return None
        return [float(x) for x in unit]

    def unknown_keys(self, node: Mapping[str, Any], parts: Sequence[PathPart], known: Iterable[str], what: str) -> None:
        known = list(known)
        for key in node:
            if key not in known:
                self.p.warning([*parts, key], f"unknown {what} key {key!r} (kept as is); known: {', '.join(known)}")

    # ---------------------------------------------------------------- values
    def value_ref(self, value: Value, parts: Sequence[PathPart], joints: Mapping[str, Any] | None) -> Value | None:
        """Check a reference; canonicalise ``name.i`` trajectory names."""
        if not isinstance(value, Ref):
            return value
        if value.kind == "joint":
            if joints is None:
                self.p.error(parts, f"{value}: joint references are only allowed in robots and robot objects")
                return None
            if value.name not in joints:
                self.p.error(parts, f"unknown joint {value.name!r}; joints: {', '.join(joints) or 'none'}")
                return None
            return value
        name, index = value.name, value.index
        if name in self.broken_trajectories or name.rpartition(".")[0] in self.broken_trajectories:
            return None  # its own errors are reported already
        if name not in self.trajectories:
            head, _, tail = name.rpartition(".")
            if head in self.trajectories and tail.isdigit() and index is None:
                name, index = head, int(tail)
            else:
                known = ", ".join(self.trajectories) or "none"
                self.p.error(parts, f"unknown trajectory {value.name!r}; trajectories: {known}")
                return None
        dims = self.trajectories[name].dims
        if index is None and dims != 1:
            self.p.error(parts, f"trajectory {name!r} has {dims} dimensions: give an index (or {name}.i)")
            return None
        if index is not None and index >= dims:
            self.p.error(parts, f"index {index} out of range: trajectory {name!r} has {dims} dimension(s)")
            return None
        return Ref("trajectory", name, index)

    def transform(
        self, node: Any, parts: Sequence[PathPart], joints: Mapping[str, Any] | None, *, allow_refs: bool = True
    ) -> Transform | None:
        t = parse_transform(node, parts, self.p, allow_refs=allow_refs)
        if t is None or t.is_static:
            return t
        elements = []
        ok = True
        for e in t.elements:
            values: list[Value] = []
            for i, v in enumerate(e.values):
                checked = self.value_ref(v, [*parts, e.kind, i] if len(e.values) > 1 else [*parts, e.kind], joints)
                if checked is None:
                    ok = False
                    checked = 0.0
                values.append(checked)
            elements.append(dataclasses.replace(e, values=tuple(values)))
        return dataclasses.replace(t, elements=tuple(elements)) if ok else None

    # ---------------------------------------------------------------- rigid bodies
    def rigid_body(self, node: Any, parts: list[PathPart], *, with_kind: bool) -> dict[str, Any]:
        if not isinstance(node, dict):
            self.p.error(parts, f"expected a rigid body object, got {_type_name(node)}")
            return {}
        known = BODY_KEYS if with_kind else BODY_KEYS[1:]
        self.unknown_keys(node, parts, known, "rigid body")
        out: dict[str, Any] = {}
        mass = node.get("mass")
        if isinstance(mass, (int, float)) and not isinstance(mass, bool) and mass < 0:
            self.p.error([*parts, "mass"], f"negative mass {mass:g}")
        else:
            out["mass"] = self.number(mass, [*parts, "mass"], default=0.0)
        out["centerOfMass"] = self.vector(node.get("centerOfMass"), [*parts, "centerOfMass"], (0.0, 0.0, 0.0))
        inertia = self.dict_of(node.get("inertia"), [*parts, "inertia"], "inertia components")
        canon_inertia = {}
        for key in inertia:
            if key not in INERTIA_KEYS:
                self.p.error([*parts, "inertia", key], f"unknown inertia key {key!r}; known: {', '.join(INERTIA_KEYS)}")
        for key in INERTIA_KEYS:
            minimum = 0.0 if key in ("ixx", "iyy", "izz") else None
            canon_inertia[key] = self.number(inertia.get(key), [*parts, "inertia", key], default=0.0, minimum=minimum)
        out["inertia"] = canon_inertia
        shapes = self.dict_of(node.get("shapes"), [*parts, "shapes"], "shapes")
        out["shapes"] = {name: self.shape(s, [*parts, "shapes", name]) for name, s in shapes.items()}
        for key in node:
            if key not in ("kind", "mass", "centerOfMass", "inertia", "shapes"):
                out[key] = node[key]
        return out

    def shape(self, node: Any, parts: list[PathPart]) -> dict[str, Any]:
        if not isinstance(node, dict):
            self.p.error(parts, f"expected a shape object, got {_type_name(node)}")
            return {}
        node = dict(node)
        geometry = node.pop("geometry", None)
        if isinstance(geometry, dict):  # the spec's {geometry: Sphere / Box / …} nesting
            node = {**geometry, **node}
        kind = _shape_kind(node)
        if kind not in SHAPE_KINDS:
            self.p.error([*parts, "kind"], f"unknown shape kind {kind!r}; known: {', '.join(SHAPE_KINDS)}")
            return {}
        out: dict[str, Any] = {"kind": kind}
        common = ("kind", "collides", "margin", "stickyForce", "visuals")
        own = self.shape_geometry(kind, node, parts, out)
        collides = node.get("collides", True)
        if not isinstance(collides, bool):
            self.p.error([*parts, "collides"], f"expected true or false, got {_short(collides)}")
        out["collides"] = collides
        out["margin"] = self.number(node.get("margin"), [*parts, "margin"], default=0.0, minimum=0.0)
        out["stickyForce"] = self.number(node.get("stickyForce"), [*parts, "stickyForce"], default=0.0, minimum=0.0)
        if "visuals" in node:
            out["visuals"] = node["visuals"]
        self.unknown_keys(node, parts, common + own, f"{kind} shape")
        return out

    def shape_geometry(
        self, kind: str, node: dict[str, Any], parts: list[PathPart], out: dict[str, Any]
    ) -> tuple[str, ...]:
        """The geometry fields of a shape of ``kind`` into ``out``; returns their keys."""
        if kind == "sphere":
            out["center"] = self.vector(node.get("center"), [*parts, "center"], (0.0, 0.0, 0.0))
            out["radius"] = self.number(node.get("radius"), [*parts, "radius"], minimum=0.0)
            return ("center", "radius")
        if kind == "box":
            t = self.transform(node.get("pose"), [*parts, "pose"], None, allow_refs=False)
            out["pose"] = t.canonical() if t is not None else None
            size = self.vector(node.get("size"), [*parts, "size"])
            if size is not None and min(size) < 0:
                self.p.error([*parts, "size"], f"negative box size {size}")
            out["size"] = size
            return ("pose", "size")
        if kind == "cylinder":
            out["center"] = self.vector(node.get("center"), [*parts, "center"], (0.0, 0.0, 0.0))
            out["radius"] = self.number(node.get("radius"), [*parts, "radius"], minimum=0.0)
            out["height"] = self.number(node.get("height"), [*parts, "height"], minimum=0.0)
            out["axis"] = self.unit_axis(node.get("axis"), [*parts, "axis"])
            return ("center", "radius", "height", "axis")
        if kind == "orangeNet":
            points = node.get("points")
            if not isinstance(points, list) or not points:
                self.p.error([*parts, "points"], "expected a non-empty array of points [x, y, z]")
                points = []
            out["points"] = [self.vector(pt, [*parts, "points", i]) for i, pt in enumerate(points)]
            out["radius"] = self.number(node.get("radius"), [*parts, "radius"], minimum=0.0)
            return ("points", "radius")
        self.mesh(node, parts, out)
        return ("vertices", "faces")

    def mesh(self, node: dict[str, Any], parts: list[PathPart], out: dict[str, Any]) -> None:
        vertices = node.get("vertices")
        if not isinstance(vertices, list):
            self.p.error([*parts, "vertices"], "expected an array of vertices [x, y, z]")
            vertices = []
        out["vertices"] = [self.vector(v, [*parts, "vertices", i]) for i, v in enumerate(vertices)]
        faces = node.get("faces")
        if not isinstance(faces, list):
            self.p.error([*parts, "faces"], "expected an array of faces [i, j, k]")
            faces = []
        for i, face in enumerate(faces):
            if not (
                isinstance(face, list)
                and len(face) >= 3
                and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(vertices) for x in face)
            ):
                self.p.error(
                    [*parts, "faces", i], f"expected vertex indices 0..{len(vertices) - 1}, got {_short(face)}"
                )
        out["faces"] = faces

    # ---------------------------------------------------------------- models
    def model(self, name: str, node: Any, parts: list[PathPart]) -> Model | None:
        if not isinstance(node, dict):
            self.p.error(parts, f"expected a model object, got {_type_name(node)}")
            return None
        kind = node.get("kind")
        if kind is None:
            robotish = any(k in node for k in ("joints", "links", "partModels", "constraints"))
            kind = "robot" if robotish else "rigidBody"
        if kind not in ("robot", "rigidBody"):
            self.p.error([*parts, "kind"], f"unknown model kind {kind!r}; expected 'robot' or 'rigidBody'")
            return None
        if kind == "rigidBody":
            return Model(name, "rigidBody", body=self.rigid_body(node, parts, with_kind=True))
        self.unknown_keys(node, parts, ROBOT_KEYS, "robot model")
        model = Model(name, "robot")
        model.extras = {k: v for k, v in node.items() if k not in ROBOT_KEYS[:-1]}
        for jname, jnode in self.dict_of(node.get("joints"), [*parts, "joints"], "joints").items():
            model.joints[jname] = self.joint(jname, jnode, [*parts, "joints", jname])
        parts_node = self.dict_of(node.get("partModels"), [*parts, "partModels"], "part models")
        for pname, pnode in parts_node.items():
            model.part_models[pname] = self.rigid_body(pnode, [*parts, "partModels", pname], with_kind=True)
        links: dict[str, Link] = {}
        for lname, lnode in self.dict_of(node.get("links"), [*parts, "links"], "links").items():
            link = self.link(lname, lnode, [*parts, "links", lname], model)
            if link is not None:
                links[lname] = link
        model.links = self.link_tree(links, [*parts, "links"])
        groups = self.dict_of(node.get("collisionIgnoreGroups"), [*parts, "collisionIgnoreGroups"], "groups")
        for gname, members in groups.items():
            where = [*parts, "collisionIgnoreGroups", gname]
            model.collision_ignore_groups[gname] = self.names(members, where, links, "link")
        constraints = self.dict_of(node.get("constraints"), [*parts, "constraints"], "constraints")
        for cname, coeffs in constraints.items():
            where = [*parts, "constraints", cname]
            out: dict[str, float] = {}
            for jname, c in self.dict_of(coeffs, where, "joint coefficients").items():
                if jname not in model.joints:
                    self.p.error([*where, jname], f"unknown joint {jname!r}; joints: {', '.join(model.joints)}")
                value = self.number(c, [*where, jname])
                if value is not None:
                    out[jname] = value
            model.constraints[cname] = out
        return model

    def joint(self, name: str, node: Any, parts: list[PathPart]) -> Joint:
        joint = Joint(name)
        if not isinstance(node, dict):
            self.p.error(parts, f"expected a joint object, got {_type_name(node)}")
            return joint
        self.unknown_keys(node, parts, JOINT_KEYS, "joint")
        for key, attr in JOINT_KEYS.items():
            if key in node:
                minimum = None if key in ("minValue", "maxValue") else 0.0
                value = self.number(node[key], [*parts, key], minimum=minimum)
                if value is not None:
                    setattr(joint, attr, value)
        if joint.min_value > joint.max_value:
            self.p.error(parts, f"minValue {joint.min_value:g} is greater than maxValue {joint.max_value:g}")
        return joint

    def link(self, name: str, node: Any, parts: list[PathPart], model: Model) -> Link | None:
        if not isinstance(node, dict):
            self.p.error(parts, f"expected a link object, got {_type_name(node)}")
            return None
        self.unknown_keys(node, parts, ("parent", "pose", "parts", "visuals"), "link")
        parent = node.get("parent")
        if parent is not None and not isinstance(parent, str):
            self.p.error([*parts, "parent"], f"expected a link name, got {_short(parent)}")
            parent = None
        if parent in ROOT_NAMES:
            parent = None
        transform = self.transform(node.get("pose"), [*parts, "pose"], model.joints)
        link_parts = node.get("parts", [])
        names = self.names(link_parts, [*parts, "parts"], model.part_models, "part model")
        extras = {k: v for k, v in node.items() if k not in ("parent", "pose", "parts")}
        return Link(name, parent, transform or IDENTITY, tuple(names), extras)

    def link_tree(self, links: dict[str, Link], parts: list[PathPart]) -> dict[str, Link]:
        """Links ordered parent before child; unknown parents and cycles reported."""
        for link in links.values():
            if link.parent is not None and link.parent not in links:
                self.p.error(
                    [*parts, link.name, "parent"],
                    f"unknown parent link {link.parent!r}; links: {', '.join(links)} (or ROOT)",
                )
                link.parent = None
        ordered: dict[str, Link] = {}
        visiting: list[str] = []

        def visit(name: str) -> None:
            if name in ordered:
                return
            if name in visiting:
                cycle = [*visiting[visiting.index(name) :], name]
                self.p.error([*parts, name, "parent"], f"link parents form a cycle: {' → '.join(cycle)}")
                return
            visiting.append(name)
            parent = links[name].parent
            if parent is not None:
                visit(parent)
            visiting.pop()
            if name not in ordered and not (parent is not None and parent not in ordered):
                ordered[name] = links[name]

        for name in links:
            visit(name)
        return ordered

    def names(self, node: Any, parts: list[PathPart], known: Mapping[str, Any], what: str) -> list[str]:
        if not isinstance(node, list) or not all(isinstance(x, str) for x in node):
            self.p.error(parts, f"expected an array of {what} names, got {_short(node)}")
            return []
        for i, name in enumerate(node):
            if name not in known:
                self.p.error([*parts, i], f"unknown {what} {name!r}; known: {', '.join(known) or 'none'}")
        return list(node)

    # ---------------------------------------------------------------- objects
    def objects(self, node: dict[str, Any], models: dict[str, Model], parts: list[PathPart]) -> dict[str, SceneObject]:
        objects: dict[str, SceneObject] = {}
        raw_parents: dict[str, Any] = {}
        for name, onode in node.items():
            where = [*parts, name]
            if not isinstance(onode, dict):
                self.p.error(where, f"expected an object, got {_type_name(onode)}")
                continue
            self.unknown_keys(onode, where, ("model", "parent", "pose", "jointValues"), "object")
            model_name = onode.get("model")
            model = models.get(model_name) if isinstance(model_name, str) else None
            if model is None:
                if not isinstance(model_name, str):
                    self.p.error([*where, "model"], f"expected a model name, got {_short(model_name)}")
                elif model_name not in self.model_names:
                    self.p.error(
                        [*where, "model"], f"unknown model {model_name!r}; models: {', '.join(self.model_names)}"
                    )
                continue
            joints = model.joints if model.is_robot else None
            transform = self.transform(onode.get("pose"), [*where, "pose"], joints)
            values: dict[str, Value] = {}
            jv = self.dict_of(onode.get("jointValues"), [*where, "jointValues"], "joint values")
            if jv and not model.is_robot:
                self.p.error([*where, "jointValues"], f"model {model.name!r} is a rigid body: it has no joints")
            elif model.is_robot:
                for jname, v in jv.items():
                    vparts = [*where, "jointValues", jname]
                    if jname not in model.joints:
                        self.p.error(
                            vparts, f"unknown joint {jname!r}; joints of {model.name!r}: {', '.join(model.joints)}"
                        )
                        continue
                    parsed = parse_value(v, vparts, self.p)
                    checked = self.value_ref(parsed, vparts, model.joints) if parsed is not None else None
                    if checked is not None:
                        values[jname] = checked
                values = {j: values.get(j, 0.0) for j in model.joints}
                self.joint_cycles(values, [*where, "jointValues"])
                self.check_limits(model, values, [*where, "jointValues"])
            extras = {k: v for k, v in onode.items() if k not in ("model", "parent", "pose", "jointValues")}
            has_pose = onode.get("pose") is not None
            objects[name] = SceneObject(name, model.name, None, None, transform or IDENTITY, values, extras, has_pose)
            raw_parents[name] = onode.get("parent")
        for name, parent in raw_parents.items():
            self.object_parent(objects[name], parent, objects, models, [*parts, name, "parent"])
        return self.object_tree(objects, parts)

    def joint_cycles(self, values: dict[str, Value], parts: list[PathPart]) -> None:
        for start in values:
            seen = [start]
            v = values[start]
            while isinstance(v, Ref) and v.kind == "joint":
                if v.name in seen:
                    if v.name == start:
                        cycle = " → ".join([*seen, v.name])
                        self.p.error([*parts, start], f"joint values refer to each other in a cycle: {cycle}")
                    break
                seen.append(v.name)
                v = values.get(v.name, 0.0)

    def check_limits(self, model: Model, values: dict[str, Value], parts: list[PathPart]) -> None:
        for jname, v in values.items():
            joint = model.joints[jname]
            if isinstance(v, Ref) and v.kind == "trajectory":
                traj = self.trajectories[v.name]
                column = traj.f[:, v.index or 0]
                lo, hi = float(np.nanmin(column)), float(np.nanmax(column))
            elif isinstance(v, Ref):
                continue
            else:
                lo = hi = float(v)
            if lo < joint.min_value or hi > joint.max_value:
                self.p.warning(
                    [*parts, jname],
                    f"values {lo:g}..{hi:g} go beyond the joint limits [{joint.min_value:g}, {joint.max_value:g}]",
                )

    def object_parent(
        self,
        obj: SceneObject,
        parent: Any,
        objects: dict[str, SceneObject],
        models: dict[str, Model],
        parts: list[PathPart],
    ) -> None:
        if parent is None or parent in WORLD_NAMES:
            return
        if not isinstance(parent, str):
            self.p.error(parts, f"expected '__WORLD__', an object or 'object.link', got {_short(parent)}")
            return
        if parent in objects:
            obj.parent = parent
            return
        for i in range(len(parent)):
            if parent[i] == "." and parent[:i] in objects:
                owner = objects[parent[:i]]
                link = parent[i + 1 :]
                if link in models[owner.model].links:
                    obj.parent, obj.parent_link = owner.name, link
                    return
                self.p.error(parts, f"object {owner.name!r} has no link {link!r}")
                return
        self.p.error(parts, f"unknown parent {parent!r}: not '__WORLD__', an object or 'object.link'")

    def object_tree(self, objects: dict[str, SceneObject], parts: list[PathPart]) -> dict[str, SceneObject]:
        ordered: dict[str, SceneObject] = {}
        for name in objects:
            chain: list[str] = []
            current: str | None = name
            while current is not None and current not in ordered:
                if current in chain:
                    cycle = [*chain[chain.index(current) :], current]
                    self.p.error([*parts, name, "parent"], f"object parents form a cycle: {' → '.join(cycle)}")
                    break
                chain.append(current)
                current = objects[current].parent
            else:
                for n in reversed(chain):
                    ordered[n] = objects[n]
        return ordered

    def groups(self, node: Any, objects: dict[str, SceneObject], models: dict[str, Model]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        parts: list[PathPart] = ["collisionIgnoreGroups"]
        for gname, members in self.dict_of(node, parts, "groups").items():
            where = [*parts, gname]
            if not isinstance(members, list) or not all(isinstance(x, str) for x in members):
                self.p.error(where, f"expected an array of object or 'object.link' names, got {_short(members)}")
                continue
            for i, member in enumerate(members):
                obj, _, link = member.partition(".")
                if member in objects:
                    continue
                if obj in objects and link in models[objects[obj].model].links:
                    continue
                # Kite ignores such members (presy_scene.json lists objects it does not have).
                self.p.warning([*where, i], f"unknown object or object.link {member!r} (ignored)")
            out[gname] = list(members)
        return out

    # ---------------------------------------------------------------- scene
    def scene(self, data: Any) -> tuple[Scene | None, bool]:
        if not isinstance(data, dict):
            self.p.error([], f"a scene is an object with models, objects and trajectories, got {_type_name(data)}")
            return None, False
        if not any(k in data for k in ("models", "objects", "trajectories")):
            keys = ", ".join(list(data)[:8]) or "none"
            self.p.error([], f"not a scene: no 'models', 'objects' or 'trajectories' key (keys: {keys})")
            return None, False
        self.unknown_keys(data, [], TOP_KEYS, "scene")
        version = data.get("version")
        if version is not None and not (
            isinstance(version, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in version)
        ):
            self.p.error(["version"], f"expected an array of integers such as [1, 2, 3], got {_short(version)}")
            version = None
        for name, tnode in self.dict_of(data.get("trajectories"), ["trajectories"], "trajectories").items():
            traj = parse_trajectory(tnode, ["trajectories", name], self.p, name)
            if traj is not None:
                self.trajectories[name] = traj
            else:
                self.broken_trajectories.add(name)
        model_nodes = self.dict_of(data.get("models"), ["models"], "models")
        self.model_names = list(model_nodes)
        models: dict[str, Model] = {}
        for name, mnode in model_nodes.items():
            model = self.model(name, mnode, ["models", name])
            if model is not None:
                models[name] = model
        objects = self.objects(self.dict_of(data.get("objects"), ["objects"], "objects"), models, ["objects"])
        groups = self.groups(data.get("collisionIgnoreGroups"), objects, models)
        extras = {k: v for k, v in data.items() if k not in TOP_KEYS}
        scene = Scene(models, objects, self.trajectories, groups, version, extras=extras)
        return scene, True


def _short(node: Any, limit: int = 60) -> str:
    text = repr(node)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def preprocess(
    data: Any, path: str | Path | None = None, origins: dict[tuple[PathPart, ...], str] | None = None
) -> Scene:
    """Validate a reference-resolved scene document and return the :class:`Scene`.

    Raises:
        SceneError: listing every error with its JSON path (warnings included in
            ``problems``).
    """
    problems = Problems(origins)
    pre = _Preprocessor(problems)
    scene, _ = pre.scene(data)
    if problems.errors or scene is None:
        raise SceneError(path, problems.items)
    scene.path = Path(path) if path is not None else None
    scene.problems = problems.warnings
    return scene


def load_scene(path: str | os.PathLike[str], text: str | None = None) -> Scene:
    """Load ``path`` (resolving references) and preprocess it.

    Raises:
        ReadError: syntax errors (line and column), unreadable files.
        SceneError: every problem, each with its JSON path.
    """
    loaded = load(path, text)
    return preprocess(loaded.data, loaded.path, loaded.origins)
