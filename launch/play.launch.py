"""Play a motion file into ROS 2.

    ros2 launch motion_formats_ros play.launch.py file:=walk.seq body:=biped.body
    ros2 launch motion_formats_ros play.launch.py file:=log.msgpack group:=actual loop:=true \
        trajectory_topic:=/arm_controller/joint_trajectory urdf:=/path/robot.urdf

With ``urdf`` given, robot_state_publisher is started too (so RViz shows the robot) and
the player refuses motions beyond the URDF's joint limits.
"""

from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import Command, LaunchConfiguration, PathJoinSubstitution, PythonExpression
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription

#: name, default, description: every one becomes a launch argument.
ARGUMENTS = [
    ("file", "", "motion file to play (.seq, .msgpack/.yaml/.json OMF, .json5 scene, .mof, .mtn, bag)"),
    ("format", "", "format when the suffix and content are not enough"),
    ("group", "", "group to play (OMF target/actual); default the first"),
    ("mode", "both", "both | stream (JointState + TF) | trajectory"),
    ("rate", "1.0", "speed factor"),
    ("loop", "false", "repeat the motion"),
    ("start_paused", "false", "wait for ~/resume before playing"),
    ("stream_rate", "0.0", "JointState/TF rate in Hz (0 = the file's, at most 500)"),
    ("trajectory_topic", "joint_trajectory", "where JointTrajectory goes, e.g. /arm_controller/joint_trajectory"),
    ("joint_states_topic", "joint_states", "where the JointState stream goes"),
    ("world_frame", "world", "parent frame of the root pose"),
    ("root_frame", "base_link", "frame of the root pose"),
    ("frame_prefix", "", "prefix for the robot's frames"),
    ("use_sim_time", "false", "follow /clock"),
    ("urdf", "", "URDF file: joint limits, and robot_state_publisher for RViz"),
    ("body", "", "Choreonoid .body file naming the joints of a .seq"),
    ("params_file", "", "YAML with more player parameters (default: the package's config/player.yaml)"),
]


def generate_launch_description() -> LaunchDescription:
    args = [DeclareLaunchArgument(name, default_value=default, description=text) for name, default, text in ARGUMENTS]
    config = LaunchConfiguration
    default_params = PathJoinSubstitution([FindPackageShare("motion_formats_ros"), "config", "player.yaml"])
    params_file = PythonExpression(["'", config("params_file"), "' or '", default_params, "'"])
    player = Node(
        package="motion_formats_ros",
        executable="motion_player",
        name="motion_player",
        output="screen",
        parameters=[
            params_file,
            {
                "file": config("file"),
                "format": config("format"),
                "group": config("group"),
                "mode": config("mode"),
                "rate": ParameterValue(config("rate"), value_type=float),
                "loop": ParameterValue(config("loop"), value_type=bool),
                "start_paused": ParameterValue(config("start_paused"), value_type=bool),
                "stream_rate": ParameterValue(config("stream_rate"), value_type=float),
                "world_frame": config("world_frame"),
                "root_frame": config("root_frame"),
                "frame_prefix": config("frame_prefix"),
                "use_sim_time": ParameterValue(config("use_sim_time"), value_type=bool),
                "urdf_file": config("urdf"),
                "body_file": config("body"),
            },
        ],
        remappings=[
            ("joint_trajectory", config("trajectory_topic")),
            ("joint_states", config("joint_states_topic")),
        ],
    )
    robot_state_publisher = Node(
        package="robot_state_publisher",
        executable="robot_state_publisher",
        output="screen",
        condition=IfCondition(PythonExpression(["'", config("urdf"), "' != ''"])),
        parameters=[
            {
                "robot_description": ParameterValue(Command(["cat ", config("urdf")]), value_type=str),
                "frame_prefix": config("frame_prefix"),
                "use_sim_time": ParameterValue(config("use_sim_time"), value_type=bool),
            }
        ],
        remappings=[("joint_states", config("joint_states_topic"))],
    )
    return LaunchDescription([*args, player, robot_state_publisher])
