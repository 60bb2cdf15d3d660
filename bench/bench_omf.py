"""OMF load/save against the reference implementation (otter-motion-format) on the same data.

10,000 frames x 30 joints (pos, vel, tau) + root pose, two groups (target, actual).
Not a test: prints times and ratios measured in the same run. Usage:

    .venv/bin/python bench/bench_omf.py [--frames N] [--skip-yaml] [--repeat R]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import otter_motion_format as otter
from benchutil import best
from scipy.spatial.transform import Rotation

from motion_formats_ros import Motion, MotionFile, read, write


def make(frames: int, joints: int) -> MotionFile:
    rng = np.random.default_rng(0)
    groups = {}
    for name in ("target", "actual"):
        groups[name] = Motion(
            times=np.arange(frames) / 500.0,
            joint_names=tuple(f"joint_{i}" for i in range(joints)),
            position=rng.normal(size=(frames, joints)),
            velocity=rng.normal(size=(frames, joints)),
            effort=rng.normal(size=(frames, joints)),
            root_position=rng.normal(size=(frames, 3)),
            root_orientation=Rotation.random(frames, random_state=1).as_quat(),
        )
    return MotionFile(groups=groups, name="bench", robot="bench_bot")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--joints", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-yaml", action="store_true", help="the reference takes minutes on YAML")
    args = parser.parse_args()

    data = make(args.frames, args.joints)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        encodings = ["msgpack", "json"] + ([] if args.skip_yaml else ["yaml"])
        for enc in encodings:
            ours = folder / f"ours.{enc}"
            theirs = folder / f"ref.{enc}"
            repeat = args.repeat if enc != "yaml" else 1
            write(data, ours)
            ref_motion = otter.load(ours)  # the reference reads our bytes: same data for both
            ref_motion.save(theirs)
            size = theirs.stat().st_size

            def our_save(enc: str = enc) -> None:
                write(data, folder / f"ours.{enc}", overwrite=True)

            def ref_save(enc: str = enc, m: object = ref_motion) -> None:
                m.save(folder / f"ref.{enc}")  # type: ignore[attr-defined]

            # Loads: both read the file the reference wrote.
            t_ref_load = best(lambda p=theirs: otter.load(p), repeat)
            t_our_load = best(lambda p=theirs: read(p), repeat)
            t_our_load_own = best(lambda p=ours: read(p), repeat)
            t_ref_save = best(ref_save, repeat)
            t_our_save = best(our_save, repeat)
            rows.append((enc, size, "load", t_ref_load, t_our_load))
            rows.append((enc, ours.stat().st_size, "load (our layout)", otter_load_time(ours, repeat), t_our_load_own))
            rows.append((enc, size, "save", t_ref_save, t_our_save))

    print(f"OMF, {args.frames} frames x {args.joints} joints (pos, vel, tau) + root pose, 2 groups")
    print(f"{'encoding':<9} {'size MB':>8} {'operation':<18} {'reference s':>12} {'ours s':>9} {'speed-up':>9}")
    for enc, size, op, ref_t, our_t in rows:
        print(f"{enc:<9} {size / 1e6:>8.1f} {op:<18} {ref_t:>12.3f} {our_t:>9.4f} {ref_t / our_t:>8.1f}x")


def otter_load_time(path: Path, repeat: int) -> float:
    return best(lambda: otter.load(path), repeat)


if __name__ == "__main__":
    main()
