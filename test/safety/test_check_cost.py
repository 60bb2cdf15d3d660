"""What a check costs: its first call imports neither trimesh nor scipy, its convex hulls are
scipy's, its memory is bounded by checking frames in chunks, and the chunks change nothing."""

from __future__ import annotations

import dataclasses
import importlib
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.robots import TALOS_SRDF, TALOS_URDF, group_state, robot_file, share

from motion_formats_ros.core.mesh_files import load_mesh, package_roots, resolve
from motion_formats_ros.core.model import Motion
from motion_formats_ros.safety import Checker, collide, dynamics
from motion_formats_ros.safety.shapes import first_indices, hull_indices

pytest.importorskip("coal")
scipy_spatial = pytest.importorskip("scipy.spatial")

TEST = Path(__file__).resolve().parents[1]
#: The module (the package exports its function ``check`` under the same name).
check_module = importlib.import_module("motion_formats_ros.safety.check")


@pytest.fixture(scope="module")
def talos() -> Checker:
    return Checker(robot_file(*TALOS_URDF), srdf=robot_file(*TALOS_SRDF), package_paths=[share()])


def walking(checker: Checker, n: int, rate: float = 500.0) -> Motion:
    """Every joint swinging about the half-sitting pose while the base walks, sways and turns."""
    names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
    pose = group_state(robot_file(*TALOS_SRDF), "half_sitting")
    t = np.arange(n) / rate
    w = 2 * math.pi * 0.8
    values = np.array([pose.get(k, 0.0) for k in names]) + 0.1 * np.sin(w * t[:, None] + np.linspace(0, 3, len(names)))
    root = np.column_stack([0.3 * t / t[-1], 0.05 * np.sin(w * t), 1.0 + 0.02 * np.sin(2 * w * t)])
    yaw = 0.2 * np.sin(0.5 * w * t)
    quat = np.column_stack([np.zeros(n), np.zeros(n), np.sin(yaw / 2), np.cos(yaw / 2)])
    return Motion(times=t, joint_names=names, position=values, root_position=root, root_orientation=quat)


def test_checking_in_small_chunks_changes_nothing(talos: Checker, monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames posed, collided, balanced and measured against the support polygon a few at a time
    give the very findings, notes and series of one pass over them all."""
    motion = walking(talos, 400)
    whole = talos.check(motion, series=True)
    assert whole.series is not None and whole.findings  # a motion with something to find
    monkeypatch.setattr(dynamics, "CHUNK", 7)
    monkeypatch.setattr(dynamics, "_SUPPORT_VALUES", 1)  # one frame at a time
    monkeypatch.setattr(check_module, "_CHUNK", 16)
    monkeypatch.setattr(collide, "BATCH", 1)  # two frames a batch
    chunked = talos.check(motion, series=True)
    assert chunked.series is not None
    assert [dataclasses.astuple(f) for f in chunked.findings] == [dataclasses.astuple(f) for f in whole.findings]
    assert chunked.notes == whole.notes
    np.testing.assert_array_equal(chunked.series.com, whole.series.com)
    np.testing.assert_array_equal(chunked.series.zmp, whole.series.zmp)
    assert len(chunked.series.support) == len(whole.series.support)
    for a, b in zip(chunked.series.support, whole.series.support, strict=True):
        np.testing.assert_array_equal(a, b)


_MEMORY = """
import sys
sys.path.insert(0, {test!r})
from support.robots import TALOS_SRDF, TALOS_URDF, robot_file, share
from safety.test_check_cost import walking
from motion_formats_ros.safety import Checker

def status(key):
    return int(next(x for x in open("/proc/self/status") if x.startswith(key)).split()[1])

talos = Checker(robot_file(*TALOS_URDF), srdf=robot_file(*TALOS_SRDF), package_paths=[share()])
motion = walking(talos, 10000)
for shape in talos.shapes:  # the meshes' hulls and triangle hierarchies, built at their first use otherwise
    shape.collision_geometry(), shape.convex_geometry()
with open("/proc/self/clear_refs", "w") as fh:  # the peak (VmHWM) starts again from here
    fh.write("5")
before = status("VmRSS")
talos.check(motion)
print((status("VmHWM") - before) / 1024)
"""


def test_a_humanoid_check_holds_little_beyond_its_frames() -> None:
    """20 s of TALOS at 500 Hz (10,000 frames, balance checked): the check's own peak, in a fresh
    process (VmHWM: ru_maxrss would count the forked pytest's pages), stays far below what all
    links' rotations and all shapes' poses at every frame at once took (336 MiB)."""
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY.format(test=str(TEST))], capture_output=True, text=True, check=True
    )
    assert float(done.stdout) < 150


_FIRST = """
import sys
sys.path.insert(0, {test!r})
import numpy as np
from support.robots import PANDA_SRDF, PANDA_URDF, robot_file, share
from motion_formats_ros.core.model import Motion
from motion_formats_ros.safety import Checker

checker = Checker(robot_file(*PANDA_URDF), srdf=robot_file(*PANDA_SRDF), package_paths=[share()])
names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
checker.check(Motion(times=np.zeros(1), joint_names=names, position=np.zeros((1, len(names)))))
print(" ".join(m for m in ("trimesh", "scipy") if m in sys.modules) or "neither")
"""


def test_a_first_check_imports_neither_trimesh_nor_scipy() -> None:
    """A Panda (URDF with rpy origins, STL meshes) prepared and checked once: importing trimesh and
    scipy's spatial package took 50 times what pinocchio takes to load the model and check it."""
    done = subprocess.run(
        [sys.executable, "-c", _FIRST.format(test=str(TEST))], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "neither"


def scipy_hull(points: np.ndarray) -> np.ndarray:
    distinct = first_indices(points)
    return distinct[scipy_spatial.ConvexHull(points[distinct]).vertices]


def test_hulls_of_real_meshes_are_scipy_s(talos: Checker) -> None:
    meshes = sorted({s.label for s in talos.shapes if s.convex is not None})
    panda = sorted(robot_file("panda_description", "meshes", "collision").glob("*.stl"))
    assert len(meshes) > 20 and len(panda) == 10
    roots = package_roots([share()])
    for label in meshes:
        path = resolve(label, None, roots)
        assert path is not None, label
        points = load_mesh(path).vertices.astype(np.float64)
        np.testing.assert_array_equal(hull_indices(points), scipy_hull(points), err_msg=label)
    for path in panda:
        points = load_mesh(path).vertices.astype(np.float64)
        np.testing.assert_array_equal(hull_indices(points), scipy_hull(points), err_msg=str(path))


@st.composite
def clouds(draw: st.DrawFn) -> np.ndarray:
    """Points in space, on a box's faces (many in a plane or on a line), on a sphere, or nearly flat."""
    kind = draw(st.sampled_from(["random", "box", "sphere", "thin"]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "random":
        points = rng.normal(size=(draw(st.integers(4, 200)), 3))
    elif kind == "box":
        g = np.linspace(0.0, 1.0, draw(st.integers(2, 6)))
        grid = np.stack(np.meshgrid(g, g, g), axis=-1).reshape(-1, 3)
        points = grid[((grid == 0) | (grid == 1)).any(axis=1)] * rng.uniform(0.01, 10, 3)
    elif kind == "sphere":
        points = rng.normal(size=(draw(st.integers(10, 300)), 3))
        points /= np.linalg.norm(points, axis=1, keepdims=True)
    else:  # thinner than coal is asked to take: scipy builds it or finds none
        points = np.column_stack([rng.uniform(size=(50, 2)), 10.0 ** draw(st.floats(-12, -4)) * rng.uniform(size=50)])
    if draw(st.booleans()):  # each corner given again and again, as a mesh file gives them
        points = np.repeat(points, 3, axis=0)[rng.permutation(3 * points.shape[0])]
    return points


@settings(max_examples=120, deadline=None)
@given(points=clouds())
def test_hulls_are_scipy_s(points: np.ndarray) -> None:
    """coal's hull where the points spread well, scipy's where they are thin (coal's hull building
    would end the process there): the same vertices as scipy's, the first of repeated points."""
    try:
        expected = scipy_hull(points)
    except scipy_spatial.QhullError:
        expected = None
    found = hull_indices(points)
    if expected is None:
        assert found is None
    else:
        assert found is not None
        np.testing.assert_array_equal(found, expected)


def test_meshes_are_made_ready_to_collide_only_when_a_pair_needs_them() -> None:
    """The Panda at rest (no checked pair near): no mesh's hull or triangle hierarchy is built; a
    pose in which two links collide builds those of the links that come together."""
    from support.robots import PANDA_SRDF, PANDA_URDF

    from motion_formats_ros.safety.shapes import MeshHull, Triangles

    checker = Checker(robot_file(*PANDA_URDF), srdf=robot_file(*PANDA_SRDF), package_paths=[share()])
    names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
    meshes = [s for s in checker.shapes if isinstance(s.geometry, Triangles)]
    assert len(meshes) == 9 and all(isinstance(s.convex, MeshHull) for s in meshes)
    rest = checker.check(Motion(times=np.zeros(1), joint_names=names, position=np.zeros((1, len(names)))))
    assert not rest.of_kind("self_collision")
    assert all(s.geometry._model is None and s.convex._made is None for s in meshes)
    # A pose in which two checked links collide: the first of random poses within the limits.
    lower = np.array([checker.limits[k].lower for k in names])
    upper = np.array([checker.limits[k].upper for k in names])
    poses = np.random.default_rng(11).uniform(lower, upper, (200, len(names)))
    found = Checker(robot_file(*PANDA_URDF), srdf=robot_file(*PANDA_SRDF), package_paths=[share()]).check(
        Motion(times=np.arange(200.0), joint_names=names, position=poses)
    )
    first = int(min(f.intervals[0][0] for f in found.of_kind("self_collision")))
    folded = checker.check(Motion(times=np.zeros(1), joint_names=names, position=poses[first : first + 1]))
    assert folded.of_kind("self_collision")
    assert any(s.geometry._model is not None for s in meshes)
    assert any(s.convex._made is not None for s in meshes)


def test_a_mesh_s_box_is_fitted_only_when_a_pair_of_it_gets_past_the_spheres() -> None:
    """The Panda at rest: the meshes of pairs whose bounding spheres meet have their boxes fitted
    (principal axes of the hull points), the others none (a box for every shape up front was
    about a fifth of preparing the Panda's shapes)."""
    from support.robots import PANDA_SRDF, PANDA_URDF

    from motion_formats_ros.core.spatial import quat_to_matrix
    from motion_formats_ros.safety.shapes import PointsBox, bounding_box, shape_poses

    checker = Checker(robot_file(*PANDA_URDF), srdf=robot_file(*PANDA_SRDF), package_paths=[share()])
    names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
    meshes = {k for k, s in enumerate(checker.shapes) if isinstance(s.box, PointsBox)}
    assert len(meshes) == 9 and not any(checker.shapes[k].box._made for k in meshes)
    checker.check(Motion(times=np.zeros(1), joint_names=names, position=np.zeros((1, len(names)))))
    poses = checker.model.link_poses((), np.zeros((1, 0)), warn=False)
    rotation, translation = shape_poses(checker.shapes, quat_to_matrix(poses.rotation), poses.translation)
    collider = checker.collider
    assert collider is not None
    near = np.flatnonzero(collider.near(rotation, translation)[0])
    expected = meshes & set(collider.first[near].tolist() + collider.second[near].tolist())
    fitted = {k for k in meshes if checker.shapes[k].box._made is not None}
    assert fitted == expected and 0 < len(fitted) < len(meshes)
    for k in fitted:
        for got, want in zip(checker.shapes[k].oriented_box(), bounding_box(checker.shapes[k].hull), strict=True):
            np.testing.assert_array_equal(got, want)
