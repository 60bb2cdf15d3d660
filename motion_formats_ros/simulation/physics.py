"""The physics loop: the servos' controls for every step set in bulk, MuJoCo steps in C, results kept per chunk.

The controls of the whole motion are computed before the first step (the targets come
from the player's sampler at the playback speed); MuJoCo's ``rollout`` then steps a
chunk of :data:`CHUNK` steps in C with those controls and returns each step's state and
sensor values. Between chunks only numpy runs: the statistics (largest and squared
tracking error, efforts, floor reaction) are accumulated and the recording keeps every
``record_every``-th step, so memory stays bounded by the chunk and the recording.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import numpy.typing as npt

from .builder import FLOOR, BuiltModel

FloatArray = npt.NDArray[np.float64]

#: Steps simulated per call into MuJoCo (bounded memory; a SIGTERM is seen between chunks).
CHUNK = 2000
#: A floating base tilted this far (rad) from where the motion has it has fallen.
FALL_TILT = math.radians(60.0)
#: A link whose collision shapes come this close (m) to the floor in the plan is one the
#: motion puts on the floor (a foot, a hand on the ground), not a fall when it touches.
PLANNED_CONTACT = 0.02
#: Seconds simulated after a fall (the recording shows it), then the simulation stops.
AFTER_FALL = 1.0


@dataclasses.dataclass
class Outcome:
    """What the loop measured.

    Attributes:
        steps: Steps simulated (fewer than planned after a fall).
        error_max, error_sq, error_at: Per joint: largest |error|, sum of squared error, step of the largest.
        effort_max, effort_sq, effort_at: The same for |effort|.
        over_limit: (steps, J) flags where |effort| exceeds the joint's limit (None: no limits).
        effort_worst: Per joint: the largest |effort| (same as effort_max, kept for findings).
        floor_peak, floor_sum: The floor's vertical reaction: largest and sum (N).
        tilt: Per recorded step, the base's tilt from the plan (rad; floating base only).
        fall_step, fall_link: The first step of a fall and the link that touched the floor (None: tipped over).
        record_steps: The steps recorded.
        position, velocity, effort: (R, J) recorded joint values.
        root_position, root_orientation: (R, 3), (R, 4 x, y, z, w) recorded base pose.
        seconds: Wall-clock seconds spent in MuJoCo.
    """

    steps: int
    error_max: FloatArray
    error_sq: FloatArray
    error_at: npt.NDArray[np.intp]
    effort_max: FloatArray
    effort_sq: FloatArray
    effort_at: npt.NDArray[np.intp]
    over_limit: npt.NDArray[np.bool_]
    floor_peak: float
    floor_sum: float
    tilt_max: float
    fall_step: int | None
    fall_link: str | None
    record_steps: npt.NDArray[np.intp]
    position: FloatArray
    velocity: FloatArray
    effort: FloatArray
    root_position: FloatArray
    root_orientation: FloatArray
    seconds: float


def add_sensors(mj: Any, built: BuiltModel) -> tuple[list[str], Any]:
    """Effort sensors (one per servo) and floor-contact sensors (one per link with collision geometry);
    returns the contact sensors' links, and the recompiled model."""
    spec = built.spec
    for name in built.servo_joints:
        spec.add_sensor(name=f"effort/{name}", type=mj.mjtSensor.mjSENS_ACTUATORFRC, objtype=mj.mjtObj.mjOBJ_ACTUATOR, objname=name)
    links = []
    for link in built.robot.links:
        body = spec.body(link.name)
        if body is None or not any(g.contype or g.conaffinity for g in body.geoms):
            continue
        sensor = spec.add_sensor(name=f"floor/{link.name}", type=mj.mjtSensor.mjSENS_CONTACT)
        sensor.objtype = mj.mjtObj.mjOBJ_BODY
        sensor.objname = link.name
        sensor.reftype = mj.mjtObj.mjOBJ_GEOM
        sensor.refname = FLOOR
        sensor.intprm[:3] = [1 | 2, 3, 1]  # data: found (1) and force (2); reduce: the net force (3); one contact
        links.append(link.name)
    return links, spec.compile()


def _tilt(quat_wxyz: FloatArray, planned_xyzw: FloatArray) -> FloatArray:
    """Angle (rad) between each base's z axis and the planned base's z axis."""
    w, x, y, z = quat_wxyz[:, 0], quat_wxyz[:, 1], quat_wxyz[:, 2], quat_wxyz[:, 3]
    actual = np.column_stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])
    px, py, pz, pw = planned_xyzw[:, 0], planned_xyzw[:, 1], planned_xyzw[:, 2], planned_xyzw[:, 3]
    planned = np.column_stack([2 * (px * pz + pw * py), 2 * (py * pz - pw * px), 1 - 2 * (px * px + py * py)])
    cos = np.clip(np.einsum("ni,ni->n", actual, planned), -1.0, 1.0)
    return np.asarray(np.arccos(cos))


def planned_contacts(mj: Any, model: Any, qpos: FloatArray, links: list[str]) -> set[str]:
    """The links whose collision shapes come within :data:`PLANNED_CONTACT` of the floor in any of
    the planned configurations ``qpos`` (R, nq)."""
    data = mj.MjData(model)
    floor = model.geom(FLOOR).id
    body_of = {int(model.body(link).id): link for link in links}
    found: set[str] = set()
    geoms = [g for g in range(model.ngeom) if g != floor and int(model.geom_bodyid[g]) in body_of]
    for row in qpos:
        data.qpos[:] = row
        mj.mj_kinematics(model, data)
        for g in geoms:
            link = body_of[int(model.geom_bodyid[g])]
            if link not in found and mj.mj_geomDistance(model, data, g, floor, PLANNED_CONTACT, None) < PLANNED_CONTACT:
                found.add(link)
    return found


def run(
    mj: Any,
    built: BuiltModel,
    model: Any,
    contact_links: list[str],
    initial_qpos: FloatArray,
    initial_qvel: FloatArray,
    control: FloatArray,
    planned: FloatArray,
    planned_root_quat: FloatArray | None,
    allowed_contacts: set[str],
    record_every: int,
    interrupt: Any = None,
) -> Outcome:
    """Simulate ``control`` (K, J) from the initial state and measure against ``planned`` (K + 1, J).

    Args:
        planned_root_quat: (K + 1, 4) the base orientation the motion plans (x, y, z, w), or None
            (the start orientation is kept as the plan).
        allowed_contacts: Links the plan puts on the floor.
        record_every: Keep every this-many-th step in the recording.
        interrupt: Called between chunks (may raise to stop).
    """
    import time

    from mujoco import rollout

    k_total, n_joints = control.shape
    data = mj.MjData(model)
    data.qpos[:] = initial_qpos
    data.qvel[:] = initial_qvel
    mj.mj_forward(model, data)
    spec = mj.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mj.mj_stateSize(model, spec))
    mj.mj_getState(model, data, state, spec)
    nq = model.nq
    qpos_at = 1 + built.qpos_index
    qvel_at = 1 + nq + built.qvel_index
    n_effort = len(built.servo_joints)
    limits = built.effort_limits
    limited = np.isfinite(limits) & (limits > 0)
    record_steps = np.arange(0, k_total, record_every, dtype=np.intp)
    rec = {
        "position": np.empty((record_steps.size, n_joints)),
        "velocity": np.empty((record_steps.size, n_joints)),
        "effort": np.empty((record_steps.size, n_joints)),
        "root_position": np.empty((record_steps.size, 3)),
        "root_orientation": np.empty((record_steps.size, 4)),
    }
    err_max = np.zeros(n_joints)
    err_sq = np.zeros(n_joints)
    err_at = np.zeros(n_joints, dtype=np.intp)
    eff_max = np.zeros(n_joints)
    eff_sq = np.zeros(n_joints)
    eff_at = np.zeros(n_joints, dtype=np.intp)
    over = np.zeros((k_total, n_joints), dtype=bool)
    floor_peak = floor_sum = tilt_max = 0.0
    fall_step: int | None = None
    fall_link: str | None = None
    stop = k_total
    start_quat = initial_qpos[3:7] if built.floating else None
    spent = 0.0
    k = 0
    warm = None
    contact_index = {link: i for i, link in enumerate(contact_links)}
    watched = np.array([link not in allowed_contacts for link in contact_links], dtype=bool)
    while k < stop:
        if interrupt is not None:
            interrupt()
        hi = min(stop, k + CHUNK)
        began = time.perf_counter()
        states, sensors = rollout.rollout(
            model, data, state, control[None, k:hi], initial_warmstart=warm
        )
        spent += time.perf_counter() - began
        states, sensors = states[0], sensors[0]
        state = states[-1].copy()
        warm = data.qacc_warmstart.copy()
        q = states[:, qpos_at]
        error = np.abs(q - planned[k + 1 : hi + 1])
        effort = sensors[:, :n_effort]
        worse = error.max(axis=0) > err_max
        err_at = np.where(worse, k + error.argmax(axis=0), err_at)
        err_max = np.maximum(err_max, error.max(axis=0))
        err_sq += (error**2).sum(axis=0)
        magnitude = np.abs(effort)
        worse = magnitude.max(axis=0) > eff_max
        eff_at = np.where(worse, k + magnitude.argmax(axis=0), eff_at)
        eff_max = np.maximum(eff_max, magnitude.max(axis=0))
        eff_sq += (magnitude**2).sum(axis=0)
        if limited.any():
            over[k:hi] = limited & (magnitude > np.where(limited, limits, np.inf))
        contacts = sensors[:, n_effort:].reshape(hi - k, len(contact_links), 4)
        vertical = np.abs(contacts[:, :, 3].sum(axis=1))
        floor_peak = max(floor_peak, float(vertical.max(initial=0.0)))
        floor_sum += float(vertical.sum())
        chunk_fall: int | None = None
        if built.floating and fall_step is None:
            quat = states[:, 1 + 3 : 1 + 7]
            plan = planned_root_quat[k + 1 : hi + 1] if planned_root_quat is not None else np.tile(
                np.array([start_quat[1], start_quat[2], start_quat[3], start_quat[0]]), (hi - k, 1)
            )
            tilt = _tilt(quat, plan)
            tilt_max = max(tilt_max, float(tilt.max(initial=0.0)))
            tipped = np.flatnonzero(tilt > FALL_TILT)
            touched = np.flatnonzero((contacts[:, watched, 0] > 0).any(axis=1)) if watched.any() else np.array([], int)
            first = [int(v[0]) for v in (tipped, touched) if v.size]
            if first:
                chunk_fall = min(first)
                fall_step = k + chunk_fall
                if touched.size and int(touched[0]) == chunk_fall:
                    row = contacts[chunk_fall, :, 0] > 0
                    fall_link = next(link for link, i in contact_index.items() if row[i] and watched[i])
                stop = min(k_total, fall_step + 1 + int(AFTER_FALL / model.opt.timestep))
        keep = (record_steps >= k) & (record_steps < hi)
        rows = record_steps[keep] - k
        rec["position"][keep] = q[rows]
        rec["velocity"][keep] = states[rows][:, qvel_at]
        rec["effort"][keep] = effort[rows]
        if built.floating:
            rec["root_position"][keep] = states[rows, 1:4]
            w = states[rows, 4:8]
            rec["root_orientation"][keep] = w[:, [1, 2, 3, 0]]
        k = hi
    kept = record_steps < k
    return Outcome(
        steps=k,
        error_max=err_max,
        error_sq=err_sq,
        error_at=err_at,
        effort_max=eff_max,
        effort_sq=eff_sq,
        effort_at=eff_at,
        over_limit=over[:k],
        floor_peak=floor_peak,
        floor_sum=floor_sum,
        tilt_max=tilt_max,
        fall_step=fall_step,
        fall_link=fall_link,
        record_steps=record_steps[kept],
        position=rec["position"][kept],
        velocity=rec["velocity"][kept],
        effort=rec["effort"][kept],
        root_position=rec["root_position"][kept],
        root_orientation=rec["root_orientation"][kept],
        seconds=spent,
    )
