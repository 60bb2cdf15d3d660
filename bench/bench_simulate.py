"""The physics preview's loop against a bare MuJoCo step loop over the same model and controls.

For each robot, ``simulate()`` is run once; its physics loop (:func:`simulation.physics.run`:
MuJoCo's rollout in chunks, the statistics and the recording folded in between) is then
timed again on the same inputs, beside the peer measured in the same run:

    peer  mj_step      for each step: data.ctrl[:] = control[k]; mujoco.mj_step(model, data)
                       (nothing recorded: the least a Python loop over MuJoCo can do)
    ours  loop         physics.run() on the same model, initial state and controls

Target: ours ≤ 1.3 × peer. Also printed: the real-time factor (simulated seconds per
wall-clock second) of the loop, and of the whole ``simulate()`` (model building and
target sampling included).

Robots: TALOS (example-robot-data, 32 joints, collision meshes, its SRDF; fixed base,
every joint swinging about its half-sitting pose) and, where the real files are beside
the checkout, Choreonoid's SR1 walking its pattern with the sample's gains (floating base).

Run: ``.venv/bin/python bench/bench_simulate.py [--repeat R]``. Needs the ``sim`` and
``test`` extras. Not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test"))
from support.robots import TALOS_SRDF, TALOS_URDF, group_state, robot_file, share

from motion_formats_ros import read
from motion_formats_ros.core.kinematics import load_robot_model
from motion_formats_ros.core.model import Motion
from motion_formats_ros.simulation import physics, simulate

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "choreonoid"


def captured(call: Any) -> tuple[Any, tuple[Any, ...], float]:
    """Run ``call`` (a simulate()) with physics.run wrapped; its result, the run's arguments, its wall time."""
    seen: list[tuple[Any, ...]] = []
    original = physics.run

    def keep(*args: Any, **kwargs: Any) -> Any:
        seen.append(args)
        return original(*args, **kwargs)

    from motion_formats_ros.simulation import preview

    preview.run = keep  # type: ignore[assignment]
    try:
        started = time.perf_counter()
        result = call()
        whole = time.perf_counter() - started
    finally:
        preview.run = original  # type: ignore[assignment]
    return result, seen[0], whole


def bare_loop(args: tuple[Any, ...]) -> None:
    mj, _built, model, _links, qpos, qvel, control = args[:7]
    data = mj.MjData(model)
    data.qpos[:] = qpos
    data.qvel[:] = qvel
    mj.mj_forward(model, data)
    ctrl = data.ctrl
    step = mj.mj_step
    for row in control:
        ctrl[:] = row
        step(model, data)


def interleaved(ours: Any, peer: Any, repeat: int) -> tuple[float, float, float, float]:
    """Best wall-clock and CPU seconds of each, measured in turns (a load on the machine hits both alike)."""
    walls: dict[str, list[float]] = {"ours": [], "peer": []}
    cpus: dict[str, list[float]] = {"ours": [], "peer": []}
    for _ in range(repeat):
        for name, fn in (("ours", ours), ("peer", peer)):
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            walls[name].append(time.perf_counter() - wall)
            cpus[name].append(time.process_time() - cpu)
    return min(walls["ours"]), min(walls["peer"]), min(cpus["ours"]), min(cpus["peer"])


def measure(name: str, call: Any, repeat: int) -> None:
    result, args, whole = captured(call)
    steps = args[6].shape[0]
    simulated = steps * float(args[2].opt.timestep)
    ours, peer, ours_cpu, peer_cpu = interleaved(lambda: physics.run(*args), lambda: bare_loop(args), repeat)
    print(
        f"{name}: {steps} steps ({simulated:.2f} s simulated), {args[2].nv} dof, {args[2].ngeom} geoms\n"
        f"  peer mj_step loop {peer:.3f} s   ours loop {ours:.3f} s   ratio {ours / peer:.2f} (target <= 1.3)\n"
        f"  CPU time: peer {peer_cpu:.3f} s   ours {ours_cpu:.3f} s   ratio {ours_cpu / peer_cpu:.2f}\n"
        f"  real time: loop {simulated / ours:.1f}x, whole simulate() {simulated / whole:.1f}x "
        f"({'fell' if result.report.fell else 'stood'})"
    )


def talos_swing(duration: float = 4.0, rate: float = 100.0) -> Motion:
    pose = group_state(robot_file(*TALOS_SRDF), "half_sitting")
    model = load_robot_model(robot_file(*TALOS_URDF))
    names = tuple(n for n in model.actuated_joints if n in pose)
    times = np.arange(round(duration * rate) + 1) / rate
    base = np.array([pose[n] for n in names])
    swing = 0.15 * np.sin(2 * np.pi * 0.5 * times)[:, None] * np.cos(np.arange(len(names)))[None, :]
    return Motion(times=times, joint_names=names, position=base + swing)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    motion = talos_swing()
    measure(
        "TALOS, fixed base, 4 s swing",
        lambda: simulate(
            motion,
            robot_file(*TALOS_URDF),
            srdf=robot_file(*TALOS_SRDF),
            package_paths=[share()],
            floating=False,
            kp=2000.0,
            kd=50.0,
        ),
        args.repeat,
    )
    body = SHARED / "model" / "SR1.body"
    pattern = SHARED / "v1" / "SR1WalkPattern2.yaml"
    if body.exists() and pattern.exists():
        walk = read(pattern, body=body)
        measure("SR1, floating base, its 14.3 s walk", lambda: simulate(walk, body, kp=8000, kd=100), args.repeat)
    else:
        print("SR1: the real files are not beside the checkout (skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
