"""What the recorder stored is never silently reshaped: a joint a publisher stops sending
(renamed mid-run) is held with a ``keep`` mask and a warning naming it and the frame;
samples stamped before earlier ones are put in order with a warning."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from motion_formats_ros.recording.assembly import assemble
from motion_formats_ros.recording.journal import JournalWriter, read_journal

BASE = 1_000_000_000


def _assembled(path: Path) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        motion_file = assemble(read_journal(path))
    return motion_file, [str(w.message) for w in caught]


def test_a_joint_renamed_mid_run_is_held_with_a_mask_and_named(tmp_path: Path) -> None:
    journal = JournalWriter(tmp_path / "run.journal", {"output": str(tmp_path / "out.msgpack"), "topics": ["/js"]})
    for k in range(10):  # a, b; then the publisher calls b "b2"
        names = ["a", "b"] if k < 6 else ["a", "b2"]
        stamp = BASE + k * 10_000_000
        journal.joints("/js", names, stamp, stamp, [k, 10 + k], None, None)
    journal.close(clean=True)
    motion_file, messages = _assembled(tmp_path / "run.journal")
    m = motion_file.groups["actual"]  # type: ignore[attr-defined]
    assert m.joint_names == ("a", "b", "b2")
    keep = m.joint_masks["keep"]
    assert keep[:, 1].tolist() == [False] * 6 + [True] * 4  # b held from frame 6 on
    assert not keep[:, 0].any() and not keep[:, 2].any()
    np.testing.assert_array_equal(m.position[6:, 1], 15.0)  # its last value
    assert any("/js: joint 'b' is missing from frame 6 (t = 0.06 s) on, in 4 message(s)" in s for s in messages), (
        messages
    )


def test_samples_stamped_out_of_order_are_reported(tmp_path: Path) -> None:
    journal = JournalWriter(tmp_path / "run.journal", {"output": str(tmp_path / "out.msgpack"), "topics": ["/js"]})
    for k in (0, 1, 2, 5, 3, 4, 6):
        stamp = BASE + k * 10_000_000
        journal.joints("/js", ["a"], stamp, BASE + len(str(k)), [k], None, None)
    journal.close(clean=True)
    motion_file, messages = _assembled(tmp_path / "run.journal")
    m = motion_file.groups["actual"]  # type: ignore[attr-defined]
    np.testing.assert_array_equal(m.position[:, 0], np.arange(7))
    assert any("/js: 2 of 7 samples are stamped before an earlier one" in s for s in messages), messages


def _interleaved(path: Path, gripper_stamps: list[int], velocity: bool = False) -> list[str]:
    """One topic carrying an arm driver's messages (every 10 ms) and a gripper's (``gripper_stamps``,
    in the order received), interleaved; with ``velocity`` every other arm message carries
    velocities. The warnings of its assembly."""
    journal = JournalWriter(path, {"output": str(path.with_suffix(".msgpack")), "topics": ["joint_states"]})
    for k, gripper in enumerate(gripper_stamps):
        stamp = BASE + k * 10_000_000
        journal.joints("joint_states", ["arm"], stamp, stamp, [k], [0.5] if velocity and k % 2 else None, None)
        journal.joints("joint_states", ["gripper"], gripper, stamp + 5_000_000, [k], None, None)
    journal.close(clean=True)
    return _assembled(path)[1]


def test_messages_of_other_joint_sets_on_one_topic_in_time_order_are_not_reported(tmp_path: Path) -> None:
    """Two publishers on one topic (joint sets), or messages with and without velocities:
    every stamp follows the one received before, whatever block it is read into."""
    stamps = [BASE + k * 10_000_000 + 5_000_000 for k in range(10)]
    for velocity in (False, True):
        messages = _interleaved(tmp_path / f"v{velocity}.journal", stamps, velocity)
        assert not [s for s in messages if "stamped before an earlier one" in s], messages


def test_messages_of_other_joint_sets_stamped_before_earlier_ones_are_reported(tmp_path: Path) -> None:
    """The gripper's message received after the arm's at 50 ms is stamped 25 ms: before it."""
    stamps = [BASE + k * 10_000_000 + 5_000_000 for k in range(10)]
    stamps[5] = BASE + 25_000_000
    messages = _interleaved(tmp_path / "late.journal", stamps)
    expected = "joint_states: 1 of 20 samples are stamped before an earlier one (the first: message 11, t = 0.025 s)"
    assert any(expected in s for s in messages), messages


def test_samples_closer_than_seconds_tell_apart_keep_the_later_one(tmp_path: Path) -> None:
    journal = JournalWriter(tmp_path / "run.journal", {"output": str(tmp_path / "out.msgpack"), "topics": ["/js"]})
    for k, stamp in enumerate((0, 2**62, 1, 2**62 - 1, 5)):  # decades apart, then 1 ns apart
        journal.joints("/js", ["a"], stamp, stamp, [k], None, None)
    journal.close(clean=True)
    motion_file, messages = _assembled(tmp_path / "run.journal")
    m = motion_file.groups["actual"]  # type: ignore[attr-defined]
    assert np.all(np.diff(m.times) > 0)
    np.testing.assert_array_equal(m.position[:, 0], [0, 2, 4, 1])  # 2**62 - 1 (sample 3) gives way to 2**62
    assert any("1 of 5 joint samples are stamped too close to the next one" in s for s in messages), messages
