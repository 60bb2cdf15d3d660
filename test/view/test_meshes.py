"""The viewer's shapes (built with numpy) and mesh files (found like ROS finds them, read with trimesh)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros.view import meshes


def outward(mesh: meshes.TriMesh, center: np.ndarray) -> None:
    """Every triangle with an area faces away from ``center`` (the page draws front faces only)."""
    v = mesh.vertices.astype(np.float64)[mesh.faces]
    normal = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    area = np.linalg.norm(normal, axis=1)
    real = area > 1e-9 * area.max()
    centroid = v.mean(axis=1) - center
    assert np.all(np.einsum("ij,ij->i", normal[real], centroid[real]) > 0)
    assert mesh.faces.max() < len(mesh.vertices)


@pytest.mark.parametrize(
    ("mesh", "extent"),
    [
        (meshes.box((0.2, 0.4, 0.6)), (0.2, 0.4, 0.6)),
        (meshes.cylinder(0.1, 0.5), (0.2, 0.2, 0.5)),
        (meshes.sphere(0.3), (0.6, 0.6, 0.6)),
        (meshes.capsule(0.1, 0.4), (0.2, 0.2, 0.6)),
    ],
    ids=["box", "cylinder", "sphere", "capsule"],
)
def test_shapes_have_their_size_and_face_outwards(mesh: meshes.TriMesh, extent: tuple[float, ...]) -> None:
    np.testing.assert_allclose(np.ptp(mesh.vertices, axis=0), extent, atol=1e-6)
    np.testing.assert_allclose(mesh.vertices.mean(axis=0), 0, atol=0.02)
    outward(mesh, np.zeros(3))


def test_a_bone_joins_its_ends() -> None:
    a, b = np.array([0.1, 0.2, 0.3]), np.array([0.4, -0.2, 0.3])
    bone = meshes.bone(a, b, 0.01)
    direction = (b - a) / np.linalg.norm(b - a)
    along = (bone.vertices.astype(np.float64) - a) @ direction
    np.testing.assert_allclose([along.min(), along.max()], [0, 0.5], atol=1e-6)
    outward(meshes.TriMesh(bone.vertices, bone.faces), (a + b) / 2)


def test_mesh_files_are_found_like_ros_finds_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix, folder, extra = tmp_path / "install", tmp_path / "src", tmp_path / "extra"
    (prefix / "share" / "robot_a" / "meshes").mkdir(parents=True)
    (prefix / "share" / "robot_a" / "meshes" / "a.stl").write_text("x")
    (folder / "robot_b" / "meshes").mkdir(parents=True)
    (folder / "robot_b" / "meshes" / "b.stl").write_text("x")
    (extra / "robot_c").mkdir(parents=True)
    (extra / "robot_c" / "c.obj").write_text("x")
    (tmp_path / "model" / "parts").mkdir(parents=True)
    (tmp_path / "model" / "parts" / "d.dae").write_text("x")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix))
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(folder))
    roots = meshes.package_roots([extra])
    base = tmp_path / "model"
    assert meshes.resolve("package://robot_a/meshes/a.stl", base, roots) == prefix / "share/robot_a/meshes/a.stl"
    assert meshes.resolve("package://robot_b/meshes/b.stl", base, roots) == folder / "robot_b/meshes/b.stl"
    assert meshes.resolve("package://robot_c/c.obj", base, roots) == extra / "robot_c/c.obj"
    assert meshes.resolve("parts/d.dae", base, roots) == base / "parts/d.dae"
    assert meshes.resolve(f"file://{base}/parts/d.dae", None, roots) == base / "parts/d.dae"
    assert meshes.resolve("package://robot_x/none.stl", base, roots) is None


def test_a_mesh_file_is_read_and_scaled(tmp_path: Path) -> None:
    pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")
    obj = tmp_path / "tri.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    mesh = meshes.load_mesh(obj, (2.0, 2.0, 2.0))
    assert mesh.faces.shape == (4, 3)
    np.testing.assert_allclose(np.ptp(mesh.vertices, axis=0), [2, 2, 2])
    bad = tmp_path / "bad.stl"
    bad.write_bytes(b"\x00" * 10)
    with pytest.raises(ValueError, match=r"bad\.stl"):
        meshes.load_mesh(bad)


def test_an_unreadable_mesh_is_said_once_and_not_called_not_found(tmp_path: Path) -> None:
    pytest.importorskip("viser", reason="needs the view extra (viser)")
    from motion_formats_ros.core.kinematics import RobotModel
    from motion_formats_ros.view.page import _viser, choose_port
    from motion_formats_ros.view.robot_drawing import RobotDrawing

    (tmp_path / "bad.stl").write_bytes(b"\x00" * 100)
    urdf = (
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="bad.stl"/></geometry></visual>'
        '<visual><geometry><mesh filename="gone.stl"/></geometry></visual></link></robot>'
    )
    model = RobotModel.from_urdf(urdf, tmp_path / "r.urdf")
    server = _viser().ViserServer(host="127.0.0.1", port=choose_port("127.0.0.1", None), verbose=False)
    try:
        with pytest.warns(UserWarning, match="bad.stl") as caught:
            drawing = RobotDrawing(server, model, "/robot", base=tmp_path)
    finally:
        server.stop()
    said = [str(w.message) for w in caught]
    assert said == [
        f"{tmp_path / 'bad.stl'}: not an STL: 100 bytes, where a binary STL of the 0 triangles its header "
        "declares has 84, and no ASCII STL's 'solid' at the start; the visual is not drawn"
    ]
    assert drawing.missing_meshes == ["gone.stl"]
