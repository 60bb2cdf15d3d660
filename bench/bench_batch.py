"""``motion-formats batch`` throughput: serial vs local workers vs a Dask LocalCluster, same run.

40 bags (rosbag2 folders, MCAP) of 20,000 sensor_msgs/JointState messages × 30 joints
(position, velocity, effort) each, converted to Parquet (or ``--to``):

    serial         one process, a plain loop of read + write (no batch machinery): the peer
    batch -j1      ``batch --workers 1`` (in this process): the batch's own cost per input
    batch -jN      ``batch --workers N`` (local worker processes, started in the timing)
    dask N         ``batch --scheduler`` on a ``distributed.LocalCluster`` of N worker
                   processes bound to 127.0.0.1 (the cluster's start is reported apart)

Reported: wall time, per-bag time, speed-up over serial (goal ≥ 1.7× with 2 workers on
this 2-core machine) and the overhead per input: (wall × workers − serial) / bags, the
time an input costs beyond its own conversion. Outputs are checked equal across runs; each
mode runs ``--repeat`` times (best kept) and the load average is printed: on a shared
machine another process's load shows up in the parallel rows first.

Run: ``nice -n 10 .venv/bin/python bench/bench_batch.py [--bags 40] [--messages 20000]
[--joints 30] [--workers 2] [--to parquet]``. Not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.pipeline.batch import TARGETS


def _bag(path: Path, seed: int, messages: int, joints: int) -> None:
    rng = np.random.default_rng(seed)
    m = Motion(
        times=np.arange(messages) / 500.0,
        joint_names=tuple(f"joint_{i}" for i in range(joints)),
        position=np.cumsum(rng.normal(0, 0.01, (messages, joints)), axis=0),
        velocity=rng.normal(size=(messages, joints)),
        effort=rng.normal(size=(messages, joints)),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(MotionFile.single(m, "actual"), path, "rosbag", trajectory_topic=None)


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _timed_batch(args: list[str], report: Path, in_process: bool) -> tuple[float, float]:
    """(wall s, CPU s: this process's plus, from workers, every input's) of one batch run."""
    quiet = io.StringIO()
    t0, c0 = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(quiet):
        status = main(["batch", *args, "--report", str(report)])
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    if status != 0:
        raise SystemExit(f"batch failed: {quiet.getvalue()[-2000:]}")
    entries = json.loads(report.read_text())["inputs"]
    in_workers = 0.0 if in_process else sum(e["cpu_seconds"] for e in entries)
    return elapsed, cpu + in_workers


def run(bags: int, messages: int, joints: int, workers: int, to: str, repeat: int) -> None:
    print("load average (1, 5, 15 min) at the start: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    tmp = Path(tempfile.mkdtemp(prefix="bench_batch_"))
    try:
        src = tmp / "src"
        t0 = time.perf_counter()
        for i in range(bags):
            folder = src / f"robot{i % 4}" / f"run_{i:03d}"
            folder.parent.mkdir(parents=True, exist_ok=True)
            _bag(folder, i, messages, joints)
        size = sum(p.stat().st_size for p in src.rglob("*") if p.is_file())
        print(
            f"{bags} bags × {messages} JointState × {joints} joints ({size / bags / 1e6:.1f} MB each), "
            f"generated in {time.perf_counter() - t0:.1f} s; --to {to}"
        )
        suffix = TARGETS[to].suffix
        codec = TARGETS[to].codec

        # serial: the peer, a plain loop with no batch machinery (after one untimed warm-up
        # conversion, so that no run pays for this process's first imports)
        out = tmp / "serial"
        inputs = sorted(src.glob("*/*"))
        write(read(inputs[0], format="rosbag"), tmp / f"warmup{suffix}", format=codec)

        def serial_loop() -> tuple[float, float]:
            t0, c0 = time.perf_counter(), time.process_time()
            for bag in inputs:
                target = out / bag.parent.name / (bag.name + suffix)
                target.parent.mkdir(parents=True, exist_ok=True)
                write(read(bag, format="rosbag"), target, format=codec, overwrite=True)
            return time.perf_counter() - t0, time.process_time() - c0

        def batch_run(label: str, *extra: str, in_process: bool = False) -> tuple[float, float]:
            folder = tmp / label
            args = [str(src), "-o", str(folder), "--to", to, "--no-progress", "--overwrite", *extra]
            measured = _timed_batch(args, tmp / f"{label}.json", in_process)
            assert _digest(folder) == reference, f"{label}: outputs differ from serial"
            shutil.rmtree(folder)
            return measured

        try:
            from distributed import LocalCluster
        except ImportError:
            LocalCluster = None  # noqa: N806
            print("dask: distributed not installed (the [batch] extra): skipped")
        modes: list[tuple[str, int, Callable[[], tuple[float, float]]]] = [
            ("serial (plain loop)", 1, serial_loop),
            ("batch --workers 1", 1, lambda: batch_run("j1", "--workers", "1", in_process=True)),
            (f"batch --workers {workers}", workers, lambda: batch_run("jn", "--workers", str(workers))),
        ]
        starts: list[float] = []

        def dask_run() -> tuple[float, float]:
            # A cluster for this row only: its scheduler runs in this process, and an idle one
            # alive during the other rows would add its heartbeats to their figures.
            t0 = time.perf_counter()
            with LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
            ) as cluster:
                starts.append(time.perf_counter() - t0)
                return batch_run("dask", "--scheduler", cluster.scheduler_address)

        if LocalCluster is not None:
            modes.append((f"dask LocalCluster {workers} procs", workers, dask_run))
        # Rounds of every mode in turn, best of each: a burst of load from elsewhere on a
        # shared machine then hits every mode alike instead of one whole row.
        walls = [float("inf")] * len(modes)
        cpus = [float("inf")] * len(modes)
        reference = ""
        for _ in range(repeat):
            for i, (_, _, fn) in enumerate(modes):
                wall, cpu = fn()
                if i == 0:
                    reference = _digest(out)
                walls[i], cpus[i] = min(walls[i], wall), min(cpus[i], cpu)
        if starts:
            print(f"(LocalCluster start, not in its row: {min(starts):.2f} s)")

        serial, serial_cpu = walls[0], cpus[0]
        print(
            f"{'run':<28} {'wall s':>7} {'per bag s':>9} {'speed-up':>8} {'overhead/input ms':>17} "
            f"{'CPU s':>7} {'CPU overhead/input ms':>21}"
        )
        for (label, count, _), wall, cpu in zip(modes, walls, cpus, strict=True):
            overhead = (wall * count - serial) / bags * 1000
            print(
                f"{label:<28} {wall:7.2f} {wall / bags:9.3f} {serial / wall:7.2f}x {overhead:17.1f} "
                f"{cpu:7.2f} {(cpu - serial_cpu) / bags * 1000:21.1f}"
            )
        print(f"outputs identical across runs (sha256 {reference}); best of {repeat} rounds")
        print(
            "CPU: this process's (with the Dask scheduler's, which runs in it), plus each input's "
            "conversion on its worker (worker start-up and the Dask workers' own bookkeeping not included)"
        )
        print("load average (1, 5, 15 min) at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bags", type=int, default=40)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--joints", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--to", default="parquet", choices=list(TARGETS))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each mode; the best is reported")
    a = parser.parse_args()
    run(a.bags, a.messages, a.joints, a.workers, a.to, a.repeat)
