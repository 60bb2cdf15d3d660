"""The motion check against pinocchio, an independent implementation: collisions, centre of mass, ZMP.

The robots are example-robot-data's (URDF + SRDF + meshes from PyPI, used where pip put
them). Agreement asked of the check: no pair pinocchio finds penetrating deeper than
1 mm is missed; frames where a pair is flagged that pinocchio finds more than 1 mm apart
stay under 5 %; the centre of mass within 1 mm; the ZMP within 5 mm on a smooth motion.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.robots import (
    PANDA_SRDF,
    PANDA_URDF,
    TALOS_SRDF,
    TALOS_URDF,
    configuration,
    geometry_link,
    group_state,
    pinocchio_models,
    robot_file,
    share,
)

from motion_formats_ros.core.kinematics import load_robot_model
from motion_formats_ros.core.model import Motion
from motion_formats_ros.safety import Checker, CheckReport
from motion_formats_ros.safety.pairs import adjacent_bodies, rigid_bodies

pin = pytest.importorskip("pinocchio")


def flagged(report: CheckReport, pair: tuple[str, str], times: np.ndarray) -> np.ndarray:
    """Frames where the report has a self-collision of ``pair``."""
    out = np.zeros(times.size, dtype=bool)
    for f in report.of_kind("self_collision"):
        if set(f.links) == set(pair):
            for a, b in f.intervals:
                out |= (times >= a - 1e-9) & (times <= b + 1e-9)
    return out


def agreement(
    urdf: tuple[str, ...],
    srdf: tuple[str, ...],
    q: np.ndarray,
    report: CheckReport,
    pairs: tuple[tuple[str, str], ...],
    free_flyer: bool = False,
) -> tuple[int, int, float]:
    """Deep contacts pinocchio finds, how many of them the report misses, and the share of frames
    where the report flags a pair that pinocchio finds more than 1 mm apart."""
    model, data, geometry, gdata = pinocchio_models(robot_file(*urdf), robot_file(*srdf), free_flyer)
    owner = [
        frozenset((geometry_link(model, geometry, p.first), geometry_link(model, geometry, p.second)))
        for p in geometry.collisionPairs
    ]
    # The same link pairs are checked (the SRDF's disabled pairs left out on both sides), but for
    # adjacent ones the SRDF does not list: pinocchio checks them, the check never does.
    ours_model = load_robot_model(robot_file(*urdf))
    body = rigid_bodies(ours_model)
    adjacent = adjacent_bodies(ours_model, body)
    unlisted = {o for o in owner if frozenset(body[name] for name in o) in adjacent}
    assert {frozenset(p) for p in pairs} == set(owner) - unlisted
    for request in gdata.collisionRequests:
        request.enable_contact = True
    times = report.times
    ours = {frozenset(p): flagged(report, p, times) for p in pairs}
    deep = missed = 0
    wrong = np.zeros(len(q), dtype=bool)
    for f, qf in enumerate(q):
        pin.computeCollisions(model, data, geometry, gdata, qf, False)
        depth: dict[frozenset[str], float] = {}
        for k, pair in enumerate(owner):
            if pair in unlisted:
                continue
            result = gdata.collisionResults[k]
            if result.isCollision():
                pd = max(abs(result.getContact(i).penetration_depth) for i in range(result.numContacts()))
                depth[pair] = max(depth.get(pair, 0.0), pd)
        for pair, d in depth.items():
            if d > 1e-3:
                deep += 1
                missed += int(not ours[pair][f])
        for pair, flags in ours.items():
            if flags[f] and pair not in depth:  # flagged, pinocchio finds no contact: how far apart?
                apart = min(
                    pin.computeDistance(geometry, gdata, k).min_distance for k, o in enumerate(owner) if o == pair
                )
                wrong[f] |= apart > 1e-3
    return deep, missed, float(wrong.mean())


def test_panda_collisions_agree_with_pinocchio() -> None:
    checker = Checker(robot_file(*PANDA_URDF), srdf=robot_file(*PANDA_SRDF), package_paths=[share()])
    names = ("panda_joint1", "panda_joint2", "panda_joint3", "panda_joint4", "panda_joint5", "panda_joint6")
    names += ("panda_joint7", "panda_finger_joint1")
    lower = np.array([checker.limits[n].lower for n in names])
    upper = np.array([checker.limits[n].upper for n in names])
    rng = np.random.default_rng(7)
    n = 300
    values = rng.uniform(lower, upper, (n, len(names)))
    times = np.arange(n) * 0.01
    report = checker.check(Motion(times=times, joint_names=names, position=values))
    model, _, _, _ = pinocchio_models(robot_file(*PANDA_URDF), robot_file(*PANDA_SRDF))
    q = np.stack(
        [configuration(model, {**dict(zip(names, row, strict=True)), "panda_finger_joint2": row[-1]}) for row in values]
    )
    deep, missed, wrong = agreement(PANDA_URDF, PANDA_SRDF, q, report, checker.pairs)
    print(f"panda: {deep} deep contacts, {missed} missed, {100 * wrong:.2f} % frames falsely flagged")
    assert deep > 20, "the random frames must hold collisions to compare"
    assert missed == 0
    assert wrong < 0.05


# --------------------------------------------------------------------------- TALOS, a floating base
def talos_motion(n: int = 400, rate: float = 200.0) -> tuple[Motion, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """A smooth motion of TALOS from its half-sitting pose: every joint swings, the base moves and turns.

    Returns the motion and, for pinocchio, q (n, nq), v (n, nv) and a (n, nv) from the closed forms.
    """
    pose = group_state(robot_file(*TALOS_SRDF), "half_sitting")
    model, _, _, _ = pinocchio_models(robot_file(*TALOS_URDF), None, free_flyer=True)
    names = [model.names[i] for i in range(2, model.njoints)]
    t = np.arange(n) / rate
    w = 2 * math.pi * 0.5
    phase = np.linspace(0.0, 2.0, len(names))
    amp = 0.15
    q0 = np.array([pose.get(name, 0.0) for name in names])
    qj = q0 + amp * np.sin(w * t[:, None] + phase)
    dqj = amp * w * np.cos(w * t[:, None] + phase)
    ddqj = -amp * w * w * np.sin(w * t[:, None] + phase)
    p0 = np.array([0.1, -0.05, 1.02])
    shift = np.array([0.03, 0.02, 0.01])
    p = p0 + shift * np.sin(w * t)[:, None]
    dp = shift * w * np.cos(w * t)[:, None]
    ddp = -shift * w * w * np.sin(w * t)[:, None]
    axis = np.array([0.2, 0.1, 1.0]) / np.linalg.norm([0.2, 0.1, 1.0])
    theta = 0.3 * np.sin(w * t)
    dtheta = 0.3 * w * np.cos(w * t)
    ddtheta = -0.3 * w * w * np.sin(w * t)
    quat = np.column_stack([axis[None, :] * np.sin(theta / 2)[:, None], np.cos(theta / 2)])
    rot = np.stack([pin.Quaternion(qq[3], qq[0], qq[1], qq[2]).toRotationMatrix() for qq in quat])
    rt_dp = np.einsum("nji,nj->ni", rot, dp)
    omega_local = np.einsum("nji,j->ni", rot, axis) * dtheta[:, None]
    lin_acc = np.einsum("nji,nj->ni", rot, ddp) - np.cross(omega_local, rt_dp)
    ang_acc = np.einsum("nji,j->ni", rot, axis) * ddtheta[:, None]
    q = np.column_stack([p, quat, qj])
    v = np.column_stack([rt_dp, omega_local, dqj])
    a = np.column_stack([lin_acc, ang_acc, ddqj])
    motion = Motion(times=t, joint_names=tuple(names), position=qj, root_position=p, root_orientation=quat)
    return motion, q, v, a, names


@pytest.fixture(scope="module")
def talos_checker() -> Checker:
    return Checker(robot_file(*TALOS_URDF), srdf=robot_file(*TALOS_SRDF), package_paths=[share()])


def test_talos_com_and_zmp_agree_with_pinocchio(talos_checker: Checker) -> None:
    motion, q, v, a, _ = talos_motion()
    report = talos_checker.check(motion, series=True)
    assert report.series is not None
    model = pin.buildModelFromUrdf(str(robot_file(*TALOS_URDF)), pin.JointModelFreeFlyer())
    data = model.createData()
    com_ref = np.stack([pin.centerOfMass(model, data, qf).copy() for qf in q])
    zmp_ref = np.empty((len(q), 2))
    for f in range(len(q)):
        tau = pin.rnea(model, data, q[f], v[f], a[f])  # gravity (0, 0, -9.81) is the model's default
        rot = pin.Quaternion(q[f, 6], q[f, 3], q[f, 4], q[f, 5]).toRotationMatrix()
        force = rot @ tau[:3]
        moment = rot @ tau[3:6] + np.cross(q[f, :3], force)
        zmp_ref[f] = [-moment[1] / force[2], moment[0] / force[2]]
    assert abs(model.gravity.linear[2] + 9.81) < 1e-12
    com_error = np.linalg.norm(report.series.com - com_ref, axis=1).max()
    zmp_error = np.linalg.norm(report.series.zmp - zmp_ref, axis=1).max()
    print(f"talos: CoM error {com_error * 1000:.4f} mm, ZMP error {zmp_error * 1000:.4f} mm")
    assert com_error < 1e-3
    assert zmp_error < 5e-3
    # The motion is not static: the ZMP moves away from the centre of mass's ground point.
    assert np.linalg.norm(zmp_ref - com_ref[:, :2], axis=1).max() > 0.02


def test_talos_collisions_agree_with_pinocchio(talos_checker: Checker) -> None:
    rng = np.random.default_rng(3)
    motion, _, _, _, names = talos_motion(n=60)
    model, _, _, _ = pinocchio_models(robot_file(*TALOS_URDF), robot_file(*TALOS_SRDF), free_flyer=True)
    lower = model.lowerPositionLimit[7:]
    upper = model.upperPositionLimit[7:]
    values = rng.uniform(lower, upper, (motion.num_frames, len(names)))
    times = motion.times
    random = Motion(
        times=times,
        joint_names=motion.joint_names,
        position=values,
        root_position=motion.root_position,
        root_orientation=motion.root_orientation,
    )
    report = talos_checker.check(random)
    assert motion.root_position is not None and motion.root_orientation is not None
    q = np.column_stack([motion.root_position, motion.root_orientation, values])
    deep, missed, wrong = agreement(TALOS_URDF, TALOS_SRDF, q, report, talos_checker.pairs, free_flyer=True)
    print(f"talos: {deep} deep contacts, {missed} missed, {100 * wrong:.2f} % frames falsely flagged")
    assert deep > 5
    assert missed == 0
    assert wrong < 0.05
