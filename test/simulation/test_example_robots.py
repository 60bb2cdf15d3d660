"""The built-in examples on their simulated robots: the walk is physically feasible and both robots
stay up with the default gains, which a leg takes from the body it carries."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import read
from motion_formats_ros.core import examples
from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.examples import BIPED_JOINTS, biped_body, biped_urdf, biped_walk, nao_like_urdf, nao_wave
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Motion

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


@pytest.mark.parametrize("speed", [0.8, 0.9, 1.0, 1.1, 1.2])
@pytest.mark.parametrize("model", ["biped.body", "biped.urdf"])
def test_the_example_biped_walks_its_walk_with_the_default_gains(
    walk: tuple[Path, Path], model: str, speed: float
) -> None:
    seq, body = walk
    report = simulate(read(seq, body=body), body.parent / model, speed=speed).report
    assert not report.fell, report.findings
    assert not report.findings  # within the URDF's effort limits too (12 N·m; footfalls reach 9.6)
    assert _rms(report) < 0.004  # rad, over every joint (0.0020 at speed 1)
    assert np.linalg.norm(report.displacement) > 0.05  # it walked (the plan goes 0.066 m)


@pytest.mark.parametrize("off", [-0.02, 0.02])
def test_the_biped_stands_on_one_foot_with_its_centre_of_mass_off_the_middle(off: float) -> None:
    """The floor is hard: on MuJoCo's default contact the foot sank and tilted, and the robot fell."""
    robot = RobotModel.from_urdf(biped_urdf())
    times = np.arange(401) / 100.0
    hip = examples._HIP_WIDTH
    root = np.tile([0.0, -hip, 0.3], (times.size, 1))
    feet = [np.tile([0.0, hip, 0.04], (times.size, 1)), np.tile([0.0, -hip, 0.02], (times.size, 1))]
    for _ in range(6):  # the centre of mass over the right foot, `off` (m) across its middle (8 cm wide)
        centre = examples._centre_of_mass(robot, examples._legs_ik(root, feet), root)
        root[:, :2] += np.array([examples._FOOT_CENTRE, -hip + off]) - centre[:, :2]
    motion = Motion(
        times=times,
        joint_names=BIPED_JOINTS,
        position=examples._legs_ik(root, feet),
        root_position=root,
        root_orientation=np.tile([0.0, 0.0, 0.0, 1.0], (times.size, 1)),
    )
    report = simulate(motion, robot).report
    assert not report.fell, report.findings


def test_the_example_humanoid_waves_standing_with_the_default_gains() -> None:
    report = simulate(nao_wave(), RobotModel.from_urdf(nao_like_urdf())).report
    assert not report.fell, report.findings
    assert _rms(report) < 0.01  # rad, over every joint (0.0044)
    assert (
        max(j.error_max for j in report.joint_stats) < 0.1
    )  # the elbow yaw sagged 0.75 rad when its zero pose set its gains


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


def _scaled_biped(factor: float, folder: Path) -> Path:
    """The example biped's URDF with every mass and inertia times ``factor``."""

    def times(match: re.Match[str]) -> str:
        return f'{match[1]}="{float(match[2]) * factor:.6g}"'

    text = re.sub(r'(<mass value|\bi[xyz][xyz])="([^"]+)"', times, biped_urdf())
    path = folder / f"biped_{factor:g}.urdf"
    path.write_text(text)
    return path


def test_the_biped_made_light_walks_as_it_does_or_is_refused_naming_the_link(tmp_path: Path) -> None:
    """Scaled by 1e-9 the walk is the unscaled one; scaled by 1e-13 its links' moments are at
    MuJoCo's floor, where the robot fell (and at 1e-14 stood): one line naming the link instead."""
    motion = biped_walk()
    whole = simulate(motion, RobotModel.from_urdf(biped_urdf())).report
    light = simulate(motion, _scaled_biped(1e-9, tmp_path)).report
    assert not light.fell and _rms(light) == pytest.approx(_rms(whole), rel=1e-3)
    for factor in (1e-10, 1e-13, 1e-14):
        with pytest.raises(ReadError, match=r"biped_.*\.urdf:\d+: link '\w+': cannot simulate an inertia this small"):
            simulate(motion, _scaled_biped(factor, tmp_path))
