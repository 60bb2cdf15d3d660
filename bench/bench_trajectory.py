"""One JointTrajectory for a long motion: points, bytes, deviation and time to reduce.

The motion: 60 s at 500 Hz of 30 joints, each an offset plus three sines of its own
frequencies (examples.smooth_motion). The peer is what the player sent before: every
frame as a point (positions only, so exact at the frames). Ours: the points
playback.plan keeps so that joint_trajectory_controller's interpolation of the fields
sent stays within the tolerance of every frame, for each rule. Bytes are the serialized
message (rclpy's CDR when the ROS runtime is present); times are planning (the
reduction) and planning plus building and serializing the message, i.e. motion to bytes.
The deviation is measured again here at every frame with playback.plan.evaluate. Not
a test: prints figures and ratios.

    .venv/bin/python bench/bench_trajectory.py [--tolerance 1e-3] [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import best

from motion_formats_ros import Motion
from motion_formats_ros.core.examples import smooth_motion
from motion_formats_ros.playback.plan import Deviation, TrajectoryPlan, evaluate, plan_trajectory


def serializer() -> tuple[Callable[[TrajectoryPlan], bytes] | None, str]:
    """plan -> the serialized JointTrajectory (None without the ROS runtime), and its name."""
    try:
        from rclpy.serialization import serialize_message

        from motion_formats_ros.ros import adapters
    except ImportError:
        return None, "estimated CDR (no ROS runtime: time is the plan only)"
    return lambda plan: serialize_message(adapters.trajectory(plan, 0, plan.points, 0)), "rclpy CDR"


def estimated_bytes(plan: TrajectoryPlan) -> int:
    """CDR size by hand: header, names, then per point 4 sequences and a Duration."""
    names = sum(4 + len(n) + 1 + (-(len(n) + 1) % 4) for n in plan.joint_names)
    per_point = sum(8 + 8 * plan.positions.shape[1] for _ in plan.fields) + 4 * (4 - len(plan.fields)) + 8
    return 4 + 8 + 8 + 4 + names + 4 + plan.points * per_point


def every_frame(motion: Motion) -> TrajectoryPlan:
    """What the player sent before: every frame a point, positions only, 1 s approach."""
    assert motion.position is not None
    return TrajectoryPlan(
        joint_names=motion.joint_names,
        time_from_start_ns=np.round((motion.times - motion.times[0] + 1.0) * 1e9).astype(np.int64),
        positions=motion.position,
        velocities=None,
        accelerations=None,
        rule="linear",
        frames=motion.num_frames,
        tolerance=0.0,
        deviation=Deviation(0.0, motion.joint_names[0], float(motion.times[0])),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tolerance", type=float, default=1e-3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    motion = smooth_motion(duration=60.0, rate=500.0, joints=30).motion
    assert motion.position is not None
    print(f"motion: {motion.num_frames} frames x {len(motion.joint_names)} joints, {motion.duration:g} s at 500 Hz")
    serialize, how = serializer()

    def measure(make: Callable[[], TrajectoryPlan]) -> tuple[TrajectoryPlan, int, float, float]:
        """(plan, bytes, seconds to plan, seconds to plan and serialize)."""
        plan = make()
        size = len(serialize(plan)) if serialize else estimated_bytes(plan)
        planning = best(make, args.repeat)
        total = best(lambda: serialize(make()), args.repeat) if serialize else planning
        return plan, size, planning, total

    rows = [("every frame (peer)", *measure(lambda: every_frame(motion)))]
    for rule in ("linear", "cubic", "quintic"):
        label = f"{rule} ({'default' if rule == 'cubic' else 'option'})"
        rows.append(
            (
                label,
                *measure(
                    lambda r=rule: plan_trajectory(motion, approach_time=1.0, interpolation=r, tolerance=args.tolerance)
                ),
            )
        )
    frame_times = np.round((motion.times + 1.0) * 1e9) / 1e9
    print(f"\ntolerance {args.tolerance:g} rad; times: best of {args.repeat}; bytes: {how}")
    print(
        f"{'sent as':<20} {'points':>7} {'bytes':>10} {'deviation rad':>14} {'plan s':>7} {'+ message s':>12}"
        "  against every frame"
    )
    _, peer, peer_bytes, _, peer_total = rows[0]
    for label, plan, size, planning, total in rows:
        at = evaluate(plan.time_from_start, plan.positions, plan.velocities, plan.accelerations, frame_times)
        deviation = float(np.abs(at - motion.position).max())
        ratio = (
            ""
            if plan is peer
            else f"{peer.points / plan.points:5.1f}x fewer points, {peer_bytes / size:5.1f}x fewer bytes, "
            f"{peer_total / total:4.1f}x the speed"
        )
        print(f"{label:<20} {plan.points:>7} {size:>10} {deviation:>14.6g} {planning:>7.3f} {total:>12.3f}  {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
