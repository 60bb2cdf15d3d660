"""The package's robot model built into a MuJoCo model: bodies, joints, masses, collision shapes, servos.

One body per link, placed by its joint's origin; revolute and continuous joints become
hinges, prismatic ones slides, a floating joint a free joint, a planar joint two slides
and a hinge; fixed joints weld the child to its parent. Masses, centres of mass and
inertias are the model's own (URDF ``<inertial>``, ``.body`` ``mass`` / ``centerOfMass`` /
``inertia``); a link that states none gets :data:`MIN_MASS` so that MuJoCo can move it
(the notes say which). Collision shapes become geoms: boxes, spheres, cylinders and
capsules as they are; meshes through :mod:`..core.mesh_files` (MuJoCo collides their
convex hulls). Mimic joints are equality constraints on their leader. A floor plane at
z = 0. Self-collision is checked for the pairs ``check`` checks: pairs of adjacent
bodies, pairs already touching in the zero pose and an SRDF's disabled pairs are left
out. One PD servo per driven joint: a ``general`` actuator whose force is
``kp (q* − q) + kd (q̇* − q̇)`` with the control ``(kp q* + kd q̇*) / s``, ``s`` the larger of
the two gains (one control per joint carries both the target position and velocity, and
stays of their size whatever the gains).
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionValueError, ReadError, require
from ..core.inputs import interruptible
from ..core.joint_limits import JointLimits
from ..core.kinematics import Box, Capsule, Cylinder, Mesh, RobotModel, Sphere
from ..core.kinematics.robot_parts import Joint, Link, Visual, inertia_fault
from ..core.mesh_files import load_mesh, package_roots, resolve
from ..core.model import JointLimit
from ..core.notices import NoticeKind, notify
from ..safety.pairs import adjacent_bodies, read_srdf, rigid_bodies
from ..safety.shapes import mesh_form

FloatArray = npt.NDArray[np.float64]

#: Mass (kg) and inertia (kg·m²) given to a moving link whose model states none.
MIN_MASS = 1e-3
MIN_INERTIA = 1e-6
#: The least mass (kg) MuJoCo takes for a body (its ``mjMINVAL``): a link stating less is refused.
LEAST_MASS = 1e-15
#: The least largest principal moment (kg·m²) of a link's inertia that is simulated: below it
#: the moments are at MuJoCo's floor (1e-15, which it takes for none), and the verdict follows
#: rounding, not the model. Measured on the example biped (every mass and inertia scaled): at
#: 1e-9 (least such moment 1.5e-14) the run is the unscaled one to the reported digits; at 1e-10
#: the motion differs, and from 1e-12 to 1e-13 the robot falls where at 1e-14 it stands.
TRUSTED_INERTIA = 1e-14
#: The floor geom's name.
FLOOR = "floor"
#: The floor contact's time constant (s) and damping ratio (MuJoCo's ``solref``).
FLOOR_SOLREF = (0.005, 1.0)
#: Contact bits: the floor collides with every link; links collide with each other only
#: where a pair is not excluded.
_ALL = 1


def mujoco_module() -> Any:
    """The MuJoCo Python bindings (the ``sim`` extra)."""
    return require("mujoco", "simulating a motion", package="mujoco", extra="sim")


@dataclasses.dataclass(frozen=True)
class Gains:
    """PD gains of one joint's servo: ``p`` (N·m/rad or N/m), ``d`` (N·m·s/rad or N·s/m)."""

    p: float
    d: float


@dataclasses.dataclass
class BuiltModel:
    """A compiled MuJoCo model of a robot and what the simulation needs to drive it.

    Attributes:
        spec: The MuJoCo model specification (``spec.to_xml()`` is the MJCF).
        model: The compiled ``mujoco.MjModel``.
        robot: The package's robot model it was built from.
        floating: Whether the root link floats (a free joint).
        servo_joints: The joints with a servo, in actuator order.
        qpos_index, qvel_index: Each servo joint's address in ``qpos`` / ``qvel``.
        gains: Each servo joint's gains, in actuator order.
        effort_limits: Each servo joint's effort limit from the model (NaN: none stated).
        link_bodies: Link name → MuJoCo body id (links welded to a parent share its body).
        notes: What the builder had to decide (left-out pairs, masses given).
    """

    spec: Any
    model: Any
    robot: RobotModel
    floating: bool
    servo_joints: tuple[str, ...]
    qpos_index: npt.NDArray[np.intp]
    qvel_index: npt.NDArray[np.intp]
    gains: tuple[Gains, ...]
    effort_limits: FloatArray
    link_bodies: dict[str, int]
    notes: list[str] = dataclasses.field(default_factory=list)

    def set_gains(self, gains: Mapping[str, Gains]) -> None:
        """Give each servo its gains (the model is compiled again by the next ``spec.compile()``)."""
        self.gains = tuple(gains[n] for n in self.servo_joints)
        for name, g in zip(self.servo_joints, self.gains, strict=True):
            _set_servo(self.spec.actuator(name), g)
        self.model = compiled(self.spec)

    def to_xml(self) -> str:
        """The model as MJCF text, which plain MuJoCo loads."""
        return str(_quietly(self.spec.to_xml)[0])  # it compiles the model again: qhull was heard by build()


def _wxyz(quat_xyzw: FloatArray) -> list[float]:
    x, y, z, w = (float(v) for v in quat_xyzw)
    return [w, x, y, z]


class _Builder:
    """Builds the MjSpec link by link; one instance per model."""

    def __init__(self, mujoco: Any, robot: RobotModel, package_paths: Iterable[str | os.PathLike[str]]) -> None:
        self.mj = mujoco
        self.robot = robot
        self.spec = mujoco.MjSpec()
        self.spec.modelname = robot.name or "robot"
        self.spec.compiler.inertiafromgeom = mujoco.mjtInertiaFromGeom.mjINERTIAFROMGEOM_FALSE
        self.spec.compiler.autolimits = True
        self.spec.compiler.degree = False  # ranges in radians, as the robot model holds them
        self.bodies: dict[str, Any] = {}
        self.link_body: dict[str, str] = {}  # link → the body it is part of (welded links share one)
        self.massless: list[str] = []
        self.adjusted: list[str] = []  # links whose inertia was made one MuJoCo takes (:func:`_principal_inertia`)
        self.meshes: dict[tuple[str, tuple[float, ...]], str] = {}
        self.converted: list[str] = []  # mesh files of formats MuJoCo does not read, converted to triangles
        #: The model file (or the model's name) that messages name.
        self.source = robot.source or robot.name or "robot model"
        source = Path(robot.source) if robot.source else None
        self.base = source.parent if source is not None and source.is_file() else None
        self.roots = package_roots(package_paths)

    # ------------------------------------------------------------------ bodies
    def root(
        self, floating: bool, position: Sequence[float] | FloatArray, quat_xyzw: Sequence[float] | FloatArray
    ) -> None:
        link = self.robot.links[0]
        if link.name == "world":  # the model's root is the world itself: its children hang on MuJoCo's
            if floating:
                raise MotionValueError(f"{self.robot.source or self.robot.name}: the root link 'world' cannot float")
            self.bodies[link.name] = self.spec.worldbody
            self.link_body[link.name] = link.name
            self._fill_shapes(self.spec.worldbody, link)
            return
        pos = [float(v) for v in position]
        body = self.spec.worldbody.add_body(name=link.name, pos=pos, quat=_wxyz(np.asarray(quat_xyzw)))
        if floating:
            body.add_freejoint(name="root")
        self.bodies[link.name] = body
        self.link_body[link.name] = link.name
        self._fill(body, link)

    def joint(self, joint: Joint, link: Link) -> None:
        parent = self.bodies[self.link_body[joint.parent]]
        body = parent.add_body(name=link.name, pos=list(joint.origin_xyz), quat=_wxyz(joint.origin_quat))
        self.bodies[link.name] = body
        self.link_body[link.name] = link.name
        axis = [float(v) for v in joint.axis]
        jt = self.mj.mjtJoint
        if joint.type in ("revolute", "continuous"):
            limited = joint.type == "revolute" and joint.limit is not None and _has_range(joint)
            j = body.add_joint(name=joint.name, type=jt.mjJNT_HINGE, axis=axis)
            if limited:
                assert joint.limit is not None
                j.range = [float(joint.limit.lower or 0.0), float(joint.limit.upper or 0.0)]
                j.limited = self.mj.mjtLimited.mjLIMITED_TRUE
            else:
                j.limited = self.mj.mjtLimited.mjLIMITED_FALSE
        elif joint.type == "prismatic":
            j = body.add_joint(name=joint.name, type=jt.mjJNT_SLIDE, axis=axis)
            if joint.limit is not None and _has_range(joint):
                j.range = [float(joint.limit.lower or 0.0), float(joint.limit.upper or 0.0)]
                j.limited = self.mj.mjtLimited.mjLIMITED_TRUE
        elif joint.type == "floating":
            body.add_freejoint(name=joint.name)
        elif joint.type == "planar":
            u, v = _plane_axes(joint.axis)
            body.add_joint(name=f"{joint.name}/x", type=jt.mjJNT_SLIDE, axis=list(u))
            body.add_joint(name=f"{joint.name}/y", type=jt.mjJNT_SLIDE, axis=list(v))
            body.add_joint(name=f"{joint.name}/theta", type=jt.mjJNT_HINGE, axis=axis)
        self._fill(body, link)

    def _fill(self, body: Any, link: Link) -> None:
        inertial = link.inertial
        if inertial is not None and 0 < inertial.mass < LEAST_MASS:
            raise ReadError(
                self.source,
                f"link {link.name!r}: cannot simulate a mass of {inertial.mass:g} kg, below the {LEAST_MASS:g} kg "
                f"MuJoCo takes: state its real mass, or 0 for a massless link (simulated as {MIN_MASS * 1000:g} g)",
                line=inertial.line,
            )
        if inertial is not None and inertial.mass > 0:
            body.mass = float(inertial.mass)
            body.ipos = [float(v) for v in inertial.com]
            i = np.asarray(inertial.inertia, dtype=np.float64)
            fault = inertia_fault(i)
            if fault is not None:  # the reader warned: MuJoCo cannot integrate it
                raise ReadError(self.source, f"link {link.name!r}: cannot simulate: {fault[0]}", line=inertial.line)
            largest = float(np.linalg.eigvalsh((i + i.T) / 2)[-1]) if i.any() else 0.0
            if 0 < largest < TRUSTED_INERTIA:
                raise ReadError(
                    self.source,
                    f"link {link.name!r}: cannot simulate an inertia this small (largest principal moment "
                    f"{largest:g} kg·m², below {TRUSTED_INERTIA:g}): MuJoCo's floor of 1e-15 would decide how it "
                    f"turns, not the model; state its real inertia, or 0 for none (simulated as {MIN_INERTIA:g} kg·m²)",
                    line=inertial.line,
                )
            principal = _principal_inertia(i) if i.any() else None
            if not i.any():
                body.inertia = [MIN_INERTIA] * 3
            elif principal is not None:  # as MuJoCo takes it
                body.inertia, body.iquat, adjusted = principal
                if adjusted:
                    self.adjusted.append(link.name)
            else:
                body.fullinertia = [float(v) for v in (i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2])]
            body.explicitinertial = True
        else:
            body.mass = MIN_MASS
            body.inertia = [MIN_INERTIA] * 3
            body.explicitinertial = True
            self.massless.append(link.name)
        self._fill_shapes(body, link)

    def _fill_shapes(self, body: Any, link: Link) -> None:
        for k, shape in enumerate(link.collisions):
            self._geom(body, link.name, k, shape)

    # ------------------------------------------------------------------ geoms
    def _geom(self, body: Any, link: str, k: int, shape: Visual) -> None:
        gt = self.mj.mjtGeom
        g = shape.geometry
        geom = body.add_geom(name=f"{link}/{k}", pos=list(shape.origin_xyz), quat=_wxyz(shape.origin_quat))
        geom.contype = _ALL
        geom.conaffinity = _ALL
        geom.group = 3
        if isinstance(g, Box):
            geom.type = gt.mjGEOM_BOX
            geom.size = [float(v) / 2 for v in g.size]
        elif isinstance(g, Sphere):
            geom.type = gt.mjGEOM_SPHERE
            geom.size = [float(g.radius), 0.0, 0.0]
        elif isinstance(g, Cylinder):
            geom.type = gt.mjGEOM_CYLINDER
            geom.size = [float(g.radius), float(g.length) / 2, 0.0]
        elif isinstance(g, Capsule):
            geom.type = gt.mjGEOM_CAPSULE
            geom.size = [float(g.radius), float(g.length) / 2, 0.0]
        elif isinstance(g, Mesh):
            geom.type = gt.mjGEOM_MESH
            geom.meshname = self._mesh(g, link)

    def _mesh(self, mesh: Mesh, link: str) -> str:
        """The MuJoCo mesh of a collision mesh (read once per file and scale).

        MuJoCo collides a mesh's convex hull, which a flat mesh (or one thinner than :data:`NARROW`
        of its extent, whose hull MuJoCo cannot make precisely) lacks: it is given as the hull of
        its triangles' corners moved :data:`FLAT_THICKNESS` of its extent to either side of its
        plane (a notice says so); a mesh without a triangle that has an area (its vertices on a
        line, or one point) is refused, as ``check`` refuses it.
        """
        scale = tuple(float(v) for v in mesh.scale)
        key = (mesh.filename, scale)
        if key in self.meshes:
            return self.meshes[key]
        where = f"link {link!r}: collision mesh {mesh.filename}"
        path = resolve(mesh.filename, self.base, self.roots)
        if path is None:
            raise ReadError(self.source, f"{where} not found")
        try:
            tri = load_mesh(path, scale, extra="sim")
        except ValueError as exc:  # its text names the mesh file
            raise ReadError(self.source, f"link {link!r}: collision mesh {exc}") from None
        if path.suffix.lower() not in (".stl", ".obj") and path.name not in self.converted:
            self.converted.append(path.name)
        vertices = np.asarray(tri.vertices, dtype=np.float64)
        faces = np.asarray(tri.faces, dtype=np.int64)
        rank, has_area = mesh_form(vertices, faces, thin=NARROW)
        if not has_area.any():
            shape = "vertices lie on a line" if rank else "vertices are one point"
            raise ReadError(self.source, f"{where}: no triangle has an area (its {shape})")
        name = f"mesh{len(self.meshes)}"
        if rank < 3:
            corners = np.unique(vertices[faces[has_area]].reshape(-1, 3), axis=0)
            slab, thickness = _flat_slab(corners)
            self.spec.add_mesh(name=name, uservert=slab.ravel().tolist())  # MuJoCo makes the hull's faces
            notify(
                NoticeKind.READ_CHOICE,
                f"{self.source}: {where} is flat (no convex hull): simulated as the hull of its triangles "
                f"{thickness:.2g} m thick",
            )
        else:
            self.spec.add_mesh(name=name, uservert=vertices.ravel().tolist(), userface=faces.ravel().tolist())
        self.meshes[key] = name
        return name

    # ------------------------------------------------------------------ the rest
    def floor(self) -> None:
        gt = self.mj.mjtGeom
        floor = self.spec.worldbody.add_geom(name=FLOOR, type=gt.mjGEOM_PLANE, size=[0.0, 0.0, 0.05])
        floor.contype = _ALL
        floor.conaffinity = _ALL
        floor.rgba = [0.7, 0.7, 0.7, 1.0]
        # A hard floor: its contacts take its time constant (MuJoCo's default 20 ms lets a small
        # robot's foot sink and tilt millimetres, so that it topples on one foot off centre).
        floor.solref = list(FLOOR_SOLREF)
        floor.solmix = 1e6

    def mimics(self) -> None:
        et = self.mj.mjtEq
        for j in self.robot.joints:
            if j.mimic is not None and j.type in ("revolute", "continuous", "prismatic"):
                eq = self.spec.add_equality(type=et.mjEQ_JOINT, name1=j.name, name2=j.mimic.joint)
                # MuJoCo: q1 = polycoef[0] + polycoef[1] q2 (+ higher terms, here 0)
                eq.data[:5] = [float(j.mimic.offset), float(j.mimic.multiplier), 0.0, 0.0, 0.0]

    def exclude(self, pairs: Iterable[tuple[str, str]]) -> None:
        done: set[frozenset[str]] = set()
        for a, b in pairs:
            ba, bb = self.link_body[a], self.link_body[b]
            key = frozenset((ba, bb))
            if ba != bb and key not in done:
                done.add(key)
                self.spec.add_exclude(bodyname1=ba, bodyname2=bb)

    def silence(self, links: Iterable[str]) -> None:
        """Links that collide with nothing: their geoms neither touch nor are touched."""
        for link in links:
            for geom in self.bodies[link].geoms:
                geom.contype = 0
                geom.conaffinity = 0

    def servos(self, joints: Sequence[str], gains: Sequence[Gains]) -> None:
        for name, g in zip(joints, gains, strict=True):
            act = self.spec.add_actuator(name=name, target=name)
            act.trntype = self.mj.mjtTrn.mjTRN_JOINT
            act.gaintype = self.mj.mjtGain.mjGAIN_FIXED
            act.biastype = self.mj.mjtBias.mjBIAS_AFFINE
            _set_servo(act, g)


def _set_servo(act: Any, g: Gains) -> None:
    """force = s·u − kp·q − kd·q̇ with u = (kp·q* + kd·q̇*) / s, s the larger gain (see :func:`servo_control`)."""
    act.gainprm[0] = _scale(g.p, g.d)
    act.biasprm[:3] = [0.0, -g.p, -g.d]


def _scale(p: float, d: float) -> float:
    """What a servo's control is multiplied by: the larger of its gains (1 when both are 0)."""
    return max(p, d) if max(p, d) > 0 else 1.0


#: The least principal moment MuJoCo is given, as a share of the largest and in kg·m²: MuJoCo
#: refuses a moment of 0 (the readers take one: a thin rod's, or one that rounding made slightly
#: negative) and one below 1e-15 kg·m².
_LEAST_MOMENT = 1e-9
_LEAST_INERTIA = 1e-14
#: Below this share of the largest moment, the triangle inequality's margin is rounding: MuJoCo,
#: which finds the moments itself, could find it broken.
_TRIANGLE_MARGIN = 1e-9


def _principal_inertia(inertia: FloatArray) -> tuple[list[float], list[float], bool] | None:
    """An inertia the readers take (within :data:`..core.kinematics.robot_parts.INERTIA_TOLERANCE`
    of one a body can have) as MuJoCo takes it, or None where MuJoCo takes it as it is.

    MuJoCo refuses a principal moment of 0 or below and a triangle inequality broken by more
    than 1e-15 kg·m²: the moments are raised to :data:`_LEAST_MOMENT` of the largest (at least
    :data:`_LEAST_INERTIA`), and the largest lowered to the sum of the other two where it is
    above it. Returns the principal moments, their axes as MuJoCo's quaternion (w, x, y, z) and
    whether a moment was changed.
    """
    moments, axes = np.linalg.eigh((inertia + inertia.T) / 2)
    a, b, c = (float(m) for m in moments)
    least = max(c * _LEAST_MOMENT, _LEAST_INERTIA)
    if a > least and a + b - c > c * _TRIANGLE_MARGIN:
        return None
    kept = [max(a, least), max(b, least), max(c, least)]
    kept[2] = min(kept[2], kept[0] + kept[1])
    if np.linalg.det(axes) < 0:
        axes[:, 0] = -axes[:, 0]
    quat = np.empty(4)
    mujoco_module().mju_mat2Quat(quat, np.ascontiguousarray(axes).ravel())
    return kept, quat.tolist(), kept != [a, b, c]


#: The thickness a flat mesh is simulated with, as a share of its largest extent.
FLAT_THICKNESS = 1e-3
#: A mesh thinner than this share of its largest extent is flat to the simulation: MuJoCo's
#: convex hull (qhull) of one below about 5e-8 is imprecise, so it is simulated as a flat
#: mesh is (``check``'s rule, :func:`..safety.shapes.mesh_form`, with this share).
NARROW = 1e-6


def _flat_slab(points: FloatArray) -> tuple[FloatArray, float]:
    """Points in a plane (or nearly: a flat mesh's corners) moved to either side of it by half of
    :data:`FLAT_THICKNESS` of their extent: the corners of a slab whose hull MuJoCo can make; and
    the slab's thickness (m)."""
    centred = points - points.mean(axis=0)
    normal = np.linalg.svd(centred, full_matrices=False)[2][-1]  # the direction they spread least in
    thickness = FLAT_THICKNESS * float(np.ptp(points, axis=0).max())
    return np.vstack([points + normal * thickness / 2, points - normal * thickness / 2]), thickness


def _effort_limit(limit: JointLimit | None) -> float:
    """A joint's stated effort limit, NaN when it states none (0 is "unset": see core/joint_limits)."""
    return float(limit.effort) if limit is not None and limit.effort is not None else float("nan")


def _has_range(joint: Joint) -> bool:
    limit = joint.limit
    return (
        limit is not None
        and limit.lower is not None
        and limit.upper is not None
        and float(limit.upper) > float(limit.lower)
    )


def _plane_axes(normal: FloatArray) -> tuple[FloatArray, FloatArray]:
    n = np.asarray(normal, dtype=np.float64)
    helper = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = np.cross(n, helper)
    u /= np.linalg.norm(u)
    return u, np.cross(n, u)


def servo_control(targets: FloatArray, velocities: FloatArray, gains: Sequence[Gains]) -> FloatArray:
    """The actuator controls (N, J) that make each servo pull towards ``targets`` at ``velocities``.

    A control is ``(kp·q* + kd·q̇*) / s`` with ``s`` the larger gain: each term is the target's
    value scaled by at most 1, so a control stays of the size of the motion's values whatever
    the gains (a control ``q* + (kd / kp)·q̇*`` grows without bound as kp goes to 0, and MuJoCo
    sets every control to 0 for a step where one exceeds 1e10).
    """
    p = np.array([g.p for g in gains])
    d = np.array([g.d for g in gains])
    scale = np.array([_scale(g.p, g.d) for g in gains])
    return np.asarray((p / scale) * targets + (d / scale) * velocities)


def build(
    robot: RobotModel,
    *,
    joints: Sequence[str],
    gains: Mapping[str, Gains],
    floating: bool,
    root_position: Sequence[float] | FloatArray = (0.0, 0.0, 0.0),
    root_quat: Sequence[float] | FloatArray = (0.0, 0.0, 0.0, 1.0),
    srdf: str | os.PathLike[str] | None = None,
    package_paths: Iterable[str | os.PathLike[str]] = (),
    timestep: float = 0.001,
) -> BuiltModel:
    """The MuJoCo model of ``robot`` with a servo on each of ``joints`` (model order kept).

    Args:
        joints: The joints to drive (each a single-value joint of the model).
        gains: Each driven joint's gains.
        floating: Give the root link a free joint (else it is fixed to the world).
        root_position, root_quat: The root link's pose at the start (quaternion x, y, z, w).
        srdf: An SRDF whose disabled pairs are left out of self-collision.
        timestep: The physics step (s).

    Raises:
        MissingDependencyError: No MuJoCo (the ``sim`` extra).
        ReadError: A mesh or SRDF that cannot be read.
        MotionValueError: A driven joint the model lacks, or MuJoCo refuses the model.
    """
    mj = mujoco_module()
    b = _Builder(mj, robot, package_paths)
    b.root(floating, root_position, root_quat)
    links = {link.name: link for link in robot.links}
    for joint in robot.joints:  # parent before child
        b.joint(joint, links[joint.child])
    b.floor()
    b.mimics()
    notes: list[str] = []
    disabled, silent, touching_rule = _disabled_pairs(robot, srdf, notes)
    b.exclude(disabled)
    b.silence(silent)
    for name in joints:
        j = robot.joint(name)
        if j.type not in ("revolute", "continuous", "prismatic") or j.mimic is not None:
            raise MotionValueError(f"joint {name} of {robot.name} is not a single-value joint a servo can drive")
    b.servos(joints, [gains[n] for n in joints])
    spec = b.spec
    spec.option.timestep = float(timestep)
    spec.option.integrator = mj.mjtIntegrator.mjINT_IMPLICITFAST
    model, said = _compile(mj, spec, robot)
    if said:  # a later compile of the same meshes says the same: said once
        _qhull_notice(said, robot)
    touching = _touching_at_zero(mj, model) if touching_rule else set()
    if touching:
        b.exclude(_pair(t) for t in touching)
        model = _compile(mj, spec, robot)[0]
        notes.append(
            f"{len(touching)} link pairs touching in the zero pose are not collided: "
            + ", ".join("–".join(sorted(t)) for t in sorted(touching, key=sorted)[:6])
            + (" …" if len(touching) > 6 else "")
        )
    if b.converted:
        notes.append(
            f"{len(b.converted)} mesh files of formats MuJoCo does not read were converted to triangles: "
            + ", ".join(b.converted[:6])
            + (" …" if len(b.converted) > 6 else "")
        )
    if b.adjusted:
        notes.append(
            f"{len(b.adjusted)} links' inertias were nudged into ones MuJoCo takes (a principal moment of about 0 "
            "raised, the largest lowered to the sum of the other two): "
            + ", ".join(b.adjusted[:6])
            + (" …" if len(b.adjusted) > 6 else "")
        )
    if b.massless:
        notes.append(
            f"{len(b.massless)} links state no mass and were given {MIN_MASS * 1000:g} g: "
            + ", ".join(b.massless[:6])
            + (" …" if len(b.massless) > 6 else "")
        )
    qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in joints], dtype=np.intp)
    qvel = np.array([model.jnt_dofadr[model.joint(n).id] for n in joints], dtype=np.intp)
    limits = JointLimits.of_model(robot)
    efforts = np.array([_effort_limit(limits.get(n)) for n in joints])
    link_bodies = {link: int(model.body(body).id) for link, body in b.link_body.items()}
    return BuiltModel(
        spec,
        model,
        robot,
        floating,
        tuple(joints),
        qpos,
        qvel,
        tuple(gains[n] for n in joints),
        efforts,
        link_bodies,
        notes,
    )


def compiled(spec: Any) -> Any:
    """The MuJoCo model of a spec (what qhull says meanwhile was reported when :func:`build` compiled it)."""
    return _compiled_quietly(spec)[0]


#: How much of what the compiler writes on the standard error is kept for the notice.
_SAID_MAX = 65536


def _compiled_quietly(spec: Any) -> tuple[Any, str]:
    """The MuJoCo model of a spec and what qhull wrote on the standard error while it was compiled."""
    return _quietly(spec.compile)


def _quietly(call: Callable[[], Any]) -> tuple[Any, str]:
    """What ``call`` (a MuJoCo compile, or ``to_xml`` which compiles) returns, and what qhull wrote meanwhile.

    MuJoCo computes each mesh's convex hull with qhull, which prints its precision warnings
    (paragraphs of them for a nearly flat mesh) straight to file descriptor 2, not through
    MuJoCo's warning handler: the descriptor points at a temporary file meanwhile, and what
    did not come from qhull is written back as it was. Compiling meshes of many triangles
    takes seconds in native code, which runs no signal handler: SIGTERM ends the process at
    once meanwhile (nothing is written yet).
    """
    sys.stderr.flush()
    with tempfile.TemporaryFile() as caught:
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        try:
            with interruptible():
                result = call()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            caught.seek(0)
            said = caught.read(_SAID_MAX).decode("utf-8", "replace")
            if said and "qhull" not in said.lower():
                sys.stderr.write(said)  # not qhull's: someone else's message, left as it was
                said = ""
    return result, said


def _qhull_notice(said: str, robot: RobotModel) -> None:
    """qhull's messages during a compile as one notice: its first sentence and how many it gave."""
    first = next((line.strip() for line in said.splitlines() if line.strip()), "")
    count = len(re.findall(r"\bQH\d{4}", said))
    sentence = first.split(".")[0].strip()
    more = f" ({count} messages)" if count > 1 else ""
    notify(
        NoticeKind.READ_CHOICE,
        f"{robot.source or robot.name}: MuJoCo's convex hull of a collision mesh is imprecise (a nearly flat "
        f"mesh?): qhull: {sentence}{more}",
    )


def _compile(mj: Any, spec: Any, robot: RobotModel) -> tuple[Any, str]:
    try:
        return _compiled_quietly(spec)
    except ValueError as exc:  # MuJoCo's compiler refuses the model
        raise MotionValueError(f"{robot.source or robot.name}: MuJoCo cannot build the model: {exc}") from None


def _pair(pair: frozenset[str]) -> tuple[str, str]:
    a, b = sorted(pair)
    return a, b


def _disabled_pairs(
    robot: RobotModel, srdf: str | os.PathLike[str] | None, notes: list[str]
) -> tuple[list[tuple[str, str]], frozenset[str], bool]:
    """Link pairs left out of self-collision, links that collide with nothing, and whether pairs
    touching in the zero pose are to be left out too (the default rule only)."""
    body = rigid_bodies(robot)
    names = robot.link_names
    welded = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if body[a] == body[b]]
    if srdf is not None:
        known = set(names)  # links the model lacks: read_srdf warns of them
        kept = [_pair(p) for p in read_srdf(srdf, robot).pairs if len(p) == 2 and p <= known]
        notes.append(f"{len(kept)} link pairs left out of self-collision as the SRDF {Path(srdf).name} disables them")
        return welded + kept, frozenset(), False
    rules = robot.collision_filter()
    if rules is not None:
        assert robot.collision_rules is not None
        kept = [_pair(p) for p in rules.pairs]
        notes.append(
            f"{len(kept)} link pairs left out of self-collision by the model's {robot.collision_rules.spelling}"
            + (f"; links that collide with nothing: {', '.join(sorted(rules.links))}" if rules.links else "")
        )
        return welded + kept, rules.links, False
    adjacent = adjacent_bodies(robot, body)
    near = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if frozenset((body[a], body[b])) in adjacent]
    return welded + near, frozenset(), True


def _touching_at_zero(mj: Any, model: Any) -> set[frozenset[str]]:
    """Pairs of links whose collision shapes touch in the zero pose (the floor aside)."""
    data = mj.MjData(model)
    mj.mj_forward(model, data)
    out: set[frozenset[str]] = set()
    floor = model.geom(FLOOR).id
    for c in data.contact[: data.ncon]:
        if floor in (c.geom1, c.geom2):
            continue
        a = model.body(model.geom_bodyid[c.geom1]).name
        b = model.body(model.geom_bodyid[c.geom2]).name
        if a != b:
            out.add(frozenset((a, b)))
    return out


__all__ = ["FLOOR", "BuiltModel", "Gains", "build", "compiled", "mujoco_module", "servo_control"]
