"""A validated scene as data: its models (joints, links), objects, trajectories, and the evaluator of
values that refer to joints and trajectories (what :mod:`.preprocess` builds from a loaded scene)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .problems import Problem
from .trajectory import Trajectory
from .transforms import (
    Ref,
    Transform,
    Value,
)

FloatArray = npt.NDArray[np.float64]

WORLD_NAMES = ("__WORLD__", "WORLD")
ROOT_NAMES = ("ROOT", "__ROOT__")
WORLD = "__WORLD__"
ROOT = "ROOT"

#: Joint keys (scene spelling → attribute), all default to unlimited.
JOINT_KEYS = {
    "minValue": "min_value",
    "maxValue": "max_value",
    "maxVelocity": "max_velocity",
    "maxAcceleration": "max_acceleration",
    "maxDeceleration": "max_deceleration",
    "maxJerk": "max_jerk",
    "maxEffort": "max_effort",
}
SHAPE_KINDS = ("sphere", "box", "cylinder", "orangeNet", "mesh")
TOP_KEYS = ("version", "models", "objects", "collisionIgnoreGroups", "trajectories")
ROBOT_KEYS = ("kind", "joints", "links", "partModels", "collisionIgnoreGroups", "constraints", "visuals")
BODY_KEYS = ("kind", "mass", "centerOfMass", "inertia", "shapes", "visuals")
INERTIA_KEYS = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")


@dataclasses.dataclass
class Joint:
    """A robot joint and its limits (unlimited = ±inf)."""

    name: str
    min_value: float = -math.inf
    max_value: float = math.inf
    max_velocity: float = math.inf
    max_acceleration: float = math.inf
    max_deceleration: float = math.inf
    max_jerk: float = math.inf
    max_effort: float = math.inf

    def canonical(self) -> dict[str, float]:
        return {key: getattr(self, attr) for key, attr in JOINT_KEYS.items()}


@dataclasses.dataclass
class Link:
    """A robot link: parent link (None = the object's frame), pose, parts."""

    name: str
    parent: str | None
    transform: Transform
    parts: tuple[str, ...] = ()
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Model:
    """A robot model or a rigid body.

    Attributes:
        name: Model name.
        kind: ``"robot"`` or ``"rigidBody"``.
        joints: Robot joints by name.
        links: Robot links, parent before child.
        part_models: Canonical rigid bodies used by links.
        collision_ignore_groups: Group name → link names.
        constraints: Constraint name → joint → coefficient.
        body: Canonical rigid body (rigidBody models).
        extras: Other keys (``visuals`` …), kept as they are.
    """

    name: str
    kind: str
    joints: dict[str, Joint] = dataclasses.field(default_factory=dict)
    links: dict[str, Link] = dataclasses.field(default_factory=dict)
    part_models: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    collision_ignore_groups: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    constraints: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    body: dict[str, Any] = dataclasses.field(default_factory=dict)
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def is_robot(self) -> bool:
        return self.kind == "robot"

    def canonical(self) -> dict[str, Any]:
        if not self.is_robot:
            return {"kind": "rigidBody", **self.body, **self.extras}
        links = {}
        for link in self.links.values():
            links[link.name] = {
                "parent": link.parent if link.parent is not None else ROOT,
                "pose": link.transform.canonical(),
                "parts": list(link.parts),
                **link.extras,
            }
        return {
            "kind": "robot",
            "joints": {name: j.canonical() for name, j in self.joints.items()},
            "links": links,
            "partModels": self.part_models,
            "collisionIgnoreGroups": self.collision_ignore_groups,
            "constraints": self.constraints,
            **self.extras,
        }


@dataclasses.dataclass
class SceneObject:
    """An instance of a model placed in the scene.

    Attributes:
        name: Object name.
        model: Model name.
        parent: Parent object, or None for the world.
        parent_link: Link of the parent object it hangs from, or None.
        transform: Pose relative to the parent.
        joint_values: Every joint of a robot model: a number or a reference.
        extras: Other keys, kept as they are.
        has_pose: The file gives its ``pose`` (without one it sits at its parent's origin; a robot
            under the world without one has no root pose).
    """

    name: str
    model: str
    parent: str | None
    parent_link: str | None
    transform: Transform
    joint_values: dict[str, Value] = dataclasses.field(default_factory=dict)
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)
    has_pose: bool = True

    @property
    def parent_name(self) -> str:
        """``__WORLD__``, ``obj`` or ``obj.link`` as in the file."""
        if self.parent is None:
            return WORLD
        return self.parent if self.parent_link is None else f"{self.parent}.{self.parent_link}"

    def canonical(self) -> dict[str, Any]:
        out: dict[str, Any] = {"model": self.model, "parent": self.parent_name}
        if self.has_pose:
            out["pose"] = self.transform.canonical()
        if self.joint_values:
            out["jointValues"] = {k: (v.canonical() if isinstance(v, Ref) else v) for k, v in self.joint_values.items()}
        out.update(self.extras)
        return out


@dataclasses.dataclass
class Scene:
    """A validated scene.

    Attributes:
        models: Models by name.
        objects: Objects by name, parent before child.
        trajectories: Trajectories by name.
        collision_ignore_groups: Group name → object or ``obj.link`` names.
        version: The file's ``version`` (or None).
        path: The file it was read from.
        problems: Warnings found while preprocessing.
        extras: Unknown top-level keys, kept as they are.
    """

    models: dict[str, Model]
    objects: dict[str, SceneObject]
    trajectories: dict[str, Trajectory]
    collision_ignore_groups: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    version: list[int] | None = None
    path: Path | None = None
    problems: list[Problem] = dataclasses.field(default_factory=list)
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)

    # ------------------------------------------------------------------ queries
    def model_of(self, obj: str) -> Model:
        return self.models[self.objects[obj].model]

    @property
    def robots(self) -> list[str]:
        """Names of the objects whose model is a robot (file order)."""
        return [name for name, o in self.objects.items() if self.models[o.model].is_robot]

    def trajectory_refs(self, value: Value, obj: str, _seen: frozenset[str] = frozenset()) -> set[Ref]:
        """Trajectory references a value depends on (following joint references)."""
        if not isinstance(value, Ref):
            return set()
        if value.kind == "trajectory":
            return {value}
        if value.name in _seen:
            return set()
        jv = self.objects[obj].joint_values.get(value.name, 0.0)
        return self.trajectory_refs(jv, obj, _seen | {value.name})

    def transform_trajectories(self, transform: Transform, obj: str) -> set[Ref]:
        """Trajectory references a transform of object ``obj`` depends on."""
        out: set[Ref] = set()
        for ref in transform.refs:
            out |= self.trajectory_refs(ref, obj)
        return out

    # ------------------------------------------------------------------ evaluation
    def evaluator(self, times: npt.ArrayLike) -> Evaluator:
        """Values of every reference at ``times`` (trajectories evaluated once each)."""
        return Evaluator(self, np.atleast_1d(np.asarray(times, dtype=np.float64)))

    # ------------------------------------------------------------------ output
    def canonical(self) -> dict[str, Any]:
        """The canonical scene as plain data (see the module documentation)."""
        out: dict[str, Any] = {}
        if self.version is not None:
            out["version"] = self.version
        out["models"] = {name: m.canonical() for name, m in self.models.items()}
        out["objects"] = {name: o.canonical() for name, o in self.objects.items()}
        out["collisionIgnoreGroups"] = self.collision_ignore_groups
        out["trajectories"] = {name: t.canonical() for name, t in self.trajectories.items()}
        out.update(self.extras)
        return out


class Evaluator:
    """Evaluates Values at fixed times, caching each trajectory's evaluation."""

    def __init__(self, scene: Scene, times: FloatArray) -> None:
        self.scene = scene
        self.times = times
        self._cache: dict[str, FloatArray] = {}

    def trajectory(self, name: str) -> FloatArray:
        """(N, D) values of trajectory ``name``."""
        if name not in self._cache:
            self._cache[name] = self.scene.trajectories[name].evaluate(self.times)
        return self._cache[name]

    def value(self, value: Value, obj: str, _depth: int = 0) -> FloatArray:
        """(N,) values of ``value`` for object ``obj``."""
        if not isinstance(value, Ref):
            return np.full(self.times.size, float(value))
        if value.kind == "trajectory":
            return self.trajectory(value.name)[:, value.index or 0]
        if _depth > len(self.scene.objects[obj].joint_values):
            raise ValueError(f"joint reference cycle in object {obj!r}")
        return self.value(self.scene.objects[obj].joint_values.get(value.name, 0.0), obj, _depth + 1)

    def lookup(self, obj: str) -> Callable[[Ref], FloatArray]:
        """A transform lookup for the references of object ``obj``."""
        return lambda ref: self.value(ref, obj)
