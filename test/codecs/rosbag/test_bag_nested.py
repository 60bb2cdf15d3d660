"""Trajectories inside other messages: MoveIt's DisplayTrajectory / RobotTrajectory.

The MoveIt types are registered with rosbags' typesys from the message text below (field
layouts of moveit_msgs as ROS 2 and ROS 1 MoveIt publish them); bags are written with the
real rosbags writers: MCAP (definitions in its schemas), sqlite3 without a
message_definitions table (as rosbag2 wrote before Iron: the reader has to know the
types), and a ROS 1 bag (definitions in its connection headers).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from motion_formats_ros import read
from motion_formats_ros.cli.bag import describe_lines
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs import rosbag
from motion_formats_ros.codecs.rosbag import BagMotionRecord
from motion_formats_ros.core.errors import ReadError

S = 1_000_000_000
BASE = 1_730_000_000 * S
JOINTS = ["panda_joint1", "panda_joint2"]
DISPLAY = "moveit_msgs/msg/DisplayTrajectory"
ROBOT_TRAJECTORY = "moveit_msgs/msg/RobotTrajectory"
JS = "sensor_msgs/msg/JointState"

MOVEIT_MSGS = {
    "object_recognition_msgs/msg/ObjectType": "string key\nstring db\n",
    "moveit_msgs/msg/CollisionObject": (
        "std_msgs/Header header\ngeometry_msgs/Pose pose\nstring id\nobject_recognition_msgs/ObjectType type\n"
        "shape_msgs/SolidPrimitive[] primitives\ngeometry_msgs/Pose[] primitive_poses\n"
        "shape_msgs/Mesh[] meshes\ngeometry_msgs/Pose[] mesh_poses\nshape_msgs/Plane[] planes\n"
        "geometry_msgs/Pose[] plane_poses\nstring[] subframe_names\ngeometry_msgs/Pose[] subframe_poses\n"
        "byte ADD=0\nbyte REMOVE=1\nbyte APPEND=2\nbyte MOVE=3\nbyte operation\n"
    ),
    "moveit_msgs/msg/AttachedCollisionObject": (
        "string link_name\nmoveit_msgs/CollisionObject object\nstring[] touch_links\n"
        "trajectory_msgs/JointTrajectory detach_posture\nfloat64 weight\n"
    ),
    "moveit_msgs/msg/RobotState": (
        "sensor_msgs/JointState joint_state\nsensor_msgs/MultiDOFJointState multi_dof_joint_state\n"
        "moveit_msgs/AttachedCollisionObject[] attached_collision_objects\nbool is_diff\n"
    ),
    ROBOT_TRAJECTORY: (
        "trajectory_msgs/JointTrajectory joint_trajectory\n"
        "trajectory_msgs/MultiDOFJointTrajectory multi_dof_joint_trajectory\n"
    ),
    DISPLAY: "string model_id\nmoveit_msgs/RobotTrajectory[] trajectory\nmoveit_msgs/RobotState trajectory_start\n",
}


def _store(store: Stores) -> Any:
    ts = get_typestore(store)
    types: dict[str, Any] = {}
    for name, text in MOVEIT_MSGS.items():
        types.update(get_types_from_msg(text, name))
    ts.register(types)
    return ts


def _time(ts: Any, ns: int) -> Any:
    sec, nsec = divmod(ns, S)
    return ts.types["builtin_interfaces/msg/Time"](sec=sec, nanosec=nsec)


def _header(ts: Any, ns: int, ros1: bool) -> Any:
    h = ts.types["std_msgs/msg/Header"]
    if ros1:
        return h(seq=0, stamp=_time(ts, ns), frame_id="world")
    return h(stamp=_time(ts, ns), frame_id="world")


def _duration(ts: Any, ns: int) -> Any:
    sec, nsec = divmod(ns, S)
    return ts.types["builtin_interfaces/msg/Duration"](sec=sec, nanosec=nsec)


def _joint_trajectory(ts: Any, points: list[tuple[float, list[float]]], ros1: bool) -> Any:
    t = ts.types
    empty = np.zeros(0)
    return t["trajectory_msgs/msg/JointTrajectory"](
        header=_header(ts, 0, ros1),  # MoveIt leaves the stamp at zero
        joint_names=list(JOINTS),
        points=[
            t["trajectory_msgs/msg/JointTrajectoryPoint"](
                positions=np.array(q, dtype=np.float64),
                velocities=empty,
                accelerations=empty,
                effort=empty,
                time_from_start=_duration(ts, round(tfs * S)),
            )
            for tfs, q in points
        ],
    )


def _display(ts: Any, parts: list[list[tuple[float, list[float]]]], ros1: bool = False) -> Any:
    t = ts.types
    empty = np.zeros(0)
    robot_trajectories = [
        t[ROBOT_TRAJECTORY](
            joint_trajectory=_joint_trajectory(ts, part, ros1),
            multi_dof_joint_trajectory=t["trajectory_msgs/msg/MultiDOFJointTrajectory"](
                header=_header(ts, 0, ros1), joint_names=[], points=[]
            ),
        )
        for part in parts
    ]
    start = t["moveit_msgs/msg/RobotState"](
        joint_state=t[JS](
            header=_header(ts, BASE, ros1),
            name=list(JOINTS),
            position=np.array(parts[0][0][1]),
            velocity=empty,
            effort=empty,
        ),
        multi_dof_joint_state=t["sensor_msgs/msg/MultiDOFJointState"](
            header=_header(ts, 0, ros1), joint_names=[], transforms=[], twist=[], wrench=[]
        ),
        attached_collision_objects=[],
        is_diff=False,
    )
    return t[DISPLAY](model_id="panda", trajectory=robot_trajectories, trajectory_start=start)


# Two plans. The first has two parts (a DisplayTrajectory lists a plan's parts in order);
# the second arrives 0.2 s after the first, long before the first has ended.
PLAN_1 = [
    [(0.0, [0.0, 0.0]), (0.5, [0.1, 0.2]), (1.0, [0.2, 0.4])],
    [(0.0, [0.2, 0.4]), (0.5, [0.3, 0.5])],
]
PLAN_2 = [[(0.0, [0.3, 0.5]), (1.0, [0.6, 0.6]), (2.0, [0.9, 0.7])]]
#: One after another: part 2 starts where part 1 ends (1.0 s), plan 2 where plan 1 ends (1.5 s).
TIMES = [0.0, 0.5, 1.0, 1.5, 2.5, 3.5]
POSITIONS = [[0.0, 0.0], [0.1, 0.2], [0.2, 0.4], [0.3, 0.5], [0.6, 0.6], [0.9, 0.7]]
RECEIVED = [BASE, BASE + S // 5]


def _states(ts: Any, ros1: bool) -> list[tuple[int, Any]]:
    empty = np.zeros(0)
    return [
        (
            BASE + k * S // 2,
            ts.types[JS](
                header=_header(ts, BASE + k * S // 2, ros1),
                name=list(JOINTS),
                position=np.array([k / 10, k / 20]),
                velocity=empty,
                effort=empty,
            ),
        )
        for k in range(8)
    ]


def _ros2_bag(path: Path, storage: StoragePlugin, with_states: bool = True) -> Path:
    ts = _store(Stores.ROS2_JAZZY)
    with Writer(path, version=9, storage_plugin=storage) as writer:
        display = writer.add_connection("/display_planned_path", DISPLAY, typestore=ts)
        js = writer.add_connection("/joint_states", JS, typestore=ts) if with_states else None
        for ns, plan in zip(RECEIVED, (PLAN_1, PLAN_2), strict=True):
            writer.write(display, ns, ts.serialize_cdr(_display(ts, plan), DISPLAY))
        if js is not None:
            for ns, msg in _states(ts, False):
                writer.write(js, ns, ts.serialize_cdr(msg, JS))
    return path


def _without_definitions(bag: Path) -> Path:
    """The bag as rosbag2 sqlite3 wrote it before Iron: no message_definitions table."""
    (db,) = bag.glob("*.db3")
    con = sqlite3.connect(db)
    con.execute("DROP TABLE message_definitions")
    con.execute("UPDATE schema SET schema_version = 3")
    con.commit()
    con.close()
    return bag


def _ros1_bag(path: Path) -> Path:
    from rosbags.rosbag1 import Writer as Writer1

    ts = _store(Stores.ROS1_NOETIC)
    with Writer1(path) as writer:
        display = writer.add_connection("/display_planned_path", DISPLAY, typestore=ts)
        js = writer.add_connection("/joint_states", JS, typestore=ts)
        for ns, plan in zip(RECEIVED, (PLAN_1, PLAN_2), strict=True):
            writer.write(display, ns, ts.serialize_ros1(_display(ts, plan, ros1=True), DISPLAY))
        for ns, msg in _states(ts, True):
            writer.write(js, ns, ts.serialize_ros1(msg, JS))
    return path


def _bags(tmp_path: Path) -> dict[str, Path]:
    return {
        "mcap": _ros2_bag(tmp_path / "mcap", StoragePlugin.MCAP),
        "sqlite3-no-definitions": _without_definitions(_ros2_bag(tmp_path / "db3", StoragePlugin.SQLITE3)),
        "ros1": _ros1_bag(tmp_path / "moveit.bag"),
    }


KINDS = ["mcap", "sqlite3-no-definitions", "ros1"]


@pytest.mark.parametrize("kind", KINDS)
def test_bag_nested_info_lists_joint_data_by_field_path(tmp_path: Path, kind: str) -> None:
    bag = _bags(tmp_path)[kind]
    info = rosbag.describe(bag)
    display = next(t for t in info["topics"] if t["topic"] == "/display_planned_path")
    assert display["converts_to"] is None
    fields = {f["field"]: f["converts_to"] for f in display["fields"]}
    assert fields == {
        "trajectory[].joint_trajectory": "target group",
        "trajectory_start.joint_state": "joints",
        "trajectory_start.attached_collision_objects[].detach_posture": "target group",
    }
    lines = describe_lines(info)
    assert any(
        line.strip().startswith("/display_planned_path: trajectory[].joint_trajectory")
        and "--trajectory /display_planned_path:trajectory[].joint_trajectory" in line
        for line in lines
    ), lines


@pytest.mark.parametrize("kind", KINDS)
def test_bag_nested_trajectories_one_after_another(tmp_path: Path, kind: str) -> None:
    bag = _bags(tmp_path)[kind]
    mf = read(bag, trajectory=["/display_planned_path:trajectory[].joint_trajectory"])
    target = mf.groups["target"]
    assert target.joint_names == tuple(JOINTS)
    origin = mf.groups["actual"].record(BagMotionRecord).time_origin_ns
    assert origin == BASE  # the first joint state; the first plan was received then too
    assert np.allclose(target.times, TIMES)
    assert np.allclose(target.position, POSITIONS)  # type: ignore[arg-type]
    assert target.record(BagMotionRecord).topics == ["/display_planned_path:trajectory[].joint_trajectory"]
    assert mf.groups["actual"].num_frames == 8  # the joint states are read as always


def test_bag_nested_topic_without_slash_and_field_chosen_with_a_warning(tmp_path: Path) -> None:
    bag = _ros2_bag(tmp_path / "b", StoragePlugin.MCAP)
    with pytest.warns(UserWarning, match=r"read trajectory_msgs/msg/JointTrajectory from trajectory\[\]\.joint_traj"):
        mf = read(bag, trajectory=["display_planned_path"])
    assert np.allclose(mf.groups["target"].times, TIMES)
    mf2 = read(bag, trajectory=["display_planned_path:trajectory.joint_trajectory"])  # [] may be left out
    assert np.array_equal(mf2.groups["target"].position, mf.groups["target"].position)  # type: ignore[arg-type]
    with pytest.raises(ReadError, match=r"/display_planned_path:model_id: no trajectory_msgs/msg/JointTrajectory"):
        read(bag, trajectory=["/display_planned_path:model_id"])


def test_bag_nested_joint_state_with_topics_field(tmp_path: Path) -> None:
    bag = _ros2_bag(tmp_path / "b", StoragePlugin.MCAP)
    m = read(bag, topics=["/display_planned_path:trajectory_start.joint_state"]).groups["actual"]
    assert m.joint_names == tuple(JOINTS)
    assert m.num_frames == 1  # both start states carry the same stamp: the later wins
    assert np.allclose(m.position, [[0.3, 0.5]])  # type: ignore[arg-type]


def test_bag_only_display_trajectories_convert_with_a_warning(tmp_path: Path) -> None:
    bag = _ros2_bag(tmp_path / "b", StoragePlugin.MCAP, with_states=False)
    with pytest.warns(UserWarning, match=r"converting the trajectories inside /display_planned_path:trajectory\[\]"):
        mf = read(bag)
    assert list(mf.groups) == ["target"]
    assert np.allclose(mf.motion.times, TIMES)
    assert mf.motion.record(BagMotionRecord).time_origin_ns == BASE


def test_bag_nested_cli_bag2motion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bag = _ros2_bag(tmp_path / "b", StoragePlugin.MCAP)
    out = tmp_path / "plan.omf.json"
    assert main(["info", str(bag)]) == 0
    assert "/display_planned_path: trajectory[].joint_trajectory" in capsys.readouterr().out
    spec = "display_planned_path:trajectory[].joint_trajectory"
    assert main(["bag2motion", str(bag), str(out), "--trajectory", spec]) == 0
    assert "target: 6 frames, 2 joints" in capsys.readouterr().out
    back = read(out)
    assert np.allclose(back.groups["target"].times, TIMES)
    assert main(["info", "--json", str(bag)]) == 0
    listed = json.loads(capsys.readouterr().out)
    display = next(t for t in listed["topics"] if t["topic"] == "/display_planned_path")
    assert display["fields"][0]["field"] == "trajectory[].joint_trajectory"
