"""Timing of the player's JointState stream against an rcl wall timer, on real DDS.

Both publish JointState at 500 Hz for --seconds (default 30) in their own process; a
probe in this process records the monotonic receive time of every message. Reports the
period error (|interval - 2 ms|) p50/p99/max, ticks lost, and the end-of-run drift
(how far the last 50 messages arrive from the first 50 messages' schedule).
Not a test: prints both and the ratio. Runs confined to this machine.

    .venv/bin/python bench/bench_player_timing.py [--seconds 30] [--rate 500]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
DOMAIN = int(os.environ.get("MFR_BENCH_DOMAIN", "88"))

PEER = textwrap.dedent(
    """
    import sys, rclpy
    from rclpy.executors import SingleThreadedExecutor
    from sensor_msgs.msg import JointState
    rate, seconds = float(sys.argv[1]), float(sys.argv[2])
    rclpy.init(domain_id=int(sys.argv[3]))
    node = rclpy.create_node("rcl_timer_peer")
    pub = node.create_publisher(JointState, "joint_states", 100)
    names = [f"joint_{i}" for i in range(30)]
    while pub.get_subscription_count() == 0:
        rclpy.spin_once(node, timeout_sec=0.01)
    import time
    import numpy as np
    count = [0]
    total = int(rate * seconds) + 1
    late = np.zeros(total, dtype=np.int64)
    start = [0]
    period = round(1e9 / rate)
    def tick():
        msg = JointState(name=names, position=[0.0] * 30)
        msg.header.stamp = node.get_clock().now().to_msg()
        pub.publish(msg)
        now = time.monotonic_ns()
        if count[0] == 0:
            start[0] = now
        late[count[0]] = now - (start[0] + count[0] * period)
        count[0] += 1
    node.create_timer(1.0 / rate, tick)
    ex = SingleThreadedExecutor(); ex.add_node(node)
    while count[0] < total:
        ex.spin_once(timeout_sec=0.1)
    v = late / 1e6
    p50, p99 = np.percentile(v, [50, 99])
    print(f"publish lateness over {v.size} ticks: p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {v.max():.3f} ms")
    rclpy.shutdown()
    """
)


def stats(receive_ns: list[int], period: float) -> dict[str, float]:
    t = np.asarray(receive_ns, dtype=np.int64)
    intervals = np.diff(t) / 1e9
    error = np.abs(intervals - period)
    # Drift: where the last messages arrive against the first ones' schedule (medians of
    # 50 offsets each, so one slow delivery does not count as drift).
    offsets = (t - t[0]) / 1e9 - np.arange(t.size) * period
    drift = np.median(offsets[-50:]) - np.median(offsets[:50])
    return {
        "messages": float(t.size),
        "p50_ms": float(np.percentile(error, 50) * 1e3),
        "p99_ms": float(np.percentile(error, 99) * 1e3),
        "max_ms": float(error.max() * 1e3),
        "drift_ms": float(drift * 1e3),
    }


def measure(cmd: list[str], env: dict[str, str], seconds: float, expected: int) -> dict[str, float]:
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import QoSProfile
    from sensor_msgs.msg import JointState

    context = Context()
    rclpy.init(context=context, domain_id=DOMAIN)
    node = rclpy.create_node("timing_probe", context=context)
    received: list[int] = []
    node.create_subscription(
        JointState, "/joint_states", lambda _m: received.append(time.monotonic_ns()), QoSProfile(depth=1000)
    )
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + seconds + 20
    while proc.poll() is None and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.001)
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.001)
    proc.kill()
    output = proc.communicate()[0]
    executor.shutdown()
    node.destroy_node()
    context.try_shutdown()
    out = stats(received, 1.0 / (expected / seconds))
    out["lost"] = float(expected + 1 - len(received))
    match = re.search(r"publish lateness over \d+ ticks: p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms", output)
    if match:
        out["src_p50_ms"], out["src_p99_ms"], out["src_max_ms"] = (float(g) for g in match.groups())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=500.0)
    args = parser.parse_args()
    from motion_formats_ros import Motion, MotionFile, write

    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ROS_DOMAIN_ID": str(DOMAIN), "ROS_LOG_DIR": tmp}
        frames = int(args.seconds * args.rate) + 1
        t = np.arange(frames) / args.rate
        motion = Motion(
            times=t, joint_names=tuple(f"joint_{i}" for i in range(30)), position=np.sin(t[:, None] + np.arange(30))
        )
        path = Path(tmp) / "long.msgpack"
        write(MotionFile.single(motion), path)
        player = [
            str(Path(sys.executable).parent / "motion_player"),
            "--ros-args",
            "-p",
            f"file:={path}",
            "-p",
            "mode:=stream",
            "-p",
            f"stream_rate:={args.rate}",
            "-p",
            "wait_for_subscribers:=10.0",
        ]
        ours = measure(player, env, args.seconds, frames - 1)
        peer = measure(
            [sys.executable, "-c", PEER, str(args.rate), str(args.seconds), str(DOMAIN)], env, args.seconds, frames - 1
        )
    print(f"JointState at {args.rate:g} Hz for {args.seconds:g} s, receive-time period error (probe process)")
    print(f"{'':<22} {'messages':>9} {'lost':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'drift ms':>9}")
    for label, s in (("motion_player", ours), ("rcl wall timer (peer)", peer)):
        print(
            f"{label:<22} {s['messages']:>9.0f} {s['lost']:>5.0f} {s['p50_ms']:>8.3f} {s['p99_ms']:>8.3f} "
            f"{s['max_ms']:>8.3f} {s['drift_ms']:>9.3f}"
        )
    print(
        f"p99 ratio peer/ours: {peer['p99_ms'] / max(ours['p99_ms'], 1e-9):.2f}x; "
        f"|drift| ratio: {abs(peer['drift_ms']) / max(abs(ours['drift_ms']), 1e-9):.1f}x"
    )
    print("\nAt the source: how late each message left its publisher after its scheduled time")
    print(f"{'':<22} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for label, s in (("motion_player", ours), ("rcl wall timer (peer)", peer)):
        if "src_p99_ms" in s:
            print(f"{label:<22} {s['src_p50_ms']:>8.3f} {s['src_p99_ms']:>8.3f} {s['src_max_ms']:>8.3f}")


if __name__ == "__main__":
    main()
