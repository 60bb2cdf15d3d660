"""Record robot motion to OMF or Choreonoid .seq, crash-safe.

    ros2 launch motion_formats_ros record.launch.py output:=robot_log.msgpack
    ros2 launch motion_formats_ros record.launch.py output:=walk.seq topics:="[joint_states]" rate:=200.0
    ros2 launch motion_formats_ros record.launch.py output:=log.msgpack \\
        target_topic:=/arm_controller/joint_trajectory world_frame:=odom root_frame:=base_link

Stop with Ctrl-C (or the ~/stop service): the output is written from the journal. After a
crash: `motion-formats recover robot_log.msgpack.journal`.
"""

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue

from launch import LaunchDescription

#: name, default, description, type (None: a YAML list) for each launch argument / parameter.
ARGUMENTS = [
    ("output", "robot_log.msgpack", "file to write: .msgpack/.yaml/.json (OMF) or .seq", str),
    ("topics", "[joint_states]", "JointState topics, merged by joint name", None),
    ("rate", "0.0", "0 keeps every sample; > 0 resamples to this rate (Hz)", float),
    ("stamps", "auto", "header | receive | auto", str),
    ("world_frame", "", "with root_frame: record the root pose from TF", str),
    ("root_frame", "", "the robot's root frame", str),
    ("target_topic", "", "JointTrajectory topic recorded as the target group", str),
    ("imu_topics", "['']", "sensor_msgs/Imu topics", None),
    ("robot", "", "robot name stored in the file", str),
    ("seq_version", "2", "Choreonoid .seq version (2 or 4)", int),
    ("duration", "0.0", "stop after this many seconds (0 = until stopped)", float),
    ("flush_interval", "1.0", "seconds between journal flushes", float),
    ("overwrite", "false", "replace an existing output", bool),
    ("use_sim_time", "false", "stamp receive times with /clock", bool),
]


def generate_launch_description() -> LaunchDescription:
    args = [
        DeclareLaunchArgument(name, default_value=default, description=text) for name, default, text, _ in ARGUMENTS
    ]
    parameters = {
        name: LaunchConfiguration(name) if kind is None else ParameterValue(LaunchConfiguration(name), value_type=kind)
        for name, _, _, kind in ARGUMENTS
    }
    recorder = Node(
        package="motion_formats_ros",
        executable="motion_recorder",
        name="motion_recorder",
        output="screen",
        parameters=[parameters],
        # Give the recorder time to write the file when the launch is interrupted.
        sigterm_timeout="30",
    )
    return LaunchDescription([*args, recorder])
