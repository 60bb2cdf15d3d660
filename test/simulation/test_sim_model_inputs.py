"""``simulate`` on models MuJoCo would refuse in its own words: flat and degenerate collision
meshes, inertias no body has, inertias a body has within rounding, and a run that diverges.

Each is decided before MuJoCo compiles the model: used (with a notice) or refused in one line
that names the model file, the link and the mesh or the inertia's line; MuJoCo's own text
never reaches the user.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import write
from motion_formats_ros.core.errors import MotionValueError
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.core.notices import collect

mujoco = pytest.importorskip("mujoco")

from motion_formats_ros.simulation import simulate  # noqa: E402
from motion_formats_ros.simulation.builder import build  # noqa: E402

#: MuJoCo's words for what the package says itself.
MUJOCO_WORDS = ("coplanar", "at least 4 vertices", "eigenvalues", "A + B >= C", "balanceinertia", "Element name")

INERTIA = 'ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"'


def _urdf(folder: Path, mesh: str | None = None, inertia: str = INERTIA, free: bool = False) -> Path:
    """A link on a revolute joint half a metre above the floor (``free``: a free root instead)."""
    collision = f'<collision><geometry><mesh filename="{mesh}"/></geometry></collision>' if mesh else ""
    joint = (
        ""
        if free
        else '<link name="world"/><joint name="j" type="revolute"><parent link="world"/><child link="base"/>'
        '<origin xyz="0 0 0.5"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="1"/></joint>'
    )
    path = folder / "arm.urdf"
    path.write_text(
        f'<robot name="arm">\n<link name="base"><inertial><mass value="1"/>\n<inertia {inertia}/></inertial>'
        f"{collision}</link>{joint}</robot>\n",
        encoding="utf-8",
    )
    return path


def _stl(path: Path, triangles: list[list[tuple[float, float, float]]]) -> Path:
    facets = "".join(
        " facet normal 0 0 1\n  outer loop\n"
        + "".join(f"   vertex {x} {y} {z}\n" for x, y, z in t)
        + "  endloop\n endfacet\n"
        for t in triangles
    )
    path.write_text(f"solid t\n{facets}endsolid t\n", encoding="utf-8")
    return path


SQUARE = [[(0, 0, 0), (0.1, 0, 0), (0.1, 0.1, 0)], [(0, 0, 0), (0.1, 0.1, 0), (0, 0.1, 0)]]


def _moving(folder: Path) -> Path:
    times = np.linspace(0, 1, 11)
    path = folder / "move.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("j",), position=times[:, None].copy())}), path)
    return path


def _still(folder: Path) -> Path:
    times = np.linspace(0, 1, 11)
    path = folder / "still.csv"
    if path.exists():
        return path
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("j",), position=np.zeros((11, 1)))}), path)
    return path


def test_a_flat_mesh_is_simulated_as_a_thin_slab_with_one_notice(tmp_path: Path) -> None:
    _stl(tmp_path / "flat.stl", SQUARE)
    urdf = _urdf(tmp_path, "flat.stl")
    status, text, err, _ = cli("simulate", _still(tmp_path), "--urdf", urdf, "--kp", "10", "--kd", "1", blocked=())
    assert status == 0 and "stood" in text, err
    assert err.strip().splitlines() == [
        f"warning: {urdf}: link 'base': collision mesh flat.stl is flat (no convex hull): simulated as the hull of "
        "its triangles 0.0001 m thick"
    ]


def test_a_falling_flat_plate_comes_to_rest_on_the_floor(tmp_path: Path) -> None:
    """The slab collides: a free plate of one flat mesh dropped from 0.2 m comes to rest on the floor."""
    _stl(tmp_path / "flat.stl", SQUARE)
    with collect(warn=False):
        robot = RobotModel.from_urdf(_urdf(tmp_path, "flat.stl", free=True).read_text(), tmp_path / "arm.urdf")
        built = build(robot, joints=[], gains={}, floating=True, root_position=(0.0, 0.0, 0.2))
    model = built.model
    data = mujoco.MjData(model)
    lowest = []
    for _ in range(1500):
        mujoco.mj_step(model, data)
        lowest.append(data.qpos[2])
    # MuJoCo's soft contact lets the impact sink in a little; a plate that did not collide would be 4 m down
    assert min(lowest) > -0.03 and abs(lowest[-1]) < 2e-3, (min(lowest), lowest[-1])


@pytest.mark.parametrize(
    ("triangles", "shape"),
    [
        ([[(0, 0, 0), (0.1, 0, 0), (0.2, 0, 0)]], "vertices lie on a line"),
        ([[(0, 0, 0), (0, 0, 0), (0, 0, 0)]], "vertices are one point"),
    ],
)
def test_a_mesh_without_area_is_one_line_naming_the_model_the_link_and_the_mesh(
    tmp_path: Path, triangles: list, shape: str
) -> None:
    _stl(tmp_path / "thin.stl", triangles)
    urdf = _urdf(tmp_path, "thin.stl")
    status, text, err, _ = cli("simulate", _still(tmp_path), "--urdf", urdf, "--kp", "10", blocked=())
    assert status == 1 and text == ""
    assert err.strip().splitlines() == [
        f"error: {urdf}: link 'base': collision mesh thin.stl: no triangle has an area (its {shape})"
    ]


def test_a_mesh_that_cannot_be_read_is_named_once_after_the_model(tmp_path: Path) -> None:
    (tmp_path / "junk.stl").write_text("solid x\nfoo\n", encoding="utf-8")
    urdf = _urdf(tmp_path, "junk.stl")
    status, _, err, _ = cli("simulate", _still(tmp_path), "--urdf", urdf, "--kp", "10", blocked=())
    line = err.strip()
    assert status == 1 and len(line.splitlines()) == 1, err
    assert line.startswith(f"error: {urdf}: link 'base': collision mesh ") and line.count("junk.stl") == 1, err
    missing = _urdf(tmp_path, "nothere.stl")
    status, _, err, _ = cli("simulate", _still(tmp_path), "--urdf", missing, "--kp", "10", blocked=())
    assert status == 1 and err.strip() == f"error: {missing}: link 'base': collision mesh nothere.stl not found"


@pytest.mark.parametrize(
    ("inertia", "reason"),
    [
        ('ixx="0.01" iyy="0.01" izz="1" ixy="0" ixz="0" iyz="0"', "break the triangle inequality"),
        ('ixx="0.01" iyy="0.01" izz="0.01" ixy="0.05" ixz="0" iyz="0"', "not positive semidefinite"),
    ],
)
def test_an_inertia_no_body_has_is_refused_naming_the_model_its_line_and_the_link(
    tmp_path: Path, inertia: str, reason: str
) -> None:
    urdf = _urdf(tmp_path, inertia=inertia)
    status, text, err, _ = cli("simulate", _still(tmp_path), "--urdf", urdf, "--kp", "10", blocked=())
    lines = err.strip().splitlines()
    assert status == 1 and text == "" and len(lines) == 2, err  # the reader's warning, then the refusal
    assert lines[0].startswith(f"warning: {urdf}:3: <inertia>: link 'base': no body has this inertia")
    assert lines[1].startswith(f"error: {urdf}:3: link 'base': cannot simulate: no body has this inertia")
    assert reason in lines[1]
    assert not any(word in err for word in MUJOCO_WORDS), err


def test_a_negative_moment_is_refused_by_the_reader_in_one_line(tmp_path: Path) -> None:
    urdf = _urdf(tmp_path, inertia='ixx="-1" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"')
    status, _, err, _ = cli("simulate", _still(tmp_path), "--urdf", urdf, "--kp", "10", blocked=())
    assert status == 1 and err.strip() == (
        f"error: {urdf}:3: <inertia>: link 'base': no body has this inertia: its moment about x is -1 kg·m², below 0"
    )


@pytest.mark.parametrize(
    "inertia",
    [
        'ixx="1e-3" iyy="1e-3" izz="0" ixy="0" ixz="0" iyz="0"',  # a thin rod: a moment of 0
        'ixx="1e-3" iyy="1e-3" izz="2.001e-3" ixy="0" ixz="0" iyz="0"',  # a plate, rounded apart
        'ixx="-1e-19" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"',  # rounding noise below 0
    ],
)
def test_an_inertia_a_body_has_within_rounding_is_simulated_with_a_note(tmp_path: Path, inertia: str) -> None:
    times = np.linspace(0, 0.2, 11)
    with collect(warn=False) as report:
        done = simulate(
            Motion(times=times, joint_names=("j",), position=np.zeros((11, 1))), _urdf(tmp_path, inertia=inertia), kp=10
        )
    assert not report.notices, report.notices
    assert any("inertias were nudged into ones MuJoCo takes" in n and ": base" in n for n in done.report.notes)
    moments = sorted(done.built.model.body_inertia[done.built.link_bodies["base"]])
    assert moments[0] > 0 and moments[0] + moments[1] >= moments[2]


def test_an_edge_inertia_turned_by_its_origin_is_simulated_as_given(tmp_path: Path) -> None:
    """A thin plate's inertia (1 + 1 = 2) turned by an origin: MuJoCo, finding the moments itself,
    could find them a rounding apart; given them, it takes them, and nothing is said."""
    urdf = _urdf(tmp_path, inertia='ixx="1e-3" iyy="1e-3" izz="2e-3" ixy="0" ixz="0" iyz="0"')
    urdf.write_text(urdf.read_text().replace('<mass value="1"/>', '<mass value="1"/><origin rpy="0.3 0.2 0.1"/>'))
    times = np.linspace(0, 0.2, 11)
    done = simulate(Motion(times=times, joint_names=("j",), position=np.zeros((11, 1))), urdf, kp=10)
    assert not any("inertias were nudged" in n for n in done.report.notes), done.report.notes
    assert sorted(done.built.model.body_inertia[done.built.link_bodies["base"]]) == pytest.approx([1e-3, 1e-3, 2e-3])


def test_a_divergence_is_told_in_the_package_s_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo's default warning handler would write MUJOCO_LOG.TXT here
    urdf = _urdf(tmp_path, inertia='ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"')
    motion = _moving(tmp_path)
    status, text, err, _ = cli("simulate", motion, "--urdf", urdf, "--kp", "1e9", "--kd", "0", blocked=())
    line = err.strip()
    assert status == 1 and text == "" and len(line.splitlines()) == 1, err
    assert line.startswith(f"error: {motion} on {urdf}: the simulation diverged "), line  # both files named
    assert " s into the run (joint " in line, line
    assert "became huge or not finite, at joint j)" in line and line.endswith("try a smaller --timestep or lower gains")
    assert not any(word in line for word in ("Nan, Inf", "QPOS", "QVEL", "QACC", "DOF", "unstable")), line


def test_a_divergence_through_the_python_api_names_the_keyword(tmp_path: Path) -> None:
    urdf = _urdf(tmp_path, inertia='ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"')
    times = np.linspace(0, 1, 11)
    with pytest.raises(MotionValueError, match=r"diverged \S+ s into the run .*try a smaller timestep or lower gains$"):
        simulate(Motion(times=times, joint_names=("j",), position=times[:, None].copy()), urdf, kp=1e9, kd=0)
