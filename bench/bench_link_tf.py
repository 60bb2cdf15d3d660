"""How many links at which rate the player's link TF sustains, against rclpy's own message path.

For each links × rate, two processes publish every link's transform on /tf at that rate
for --seconds (default 3), on real DDS confined to this machine, and a probe in this
process counts the TFMessages it receives (raw, not deserialised):

- ``motion_player`` with ``publish_link_tf`` (a chain of L revolute joints, every joint
  moving), its stream at ``stream_rate``;
- the peer: an rclpy node with a wall timer that builds the same L ``TransformStamped``
  messages per tick with the package's message adapter and publishes a ``TFMessage``,
  the path the player took before it serialised the message from arrays.

Prints the rate each achieved and the ratio. A rate counts as sustained when at least
95 % of its ticks arrive. Not a test.

    .venv/bin/python bench/bench_link_tf.py [--links 50,100,200,400] [--rates 250,500,1000] [--seconds 3]
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

import numpy as np

os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
DOMAIN = int(os.environ.get("MFR_BENCH_DOMAIN", "89"))

PEER = textwrap.dedent(
    """
    import sys, time, rclpy
    import numpy as np
    from rclpy.executors import SingleThreadedExecutor
    from tf2_msgs.msg import TFMessage
    from motion_formats_ros.ros import adapters
    links, rate, seconds = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    rclpy.init(domain_id=int(sys.argv[4]))
    node = rclpy.create_node("rclpy_tf_peer")
    pub = node.create_publisher(TFMessage, "/tf", 100)
    while pub.get_subscription_count() == 0:
        rclpy.spin_once(node, timeout_sec=0.01)
    time.sleep(0.2)
    frames = [(f"l{i}", f"l{i + 1}") for i in range(links)]
    xyz = np.array([0.0, 0.0, 0.05])
    total = int(rate * seconds)
    count = [0]
    def tick():
        stamp = node.get_clock().now().nanoseconds
        angle = 0.3 * np.sin(count[0] / rate)
        q = np.array([0.0, 0.0, np.sin(angle / 2), np.cos(angle / 2)])
        pub.publish(TFMessage(transforms=[adapters.transform(p, c, stamp, xyz, q) for p, c in frames]))
        count[0] += 1
    node.create_timer(1.0 / rate, tick)
    ex = SingleThreadedExecutor(); ex.add_node(node)
    while count[0] < total:
        ex.spin_once(timeout_sec=0.1)
    rclpy.shutdown()
    """
)


def chain_urdf(links: int) -> str:
    parts = ['<robot name="chain">', '<link name="l0"/>']
    for i in range(links):
        parts.append(
            f'<link name="l{i + 1}"/><joint name="j{i}" type="revolute"><parent link="l{i}"/>'
            f'<child link="l{i + 1}"/><origin xyz="0 0 0.05"/><axis xyz="0 0 1"/>'
            '<limit lower="-3" upper="3" velocity="100" effort="1"/></joint>'
        )
    parts.append("</robot>")
    return "".join(parts)


def measure(cmd: list[str], env: dict[str, str], seconds: float) -> tuple[int, float]:
    """(messages received, their rate between the first and the last) on /tf."""
    import rclpy
    from rclpy.context import Context
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import QoSProfile
    from tf2_msgs.msg import TFMessage

    context = Context()
    rclpy.init(context=context, domain_id=DOMAIN)
    node = rclpy.create_node("tf_probe", context=context)
    received: list[int] = []
    node.create_subscription(
        TFMessage, "/tf", lambda _m: received.append(time.monotonic_ns()), QoSProfile(depth=1000), raw=True
    )
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + seconds + 30
    while proc.poll() is None and time.monotonic() < deadline:
        executor.spin_once(timeout_sec=0.001)
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        executor.spin_once(timeout_sec=0.001)
    proc.kill()
    proc.wait()
    executor.shutdown()
    node.destroy_node()
    context.try_shutdown()
    if len(received) < 2:
        return len(received), 0.0
    return len(received), (len(received) - 1) / ((received[-1] - received[0]) / 1e9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--links", default="50,100,200,400")
    parser.add_argument("--rates", default="250,500,1000")
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    from motion_formats_ros import Motion, MotionFile, write

    links_list = [int(v) for v in args.links.split(",")]
    rates = [float(v) for v in args.rates.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ROS_DOMAIN_ID": str(DOMAIN), "ROS_LOG_DIR": tmp}
        for links in links_list:
            urdf = Path(tmp) / f"chain{links}.urdf"
            urdf.write_text(chain_urdf(links))
            for rate in rates:
                frames = int(args.seconds * rate) + 1
                t = np.arange(frames) / rate
                motion = Motion(
                    times=t,
                    joint_names=tuple(f"j{i}" for i in range(links)),
                    position=0.3 * np.sin(t[:, None] + np.arange(links) * 0.01),
                )
                path = Path(tmp) / "chain.msgpack"
                write(MotionFile.single(motion), path, overwrite=True)
                player = [
                    str(Path(sys.executable).parent / "motion_player"),
                    "--ros-args",
                    *("-p", f"file:={path}", "-p", f"urdf_file:={urdf}", "-p", "publish_link_tf:=true"),
                    *("-p", "root_frame:=l0", "-p", "mode:=stream", "-p", f"stream_rate:={rate}"),
                    *("-p", "wait_for_subscribers:=10.0"),
                ]
                ours = measure(player, env, args.seconds)
                peer = measure(
                    [sys.executable, "-c", PEER, str(links), str(rate), str(args.seconds), str(DOMAIN)],
                    env,
                    args.seconds,
                )
                rows.append((links, rate, ours, peer))
                print(f"  {links} links at {rate:g} Hz: ours {ours[1]:.0f} Hz, peer {peer[1]:.0f} Hz", flush=True)
    print(f"\nEvery link's TF on /tf for {args.seconds:g} s (probe receive rate; sustained: >= 95 % of the rate)")
    print(f"{'links':>6} {'rate Hz':>8} {'player Hz':>10} {'ok':>3} {'rclpy msgs Hz':>14} {'ok':>3} {'ratio':>6}")
    for links, rate, ours, peer in rows:
        ok = "yes" if ours[1] >= 0.95 * rate else "no"
        peer_ok = "yes" if peer[1] >= 0.95 * rate else "no"
        ratio = ours[1] / peer[1] if peer[1] else float("inf")
        print(f"{links:>6} {rate:>8g} {ours[1]:>10.0f} {ok:>3} {peer[1]:>14.0f} {peer_ok:>3} {ratio:>5.1f}x")
    for label, which in (("player", 0), ("rclpy messages", 1)):
        best = []
        for links in links_list:
            kept = [rate for n, rate, *got in rows if n == links and got[which][1] >= 0.95 * rate]
            best.append(f"{links} links {max(kept, default=0.0):g} Hz")
        print(f"{label}: highest rate sustained: " + ", ".join(best))


if __name__ == "__main__":
    main()
