"""Every bag of the corpus of real recordings reads: topics, types, counts, the motion it holds."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from support.bags import corpus_bag

from motion_formats_ros import read
from motion_formats_ros.codecs import rosbag
from motion_formats_ros.codecs.rosbag import BagMotionRecord
from motion_formats_ros.core.errors import ReadError


def _read(path: Path, **options: object) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mf = read(path, **options)
    return mf, [str(w.message) for w in caught]


def test_bag_corpus_ros1_zero_stamps_fall_back_to_receive_time() -> None:
    mf, notes = _read(corpus_bag("ros1/C-Shape-1_joints.bag"))
    m = mf.groups["actual"]
    assert m.num_frames == 150
    assert m.joint_names == tuple(f"joint_{i}" for i in range(1, 8))
    assert m.times[0] == 0.0 and np.all(np.diff(m.times) > 0)
    assert any("every header stamp is zero; using receive times" in n for n in notes)
    assert m.position is not None and abs(m.position[0, 3] - 2.09279379) < 1e-6
    # header stamps on request: all zero -> one frame only (later wins), no fallback
    mf2, _ = _read(corpus_bag("ros1/C-Shape-1_joints.bag"), stamps="header")
    assert mf2.groups["actual"].num_frames == 1


def test_bag_corpus_ros1_fake_joint_state_topic_found_by_type() -> None:
    mf, _ = _read(corpus_bag("ros1/fake_joint_state.bag"))
    m = mf.motion
    assert m.num_frames == 2725
    assert m.joint_names == tuple(f"joint_{i}" for i in range(6))
    assert m.position is not None and m.velocity is not None and m.effort is not None
    assert mf.motion.record(BagMotionRecord).topics == ["/fake_joints_state"]
    assert m.record(BagMotionRecord).time_origin_ns == 1486559106139644064  # first header stamp
    assert abs(m.position[0, 0] - 1.08752097) < 1e-6


@pytest.mark.parametrize("rel", ["ros1/tf_example.bag", "ros2/evo_tf_example"])
def test_bag_corpus_tf_gives_root_pose_over_static_hop(rel: str) -> None:
    mf, _ = _read(corpus_bag(rel))
    m = mf.motion
    assert m.record(BagMotionRecord).root == "odom:base_link"  # odom -> base_footprint (dynamic) -> base_link (static)
    assert m.num_frames == 517 and m.times[0] == 0.0
    assert m.root_position is not None and m.root_orientation is not None
    assert np.allclose(np.linalg.norm(m.root_orientation, axis=1), 1.0)
    # explicit root over the dynamic hop only: same frames; the static hop is an offset
    only, _ = _read(corpus_bag(rel), root="odom:base_footprint")
    assert only.motion.num_frames == 517
    assert only.motion.root_position is not None


def test_bag_corpus_ros1_and_ros2_tf_examples_agree() -> None:
    a, _ = _read(corpus_bag("ros1/tf_example.bag"))
    b, _ = _read(corpus_bag("ros2/evo_tf_example"))
    assert np.array_equal(a.motion.times, b.motion.times)
    assert np.allclose(a.motion.root_position, b.motion.root_position)  # type: ignore[arg-type]


def test_bag_corpus_turtlesim_legacy_tf() -> None:
    mf, _ = _read(corpus_bag("ros1/plotjuggler_example.bag"))
    m = mf.motion
    assert m.record(BagMotionRecord).root == "world:turtle1"
    assert m.num_frames == 1344
    assert m.root_position is not None and np.ptp(m.root_position[:, 0]) > 0.1
    other, _ = _read(corpus_bag("ros1/plotjuggler_example.bag"), root="world:turtle2")
    assert other.motion.num_frames == 1344


@pytest.mark.parametrize("rel", ["ros2/test_bag_mcap", "ros2/test_bag_sqlite3"])
def test_bag_corpus_generated_bags_convert(rel: str) -> None:
    mf, _ = _read(corpus_bag(rel))
    m = mf.motion
    assert m.joint_names == ("joint1", "joint2", "joint3")
    assert m.num_frames == 2
    assert np.allclose(m.position[0], [0.1, 0.2, 0.3])  # type: ignore[index]
    assert np.allclose(m.effort[0], [1.0, 2.0, 3.0])  # type: ignore[index]
    assert m.imu_names == ("test/sensor_msgs/imu",)


def test_bag_corpus_without_joint_or_tf_topics_fails_clearly() -> None:
    with pytest.raises(ReadError) as err:
        read(corpus_bag("ros2/plotjuggler_rosbag2_test"))
    text = str(err.value)
    assert "no such topic '/joint_states'" in text
    assert "/imu (sensor_msgs/msg/Imu)" in text and "/battery" in text


def test_bag_corpus_every_bag_is_described() -> None:
    for bag in sorted(corpus_bag("ros1").glob("*.bag")) + sorted(corpus_bag("ros2").iterdir()):
        info = rosbag.describe(bag)
        assert info["topics"], bag
        assert all(t["messages"] >= 0 for t in info["topics"])
