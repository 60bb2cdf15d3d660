"""Scene (JSON5) trajectory loading and evaluation against the pure-Python json5 parser.

A 2.5 MB scene: one robot with 30 joints driven by a 30-D trajectory of 7,000 control
points (10 ms apart, 70 s). Ours: load (pyjson5 + references + preprocessor) and
evaluate every joint at 500 Hz (35,000 × 30 values); also the whole ``read()`` to a
Motion at 500 Hz. Peer: the time the pure-Python ``json5`` package needs just to parse
the same text (skipped, with a message, when it is not installed). Not a test: prints
times and the ratio measured in the same run. Usage:

    .venv/bin/python bench/bench_scene.py [--points N] [--dims D] [--rate HZ] [--repeat R]
"""

from __future__ import annotations

import argparse
import importlib
import tempfile
from pathlib import Path

import numpy as np
import pyjson5
from benchutil import best

from motion_formats_ros import read
from motion_formats_ros.codecs.scene import load_scene


def make_text(points: int, dims: int) -> str:
    rng = np.random.default_rng(0)
    values = np.cumsum(rng.normal(scale=0.01, size=(points, dims)), axis=0)
    joints = ", ".join(f'"j{i}": {{"minValue": -10, "maxValue": 10}}' for i in range(dims))
    refs = ", ".join(f'"j{i}": {{"trajectory": "motion", "index": {i}}}' for i in range(dims))
    lines = []
    for k in range(points):
        f = ", ".join(f"{x:.7f}" for x in values[k])
        lines.append(f'    {{"t": {k / 100:.2f}, "f": [{f}]}}')
    return (
        "// benchmark scene\n{\n"
        f'  models: {{arm: {{kind: "robot", joints: {{{joints}}}, links: {{}}}}}},\n'
        f'  objects: {{robot: {{model: "arm", jointValues: {{{refs}}}}}}},\n'
        "  trajectories: {motion: {controlPoints: [\n" + ",\n".join(lines) + "\n  ]}}\n}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=7000)
    parser.add_argument("--dims", type=int, default=30)
    parser.add_argument("--rate", type=float, default=500.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    text = make_text(args.points, args.dims)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.json5"
        path.write_text(text, encoding="utf-8")
        size = path.stat().st_size

        def load_and_evaluate() -> np.ndarray:
            scene = load_scene(path)
            traj = scene.trajectories["motion"]
            times = traj.start + np.arange(int((traj.end - traj.start) * args.rate) + 1) / args.rate
            return traj.evaluate(times)

        values = load_and_evaluate()
        t_parse = best(lambda: pyjson5.loads(text), args.repeat)
        t_ours = best(load_and_evaluate, args.repeat)
        t_read = best(lambda: read(path, rate=args.rate), args.repeat)

        print(f"file: {size / 1e6:.2f} MB, {args.points} control points x {args.dims} dims")
        print(f"evaluated: {values.shape[0]} samples x {values.shape[1]} dims at {args.rate:g} Hz")
        print(f"pyjson5 parse only:               {t_parse * 1e3:9.1f} ms")
        print(f"ours: load + evaluate at {args.rate:g} Hz:  {t_ours * 1e3:9.1f} ms")
        print(f"ours: read() -> Motion at {args.rate:g} Hz: {t_read * 1e3:9.1f} ms")
        try:
            json5 = importlib.import_module("json5")
        except ImportError:
            print("peer skipped: the pure-Python 'json5' package is not installed (pip install json5 to compare)")
            return
        t_peer = best(lambda: json5.loads(text), 1)
        print(f"peer: json5.loads (parse only):   {t_peer * 1e3:9.1f} ms")
        print(f"ratio ours / peer: {t_ours / t_peer * 100:.3f} % (target < 1 %)")
        print(f"ratio read() / peer: {t_read / t_peer * 100:.3f} %")


if __name__ == "__main__":
    main()
