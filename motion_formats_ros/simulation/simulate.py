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

import numpy as np
import numpy.typing as npt

from ..core import timing
from ..core.errors import MotionValueError
from ..core.kinematics import RobotModel, load_robot_model
from ..core.model import Motion, MotionFile, available_memory
from ..playback.sampler import FrameSampler
from ..safety.findings import Finding, intervals, sort_findings
from .builder import BuiltModel, Gains, build, mujoco_module, servo_control
from .gains import default_gains, read_gains
from .physics import add_sensors, planned_contacts, run
from .report import JointStats, SimulationReport

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


def choose_base(model: RobotModel, motion: Motion, floating: bool | None, srdf_virtual: str | None = None) -> tuple[bool, str]:
    """Whether the base floats, and why (for the notes).

    Forced by ``floating``; else it floats when the motion has a root pose, when the model is a
    ``.body`` whose root joint is not fixed, or when a URDF's root link is not a link named
    ``world`` (a robot fixed to the world has it).
    """
    if floating is not None:
        return floating, "the base " + ("floats" if floating else "is fixed") + " as asked"
    if motion.root_position is not None or motion.root_orientation is not None:
        return True, "the base floats: the motion moves it (it has a root pose)"
    if any(j.type == "floating" for j in model.joints):
        return True, "the base floats: the model has a floating joint"
    if model.source.lower().endswith(".body"):
        if getattr(model, "fixed_root", False):
            return False, "the base is fixed: the .body's root joint is fixed"
        return True, "the base floats: a .body's root link is free"
    if model.root_link == "world":
        return False, "the base is fixed: the model's root link is 'world'"
    return True, (
        f"the base floats: the root link {model.root_link} is not fixed to a 'world' link "
        "(--fixed-base fixes it)"
    )


def _targets(motion: Motion, names: tuple[str, ...], steps: int, timestep: float, speed: float) -> FloatArray:
    """The motion's positions of ``names`` at every step's motion time (steps + 1 rows), as the player samples them."""
    sampler = FrameSampler(motion)
    motion_times = float(motion.times[0]) + np.arange(steps + 1) * timestep * speed
    where = timing.locate(sampler.times, motion_times, sampler.interpolation)
    assert motion.position is not None
    columns = [motion.joint_names.index(n) for n in names]
    return np.asarray(timing.interpolate(motion.position[:, columns], where))


def _start_height(mj: object, built: BuiltModel, qpos: FloatArray) -> float:
    """How far to lift the base so that its lowest collision geometry rests on the floor."""
    import mujoco

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
    for name, value, low in (("speed", speed, 0.0), ("timestep", timestep, 0.0), ("record rate", record_rate, 0.0)):
        if not (math.isfinite(value) and value > low):
            raise MotionValueError(f"{name} must be a number above 0, got {value:g}")
    mj = mujoco_module()
    model = robot if isinstance(robot, RobotModel) else load_robot_model(robot)
    if isinstance(motion, MotionFile):
        source = source or str(motion.source or "motion")
        motion = motion.group(group)
    if motion.position is None or motion.num_frames == 0:
        raise MotionValueError(f"{source or 'the motion'}: it has no joint positions to play")
    driven = tuple(
        j.name for j in model.joints if j.type in ("revolute", "continuous", "prismatic") and j.mimic is None
    )
    played = tuple(n for n in motion.joint_names if n in driven)
    if not played:
        raise MotionValueError(
            f"{source or 'the motion'}: none of its joints ({', '.join(motion.joint_names[:5])}"
            f"{' …' if len(motion.joint_names) > 5 else ''}) is a joint of {model.name or model.source}"
        )
    notes: list[str] = []
    unknown = [n for n in motion.joint_names if n not in driven]
    if unknown:
        notes.append(f"{len(unknown)} joints of the motion are not servo joints of the model (not played): {', '.join(unknown[:6])}")
    held = [n for n in driven if n not in played]
    if held:
        notes.append(f"{len(held)} joints the motion lacks hold their zero-pose value: {', '.join(held[:6])}")
    is_floating, why = choose_base(model, motion, floating)
    notes.append(why)
    duration = float(motion.times[-1] - motion.times[0]) / speed
    steps = max(1, int(math.ceil(duration / timestep - 1e-9)))
    record_every = max(1, int(round(1.0 / (record_rate * timestep))))
    _memory_check(steps, len(driven), record_every, source)

    root_position = np.zeros(3)
    root_quat = np.array([0.0, 0.0, 0.0, 1.0])
    if motion.root_position is not None:
        root_position = np.asarray(motion.root_position[0], dtype=np.float64)
    if motion.root_orientation is not None:
        root_quat = np.asarray(motion.root_orientation[0], dtype=np.float64)
    per_joint = read_gains(gains, driven) if gains is not None and not isinstance(gains, Mapping) else dict(gains or {})
    built = build(
        model,
        joints=driven,
        gains={n: per_joint.get(n, Gains(0.0, 0.0)) for n in driven},  # the chosen ones are set below
        floating=is_floating,
        root_position=root_position,
        root_quat=root_quat,
        srdf=srdf,
        package_paths=package_paths,
        timestep=timestep,
    )
    built.set_gains(default_gains(mj, built, kp, kd, per_joint, notes))
    notes += built.notes
    contact_links, mj_model = add_sensors(mj, built)

    planned_played = _targets(motion, played, steps, timestep, speed)
    columns = [driven.index(n) for n in played]
    planned = np.zeros((steps + 1, len(driven)))
    planned[:, columns] = planned_played
    velocity = np.gradient(planned, timestep, axis=0) if steps > 1 else np.zeros_like(planned)
    control = servo_control(planned[:-1], velocity[:-1], built.gains)

    qpos = mj_model.qpos0.copy()
    qpos[built.qpos_index] = planned[0]
    qvel = np.zeros(mj_model.nv)
    qvel[built.qvel_index] = velocity[0]
    placed = motion.root_position is None and (is_floating or motion.root_orientation is None)
    if is_floating and motion.root_position is None:
        qpos[:3] = [0.0, 0.0, 0.0]
        lift = _start_height(mj, built, qpos)
        qpos[2] = lift
        notes.append(
            f"the motion has no root pose: the robot starts upright, {lift:.4g} m up, its lowest collision "
            "geometry resting on the floor"
        )
    elif placed and not is_floating:
        notes.append("the base is fixed where the model's root link is, at the origin")
    planned_quat = None
    if motion.root_orientation is not None:
        where = timing.locate(motion.times, float(motion.times[0]) + np.arange(steps + 1) * timestep * speed, motion.interpolation)
        planned_quat = np.asarray(timing.interpolate(motion.root_orientation, where, "quaternion"))
    rows = np.linspace(0, steps, max(2, int(duration * _CONTACT_POSES_PER_SECOND))).astype(int)
    plan_qpos = np.tile(qpos, (rows.size, 1))
    plan_qpos[:, built.qpos_index] = planned[rows]
    if is_floating and motion.root_position is not None:
        where = timing.locate(motion.times, float(motion.times[0]) + rows * timestep * speed, motion.interpolation)
        plan_qpos[:, :3] = timing.interpolate(motion.root_position, where)
        if motion.root_orientation is not None:
            q = timing.interpolate(motion.root_orientation, where, "quaternion")
            plan_qpos[:, 3:7] = q[:, [3, 0, 1, 2]]
    allowed = planned_contacts(mj, mj_model, plan_qpos, contact_links) if is_floating else set(contact_links)

    outcome = run(mj, built, mj_model, contact_links, qpos, qvel, control, planned, planned_quat, allowed, record_every)
    report = _report(built, motion, outcome, planned, steps, timestep, speed, duration, source, notes)
    report.seconds = time.perf_counter() - started
    t0 = float(motion.times[0])
    times = t0 + (outcome.record_steps + 1) * timestep * speed
    root_pos = outcome.root_position if is_floating else None
    root_ori = outcome.root_orientation if is_floating else None
    return Simulation(
        report, built, times, driven, outcome.position, outcome.velocity, outcome.effort, root_pos, root_ori
    )


def _memory_check(steps: int, joints: int, record_every: int, source: str | None) -> None:
    """Refuse before allocating what the simulation's arrays would need beyond the memory available."""
    need = 8 * (steps + 1) * joints * 4 + (steps // record_every + 1) * (3 * joints + 7) * 8
    free = available_memory()
    if free is not None and need > free:
        raise MotionValueError(
            f"{source or 'the motion'}: simulating it needs about {need / 2**30:.1f} GiB, more than the "
            f"{free / 2**30:.1f} GiB available (a shorter slice, a lower speed's duration or a larger timestep needs less)"
        )


def _report(
    built: BuiltModel,
    motion: Motion,
    outcome: object,
    planned: FloatArray,
    steps: int,
    timestep: float,
    speed: float,
    duration: float,
    source: str | None,
    notes: list[str],
) -> SimulationReport:
    from .physics import Outcome

    assert isinstance(outcome, Outcome)
    t0 = float(motion.times[0])
    step_time = t0 + (np.arange(outcome.steps) + 1) * timestep * speed
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
        end_time = t0 + outcome.steps * timestep * speed
        where = timing.locate(motion.times, np.array([end_time]), motion.interpolation)
        planned_end = np.asarray(timing.interpolate(motion.root_position, where)[0])
    floating = built.floating
    start = outcome.root_position[0] if floating and outcome.root_position.size else np.zeros(3)
    end = outcome.root_position[-1] if floating and outcome.root_position.size else np.zeros(3)
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
        joints=stats,
        floor_force_peak=outcome.floor_peak,
        floor_force_mean=outcome.floor_sum / done,
        base_start=np.asarray(start, dtype=np.float64),
        base_end=np.asarray(end, dtype=np.float64),
        planned_end=planned_end,
        real_time_factor=real,
        notes=notes,
    )


__all__ = ["DEFAULT_RECORD_RATE", "DEFAULT_TIMESTEP", "Simulation", "choose_base", "simulate"]
