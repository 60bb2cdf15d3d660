"""Publishers of a known robot scene, each run as its own process by the recorder tests.

    python scenepub.py rsp BASE_NS SECONDS       links on /tf at 50 Hz, fixed links on /tf_static,
                                                  /arm/joint_states 100 Hz, /head/joint_states 30 Hz
    python scenepub.py odom BASE_NS SECONDS      odom → base_link at 100 Hz on :func:`odom_pose`, /imu 100 Hz,
                                                  /joint_trajectory at 10 Hz (each replacing the last)
    python scenepub.py static                    map → odom on /tf_static (latched), then waits
    python scenepub.py parent BASE_NS SECONDS    a second localisation: world → base_link at 20 Hz
    python scenepub.py joints BASE_NS SECONDS RATE JOINTS
                                                  JointState at RATE Hz; position[0] = index,
                                                  position[1] = send time - BASE (s)

Header stamps are BASE_NS + k × period (+ a fixed offset per stream), whatever the wall
clock does, so that every process and every reader agrees on them. A publisher starts
once ``MFR_SUBSCRIBERS`` (default 1) subscribers have matched each of its topics and
paces itself on the wall clock. ``static`` runs until terminated.
"""

from __future__ import annotations

import math
import sys
import time

#: map → odom: translation and yaw (rad).
MAP_ODOM = ((1.0, 2.0, 0.0), math.pi / 2)
LINKS = 12


def yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def odom_pose(t: float) -> tuple[tuple[float, float, float], float]:
    """base_link in odom at t s after BASE: linear translation, constant yaw rate (interpolation is exact)."""
    return (0.5 * t, -0.2 * t, 0.1), 0.3 * t


def arm_stamp(base: int, k: int) -> int:
    return base + k * 10_000_000 + 5_000_000


def head_stamp(base: int, k: int) -> int:
    return base + k * 30_000_000 + 7_000_000


def main(argv: list[str]) -> int:
    import os
    from pathlib import Path

    # Run as a script: the test folder (parent of support/) goes on the path.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

    import rclpy
    from geometry_msgs.msg import TransformStamped
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import Imu, JointState
    from tf2_msgs.msg import TFMessage
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

    from support.rosutil import init_confined_child

    mode = argv[0]
    init_confined_child()
    node = rclpy.create_node(f"scene_{mode}")
    reliable = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    wanted = int(os.environ.get("MFR_SUBSCRIBERS", "1"))

    def stamp_of(msg: object, ns: int) -> None:
        msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(ns, 1_000_000_000)  # type: ignore[attr-defined]

    def tf(ns: int, parent: str, child: str, xyz: tuple[float, ...], q: tuple[float, ...]) -> TransformStamped:
        t = TransformStamped()
        stamp_of(t, ns)
        t.header.frame_id, t.child_frame_id = parent, child
        t.transform.translation.x, t.transform.translation.y, t.transform.translation.z = xyz
        r = t.transform.rotation
        r.x, r.y, r.z, r.w = q
        return t

    def wait_matched(*pubs: object) -> None:
        deadline = time.monotonic() + 30
        while any(p.get_subscription_count() < wanted for p in pubs):  # type: ignore[attr-defined]
            if time.monotonic() > deadline:
                raise SystemExit(f"{mode}: subscribers never matched")
            rclpy.spin_once(node, timeout_sec=0.02)

    def paced(events: list[tuple[float, object]]) -> None:
        """Run (seconds after start, callable) events in time order on the wall clock."""
        start = time.monotonic()
        for at, fn in sorted(events, key=lambda e: e[0]):
            delay = start + at - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            fn()  # type: ignore[operator]

    if mode == "static":
        pub = node.create_publisher(TFMessage, "/tf_static", latched)
        (xyz, yaw) = MAP_ODOM
        pub.publish(TFMessage(transforms=[tf(0, "map", "odom", xyz, yaw_quat(yaw))]))
        print("static published", flush=True)
        try:
            while rclpy.ok():
                rclpy.spin_once(node, timeout_sec=0.1)
        except KeyboardInterrupt:
            pass
        return 0

    base, seconds = int(argv[1]), float(argv[2])
    events: list[tuple[float, object]] = []
    if mode == "rsp":
        tf_pub = node.create_publisher(TFMessage, "/tf", reliable)
        static_pub = node.create_publisher(TFMessage, "/tf_static", latched)
        arm_pub = node.create_publisher(JointState, "/arm/joint_states", reliable)
        head_pub = node.create_publisher(JointState, "/head/joint_states", reliable)
        fixed = [tf(0, "base_link", "imu_link", (0.0, 0.0, 0.2), (0.0, 0.0, 0.0, 1.0))]
        fixed.append(tf(0, f"link{LINKS - 1}", "tool0", (0.0, 0.0, 0.05), (0.0, 0.0, 0.0, 1.0)))
        static_pub.publish(TFMessage(transforms=fixed))
        wait_matched(tf_pub, arm_pub, head_pub)

        def links(k: int) -> None:
            ns = base + k * 20_000_000 + 2_000_000
            chain = [
                tf(
                    ns,
                    "base_link" if i == 0 else f"link{i - 1}",
                    f"link{i}",
                    (0.0, 0.0, 0.1),
                    yaw_quat(0.01 * k * (i + 1)),
                )
                for i in range(LINKS)
            ]
            tf_pub.publish(TFMessage(transforms=chain))

        def arm(k: int) -> None:
            msg = JointState(name=["a0", "a1", "a2"], position=[0.01 * k, -0.02 * k, 1.0], velocity=[1.0, -2.0, 0.0])
            stamp_of(msg, arm_stamp(base, k))
            arm_pub.publish(msg)

        def head(k: int) -> None:
            # The head's second joint appears late, and the order of names changes.
            names, values = (["h0"], [0.1 * k]) if k < 15 else (["h1", "h0"], [-0.1 * k, 0.1 * k])
            msg = JointState(name=names, position=values)
            stamp_of(msg, head_stamp(base, k))
            head_pub.publish(msg)

        events += [(k * 0.02, lambda k=k: links(k)) for k in range(int(seconds * 50))]
        events += [(k * 0.01, lambda k=k: arm(k)) for k in range(int(seconds * 100))]
        events += [(k * 0.03, lambda k=k: head(k)) for k in range(int(seconds * 100 / 3))]
    elif mode == "odom":
        tf_pub = node.create_publisher(TFMessage, "/tf", reliable)
        imu_pub = node.create_publisher(Imu, "/imu", reliable)
        traj_pub = node.create_publisher(JointTrajectory, "/joint_trajectory", reliable)
        wait_matched(tf_pub, imu_pub, traj_pub)

        def command(k: int) -> None:
            # Points up to 150 ms ahead, every 100 ms: each message replaces the rest of the last.
            msg = JointTrajectory(joint_names=["a0", "a1"])
            stamp_of(msg, base + k * 100_000_000)
            for offset in (0, 50, 150):
                p = JointTrajectoryPoint(positions=[0.1 * k + offset / 1000, -0.1 * k], velocities=[1.0, 0.0])
                p.time_from_start.nanosec = offset * 1_000_000
                msg.points.append(p)
            traj_pub.publish(msg)

        def odom(k: int) -> None:
            xyz, yaw = odom_pose(k * 0.01)
            tf_pub.publish(TFMessage(transforms=[tf(base + k * 10_000_000, "odom", "base_link", xyz, yaw_quat(yaw))]))

        def imu(k: int) -> None:
            msg = Imu()
            stamp_of(msg, base + k * 10_000_000 + 1_000_000)
            msg.header.frame_id = "imu_link"
            msg.orientation_covariance[0] = -1.0  # no orientation: recorded as absent (NaN)
            msg.angular_velocity.z = 0.3
            msg.linear_acceleration.x, msg.linear_acceleration.z = 0.01 * k, 9.81
            imu_pub.publish(msg)

        events += [(k * 0.01, lambda k=k: odom(k)) for k in range(int(seconds * 100) + 1)]
        events += [(k * 0.01 + 0.001, lambda k=k: imu(k)) for k in range(int(seconds * 100))]
        events += [(k * 0.1 + 0.002, lambda k=k: command(k)) for k in range(int(seconds * 10))]
    elif mode == "parent":
        tf_pub = node.create_publisher(TFMessage, "/tf", reliable)
        wait_matched(tf_pub)

        def other(k: int) -> None:
            ns = base + k * 50_000_000 + 3_000_000
            tf_pub.publish(TFMessage(transforms=[tf(ns, "world", "base_link", (-50.0, 0.0, 0.0), (0, 0, 0, 1))]))

        events += [(k * 0.05, lambda k=k: other(k)) for k in range(int(seconds * 20))]
    elif mode == "joints":
        rate, joints = float(argv[3]), int(argv[4])
        pub = node.create_publisher(
            JointState, "/joint_states", QoSProfile(depth=5000, reliability=ReliabilityPolicy.RELIABLE)
        )
        wait_matched(pub)
        names = [f"j{i}" for i in range(joints)]
        msg = JointState(name=names, position=[0.0] * joints, velocity=[0.5] * joints, effort=[-0.5] * joints)
        count = int(seconds * rate)
        print("publishing", flush=True)
        start = time.monotonic()
        for k in range(count):
            delay = start + k / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            stamp_of(msg, base + round(k * 1e9 / rate))
            msg.position[0] = float(k)
            msg.position[1] = (time.time_ns() - base) / 1e9
            pub.publish(msg)
        print(f"sent {count}", flush=True)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    paced(events)
    print(f"{mode}: done", flush=True)
    time.sleep(0.5)  # let reliable delivery finish before the participant goes away
    node.destroy_node()
    rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
