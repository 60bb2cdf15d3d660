"""A model of many links that all overlap: hundreds of thousands of link pairs, checked in
bounded time and memory, and the same findings however the frames are batched."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from support.robots import PANDA_SRDF, PANDA_URDF, group_state, robot_file, share

from motion_formats_ros import write
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.safety import Checker, collide
from motion_formats_ros.safety.pairs import candidate_pairs, choose_pairs

pytest.importorskip("coal")


def crowd(links: int) -> str:
    """A base and ``links`` links on revolute joints, each a ball at the same place: every pair overlaps."""
    parts = ['<robot name="crowd"><link name="base"><collision><geometry><box size="0.01 0.01 0.01"/></geometry>']
    parts.append("</collision></link>")
    for i in range(links):
        parts.append(
            f'<link name="l{i}"><collision><origin xyz="0 0 0.2"/><geometry><sphere radius="0.05"/></geometry>'
            f'</collision></link><joint name="j{i}" type="revolute"><parent link="base"/><child link="l{i}"/>'
            '<axis xyz="0 1 0"/><limit lower="-3" upper="3" velocity="10" effort="1"/></joint>'
        )
    return "".join(parts) + "</robot>"


def test_choosing_among_many_pairs_in_contact_takes_no_quadratic_time() -> None:
    model = RobotModel.from_urdf(crowd(300))
    linked = list(model.link_names)
    touching = {frozenset(p) for p in candidate_pairs(model, linked)}  # 44,850 pairs, all in contact
    started = time.process_time()
    choice = choose_pairs(model, linked, None, touching)
    assert time.process_time() - started < 2.0  # comparing lists pair by pair took minutes
    assert choice.pairs == ()
    assert "left out 300 adjacent pairs" in choice.notes[0] and "44850 pairs in contact" in choice.notes[0]


_CHILD = """
import json, sys, time
from motion_formats_ros import read
from motion_formats_ros.safety import check
started = time.process_time()
report = check(read(sys.argv[1]), sys.argv[2], srdf=sys.argv[3])
# VmHWM: this process's own peak (ru_maxrss would count the forked pytest's pages before exec)
peak_kib = int(next(line for line in open("/proc/self/status") if line.startswith("VmHWM")).split()[1])
print(json.dumps({"findings": len(report.findings), "pairs": len(report.pairs),
                  "cpu": time.process_time() - started,
                  "rss_mib": peak_kib / 1024}))
"""


def test_five_hundred_overlapping_links_in_bounded_memory(tmp_path: Path) -> None:
    """124,750 link pairs between balls, each colliding at each of 3 frames, with an SRDF that disables
    none (the base's 500 adjacent pairs are left out as always). Kept per pair (the memory grows
    with the pairs, not the frames), coal's solver objects alone took over a gigabyte; a child
    process measures its own peak."""
    urdf = tmp_path / "crowd.urdf"
    urdf.write_text(crowd(500))
    srdf = tmp_path / "crowd.srdf"
    srdf.write_text('<robot name="crowd"/>')
    t = np.arange(3) * 0.1
    motion = Motion(times=t, joint_names=tuple(f"j{i}" for i in range(500)), position=np.outer(t, np.ones(500)))
    write(MotionFile.single(motion), tmp_path / "crowd.csv")
    run = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path / "crowd.csv"), str(urdf), str(srdf)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout)
    assert result["pairs"] == 124750 and result["findings"] == 124750
    assert result["rss_mib"] < 700, result  # 1.4 GB before


def test_batches_of_frames_find_what_one_batch_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Panda's hand folding onto its base and back: the frames collided two at a time (each batch
    starting from the last frame of the one before) give the findings of all frames at once."""
    pose = group_state(robot_file(*PANDA_SRDF), "default")
    names = tuple(pose)
    n = 400
    position = np.tile(list(pose.values()), (n, 1))
    swing = np.sin(np.linspace(0, 2 * np.pi, n)) ** 2
    position[:, names.index("panda_joint4")] += (-3.05 + 2.35619) * swing
    position[:, names.index("panda_joint2")] += (-1.76 + 0.785398) * swing
    position[:, names.index("panda_joint6")] += (0.3 - 1.5707) * swing
    motion = Motion(times=np.arange(n) * 0.01, joint_names=names, position=position)
    checker = Checker(robot_file(*PANDA_URDF), srdf=robot_file(*PANDA_SRDF), package_paths=[share()])
    whole = checker.check(motion)
    monkeypatch.setattr(collide, "BATCH", 1)
    batched = checker.check(motion)
    found = [(f.kind, f.links, f.intervals, f.worst) for f in whole.findings]
    assert any(kind == "self_collision" for kind, *_ in found)
    assert [(f.kind, f.links, f.intervals, f.worst) for f in batched.findings] == found
