"""Benchmark the Choreonoid .seq codec against PyYAML's C loader and dumper.

A generated body motion of 7,261 frames × 30 joints plus a 1-part root LinkPosition
(Choreonoid's layout, %.9g values, ≈2.9 MB) is loaded and saved by the codec and by
``yaml.load(..., Loader=yaml.CSafeLoader)`` / ``yaml.dump(..., Dumper=yaml.CSafeDumper)``
in the same run; the ratios are what the targets are about (load ≥ 20×, save ≥ 10×,
peak memory while loading ≤ 3× the arrays loaded).

Run: ``.venv/bin/python bench/bench_seq.py [--repeat N]``
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from motion_formats_ros import Motion, MotionFile
from motion_formats_ros.codecs import seq

FRAMES = 7261
JOINTS = 30
RATE = 1000.0


def make_motion() -> Motion:
    """A smooth walking-like motion: joint angles, a drifting root with a small sway."""
    t = np.arange(FRAMES) / RATE
    rng = np.random.default_rng(0)
    amp = rng.uniform(0.05, 1.2, JOINTS)
    freq = rng.uniform(0.3, 2.0, JOINTS)
    phase = rng.uniform(0, 2 * np.pi, JOINTS)
    joints = amp * np.sin(2 * np.pi * freq * t[:, None] + phase)
    yaw = 0.1 * np.sin(2 * np.pi * 0.5 * t)
    quat = np.column_stack([np.zeros(FRAMES), np.zeros(FRAMES), np.sin(yaw / 2), np.cos(yaw / 2)])
    root = np.column_stack([0.2 * t, 0.02 * np.sin(2 * np.pi * t), 0.7 + 0.01 * np.cos(4 * np.pi * t)])
    # Encoder-like resolution (1e-6 rad, 1 µm), as real logs have.
    return Motion(
        times=t,
        joint_names=tuple(f"J{i}" for i in range(JOINTS)),
        position=np.round(joints, 6),
        root_position=np.round(root, 6),
        root_orientation=quat,
    )


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (best is reported)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.seq"
        out = Path(tmp) / "out.seq"
        seq.write(MotionFile.single(make_motion()), path)
        text = path.read_text()
        size = path.stat().st_size
        print(f"file: {FRAMES} frames x {JOINTS} joints + 1-part root LinkPosition, {size / 1e6:.2f} MB")

        t_load, mf = best(lambda: seq.read(path), args.repeat)
        t_yaml_load, doc = best(lambda: yaml.load(text, Loader=yaml.CSafeLoader), max(2, args.repeat // 2))
        t_save, _ = best(lambda: seq.write(mf, out, overwrite=True), args.repeat)
        t_yaml_dump, _ = best(lambda: yaml.dump(doc, Dumper=yaml.CSafeDumper), max(2, args.repeat // 2))
        t_slow, _ = best(lambda: seq.decode(text, path, fast=False), 1)

        m = mf.motion
        arrays = sum(a.nbytes for _, a in m.iter_arrays()) + m.times.nbytes
        gc.collect()
        tracemalloc.start()
        seq.read(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()

    load_ratio = t_yaml_load / t_load
    save_ratio = t_yaml_dump / t_save
    mem_ratio = peak / arrays
    print(f"load  seq.read          {t_load * 1e3:8.1f} ms")
    print(f"load  yaml CSafeLoader  {t_yaml_load * 1e3:8.1f} ms   -> {load_ratio:5.1f}x faster (target >= 20x)")
    print(f"load  seq YAML path     {t_slow * 1e3:8.1f} ms   (the fallback, for reference)")
    print(f"save  seq.write         {t_save * 1e3:8.1f} ms")
    print(f"save  yaml CSafeDumper  {t_yaml_dump * 1e3:8.1f} ms   -> {save_ratio:5.1f}x faster (target >= 10x)")
    print(
        f"memory peak while loading {peak / 1e6:.2f} MB for {arrays / 1e6:.2f} MB of arrays "
        f"-> {mem_ratio:.2f}x (target <= 3x; the text read is {size / 1e6:.2f} MB)"
    )
    ok = load_ratio >= 20 and save_ratio >= 10 and mem_ratio <= 3
    print("targets met" if ok else "targets NOT met")


if __name__ == "__main__":
    main()
