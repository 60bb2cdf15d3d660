"""The motion check's cost against pinocchio + coal, and the collision library chosen by measurement.

0. **The first call** (Panda: URDF, SRDF, nine STL collision meshes), each in a fresh
   process that has imported the package's check (``motion_formats_ros.safety``), coal and
   numpy (and pinocchio, for the peer) before the clock starts:

       ours  Checker(urdf, srdf) and its check of one frame (the model, its meshes read and
             prepared, the pairs chosen, one frame collided)
       peer  pinocchio's buildModelFromUrdf, buildGeomFromUrdf (meshes read), the SRDF's
             pairs removed, one computeCollisions

   Target: ours ≤ 1.5 × peer (a check's fixed cost: what a command pays before any frame).
   The two are taken in turns (at least 7 rounds, ``--rounds``), so that both see the same
   load; the medians of each and their ratio are shown, for wall-clock and CPU time (on a
   loaded machine the CPU time is the cost). ``--first-call`` measures this alone.

1. **Panda, 1000 random frames** (joint values drawn within the limits; the SRDF's
   disabled pairs left out on both sides), measured in one run:

       ours  check         Checker.check(): forward kinematics, self-collision, floor,
                           joint limits (the model prepared once: the command's fixed start-up)
       peer  pinocchio     pinocchio.computeCollisions(model, data, geometry, geometry data, q)
                           per frame (forward kinematics, placements, coal on every pair)
       ours  command       motion-formats check on 1000 frames minus the same on 2 frames
                           (the command's fixed start-up taken off)

   Target: ours ≤ 1.5 × peer.

2. **coal or python-fcl**: the same shapes (the Panda's collision meshes as triangle
   hierarchies), the same frames and the same pairs, every pair at every frame, collided
   by each library; the faster is the one the check uses (coal).

3. **A humanoid** (TALOS, 32 joints, 52 collision meshes, its SRDF), every joint swinging
   about its half-sitting pose while the base walks, sways and turns, at 500 Hz: the time
   per frame for 1k, 10k and 30k frames (30k frames = 60 s × 500 Hz; target < 10 s), the
   model's start-up shown apart; wall-clock and CPU time (on a shared machine the CPU time
   is what the check costs).

4. **Memory of 60 s of TALOS at 500 Hz** (30,000 frames, the motion of 3.), in a fresh
   process: its resident size once the model and its meshes are ready and the frames made,
   and its peak while checking (``VmHWM``, reset before), the difference being what the
   check holds beyond the model, its meshes and its input.

Run: ``.venv/bin/python bench/bench_check.py [--repeat R] [--rounds K] [--first-call]``. Needs the ``check`` and
``test`` extras (pinocchio, example-robot-data, python-fcl). Not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from benchutil import best

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test"))
from support.robots import PANDA_SRDF, PANDA_URDF, TALOS_SRDF, TALOS_URDF, group_state, robot_file, share

from motion_formats_ros import write
from motion_formats_ros.cli.main import main as command
from motion_formats_ros.core.kinematics import Box, Capsule, Cylinder, Geometry, Sphere
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.core.spatial import quat_to_matrix
from motion_formats_ros.safety import Checker
from motion_formats_ros.safety.shapes import shape_poses


def panda_frames(checker: Checker, n: int) -> Motion:
    names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
    lower = np.array([checker.limits[k].lower for k in names])
    upper = np.array([checker.limits[k].upper for k in names])
    values = np.random.default_rng(11).uniform(lower, upper, (n, len(names)))
    return Motion(times=np.arange(n) * 0.01, joint_names=names, position=values)


def pinocchio_loop(motion: Motion) -> tuple[float, int]:
    import pinocchio as pin

    model = pin.buildModelFromUrdf(str(robot_file(*PANDA_URDF)))
    geometry = pin.buildGeomFromUrdf(
        model, str(robot_file(*PANDA_URDF)), pin.GeometryType.COLLISION, package_dirs=[str(share())]
    )
    geometry.addAllCollisionPairs()
    pin.removeCollisionPairs(model, geometry, str(robot_file(*PANDA_SRDF)))
    data, gdata = model.createData(), pin.GeometryData(geometry)
    assert motion.position is not None
    q = np.zeros((motion.num_frames, model.nq))
    for c, name in enumerate(motion.joint_names):
        q[:, model.joints[model.getJointId(name)].idx_q] = motion.position[:, c]
    q[:, model.joints[model.getJointId("panda_finger_joint2")].idx_q] = q[
        :, model.joints[model.getJointId("panda_finger_joint1")].idx_q
    ]
    hits = [0]

    def run() -> None:
        count = 0
        for qf in q:
            pin.computeCollisions(model, data, geometry, gdata, qf, False)
            count += sum(r.isCollision() for r in gdata.collisionResults)
        hits[0] = count

    return best(run, REPEAT), hits[0]


def command_seconds(motion: Motion, folder: Path) -> float:
    """Seconds of ``motion-formats check`` on ``motion`` run in this process (best of REPEAT; the
    imports are made by then, the model is read and prepared in every run)."""
    path = folder / f"frames{motion.num_frames}.csv"
    write(MotionFile.single(motion), path, overwrite=True)
    args = ["check", str(path), "--urdf", str(robot_file(*PANDA_URDF)), "--srdf", str(robot_file(*PANDA_SRDF))]
    args += ["--package-path", str(share()), "--json"]

    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            command(args)

    return best(run, REPEAT)


def library_choice(checker: Checker, motion: Motion) -> tuple[float, float, int, int]:
    """coal and python-fcl on the same shapes, frames and pairs (every pair at every frame)."""
    import coal
    import fcl

    poses = checker.model.link_poses(motion.joint_names, motion.position, warn=False)
    rotation, translation = shape_poses(checker.shapes, quat_to_matrix(poses.rotation), poses.translation)
    collider = checker.collider
    pairs = list(zip(collider.first.tolist(), collider.second.tolist(), strict=True))

    def fcl_geometry(geometry: Geometry, shape: Any) -> Any:
        if isinstance(geometry, Box):
            return fcl.Box(*geometry.size)
        if isinstance(geometry, Sphere):
            return fcl.Sphere(geometry.radius)
        if isinstance(geometry, Cylinder):
            return fcl.Cylinder(geometry.radius, geometry.length)
        if isinstance(geometry, Capsule):
            return fcl.Capsule(geometry.radius, geometry.length)
        vertices = np.asarray(shape.vertices(), dtype=np.float64)  # the same triangles coal has
        faces = np.array([[t[0], t[1], t[2]] for t in (shape.tri_indices(i) for i in range(shape.num_tris))])
        model = fcl.BVHModel()
        model.beginModel(len(vertices), len(faces))
        model.addSubModel(vertices, faces.astype(np.int64))
        model.endModel()
        return model

    geometries = [c.geometry for link in checker.model.links for c in link.collisions]
    fcl_objects = [
        fcl.CollisionObject(fcl_geometry(g, s.collision_geometry()), fcl.Transform())
        for g, s in zip(geometries, checker.shapes, strict=True)
    ]
    n = motion.num_frames
    counts = [0, 0]

    def with_coal() -> None:
        request, result = coal.CollisionRequest(), coal.CollisionResult()
        geometry = [s.collision_geometry() for s in checker.shapes]
        compute = [coal.ComputeCollision(geometry[i], geometry[j]) for i, j in pairs]
        count = 0
        for f in range(n):
            tf = [coal.Transform3s(rotation[f, s], translation[f, s]) for s in range(len(checker.shapes))]
            for k, (i, j) in enumerate(pairs):
                result.clear()
                compute[k](tf[i], tf[j], request, result)
                count += result.isCollision()
        counts[0] = count

    def with_fcl() -> None:
        request = fcl.CollisionRequest()
        count = 0
        for f in range(n):
            for s, obj in enumerate(fcl_objects):
                obj.setTransform(fcl.Transform(rotation[f, s], translation[f, s]))
            for i, j in pairs:
                result = fcl.CollisionResult()
                count += fcl.collide(fcl_objects[i], fcl_objects[j], request, result) > 0
        counts[1] = count

    return best(with_coal, REPEAT), best(with_fcl, REPEAT), counts[0], counts[1]


def humanoid(checker: Checker, n: int, rate: float = 500.0) -> Motion:
    names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
    pose = group_state(robot_file(*TALOS_SRDF), "half_sitting")
    t = np.arange(n) / rate
    w = 2 * math.pi * 0.8
    phase = np.linspace(0.0, 3.0, len(names))
    values = np.array([pose.get(k, 0.0) for k in names]) + 0.1 * np.sin(w * t[:, None] + phase)
    root = np.column_stack([0.3 * t / t[-1], 0.05 * np.sin(w * t), 1.0 + 0.02 * np.sin(2 * w * t)])
    yaw = 0.2 * np.sin(0.5 * w * t)
    quat = np.column_stack([np.zeros(n), np.zeros(n), np.sin(yaw / 2), np.cos(yaw / 2)])
    return Motion(times=t, joint_names=names, position=values, root_position=root, root_orientation=quat)


#: A fresh process's first check of the Panda (ours) or pinocchio's (peer): wall-clock and CPU seconds on stdout.
FIRST_CALL = """
import sys, time
sys.path.insert(0, {test!r})
import numpy as np
import coal
from support.robots import PANDA_SRDF, PANDA_URDF, robot_file, share
urdf, srdf, share = robot_file(*PANDA_URDF), robot_file(*PANDA_SRDF), share()
if sys.argv[1] == "ours":
    from motion_formats_ros.core.model import Motion
    from motion_formats_ros.safety import Checker

    start, cpu = time.perf_counter(), time.process_time()
    checker = Checker(urdf, srdf=srdf, package_paths=[share])
    names = tuple(j.name for j in checker.model.joints if j.movable and j.mimic is None)
    checker.check(Motion(times=np.zeros(1), joint_names=names, position=np.zeros((1, len(names)))))
else:
    import pinocchio as pin

    start, cpu = time.perf_counter(), time.process_time()
    model = pin.buildModelFromUrdf(str(urdf))
    geometry = pin.buildGeomFromUrdf(model, str(urdf), pin.GeometryType.COLLISION, package_dirs=[str(share)])
    geometry.addAllCollisionPairs()
    pin.removeCollisionPairs(model, geometry, str(srdf))
    data, gdata = model.createData(), pin.GeometryData(geometry)
    pin.computeCollisions(model, data, geometry, gdata, pin.neutral(model), False)
print(time.perf_counter() - start, time.process_time() - cpu)
print(" ".join(m for m in ("trimesh", "scipy") if m in sys.modules))
"""

TEST = str(Path(__file__).resolve().parent.parent / "test")


def first_call(side: str) -> tuple[float, float, str]:
    """Wall-clock and CPU seconds of a fresh process's first check (``ours``) or pinocchio's
    (``peer``), and the heavy modules it imported meanwhile."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(TEST).parent), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", FIRST_CALL.format(test=TEST), side],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(TEST).parent,  # `python -c` looks in its folder first: this package, whatever the caller's folder
    )
    times, imported = [*done.stdout.splitlines(), "", ""][:2]
    wall, cpu = (float(v) for v in times.split())
    return wall, cpu, imported


#: A fresh process's 60 s × 500 Hz TALOS check: peak resident KiB after the model, then after the check.
TALOS_MEMORY = """
import sys
sys.path.insert(0, {test!r})
import bench_check
from support.robots import TALOS_SRDF, TALOS_URDF, robot_file, share
from motion_formats_ros.safety import Checker

def status(key):
    return int(next(x for x in open("/proc/self/status") if x.startswith(key)).split()[1])

talos = Checker(robot_file(*TALOS_URDF), srdf=robot_file(*TALOS_SRDF), package_paths=[share()])
motion = bench_check.humanoid(talos, 30000)
for shape in talos.shapes:  # the meshes' hulls and triangle hierarchies, built at their first use otherwise
    shape.collision_geometry(), shape.convex_geometry()
with open("/proc/self/clear_refs", "w") as fh:  # the peak starts again from here
    fh.write("5")
before = status("VmRSS")
report = talos.check(motion)
print(before, status("VmHWM"), len(report.findings))
"""


def talos_memory() -> tuple[int, int, int]:
    """Resident KiB of a fresh process once TALOS is prepared and its 30,000 frames made, its peak
    while checking them, and the findings."""
    bench = str(Path(__file__).resolve().parent)
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([bench, str(Path(TEST).parent), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-c", TALOS_MEMORY.format(test=TEST)], check=True, capture_output=True, text=True, env=env
    )
    before, after, found = (int(v) for v in done.stdout.split())
    return before, after, found


REPEAT = 3


def first_call_ratio(rounds: int) -> None:
    """Part 0: ours and the peer's first call, taken in turns; medians and their ratio."""
    ours_first, peer_first = [], []
    for k in range(rounds):  # taken in turns (who goes first too), so that both see the same load
        pair = [("ours", ours_first), ("peer", peer_first)]
        for side, into in pair if k % 2 == 0 else pair[::-1]:
            into.append(first_call(side))
    ours_wall, ours_cpu = (statistics.median(t[i] for t in ours_first) for i in (0, 1))
    peer_wall, peer_cpu = (statistics.median(t[i] for t in peer_first) for i in (0, 1))
    print(f"0. Panda, first call in a fresh process (imports made before the clock starts), median of {rounds} rounds")
    print("                                                         wall s    CPU s")
    print(f"   ours  Checker + check of one frame:                   {ours_wall:.4f}   {ours_cpu:.4f}")
    print(f"   peer  pinocchio model + geometry + computeCollisions: {peer_wall:.4f}   {peer_cpu:.4f}")
    wall_ratio, cpu_ratio = ours_wall / peer_wall, ours_cpu / peer_cpu
    verdict = "met" if max(wall_ratio, cpu_ratio) <= 1.5 else "NOT met"
    print(
        f"   FIRST-CALL RATIO ours / peer:                         {wall_ratio:6.2f}   {cpu_ratio:6.2f}"
        f"  (target ≤ 1.5: {verdict})"
    )
    print(f"   imported meanwhile by ours: {ours_first[0][2] or 'neither trimesh nor scipy'}")


def main() -> None:
    global REPEAT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    parser.add_argument("--rounds", type=int, default=9, help="rounds of the first call, at least 7 (default 9)")
    parser.add_argument("--first-call", action="store_true", help="measure the first call (part 0) alone")
    args = parser.parse_args()
    REPEAT = args.repeat
    first_call_ratio(max(args.rounds, 7))
    if args.first_call:
        return

    t0 = time.perf_counter()
    panda = Checker(robot_file(*PANDA_URDF), srdf=robot_file(*PANDA_SRDF), package_paths=[share()])
    setup = time.perf_counter() - t0
    motion = panda_frames(panda, 1000)
    ours = best(lambda: panda.check(motion), REPEAT)
    peer, hits = pinocchio_loop(motion)
    found = sum(
        1
        for f in panda.check(motion).of_kind("self_collision")
        for a, b in f.intervals
        for _ in range(round((b - a) / 0.01) + 1)
    )
    with tempfile.TemporaryDirectory() as tmp:
        whole = command_seconds(motion, Path(tmp))
        fixed = command_seconds(motion.take(range(2)), Path(tmp))
    print("1. Panda, 1000 random frames, SRDF pairs left out")
    print(f"   model prepared once (meshes, pairs):   {setup:.3f} s")
    print(f"   ours  Checker.check (FK, collisions, floor, limits):  {ours:.4f} s  ({ours / 1000 * 1e6:.0f} µs/frame)")
    print(f"   peer  pinocchio computeCollisions loop:               {peer:.4f} s  ({peer / 1000 * 1e6:.0f} µs/frame)")
    print(f"   ratio ours / peer:                                    {ours / peer:.2f}  (target ≤ 1.5)")
    print(
        f"   command: 1000 frames {whole:.3f} s, 2 frames {fixed:.3f} s, difference {whole - fixed:.3f} s"
        f" = {(whole - fixed) / peer:.2f} × peer"
    )
    print(f"   colliding (frame, geometry pair) results: pinocchio {hits}; (frame, link pair) findings ours {found}")

    coal_s, fcl_s, coal_hits, fcl_hits = library_choice(panda, motion.take(range(300)))
    print("2. Collision library: Panda meshes, 300 frames, every checked pair at every frame")
    print(f"   coal        {coal_s:.4f} s  ({coal_hits} colliding)")
    print(f"   python-fcl  {fcl_s:.4f} s  ({fcl_hits} colliding)")
    print(f"   fcl / coal: {fcl_s / coal_s:.2f}  → {'coal' if coal_s <= fcl_s else 'python-fcl'}")

    t0 = time.perf_counter()
    talos = Checker(robot_file(*TALOS_URDF), srdf=robot_file(*TALOS_SRDF), package_paths=[share()])
    setup = time.perf_counter() - t0
    print(
        f"3. TALOS ({len(talos.model.actuated_joints)} joints, {len(talos.shapes)} shapes, {len(talos.pairs)} pairs),"
        f" 500 Hz; model prepared once: {setup:.2f} s"
    )
    print("   frames   wall s   CPU s   CPU µs/frame   findings")
    for n in (1000, 10000, 30000):
        m = humanoid(talos, n)
        wall = time.perf_counter()
        cpu = time.process_time()
        report = talos.check(m)
        cpu = time.process_time() - cpu
        wall = time.perf_counter() - wall
        print(f"   {n:6d}   {wall:6.2f}   {cpu:5.2f}   {cpu / n * 1e6:12.1f}   {len(report.findings)}")

    before, after, found = talos_memory()
    print("4. TALOS, 60 s at 500 Hz (30,000 frames) in a fresh process: resident size")
    print(
        f"   model and meshes ready, frames made: {before / 1024:.0f} MiB; peak while checking: {after / 1024:.0f} MiB"
    )
    print(f"   the check's own: {(after - before) / 1024:.0f} MiB (target < 300); {found} findings")


if __name__ == "__main__":
    main()
