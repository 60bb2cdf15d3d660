"""What the motion check reads from a robot model: collision shapes and inertial data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.kinematics import Box, Cylinder, Mesh, RobotModel, Sphere

URDF = """<robot name="r">
  <link name="base">
    <visual><geometry><box size="1 1 1"/></geometry></visual>
    <collision><origin xyz="0 0 0.1"/><geometry><box size="0.2 0.3 0.4"/></geometry></collision>
    <collision name="c2"><geometry><mesh filename="package://pkg/m.stl" scale="2 2 2"/></geometry></collision>
    <inertial>
      <origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/>
      <mass value="2.5"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="2" iyz="0" izz="3"/>
    </inertial>
  </link>
  <link name="arm"><collision><geometry><cylinder radius="0.05" length="0.3"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/>
    <limit lower="-1" upper="1" velocity="2" effort="1"/></joint>
</robot>"""


def test_urdf_collisions_and_inertial() -> None:
    model = RobotModel.from_urdf(URDF)
    base = model.links[0]
    assert len(base.visuals) == 1
    assert [type(c.geometry) for c in base.collisions] == [Box, Mesh]
    np.testing.assert_allclose(base.collisions[0].origin_xyz, [0, 0, 0.1])
    mesh = base.collisions[1].geometry
    assert isinstance(mesh, Mesh) and mesh.filename == "package://pkg/m.stl"
    assert base.collisions[1].name == "c2"
    assert base.inertial is not None
    assert base.inertial.mass == 2.5
    np.testing.assert_allclose(base.inertial.com, [0.1, 0.2, 0.3])
    # The inertia frame is turned 90° about z: its x and y moments swap in the link frame.
    np.testing.assert_allclose(base.inertial.inertia, np.diag([2.0, 1.0, 3.0]), atol=1e-12)
    arm = model.links[1]
    assert isinstance(arm.collisions[0].geometry, Cylinder) and arm.inertial is None


BODY = """format: ChoreonoidBody
formatVersion: 1.0
name: two
links:
  - name: WAIST
    jointType: free
    mass: 3.0
    centerOfMass: [0, 0, 0.05]
    inertia: [0.1, 0, 0, 0, 0.2, 0, 0, 0, 0.3]
    elements:
      - type: Visual
        elements: {Shape: {geometry: {type: Box, size: [1, 1, 1]}}}
      - type: Collision
        elements: {Shape: {geometry: {type: Sphere, radius: 0.2}}}
      - type: Shape
        geometry: {type: Cylinder, radius: 0.1, height: 0.5}
  - name: LEG
    parent: WAIST
    jointType: revolute
    jointId: 0
    translation: [0, 0, -0.3]
"""


def test_body_collisions_and_inertial() -> None:
    model = RobotModel.from_body(BODY)
    waist = model.links[0]
    assert [type(v.geometry) for v in waist.visuals] == [Box, Cylinder]
    assert [type(c.geometry) for c in waist.collisions] == [Sphere, Cylinder]
    # Choreonoid's cylinders stand along y; the shape is turned onto z as for visuals.
    np.testing.assert_allclose(abs(waist.collisions[1].origin_quat[0]), math.sqrt(0.5))
    assert waist.inertial is not None and waist.inertial.mass == 3.0
    np.testing.assert_allclose(waist.inertial.com, [0, 0, 0.05])
    np.testing.assert_allclose(waist.inertial.inertia, np.diag([0.1, 0.2, 0.3]))
    assert model.links[1].inertial is None


def test_body_bad_mass_names_the_field() -> None:
    with pytest.raises(ReadError, match=r"links\[0\] \(WAIST\)\.mass"):
        RobotModel.from_body(BODY.replace("mass: 3.0", "mass: -1"))
