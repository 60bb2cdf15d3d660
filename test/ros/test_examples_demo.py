"""The built-in example and `make demo`."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from motion_formats_ros.core.examples import BIPED_JOINTS, biped_urdf, biped_walk

ROOT = Path(__file__).resolve().parents[2]


def test_walk_is_smooth() -> None:
    """Continuous velocity: no jump from one frame to the next (the old gait's knee had one)."""
    peaks = []
    for rate in (100.0, 400.0):
        m = biped_walk(rate=rate).motion
        assert m.position is not None
        velocity = np.diff(m.position, axis=0) / np.diff(m.times)[:, None]
        acceleration = np.diff(velocity, axis=0) / np.diff(m.times)[1:, None]
        assert np.abs(velocity).max() < 0.6 * 6.0  # well within the URDF's 6 rad/s
        peaks.append(np.abs(acceleration).max())
    assert peaks[0] < 80.0  # rad/s², i.e. < 0.8 rad/s change per 10 ms frame
    assert peaks[1] < 1.25 * peaks[0]  # sampled 4x as often, about the same: a jump in velocity would be 4x


def test_walk_stays_within_the_urdf_limits() -> None:
    robot = ET.fromstring(biped_urdf())
    joints = {j.get("name"): j for j in robot.iter("joint")}
    assert tuple(joints) == BIPED_JOINTS
    m = biped_walk().motion
    assert m.position is not None and m.velocity is not None
    for i, name in enumerate(m.joint_names):
        limit = joints[name].find("limit")
        assert limit is not None
        lo, hi, vmax = (float(limit.get(k, "nan")) for k in ("lower", "upper", "velocity"))
        assert lo <= m.position[:, i].min() and m.position[:, i].max() <= hi, name
        assert np.abs(m.velocity[:, i]).max() <= vmax, name


def test_walk_moves_forward_and_starts_and_ends_at_rest() -> None:
    m = biped_walk(cycles=2, period=1.2, rate=100).motion
    assert m.root_position is not None and m.position is not None and m.velocity is not None
    assert m.root_position[-1, 0] > m.root_position[0, 0] + 0.05  # three steps of 3 to 6 cm
    assert np.abs(m.velocity[[0, -1]]).max() < 1e-3  # it stands still at both ends


def test_demo_runs(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "demo.py")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "group target: 241 frames, 2.4 s, rate 100 Hz" in proc.stdout  # info of the walk
    assert "walk: peak joint velocity 3.32 rad/s (right_knee; URDF limit 6 rad/s)" in proc.stdout
    if "JointTrajectory:" in proc.stdout:  # played into ROS 2 and received by the probe
        match = re.search(
            r"JointTrajectory: 1 message, (\d+) points x 12 joints \(cubic\).* ([0-9.e-]+) rad \(the", proc.stdout
        )
        assert match, proc.stdout
        assert int(match.group(1)) < 241 / 2 and float(match.group(2)) <= 1e-3  # fewer points, within tolerance
    if "simulated robot:" in proc.stdout:  # played into motion_sim and recorded
        match = re.search(r"tracking error over ([0-9.]+) s of the walk.*: max ([0-9.]+) rad", proc.stdout)
        assert match and float(match.group(1)) > 0.5 and float(match.group(2)) < 0.2, proc.stdout
        assert re.search(r"peak effort [0-9.]+ N·m", proc.stdout) and "\nstood: yes" in proc.stdout
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith("omf ")]
    assert len(rows) == 3 and all(float(r[3]) == 0.0 for r in rows)  # OMF is lossless


def test_committed_examples_are_what_the_code_generates() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "make_examples.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr


def test_example_seq_is_named_by_the_example_body() -> None:
    from motion_formats_ros import read

    walk = read(ROOT / "examples" / "walk.seq", body=ROOT / "examples" / "biped.body").motion
    assert walk.joint_names == BIPED_JOINTS
    reference = biped_walk().motion
    assert walk.position is not None and reference.position is not None
    np.testing.assert_allclose(walk.position, reference.position, atol=1e-8)  # %.9g in the file
