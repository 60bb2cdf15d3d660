"""URDF text ↔ links and joints (one reader for the robot model and the joint limits).

Only the ``<link>``, ``<joint>`` and ``<material>`` children of ``<robot>`` are read (a
``<transmission>``'s or ``<gazebo>``'s inner elements are not the robot's joints). Every
element keeps its line so that a bad value is reported where it is.
"""

from __future__ import annotations

import dataclasses
import math
import os
import xml.parsers.expat
from collections.abc import Sequence

import numpy as np

from ..errors import ReadError, number
from ..notices import NoticeKind, notify
from ..spatial import quat_to_matrix, quat_to_rpy, rpy_to_quat
from .robot_parts import (
    IDENTITY_QUAT,
    JOINT_TYPES,
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
    Mimic,
    Sphere,
    Visual,
    inertia_fault,
    unit_axis,
)


@dataclasses.dataclass
class Element:
    """An XML element with the line it starts on."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[Element] = dataclasses.field(default_factory=list)

    def find(self, tag: str) -> Element | None:
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        return [c for c in self.children if c.tag == tag]


def parse_xml(text: str | bytes, source: str | os.PathLike[str], what: str = "URDF") -> Element:
    """The element tree of ``text``; malformed XML is a ReadError naming its line and ``what``
    the file is (``URDF``, ``SRDF``)."""
    parser = xml.parsers.expat.ParserCreate()
    stack: list[Element] = []
    top: list[Element] = []

    def start(tag: str, attrib: dict[str, str]) -> None:
        el = Element(tag, attrib, parser.CurrentLineNumber)
        (stack[-1].children if stack else top).append(el)
        stack.append(el)

    def end(tag: str) -> None:
        stack.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(text.encode("utf-8") if isinstance(text, str) else text, True)
    except xml.parsers.expat.ExpatError as exc:
        raise ReadError(
            source, f"invalid {what} XML: {xml.parsers.expat.ErrorString(exc.code)}", line=exc.lineno
        ) from None
    if not top:
        raise ReadError(source, f"invalid {what} XML: no element")
    return top[0]


@dataclasses.dataclass(frozen=True)
class UrdfRobot:
    """What a URDF file states, in file order (the tree is built by the caller)."""

    name: str
    links: tuple[Link, ...]
    joints: tuple[Joint, ...]


class _Reader:
    def __init__(self, source: str | os.PathLike[str], links_required: bool = True) -> None:
        self.source = source
        self.links_required = links_required
        self.materials: dict[str, tuple[float, float, float, float]] = {}
        #: The quaternions of the ``<origin>`` elements' rpy (by the element's id), made together.
        self.rotations: dict[int, FloatArray] = {}

    def fail(self, el: Element, reason: str) -> ReadError:
        return ReadError(self.source, f"<{el.tag}>: {reason}", line=el.line)

    def numbers(self, el: Element, key: str, count: int, default: Sequence[float] | None = None) -> list[float]:
        text = el.attrib.get(key)
        if text is None:
            if default is None:
                raise self.fail(el, f"attribute {key!r} is missing")
            return list(default)
        parts = text.split()
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise self.fail(el, f"{key}={number(text)} is not {count} number{'s' if count > 1 else ''}") from None
        if len(values) != count or not all(math.isfinite(v) for v in values):
            raise self.fail(el, f"{key}={number(text)} is not {count} finite number{'s' if count > 1 else ''}")
        return values

    def number(self, el: Element, key: str, default: float | None = None) -> float:
        return self.numbers(el, key, 1, None if default is None else [default])[0]

    def optional(self, el: Element, key: str) -> float | None:
        return self.number(el, key) if key in el.attrib else None

    def sizes(self, el: Element, key: str, count: int = 1) -> list[float]:
        """A size (``count`` of them): above 0 and at most :data:`LARGEST_SIZE` m."""
        values = self.numbers(el, key, count)
        if not all(0 < v <= LARGEST_SIZE for v in values):
            text = el.attrib[key]
            raise self.fail(el, f"{key}={number(text)}: a size must be above 0 and at most {LARGEST_SIZE:g} m")
        return values

    def scale(self, el: Element) -> list[float]:
        """A mesh's scale: three factors, none 0 (a negative one mirrors), none beyond :data:`LARGEST_SIZE`."""
        values = self.numbers(el, "scale", 3, [1.0, 1.0, 1.0])
        if not all(0 < abs(v) <= LARGEST_SIZE for v in values):
            text = el.attrib["scale"]
            raise self.fail(el, f"scale={number(text)}: each factor must be non-zero and within ±{LARGEST_SIZE:g}")
        return values

    def origin(self, parent: Element) -> tuple[FloatArray, FloatArray]:
        el = parent.find("origin")
        if el is None:
            return np.zeros(3), IDENTITY_QUAT.copy()
        xyz = self.numbers(el, "xyz", 3, [0.0, 0.0, 0.0])
        if max(abs(v) for v in xyz) > LARGEST_SIZE:
            raise self.fail(el, f"xyz={number(el.attrib['xyz'])}: farther than {LARGEST_SIZE:g} m")
        rpy = self.numbers(el, "rpy", 3, [0.0, 0.0, 0.0])
        if not any(rpy):
            return np.array(xyz), IDENTITY_QUAT.copy()
        quat = self.rotations.get(id(el))
        return np.array(xyz), rpy_to_quat(np.array(rpy)) if quat is None else quat

    def prepare_rotations(self, parents: Sequence[Element]) -> None:
        """Turn the rpy of the parents' ``<origin>`` elements into quaternions in one call (one call
        per element made reading the Panda's URDF a third slower, TALOS's a tenth); :meth:`origin`
        takes them from there. An rpy that is not three finite numbers is left for :meth:`origin`
        to report."""
        found: list[tuple[Element, list[float]]] = []
        for parent in parents:
            el = parent.find("origin")
            text = el.attrib.get("rpy") if el is not None else None
            if el is None or text is None:
                continue
            try:
                rpy = [float(p) for p in text.split()]
            except ValueError:
                continue
            if len(rpy) == 3 and any(rpy) and all(math.isfinite(v) for v in rpy):
                found.append((el, rpy))
        if found:
            quats = rpy_to_quat(np.array([rpy for _, rpy in found]))
            self.rotations = {id(el): q for (el, _), q in zip(found, quats, strict=True)}

    def name(self, el: Element) -> str:
        name = el.attrib.get("name")
        if not name:
            raise self.fail(el, "no name")
        return name

    # ------------------------------------------------------------------ materials, visuals
    def colour(self, el: Element) -> tuple[float, float, float, float] | None:
        color = el.find("color")
        if color is not None:
            r, g, b, a = self.numbers(color, "rgba", 4)
            return (r, g, b, a)
        name = el.attrib.get("name")
        return self.materials.get(name) if name else None

    def geometry(self, el: Element) -> Geometry:
        geo = el.find("geometry")
        if geo is None or not geo.children:
            raise self.fail(el, "no <geometry>")
        shape = geo.children[0]
        if shape.tag == "box":
            return Box(np.array(self.sizes(shape, "size", 3)))
        if shape.tag == "cylinder":
            return Cylinder(self.sizes(shape, "radius")[0], self.sizes(shape, "length")[0])
        if shape.tag == "sphere":
            return Sphere(self.sizes(shape, "radius")[0])
        if shape.tag == "capsule":
            return Capsule(self.sizes(shape, "radius")[0], self.sizes(shape, "length")[0])
        if shape.tag == "mesh":
            filename = shape.attrib.get("filename")
            if not filename:
                raise self.fail(shape, "no filename")
            return Mesh(filename, np.array(self.scale(shape)))
        raise self.fail(shape, "unknown geometry; expected box, cylinder, sphere, capsule or mesh")

    def link(self, el: Element) -> Link:
        visuals = []
        for v in el.findall("visual"):
            xyz, quat = self.origin(v)
            material = v.find("material")
            rgba = self.colour(material) if material is not None else None
            visuals.append(Visual(self.geometry(v), xyz, quat, rgba, v.attrib.get("name", "")))
        collisions = []
        for c in el.findall("collision"):
            xyz, quat = self.origin(c)
            collisions.append(Visual(self.geometry(c), xyz, quat, None, c.attrib.get("name", "")))
        inertial = el.find("inertial")
        name = self.name(el)
        return Link(
            name, tuple(visuals), tuple(collisions), self.inertial(inertial, name) if inertial is not None else None
        )

    def inertial(self, el: Element, link: str) -> Inertial:
        """Mass, centre of mass and inertia (turned from the ``<origin>``'s frame into the link's);
        an inertia no body can have (:func:`.robot_parts.inertia_fault`) is refused or warned about."""
        xyz, quat = self.origin(el)
        mass_el = el.find("mass")
        mass = self.number(mass_el, "value") if mass_el is not None else 0.0
        if mass_el is not None and not 0 <= mass <= LARGEST_MASS:
            text = mass_el.attrib["value"]
            reason = f"value={number(text)}: a mass must be from 0 to {LARGEST_MASS:g} kg"
            raise self.fail(mass_el, f"link {link!r}: {reason}")
        inertia = np.zeros((3, 3))
        tensor = el.find("inertia")
        if tensor is not None:
            keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
            xx, xy, xz, yy, yz, zz = (self.number(tensor, k, 0.0) for k in keys)
            for key, value in zip(keys, (xx, xy, xz, yy, yz, zz), strict=True):
                if abs(value) > LARGEST_INERTIA:
                    text = tensor.attrib[key]
                    raise self.fail(tensor, f"link {link!r}: {key}={number(text)}: beyond ±{LARGEST_INERTIA:g} kg·m²")
            inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
            fault = inertia_fault(inertia)
            if fault is not None and fault[1]:
                raise self.fail(tensor, f"link {link!r}: {fault[0]}")
            if fault is not None:
                said = f"<inertia>: link {link!r}: {fault[0]} (used as given)"
                notify(NoticeKind.INCONSISTENT, said, file=self.source, line=tensor.line)
            if not np.array_equal(quat, IDENTITY_QUAT):
                r = quat_to_matrix(quat)
                inertia = r @ inertia @ r.T
        return Inertial(mass, xyz, inertia, tensor.line if tensor is not None else None)

    # ------------------------------------------------------------------ joints
    def joint(self, el: Element) -> Joint:
        name = self.name(el)
        kind = el.attrib.get("type")
        if kind not in JOINT_TYPES:
            raise self.fail(el, f"joint {name!r} has the unknown type {kind!r}; known: {', '.join(JOINT_TYPES)}")
        links = []
        for role in ("parent", "child"):
            ref = el.find(role)
            if ref is None or not ref.attrib.get("link"):
                if self.links_required:
                    raise self.fail(el, f"joint {name!r} has no <{role} link=...>")
                links.append("")
                continue
            links.append(ref.attrib["link"])
        xyz, quat = self.origin(el)
        axis_el = el.find("axis")
        axis = np.array([1.0, 0.0, 0.0])
        if axis_el is not None and kind not in ("fixed", "floating"):
            axis = unit_axis(self.numbers(axis_el, "xyz", 3), self.source, f"joint {name!r}", axis_el.line)
        mimic = None
        mimic_el = el.find("mimic")
        if mimic_el is not None and kind in ("revolute", "continuous", "prismatic"):
            target = mimic_el.attrib.get("joint")
            if not target:
                raise self.fail(mimic_el, f"joint {name!r}: <mimic> names no joint")
            mimic = Mimic(target, self.number(mimic_el, "multiplier", 1.0), self.number(mimic_el, "offset", 0.0))
        limit_el = el.find("limit")
        limit = self.limit(limit_el, name, kind) if limit_el is not None else None
        self.unused(el, name)
        return Joint(name, kind, links[0], links[1], xyz, quat, axis, mimic, limit, el.line)

    def unused(self, el: Element, joint: str) -> None:
        """Refuse what a joint's ``<dynamics>`` and ``<safety_controller>`` state wrongly.

        The model keeps neither, but a negative damping or friction (energy put in) or soft
        limits the wrong way round (ros2_control's safety controller would clamp every
        position) make the file wrong for the tools that read them.
        """
        dynamics = el.find("dynamics")
        if dynamics is not None:
            for key in ("damping", "friction"):
                if self.number(dynamics, key, 0.0) < 0:
                    raise self.fail(dynamics, f"joint {joint!r}: {key}={number(dynamics.attrib[key])} is negative")
        safety = el.find("safety_controller")
        if safety is not None:
            lower, upper = self.optional(safety, "soft_lower_limit"), self.optional(safety, "soft_upper_limit")
            if lower is not None and upper is not None and lower > upper:
                raise self.fail(
                    safety,
                    f"joint {joint!r}: soft_lower_limit={number(safety.attrib['soft_lower_limit'])} is above "
                    f"soft_upper_limit={number(safety.attrib['soft_upper_limit'])}",
                )

    def limit(self, el: Element, joint: str, kind: str) -> Limit:
        """A joint's ``<limit>``: a velocity or effort of 0 is "not stated" (what many files write
        for joints they do not limit), a negative one is refused (it would turn the check off),
        and so is a ``lower`` above ``upper`` on a joint that uses them."""
        lower, upper = self.optional(el, "lower"), self.optional(el, "upper")
        velocity, effort = self.optional(el, "velocity"), self.optional(el, "effort")
        for key, value in (("velocity", velocity), ("effort", effort)):
            if value is not None and value < 0:
                raise self.fail(el, f"joint {joint!r}: {key}={number(el.attrib[key])} is negative (0 means not stated)")
        if kind in ("revolute", "prismatic") and lower is not None and upper is not None and lower > upper:
            raise self.fail(
                el, f"joint {joint!r}: lower={number(el.attrib['lower'])} is above upper={number(el.attrib['upper'])}"
            )
        return Limit(lower, upper, velocity, effort)


def read_urdf(
    text: str | bytes, source: str | os.PathLike[str] = "<robot_description>", *, links_required: bool = True
) -> UrdfRobot:
    """Links and joints of the URDF ``text`` (file order; see :func:`.model.build_tree`).

    ``links_required=False`` accepts joints without ``<parent>`` / ``<child>`` (their
    links are ``""``), for what needs only the joints themselves (limits).

    Raises:
        ReadError: Not XML, not ``<robot>``, a joint of unknown type, a value that is not
            a number, a zero axis, a missing attribute; named with its line.
    """
    root = parse_xml(text, source)
    if root.tag != "robot":
        raise ReadError(source, f"not a URDF: the root element is <{root.tag}>, expected <robot>", line=root.line)
    reader = _Reader(source, links_required)
    # Named colours: the robot's materials, then those a link's visual defines (others may name them too).
    named = root.findall("material") + [
        m for link in root.findall("link") for v in link.findall("visual") for m in v.findall("material")
    ]
    for el in named:
        rgba = reader.colour(el) if el.find("color") is not None else None
        if el.attrib.get("name") and rgba is not None:
            reader.materials.setdefault(el.attrib["name"], rgba)
    link_elements, joint_elements = root.findall("link"), root.findall("joint")
    placed = [c for el in link_elements for c in el.children if c.tag in ("visual", "collision", "inertial")]
    reader.prepare_rotations(placed + joint_elements)
    links = tuple(reader.link(el) for el in link_elements)
    joints = tuple(reader.joint(el) for el in joint_elements)
    return UrdfRobot(root.attrib.get("name", ""), links, joints)


# --------------------------------------------------------------------------- writing
#: What is written where the model states no limit and URDF requires one: the travel of a
#: prismatic joint, and the velocity (rad/s, m/s) and effort (N·m, N) of a revolute or
#: prismatic joint (urdfdom refuses a ``<limit>`` without ``velocity`` and ``effort``; a 0
#: there is read as a limit of zero by ros2_control, and by MoveIt's planners for effort and
#: by some for velocity). No robot comes near it, so no tool that reads it limits anything.
UNLIMITED = 1e9


def _num(x: float) -> str:
    return repr(float(x)) if x != 0 else "0"


def _vec(values: FloatArray | Sequence[float]) -> str:
    return " ".join(_num(v) for v in values)


def _origin(xyz: FloatArray, quat: FloatArray, indent: str) -> str:
    if not np.any(xyz) and np.allclose(quat, IDENTITY_QUAT, rtol=0, atol=0):
        return ""
    rpy = quat_to_rpy(np.asarray(quat)) if not np.array_equal(quat, IDENTITY_QUAT) else np.zeros(3)
    return f'{indent}<origin xyz="{_vec(xyz)}" rpy="{_vec(rpy)}"/>\n'


def _geometry(g: Geometry) -> str:
    if isinstance(g, Box):
        return f'<box size="{_vec(g.size)}"/>'
    if isinstance(g, Cylinder):
        return f'<cylinder radius="{_num(g.radius)}" length="{_num(g.length)}"/>'
    if isinstance(g, Sphere):
        return f'<sphere radius="{_num(g.radius)}"/>'
    if isinstance(g, Capsule):
        return f'<capsule radius="{_num(g.radius)}" length="{_num(g.length)}"/>'
    from xml.sax.saxutils import quoteattr  # only when writing (it imports urllib and http)

    scale = "" if np.all(g.scale == 1.0) else f' scale="{_vec(g.scale)}"'
    return f"<mesh filename={quoteattr(g.filename)}{scale}/>"


def _shapes(v: Visual) -> list[tuple[Geometry, FloatArray, FloatArray]]:
    """The URDF shapes of a visual or collision shape: a capsule (which URDF tools rarely read)
    as a cylinder and two spheres, which fill the same space."""
    if not isinstance(v.geometry, Capsule):
        return [(v.geometry, v.origin_xyz, v.origin_quat)]
    from ..spatial import quat_rotate

    half = quat_rotate(v.origin_quat, np.array([0.0, 0.0, v.geometry.length / 2]))
    r = v.geometry.radius
    return [
        (Cylinder(r, v.geometry.length), v.origin_xyz, v.origin_quat),
        (Sphere(r), v.origin_xyz + half, v.origin_quat),
        (Sphere(r), v.origin_xyz - half, v.origin_quat),
    ]


def _inertial(inertial: Inertial) -> str:
    """``<inertial>``: the centre of mass as its origin (axes those of the link frame), the mass,
    and the inertia about the centre of mass (its upper triangle, as URDF gives it)."""
    i = inertial.inertia
    tensor = " ".join(
        f'{key}="{_num(i[r, c])}"'
        for key, r, c in (("ixx", 0, 0), ("ixy", 0, 1), ("ixz", 0, 2), ("iyy", 1, 1), ("iyz", 1, 2), ("izz", 2, 2))
    )
    return (
        f'    <inertial>\n      <origin xyz="{_vec(inertial.com)}" rpy="0 0 0"/>\n'
        f'      <mass value="{_num(inertial.mass)}"/>\n      <inertia {tensor}/>\n    </inertial>\n'
    )


def _link(link: Link) -> str:
    from xml.sax.saxutils import quoteattr  # only when writing (it imports urllib and http)

    if not (link.visuals or link.collisions or link.inertial):
        return f"  <link name={quoteattr(link.name)}/>\n"
    out = [f"  <link name={quoteattr(link.name)}>\n"]
    if link.inertial is not None:
        out.append(_inertial(link.inertial))
    for tag, shapes in (("visual", link.visuals), ("collision", link.collisions)):
        for i, v in enumerate(shapes):
            for geometry, xyz, quat in _shapes(v):
                out.append(f"    <{tag}>\n" + _origin(xyz, quat, "      "))
                out.append(f"      <geometry>{_geometry(geometry)}</geometry>\n")
                if tag == "visual" and v.rgba is not None:
                    out.append(f'      <material name="{link.name}_{i}"><color rgba="{_vec(v.rgba)}"/></material>\n')
                out.append(f"    </{tag}>\n")
    out.append("  </link>\n")
    return "".join(out)


def written_type(joint: Joint) -> str:
    """The URDF type a joint is written as: a revolute joint without both position limits as
    continuous (URDF's revolute needs them)."""
    lim = joint.limit or Limit()
    if joint.type == "revolute" and (lim.lower is None or lim.upper is None):
        return "continuous"
    return joint.type


def unstated_limits(joints: Sequence[Joint]) -> tuple[list[str], list[str]]:
    """The joints whose velocity, and those whose effort, is written as :data:`UNLIMITED` because
    the model states none (or 0, which the reader takes as none): every revolute or prismatic
    joint's ``<limit>`` needs both; a continuous joint's ``<limit>`` is written only when it
    states one of them."""
    velocity: list[str] = []
    effort: list[str] = []
    for j in joints:
        lim = j.limit or Limit()
        kind = written_type(j)
        if kind in ("revolute", "prismatic") or (kind == "continuous" and (lim.velocity or lim.effort)):
            if not lim.velocity:
                velocity.append(j.name)
            if not lim.effort:
                effort.append(j.name)
    return velocity, effort


def _limit(j: Joint) -> str:
    """The ``<limit>`` of a joint (stated values as they are, :data:`UNLIMITED` where URDF requires
    one the model does not state), or "" for a joint that needs none."""
    lim = j.limit or Limit()
    kind = written_type(j)
    if kind not in ("revolute", "prismatic") and not (kind == "continuous" and (lim.velocity or lim.effort)):
        return ""
    attrs = []
    if kind == "prismatic":
        lower = -UNLIMITED if lim.lower is None else lim.lower
        upper = UNLIMITED if lim.upper is None else lim.upper
        attrs += [f'lower="{_num(lower)}"', f'upper="{_num(upper)}"']
    elif kind == "revolute":
        attrs += [f'lower="{_num(lim.lower or 0.0)}"', f'upper="{_num(lim.upper or 0.0)}"']
    attrs += [f'effort="{_num(lim.effort or UNLIMITED)}"', f'velocity="{_num(lim.velocity or UNLIMITED)}"']
    return f"    <limit {' '.join(attrs)}/>\n"


def write_urdf(name: str, links: Sequence[Link], joints: Sequence[Joint]) -> str:
    """URDF text of a model (links and joints parent before child): every link's inertial data,
    visuals and collision shapes, every joint's limits (see :func:`unstated_limits` for what is
    written where the model states none)."""
    from xml.sax.saxutils import quoteattr  # only when writing (it imports urllib and http)

    out = ['<?xml version="1.0"?>\n', f"<robot name={quoteattr(name or 'robot')}>\n"]
    out.extend(_link(link) for link in links)
    for j in joints:
        out.append(f"  <joint name={quoteattr(j.name)} type={quoteattr(written_type(j))}>\n")
        out.append(f"    <parent link={quoteattr(j.parent)}/>\n    <child link={quoteattr(j.child)}/>\n")
        out.append(_origin(j.origin_xyz, j.origin_quat, "    "))
        if j.type not in ("fixed", "floating"):
            out.append(f'    <axis xyz="{_vec(j.axis)}"/>\n')
        out.append(_limit(j))
        if j.mimic is not None:
            m = j.mimic
            out.append(
                f'    <mimic joint={quoteattr(m.joint)} multiplier="{_num(m.multiplier)}" offset="{_num(m.offset)}"/>\n'
            )
        out.append("  </joint>\n")
    out.append("</robot>\n")
    return "".join(out)


__all__ = [
    "UNLIMITED",
    "Element",
    "UrdfRobot",
    "parse_xml",
    "read_urdf",
    "unstated_limits",
    "write_urdf",
    "written_type",
]
