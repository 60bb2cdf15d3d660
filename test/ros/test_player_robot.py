"""The player shows the robot: /robot_description latched and every link's TF, checked by a real subscriber."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import numpy as np
import pytest
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import write
from motion_formats_ros.core.examples import biped_urdf, biped_walk
from motion_formats_ros.core.kinematics import RobotModel

pytestmark = [requires_ros, pytest.mark.ros]

#: A fixed joint added to the example robot: robot_state_publisher sends it once, on /tf_static.
CAMERA = """
  <joint name="camera_mount" type="fixed">
    <parent link="base_link"/><child link="camera_link"/>
    <origin xyz="0.05 0 0.04" rpy="0 0.3 0"/>
  </joint>
  <link name="camera_link"/>
</robot>"""


def _ns(stamp) -> int:  # type: ignore[no-untyped-def]
    return int(stamp.sec) * 1_000_000_000 + int(stamp.nanosec)


def test_robot_description_and_every_links_tf(tmp_path: Path) -> None:
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from sensor_msgs.msg import JointState
    from std_msgs.msg import String
    from tf2_msgs.msg import TFMessage

    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)
    text = biped_urdf().replace("</robot>", CAMERA)
    urdf = tmp_path / "robot.urdf"
    urdf.write_text(text)
    model = RobotModel.from_urdf(text)
    walk = tmp_path / "walk.msgpack"
    write(biped_walk(rate=50.0, cycles=1, period=1.0), walk)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/joint_states", 1000)
        tfs = ros.collect(TFMessage, "/tf", 1000)
        player = ros.start_player(
            f"file:={walk}",
            f"urdf_file:={urdf}",
            "publish_link_tf:=true",
            "mode:=stream",
            "loop:=true",
            "wait_for_subscribers:=10.0",
        )
        assert ros.spin_until(lambda: len(states) >= 60, 30), player.output()
        # Subscribers that come late still get the description and the fixed joints.
        descriptions = ros.collect(String, "/robot_description", latched)
        statics = ros.collect(TFMessage, "/tf_static", latched)
        assert ros.spin_until(lambda: bool(descriptions) and bool(statics), 10), player.output()
        player.proc.send_signal(signal.SIGTERM)
        assert player.wait(30) == 0, player.output()

    assert [d.data for d in descriptions] == [text]
    static = {t.child_frame_id: t for m in statics for t in m.transforms}
    assert set(static) == {"camera_link"}
    cam = static["camera_link"].transform
    assert static["camera_link"].header.frame_id == "base_link"
    np.testing.assert_allclose([cam.translation.x, cam.translation.y, cam.translation.z], [0.05, 0, 0.04])
    np.testing.assert_allclose([cam.rotation.y, cam.rotation.w], [np.sin(0.15), np.cos(0.15)], atol=1e-12)

    # Every movable joint's link at every frame, stamped like the frame's JointState.
    movable = {j.child: j for j in model.joints if j.movable}
    by_stamp = {_ns(s.header.stamp): s for s in states}
    checked = 0
    for message in tfs:
        links = {t.child_frame_id: t for t in message.transforms if t.child_frame_id in movable}
        if not links:
            continue
        assert set(links) == set(movable)
        stamp = _ns(next(iter(links.values())).header.stamp)
        state = by_stamp.get(stamp)
        if state is None:
            continue  # a frame whose JointState this probe has not kept
        _, moving = model.joint_transforms(list(state.name), np.array([state.position]))
        for mt in moving:
            got = links[mt.child]
            assert got.header.frame_id == mt.parent and _ns(got.header.stamp) == stamp
            tr, q = got.transform.translation, got.transform.rotation
            np.testing.assert_allclose([tr.x, tr.y, tr.z], mt.translation[0], atol=1e-7)
            np.testing.assert_allclose([q.x, q.y, q.z, q.w], mt.rotation[0], atol=1e-7)
        checked += 1
    assert checked >= 50, checked


def test_a_body_file_is_the_robot_model(tmp_path: Path) -> None:
    """A Choreonoid .body names a .seq's joints and is the description the player publishes."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL, reliability=ReliabilityPolicy.RELIABLE)
    body = tmp_path / "arm.body"
    body.write_text(
        "format: ChoreonoidBody\nformatVersion: 1.0\nangleUnit: degree\nname: arm\nrootLink: base\nlinks:\n"
        "  - {name: base, jointType: fixed}\n"
        "  - {name: upper, parent: base, jointType: revolute, jointId: 0, jointAxis: Z, translation: [0, 0, 0.1]}\n"
        "  - {name: lower, parent: upper, jointType: revolute, jointId: 1, jointAxis: -Y, translation: [0.2, 0, 0]}\n"
    )
    model = RobotModel.from_body(body)
    names = list(model.actuated_joints)
    walk = tmp_path / "arm.msgpack"
    from motion_formats_ros import Motion, MotionFile

    times = np.arange(20) / 20.0
    write(MotionFile({"target": Motion(times=times, joint_names=tuple(names), position=np.c_[times, -times])}), walk)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(
            f"file:={walk}", f"body_file:={body}", "mode:=stream", "loop:=true", "wait_for_subscribers:=0"
        )
        ros.spin_for(2.0)
        descriptions = ros.collect(String, "/robot_description", latched)
        got = ros.spin_until(lambda: bool(descriptions), 15)
        player.proc.send_signal(signal.SIGTERM)
        assert player.wait(30) == 0, player.output()
    assert got, player.output()
    assert RobotModel.from_urdf(descriptions[0].data).actuated_joints == model.actuated_joints


#: j2 mimics j1 (× -8, + 0.1); j1 within ±1, j2 within ±3.
PINCER = """<robot name="pincer">
  <link name="base"/><link name="l1"/><link name="l2"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" velocity="10" effort="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" velocity="100" effort="1"/><mimic joint="j1" multiplier="-8" offset="0.1"/></joint>
</robot>
"""


def test_a_mimic_joint_the_motion_does_not_name_is_judged_through_its_leader(tmp_path: Path) -> None:
    """The node refuses a motion of j1 alone that drives its mimic j2 to -7.1 against its ±3 (check agrees)."""
    from motion_formats_ros import Motion, MotionFile

    urdf = tmp_path / "pincer.urdf"
    urdf.write_text(PINCER)
    motion = tmp_path / "j1.msgpack"
    times = np.linspace(0.0, 1.0, 11)
    write(
        MotionFile.single(Motion(times=times, joint_names=("j1",), position=np.linspace(0.1, 0.9, 11)[:, None])), motion
    )
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={motion}", f"urdf_file:={urdf}")
        assert player.wait(30) == 1, player.output()
    assert "refusing to play: joint 'j2' below its lower limit -3 at t = 0.4 s" in player.output(), player.output()


def test_a_stream_that_falls_behind_says_so_with_the_rate_it_achieves(tmp_path: Path) -> None:
    """Far more ticks than the stream can send: a warning names the rate achieved while it falls behind."""
    walk = tmp_path / "walk.msgpack"
    write(biped_walk(rate=50.0, cycles=1, period=3.0), walk)
    urdf = tmp_path / "robot.urdf"
    urdf.write_text(biped_urdf())
    with ros_session(tmp_path) as ros:
        player = ros.start_player(
            f"file:={walk}",
            f"urdf_file:={urdf}",
            "publish_link_tf:=true",
            "mode:=stream",
            "stream_rate:=50000.0",
            "wait_for_subscribers:=0",
        )
        assert player.wait(60) == 0, player.output()
    output = player.output()
    warnings = re.findall(r"\[WARN\].*the stream falls behind: (\d+) Hz achieved of stream_rate 50000 Hz", output)
    assert warnings and all(0 < int(v) < 50000 * 0.95 for v in warnings), output
    assert len(warnings) <= 3, output  # throttled: at most one per window of 2 s
