"""The recorder under load, and finishing a long recording. Not a test.

1. A separate publisher process sends JointState of 50 joints at 1 kHz for --seconds
   (default 60) to motion_recorder (its own process). Reports messages published vs
   recorded, the recorder's CPU share (user + system time over wall time) and its RSS
   growth while recording (peer: `ros2 bag record` is not available here, so the
   figures stand against the targets: none lost, RSS growth <= 20 MB).
2. Finishing 10 minutes of such data (600,000 messages, written straight into a
   journal): peak memory of `motion-formats recover` against the output file's size.

    .venv/bin/python bench/bench_recorder.py [--seconds 60] [--minutes 10]

Every DDS process runs confined to this machine (LOCALHOST discovery, own domain).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
DOMAIN = os.environ.get("MFR_BENCH_DOMAIN", "89")
BIN = Path(sys.executable).parent
JOINTS = 50

PUBLISHER = textwrap.dedent(
    """
    import sys, time, rclpy
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import JointState
    seconds, rate, domain, joints = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    rclpy.init(domain_id=domain)
    node = rclpy.create_node("load_publisher")
    pub = node.create_publisher(JointState, "joint_states", QoSProfile(depth=1000))
    names = [f"joint_{i}" for i in range(joints)]
    while pub.get_subscription_count() == 0:
        time.sleep(0.01)
    time.sleep(0.5)
    period = 1e9 / rate
    start = time.monotonic_ns()
    total = int(seconds * rate)
    for k in range(total):
        deadline = start + k * period
        while time.monotonic_ns() < deadline:
            time.sleep(max(0.0, (deadline - time.monotonic_ns()) / 1e9 - 0.0002))
        msg = JointState(name=names, position=[k * 1e-3] * joints, velocity=[1.0] * joints)
        msg.header.stamp = node.get_clock().now().to_msg()
        pub.publish(msg)
    time.sleep(1.0)
    print(total, flush=True)
    rclpy.shutdown()
    """
)


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def record_under_load(seconds: float, tmp: Path) -> None:
    env = {**os.environ, "ROS_DOMAIN_ID": DOMAIN, "ROS_LOG_DIR": str(tmp / "log")}
    out = tmp / "load.msgpack"
    recorder = subprocess.Popen(
        [str(BIN / "motion_recorder"), "--ros-args", "-p", f"output:={out}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    time.sleep(2.0)  # started and idle
    rss_start = rss_kb(recorder.pid)
    cpu_start, wall_start = cpu_seconds(recorder.pid), time.monotonic()
    publisher = subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, str(seconds), "1000", DOMAIN, str(JOINTS)],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    rss_max = rss_start
    while publisher.poll() is None:
        rss_max = max(rss_max, rss_kb(recorder.pid))
        time.sleep(0.5)
    cpu = cpu_seconds(recorder.pid) - cpu_start
    wall = time.monotonic() - wall_start
    published = int(publisher.stdout.read().strip() or 0) if publisher.stdout else 0
    recorder.send_signal(2)
    output = recorder.communicate(timeout=300)[0]
    from motion_formats_ros import read

    recorded = read(out).groups["actual"].num_frames
    print(f"1 kHz JointState x {JOINTS} joints for {seconds:g} s (publisher and recorder in their own processes)")
    print(f"  published {published}, recorded {recorded}, lost {published - recorded}")
    print(f"  recorder CPU: {100 * cpu / wall:.1f}% of one core over {wall:.1f} s")
    print(
        f"  recorder RSS: {rss_start / 1024:.1f} MB idle, max {rss_max / 1024:.1f} MB while recording "
        f"(growth {(rss_max - rss_start) / 1024:.1f} MB; target <= 20 MB)"
    )
    if recorded != published:
        print(output[-2000:])


def finish_long_recording(minutes: float, tmp: Path) -> None:
    import numpy as np

    from motion_formats_ros.recording.journal import JournalWriter

    out = tmp / "long.msgpack"
    journal = tmp / "long.msgpack.journal"
    writer = JournalWriter(journal, {"output": str(out), "format": "omf", "name": "long", "rate": 0.0})
    names = [f"joint_{i}" for i in range(JOINTS)]
    count = int(minutes * 60 * 1000)
    row = np.zeros(JOINTS)
    t0 = time.time_ns()
    for k in range(count):
        row[:] = k * 1e-3
        stamp = t0 + k * 1_000_000
        writer.joints("/joint_states", names, stamp, stamp, row)
    writer.close()
    probe = [
        sys.executable,
        "-c",
        "import resource, motion_formats_ros.recording.recovery, motion_formats_ros.registry; "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
    ]
    baseline_kb = int(subprocess.run(probe, capture_output=True, text=True, check=True).stdout)
    script = (
        "import resource, sys; from motion_formats_ros.recording.recovery import recover; "
        "recover(sys.argv[1]); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", script, str(journal)], capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - start
    peak_kb = int(proc.stdout.strip().splitlines()[-1])
    size = out.stat().st_size
    used = (peak_kb - baseline_kb) * 1024
    print(
        f"finishing {minutes:g} min at 1 kHz x {JOINTS} joints ({count} messages, journal "
        f"{journal.stat().st_size / 1e6:.0f} MB) -> {size / 1e6:.0f} MB OMF in {elapsed:.1f} s"
    )
    print(
        f"  peak memory above an idle interpreter: {used / 1e6:.0f} MB = {used / size:.2f}x the output file "
        f"(target <= 1x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--minutes", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        record_under_load(args.seconds, Path(tmp))
    with tempfile.TemporaryDirectory() as tmp:
        finish_long_recording(args.minutes, Path(tmp))


if __name__ == "__main__":
    main()
