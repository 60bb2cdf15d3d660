"""Play a motion file into ROS 2.

    ros2 launch motion_formats_ros play.launch.py file:=walk.seq body_file:=biped.body
    ros2 launch motion_formats_ros play.launch.py file:=log.msgpack group:=actual loop:=true \
        trajectory_topic:=/arm_controller/joint_trajectory urdf:=/path/robot.urdf
    ros2 launch motion_formats_ros play.launch.py file:=wave.msgpack mode:=trajectory \
        controller:=/arm_controller goal_tolerance:=0.02   # one FollowJointTrajectory goal

Every parameter of config/player.yaml is a launch argument with the same name and
default (``ros2 launch motion_formats_ros play.launch.py --show-args``). ``params_file``
replaces config/player.yaml; arguments given on the command line override it. With
``urdf`` (or ``urdf_file``) given, the player refuses motions beyond the URDF's joint limits
and publishes /robot_description; robot_state_publisher is started too (so RViz shows the
robot), unless ``publish_link_tf:=true`` asks the player for every link's TF itself.
``robot_description`` (URDF text) works like ``urdf``, without robot_state_publisher.
"""

from pathlib import Path

from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription
from motion_formats_ros.ros.launch_args import default_text, descriptions, overrides, read_config

#: The package's share folder (launch/ and config/ side by side, as in the source tree).
SHARE = Path(__file__).resolve().parent.parent
CONFIG = SHARE / "config" / "player.yaml"
NODE = "motion_player"
#: Launch arguments that are not player parameters: name, default, description.
EXTRA = [
    ("params_file", "", "YAML file with player parameters used instead of config/player.yaml"),
    ("trajectory_topic", "joint_trajectory", "where JointTrajectory goes, e.g. /arm_controller/joint_trajectory"),
    ("joint_states_topic", "joint_states", "where the JointState stream goes"),
    ("urdf", "", "URDF file: the player's joint limits (urdf_file) and robot_state_publisher for RViz"),
    ("body", "", "same as body_file"),
]


def generate_launch_description() -> LaunchDescription:
    defaults = read_config(CONFIG, NODE)
    text = descriptions(CONFIG)
    args = [
        DeclareLaunchArgument(n, default_value=default_text(v), description=text.get(n, n)) for n, v in defaults.items()
    ]
    args += [DeclareLaunchArgument(n, default_value=d, description=t) for n, d, t in EXTRA]
    return LaunchDescription([*args, OpaqueFunction(function=nodes)])


def nodes(context, *args, **kwargs):  # type: ignore[no-untyped-def]
    """The player (and robot_state_publisher with a URDF), from the arguments' values."""
    defaults = read_config(CONFIG, NODE)
    given = {n: LaunchConfiguration(n).perform(context) for n in [*defaults, *(e[0] for e in EXTRA)]}
    params = overrides(defaults, given)
    urdf = given["urdf"] or params.get("urdf_file", "")
    if given["urdf"]:
        params["urdf_file"] = given["urdf"]
    if given["body"]:
        params["body_file"] = given["body"]
    player = Node(
        package="motion_formats_ros",
        executable="motion_player",
        name=NODE,
        output="screen",
        parameters=[given["params_file"] or str(CONFIG), params],
        remappings=[
            ("joint_trajectory", given["trajectory_topic"]),
            ("joint_states", given["joint_states_topic"]),
        ],
    )
    if not urdf or params.get("publish_link_tf", defaults["publish_link_tf"]):
        return [player]  # no model, or the player publishes the links' TF itself
    robot_state_publisher = Node(
        package="robot_state_publisher",
        executable="robot_state_publisher",
        output="screen",
        parameters=[
            {
                "robot_description": Path(urdf).read_text(encoding="utf-8"),
                "frame_prefix": params.get("frame_prefix", defaults["frame_prefix"]),
                "use_sim_time": params.get("use_sim_time", defaults["use_sim_time"]),
            }
        ],
        remappings=[("joint_states", given["joint_states_topic"])],
    )
    return [player, robot_state_publisher]
