"""``motion_sim``: a simulated robot behind the interfaces of joint_trajectory_controller and joint_state_broadcaster.

The robot (``urdf_file``, ``robot_description`` or ``body_file``) is simulated in MuJoCo
with the physics of ``motion-formats simulate`` and stepped in real time (1 kHz physics,
a timer stepping the steps that are due). In front of it, what a controller manager with
a joint_trajectory_controller named ``controller`` and a joint_state_broadcaster offers:

- ``/<controller>/follow_joint_trajectory`` (control_msgs/FollowJointTrajectory),
  ``/<controller>/joint_trajectory`` (trajectory_msgs/JointTrajectory) and
  ``/<controller>/controller_state`` (control_msgs/JointTrajectoryControllerState);
- ``/joint_states`` (position, velocity, effort), ``/tf`` world → the floating base,
  ``/robot_description`` (transient local) and, with ``publish_clock``, ``/clock``.

A fall (the base tipped over, a link the standing robot keeps off the floor touching it)
aborts the running goal with an error string saying when. The node is thin: the
trajectory semantics, tolerances and physics are :mod:`motion_formats_ros.simulation.box`.

    motion_sim --ros-args -p urdf_file:=robot.urdf
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from control_msgs.action import FollowJointTrajectory
from control_msgs.msg import JointTrajectoryControllerState
from rclpy.action.server import ActionServer, CancelResponse, GoalEvent, GoalResponse
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.publisher import Publisher
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..core.errors import MotionFormatError, command_line
from ..core.kinematics import RobotModel, load_robot_model
from ..playback.config import PARAMETER_SPELLING
from ..simulation.box import BoxController, Goal, Pace, SimulatedRobot, Snapshot
from ..simulation.jtc import Point, Request, Tolerances
from ..simulation.sim_config import SimConfig, SimError
from . import adapters
from .scaffold import COMMAND_QOS, LATCHED_QOS, STREAM_QOS, ParameterError, declare_config, destroyed_if_refused, run

# After the physics fails, the node serves a while longer before it ends, so that a client that asks
# for its goal's result after the goal ended (as every action client does, a little later on a
# loaded machine) is told why rather than finding the server gone.
FAULT_LINGER = 3.0


def _seconds(msg: Any) -> float:
    return float(msg.sec) + float(msg.nanosec) * 1e-9


def request_of(msg: JointTrajectory, start: float) -> Request:
    """A JointTrajectory as the controller's :class:`Request` (``start`` on the controller's clock, 0: now)."""
    points = [
        Point(_seconds(p.time_from_start), list(p.positions), list(p.velocities), list(p.accelerations), list(p.effort))
        for p in msg.points
    ]
    return Request(list(msg.joint_names), points, start)


def _point(positions: Any, velocities: Any = None, effort: Any = None) -> JointTrajectoryPoint:
    p = JointTrajectoryPoint()
    p.positions = [float(v) for v in positions]
    if velocities is not None:
        p.velocities = [float(v) for v in velocities]
    if effort is not None:
        p.effort = [float(v) for v in effort]
    return p


class MotionSim(Node):
    """The simulated robot node."""

    @destroyed_if_refused
    def __init__(self, **kwargs: Any) -> None:
        super().__init__("motion_sim", **kwargs)
        self.done = threading.Event()
        self.exit_code = 0
        self._ends_at: float | None = None  # set when the physics cannot go on
        self.config: SimConfig = declare_config(self, SimConfig)
        config = self.config
        model = self._model()
        # a missing mesh names the parameter package_path; the notes on gains name gains_file
        with command_line({**PARAMETER_SPELLING, "gains": "gains_file"}):
            self.robot = SimulatedRobot(
                model,
                gains=config.gains_file or None,
                kp=config.kp or None,
                kd=config.kd or None,
                floating=False if config.fixed_base else None,
                srdf=config.srdf_file or None,
                package_paths=[p for p in config.package_path if p],
                timestep=config.timestep,
            )
        for note in self.robot.notes:
            self.get_logger().info(note)
        defaults = Tolerances.defaults(
            len(self.robot.joints),
            config.path_tolerance,
            config.goal_tolerance,
            config.stopped_velocity_tolerance,
            config.goal_time,
        )
        self.box = BoxController(self.robot, defaults, config.allow_partial_joints_goal)
        self.root_link = config.frame_prefix + model.root_link
        name = "/" + config.controller.strip("/")
        self.joint_pub: Publisher[JointState] = self.create_publisher(JointState, "joint_states", STREAM_QOS)
        self.tf_pub: Publisher[TFMessage] = self.create_publisher(TFMessage, "/tf", STREAM_QOS)
        self.state_pub: Publisher[JointTrajectoryControllerState] = self.create_publisher(
            JointTrajectoryControllerState, f"{name}/controller_state", STREAM_QOS
        )
        self.clock_pub: Publisher[Clock] | None = (
            self.create_publisher(Clock, "/clock", COMMAND_QOS) if config.publish_clock else None
        )
        self.description_pub: Publisher[String] = self.create_publisher(String, "/robot_description", LATCHED_QOS)
        self.description_pub.publish(String(data=model.description))
        callbacks = ReentrantCallbackGroup()
        self.create_subscription(
            JointTrajectory, f"{name}/joint_trajectory", self._on_trajectory, COMMAND_QOS, callback_group=callbacks
        )
        self.action = ActionServer(
            self,
            FollowJointTrajectory,
            f"{name}/follow_joint_trajectory",
            execute_callback=self._execute,
            goal_callback=self._on_goal,
            cancel_callback=lambda handle: CancelResponse.ACCEPT,
            callback_group=callbacks,
        )
        self._goals: dict[bytes, Goal] = {}
        self._lock = threading.Lock()
        self.pace = Pace(self.robot.timestep, time.monotonic())
        self._state_every = 1.0 / config.state_publish_rate
        self._state_at = 0.0
        self.create_timer(1.0 / config.state_rate, self._tick, callback_group=MutuallyExclusiveCallbackGroup())
        self.get_logger().info(
            f"simulating {model.name or model.source} ({len(self.robot.joints)} joints, "
            f"{'floating' if self.robot.floating else 'fixed'} base) behind {name}"
        )

    def _model(self) -> RobotModel:
        config = self.config
        given = [n for n in ("urdf_file", "robot_description", "body_file") if getattr(config, n)]
        if len(given) != 1:
            raise SimError(
                "give the robot as exactly one of urdf_file, robot_description, body_file"
                + (f" (got {', '.join(given)})" if given else "")
            )
        if config.robot_description:
            return RobotModel.from_urdf(config.robot_description, "robot_description")
        return load_robot_model(config.urdf_file or config.body_file)

    # ----------------------------------------------------------------- time
    def _stamp_ns(self, sim_time: float) -> int:
        """A message's stamp: the simulated time with publish_clock, else the node's clock."""
        if self.clock_pub is not None:
            return round(sim_time * 1e9)
        return int(self.get_clock().now().nanoseconds)

    def _start_of(self, msg: JointTrajectory) -> float:
        """The trajectory's start on the controller's clock (0: when received)."""
        stamp = _seconds(msg.header.stamp)
        if stamp == 0.0:
            return 0.0
        now = self.box.time
        return stamp - self._stamp_ns(now) * 1e-9 + now

    # ----------------------------------------------------------------- trajectories in
    def _on_trajectory(self, msg: JointTrajectory) -> None:
        request = request_of(msg, self._start_of(msg))
        reason = self.box.check(request)
        if reason is not None:
            self.get_logger().error(f"trajectory refused: {reason}")
            return
        self.box.replace(request)

    def _on_goal(self, goal: Any) -> GoalResponse:
        request = request_of(goal.trajectory, self._start_of(goal.trajectory))
        reason = self.box.check(request)
        tolerances = self._tolerances(goal)
        if reason is None and isinstance(tolerances, str):
            reason = tolerances
        if reason is not None:
            self.get_logger().error(f"goal refused: {reason}")
            return GoalResponse.REJECT
        self.get_logger().info("accepted new action goal")
        return GoalResponse.ACCEPT

    def _tolerances(self, goal: Any) -> Tolerances | str:
        def entries(items: Any) -> list[tuple[str, float, float]]:
            return [(t.name, float(t.position), float(t.velocity)) for t in items]

        return self.box.goal_tolerances(
            entries(goal.path_tolerance), entries(goal.goal_tolerance), _seconds(goal.goal_time_tolerance)
        )

    def _execute(self, handle: Any) -> Any:
        goal_msg = handle.request
        tolerances = self._tolerances(goal_msg)
        assert not isinstance(tolerances, str)  # checked when the goal came
        goal = Goal(tolerances)
        self.box.replace(request_of(goal_msg.trajectory, self._start_of(goal_msg.trajectory)), goal)
        feedback_every = 1.0 / self.config.action_monitor_rate
        while not goal.done.wait(feedback_every):
            if handle.is_cancel_requested:
                self.box.cancel(goal)
                break
            handle.publish_feedback(self._feedback(self.box.snapshot))
        result = FollowJointTrajectory.Result()
        outcome = goal.result
        assert outcome is not None
        result.error_code = outcome.code
        result.error_string = outcome.message
        if outcome.status == "succeeded":
            handle.succeed()
        elif outcome.status == "aborted":
            self.get_logger().warning(f"goal aborted: {outcome.message}")
            handle.abort()
        else:
            self._canceled(handle)
        return result

    @staticmethod
    def _canceled(handle: Any) -> None:
        """End the goal as canceled, also when no client asked (a newer goal replaced it)."""
        if not handle.is_cancel_requested:
            handle._update_state(GoalEvent.CANCEL_GOAL)  # what a cancel request does first
        handle.canceled()

    def _feedback(self, s: Snapshot) -> Any:
        fb = FollowJointTrajectory.Feedback()
        fb.header.stamp = adapters.time_msg(self._stamp_ns(s.time))
        fb.joint_names = list(self.robot.joints)
        fb.desired = _point(s.desired, s.desired_velocity)
        fb.actual = _point(s.position, s.velocity)
        fb.error = _point(s.desired - s.position, s.desired_velocity - s.velocity)
        return fb

    # ----------------------------------------------------------------- stepping
    def _tick(self) -> None:
        """Step what is due, then publish the robot's state."""
        s = self.box.advance(self.pace.due(time.monotonic()))
        if self.robot.fault is not None and self._ends_at is None:  # the physics cannot go on: the node ends
            self.get_logger().error(self.robot.fault)
            self.exit_code = 1
            self._ends_at = time.monotonic() + FAULT_LINGER
        if self._ends_at is not None and time.monotonic() >= self._ends_at:
            self.done.set()
        stamp = self._stamp_ns(s.time)
        if self.clock_pub is not None:
            clock = Clock()
            clock.clock = adapters.time_msg(stamp)
            self.clock_pub.publish(clock)
        self.joint_pub.publish(adapters.joint_state(self.robot.joints, stamp, s.position, s.velocity, s.effort))
        pose = self.robot.root_pose()
        if pose is not None:
            tf = adapters.transform(self.config.world_frame, self.root_link, stamp, pose[0], pose[1])
            self.tf_pub.publish(TFMessage(transforms=[tf]))
        if s.time - self._state_at >= self._state_every:
            self._state_at = s.time
            msg = JointTrajectoryControllerState()
            msg.header.stamp = adapters.time_msg(stamp)
            msg.joint_names = list(self.robot.joints)
            error = _point(s.desired - s.position, s.desired_velocity - s.velocity)
            if hasattr(msg, "reference"):  # Iron on
                msg.reference = _point(s.desired, s.desired_velocity)
                msg.feedback = _point(s.position, s.velocity, s.effort)
                msg.output = _point(s.desired, s.desired_velocity)
            else:  # Humble: desired, actual
                msg.desired = _point(s.desired, s.desired_velocity)
                msg.actual = _point(s.position, s.velocity, s.effort)
            msg.error = error
            self.state_pub.publish(msg)


def main(args: list[str] | None = None) -> int:
    """Entry point (``motion_sim``); returns the exit status."""
    return run(MotionSim, "motion_sim", (MotionFormatError, SimError, ParameterError), None, args, threads=4)


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry()
