"""Play a motion file into ROS 2.

    ros2 launch motion_formats_ros play.launch.py file:=walk.seq body_file:=biped.body
    ros2 launch motion_formats_ros play.launch.py file:=log.msgpack group:=actual loop:=true \
        trajectory_topic:=/arm_controller/joint_trajectory urdf:=/path/robot.urdf
    ros2 launch motion_formats_ros play.launch.py file:=wave.msgpack mode:=trajectory \
        controller:=/arm_controller goal_tolerance:=0.02   # one FollowJointTrajectory goal

Every parameter of config/player.yaml (generated from the node's declarations, read here as
YAML) is a launch argument with the same name, default and help
(``ros2 launch motion_formats_ros play.launch.py --show-args``). ``params_file``
replaces config/player.yaml; arguments given on the command line override it. With
``urdf`` (or ``urdf_file``) given, the player refuses motions beyond the URDF's joint limits
and publishes /robot_description; robot_state_publisher is started too (so RViz shows the
robot), unless ``publish_link_tf:=true`` asks the player for every link's TF itself.
``robot_description`` (URDF text) works like ``urdf``, without robot_state_publisher.

``sim:=true`` plays into a simulated robot instead of hardware: ``motion_sim`` simulates
the same robot model (``urdf``, ``body_file`` or ``robot_description``) behind
/joint_trajectory_controller, the player sends it the motion as one goal (``controller``
defaults to it), robot_state_publisher shows it. ``record:=FILE`` records the robot's
/joint_states and root pose into FILE with motion_recorder (Ctrl-C ends the recording)::

    ros2 launch motion_formats_ros play.launch.py file:=walk.seq body_file:=biped.body sim:=true record:=did.msgpack
"""

from pathlib import Path

from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from launch import LaunchDescription
from motion_formats_ros.ros.launch_args import default_text, overrides, read_config, robot_text, typed
from motion_formats_ros.ros.node_settings import descriptions

#: The package's share folder (launch/ and config/ side by side, as in the source tree).
SHARE = Path(__file__).resolve().parent.parent
CONFIG = SHARE / "config" / "player.yaml"
SIM_CONFIG = SHARE / "config" / "sim.yaml"
RECORDER_CONFIG = SHARE / "config" / "recorder.yaml"
NODE = "motion_player"
#: The simulated robot's controller, as ros2_control names joint_trajectory_controller.
SIM_CONTROLLER = "/joint_trajectory_controller"
#: Launch arguments that are not player parameters: name, default, description.
EXTRA = [
    ("params_file", "", "YAML file with player parameters used instead of config/player.yaml"),
    ("trajectory_topic", "joint_trajectory", "where JointTrajectory goes, e.g. /arm_controller/joint_trajectory"),
    ("joint_states_topic", "joint_states", "where the JointState stream goes"),
    ("urdf", "", "URDF file: the player's joint limits (urdf_file) and robot_state_publisher for RViz"),
    ("body", "", "same as body_file"),
    ("sim", "false", "start motion_sim: the same robot simulated behind /joint_trajectory_controller"),
    ("sim_params_file", "", "YAML file with motion_sim parameters used instead of config/sim.yaml"),
    ("gains_file", "", "motion_sim's servo gains (ros2_control's layout: gains: {joint: {p, d}})"),
    ("record", "", "record the robot's joint_states and root pose into this file (motion_recorder)"),
]


def generate_launch_description() -> LaunchDescription:
    defaults = read_config(CONFIG, NODE)
    text = descriptions(NODE)
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
    sim = typed("sim", given["sim"], False)
    if sim and not params.get("controller"):
        params["controller"] = SIM_CONTROLLER
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
    out = [player]
    model = {k: params[k] for k in ("urdf_file", "body_file", "robot_description") if params.get(k)}
    prefix = params.get("frame_prefix", defaults["frame_prefix"])
    sim_time = params.get("use_sim_time", defaults["use_sim_time"])
    if sim:
        if not model:
            raise ValueError("sim:=true needs the robot model: urdf, body_file or robot_description")
        sim_params = {**model, "frame_prefix": prefix}
        for name in ("srdf_file", "package_path"):  # the same robot, its meshes found the same way
            if params.get(name):
                sim_params[name] = params[name]
        if given["gains_file"]:
            sim_params["gains_file"] = given["gains_file"]
        if sim_time:
            sim_params["publish_clock"] = True
        out.append(
            Node(
                package="motion_formats_ros",
                executable="motion_sim",
                name="motion_sim",
                output="screen",
                parameters=[given["sim_params_file"] or str(SIM_CONFIG), sim_params],
                remappings=[("joint_states", given["joint_states_topic"])],
            )
        )
    text, root = robot_text(
        model.get("urdf_file") or urdf, model.get("body_file", ""), model.get("robot_description", "")
    )
    if given["record"]:
        recording = {"output": given["record"], "overwrite": True}
        if sim and root and root != "world":  # a floating base: its pose from /tf
            recording |= {"world_frame": "world", "root_frame": prefix + root}
        out.append(
            Node(
                package="motion_formats_ros",
                executable="motion_recorder",
                name="motion_recorder",
                output="screen",
                parameters=[str(RECORDER_CONFIG), recording],
                remappings=[("joint_states", given["joint_states_topic"])],
            )
        )
    show = bool(urdf) or (sim and bool(text))
    if not show or params.get("publish_link_tf", defaults["publish_link_tf"]):
        return out  # no model, or the player publishes the links' TF itself
    robot_state_publisher = Node(
        package="robot_state_publisher",
        executable="robot_state_publisher",
        output="screen",
        parameters=[{"robot_description": text, "frame_prefix": prefix, "use_sim_time": sim_time}],
        remappings=[("joint_states", given["joint_states_topic"])],
    )
    return [player, robot_state_publisher, *out[1:]]
