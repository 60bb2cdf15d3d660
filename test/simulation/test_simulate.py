"""The physics preview against independent references: Choreonoid's SR1 walk sample, pinocchio's RNEA, plain MuJoCo."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path
from support.cli import cli
from support.robots import PANDA_URDF, robot_file, share

from motion_formats_ros import read
from motion_formats_ros.core.model import Motion
from motion_formats_ros.simulation import simulate

mujoco = pytest.importorskip("mujoco")

#: The gains of Choreonoid's SR1 walk sample controller (every joint).
SR1_P, SR1_D = 8000.0, 100.0


def sr1_walk() -> tuple[object, Path]:
    body = corpus_path("choreonoid", "model", "SR1.body")
    pattern = corpus_path("choreonoid", "v1", "SR1WalkPattern2.yaml")  # joints and the root's pose
    return read(pattern, body=body), body


def test_sr1_walks_its_pattern_with_the_sample_gains() -> None:
    motion, body = sr1_walk()
    report = simulate(motion, body, kp=SR1_P, kd=SR1_D).report
    assert not report.fell, report.lines()
    assert report.drift is not None and report.drift < 0.05  # ends within 5 cm of the pattern's own root
    assert np.linalg.norm(report.displacement) > 0.4  # it did walk (the pattern goes 0.445 m)
    assert max(j.error_max for j in report.joint_stats) < 0.05
    # the floor carries the robot's weight on average (130.8 kg)
    assert report.floor_force_mean == pytest.approx(130.8 * 9.81, rel=0.02)


def test_sr1_falls_when_played_faster_and_says_when() -> None:
    motion, body = sr1_walk()
    report = simulate(motion, body, kp=SR1_P, kd=SR1_D, speed=1.5).report
    assert report.fell
    fall = next(f for f in report.findings if f.kind == "fall")
    assert 2.0 < fall.worst_time < 14.29  # motion time of the fall
    assert report.duration < 14.29 / 1.5  # stopped after the fall
    assert "fell at t =" in fall.message()


def test_panda_efforts_match_pinocchio_rnea_on_the_plan() -> None:
    pin = pytest.importorskip("pinocchio")
    urdf = robot_file(*PANDA_URDF)
    names = tuple(f"panda_joint{k}" for k in range(1, 8))
    times = np.linspace(0.0, 4.0, 401)
    start = np.array([0.0, -0.5, 0.0, -2.0, 0.0, 1.6, 0.8])
    swing = np.array([0.6, 0.4, -0.5, 0.5, 0.7, -0.4, 0.6])
    shape = (1 - np.cos(np.pi * times / 4.0)) / 2  # at rest at both ends
    positions = start + shape[:, None] * swing
    motion = Motion(times=times, joint_names=names, position=positions)
    sim = simulate(motion, urdf, kp=4000.0, kd=200.0, floating=False, package_paths=[share()], record_rate=100.0)
    assert not sim.report.fell
    model = pin.buildModelFromUrdf(str(urdf))
    data = model.createData()
    rate = np.gradient(positions, times, axis=0)
    accel = np.gradient(rate, times, axis=0)
    worst = 0.0
    for k, t in enumerate(sim.times):
        if t < 0.2 or t > 3.8:
            continue  # the finite differences at the ends
        i = round(t / 0.01)
        q = pin.neutral(model)
        v = np.zeros(model.nv)
        a = np.zeros(model.nv)
        for j, name in enumerate(names):
            jid = model.getJointId(name)
            q[model.joints[jid].idx_q] = positions[i, j]
            v[model.joints[jid].idx_v] = rate[i, j]
            a[model.joints[jid].idx_v] = accel[i, j]
        tau = pin.rnea(model, data, q, v, a)
        reference = np.array([tau[model.joints[model.getJointId(n)].idx_v] for n in names])
        simulated = sim.effort[k, [sim.joint_names.index(n) for n in names]]
        worst = max(worst, float(np.abs(simulated - reference).max()))
    print(f"panda: largest |simulated effort - RNEA| = {worst:.3f} N·m")
    assert worst < 1.0


def test_the_exported_model_loads_in_plain_mujoco_with_the_body_mass(tmp_path: Path) -> None:
    body = corpus_path("choreonoid", "model", "SR1.body")
    out = tmp_path / "sr1.xml"
    status, _, err, _ = cli(
        "simulate",
        corpus_path("choreonoid", "v1", "SR1WalkPattern2.yaml"),
        "--body",
        body,
        "--kp",
        "8000",
        "--kd",
        "100",
        "--mjcf",
        out,
        blocked=(),
    )
    assert status == 0, err
    model = mujoco.MjModel.from_xml_path(str(out))
    assert float(model.body_mass.sum()) == pytest.approx(130.8)
    assert model.nu == 29
