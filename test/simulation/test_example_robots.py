"""The built-in examples on their simulated robots: the walk is physically feasible and both robots
stay up with the default gains, which a leg takes from the body it carries."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import read
from motion_formats_ros.core.examples import biped_body, biped_walk, nao_like_urdf, nao_wave
from motion_formats_ros.core.kinematics import RobotModel

mujoco = pytest.importorskip("mujoco")

from motion_formats_ros.simulation import simulate  # noqa: E402
from motion_formats_ros.simulation.gains import DEFAULT_BANDWIDTH  # noqa: E402


def _rms(report) -> float:  # type: ignore[no-untyped-def]
    return float(np.sqrt(np.mean([j.error_rms**2 for j in report.joint_stats])))


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("walk")
    assert cli("example", "walk", "-o", str(folder))[0] == 0
    return folder / "walk.seq", folder / "biped.body"


def test_the_example_walk_keeps_its_zmp_on_the_feet_and_its_stance_feet_still(walk: tuple[Path, Path]) -> None:
    seq, body = walk
    code, out, err, _ = cli("check", str(seq), "--body", str(body))
    assert code == 0 and "no findings" in out, out + err
    motion = read(seq, body=body).motion
    robot = RobotModel.from_body(biped_body())
    poses = robot.link_poses(motion.joint_names, motion.position, motion.root_position, motion.root_orientation)
    for foot in ("left_ankle_roll", "right_ankle_roll"):
        at = poses.translation[:, poses.links.index(foot)]
        down = at[:, 2] < at[:, 2].min() + 1e-6  # on the floor
        steps = np.flatnonzero(np.diff(down.astype(int)) != 0)
        for part in np.split(np.arange(len(down)), steps + 1):  # each stretch on the floor: the foot stays put
            if down[part[0]]:
                assert np.ptp(at[part, :2], axis=0).max() < 1e-6, foot


@pytest.mark.parametrize("speed", [0.8, 1.0, 1.2])
def test_the_example_biped_walks_its_walk_with_the_default_gains(walk: tuple[Path, Path], speed: float) -> None:
    seq, body = walk
    report = simulate(read(seq, body=body), body, speed=speed).report
    assert not report.fell, report.findings
    assert _rms(report) < 0.005  # rad, over every joint (0.0026 at speed 1)
    assert np.linalg.norm(report.displacement) > 0.09  # it walked (the plan goes 0.11 m)


def test_the_example_humanoid_waves_standing_with_the_default_gains() -> None:
    report = simulate(nao_wave(), RobotModel.from_urdf(nao_like_urdf())).report
    assert not report.fell, report.findings
    assert _rms(report) < 0.06  # rad (0.050: its lightest arm joints sag under gravity)
    assert max(j.error_max for j in report.joint_stats if "Knee" in j.joint or "Ankle" in j.joint) < 0.02


def test_a_leg_servo_is_as_stiff_as_the_body_it_carries_standing() -> None:
    robot = RobotModel.from_body(biped_body())
    sim = simulate(biped_walk(cycles=1), robot)
    gains = dict(zip(sim.built.servo_joints, sim.built.gains, strict=True))
    omega = 2 * np.pi * DEFAULT_BANDWIDTH
    carried = sum(link.inertial.mass for link in robot.links if link.inertial) - 0.4  # all but the foot
    # The ankle holds up the rest of the robot, its centre of mass some 0.2 m above the ankle.
    assert gains["left_ankle_pitch"].p > carried * 0.15**2 * omega**2
    assert gains["left_ankle_pitch"].d == pytest.approx(2 * gains["left_ankle_pitch"].p / omega)
    # Fixed to the world, a joint drives only what is beyond it: the foot.
    fixed = simulate(biped_walk(cycles=1), robot, floating=False)
    ankle = dict(zip(fixed.built.servo_joints, fixed.built.gains, strict=True))["left_ankle_pitch"]
    assert ankle.p < gains["left_ankle_pitch"].p / 100
