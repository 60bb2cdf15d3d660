"""Robot models of example-robot-data (installed from PyPI, used in place) and pinocchio references."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import numpy as np

from motion_formats_ros.core.kinematics.urdf import parse_xml


def share() -> Path:
    """The prefix folder whose ``example-robot-data/robots`` hold the models (a ``--package-path``)."""
    try:
        folder = Path(str(distribution("example-robot-data").locate_file("cmeel.prefix/share")))
    except PackageNotFoundError as exc:  # the test extra brings it
        raise RuntimeError("example-robot-data is not installed (pip install -e '.[test]')") from exc
    assert (folder / "example-robot-data" / "robots").is_dir(), folder
    return folder


def robot_file(*parts: str) -> Path:
    return share().joinpath("example-robot-data", "robots", *parts)


PANDA_URDF = ("panda_description", "urdf", "panda.urdf")
PANDA_SRDF = ("panda_description", "srdf", "panda.srdf")
TALOS_URDF = ("talos_data", "robots", "talos_reduced.urdf")
TALOS_SRDF = ("talos_data", "srdf", "talos.srdf")


def group_state(srdf: Path, name: str) -> dict[str, float]:
    """Joint values of an SRDF ``<group_state>`` (a robot's named pose)."""
    root = parse_xml(srdf.read_bytes(), srdf)
    for el in root.findall("group_state"):
        if el.attrib.get("name") == name:
            values = {j.attrib["name"]: [float(v) for v in j.attrib["value"].split()] for j in el.findall("joint")}
            return {k: v[0] for k, v in values.items() if len(v) == 1}  # a root joint's pose left out
    raise KeyError(name)


def pinocchio_models(urdf: Path, srdf: Path | None, free_flyer: bool = False) -> tuple[Any, Any, Any, Any]:
    """pinocchio's model, data, collision model (SRDF pairs removed) and collision data."""
    import pinocchio as pin

    args = (pin.JointModelFreeFlyer(),) if free_flyer else ()
    model = pin.buildModelFromUrdf(str(urdf), *args)
    geometry = pin.buildGeomFromUrdf(model, str(urdf), pin.GeometryType.COLLISION, package_dirs=[str(share())])
    geometry.addAllCollisionPairs()
    if srdf is not None:
        pin.removeCollisionPairs(model, geometry, str(srdf))
    return model, model.createData(), geometry, pin.GeometryData(geometry)


def configuration(model: Any, values: dict[str, float], base: np.ndarray | None = None) -> np.ndarray:
    """pinocchio's q for joint values by name (a mimic joint, which pinocchio keeps as a joint, is
    set by the caller); ``base`` (7,) x, y, z, qx, qy, qz, qw for a free flyer."""
    import pinocchio as pin

    q = pin.neutral(model)
    for name, value in values.items():
        if model.existJointName(name):
            q[model.joints[model.getJointId(name)].idx_q] = value
    if base is not None:
        q[:7] = base
    return q


def geometry_link(model: Any, geometry: Any, index: int) -> str:
    """The link a pinocchio collision geometry belongs to."""
    return str(model.frames[geometry.geometryObjects[index].parentFrame].name)


#: A two-link arm fixed 0.5 m above the world (joints a: about y, b: about z), with masses and no collision
#: geometry: the simulated robot of the tests that drive a controller.
TWO_LINK_ARM = """<robot name="arm">
  <link name="world"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/></joint>
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial></link>
  <joint name="a" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="50" velocity="5"/></joint>
  <link name="l1"><inertial><origin xyz="0.1 0 0"/><mass value="0.5"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="b" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.2 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="50" velocity="5"/></joint>
  <link name="l2"><inertial><origin xyz="0.1 0 0"/><mass value="0.3"/>
    <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>"""


def pincer_urdf(leader: str) -> str:
    """Two revolute joints: j1 within ±1, j2 within ±3 mimicking ``leader`` (× -8, + 0.1)."""
    return f"""<robot name="pincer">
  <link name="base"/><link name="l1"/><link name="l2"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="10" effort="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" velocity="100" effort="1"/>
    <mimic joint="{leader}" multiplier="-8" offset="0.1"/></joint>
</robot>
"""


def _box(size: str, xyz: str) -> str:
    return f'<collision><origin xyz="{xyz}"/><geometry><box size="{size}"/></geometry></collision>'


_INERTIA = (
    '<inertial><mass value="0.5"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>'
)
#: A fixed arm whose tip hangs back down into its base: base and tip are in contact in every pose
#: (the joints turn about the axis both boxes are centred on). Without an SRDF the check leaves
#: out pairs touching in the zero pose, so nothing is found; with :data:`FOLDED_SRDF`, which
#: disables only the adjacent pairs, base / tip is checked and collides at every frame.
FOLDED_URDF = f"""<robot name="folded">
  <link name="world"/>
  <joint name="fix" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/></joint>
  <link name="base">{_INERTIA}{_box("0.2 0.2 0.1", "0 0 0")}</link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="50" velocity="2"/></joint>
  <link name="upper">{_INERTIA}{_box("0.05 0.05 0.1", "0 0 0.1")}</link>
  <joint name="j2" type="revolute"><parent link="upper"/><child link="tip"/><origin xyz="0 0 0.2"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="50" velocity="2"/></joint>
  <link name="tip">{_INERTIA}{_box("0.06 0.06 0.06", "0 0 -0.3")}</link>
</robot>
"""
#: The folded arm's SRDF: only the adjacent pairs disabled.
FOLDED_SRDF = """<robot name="folded">
  <disable_collisions link1="base" link2="upper" reason="Adjacent"/>
  <disable_collisions link1="upper" link2="tip" reason="Adjacent"/>
</robot>
"""
