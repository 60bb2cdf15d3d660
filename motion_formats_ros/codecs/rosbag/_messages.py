"""The message types and topics the bag mapping converts, and the custom-data key it writes."""

from __future__ import annotations

JOINT_STATE = "sensor_msgs/msg/JointState"
IMU = "sensor_msgs/msg/Imu"
TRAJECTORY = "trajectory_msgs/msg/JointTrajectory"
POINT = "geometry_msgs/msg/PointStamped"
TF_TYPES = ("tf2_msgs/msg/TFMessage", "tf/msg/tfMessage")
#: Types converted as a whole topic (other types are searched for joint data inside).
CONVERTIBLE_TYPES = (JOINT_STATE, IMU, TRAJECTORY, POINT, *TF_TYPES)
DEFAULT_JOINT_TOPIC = "/joint_states"
#: The robot's URDF as robot_state_publisher takes it (kept as MotionFile.robot_description).
ROBOT_DESCRIPTION = "/robot_description"
STRING = "std_msgs/msg/String"
#: The custom-data entry of bags written by this package (group names, frames, time origin).
CUSTOM_KEY = "motion_formats_ros"
