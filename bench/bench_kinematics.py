"""Forward kinematics of every link for a whole motion in one call, against per-frame peers.

A humanoid-like tree of 30 revolute joints (two legs of 6, two arms of 7, a waist and a
neck of 2 each; odd axes and origins), written as URDF here. Measured in the same run:

    ours  RobotModel.link_poses  all N frames × all links in one vectorised call (target: 100k frames < 1 s)
    ours  joint_transforms       robot_state_publisher's per-joint frames for all N frames
    peer  naive loop             one 4x4 matrix product per joint per frame (numpy), on fewer
                                 frames, scaled to N
    peer  yourdfpy               update_cfg + get_transform of every link per frame (when
                                 installed), on fewer frames, scaled to N

Run: ``.venv/bin/python bench/bench_kinematics.py [--frames N]``. Not a test.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
from benchutil import best
from scipy.spatial.transform import Rotation

from motion_formats_ros.core.kinematics import RobotModel


def make_urdf() -> str:
    rng = np.random.default_rng(0)
    chains = {"lleg": 6, "rleg": 6, "larm": 7, "rarm": 7, "waist": 2, "neck": 2}
    links = ['<link name="base"/>']
    joints = []
    for chain, count in chains.items():
        parent = "base" if chain != "neck" else "waist_1"
        for i in range(count):
            name = f"{chain}_{i}"
            links.append(f'<link name="{name}"/>')
            xyz = " ".join(f"{v:.4f}" for v in rng.uniform(-0.2, 0.2, 3))
            rpy = " ".join(f"{v:.4f}" for v in rng.uniform(-0.5, 0.5, 3))
            axis = " ".join(f"{v:.4f}" for v in rng.normal(size=3))
            joints.append(
                f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{name}"/>'
                f'<origin xyz="{xyz}" rpy="{rpy}"/><axis xyz="{axis}"/>'
                '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>'
            )
            parent = name
    return '<robot name="bench">' + "".join(links) + "".join(joints) + "</robot>"


def naive(model: RobotModel, names: list[str], q: np.ndarray) -> np.ndarray:
    """Per frame, per joint: parent pose @ origin @ rotation about the axis (4x4 numpy matrices)."""
    index = {n: i for i, n in enumerate(names)}
    origins = []
    for j in model.joints:
        m = np.eye(4)
        m[:3, :3] = Rotation.from_quat(j.origin_quat).as_matrix()
        m[:3, 3] = j.origin_xyz
        origins.append(m)
    link_index = {name: i for i, name in enumerate(model.link_names)}
    out = np.empty((q.shape[0], len(model.links), 4, 4))
    for f in range(q.shape[0]):
        poses = [np.eye(4)] * len(model.links)
        for j, origin in zip(model.joints, origins, strict=True):
            x, y, z = j.axis
            a = q[f, index[j.name]]
            c, s = math.cos(a), math.sin(a)
            t = 1 - c
            rot = np.array(
                [
                    [t * x * x + c, t * x * y - s * z, t * x * z + s * y, 0],
                    [t * x * y + s * z, t * y * y + c, t * y * z - s * x, 0],
                    [t * x * z - s * y, t * y * z + s * x, t * z * z + c, 0],
                    [0, 0, 0, 1],
                ]
            )
            poses[link_index[j.child]] = poses[link_index[j.parent]] @ origin @ rot
        out[f] = poses
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--peer-frames", type=int, default=2000, help="frames the naive loop runs on (scaled)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    text = make_urdf()
    model = RobotModel.from_urdf(text, "bench.urdf")
    names = list(model.actuated_joints)
    rng = np.random.default_rng(1)
    q = rng.uniform(-2, 2, size=(args.frames, len(names)))
    print(f"model: {len(model.links)} links, {len(names)} joints; {args.frames} frames")

    t_ours = best(lambda: model.link_poses(names, q), args.repeat)
    t_rsp = best(lambda: model.joint_transforms(names, q), args.repeat)
    print(f"ours  link_poses (every link, all frames):  {t_ours * 1e3:9.1f} ms  (target < 1000 ms)")
    print(f"ours  joint_transforms (per-joint frames):  {t_rsp * 1e3:9.1f} ms")

    few = q[: args.peer_frames]
    t_naive = best(lambda: naive(model, names, few), 1) * args.frames / few.shape[0]
    # The peer computes the same numbers (checked here, on the frames it ran).
    poses = model.link_poses(names, few)
    mats = np.tile(np.eye(4), (*poses.translation.shape[:2], 1, 1))
    mats[..., :3, :3] = Rotation.from_quat(poses.rotation.reshape(-1, 4)).as_matrix().reshape(*mats.shape[:2], 3, 3)
    mats[..., :3, 3] = poses.translation
    assert np.abs(mats - naive(model, names, few)).max() < 1e-9
    print(f"peer  naive per-frame loop ({few.shape[0]} frames, scaled): {t_naive * 1e3:9.1f} ms")
    print(f"ratio ours / naive loop: {t_ours / t_naive * 100:.2f} %")

    try:
        import yourdfpy
    except ImportError:
        print("peer yourdfpy skipped: not installed (pip install yourdfpy, the test extra)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.urdf"
        path.write_text(text, encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            robot = yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False)
    frames = min(200, args.frames)
    link_names = list(model.link_names)

    def peer() -> None:
        for f in range(frames):
            robot.update_cfg(dict(zip(names, q[f], strict=True)))
            for link in link_names:
                robot.get_transform(link)

    t_peer = best(peer, 1) * args.frames / frames
    print(f"peer  yourdfpy ({frames} frames, scaled):     {t_peer * 1e3:9.1f} ms")
    print(f"ratio ours / yourdfpy: {t_ours / t_peer * 100:.3f} %")


if __name__ == "__main__":
    main()
