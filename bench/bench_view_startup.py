"""Start-up of `motion-formats view`: a 60 s × 500 Hz × 30-joint motion served on its robot.

Goal: the page is served (HTTP 200 from the printed address) less than 3 s after the
command starts. Measured from starting the process to

    printed   the "viewing … at URL" line (motion read, model loaded, page built)
    served    the page's HTML answering on that address

Peer measured in the same run: `motion-formats info` of the same file (start-up plus
reading the motion: what any command pays), so the ratio shows what the viewer adds.
The robot is a generated 30-joint chain URDF (boxes), the motion an OMF msgpack file.

Run: ``.venv/bin/python bench/bench_view_startup.py [--seconds 60] [--rate 500] [--joints 30]``. Not a test.
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from pathlib import Path

import numpy as np

from motion_formats_ros import Motion, MotionFile, write

BIN = Path(sys.executable).parent
RUNS = 3


def chain_urdf(joints: int) -> str:
    links = ['<link name="base"><visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>']
    parts = []
    for i in range(joints):
        links.append(
            f'<link name="l{i}"><visual><origin xyz="0 0 0.025"/><geometry><box size="0.02 0.02 0.05"/>'
            "</geometry></visual></link>"
        )
        parent = "base" if i == 0 else f"l{i - 1}"
        axis = ("1 0 0", "0 1 0", "0 0 1")[i % 3]
        parts.append(
            f'<joint name="j{i}" type="revolute"><parent link="{parent}"/><child link="l{i}"/>'
            f'<origin xyz="0 0 0.05"/><axis xyz="{axis}"/><limit lower="-3" upper="3" effort="1" velocity="9"/></joint>'
        )
    return f'<?xml version="1.0"?><robot name="chain{joints}">{"".join(links)}{"".join(parts)}</robot>'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def time_view(motion: Path, urdf: Path) -> tuple[float, float]:
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [str(BIN / "motion-formats"), "view", str(motion), "--urdf", str(urdf), "--no-browser", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        printed = time.perf_counter() - t0
        if "viewing" not in line:
            raise RuntimeError(f"view did not start: {line!r}")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as r:
            assert r.status == 200 and r.read(100)
        served = time.perf_counter() - t0
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    return printed, served


def time_info(motion: Path) -> float:
    t0 = time.perf_counter()
    subprocess.run([str(BIN / "motion-formats"), "info", str(motion)], capture_output=True, check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rate", type=float, default=500.0)
    ap.add_argument("--joints", type=int, default=30)
    args = ap.parse_args()
    n = round(args.seconds * args.rate) + 1
    t = np.arange(n) / args.rate
    phase = np.arange(args.joints)[None, :] * 0.3
    position = 0.6 * np.sin(2 * np.pi * 0.5 * t[:, None] + phase)
    motion = Motion(times=t, joint_names=tuple(f"j{i}" for i in range(args.joints)), position=position, rate=args.rate)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.omf.msgpack"
        urdf = Path(tmp) / "chain.urdf"
        urdf.write_text(chain_urdf(args.joints))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            write(MotionFile.single(motion, name="long"), path)
        size = path.stat().st_size / 1e6
        views = [time_view(path, urdf) for _ in range(RUNS)]
        infos = [time_info(path) for _ in range(RUNS)]
    printed = min(v[0] for v in views)
    served = min(v[1] for v in views)
    info = min(infos)
    print(
        f"motion: {args.seconds:g} s × {args.rate:g} Hz × {args.joints} joints ({n} frames, {size:.1f} MB OMF msgpack)"
    )
    print(f"view: address printed after {printed:.2f} s, page served after {served:.2f} s (best of {RUNS}; goal < 3 s)")
    print(f"peer: motion-formats info of the same file {info:.2f} s")
    print(f"ratio view served / info: {served / info:.2f}")
    print("PASS" if served < 3.0 else "FAIL: the page took 3 s or more")


if __name__ == "__main__":
    main()
