"""Mesh files of a robot model: ``package://`` names stay inside their package, and a file
that is no mesh of its kind (holes, a device, a FIFO) is refused before trimesh reads it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros.core import mesh_files


def test_a_text_mesh_of_zeros_is_refused_naming_the_file_once(tmp_path: Path) -> None:
    pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")
    bad = tmp_path / "bad.stl"
    bad.write_bytes(b"\x00" * 10)
    with pytest.raises(ValueError, match=r"^[^:]*bad\.stl: byte 0: binary data \(a NUL byte\) in a text mesh file$"):
        mesh_files.load_mesh(bad)


def test_package_names_stay_inside_the_package_roots(tmp_path: Path) -> None:
    root = tmp_path / "share"
    (root / "robot" / "meshes").mkdir(parents=True)
    (root / "robot" / "meshes" / "a.stl").write_text("x")
    (tmp_path / "secret.stl").write_text("x")
    roots = [("folder", root)]
    assert mesh_files.resolve("package://robot/meshes/a.stl", None, roots) == root / "robot/meshes/a.stl"
    for name in (
        "package://../secret.stl",
        "package://robot/../../secret.stl",
        "package://robot/../robot/meshes/a.stl",
    ):
        assert mesh_files.resolve(name, None, roots) is None, name
    assert mesh_files.resolve(f"package://robot/{tmp_path}/secret.stl", None, roots) is None


def test_a_sparse_stl_is_refused_by_its_header_in_little_memory(tmp_path: Path) -> None:
    """2 GB of holes named .stl: neither a binary STL (its size is not 84 + 50 x the
    triangle count of its header) nor an ASCII one. Read in a child process whose address
    space is limited to 1 GiB, so that reading it whole fails there."""
    pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")
    holes = tmp_path / "holes.stl"
    with open(holes, "wb") as fh:
        fh.truncate(2 << 30)
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from pathlib import Path; from motion_formats_ros.core import mesh_files\n"
        "try:\n    mesh_files.load_mesh(Path(sys.argv[1]))\nexcept ValueError as exc:\n    print(exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(holes)], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == f"{holes}: " + (
        "not an STL: 2147483648 bytes, where a binary STL of the 0 triangles its header declares "
        "has 84, and no ASCII STL's 'solid' at the start"
    ), result.stderr[-2000:]


def test_a_device_or_fifo_is_no_mesh(tmp_path: Path) -> None:
    pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")
    os.mkfifo(tmp_path / "pipe.stl")
    with pytest.raises(ValueError, match=r"pipe\.stl: a FIFO, not a regular file$"):
        mesh_files.load_mesh(tmp_path / "pipe.stl")
    with pytest.raises(ValueError, match=r"^/dev/zero: a character device, not a regular file$"):
        mesh_files.load_mesh(Path("/dev/zero"))


def test_three_slash_package_names_are_found_as_pinocchio_finds_them(tmp_path: Path) -> None:
    """``package:///robot/…`` is ``package://robot/…`` (pinocchio joins what follows ``://`` to
    a package folder); its slashes change nothing of what stays inside the package."""
    root = tmp_path / "share"
    (root / "robot" / "meshes").mkdir(parents=True)
    (root / "robot" / "meshes" / "a.stl").write_text("x")
    (tmp_path / "secret.stl").write_text("x")
    roots = [("folder", root)]
    for name in ("package:///robot/meshes/a.stl", "package:////robot/meshes/a.stl"):
        assert mesh_files.resolve(name, None, roots) == root / "robot/meshes/a.stl", name
    for name in ("package:///../secret.stl", "package:///robot/../../secret.stl", "package:///", "package:////"):
        assert mesh_files.resolve(name, None, roots) is None, name
    found = mesh_files.resolve("package:///robot/meshes/a.stl", None, [("prefix", tmp_path)])
    assert found == root / "robot/meshes/a.stl"


def test_a_file_uri_with_escapes_is_found_as_written_or_decoded(tmp_path: Path) -> None:
    """``Path.as_uri`` (what the URDF written from a ``.body`` names its meshes with) escapes a
    space as ``%20``; ROS's resource retriever decodes it, and so is the name read here."""
    folder = tmp_path / "my robot"
    folder.mkdir()
    (folder / "a.stl").write_text("x")
    uri = (folder / "a.stl").as_uri()
    assert "%20" in uri
    assert mesh_files.resolve(uri, None, []) == folder / "a.stl"
    (tmp_path / "odd%20name.stl").write_text("x")  # a name that holds "%20" itself is found as written
    assert mesh_files.resolve(f"file://{tmp_path}/odd%20name.stl", None, []) == tmp_path / "odd%20name.stl"


def test_a_text_mesh_over_the_size_bound_is_refused_unread(tmp_path: Path) -> None:
    """An OBJ file of more than MAX_MESH_BYTES (text, then holes) is refused by its size, before trimesh parses it."""
    pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")
    big = tmp_path / "big.obj"
    with open(big, "wb") as fh:
        fh.write(b"v 0 0 0\n" * 1000)
        fh.truncate(mesh_files.MAX_MESH_BYTES + 1)
    with pytest.raises(ValueError, match="a mesh file may have") as caught:
        mesh_files.load_mesh(big)
    assert str(caught.value) == (
        f"{big}: {mesh_files.MAX_MESH_BYTES + 1} bytes, more than the {mesh_files.MAX_MESH_BYTES} a mesh file may have"
    )


def test_a_parsed_mesh_over_the_triangle_budget_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A text mesh states no count: what trimesh reads is counted (the budget lowered to 1 here)."""
    pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")
    obj = tmp_path / "two.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n", encoding="utf-8")
    assert mesh_files.load_mesh(obj).faces.shape == (2, 3)
    monkeypatch.setattr(mesh_files, "MAX_TRIANGLES", 1)
    with pytest.raises(ValueError, match=r"two\.obj: 2 triangles, more than the 1 a mesh may have$"):
        mesh_files.load_mesh(obj)
