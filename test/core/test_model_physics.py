"""What a robot model's readers make of inertias no body can have and of ``.body`` geometry types.

An inertia about the centre of mass is a body's when it is symmetric, its principal moments
are at least 0 and each is at most the sum of the other two (the triangle inequality), within
rounding. A moment about one of the link's axes below 0 is refused, naming the file, the line
and the link; the other faults, which published models have, are one warning each, naming the
same. Choreonoid refuses a geometry type it does not know; the types it knows and the package
does not read are left out with one notice.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.kinematics import RobotModel, load_robot_model
from motion_formats_ros.core.notices import NoticeKind, collect

URDF = """<robot name="r">
<link name="base"/>
<link name="arm"><inertial><mass value="1"/><origin rpy="0.3 0.2 0.1"/>
<inertia {inertia}/></inertial></link>
<joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def _urdf(tmp_path: Path, xx: float, yy: float, zz: float, xy: float = 0.0) -> Path:
    path = tmp_path / "robot.urdf"
    inertia = f'ixx="{xx}" iyy="{yy}" izz="{zz}" ixy="{xy}" ixz="0" iyz="0"'
    path.write_text(URDF.format(inertia=inertia), encoding="utf-8")
    return path


def _inertia_notices(path: Path) -> list:
    with collect(warn=False) as report:
        load_robot_model(path)
    return [n for n in report.notices if "inertia" in n.message]


def test_a_negative_urdf_moment_is_refused_naming_file_line_and_link(tmp_path: Path) -> None:
    with pytest.raises(ReadError) as caught:
        load_robot_model(_urdf(tmp_path, -1, 0.01, 0.01))
    assert str(caught.value) == (
        f"{tmp_path / 'robot.urdf'}:4: <inertia>: link 'arm': no body has this inertia: "
        "its moment about x is -1 kg·m², below 0"
    )


@pytest.mark.parametrize(
    ("moments", "reason"),
    [
        (
            (0.01, 0.01, 1.0, 0.0),
            "principal moments 0.01, 0.01, 1 kg·m² break the triangle inequality (0.01 + 0.01 < 1)",
        ),
        (
            (0.01, 0.01, 0.01, 0.05),
            "a principal moment is below 0 (-0.04, 0.01, 0.06 kg·m²: not positive semidefinite)",
        ),
    ],
)
def test_a_urdf_inertia_no_body_has_is_one_warning_naming_file_line_and_link(
    tmp_path: Path, moments: tuple[float, float, float, float], reason: str
) -> None:
    path = _urdf(tmp_path, *moments)
    notices = _inertia_notices(path)
    assert len(notices) == 1, notices
    notice = notices[0]
    assert (notice.kind, notice.file, notice.line) == (NoticeKind.INCONSISTENT, str(path), 4)
    assert notice.message.startswith("<inertia>: link 'arm': no body has this inertia: ")
    assert reason in notice.message and notice.message.endswith("(used as given)")


@pytest.mark.parametrize(
    "moments",
    [
        (1.0, 1.0, 2.0, 0.0),  # a thin plate: on the triangle inequality's edge
        (1.0, 1.0, 2.001, 0.0),  # the same, its values rounded apart
        (1.0, 1.0, 0.0, 0.0),  # a thin rod
        (0.0, 0.0, 0.0, 0.0),  # a point mass
        (-1e-20, 1e-3, 1e-3, 0.0),  # a moment of 0 written with rounding noise
        (0.0, 0.0, 0.0, 2.4e-35),  # a placeholder of 0 with noise in a product (as in a published iCub)
    ],
)
def test_inertias_a_body_can_have_within_rounding_are_read_without_a_word(
    tmp_path: Path, moments: tuple[float, float, float, float]
) -> None:
    assert _inertia_notices(_urdf(tmp_path, *moments)) == []


def test_the_rule_holds_in_any_orientation() -> None:
    from motion_formats_ros.core.kinematics.robot_parts import inertia_fault

    rng = np.random.default_rng(3)
    for _ in range(50):
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        a, b = rng.uniform(0.1, 1.0, size=2)
        good = q @ np.diag([a, b, a + b]) @ q.T  # on the edge: a + b = c
        bad = q @ np.diag([a, b, 1.01 * (a + b)]) @ q.T
        assert inertia_fault(good) is None
        fault = inertia_fault(bad)
        assert fault is not None and "triangle inequality" in fault[0] and fault[1] is False


# --------------------------------------------------------------------------- Choreonoid .body
BODY = """\
format: ChoreonoidBody
formatVersion: 2.0
name: r
links:
  - name: base
    jointType: free
    mass: 1.0
    inertia: {inertia}
    elements:
      - {{type: Shape, geometry: {{type: Box, size: [0.1, 0.1, 0.1]}}}}
      - {{type: Shape, translation: [0, 0, 0.2], geometry: {geometry}}}
"""


def _body(
    tmp_path: Path, inertia: str = "[0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01]", geometry: str = "{type: Sphere}"
) -> Path:
    path = tmp_path / "robot.body"
    path.write_text(BODY.format(inertia=inertia, geometry=geometry), encoding="utf-8")
    return path


def test_a_negative_body_moment_is_refused_naming_file_line_and_link(tmp_path: Path) -> None:
    with pytest.raises(
        ReadError,
        match=r"robot\.body:8: links\[0\] \(base\)\.inertia: no body has this inertia: "
        r"its moment about y is -0\.01 kg·m², below 0$",
    ):
        load_robot_model(_body(tmp_path, "[0.01, 0, 0, -0.01, 0, 0.01]"))


@pytest.mark.parametrize(
    ("inertia", "reason"),
    [
        ("[0.001, 0, 0, 0.001, 0, 0.01]", "break the triangle inequality (0.001 + 0.001 < 0.01)"),
        ("[0.01, 0.005, 0, 0, 0.01, 0, 0, 0, 0.01]", "it is not symmetric (entry (1, 2) is 0.005, entry (2, 1) 0)"),
    ],
)
def test_a_body_inertia_no_body_has_is_one_warning_naming_file_line_and_link(
    tmp_path: Path, inertia: str, reason: str
) -> None:
    path = _body(tmp_path, inertia)
    notices = _inertia_notices(path)
    assert len(notices) == 1, notices
    notice = notices[0]
    assert (notice.kind, notice.file, notice.line, notice.field) == (
        NoticeKind.INCONSISTENT,
        str(path),
        8,
        "links[0] (base).inertia",
    )
    assert reason in notice.message


@pytest.mark.parametrize(
    ("geometry", "message"),
    [
        ("{type: Teapot, size: [1, 1, 1]}", r"unknown geometry type 'Teapot'; Choreonoid knows Box, "),
        ("{size: [1, 1, 1]}", r"a geometry without a type; Choreonoid knows Box, "),
    ],
)
def test_a_geometry_type_choreonoid_does_not_know_is_refused_as_choreonoid_refuses_it(
    tmp_path: Path, geometry: str, message: str
) -> None:
    with pytest.raises(
        ReadError, match=r"robot\.body:11: links\[0\] \(base\)\.elements\[1\]\.geometry\.type: " + message
    ):
        load_robot_model(_body(tmp_path, geometry=geometry))


def test_a_geometry_choreonoid_has_and_the_package_does_not_read_is_left_out_with_one_notice(tmp_path: Path) -> None:
    path = _body(tmp_path, geometry="{type: Cone, radius: 0.05, height: 0.1}")
    with collect(warn=False) as report:
        model = RobotModel.from_body(path)
    assert [(n.kind, n.file, n.line, n.field, n.message) for n in report.notices] == [
        (
            NoticeKind.SKIPPED,
            str(path),
            11,
            "links[0] (base).elements[1].geometry",
            "a Cone geometry is neither drawn nor collided here (left out)",
        )
    ]
    base = model.links[0]
    assert len(base.visuals) == len(base.collisions) == 1  # the box
