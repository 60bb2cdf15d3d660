"""Robot models made to break the check: meshes coal cannot take, files that are no files,
limits and sizes that would turn a check off. Each is one line on the command line (run in a
child process, so that a crash fails the test instead of ending pytest), never a crash, a
hang or "no findings"."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import write
from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.kinematics import RobotModel, load_robot_model
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.safety import Checker

pytest.importorskip("coal")
pytest.importorskip("trimesh")

ROBOT = """<robot name="t">
  <link name="a"><collision><geometry>{a}</geometry></collision></link>
  <link name="b"><collision><origin xyz="0 0 0.5"/><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="c"><collision><geometry>{c}</geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <limit {limit}/></joint>
  <joint name="j2" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" velocity="2" effort="1"/></joint>
</robot>
"""
BOX = '<box size="0.1 0.1 0.1"/>'
SPHERE = '<sphere radius="0.05"/>'
LIMIT = 'lower="-1" upper="1" velocity="2" effort="1"'


def robot(folder: Path, a: str = BOX, c: str = SPHERE, limit: str = LIMIT, name: str = "robot.urdf") -> Path:
    path = folder / name
    path.write_text(ROBOT.format(a=a, c=c, limit=limit))
    return path


def stl(path: Path, triangles: list[list[tuple[float, float, float]]]) -> Path:
    """A binary STL of the triangles."""
    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<I", len(triangles)))
        for triangle in triangles:
            fh.write(struct.pack("<3f", 0.0, 0.0, 1.0))
            for vertex in triangle:
                fh.write(struct.pack("<3f", *vertex))
            fh.write(b"\0\0")
    return path


@pytest.fixture
def motion(tmp_path: Path) -> Path:
    """j1 swinging at up to 3 rad/s (its URDF limit is 2)."""
    t = np.arange(0, 1.0, 0.01)
    position = np.column_stack([0.5 * np.sin(6 * t), np.zeros_like(t)])
    path = tmp_path / "swing.csv"
    write(MotionFile.single(Motion(times=t, joint_names=("j1", "j2"), position=position)), path)
    return path


def one_line_error(status: int, err: str) -> str:
    assert status == 1, (status, err[-2000:])
    assert err.startswith("error: ") and err.count("\n") <= 1 and "Traceback" not in err, err[-2000:]
    return err


# --------------------------------------------------------------------------- meshes coal cannot take
SQUARE = [[(0, 0, 0), (1, 0, 0), (1, 1, 0)], [(0, 0, 0), (1, 1, 0), (0, 1, 0)]]
LINE = [[(0, 0, 0), (1, 0, 0), (2, 0, 0)], [(0, 0, 0), (3, 0, 0), (4, 0, 0)]]
POINT = [[(0, 0, 0)] * 3] * 2
SOLID = [[(0, 0, 0), (0.1, 0, 0), (0.1, 0.1, 0)], [(0, 0, 0), (0.1, 0.1, 0.1), (0, 0.1, 0)]]


def test_a_flat_mesh_is_collided_as_its_triangles(tmp_path: Path, motion: Path) -> None:
    stl(tmp_path / "flat.stl", SQUARE)
    status, out, err, _ = cli("check", motion, "--urdf", robot(tmp_path, a='<mesh filename="flat.stl"/>'), blocked=())
    assert status == 3, err[-2000:]  # the velocity finding: the check ran
    assert "flat.stl is flat (no convex hull): collided as its 2 triangles" in err and "Traceback" not in err
    assert "velocity limit" in out


@pytest.mark.parametrize(
    ("triangles", "reason"),
    [
        (LINE, "no triangle has an area (its vertices lie on a line)"),
        (POINT, "no triangle has an area (its vertices are one point)"),
    ],
)
def test_a_mesh_without_area_is_refused(tmp_path: Path, motion: Path, triangles: list, reason: str) -> None:
    stl(tmp_path / "thin.stl", triangles)
    status, _, err, _ = cli("check", motion, "--urdf", robot(tmp_path, a='<mesh filename="thin.stl"/>'), blocked=())
    assert "link 'a': collision mesh thin.stl: " + reason in one_line_error(status, err)


def test_mesh_vertices_that_are_not_finite_are_refused(tmp_path: Path, motion: Path) -> None:
    stl(tmp_path / "nan.stl", [[(0, 0, 0), (1, 0, 0), (float("nan"), 1, 0)], [(0, 0, 1), (1, 1, 0), (0, 1, 1)]])
    (tmp_path / "text.stl").write_text(
        "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex nan 1 0\nendloop\nendfacet\n"
        "facet normal 0 0 1\nouter loop\nvertex 0 0 1\nvertex 1 1 0\nvertex 0 1 1\nendloop\nendfacet\nendsolid x\n"
    )
    for name in ("nan.stl", "text.stl"):
        urdf = robot(tmp_path, a=f'<mesh filename="{name}"/>')
        status, _, err, _ = cli("check", motion, "--urdf", urdf, blocked=())
        assert f"{name}: vertex 2 is not finite (nan, 1.0, 0.0)" in one_line_error(status, err)


@pytest.mark.parametrize("scale", ["1 1 0", "0 0 0"])
def test_a_mesh_scale_of_zero_is_refused_with_its_line(tmp_path: Path, motion: Path, scale: str) -> None:
    stl(tmp_path / "solid.stl", SOLID)
    urdf = robot(tmp_path, a=f'<mesh filename="solid.stl" scale="{scale}"/>')
    status, _, err, _ = cli("check", motion, "--urdf", urdf, blocked=())
    assert f"robot.urdf:2: <mesh>: scale='{scale}': each factor must be non-zero" in one_line_error(status, err)


def test_a_mirroring_scale_is_a_mesh_like_any(tmp_path: Path) -> None:
    """Robot models mirror a mesh with a negative factor (one side's mesh for the other)."""
    stl(tmp_path / "solid.stl", SOLID)
    checker = Checker(robot(tmp_path, a='<mesh filename="solid.stl" scale="1 -1 1"/>'))
    assert checker.shapes[0].convex is not None
    assert checker.shapes[0].hull[:, 1].max() <= 0 < -checker.shapes[0].hull[:, 1].min()


@pytest.mark.parametrize(
    ("make", "what"), [("device", "a character device"), ("fifo", "a FIFO"), ("folder", "Is a directory")]
)
def test_a_mesh_that_is_no_file_says_what_it_is(tmp_path: Path, motion: Path, make: str, what: str) -> None:
    target = {"device": "/dev/zero", "fifo": str(tmp_path / "pipe.stl"), "folder": str(tmp_path / "dir.stl")}[make]
    if make == "fifo":
        os.mkfifo(target)
    elif make == "folder":
        os.mkdir(target)
    status, _, err, _ = cli("check", motion, "--urdf", robot(tmp_path, a=f'<mesh filename="{target}"/>'), blocked=())
    assert f"link 'a': collision mesh {target}: {what}" in one_line_error(status, err) and "not found" not in err


# --------------------------------------------------------------------------- the SRDF
@pytest.mark.parametrize(("make", "what"), [("device", "a character device"), ("fifo", "a FIFO")])
def test_an_srdf_that_is_no_file_is_refused_unread(tmp_path: Path, motion: Path, make: str, what: str) -> None:
    srdf = "/dev/zero" if make == "device" else str(tmp_path / "pipe.srdf")
    if make == "fifo":
        os.mkfifo(srdf)  # nobody writes to it: reading it would wait for ever
    status, _, err, _ = cli("check", motion, "--urdf", robot(tmp_path), "--srdf", srdf, blocked=())
    assert f"{srdf}: cannot read the SRDF: {what}, not a regular file" in one_line_error(status, err)


def test_srdf_errors_say_srdf(tmp_path: Path) -> None:
    srdf = tmp_path / "bad.srdf"
    srdf.write_text("<robot>\n<disable_collisions")
    with pytest.raises(ReadError, match=r"bad\.srdf:2: invalid SRDF XML"):
        Checker(robot(tmp_path), srdf=srdf)
    srdf.write_bytes(b"<robot>\0</robot>")
    with pytest.raises(ReadError, match=r"bad\.srdf: byte 7: cannot read the SRDF: binary data"):
        Checker(robot(tmp_path), srdf=srdf)


# --------------------------------------------------------------------------- limits and sizes
def test_a_negative_urdf_velocity_is_refused_not_unchecked(tmp_path: Path, motion: Path) -> None:
    urdf = robot(tmp_path, limit='lower="-1" upper="1" velocity="-0.1" effort="1"')
    status, _, err, _ = cli("check", motion, "--urdf", urdf, blocked=())
    assert "robot.urdf:6: <limit>: joint 'j1': velocity='-0.1' is negative" in one_line_error(status, err)


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ('lower="-1" upper="1" velocity="2" effort="-3"', r":6: <limit>: joint 'j1': effort='-3' is negative"),
        ('lower="1" upper="-1" velocity="2" effort="1"', r":6: <limit>: joint 'j1': lower='1' is above upper='-1'"),
    ],
)
def test_urdf_limits_that_make_no_sense_are_refused(tmp_path: Path, limit: str, message: str) -> None:
    with pytest.raises(ReadError, match=r"robot\.urdf" + message):
        load_robot_model(robot(tmp_path, limit=limit))


def test_a_zero_urdf_velocity_or_effort_means_not_stated(tmp_path: Path) -> None:
    """What many robot models write for a joint they do not limit: read, and no velocity limit."""
    checker = Checker(robot(tmp_path, limit='lower="-1" upper="1" velocity="0" effort="0"'))
    assert checker.limits["j1"].velocity is None and checker.limits["j1"].lower == -1.0


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ('<sphere radius="-0.05"/>', r":4: <sphere>: radius='-0.05': a size must be above 0"),
        ('<box size="0.1 -0.1 0.1"/>', r":4: <box>: size='0.1 -0.1 0.1': a size must be above 0"),
        ('<cylinder radius="-0.1" length="0.2"/>', r":4: <cylinder>: radius='-0.1': a size must be above 0"),
        ('<cylinder radius="0.1" length="-0.2"/>', r":4: <cylinder>: length='-0.2': a size must be above 0"),
        ('<capsule radius="0.1" length="0"/>', r":4: <capsule>: length='0': a size must be above 0"),
        ('<box size="1e308 1 1"/>', r":4: <box>: size='1e308 1 1': a size must be above 0 and at most 1e\+06 m"),
        ('<sphere radius="1e300"/>', r":4: <sphere>: radius='1e300': a size must be above 0 and at most 1e\+06 m"),
    ],
)
def test_sizes_below_zero_or_beyond_reason_are_refused(tmp_path: Path, shape: str, message: str) -> None:
    with pytest.raises(ReadError, match=r"robot\.urdf" + message):
        load_robot_model(robot(tmp_path, c=shape))


def test_a_negative_sphere_no_longer_hides_an_overlap(tmp_path: Path, motion: Path) -> None:
    """The sphere of c sits inside a's box: with its radius negated the check used to pass."""
    status, _, err, _ = cli("check", motion, "--urdf", robot(tmp_path, c='<sphere radius="-0.05"/>'), blocked=())
    assert "radius='-0.05'" in one_line_error(status, err)


def test_huge_shapes_give_no_numpy_warning(tmp_path: Path, motion: Path) -> None:
    for shape in ('<box size="1e308 1 1"/>', '<sphere radius="1e300"/>'):
        status, _, err, _ = cli("check", motion, "--urdf", robot(tmp_path, c=shape), blocked=())
        assert "overflow" not in one_line_error(status, err)
    status, _, err, _ = cli(
        "check", motion, "--urdf", robot(tmp_path, a='<box size="1e6 1e6 1e6"/>', name="big.urdf"), blocked=()
    )
    assert status == 3 and "Warning" not in err and "overflow" not in err, err[-2000:]


def test_an_origin_beyond_reason_is_refused() -> None:
    text = ROBOT.format(a=BOX, c=SPHERE, limit=LIMIT).replace('xyz="0 0 0.5"', 'xyz="1e300 0 0.5"')
    with pytest.raises(ReadError, match=r"<robot_description>:3: <origin>: xyz='1e300 0 0.5': farther than"):
        RobotModel.from_urdf(text)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            "{has_velocity_limits: true, max_velocity: -0.1}",
            r"joint_limits\.j1\.max_velocity: max_velocity is negative",
        ),
        (
            "{has_acceleration_limits: true, max_acceleration: -4}",
            r"joint_limits\.j1\.max_acceleration: max_acceleration is negative",
        ),
        ("{has_jerk_limits: true, max_jerk: -50}", r"joint_limits\.j1\.max_jerk: max_jerk is negative"),
        (
            "{has_position_limits: true, min_position: 1, max_position: -1}",
            r"joint_limits\.j1: min_position 1 is above max_position -1",
        ),
    ],
)
def test_joint_limits_yaml_that_would_turn_a_check_off_is_refused(tmp_path: Path, entry: str, message: str) -> None:
    limits = tmp_path / "joint_limits.yaml"
    limits.write_text(f"joint_limits:\n  j1: {entry}\n")
    with pytest.raises(ReadError, match=r"joint_limits\.yaml: " + message):
        Checker(robot(tmp_path), limits=limits)


def test_a_zero_in_joint_limits_yaml_keeps_the_models_limit(tmp_path: Path) -> None:
    limits = tmp_path / "joint_limits.yaml"
    limits.write_text("joint_limits:\n  j1: {has_velocity_limits: true, max_velocity: 0}\n")
    assert Checker(robot(tmp_path), limits=limits).limits["j1"].velocity == 2.0


BODY = """name: b
links:
  - {name: base, jointType: free}
  - name: arm
    parent: base
    jointType: revolute
    %s
"""


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("jointRange: [90, -90]", r":7: links\[1\] \(arm\)\.jointRange: the range \[90, -90\] starts above its end"),
        (
            "jointVelocityRange: [3, -3]",
            r":7: links\[1\] \(arm\)\.jointVelocityRange: the range \[3, -3\] starts above its end",
        ),
        ("maxJointVelocity: -3", r":7: links\[1\] \(arm\)\.maxJointVelocity: expected a speed of at least 0, got -3"),
        ("translation: [1e300, 0, 0]", r":7: links\[1\] \(arm\)\.translation: \[1e\+300, 0, 0\] is farther than"),
    ],
)
def test_body_limits_that_make_no_sense_are_refused(tmp_path: Path, entry: str, message: str) -> None:
    path = tmp_path / "bad.body"
    path.write_text(BODY % entry)
    with pytest.raises(ReadError, match=r"bad\.body" + message):
        load_robot_model(path)
