"""The spheres and boxes that rule pairs out before coal is asked hold their shapes whole.

A sphere's, capsule's or cylinder's points (spread over its surface for the floor and the
support polygon) lie inside it; a sphere or box fitted to them was smaller than the shape,
and two capsules overlapping by a millimetre were never handed to coal.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from motion_formats_ros.core.kinematics import Box, Capsule, Cylinder, Geometry, RobotModel, Sphere
from motion_formats_ros.core.model import Motion
from motion_formats_ros.safety import Checker
from motion_formats_ros.safety.shapes import Shape, collision_shapes

pytest.importorskip("coal")

sizes = st.floats(0.005, 2.0)


@st.composite
def primitives(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["box", "sphere", "cylinder", "capsule"]))
    if kind == "box":
        return f'<box size="{draw(sizes)} {draw(sizes)} {draw(sizes)}"/>'
    if kind == "sphere":
        return f'<sphere radius="{draw(sizes)}"/>'
    return f'<{kind} radius="{draw(sizes)}" length="{draw(sizes)}"/>'


def shape_of(geometry: str) -> tuple[Shape, Geometry]:
    """The check's shape of a link's one collision geometry, and the geometry the model states."""
    text = f'<robot name="r"><link name="a"><collision><geometry>{geometry}</geometry></collision></link></robot>'
    model = RobotModel.from_urdf(text)
    (shape,) = collision_shapes(model)
    return shape, model.links[0].collisions[0].geometry


def surface(geometry: Geometry, rng: np.random.Generator, count: int = 2000) -> np.ndarray:
    """Points of the shape (shape frame): on its surface, its extreme points among them."""
    direction = rng.normal(size=(count, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    axes = np.vstack([np.eye(3), -np.eye(3)])
    if isinstance(geometry, Box):
        half = np.asarray(geometry.size) / 2
        corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * half
        return np.vstack([corners, np.clip(direction * half.max() * 2, -half, half)])
    if isinstance(geometry, Sphere):
        return np.vstack([axes, direction]) * geometry.radius
    assert isinstance(geometry, Cylinder | Capsule)
    r, h = geometry.radius, geometry.length
    angle = rng.uniform(0, 2 * math.pi, count)
    z = rng.choice([-h / 2, h / 2], count)
    rim = np.column_stack([r * np.cos(angle), r * np.sin(angle), z])
    if isinstance(geometry, Cylinder):
        return np.vstack([rim, [[r, 0, h / 2], [0, -r, -h / 2]]])
    ends = np.vstack([axes, direction]) * r
    shift = np.array([0.0, 0.0, h / 2])
    return np.vstack([rim, ends + shift, ends - shift])


@settings(max_examples=200, deadline=None)
@given(geometry=primitives(), seed=st.integers(0, 2**32 - 1))
def test_a_primitive_lies_inside_its_bounding_sphere_and_box(geometry: str, seed: int) -> None:
    shape, stated = shape_of(geometry)
    points = surface(stated, np.random.default_rng(seed))
    scale = float(np.abs(points).max())
    assert np.linalg.norm(points - shape.centre, axis=1).max() <= shape.radius + 1e-12 * scale
    axes, centre, half = shape.oriented_box()
    local = np.abs((points - centre) @ axes)
    assert (local <= half + 1e-12 * scale).all(), (local.max(axis=0), half)


#: Two shapes two movable joints apart (adjacent links are never checked), the middle link bare.
ROBOT = """<robot name="two">
 <link name="base"><collision><geometry>{a}</geometry></collision></link>
 <link name="mid"/>
 <link name="arm"><collision><geometry>{b}</geometry></collision></link>
 <joint name="turn" type="revolute"><parent link="base"/><child link="mid"/>
  <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
 <joint name="slide" type="prismatic"><parent link="mid"/><child link="arm"/>
  <origin xyz="{xyz}"/><axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""


@pytest.mark.parametrize(
    ("a", "b", "xyz"),
    [
        ('<capsule radius="0.1" length="0.2"/>', '<capsule radius="0.1" length="0.2"/>', "0 0 0.399"),
        ('<sphere radius="0.1"/>', '<capsule radius="0.05" length="0.3"/>', "0 0 0.299"),
        ('<sphere radius="0.1"/>', '<sphere radius="0.1"/>', "0.199 0 0"),
        ('<cylinder radius="0.1" length="0.2"/>', '<sphere radius="0.1"/>', "0 0 0.199"),
    ],
)
def test_shapes_overlapping_by_a_millimetre_collide(tmp_path: Path, a: str, b: str, xyz: str) -> None:
    """Two links 1 mm into each other (every pair checked: an SRDF that disables none)."""
    urdf = tmp_path / "two.urdf"
    urdf.write_text(ROBOT.format(a=a, b=b, xyz=xyz))
    srdf = tmp_path / "two.srdf"
    srdf.write_text('<robot name="two"/>')
    report = Checker(urdf, srdf=srdf).check(
        Motion(times=np.zeros(1), joint_names=("turn", "slide"), position=np.zeros((1, 2)))
    )
    (found,) = report.of_kind("self_collision")
    assert found.links == ("base", "arm")
    assert found.worst == pytest.approx(0.001, abs=1e-6)
