"""Mesh names as pinocchio and ROS find them, ``package:///NAME/…`` (a slash before the package
name, which pinocchio reads and ROS refuses) included: the check, the viewer and the physics
preview all find such a mesh where ``package://NAME/…`` is, and the model's reader says once
that it reads them so."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.robots import TALOS_SRDF, TALOS_URDF, group_state, robot_file, share

from motion_formats_ros import write
from motion_formats_ros.core.kinematics import RobotModel, load_robot_model
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.core.notices import collect

trimesh = pytest.importorskip("trimesh", reason="needs trimesh to read mesh files")

NOTICE = "starts 'package:///' (a slash before the package name, which ROS refuses)"
NOTICES = "names start 'package:///' (a slash before the package name, which ROS refuses)"


def arm_urdf(scheme: str) -> str:
    """A fixed-base arm whose two links are the same mesh of package ``mypkg``, named with ``scheme``."""
    mesh = f'<mesh filename="{scheme}mypkg/meshes/x.stl" scale="0.1 0.1 0.1"/>'
    shape = f"<geometry>{mesh}</geometry>"
    return (
        '<robot name="arm">'
        f'<link name="base"><visual><origin xyz="0 0 0.1"/>{shape}</visual>'
        f'<collision><origin xyz="0 0 0.1"/>{shape}</collision></link>'
        f'<link name="upper"><visual><origin xyz="0 0 0.1"/>{shape}</visual>'
        f'<collision><origin xyz="0 0 0.1"/>{shape}</collision></link>'
        '<joint name="lift" type="revolute"><parent link="base"/><child link="upper"/>'
        '<origin xyz="0 0 0.5"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="2"/></joint>'
        "</robot>"
    )


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A package folder (``…/src/mypkg``) holding ``meshes/x.stl``, a cube of side 1."""
    folder = tmp_path / "src" / "mypkg" / "meshes"
    folder.mkdir(parents=True)
    trimesh.creation.box(extents=(1.0, 1.0, 1.0)).export(folder / "x.stl")
    return tmp_path / "src"


def test_check_finds_three_slash_package_meshes(package: Path, tmp_path: Path) -> None:
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(arm_urdf("package:///"), encoding="utf-8")
    t = np.arange(20) / 10.0
    motion = Motion(times=t, joint_names=("lift",), position=np.sin(t)[:, None])
    path = tmp_path / "lift.csv"
    write(MotionFile.single(motion), path)
    status, out, err, _ = cli("check", path, "--urdf", urdf, "--package-path", package, "--json", blocked=())
    assert status == 0, err
    assert json.loads(out)["findings"] == []
    said = [line for line in err.splitlines() if NOTICE in line]
    assert said == [
        f"warning: {urdf}: 1 mesh name {NOTICE}: read as 'package://…', as pinocchio reads it "
        "(package:///mypkg/meshes/x.stl as package://mypkg/meshes/x.stl)"
    ], err


def test_the_viewer_draws_three_slash_package_meshes(package: Path, tmp_path: Path) -> None:
    pytest.importorskip("viser", reason="needs the view extra (viser)")
    from motion_formats_ros.view.page import _viser, choose_port
    from motion_formats_ros.view.robot_drawing import RobotDrawing

    with collect(warn=False) as report:
        model = RobotModel.from_urdf(arm_urdf("package:///"), tmp_path / "arm.urdf")
    assert [n.message.split("): ")[0] + ")" for n in report.notices] == [f"1 mesh name {NOTICE}"]
    server = _viser().ViserServer(host="127.0.0.1", port=choose_port("127.0.0.1", None), verbose=False)
    try:
        drawing = RobotDrawing(server, model, "/robot", base=tmp_path, package_paths=[package])
    finally:
        server.stop()
    assert drawing.missing_meshes == []
    assert [len(drawing.visuals[link]) for link in ("base", "upper")] == [1, 1]


def test_the_physics_preview_builds_three_slash_package_meshes(package: Path, tmp_path: Path) -> None:
    pytest.importorskip("mujoco", reason="needs the sim extra (mujoco)")
    from motion_formats_ros.simulation.builder import Gains, build

    with collect(warn=False):
        model = RobotModel.from_urdf(arm_urdf("package:///"), tmp_path / "arm.urdf")
    built = build(model, joints=["lift"], gains={"lift": Gains(100.0, 10.0)}, floating=False, package_paths=[package])
    assert built.model.nmesh == 1  # one file, read once, scaled to a cube of side 0.1
    assert np.allclose(np.ptp(built.model.mesh_vert, axis=0), 0.1)


def test_talos_with_three_slashes_is_checked_as_with_two(tmp_path: Path) -> None:
    """example-robot-data's TALOS, its mesh names written ``package:///`` in a copy: the check
    reads it (it said "collision mesh … not found" and stopped) and finds what it finds on the
    file as shipped."""
    pytest.importorskip("coal")
    original = robot_file(*TALOS_URDF)
    text = original.read_text(encoding="utf-8")
    assert text.count('filename="package://example-robot-data/') > 40
    three = tmp_path / "talos_reduced.urdf"
    three.write_text(text.replace('filename="package://', 'filename="package:///'), encoding="utf-8")
    with collect(warn=False):
        model = load_robot_model(original)
    pose = group_state(robot_file(*TALOS_SRDF), "half_sitting")
    names = model.actuated_joints
    n = 30
    motion = Motion(
        times=np.arange(n) / 100.0,
        joint_names=names,
        position=np.tile([pose.get(name, 0.0) for name in names], (n, 1)),
        root_position=np.tile([0.0, 0.0, 1.02], (n, 1)),
        root_orientation=np.tile([0.0, 0.0, 0.0, 1.0], (n, 1)),
    )
    path = tmp_path / "stand.csv"
    write(MotionFile.single(motion), path)
    reports = []
    for urdf in (original, three):
        args = ("--urdf", urdf, "--srdf", robot_file(*TALOS_SRDF), "--package-path", share(), "--json")
        status, out, err, _ = cli("check", path, *args, blocked=())
        assert status in (0, 3), err
        report = json.loads(out)
        reports.append((report["frames"], report["checked"], report["findings"]))
        assert (f"41 mesh {NOTICES}" in err) == (urdf == three), err
    assert reports[0] == reports[1]
    assert reports[0][0] == n and "self_collision" in reports[0][1]
