"""A motion played on a physical model of its robot: ``simulate(motion, robot)`` → :class:`SimulationReport`.

Example::

    from motion_formats_ros import read
    from motion_formats_ros.simulation import simulate

    report = simulate(read("walk.seq", body="SR1.body"), "SR1.body", kp=8000, kd=100)
    print(report.fell, report.fall_time, report.drift)

The servo targets are the motion's positions as the player samples them, at the playback
``speed``, every physics step; the target velocities are their rate of change. Joints of
the model that the motion lacks hold their value of the zero pose. The base floats for a
legged robot (see :func:`choose_base`) and starts at the motion's root pose at its first
frame, else upright with its lowest collision geometry resting on the floor (as ``check``
places it).
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionValueError, OutOfRangeError, spelled
from ..core.kinematics import RobotModel, load_robot_model
from ..core.memory import VALUE_BYTES, available_memory, size_text
from ..core.model import Motion, MotionFile
from ..core.spatial import unit_quaternions
from ..playback.sampler import FrameSampler
from ..safety.findings import Finding, intervals, sort_findings
from .builder import BuiltModel, Gains, build, mujoco_module, servo_control
from .gains import default_gains, read_gains
from .physics import Outcome, add_sensors, mujoco_warnings, planned_contacts, run
from .summary import JointStats, SimulationReport

FloatArray = npt.NDArray[np.float64]

#: The physics step (s): 1 kHz, as a servo loop runs.
DEFAULT_TIMESTEP = 0.001
#: What the recording keeps (Hz).
DEFAULT_RECORD_RATE = 100.0
#: How many planned poses (per second of motion) are looked at for the links it puts on the floor.
_CONTACT_POSES_PER_SECOND = 50


@dataclasses.dataclass
class Simulation:
    """A simulation's report and what the robot did (see :meth:`motion`)."""

    report: SimulationReport
    built: BuiltModel
    times: FloatArray
    joint_names: tuple[str, ...]
    position: FloatArray
    velocity: FloatArray
    effort: FloatArray
    root_position: FloatArray | None
    root_orientation: FloatArray | None

    def motion(self) -> Motion:
        """What the robot did as a motion: positions, velocities, efforts and (floating base) the root pose."""
        return Motion(
            times=self.times,
            joint_names=self.joint_names,
            position=self.position,
            velocity=self.velocity,
            effort=self.effort,
            root_position=self.root_position,
            root_orientation=self.root_orientation,
        )


def choose_base(
    model: RobotModel, motion: Motion | None, floating: bool | None, srdf_virtual: str | None = None
) -> tuple[bool, str]:
    """Whether the base floats, and why (for the notes).

    Forced by ``floating``; else it floats when the motion has a root pose, when the model is a
    ``.body`` whose root joint is not fixed, or when a URDF's root link is not a link named
    ``world`` (a robot fixed to the world has it).
    """
    if floating is not None:
        return floating, "the base " + ("floats" if floating else "is fixed") + " as asked"
    if motion is not None and (motion.root_position is not None or motion.root_orientation is not None):
        return True, "the base floats: the motion moves it (it has a root pose)"
    if any(j.type == "floating" for j in model.joints):
        return True, "the base floats: the model has a floating joint"
    if model.source.lower().endswith(".body"):
        if model.fixed_root:
            return False, "the base is fixed: the .body's root joint is fixed"
        return True, "the base floats: a .body's root link is free"
    if model.root_link == "world":
        return False, "the base is fixed: the model's root link is 'world'"
    return True, (
        f"the base floats: the root link {model.root_link} is not fixed to a 'world' link (--fixed-base fixes it)"
    )


def _motion_times(
    motion: Motion, steps: FloatArray | npt.NDArray[np.intp], timestep: float, speed: float
) -> FloatArray:
    """The motion time of each physics step (the playback clock: speed motion seconds per second)."""
    return np.asarray(float(motion.times[0]) + np.asarray(steps) * timestep * speed, dtype=np.float64)


def _targets(motion: Motion, names: tuple[str, ...], at: FloatArray) -> FloatArray:
    """The motion's positions of ``names`` at motion times ``at``, as the player samples them."""
    assert motion.position is not None
    columns = [motion.joint_columns(n).start for n in names]
    return FrameSampler(motion).at(motion.position[:, columns], at)


def _root_plan(motion: Motion, at: FloatArray) -> tuple[FloatArray | None, FloatArray | None]:
    """The motion's root position (N, 3) and orientation (N, 4, x, y, z, w) at motion times ``at`` (None: absent)."""
    sampler = FrameSampler(motion)
    position = None if motion.root_position is None else sampler.at(motion.root_position, at)
    if motion.root_orientation is None:
        return position, None
    return position, unit_quaternions(sampler.at(motion.root_orientation, at, "quaternion"))


def _start(
    mj: Any, built: BuiltModel, mj_model: Any, position: FloatArray, velocity: FloatArray, place: bool, notes: list[str]
) -> tuple[FloatArray, FloatArray]:
    """The first state: the joints at the motion's first values and speeds; with ``place``, the base upright
    at the origin, lifted until its lowest collision geometry rests on the floor."""
    qpos = np.array(mj_model.qpos0, dtype=np.float64)
    qpos[built.qpos_index] = position
    qvel = np.zeros(mj_model.nv)
    qvel[built.qvel_index] = velocity
    if place:
        qpos[:3] = 0.0
        qpos[2] = lift = start_height(mj, built, qpos)
        notes.append(
            f"the motion has no root pose: the robot starts upright, {lift:.4g} m up, its lowest collision "
            "geometry resting on the floor"
        )
    return qpos, qvel


def start_height(mujoco: Any, built: BuiltModel, qpos: FloatArray) -> float:
    """How far to lift the base so that its lowest collision geometry rests on the floor."""
    model = built.model
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(model, data)
    floor = model.geom("floor").id
    gaps = [
        mujoco.mj_geomDistance(model, data, g, floor, 10.0, None)
        for g in range(model.ngeom)
        if g != floor and (model.geom_contype[g] or model.geom_conaffinity[g])
    ]
    return -min(gaps) if gaps else 0.0


def simulate(
    motion: Motion | MotionFile,
    robot: RobotModel | str | os.PathLike[str],
    *,
    gains: Mapping[str, Gains] | str | os.PathLike[str] | None = None,
    kp: float | None = None,
    kd: float | None = None,
    speed: float = 1.0,
    floating: bool | None = None,
    timestep: float = DEFAULT_TIMESTEP,
    record_rate: float = DEFAULT_RECORD_RATE,
    srdf: str | os.PathLike[str] | None = None,
    package_paths: Iterable[str | os.PathLike[str]] = (),
    group: str | None = None,
    source: str | None = None,
) -> Simulation:
    """Play ``motion`` on a MuJoCo model of ``robot`` with a PD servo on every joint.

    Args:
        gains: Per-joint gains (a mapping, or a gains file in ros2_control's layout).
        kp, kd: Gains of every joint (override the default; a gains file overrides them per joint).
        speed: Playback speed factor.
        floating: Float or fix the base (None: :func:`choose_base`).
        timestep: Physics step (s).
        record_rate: How often (Hz) the recording keeps the robot's state.

    Raises:
        MissingDependencyError: No MuJoCo (the ``sim`` extra).
        ReadError: A model, mesh, SRDF or gains file that cannot be read.
        MotionValueError: No joint of the motion is a joint of the model; a value out of range.
    """
    started = time.perf_counter()
    for name, value in (("speed", speed), ("timestep", timestep), ("record rate", record_rate)):
        if not (math.isfinite(value) and value > 0):
            raise MotionValueError(f"{name} must be a number above 0, got {value:g}")
    mj = mujoco_module()
    with mujoco_warnings(mj):  # MuJoCo's own warnings are no raw print: a divergence is said once
        model = robot if isinstance(robot, RobotModel) else load_robot_model(robot)
        if isinstance(motion, MotionFile):
            source = source or str(motion.source or "motion")
            motion = motion.group(group)
        notes: list[str] = []
        driven, played = _joints(model, motion, source, notes)
        is_floating, why = choose_base(model, motion, floating)
        notes.append(why)
        steps, record_every = _steps(motion, speed, timestep, record_rate, len(driven), source)

        root_position, root_quat = _root_plan(motion, motion.times[:1])
        per_joint = (
            read_gains(gains, driven) if gains is not None and not isinstance(gains, Mapping) else dict(gains or {})
        )
        built = build(
            model,
            joints=driven,
            gains={n: per_joint.get(n, Gains(0.0, 0.0)) for n in driven},  # the chosen ones are set below
            floating=is_floating,
            root_position=np.zeros(3) if root_position is None else root_position[0],
            root_quat=np.array([0.0, 0.0, 0.0, 1.0]) if root_quat is None else root_quat[0],
            srdf=srdf,
            package_paths=package_paths,
            timestep=timestep,
        )
        built.set_gains(default_gains(mj, built, kp, kd, per_joint, notes))
        notes += built.notes
        contact_links, mj_model = add_sensors(mj, built)

        at = _motion_times(motion, np.arange(steps + 1), timestep, speed)
        planned = np.zeros((steps + 1, len(driven)))
        planned[:, [driven.index(n) for n in played]] = _targets(motion, played, at)
        velocity = _planned_velocity(planned, timestep, source)
        qpos, qvel = _start(
            mj, built, mj_model, planned[0], velocity[0], is_floating and motion.root_position is None, notes
        )
        allowed = set(contact_links)
        if is_floating:
            allowed = _planned_floor_links(mj, mj_model, built, motion, qpos, planned, contact_links, timestep, speed)
        where = f"{source or 'the motion'} on {model.source or model.name}"
        outcome = run(
            mj,
            built,
            mj_model,
            contact_links,
            qpos,
            qvel,
            _controls(planned, velocity, built, at, where),
            planned,
            _root_plan(motion, at)[1],
            allowed,
            record_every,
            where=where,
        )
        report = _report(built, motion, outcome, timestep, speed, source, notes)
        report.seconds = time.perf_counter() - started
        times = _motion_times(motion, outcome.record_steps + 1, timestep, speed)
        root_pos = outcome.root_position if is_floating else None
        root_ori = outcome.root_orientation if is_floating else None
        return Simulation(
            report, built, times, driven, outcome.position, outcome.velocity, outcome.effort, root_pos, root_ori
        )


def servo_joints(model: RobotModel) -> tuple[str, ...]:
    """The joints a servo drives: every single-value joint that is not a mimic, in model order."""
    return tuple(j.name for j in model.joints if j.type in ("revolute", "continuous", "prismatic") and j.mimic is None)


def _joints(
    model: RobotModel, motion: Motion, source: str | None, notes: list[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The model's servo joints (model order) and those the motion plays (motion order)."""
    if motion.position is None or motion.num_frames == 0:
        raise MotionValueError(f"{source or 'the motion'}: it has no joint positions to play")
    driven = servo_joints(model)
    dims = dict(zip(motion.joint_names, motion.joint_dims or (1,) * len(motion.joint_names), strict=True))
    played = tuple(n for n in motion.joint_names if n in driven and dims[n] == 1)
    if not played:
        raise MotionValueError(
            f"{source or 'the motion'}: none of its joints ({', '.join(motion.joint_names[:5])}"
            f"{' …' if len(motion.joint_names) > 5 else ''}) is a joint of {model.name or model.source}"
        )
    unknown = [n for n in motion.joint_names if n not in driven]
    if unknown:
        notes.append(
            f"{len(unknown)} joints of the motion are not servo joints of the model (not played): "
            + ", ".join(unknown[:6])
        )
    held = [n for n in driven if n not in played]
    if held:
        notes.append(f"{len(held)} joints the motion lacks hold their zero-pose value: {', '.join(held[:6])}")
    return driven, played


def _planned_floor_links(
    mj: Any,
    mj_model: Any,
    built: BuiltModel,
    motion: Motion,
    qpos: FloatArray,
    planned: FloatArray,
    contact_links: list[str],
    timestep: float,
    speed: float,
) -> set[str]:
    """The links the plan puts on the floor (its feet), from poses along the motion."""
    steps = planned.shape[0] - 1
    count = max(2, int(steps * timestep * _CONTACT_POSES_PER_SECOND))
    rows = np.linspace(0, steps, count).astype(np.intp)
    poses = np.tile(qpos, (rows.size, 1))
    poses[:, built.qpos_index] = planned[rows]
    position, orientation = _root_plan(motion, _motion_times(motion, rows, timestep, speed))
    if position is not None:
        poses[:, :3] = position
    if orientation is not None:
        poses[:, 3:7] = orientation[:, [3, 0, 1, 2]]
    return planned_contacts(mj, mj_model, poses, contact_links)


def _planned_velocity(planned: FloatArray, timestep: float, source: str | None) -> FloatArray:
    """The planned positions' rate of change per step; refused when it goes beyond the float range
    (positions near ±1e308), which no servo can be given."""
    if planned.shape[0] <= 2:  # a single step: no rate of change to give
        return np.zeros_like(planned)
    with np.errstate(over="ignore", invalid="ignore"):
        velocity = np.asarray(np.gradient(planned, timestep, axis=0))
    if not np.all(np.isfinite(velocity)):
        raise MotionValueError(
            f"{source or 'the motion'}: its positions change faster than the float range holds (values near ±1e308)"
        )
    return velocity


#: The largest value MuJoCo takes in a control (its ``mjMAXVAL``): beyond it, it sets every control to 0.
MAX_CONTROL = 1e10


def _controls(planned: FloatArray, velocity: FloatArray, built: BuiltModel, at: FloatArray, where: str) -> FloatArray:
    """The servos' controls of every step; refused where one is beyond what MuJoCo takes
    (:data:`MAX_CONTROL`: the motion's positions or their rate of change are that large)."""
    controls = servo_control(planned[:-1], velocity[:-1], built.gains)
    bad = ~(np.abs(controls) <= MAX_CONTROL)
    if bad.any():
        step, joint = (int(v[0]) for v in np.nonzero(bad))
        raise MotionValueError(
            f"{where}: joint {built.servo_joints[joint]}'s target at t = {float(at[step]):.4g} s (position "
            f"{float(planned[step, joint]):.4g}, rate of change {float(velocity[step, joint]):.4g} per s) is "
            f"beyond the ±{MAX_CONTROL:g} MuJoCo takes in a servo's control"
        )
    return controls


def _steps(
    motion: Motion, speed: float, timestep: float, record_rate: float, joints: int, source: str | None
) -> tuple[int, int]:
    """The physics steps, and every how many steps the recording keeps one;
    refused when they cannot be counted or held."""
    span = float(motion.times[-1]) - float(motion.times[0])  # Python floats: inf, not a numpy warning
    count = span / speed / timestep
    if not math.isfinite(count):
        raise MotionValueError(
            f"{spelled('speed')} {speed:g}, {spelled('timestep')} {timestep:g}: {source or 'the motion'}'s "
            f"{span:g} s make more physics steps than can be counted"
        )
    steps = max(1, math.ceil(count - 1e-9))
    every = 1.0 / (record_rate * timestep)  # inf for a rate far below one frame of the whole run
    record_every = steps if not every < steps else max(1, round(every))
    _memory_check(span, speed, timestep, steps, joints, record_every)
    return steps, record_every


def _memory_check(span: float, speed: float, timestep: float, steps: int, joints: int, record_every: int) -> None:
    """Refuse before allocating what the simulation's arrays would need beyond the memory available:
    per step the planned positions, velocities, controls and effort-limit flags of every joint, and the
    recording (positions, velocities, efforts and the base's pose) every ``record_every`` steps.

    The message names both options that set the steps, with the least speed (at this timestep)
    and the least timestep (at this speed) that fit."""
    per_step = (4 + (3 + 7 / max(joints, 1)) / record_every) * max(joints, 1) * VALUE_BYTES
    needed = (steps + 1) * per_step
    room = available_memory()
    if room is None or needed <= room:
        return
    fits = max(room / per_step - 1, 1.0)  # the steps this process can hold
    raise OutOfRangeError(
        f"{spelled('speed')} {speed:g}, {spelled('timestep')} {timestep:g}: {steps:,} physics steps × {joints:,} "
        f"joints would need {size_text(needed)}, more than the {size_text(room)} this process can still "
        f"allocate; at this timestep {spelled('speed')} must be at least {span / (timestep * fits):.3g}, "
        f"at this speed {spelled('timestep')} at least {span / (speed * fits):.3g} s"
    )


def _report(
    built: BuiltModel,
    motion: Motion,
    outcome: Outcome,
    timestep: float,
    speed: float,
    source: str | None,
    notes: list[str],
) -> SimulationReport:
    step_time = _motion_times(motion, np.arange(outcome.steps) + 1, timestep, speed)
    findings: list[Finding] = []
    if outcome.fall_step is not None:
        at = float(step_time[outcome.fall_step])
        links = (outcome.fall_link,) if outcome.fall_link else ()
        findings.append(Finding("fall", ((at, float(step_time[-1])),), outcome.tilt_max, at, links))
    stats = []
    done = max(outcome.steps, 1)
    for j, name in enumerate(built.servo_joints):
        limit = float(built.effort_limits[j]) if np.isfinite(built.effort_limits[j]) else None
        over = outcome.over_limit[:, j]
        if over.any():
            findings.append(
                Finding(
                    "effort_limit",
                    intervals(step_time, over),
                    float(outcome.effort_max[j]),
                    float(step_time[outcome.effort_at[j]]),
                    joint=name,
                    limit=limit,
                    linear=built.robot.joint(name).type == "prismatic",
                )
            )
        stats.append(
            JointStats(
                name,
                float(outcome.error_max[j]),
                float(math.sqrt(outcome.error_sq[j] / done)),
                float(step_time[min(outcome.error_at[j], done - 1)]),
                float(outcome.effort_max[j]),
                float(math.sqrt(outcome.effort_sq[j] / done)),
                float(step_time[min(outcome.effort_at[j], done - 1)]),
                limit,
            )
        )
    model = built.robot
    file = Path(model.source).name if model.source else ""
    robot = f"{model.name} ({file})" if model.name and file else (model.name or file or "robot model")
    planned_end = None
    if motion.root_position is not None:
        end, _ = _root_plan(motion, _motion_times(motion, np.array([outcome.steps]), timestep, speed))
        assert end is not None
        planned_end = end[0]
    floating = built.floating
    first = outcome.root_position[0] if floating and outcome.root_position.size else np.zeros(3)
    last = outcome.root_position[-1] if floating and outcome.root_position.size else np.zeros(3)
    real = outcome.steps * timestep / outcome.seconds if outcome.seconds > 0 else float("inf")
    return SimulationReport(
        source=source or "motion",
        robot=robot,
        duration=outcome.steps * timestep,
        steps=outcome.steps,
        timestep=timestep,
        speed=speed,
        floating=floating,
        gains={n: (g.p, g.d) for n, g in zip(built.servo_joints, built.gains, strict=True)},
        findings=sort_findings(findings),
        joint_stats=stats,
        floor_force_peak=outcome.floor_peak,
        floor_force_mean=outcome.floor_sum / done,
        base_start=np.asarray(first, dtype=np.float64),
        base_end=np.asarray(last, dtype=np.float64),
        planned_end=planned_end,
        real_time_factor=real,
        notes=notes,
    )


__all__ = [
    "DEFAULT_RECORD_RATE",
    "DEFAULT_TIMESTEP",
    "Simulation",
    "choose_base",
    "servo_joints",
    "simulate",
    "start_height",
]
