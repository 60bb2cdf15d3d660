"""A robot's links and joints: the data every robot-model reader fills in.

The readers (URDF, Choreonoid ``.body``) give the links and joints in file order; the
tree is put together and checked here once (:func:`build_tree`): one root found from the
joints (a link that is no joint's child), no cycle, no second root, every joint's links
present, mimic joints pointing at known joints and not at themselves through a chain.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..errors import ReadError
from ..spatial import unit_rows

FloatArray = npt.NDArray[np.float64]

#: Joint types and the values each takes from a motion.
JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
#: The values of a multi-value joint, named ``JOINT/VARIABLE`` in a motion (MoveIt's names).
FLOATING_VARIABLES = ("trans_x", "trans_y", "trans_z", "rot_x", "rot_y", "rot_z", "rot_w")
PLANAR_VARIABLES = ("x", "y", "theta")

IDENTITY_QUAT: FloatArray = np.array([0.0, 0.0, 0.0, 1.0])

#: The largest size (m) a shape may have (a box's side, a radius, a length, a mesh's extent):
#: a thousand kilometres, far beyond any robot, and far below where squares and sums of
#: sizes overflow.
LARGEST_SIZE = 1e6
#: The largest mass (kg) a link may have: a million tonnes, far beyond any robot, and far
#: below where the centre of mass and balance arithmetic (masses times positions and
#: accelerations, summed over the links) overflows.
LARGEST_MASS = 1e9
#: The largest magnitude (kg·m²) of an inertia entry: that of :data:`LARGEST_MASS` at
#: :data:`LARGEST_SIZE` from its centre of mass.
LARGEST_INERTIA = LARGEST_MASS * LARGEST_SIZE**2
#: How far an inertia may be from one a body can have, as a share of its largest principal
#: moment (of its largest entry, for the symmetry and the moments about the link's axes): what
#: values written to four significant digits can be off by (see :func:`inertia_fault`).
INERTIA_TOLERANCE = 1e-3
#: An inertia within this many kg·m² of one a body can have is one (the least MuJoCo tells from 0).
INERTIA_NOISE = 1e-15


def finite(value: object) -> bool:
    """A number (no bool) in the float range that is neither infinite nor NaN (an integer
    beyond the float range is not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond the float range
        return False


# --------------------------------------------------------------------------- geometry
@dataclasses.dataclass(frozen=True)
class Box:
    """A box centred on its frame; ``size`` (3,) is the full extent along x, y, z."""

    size: FloatArray


@dataclasses.dataclass(frozen=True)
class Cylinder:
    """A cylinder along its frame's z axis, centred on the frame."""

    radius: float
    length: float


@dataclasses.dataclass(frozen=True)
class Sphere:
    radius: float


@dataclasses.dataclass(frozen=True)
class Capsule:
    """A cylinder of ``length`` along z with a half sphere of ``radius`` on each end."""

    radius: float
    length: float


@dataclasses.dataclass(frozen=True)
class Mesh:
    """A mesh file, named as the model names it (``package://…``, relative or absolute)."""

    filename: str
    scale: FloatArray


#: How a mesh name that ROS looks up in a package starts.
PACKAGE_SCHEME = "package://"


def ros_mesh_name(filename: str) -> str:
    """A mesh name as ROS reads it: ``package:///NAME/…`` (slashes before the package name,
    which pinocchio reads, since it joins the rest to a package folder, and ROS refuses as
    an empty package name) becomes ``package://NAME/…``; every other name stays as it is."""
    if filename.startswith(PACKAGE_SCHEME + "/"):
        return PACKAGE_SCHEME + filename[len(PACKAGE_SCHEME) :].lstrip("/")
    return filename


Geometry = Box | Cylinder | Sphere | Capsule | Mesh


@dataclasses.dataclass(frozen=True)
class Visual:
    """One shape of a link, placed in the link frame by ``origin_xyz`` (3,) and ``origin_quat`` (x, y, z, w)."""

    geometry: Geometry
    origin_xyz: FloatArray
    origin_quat: FloatArray
    rgba: tuple[float, float, float, float] | None = None
    name: str = ""


@dataclasses.dataclass(frozen=True)
class Inertial:
    """A link's mass (kg), centre of mass ``com`` (3,) and inertia (3, 3) about the centre of
    mass (kg·m²), both in the link frame's axes; ``line``: the inertia's line in its file (for
    messages), or None."""

    mass: float
    com: FloatArray
    inertia: FloatArray
    line: int | None = None


def inertia_fault(inertia: FloatArray) -> tuple[str, bool] | None:
    """Why a (3, 3) inertia about the centre of mass is none a body can have, and whether a reader
    refuses it; None when a body can have it.

    A body's inertia is symmetric, its principal moments (eigenvalues) are at least 0 and each
    is at most the sum of the other two (the triangle inequality), each within
    :data:`INERTIA_TOLERANCE` of the largest moment or within :data:`INERTIA_NOISE`. All zeros
    (a point mass) is one. A moment about an axis of the link below 0 (``ixx="-1"``) is refused:
    no rounding and no placeholder gives one. Published models break the other rules (a
    placeholder inertia of a link of a milligram, moments rounded apart, products of inertia
    too large), so those are the readers' warnings, and the simulator's refusal.
    """
    largest = float(np.abs(inertia).max())
    if largest <= INERTIA_NOISE:
        return None
    slack = max(INERTIA_TOLERANCE * largest, INERTIA_NOISE)
    diagonal = np.diag(inertia)
    if diagonal.min() < -slack:
        axis = "xyz"[int(np.argmin(diagonal))]
        return f"no body has this inertia: its moment about {axis} is {diagonal.min():g} kg·m², below 0", True
    asymmetry = np.abs(inertia - inertia.T)
    if asymmetry.max() > slack:
        i, j = np.unravel_index(int(np.argmax(asymmetry)), (3, 3))
        shown = f"entry ({i + 1}, {j + 1}) is {inertia[i, j]:g}, entry ({j + 1}, {i + 1}) {inertia[j, i]:g}"
        return f"no body has this inertia: it is not symmetric ({shown})", False
    a, b, c = (float(m) for m in np.linalg.eigvalsh((inertia + inertia.T) / 2))
    moments = f"{a:.6g}, {b:.6g}, {c:.6g} kg·m²"
    slack = max(INERTIA_TOLERANCE * max(abs(a), abs(c)), INERTIA_NOISE)
    if a < -slack:
        return f"no body has this inertia: a principal moment is below 0 ({moments}: not positive semidefinite)", False
    if a + b < c - slack:
        broken = f"the triangle inequality ({a:.6g} + {b:.6g} < {c:.6g})"
        return f"no body has this inertia: its principal moments {moments} break {broken}", False
    return None


@dataclasses.dataclass(frozen=True)
class Link:
    """A link: its visuals, its collision shapes (same form as visuals) and its inertial data."""

    name: str
    visuals: tuple[Visual, ...] = ()
    collisions: tuple[Visual, ...] = ()
    inertial: Inertial | None = None


# --------------------------------------------------------------------------- joints
@dataclasses.dataclass(frozen=True)
class Mimic:
    """This joint's value is ``multiplier * value(joint) + offset``."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclasses.dataclass(frozen=True)
class Limit:
    """A joint's limits as the model states them (None: not stated)."""

    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None
    effort: float | None = None


@dataclasses.dataclass(frozen=True)
class Joint:
    """A joint: child frame = parent frame · origin · motion(value) about / along ``axis``.

    Attributes:
        name, type, parent, child: As in URDF (``type`` is one of :data:`JOINT_TYPES`).
        origin_xyz, origin_quat: The child frame at value 0 in the parent frame
            (quaternion x, y, z, w).
        axis: Unit vector in the joint frame (the normal of a planar joint's plane).
        mimic: Set when the joint follows another one.
        limit: Limits as stated, or None.
        line: The line of the joint in its file (for messages), or None.
    """

    name: str
    type: str
    parent: str
    child: str
    origin_xyz: FloatArray
    origin_quat: FloatArray
    axis: FloatArray
    mimic: Mimic | None = None
    limit: Limit | None = None
    line: int | None = None

    @property
    def movable(self) -> bool:
        return self.type != "fixed"

    @property
    def variables(self) -> tuple[str, ...]:
        """The names a motion gives this joint's values by: the joint's name, or ``NAME/VARIABLE``."""
        if self.type == "fixed" or self.mimic is not None:
            return ()
        if self.type == "floating":
            return tuple(f"{self.name}/{v}" for v in FLOATING_VARIABLES)
        if self.type == "planar":
            return tuple(f"{self.name}/{v}" for v in PLANAR_VARIABLES)
        return (self.name,)


def direction(values: Sequence[float]) -> tuple[FloatArray, float]:
    """``values`` divided by their length, and the length (``inf`` beyond the float range).

    Scaled by the largest entry first, so that a vector such as ``[1e308, 0, 0]`` has its
    direction (no square overflows); a zero vector gives zeros and 0.
    """
    vector = np.asarray(values, dtype=np.float64)
    if not vector.size:
        return vector, 0.0
    unit, norm = unit_rows(vector)
    if not np.isfinite(unit).all():
        return vector, float(norm)
    return unit, float(norm)


def unit_axis(values: Sequence[float], source: str | os.PathLike[str], where: str, line: int | None) -> FloatArray:
    """A joint axis normalised to length 1; a zero or non-finite one is a ReadError."""
    axis, norm = direction(values) if len(values) == 3 else (np.asarray(values, dtype=np.float64), 0.0)
    if not math.isfinite(float(np.abs(axis).max(initial=0.0))) or norm < 1e-12:
        shown = ", ".join(repr(float(v)) for v in np.asarray(values, dtype=np.float64).ravel())
        raise ReadError(source, f"{where}: the axis [{shown}] has no direction", line=line)
    return axis


def build_tree(
    links: Sequence[Link], joints: Sequence[Joint], source: str | os.PathLike[str], root: str | None = None
) -> tuple[str, tuple[Link, ...], tuple[Joint, ...]]:
    """Root link, links and joints ordered parent before child (depth first, file order).

    Args:
        root: The root link when the file names it (a ``.body`` file's ``rootLink``);
            else the one link that is no joint's child.

    Raises:
        ReadError: A missing link, a link with two parents, no root or two roots, a cycle,
            a duplicate name, a mimic of an unknown joint or a mimic loop.
    """
    by_name: dict[str, Link] = {}
    for link in links:
        if link.name in by_name:
            raise ReadError(source, f"link {link.name!r} is defined twice")
        by_name[link.name] = link
    names: set[str] = set()
    parent_of: dict[str, Joint] = {}
    children: dict[str, list[Joint]] = {}
    for j in joints:
        if j.name in names:
            raise ReadError(source, f"joint {j.name!r} is defined twice", line=j.line)
        names.add(j.name)
        for role, link_name in (("parent", j.parent), ("child", j.child)):
            if link_name not in by_name:
                raise ReadError(source, f"joint {j.name!r}: its {role} link {link_name!r} is not defined", line=j.line)
        if j.child in parent_of:
            other = parent_of[j.child].name
            raise ReadError(
                source, f"joint {j.name!r}: link {j.child!r} is already the child of joint {other!r}", line=j.line
            )
        parent_of[j.child] = j
        children.setdefault(j.parent, []).append(j)
    if not by_name:
        raise ReadError(source, "the model has no links")
    roots = [name for name in by_name if name not in parent_of]
    if root is not None and root not in by_name:
        raise ReadError(source, f"the root link {root!r} is not defined")
    if not roots:
        cycle = _cycle(next(iter(by_name)), parent_of)
        raise ReadError(source, f"the joints form a cycle: {' -> '.join(cycle)}")
    if len(roots) > 1:
        raise ReadError(source, f"{len(roots)} root links (links that are no joint's child): {', '.join(roots)}")
    found = roots[0]
    if root is not None and root != found:
        raise ReadError(source, f"the root link is {root!r}, but {found!r} is the link that is no joint's child")
    ordered_links: list[Link] = []
    ordered_joints: list[Joint] = []
    stack = [found]
    while stack:
        name = stack.pop()
        ordered_links.append(by_name[name])
        for j in reversed(children.get(name, [])):
            stack.append(j.child)
        ordered_joints.extend(children.get(name, []))
    if len(ordered_links) != len(by_name):
        left = next(n for n in by_name if n not in {link.name for link in ordered_links})
        raise ReadError(source, f"the joints form a cycle: {' -> '.join(_cycle(left, parent_of))}")
    # Joints parent before child: order by their child link's position.
    position = {link.name: i for i, link in enumerate(ordered_links)}
    ordered_joints.sort(key=lambda j: position[j.child])
    _check_mimics(ordered_joints, source)
    return found, tuple(ordered_links), tuple(ordered_joints)


def _cycle(start: str, parent_of: dict[str, Joint]) -> list[str]:
    seen: list[str] = []
    name = start
    while name not in seen:
        seen.append(name)
        name = parent_of[name].parent
    loop = [*seen[seen.index(name) :], name]
    return list(reversed(loop))


def _check_mimics(joints: Sequence[Joint], source: str | os.PathLike[str]) -> None:
    by_name = {j.name: j for j in joints}
    for j in joints:
        if j.mimic is None:
            continue
        chain = [j.name]
        current: Joint = j
        while current.mimic is not None:
            target = by_name.get(current.mimic.joint)
            if target is None:
                raise ReadError(
                    source,
                    f"joint {current.name!r} mimics joint {current.mimic.joint!r}, which is not defined",
                    line=current.line,
                )
            if target.type in ("fixed", "floating", "planar"):
                raise ReadError(
                    source, f"joint {current.name!r} mimics the {target.type} joint {target.name!r}", line=current.line
                )
            if target.name in chain:
                raise ReadError(source, f"mimic loop: {' -> '.join([*chain, target.name])}", line=j.line)
            chain.append(target.name)
            current = target


__all__ = [
    "FLOATING_VARIABLES",
    "INERTIA_NOISE",
    "INERTIA_TOLERANCE",
    "JOINT_TYPES",
    "PACKAGE_SCHEME",
    "PLANAR_VARIABLES",
    "Box",
    "Capsule",
    "Cylinder",
    "Geometry",
    "Inertial",
    "Joint",
    "Limit",
    "Link",
    "Mesh",
    "Mimic",
    "Sphere",
    "Visual",
    "build_tree",
    "direction",
    "finite",
    "inertia_fault",
    "ros_mesh_name",
    "unit_axis",
]
