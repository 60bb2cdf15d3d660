"""Joint names are never lost in silence: a .seq written without a body says so, ``--body`` on write
orders its columns by the body's joint IDs, and a .seq / .pseq read without names suggests ``--body``."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import NAO_JOINTS, nao_wave
from motion_formats_ros.core.notices import NoticeKind, collect

EXE = Path(sys.executable).parent / "motion-formats"
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def wave(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("names") / "wave.mof"
    write(nao_wave(), path)
    return path


def _shuffled_body(path: Path) -> list[str]:
    """A .body naming NAO's joints with joint IDs in another order than the .mof's columns."""
    order = list(NAO_JOINTS[::-1])  # joint ID i is order[i]
    lines = ["format: ChoreonoidBody", "format_version: 2.0", "name: nao", "root_link: torso", "links:"]
    lines += ["  - name: torso", "    joint_type: free"]
    for joint_id, name in enumerate(order):
        lines += [f"  - name: {name}", "    parent: torso", "    joint_type: revolute", "    joint_axis: Y"]
        lines.append(f"    joint_id: {joint_id}")
    path.write_text("\n".join(lines) + "\n")
    return order


def test_a_seq_written_without_a_body_names_the_joints_it_loses(wave: Path, tmp_path: Path) -> None:
    proc = run("convert", wave, tmp_path / "k.seq")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "joint names" in line]
    assert len(lines) == 1, proc.stderr
    assert "columns in this order: HeadYaw, HeadPitch, LShoulderPitch" in lines[0]
    assert "… and 16 more" in lines[0] and "--body FILE" in lines[0]
    assert "overwrite=True" not in proc.stderr and "body=FILE" not in proc.stderr  # the command line's words
    with collect() as report, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(nao_wave(), tmp_path / "api.seq")
    [notice] = [n for n in report.notices if "joint names" in n.message]
    assert notice.kind is NoticeKind.LOSSY_WRITE and "body=FILE" in notice.message  # the API's words


def test_body_on_write_orders_the_columns_by_joint_id_and_reads_back_by_name(wave: Path, tmp_path: Path) -> None:
    body = tmp_path / "nao.body"
    order = _shuffled_body(body)
    out = tmp_path / "k.seq"
    proc = run("convert", wave, out, "--body", body)
    assert proc.returncode == 0, proc.stderr
    assert "joint names" not in proc.stderr  # the body names the columns: nothing lost
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # read with the body: no notice either
        back = read(out, body=body).motion
    source = read(wave).motion
    assert back.joint_names == tuple(order)
    assert back.position is not None and source.position is not None
    for name in NAO_JOINTS:
        np.testing.assert_allclose(
            back.position[:, back.joint_names.index(name)], source.position[:, NAO_JOINTS.index(name)]
        )
    # Column k of the file is the joint with ID k.
    unnamed = read(out, joint_names=[f"c{i}" for i in range(26)]).motion
    assert unnamed.position is not None
    np.testing.assert_allclose(unnamed.position[:, 0], source.position[:, NAO_JOINTS.index(order[0])])


def test_a_body_that_does_not_fit_the_motion_is_one_line(wave: Path, tmp_path: Path) -> None:
    proc = run("convert", wave, tmp_path / "k.seq", "--body", ROOT / "examples" / "biped.body")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert "has joints the motion lacks: left_hip_yaw" in proc.stderr and "… and 2 more" in proc.stderr
    assert not (tmp_path / "k.seq").exists()


@pytest.mark.parametrize("suffix", [".seq", ".pseq"])
def test_reading_a_file_without_names_suggests_the_body(suffix: str, tmp_path: Path) -> None:
    if suffix == ".seq":
        path = ROOT / "examples" / "walk.seq"
    else:
        path = tmp_path / "p.pseq"
        path.write_text(
            "type: PoseSeq\nname: p\nrefs:\n  - time: 0\n    refer: {type: Pose, joints: [0, 1], q: [0.1, 0.2]}\n"
            "  - time: 1\n    refer: {type: Pose, joints: [0, 1], q: [0.3, 0.4]}\n"
        )
    proc = run("info", path)
    assert proc.returncode == 0, proc.stderr
    assert "does not name its" in proc.stderr and "give the robot's .body file (--body FILE)" in proc.stderr
    assert proc.stderr.count("\n") == 1
    proc = run("info", ROOT / "examples" / "walk.seq", "--body", ROOT / "examples" / "biped.body")
    assert proc.returncode == 0 and proc.stderr == ""
