"""Bad input: each kind of damage a bag can have, one test each."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rosbags.rosbag2 import StoragePlugin, Writer
from support.bags import JS, TF, TS, joint_state, tf_message, transform, write_bag

from motion_formats_ros import read
from motion_formats_ros.core.errors import ReadError

BASE = 1_600_000_000 * 1_000_000_000


def test_bag_error_not_a_bag(tmp_path: Path) -> None:
    fake = tmp_path / "notes.mcap"
    fake.write_bytes(b"hello, this is not MCAP at all\n" * 4)
    with pytest.raises(ReadError, match="not a bag: no MCAP signature") as err:
        read(fake)
    assert err.value.offset == 0
    folder = tmp_path / "empty_folder"
    folder.mkdir()
    with pytest.raises(ReadError, match="not a rosbag2 folder"):
        read(folder, format="rosbag")


def test_bag_error_missing_topic_lists_the_bag_topics(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "b", [("/arm/joint_states", JS, BASE, joint_state(BASE, ["a"], [1.0]))])
    with pytest.raises(ReadError, match="no such topic '/head/joint_states'") as err:
        read(bag, topics=["/head/joint_states"])
    assert "/arm/joint_states (sensor_msgs/msg/JointState)" in str(err.value)


def test_bag_error_topic_of_the_wrong_type(tmp_path: Path) -> None:
    bag = write_bag(
        tmp_path / "b",
        [
            ("/joint_states", JS, BASE, joint_state(BASE, ["a"], [1.0])),
            ("/tf", TF, BASE, tf_message(transform(BASE, "world", "base_link", [0, 0, 0]))),
        ],
    )
    with pytest.raises(ReadError, match="topic '/tf' is tf2_msgs/msg/TFMessage, not sensor_msgs/msg/JointState"):
        read(bag, topics=["/tf"])


def test_bag_error_length_mismatch_skipped_with_count(tmp_path: Path) -> None:
    msgs = [("/joint_states", JS, BASE + k, joint_state(BASE + k, ["a", "b"], [k, k])) for k in range(5)]
    msgs[1] = ("/joint_states", JS, BASE + 1, joint_state(BASE + 1, ["a", "b"], [1.0]))
    msgs[3] = ("/joint_states", JS, BASE + 3, joint_state(BASE + 3, ["a", "b"], [3.0, 3.0], velocity=[1, 2, 3]))
    bag = write_bag(tmp_path / "b", msgs)
    with pytest.warns(UserWarning, match="skipped 2 JointState messages whose name and position"):
        m = read(bag).motion
    assert m.num_frames == 3
    assert np.array_equal(m.position[:, 0], [0, 2, 4])  # type: ignore[index]


def test_bag_error_time_going_backwards_is_sorted_and_warned(tmp_path: Path) -> None:
    stamps = [0, 2, 1, 3]  # header stamps out of order, received in order
    msgs = [
        ("/joint_states", JS, BASE + k * 10, joint_state(BASE + s * 1_000_000, ["a"], [float(s)]))
        for k, s in enumerate(stamps)
    ]
    bag = write_bag(tmp_path / "b", msgs)
    with pytest.warns(UserWarning, match="time goes backwards 1 times; samples sorted"):
        m = read(bag).motion
    assert np.allclose(m.times, [0, 0.001, 0.002, 0.003])
    assert np.array_equal(m.position[:, 0], [0, 1, 2, 3])  # type: ignore[index]


def test_bag_error_root_frames_not_connected(tmp_path: Path) -> None:
    bag = write_bag(
        tmp_path / "b",
        [
            ("/joint_states", JS, BASE, joint_state(BASE, ["a"], [1.0])),
            ("/tf", TF, BASE, tf_message(transform(BASE, "world", "base_link", [0, 0, 0]))),
        ],
    )
    with pytest.raises(ReadError, match="no TF path from 'world' to 'tool'; frames in the bag: base_link, world"):
        read(bag, root="world:tool")


def test_bag_error_joint_names_not_utf8_are_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "names"
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for i in range(20):
            raw = bytes(TS.serialize_cdr(joint_state(i * 10_000_000, ["aX", "b"], [i, 2 * i]), JS))
            if i >= 10:  # a byte that is no UTF-8 in the first joint's name
                raw = raw.replace(b"aX\x00", b"a\xff\x00")
            writer.write(conn, i * 10_000_000, raw)
    expected = "skipped 10 JointState messages whose joint names or frame_id are not valid UTF-8"
    with pytest.warns(UserWarning, match=expected):
        motion = read(path).groups["actual"]
    assert motion.num_frames == 10


def test_bag_metadata_with_an_integer_longer_than_python_converts_is_read_around(tmp_path: Path) -> None:
    # The storage file holds the messages; metadata.yaml only says what a closed recording had.
    msgs = [("/joint_states", JS, BASE + k, joint_state(BASE + k, ["a"], [float(k)])) for k in range(3)]
    bag = write_bag(tmp_path / "bag", msgs)
    meta = bag / "metadata.yaml"
    meta.write_text(meta.read_text().replace("message_count: 3", "message_count: " + "9" * 5000, 1))
    with pytest.warns(UserWarning, match=r"metadata\.yaml is not usable: an integer of 5,000 digits .* \(line \d+\)"):
        motion = read(bag).motion
    assert motion.num_frames == 3
