"""A robot model (from URDF, ``.urdf.xacro`` or Choreonoid ``.body``) and its forward kinematics.

Example::

    model = load_robot_model("nao.urdf")
    poses = model.link_poses(motion.joint_names, motion.position, motion.root_position, motion.root_orientation)
    poses.translation[:, poses.links.index("r_sole")]          # (N, 3) in the world frame
    static, moving = model.joint_transforms(motion.joint_names, motion.position)

Joint values: a revolute / continuous joint turns by its value (rad) about its axis, a
prismatic one slides by it (m) along the axis. A mimic joint takes ``multiplier *
value + offset`` of the joint it mimics (also along chains of mimic joints); a value the
motion gives a mimic joint is not used, as in robot_state_publisher. A floating joint
takes seven values named ``JOINT/trans_x, trans_y, trans_z, rot_x, rot_y, rot_z, rot_w``
(a quaternion, normalised here), a planar one ``JOINT/x, JOINT/y, JOINT/theta``: x and y
along two unit vectors of the plane normal to its axis (the joint frame's x and y for
the default z normal), theta about the normal (MoveIt's variable names).

Held values: a joint the model has and the motion lacks is held at 0 (a floating
joint's missing values at the identity); a NaN value holds the joint's last finite value
(0 before the first one), so nothing non-finite reaches a pose. Both are listed in
:class:`LinkPoses` (``missing``, ``held``) and, unless ``warn=False``, warned about
once per call, together with the motion's joints that the model lacks (``unknown``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..errors import ReadError, listed, require
from ..inputs import TEXT_PROBE, interruptible, read_input, text_check
from ..notices import NoticeKind, notify
from ..spatial import require_rotations, unit_quaternions
from . import xacro_expansion
from .body import load_body_document, read_body
from .collision_rules import CollisionFilter, CollisionRules, collision_filter, read_collision_rules
from .frame_tree import MovingTransform, StaticTransform
from .robot_parts import (
    IDENTITY_QUAT,
    FloatArray,
    Joint,
    Link,
    Mesh,
    Visual,
    build_tree,
    ros_mesh_name,
)
from .urdf import UNLIMITED, read_urdf, unstated_limits, write_urdf


@dataclasses.dataclass(frozen=True)
class LinkPoses:
    """Every link's pose at N frames, in the world frame.

    Attributes:
        links: Link names, parent before child (the model's order).
        translation: (N, L, 3).
        rotation: (N, L, 4) quaternions x, y, z, w.
        missing: Model joints the motion lacks (held at 0).
        unknown: Motion joints the model lacks (not used).
        held: Joints with NaN values that held their last finite value.
    """

    links: tuple[str, ...]
    translation: FloatArray
    rotation: FloatArray
    missing: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    held: tuple[str, ...] = ()


def _hold(values: FloatArray) -> tuple[FloatArray, int | None]:
    """NaN entries of a column replaced by the last finite value (0 before the first), and the
    first frame replaced (None: none)."""
    bad = ~np.isfinite(values)
    if not bad.any():
        return values, None
    index = np.where(bad, 0, np.arange(values.size))
    np.maximum.accumulate(index, out=index)
    out = values[index]
    out[~np.isfinite(out)] = 0.0  # before the first finite value
    return out, int(np.argmax(bad))


class _Values(NamedTuple):
    """A motion's joint values as the model's joints take them (see :meth:`RobotModel._values`)."""

    values: dict[str, FloatArray]
    frames: int
    missing: tuple[str, ...]
    unknown: tuple[str, ...]
    held: tuple[str, ...]
    first_held: int | None


#: Frames evaluated together by :meth:`RobotModel.link_poses` (rows of 64 KiB).
_CHUNK = 8192

#: A quaternion or vector as its components: each an (N,) array or a float (the same at every frame).
Comps = tuple[Any, ...]


def _qmul(a: Comps, b: Comps) -> Comps:
    """Hamilton product a ⊗ b, component by component (x, y, z, w)."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def _qrot(q: Comps, v: Comps) -> Comps:
    """Vector v rotated by the unit quaternion q: v + w t + q_v × t with t = 2 q_v × v."""
    qx, qy, qz, qw = q
    vx, vy, vz = v
    tx = 2.0 * (qy * vz - qz * vy)
    ty = 2.0 * (qz * vx - qx * vz)
    tz = 2.0 * (qx * vy - qy * vx)
    return (vx + qw * tx + (qy * tz - qz * ty), vy + qw * ty + (qz * tx - qx * tz), vz + qw * tz + (qx * ty - qy * tx))


def _floats(values: FloatArray) -> Comps:
    return tuple(float(v) for v in values)


def _plane_basis(normal: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Two unit vectors u, v of the plane normal to ``normal`` with u × v = normal (x, y for z)."""
    helper = np.array([1.0, 0.0, 0.0]) if abs(normal[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    u = helper - normal * float(helper @ normal)
    u /= np.linalg.norm(u)
    return u, np.cross(normal, u)


class RobotModel:
    """Links and joints of a robot, parent before child, and their forward kinematics.

    Build with :meth:`from_urdf`, :meth:`from_body` or :func:`load_robot_model`.
    """

    def __init__(
        self, name: str, root_link: str, links: Sequence[Link], joints: Sequence[Joint], source: str = ""
    ) -> None:
        self.name = name
        self.root_link = root_link
        self.links: tuple[Link, ...] = tuple(links)
        self.joints: tuple[Joint, ...] = tuple(joints)
        self.source = source
        #: The files the model was read from (:func:`load_robot_model`: the model's file and every
        #: file its xacro expansion read, includes and YAML files alike): inputs of a command that
        #: no output may touch. Empty for a model made from text.
        self.files: tuple[Path, ...] = ()
        self.urdf_text: str | None = None  # the URDF as given (from_urdf), else None
        #: A ``.body`` file's rules of which links collide (from_body), else None.
        self.collision_rules: CollisionRules | None = None
        #: A ``.body`` file whose root link's joint is fixed (to the world); False for a free root and for URDF.
        self.fixed_root = False
        self._joint = {j.name: j for j in self.joints}
        self._link_index = {link.name: i for i, link in enumerate(self.links)}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_urdf(cls, text: str | bytes, source: str | os.PathLike[str] = "<robot_description>") -> RobotModel:
        """The model of URDF ``text``; ``source`` names it in errors."""
        robot = read_urdf(text, source)
        root, links, joints = build_tree(robot.links, robot.joints, source)
        _note_mesh_names(links, source)
        model = cls(robot.name, root, links, joints, os.fspath(source))
        model.urdf_text = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        return model

    @classmethod
    def from_body(
        cls, text_or_path: str | os.PathLike[str], source: str | os.PathLike[str] | None = None
    ) -> RobotModel:
        """The model of a Choreonoid ``.body`` file: a path, or its YAML text (a str with a line break)."""
        if isinstance(text_or_path, str) and "\n" in text_or_path:
            where = source if source is not None else "<body>"
            doc = load_body_document(where, text_or_path)
        else:
            where = source if source is not None else text_or_path
            doc = load_body_document(text_or_path)
        name, root, links, joints = read_body(doc, where)
        found, links, joints = build_tree(links, joints, where, root)
        _note_mesh_names(links, where)
        model = cls(name, found, links, joints, os.fspath(where))
        model.collision_rules = read_collision_rules(doc, where)
        root_node = next((n for n in doc["links"] if isinstance(n, dict) and n.get("name") == found), {})
        model.fixed_root = str(root_node.get("joint_type", root_node.get("jointType", "free"))) == "fixed"
        return model

    def to_urdf(self, mesh_base: str | os.PathLike[str] | None = None) -> str:
        """URDF text of the model (for a ``.body``: the URDF made from it).

        Every link's inertial data (mass, centre of mass, inertia about it), visuals and
        collision shapes are written, and every joint's stated limits; a revolute or prismatic
        joint's velocity or effort the model does not state is written as
        :data:`.urdf.UNLIMITED` (URDF requires both, and 0 reads as a limit of zero), and one
        notice says which joints have it. Mesh names are written as ROS reads them
        (``package:///NAME/…`` as ``package://NAME/…``).

        Args:
            mesh_base: A folder that relative mesh file names are taken from; they are
                written as absolute ``file://`` URIs (what a viewer of the description can open).
        """
        base = Path(mesh_base).resolve() if mesh_base is not None else None

        def named(shape: Visual) -> Visual:
            if not isinstance(shape.geometry, Mesh):
                return shape
            filename = ros_mesh_name(shape.geometry.filename)
            if base is not None and "://" not in filename:
                filename = (base / filename).as_uri()
            return dataclasses.replace(shape, geometry=Mesh(filename, shape.geometry.scale))

        links = tuple(
            dataclasses.replace(
                link, visuals=tuple(map(named, link.visuals)), collisions=tuple(map(named, link.collisions))
            )
            for link in self.links
        )
        velocity, effort = unstated_limits(self.joints)
        if velocity or effort:
            notify(NoticeKind.MISSING, _unstated_message(velocity, effort), file=self.source or None, stacklevel=2)
        return write_urdf(self.name, links, self.joints)

    @property
    def description(self) -> str:
        """What ``/robot_description`` carries: the URDF as given, else :meth:`to_urdf` with
        mesh files relative to the model file made absolute."""
        if self.urdf_text is not None:
            return self.urdf_text
        folder = Path(self.source).parent if self.source and Path(self.source).is_file() else None
        return self.to_urdf(mesh_base=folder)

    # ------------------------------------------------------------------ structure
    @property
    def link_names(self) -> tuple[str, ...]:
        return tuple(link.name for link in self.links)

    @property
    def actuated_joints(self) -> tuple[str, ...]:
        """Movable joints that are no mimic (what a motion drives), parent before child."""
        return tuple(j.name for j in self.joints if j.movable and j.mimic is None)

    def joint(self, name: str) -> Joint:
        return self._joint[name]

    def mesh_files(self, package_paths: Sequence[str | os.PathLike[str]] = ()) -> list[Path]:
        """The files the model's meshes (visual and collision) name, where they are found: inputs of a
        command that no output may touch."""
        from ..mesh_files import package_roots, resolve

        source = Path(self.source) if self.source else None
        base = source.parent if source is not None and source.is_file() else None
        roots = package_roots(package_paths)
        names = {
            shape.geometry.filename
            for link in self.links
            for shape in (*link.visuals, *link.collisions)
            if isinstance(shape.geometry, Mesh)
        }
        found = (resolve(name, base, roots) for name in sorted(names))
        return [path for path in found if path is not None]

    def collision_filter(self) -> CollisionFilter | None:
        """The link pairs and links the model's own collision rules leave out (None: it states none)."""
        if self.collision_rules is None:
            return None
        joints = [(j.parent, j.child, j.type) for j in self.joints]
        return collision_filter(self.collision_rules, self.link_names, joints)

    # ------------------------------------------------------------------ values
    def _values(self, joint_names: Sequence[str], positions: npt.ArrayLike) -> _Values:
        """Each movable joint's values (N,) or (N, k), the frame count, missing, unknown, held
        and the first frame a value is held at."""
        pos = np.asarray(positions, dtype=np.float64)
        if pos.ndim == 1:
            pos = pos[None, :]
        names = list(joint_names)
        if pos.ndim != 2 or pos.shape[1] != len(names):
            raise ValueError(f"positions of shape {pos.shape} do not match {len(names)} joint names")
        n = pos.shape[0]
        column = {name: i for i, name in enumerate(names)}
        known: set[str] = set()
        values: dict[str, FloatArray] = {}
        missing: list[str] = []
        held: list[str] = []
        first_held: int | None = None
        for j in self.joints:
            if not j.movable:
                continue
            known.add(j.name)
            known.update(j.variables)
            if j.mimic is not None:
                continue
            cols = [column.get(v) for v in j.variables]
            if all(c is None for c in cols):
                missing.append(j.name)
                continue
            got = []
            for var, c in zip(j.variables, cols, strict=True):
                default = 1.0 if var.endswith("/rot_w") else 0.0
                if c is None:
                    got.append(np.full(n, default))
                    continue
                col, at = _hold(pos[:, c])
                if at is not None:
                    first_held = at if first_held is None else min(first_held, at)
                    if j.name not in held:
                        held.append(j.name)
                got.append(col)
            values[j.name] = got[0] if len(got) == 1 else np.stack(got, axis=1)
        for j in self.joints:  # mimic joints, after their leaders (resolved along chains)
            if j.mimic is not None:
                values[j.name] = self._mimic_value(j, values, n)
        unknown = tuple(name for name in names if name not in known)
        return _Values(values, n, tuple(missing), unknown, tuple(held), first_held)

    def _mimic_value(self, joint: Joint, values: dict[str, FloatArray], n: int) -> FloatArray:
        # Compose outward-in: value(j) = m1 * value(a) + o1, value(a) = m2 * value(b) + o2 …
        multiplier, offset = 1.0, 0.0
        current = joint
        while current.mimic is not None:
            m = current.mimic
            offset = offset + multiplier * m.offset
            multiplier = multiplier * m.multiplier
            current = self._joint[m.joint]
        leader = values.get(current.name)
        base = leader if leader is not None else np.zeros(n)
        return np.asarray(multiplier * base + offset, dtype=np.float64)

    def _warn(self, found: _Values, motion: str | os.PathLike[str] | None) -> None:
        """One warning each: model joints the motion lacks, motion joints the model lacks (both
        named on the model), and the motion's non-finite values held (named on ``motion``)."""
        missing, unknown, held = found.missing, found.unknown, found.held
        where = self.source or self.name or "robot model"
        if missing:
            notify(
                NoticeKind.MISSING,
                f"{where}: the motion lacks {len(missing)} joint(s) of the model, held at 0: {listed(missing)}",
                stacklevel=3,
            )
        if unknown:
            notify(
                NoticeKind.KEPT_UNUSED,
                f"{where}: the model has no joint(s) {listed(unknown)} of the motion; not used",
                stacklevel=3,
            )
        if held:
            whose = "" if motion is not None else "the motion's "
            notify(
                NoticeKind.MISSING,
                f"{whose}non-finite values of {listed(held)} hold the last finite value (0 before it; "
                f"the first at frame {found.first_held})",
                file=motion,
                stacklevel=3,
            )

    # ------------------------------------------------------------------ kinematics
    @staticmethod
    def _local(j: Joint, q: FloatArray | None) -> tuple[Comps, Comps]:
        """The joint's transform parent → child at its values: translation and rotation components.

        Child = origin · motion: translation ``o + R(origin) t``, rotation ``origin ⊗ r``,
        where the motion (t, r) turns about / slides along the axis. A revolute joint's
        rotation is ``cos(θ/2) origin + sin(θ/2) (origin ⊗ axis)``: the second term is a
        constant, so a frame costs two products per component.
        """
        o = _floats(j.origin_xyz)
        qo = _floats(j.origin_quat)
        if q is None or j.type == "fixed":
            return o, qo
        if j.type in ("revolute", "continuous"):
            half = 0.5 * q
            c, s = np.cos(half), np.sin(half)
            p = _qmul(qo, (*_floats(j.axis), 0.0))
            return o, tuple(c * qo[k] + s * p[k] for k in range(4))
        if j.type == "prismatic":
            b = _qrot(qo, _floats(j.axis))
            return tuple(o[k] + q * b[k] for k in range(3)), qo
        if j.type == "planar":
            u, v = _plane_basis(j.axis)
            bu, bv = _qrot(qo, _floats(u)), _qrot(qo, _floats(v))
            x, y, theta = q[:, 0], q[:, 1], q[:, 2]
            half = 0.5 * theta
            c, s = np.cos(half), np.sin(half)
            p = _qmul(qo, (*_floats(j.axis), 0.0))
            return tuple(o[k] + x * bu[k] + y * bv[k] for k in range(3)), tuple(c * qo[k] + s * p[k] for k in range(4))
        quat = unit_quaternions(q[:, 3:7])
        quat[~np.isfinite(quat[:, 0])] = IDENTITY_QUAT
        t = _qrot(qo, (q[:, 0], q[:, 1], q[:, 2]))
        return tuple(o[k] + t[k] for k in range(3)), _qmul(qo, (quat[:, 0], quat[:, 1], quat[:, 2], quat[:, 3]))

    def link_poses(
        self,
        joint_names: Sequence[str],
        positions: npt.ArrayLike,
        root_position: npt.ArrayLike | None = None,
        root_orientation: npt.ArrayLike | None = None,
        *,
        warn: bool = True,
        motion: str | os.PathLike[str] | None = None,
    ) -> LinkPoses:
        """Every link's pose at every frame, the root link at the root pose (identity when None).

        Args:
            joint_names: The motion's joint names (J).
            positions: (N, J) values (one frame may be given as (J,)).
            root_position, root_orientation: (N, 3) and (N, 4) x, y, z, w, or None.
            warn: Warn about missing / unknown / held joints (one warning each).
            motion: The motion's file (or name): the warning about its non-finite values names it.
        """
        found = self._values(joint_names, positions)
        values, n, missing, unknown, held = found[:5]
        if warn:
            self._warn(found, motion)
        count = len(self.links)
        # Components first ((L, 3, N), (L, 4, N)): every operation runs on contiguous rows.
        trans = np.empty((count, 3, n))
        rot = np.empty((count, 4, n))
        trans[0] = 0.0
        rot[0] = 0.0
        rot[0, 3] = 1.0
        if root_position is not None:
            given = np.broadcast_to(np.asarray(root_position, dtype=np.float64), (n, 3))
            for k in range(3):
                trans[0, k] = _hold(np.ascontiguousarray(given[:, k]))[0]
        if root_orientation is not None:
            given = np.broadcast_to(np.asarray(root_orientation, dtype=np.float64), (n, 4))
            require_rotations(given, motion, "root orientation")
            unit = unit_quaternions(given)
            ok = np.isfinite(unit[:, 0])
            if ok.all():
                rot[0] = unit.T
            elif ok.any():  # a NaN orientation holds the last good one
                last = np.where(ok, np.arange(n), 0)
                np.maximum.accumulate(last, out=last)
                first = int(np.argmax(ok))
                last[:first] = first
                rot[0] = unit[last].T
        pairs = [(self._link_index[j.parent], self._link_index[j.child]) for j in self.joints]
        for lo in range(0, n, _CHUNK):  # frames in chunks whose rows stay in the CPU's cache
            hi = min(n, lo + _CHUNK)
            for j, (p, c) in zip(self.joints, pairs, strict=True):
                qp = tuple(rot[p, :, lo:hi])
                q = values.get(j.name)
                v, lq = self._local(j, q[lo:hi] if q is not None else None)
                moved = _qrot(qp, v)
                for k in range(3):
                    np.add(trans[p, k, lo:hi], moved[k], out=trans[c, k, lo:hi])
                quat = _qmul(qp, lq)
                for k in range(4):
                    rot[c, k, lo:hi] = quat[k]
        return LinkPoses(self.link_names, trans.transpose(2, 0, 1), rot.transpose(2, 0, 1), missing, unknown, held)

    def joint_transforms(
        self,
        joint_names: Sequence[str],
        positions: npt.ArrayLike,
        frame_prefix: str = "",
        *,
        warn: bool = True,
        motion: str | os.PathLike[str] | None = None,
    ) -> tuple[list[StaticTransform], list[MovingTransform]]:
        """robot_state_publisher's frames: one transform per joint, parent link → child link.

        Fixed joints are static (publish once, on ``/tf_static``); every movable joint
        (mimic ones too) is moving, evaluated at the N frames of ``positions``. Frame
        names are the links' with ``frame_prefix`` in front. Missing, unknown and NaN
        values are handled (and ``motion`` named) as in :meth:`link_poses`.
        """
        found = self._values(joint_names, positions)
        values, n = found.values, found.frames
        if warn:
            self._warn(found, motion)
        static: list[StaticTransform] = []
        moving: list[MovingTransform] = []
        for j in self.joints:
            parent, child = frame_prefix + j.parent, frame_prefix + j.child
            if not j.movable:
                static.append(StaticTransform(parent, child, j.origin_xyz.copy(), j.origin_quat.copy()))
                continue
            q = values.get(j.name)
            if q is None and j.type not in ("floating", "planar"):
                q = np.zeros(n)
            v, r = self._local(j, q)
            t = np.empty((n, 3))
            quat = np.empty((n, 4))
            for k in range(3):
                t[:, k] = v[k]
            for k in range(4):
                quat[:, k] = r[k]
            moving.append(MovingTransform(parent, child, t, quat))
        return static, moving


def _unstated_message(velocity: Sequence[str], effort: Sequence[str]) -> str:
    """What :meth:`RobotModel.to_urdf` says of the joints whose velocity or effort limit it makes up."""

    def joints(names: Sequence[str]) -> str:
        return f"{len(names)} joint{'s state' if len(names) > 1 else ' states'}"

    if list(velocity) == list(effort):
        said = f"{joints(velocity)} neither a velocity nor an effort limit ({listed(velocity)})"
    else:
        said = " and ".join(
            f"{joints(names)} no {what} limit ({listed(names)})"
            for what, names in (("velocity", velocity), ("effort", effort))
            if names
        )
    return (
        f"{said}: the URDF made from the model gives them {UNLIMITED:g}, which no tool reads as a limit "
        "(URDF requires a velocity and an effort on a revolute or prismatic joint, and 0 would read as a "
        "limit of zero)"
    )


def _note_mesh_names(links: Sequence[Link], source: str | os.PathLike[str]) -> None:
    """One notice for the model's mesh names that start ``package:///``: they are found as the
    ``package://`` names that ROS reads (:func:`.robot_parts.ros_mesh_name`), as pinocchio finds them."""
    odd = {
        v.geometry.filename: None
        for link in links
        for v in (*link.visuals, *link.collisions)
        if isinstance(v.geometry, Mesh) and ros_mesh_name(v.geometry.filename) != v.geometry.filename
    }
    if odd:
        first = next(iter(odd))
        notify(
            NoticeKind.READ_CHOICE,
            f"{len(odd)} mesh {'names start' if len(odd) > 1 else 'name starts'} 'package:///' (a slash before "
            f"the package name, which ROS refuses): read as 'package://…', as pinocchio reads "
            f"{'them' if len(odd) > 1 else 'it'} ({first} as {ros_mesh_name(first)})",
            file=source,
            stacklevel=3,
        )


def load_robot_model(path: str | os.PathLike[str]) -> RobotModel:
    """A robot model from a ``.urdf``, ``.urdf.xacro`` / ``.xacro`` or Choreonoid ``.body`` file.

    A ``.xacro`` file is expanded with the ``xacro`` package (the ``xacro`` extra), in a
    process of its own (see :func:`expand_xacro`).

    Raises:
        ReadError: The file cannot be read or is not a valid model.
        MissingDependencyError: A ``.xacro`` file without the ``xacro`` package.
    """
    p = Path(path)
    name = p.name.lower()
    with interruptible():  # SIGTERM ends even a parse in native code
        if name.endswith(".body"):
            model = RobotModel.from_body(p)
            files: tuple[Path, ...] = (p,)
        elif name.endswith(".xacro"):
            text, files = _expand(p, XACRO_SECONDS)
            model = RobotModel.from_urdf(text, p)
        else:
            data = read_input(p, what="robot model", head=(TEXT_PROBE, text_check(p, "robot model")))
            model, files = RobotModel.from_urdf(data, p), (p,)
    model.files = files
    return model


#: The most memory (address space, bytes) a xacro expansion may use, and the longest URDF it may give.
XACRO_MEMORY = 1 << 29
XACRO_OUTPUT = 64 << 20
#: Seconds a xacro expansion may take, and one ``${...}`` expression in it.
XACRO_SECONDS = 60.0
XACRO_EXPRESSION_SECONDS = 1.0


def expand_xacro(path: str | os.PathLike[str], *, timeout: float = XACRO_SECONDS) -> str:
    """The URDF text a ``.xacro`` file expands to (needs the ``xacro`` extra).

    A xacro file is a program: it is expanded in a process of its own whose memory is
    bounded (:data:`XACRO_MEMORY`), which is stopped after ``timeout`` seconds (one expression
    in it after :data:`XACRO_EXPRESSION_SECONDS`) and ends with this one; excess is one line
    (naming the expression, its file and line). xacro's own messages are not shown (its
    error is, once).
    """
    return _expand(path, timeout)[0]


def _expand(path: str | os.PathLike[str], timeout: float) -> tuple[str, tuple[Path, ...]]:
    """:func:`expand_xacro`'s URDF text, and every file the expansion read (``path`` first)."""
    require("xacro", "reading .xacro robot models", package="xacro", extra="xacro", rosdep_key="xacro")
    read_input(path, 0, what="robot model")  # a missing file, a device or a FIFO: one line, before any process
    child = Path(__file__).with_name("xacro_expansion.py")
    limits = (XACRO_MEMORY, XACRO_OUTPUT, XACRO_EXPRESSION_SECONDS)
    command = [sys.executable, os.fspath(child), os.fspath(path), *map(str, limits)]
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ReadError(path, f"xacro did not finish expanding it within {timeout:g} s") from None
    finally:
        if proc.poll() is None:  # a timeout, SIGINT: the expansion stops with the read
            proc.kill()
            proc.wait()
    if proc.returncode == 0:  # the files read, one line of JSON, then the URDF
        head, _, text = out.partition(b"\n")
        read = [Path(f) for f in json.loads(head) if f != os.path.abspath(path)]
        return text.decode("utf-8", errors="replace"), (Path(path), *read)
    slow = xacro_expansion.slow_expression(out) if proc.returncode == xacro_expansion.SLOW else None
    if slow is not None:
        raise _slow_expression(path, *slow)
    if proc.returncode == xacro_expansion.NO_PACKAGE:
        raise _no_package(path, *json.loads(out))
    if proc.returncode == xacro_expansion.NO_MEMORY:
        reason = f"its xacro expansion needs more than {XACRO_MEMORY >> 20} MiB of memory"
    elif proc.returncode == xacro_expansion.TOO_LONG:
        reason = f"it expands to {out.decode()} bytes of URDF, more than {XACRO_OUTPUT >> 20} MiB"
    elif proc.returncode == xacro_expansion.FAILED:
        reason = f"xacro could not expand it: {out.decode('utf-8', errors='replace')}"
    else:
        reason = f"xacro could not expand it (its process ended with status {proc.returncode})"
    raise ReadError(path, reason)


def _no_package(path: str | os.PathLike[str], file: str, package: str, searched: list[str]) -> ReadError:
    """The error for a ``$(find PACKAGE)`` in ``file`` (expanding ``path``) that found no package,
    at its line when the file's text has it."""
    reason = (
        f"$(find {package}): no package {package!r} ({'; '.join(searched)}): source the workspace that "
        f"has it, or set ROS_PACKAGE_PATH to a folder holding it"
    )
    inner = bool(file) and os.path.abspath(file) != os.path.abspath(path)
    where = file if inner else path
    line = None
    try:
        text = read_input(where, what="xacro file").decode("utf-8", errors="replace")
        at = re.search(r"\$\(\s*find\s+" + re.escape(package) + r"\s*\)|find\(\s*['\"]" + re.escape(package), text)
        line = text.count("\n", 0, at.start()) + 1 if at else None
    except ReadError:
        pass  # the file xacro read is gone: no line
    if inner:
        reason += f" (expanding {path})"
    return ReadError(where, reason, line=line)


def _slow_expression(path: str | os.PathLike[str], file: str, expr: str) -> ReadError:
    """The error for an expression of ``file`` (expanding ``path``) that took too long, at
    its line when the file's text has it."""
    reason = f"xacro stopped an expression that took more than {XACRO_EXPRESSION_SECONDS:g} s"
    if not expr:
        return ReadError(path, reason)
    reason += f": ${{{expr}}}" if len(expr) < xacro_expansion.LABEL_TEXT else f": ${{{expr}…"
    line = None
    try:
        text = read_input(file, what="xacro file").decode("utf-8", errors="replace")
        at = text.find("${" + expr)
        line = text.count("\n", 0, at) + 1 if at >= 0 else None
    except ReadError:
        pass  # the file xacro read is gone: no line
    if os.path.abspath(file) != os.path.abspath(path):
        reason += f" (expanding {path})"
    return ReadError(file, reason, line=line)


__all__ = ["LinkPoses", "RobotModel", "expand_xacro", "load_robot_model"]
