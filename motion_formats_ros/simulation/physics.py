"""The physics loop: the servos' controls for every step set in bulk, MuJoCo steps in C, results kept per chunk.

The controls of the whole motion are computed before the first step (the targets come
from the player's sampler at the playback speed); MuJoCo's ``rollout`` then steps a
chunk of :data:`CHUNK` steps in C with those controls and returns each step's state and
sensor values. Between chunks only numpy runs: the statistics (largest and squared
tracking error, efforts, floor reaction) are accumulated and the recording keeps every
``record_every``-th step, so memory stays bounded by the chunk and the recording.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionValueError, require, spelled
from .builder import FLOOR, BuiltModel, compiled

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
        error_max, error_sq, error_at: Per joint: largest the absolute error, sum of squared error, step of the largest.
        effort_max, effort_sq, effort_at: The same for the absolute effort.
        over_limit: (steps, J) flags where the absolute effort exceeds the joint's stated limit.
        floor_peak, floor_sum: The floor's vertical reaction: largest and sum (N).
        tilt_max: The base's largest tilt from the plan (rad; floating base only).
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
        spec.add_sensor(
            name=f"effort/{name}", type=mj.mjtSensor.mjSENS_ACTUATORFRC, objtype=mj.mjtObj.mjOBJ_ACTUATOR, objname=name
        )
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
    return links, compiled(spec)


def tilt(quat_wxyz: FloatArray, planned_xyzw: FloatArray) -> FloatArray:
    """Angle (rad) between each base's z axis and the planned base's z axis."""
    w, x, y, z = quat_wxyz[:, 0], quat_wxyz[:, 1], quat_wxyz[:, 2], quat_wxyz[:, 3]
    actual = np.column_stack([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])
    px, py, pz, pw = planned_xyzw[:, 0], planned_xyzw[:, 1], planned_xyzw[:, 2], planned_xyzw[:, 3]
    planned = np.column_stack([2 * (px * pz + pw * py), 2 * (py * pz - pw * px), 1 - 2 * (px * px + py * py)])
    cos = np.clip(np.einsum("ni,ni->n", actual, planned), -1.0, 1.0)
    return np.asarray(np.arccos(cos))


class FallWatch:
    """The fall rules of the loop, for one state at a time (a robot stepped live).

    A floating base has fallen when it tilts beyond :data:`FALL_TILT` from ``upright``
    (x, y, z, w), or when a link that is not one of ``allowed`` (those resting on the floor
    as the robot stands) touches the floor. Reads the contact sensors :func:`add_sensors` made.
    """

    def __init__(self, contact_links: list[str], allowed: set[str], n_effort: int, upright_xyzw: FloatArray) -> None:
        self.contact_links = contact_links
        self.watched = [i for i, link in enumerate(contact_links) if link not in allowed]
        self.n_effort = n_effort
        self.upright = np.asarray(upright_xyzw, dtype=np.float64)[None, :]

    def cause(self, qpos: FloatArray, sensordata: FloatArray) -> str | None:
        """Why the robot in this state has fallen, in words (None: it has not)."""
        angle = float(tilt(np.asarray(qpos[3:7])[None, :], self.upright)[0])
        if angle > FALL_TILT:
            return f"the base tipped over (tilted {math.degrees(angle):.0f}°)"
        found = np.asarray(sensordata[self.n_effort :]).reshape(len(self.contact_links), 4)[:, 0] > 0
        for i in self.watched:
            if found[i]:
                return f"{self.contact_links[i]} touched the floor"
        return None


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


class _Loop:
    """The running sums and the recording of one simulation, fed chunk by chunk."""

    def __init__(
        self,
        built: BuiltModel,
        model: Any,
        contact_links: list[str],
        steps: int,
        planned: FloatArray,
        planned_root_quat: FloatArray | None,
        start_quat_wxyz: FloatArray | None,
        allowed_contacts: set[str],
        record_every: int,
    ) -> None:
        joints = planned.shape[1]
        self.built = built
        self.timestep = float(model.opt.timestep)
        self.qpos_at = 1 + built.qpos_index  # the state's layout: time, qpos, qvel, …
        self.qvel_at = 1 + model.nq + built.qvel_index
        self.n_effort = len(built.servo_joints)
        self.contact_links = contact_links
        self.watched = np.array([link not in allowed_contacts for link in contact_links], dtype=bool)
        self.planned = planned
        if planned_root_quat is None and start_quat_wxyz is not None:
            w, x, y, z = (float(v) for v in start_quat_wxyz)
            planned_root_quat = np.tile([x, y, z, w], (steps + 1, 1))
        self.planned_root_quat = planned_root_quat
        self.limits = np.where(
            np.isfinite(built.effort_limits) & (built.effort_limits > 0), built.effort_limits, np.inf
        )
        self.record_steps = np.arange(0, steps, record_every, dtype=np.intp)
        r = self.record_steps.size
        self.rec = {
            "position": np.empty((r, joints)),
            "velocity": np.empty((r, joints)),
            "effort": np.empty((r, joints)),
            "root_position": np.zeros((r, 3)),
            "root_orientation": np.tile([0.0, 0.0, 0.0, 1.0], (r, 1)),
        }
        self.err_max, self.err_sq = np.zeros(joints), np.zeros(joints)
        self.err_at = np.zeros(joints, dtype=np.intp)
        self.eff_max, self.eff_sq = np.zeros(joints), np.zeros(joints)
        self.eff_at = np.zeros(joints, dtype=np.intp)
        self.over = np.zeros((steps, joints), dtype=bool)
        self.floor_peak = self.floor_sum = self.tilt_max = 0.0
        self.fall_step: int | None = None
        self.fall_link: str | None = None
        self.stop = steps

    def fall(self, k: int, states: FloatArray, sensors: FloatArray) -> None:
        """Look for the first fall in steps k … k + len(states): the base tipped over, or a link the
        plan keeps off the floor touching it; the run then stops :data:`AFTER_FALL` s later."""
        hi = k + states.shape[0]
        assert self.planned_root_quat is not None
        angle = tilt(states[:, 4:8], self.planned_root_quat[k + 1 : hi + 1])
        self.tilt_max = max(self.tilt_max, float(angle.max(initial=0.0)))
        tipped = np.flatnonzero(angle > FALL_TILT)
        found = sensors[:, self.n_effort :].reshape(hi - k, len(self.contact_links), 4)[:, :, 0] > 0
        touched = np.flatnonzero(found[:, self.watched].any(axis=1))
        first = [int(v[0]) for v in (tipped, touched) if v.size]
        if not first:
            return
        at = min(first)
        self.fall_step = k + at
        if touched.size and int(touched[0]) == at:
            self.fall_link = next(link for i, link in enumerate(self.contact_links) if found[at, i] and self.watched[i])
        self.stop = min(self.stop, self.fall_step + 1 + int(AFTER_FALL / self.timestep))

    def add(self, k: int, states: FloatArray, sensors: FloatArray) -> None:
        """Fold steps k … k + len(states) into the sums and the recording."""
        hi = k + states.shape[0]
        q = states[:, self.qpos_at]
        for values, top, total, at in (
            (np.abs(q - self.planned[k + 1 : hi + 1]), self.err_max, self.err_sq, self.err_at),
            (np.abs(sensors[:, : self.n_effort]), self.eff_max, self.eff_sq, self.eff_at),
        ):
            worse = values.max(axis=0) > top
            at[:] = np.where(worse, k + values.argmax(axis=0), at)
            np.maximum(top, values.max(axis=0), out=top)
            total += (values**2).sum(axis=0)
        effort = sensors[:, : self.n_effort]
        self.over[k:hi] = np.abs(effort) > self.limits
        contacts = sensors[:, self.n_effort :].reshape(hi - k, len(self.contact_links), 4)
        vertical = np.abs(contacts[:, :, 3].sum(axis=1))
        self.floor_peak = max(self.floor_peak, float(vertical.max(initial=0.0)))
        self.floor_sum += float(vertical.sum())
        keep = (self.record_steps >= k) & (self.record_steps < hi)
        rows = self.record_steps[keep] - k
        self.rec["position"][keep] = q[rows]
        self.rec["velocity"][keep] = states[rows][:, self.qvel_at]
        self.rec["effort"][keep] = effort[rows]
        if self.built.floating:
            self.rec["root_position"][keep] = states[rows, 1:4]
            self.rec["root_orientation"][keep] = states[rows][:, [5, 6, 7, 4]]  # w, x, y, z → x, y, z, w

    def outcome(self, steps: int, seconds: float) -> Outcome:
        kept = self.record_steps < steps
        return Outcome(
            steps=steps,
            error_max=self.err_max,
            error_sq=self.err_sq,
            error_at=self.err_at,
            effort_max=self.eff_max,
            effort_sq=self.eff_sq,
            effort_at=self.eff_at,
            over_limit=self.over[:steps],
            floor_peak=self.floor_peak,
            floor_sum=self.floor_sum,
            tilt_max=self.tilt_max,
            fall_step=self.fall_step,
            fall_link=self.fall_link,
            record_steps=self.record_steps[kept],
            **{name: values[kept] for name, values in self.rec.items()},
            seconds=seconds,
        )


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
    interrupt: Callable[[], None] | None = None,
    where: str = "",
) -> Outcome:
    """Simulate ``control`` (K, J) from the initial state and measure against ``planned`` (K + 1, J).

    Args:
        planned_root_quat: (K + 1, 4) the base orientation the motion plans (x, y, z, w), or None
            (the start orientation is kept as the plan).
        allowed_contacts: Links the plan puts on the floor.
        record_every: Keep every this-many-th step in the recording.
        interrupt: Called between chunks (may raise to stop).
        where: The motion and the model, as an error names them.
    """
    rollout = require("mujoco.rollout", "simulating a motion", package="mujoco", extra="sim")
    steps = control.shape[0]
    data = mj.MjData(model)
    data.qpos[:] = initial_qpos
    data.qvel[:] = initial_qvel
    mj.mj_forward(model, data)
    layout = mj.mjtState.mjSTATE_FULLPHYSICS
    state = np.empty(mj.mj_stateSize(model, layout))
    mj.mj_getState(model, data, state, layout)
    start = np.asarray(initial_qpos[3:7]) if built.floating else None
    loop = _Loop(built, model, contact_links, steps, planned, planned_root_quat, start, allowed_contacts, record_every)
    spent = 0.0
    k = 0
    warm = None
    with mujoco_warnings(mj):  # a divergence is said once, in the package's words, not printed raw
        while k < loop.stop:
            if interrupt is not None:
                interrupt()
            hi = min(loop.stop, k + CHUNK)
            began = time.perf_counter()
            states, sensors = rollout.rollout(model, data, state, control[None, k:hi], initial_warmstart=warm)
            spent += time.perf_counter() - began
            _refuse_divergence(mj, model, data, float(state[0]), states[0], where)
            k = _fold(loop, built, k, hi, states[0], sensors[0])
            state = states[0][-1].copy()
            warm = data.qacc_warmstart.copy()
    return loop.outcome(k, spent)


@contextlib.contextmanager
def mujoco_warnings(mj: Any) -> Iterator[list[str]]:
    """MuJoCo's warnings collected in the list yielded instead of printed (the previous handler back after)."""
    said: list[str] = []
    previous = mj.get_mju_user_warning()
    mj.set_mju_user_warning(said.append)
    try:
        yield said
    finally:
        mj.set_mju_user_warning(previous)


#: MuJoCo's warnings that mean the physics blew up (it then starts the state again and goes on),
#: and the values each finds huge or not finite.
_DIVERGED = {
    "mjWARN_BADQPOS": "joint positions",
    "mjWARN_BADQVEL": "joint velocities",
    "mjWARN_BADQACC": "joint accelerations",
}
#: MuJoCo's other warnings, each of which also makes its step one the run cannot go on from
#: (MuJoCo zeroes every control, or drops contacts or constraints): what it means, in words.
_DISTURBED = {
    "mjWARN_BADCTRL": "the servo control of joint {joint} became huge or not finite (beyond MuJoCo's ±1e10)",
    "mjWARN_INERTIA": "the robot's mass matrix became singular at joint {joint} (a link too light for the others)",
    "mjWARN_CONTACTFULL": "more contacts than MuJoCo's memory holds ({info} contacts)",
    "mjWARN_CNSTRFULL": "more constraints than MuJoCo's memory holds",
}


def disturbance(mj: Any, model: Any, data: Any) -> tuple[str, bool] | None:
    """What MuJoCo warned of since its warning counts were last cleared, in the package's words, and
    whether it means the physics diverged (None: it did not warn).

    Every warning makes its step one a run cannot go on from: MuJoCo started the state again (a
    huge or non-finite value), set every control to 0, or dropped contacts or constraints.
    """
    for kind in (*_DIVERGED, *_DISTURBED):
        warning = data.warning[getattr(mj.mjtWarning, kind)]
        if not warning.number:
            continue
        index = int(warning.lastinfo)
        if kind in _DIVERGED:
            joint = _joint_at(model, index, by_position=kind == "mjWARN_BADQPOS")
            return f"{_DIVERGED[kind]} became huge or not finite, at joint {joint}", True
        if kind == "mjWARN_BADCTRL":
            joint = str(model.actuator(index).name) if 0 <= index < model.nu else "?"
        else:
            joint = _joint_at(model, index, by_position=False) if 0 <= index < model.nv else "?"
        return _DISTURBED[kind].format(joint=joint, info=index), False
    return None


def _refuse_divergence(mj: Any, model: Any, data: Any, start: float, states: FloatArray, where: str = "") -> None:
    """Stop when a chunk that began at simulated time ``start`` (s) cannot be used: MuJoCo warned
    (:func:`disturbance`), or a state (``states``, time first) is not finite.

    MuJoCo's ``rollout`` stops stepping at the first warning and repeats the last state to the
    end of the chunk, so a warning of any kind ends what the run can report. The message names
    ``where`` (the motion and the model), says when (simulated seconds from the start: the last
    time before MuJoCo's clock stood still or started again, or before the first state that is
    not finite), and what, in the package's words.
    """
    said = disturbance(mj, model, data)
    finite = np.isfinite(states).all(axis=1)
    if said is None and finite.all():
        return
    times = states[:, 0]
    bad = ~finite | (times <= np.r_[start, times[:-1]])
    row = int(np.argmax(bad)) if bad.any() else len(times)  # the first step MuJoCo started again or froze
    what, diverged = said if said is not None else ("the state became not finite", True)
    if not diverged:  # the step before the first frozen one met the warning (and went on)
        row = max(row - 1, 0)
    at = float(times[row - 1]) if row else start
    prefix = f"{where}: " if where else ""
    if not diverged:
        raise MotionValueError(f"{prefix}the simulation cannot go on {at:.4g} s into the run: {what}")
    raise MotionValueError(
        f"{prefix}the simulation diverged {at:.4g} s into the run ({what}): the model's masses or inertias, the "
        f"gains or the motion's values are beyond what the physics can integrate at this timestep; try a smaller "
        f"{spelled('timestep')} or lower gains"
    )


def _joint_at(model: Any, index: int, *, by_position: bool) -> str:
    """The name of the joint of a ``qvel`` index (a ``qpos`` index ``by_position``)."""
    if by_position:
        joint = int(np.searchsorted(model.jnt_qposadr, index, side="right")) - 1
    else:
        joint = int(model.dof_jntid[index])
    return str(model.joint(max(joint, 0)).name)


def _fold(loop: _Loop, built: BuiltModel, k: int, hi: int, states: FloatArray, sensors: FloatArray) -> int:
    """Fold one chunk into the loop's sums (a fall may end it early); the next step."""
    if built.floating and loop.fall_step is None:
        loop.fall(k, states, sensors)
    if loop.stop < hi:  # the fall ended the run inside this chunk: what follows is not kept
        states, sensors, hi = states[: loop.stop - k], sensors[: loop.stop - k], loop.stop
    loop.add(k, states, sensors)
    return hi
