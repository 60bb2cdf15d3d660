"""Forward kinematics of the package (``core/kinematics``) against pinocchio, on real robot models.

Every link's world pose, for a 7-joint arm (Franka Panda, with its gripper) and a humanoid
(NAO V5: 26 joints, continuous and 34 mimic finger joints), both from the project's corpus of
real robot descriptions. Measured in the same run, on the same joint values:

    installed   the megabytes pinocchio installs (pin and what it requires), also beyond
                coal (which the ``check`` extra installs anyway)
    import      a fresh interpreter that has imported numpy importing the package's
                kinematics, or pinocchio
    load        ours ``load_robot_model(path)``; pinocchio ``buildModelFromUrdf(path)`` and
                ``createData()`` (its kinematic model only: ours also reads collision shapes,
                visuals and inertias)
    per frame   one call per frame, as a player's tick or a viewer's slider asks: ours
                ``link_poses`` of one frame; pinocchio ``forwardKinematics`` and
                ``updateFramePlacements``, then every link's pose read out as numbers
    batched     every frame of a motion at once: ours one ``link_poses`` call for all N frames;
                pinocchio has no call for many configurations, so the same per-frame loop
                (once computing only, once also reading every link's pose out into arrays)
    with load   the model loaded, then all N frames batched (what ``check``, ``plot`` or a
                conversion that needs link poses pays once per file)

Before timing, both results are compared link by link at every frame (translations within
1e-9 m, rotations within 1e-9); pinocchio gets each mimic joint's value from its leader, as
the package computes it. Prints the times and the ratio ours / pinocchio (below 1: ours is
faster). Not a test.

Run: ``.venv/bin/python bench/bench_fk_pinocchio.py [--frames 1000 10000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import contextlib
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np
from benchutil import best

from motion_formats_ros.core.kinematics import RobotModel, load_robot_model

#: The real robot descriptions of ../shared beside the checkout.
CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "urdf"
MODELS = {"panda (7-joint arm)": "panda.urdf", "nao (humanoid)": "nao.urdf"}


def import_time(module: str, repeat: int) -> float:
    """Seconds a fresh interpreter that has imported numpy takes to import ``module``."""
    code = f"import time, numpy; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True) for _ in range(repeat)
    ]
    return min(float(run.stdout) for run in runs)


def installed_mb(name: str, without: str | None = None) -> float:
    """MB installed by distribution ``name`` and what it requires (no extras), less numpy and,
    when given, less the distribution ``without`` and what that requires."""
    import importlib.metadata as md

    from packaging.requirements import Requirement

    def closure(root: str) -> set[str]:
        seen: set[str] = set()
        todo = [root]
        while todo:
            key = todo.pop().lower().replace("_", "-")
            if key in seen or key == "numpy":
                continue
            seen.add(key)
            for text in md.requires(key) or []:
                req = Requirement(text)
                if req.marker is None or req.marker.evaluate({"extra": ""}):
                    todo.append(req.name)
        return seen

    names = closure(name) - (closure(without) if without else set())
    total = 0
    for dist in names:
        found = md.distribution(dist)
        for file in found.files or []:
            with contextlib.suppress(OSError):
                total += Path(str(found.locate_file(file))).stat().st_size
    return total / 1e6


def mimic_values(model: RobotModel, names: list[str], q: np.ndarray) -> dict[str, np.ndarray]:
    """Every movable joint's values (N,): the driven ones from ``q``, each mimic from its leader."""
    values = {name: q[:, i] for i, name in enumerate(names)}

    def value(name: str) -> np.ndarray:
        joint = model.joint(name)
        if joint.mimic is None:
            return values[name]
        return joint.mimic.multiplier * value(joint.mimic.joint) + joint.mimic.offset

    return {j.name: value(j.name) for j in model.joints if j.movable}


class Peer:
    """A pinocchio model of the same URDF and its configurations for the package's joint values."""

    def __init__(self, path: Path, model: RobotModel, names: list[str], q: np.ndarray) -> None:
        import pinocchio as pin

        self.pin = pin
        self.model = pin.buildModelFromUrdf(str(path))
        self.data = self.model.createData()
        self.frames = [self.model.getFrameId(link, pin.BODY) for link in model.link_names]
        values = mimic_values(model, names, q)
        self.q = np.zeros((q.shape[0], self.model.nq))
        for jid in range(1, self.model.njoints):
            joint = self.model.joints[jid]
            a = values[self.model.names[jid]]
            if joint.nq == 1:
                self.q[:, joint.idx_q] = a
            elif joint.nq == 2:  # continuous: cos, sin
                self.q[:, joint.idx_q] = np.cos(a)
                self.q[:, joint.idx_q + 1] = np.sin(a)
            else:
                raise ValueError(f"joint {self.model.names[jid]} of {joint.nq} coordinates")

    def compute(self, lo: int, hi: int) -> None:
        """Every link's pose at frames lo..hi, left in pinocchio's data (nothing read out)."""
        fk, place, model, data = self.pin.forwardKinematics, self.pin.updateFramePlacements, self.model, self.data
        for q in self.q[lo:hi]:
            fk(model, data, q)
            place(model, data)

    def poses(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """Every link's pose at frames lo..hi as (N, L, 3) translations and (N, L, 4) x, y, z, w quaternions."""
        pin, model, data, frames = self.pin, self.model, self.data, self.frames
        xyzquat = np.empty((hi - lo, len(frames), 7))
        for f, q in enumerate(self.q[lo:hi]):
            pin.forwardKinematics(model, data, q)
            pin.updateFramePlacements(model, data)
            for k, fid in enumerate(frames):
                xyzquat[f, k] = pin.SE3ToXYZQUAT(data.oMf[fid])
        return xyzquat[..., :3], xyzquat[..., 3:]


def agree(model: RobotModel, peer: Peer, names: list[str], q: np.ndarray) -> float:
    """The largest difference of the two results (translations in m, rotations as quaternion components)."""
    ours = model.link_poses(names, q, warn=False)
    trans, rot = peer.poses(0, q.shape[0])
    sign = np.where(np.sum(ours.rotation * rot, axis=-1, keepdims=True) < 0, -1.0, 1.0)
    return float(max(np.abs(ours.translation - trans).max(), np.abs(ours.rotation - sign * rot).max()))


def row(what: str, ours: float, peer: float) -> None:
    print(f"  {what:<44} ours {ours * 1e3:10.3f} ms   pinocchio {peer * 1e3:10.3f} ms   ratio {ours / peer:7.3f}")


def bench_model(label: str, path: Path, frames: list[int], repeat: int) -> None:
    model = load_robot_model(path)
    names = list(model.actuated_joints)
    most = max(frames)
    q = np.random.default_rng(0).uniform(-1.0, 1.0, size=(most, len(names)))
    peer = Peer(path, model, names, q)
    movable = sum(1 for j in model.joints if j.movable)
    print(f"{label}: {path.name}, {len(model.links)} links, {len(names)} driven joints ({movable} movable)")
    difference = agree(model, peer, names, q[:200])
    assert difference < 1e-9, f"the results differ by {difference}"
    print(f"  same poses: largest difference {difference:.1e} over 200 frames")

    def load_ours() -> object:
        return load_robot_model(path)

    def load_peer() -> object:
        m = peer.pin.buildModelFromUrdf(str(path))
        return m.createData()

    t_load = (best(load_ours, repeat), best(load_peer, repeat))
    row("load", *t_load)

    per = min(frames)
    one = [q[f : f + 1] for f in range(per)]

    def per_frame_ours() -> None:
        for values in one:
            model.link_poses(names, values, warn=False)

    row(
        f"per frame ({per} calls of one frame)", best(per_frame_ours, repeat), best(partial(peer.poses, 0, per), repeat)
    )
    for n in frames:
        t_ours = best(partial(model.link_poses, names, q[:n], warn=False), repeat)
        t_compute = best(partial(peer.compute, 0, n), repeat)
        t_poses = best(partial(peer.poses, 0, n), repeat)
        row(f"batched, {n} frames (pinocchio computing only)", t_ours, t_compute)
        row(f"batched, {n} frames (pinocchio read out)", t_ours, t_poses)
        row(f"with load, {n} frames (read out)", t_load[0] + t_ours, t_load[1] + t_poses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="folder holding panda.urdf and nao.urdf")
    args = parser.parse_args()
    try:
        import pinocchio
    except ImportError:
        print("pinocchio is not installed (pip install pin): nothing to compare with (skipped)")
        return
    if not all((args.corpus / name).exists() for name in MODELS.values()):
        print(f"the real robot models are not in {args.corpus} (skipped)")
        return
    print(f"pinocchio {pinocchio.__version__}, numpy {np.__version__}; best of {args.repeat}")
    own = (
        sum(f.stat().st_size for f in Path(sys.modules[RobotModel.__module__].__file__ or "").parent.glob("*.py")) / 1e6
    )
    print(
        f"  installed: pinocchio (pin and what it requires, numpy aside) {installed_mb('pin'):.0f} MB, "
        f"{installed_mb('pin', without='coal'):.0f} MB beyond coal (the check extra); "
        f"the package's core/kinematics {own:.2f} MB of source"
    )
    row(
        "import (fresh interpreter, numpy loaded)",
        import_time("motion_formats_ros.core.kinematics", args.repeat),
        import_time("pinocchio", args.repeat),
    )
    for label, name in MODELS.items():
        bench_model(label, args.corpus / name, sorted(args.frames), args.repeat)


if __name__ == "__main__":
    main()
