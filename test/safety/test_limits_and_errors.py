"""Joint limits (the model's and a MoveIt joint_limits.yaml), the command line, and input that cannot be checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.robots import PANDA_SRDF, PANDA_URDF, group_state, robot_file, share

from motion_formats_ros import write
from motion_formats_ros.core.errors import MissingDependencyError, MotionValueError, ReadError
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.safety import Checker, check

pytest.importorskip("coal")

ARM = """<robot name="arm">
  <link name="base"><collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision></link>
  <link name="upper"><collision><origin xyz="0 0 0.25"/>
    <geometry><cylinder radius="0.03" length="0.3"/></geometry></collision></link>
  <link name="lower"><collision><origin xyz="0 0 0.15"/><geometry><sphere radius="0.04"/></geometry></collision></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/><origin xyz="0 0 0.05"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" velocity="2" effort="1"/></joint>
  <joint name="j2" type="revolute"><parent link="upper"/><child link="lower"/><origin xyz="0 0 0.4"/>
    <axis xyz="0 1 0"/><limit lower="-2.8" upper="2.8" velocity="3" effort="1"/></joint>
</robot>
"""

LIMITS = """joint_limits:
  j1:
    has_velocity_limits: true
    max_velocity: 1.5
    has_acceleration_limits: true
    max_acceleration: 4.0
    has_jerk_limits: false
  j2:
    has_jerk_limits: true
    max_jerk: 50.0
"""


@pytest.fixture
def arm(tmp_path: Path) -> Path:
    path = tmp_path / "arm.urdf"
    path.write_text(ARM)
    return path


def test_position_velocity_acceleration_jerk(arm: Path, tmp_path: Path) -> None:
    limits = tmp_path / "joint_limits.yaml"
    limits.write_text(LIMITS)
    t = np.arange(0, 2.0, 0.01)
    j1 = 1.2 * np.sin(np.pi * t)  # beyond ±1; speed up to 3.77 rad/s; acceleration up to 11.8 rad/s²
    j2 = np.where(t > 1.0, 0.5, 0.0)  # a step: an enormous jerk
    motion = Motion(times=t, joint_names=("j1", "j2"), position=np.column_stack([j1, j2]))
    report = check(motion, arm, limits=limits)
    kinds = {(f.kind, f.joint) for f in report.findings}
    assert ("position_limit", "j1") in kinds
    assert ("velocity_limit", "j1") in kinds
    assert ("acceleration_limit", "j1") in kinds
    assert ("jerk_limit", "j2") in kinds
    assert ("jerk_limit", "j1") not in kinds  # has_jerk_limits: false
    position = next(f for f in report.findings if f.kind == "position_limit")
    assert position.worst == pytest.approx(1.2, abs=1e-3) and position.limit == 1.0
    # Above +1 (t in about 0.31..0.69 s) and below -1 (1.31..1.69 s): two intervals.
    assert len(position.intervals) == 2
    assert position.intervals[0][0] == pytest.approx(0.31, abs=0.011)
    velocity = next(f for f in report.findings if f.kind == "velocity_limit")
    assert velocity.limit == 1.5  # the file's limit overrides the URDF's 2
    # Without the file, only the URDF's limits: no acceleration or jerk findings, the velocity limit 2.
    plain = check(motion, arm)
    assert {f.kind for f in plain.findings} == {"position_limit", "velocity_limit"}


def test_no_collision_geometry_says_so(tmp_path: Path) -> None:
    path = tmp_path / "bare.urdf"
    path.write_text(
        '<robot name="b"><link name="a"/><link name="b"/>'
        '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint></robot>'
    )
    report = check(Motion(times=np.arange(3) * 0.1, joint_names=("j",), position=np.zeros((3, 1))), path)
    assert report.findings == [] and not Checker(path).has_collision_geometry
    assert any("no collision geometry" in n for n in report.notes)


def test_wrong_model_is_refused(arm: Path) -> None:
    motion = Motion(times=np.arange(3) * 0.1, joint_names=("x", "y"), position=np.zeros((3, 2)))
    with pytest.raises(MotionValueError, match="none of its joints"):
        check(motion, arm)


def test_missing_mesh_and_bad_files_are_errors(tmp_path: Path, arm: Path) -> None:
    meshy = tmp_path / "meshy.urdf"
    meshy.write_text(ARM.replace('<sphere radius="0.04"/>', '<mesh filename="package://nowhere/m.stl"/>'))
    with pytest.raises(ReadError, match=r"meshy\.urdf.*nowhere/m\.stl not found"):
        Checker(meshy)
    srdf = tmp_path / "bad.srdf"
    srdf.write_text("<robot>\n<disable_collisions link1='base'/>\n</robot>")
    with pytest.raises(ReadError, match=r"bad\.srdf:2"):
        Checker(arm, srdf=srdf)
    limits = tmp_path / "limits.yaml"
    limits.write_text("joint_limits:\n  j1: {has_velocity_limits: true, max_velocity: fast}\n")
    with pytest.raises(ReadError, match=r"limits\.yaml.*max_velocity"):
        Checker(arm, limits=limits)


def test_missing_collision_library_is_an_error(arm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "coal", None)  # as if the check extra were not installed
    with pytest.raises(MissingDependencyError, match="check"):
        Checker(arm)


# --------------------------------------------------------------------------- command line
@pytest.fixture(scope="module")
def panda_motions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("panda")
    pose = group_state(robot_file(*PANDA_SRDF), "default")
    names = tuple(pose)
    still = np.tile(list(pose.values()), (50, 1))
    t = np.arange(50) * 0.02
    write(MotionFile.single(Motion(times=t, joint_names=names, position=still)), folder / "default.csv")
    bent = still.copy()
    bent[:, names.index("panda_joint4")] = np.linspace(-2.35619, -3.05, 50)  # the hand folds onto the base
    bent[:, names.index("panda_joint2")] = np.linspace(-0.785398, -1.76, 50)
    bent[:, names.index("panda_joint6")] = np.linspace(1.5707, 0.3, 50)
    write(MotionFile.single(Motion(times=t * 20, joint_names=names, position=bent)), folder / "folded.csv")
    return folder / "default.csv", folder / "folded.csv"


def panda_args() -> list[str]:
    return [
        "--urdf",
        str(robot_file(*PANDA_URDF)),
        "--srdf",
        str(robot_file(*PANDA_SRDF)),
        "--package-path",
        str(share()),
    ]


def test_cli_default_pose_exit_0(panda_motions: tuple[Path, Path]) -> None:
    status, out, err, _ = cli("check", panda_motions[0], *panda_args(), blocked=())
    assert status == 0, err
    assert out.strip().endswith("no findings")


def test_cli_findings_exit_3_and_json(panda_motions: tuple[Path, Path]) -> None:
    status, out, err, _ = cli("check", panda_motions[1], *panda_args(), "--json", blocked=())
    assert status == 3, err
    report = json.loads(out)
    found = [f for f in report["findings"] if f["kind"] == "self_collision"]
    assert found, report
    assert all(len(f["links"]) == 2 and f["intervals"] and f["level"] == "error" for f in found)
    assert report["errors"] >= len(found)


def test_cli_cannot_check_exit_1_one_line(panda_motions: tuple[Path, Path], tmp_path: Path) -> None:
    status, _, err, _ = cli("check", panda_motions[0], "--urdf", str(robot_file(*PANDA_URDF)), blocked=())
    assert status == 1
    assert err.count("\n") == 0 and err.startswith("error: ") and "panda.urdf" in err and "not found" in err
    missing = tmp_path / "nothing.urdf"
    status, _, err, _ = cli("check", panda_motions[0], "--urdf", str(missing), blocked=())
    assert status == 1 and str(missing) in err
