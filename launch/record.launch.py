"""Record robot motion to OMF or Choreonoid .seq, crash-safe.

    ros2 launch motion_formats_ros record.launch.py output:=robot_log.msgpack
    ros2 launch motion_formats_ros record.launch.py output:=walk.seq topics:="[joint_states]" rate:=200.0
    ros2 launch motion_formats_ros record.launch.py output:=log.msgpack \\
        target_topic:=/arm_controller/joint_trajectory world_frame:=odom root_frame:=base_link

Every parameter of config/recorder.yaml (generated from the node's declarations, read here
as YAML) is a launch argument with the same name, default and help; ``params_file``
replaces config/recorder.yaml, arguments given on the command line override it. Stop with
Ctrl-C (or the ~/stop service): the output is written from the journal. After a crash:
`motion-formats recover robot_log.msgpack.journal`.
"""

from pathlib import Path

from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription
from motion_formats_ros.ros.launch_args import default_text, overrides, read_config
from motion_formats_ros.ros.node_settings import descriptions

SHARE = Path(__file__).resolve().parent.parent
CONFIG = SHARE / "config" / "recorder.yaml"
NODE = "motion_recorder"
EXTRA = [("params_file", "", "YAML file with recorder parameters used instead of config/recorder.yaml")]


def generate_launch_description() -> LaunchDescription:
    defaults = read_config(CONFIG, NODE)
    text = descriptions(NODE)
    args = [
        DeclareLaunchArgument(n, default_value=default_text(v), description=text.get(n, n)) for n, v in defaults.items()
    ]
    args += [DeclareLaunchArgument(n, default_value=d, description=t) for n, d, t in EXTRA]
    return LaunchDescription([*args, OpaqueFunction(function=nodes)])


def nodes(context, *args, **kwargs):  # type: ignore[no-untyped-def]
    """The recorder, from the arguments' values."""
    defaults = read_config(CONFIG, NODE)
    given = {n: LaunchConfiguration(n).perform(context) for n in [*defaults, "params_file"]}
    recorder = Node(
        package="motion_formats_ros",
        executable="motion_recorder",
        name=NODE,
        output="screen",
        parameters=[given["params_file"] or str(CONFIG), overrides(defaults, given)],
        # Give the recorder time to write the file when the launch is interrupted.
        sigterm_timeout="30",
    )
    return [recorder]
