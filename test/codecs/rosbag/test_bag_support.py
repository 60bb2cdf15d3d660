"""The bag helpers of support.bags write bags rosbags reads."""

from __future__ import annotations

from pathlib import Path

from support.bags import JS, joint_state, write_bag


def test_support_writes_a_bag_rosbags_reads(tmp_path: Path) -> None:
    from rosbags.highlevel import AnyReader

    bag = write_bag(tmp_path / "b", [("/joint_states", JS, 5, joint_state(5, ["a"], [1.0]))])
    with AnyReader([bag]) as reader:
        assert [c.topic for c in reader.connections] == ["/joint_states"]
        assert reader.message_count == 1
