"""A recorded orientation that is no rotation (all zero, or infinite) is left out, never written."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read, write
from motion_formats_ros.core.errors import WriteError
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.core.notices import MotionFormatWarning
from motion_formats_ros.recording.journal import JournalWriter
from motion_formats_ros.recording.recovery import recover

EXE = Path(sys.executable).parent / "motion-formats"
T0 = 1_700_000_000_000_000_000
UNIT = [0.0, 0.0, 0.0, 1.0]
ZERO = [0.0, 0.0, 0.0, 0.0]
INF = [0.0, 0.0, 0.0, math.inf]


def tf_journal(path: Path, quats: list[list[float]]) -> Path:
    """Five frames of two joints and the root's TF edge, one orientation per frame."""
    meta = {"world_frame": "world", "root_frame": "base_link", "name": "x", "topics": ["joint_states"]}
    journal = JournalWriter(path, meta)
    for k, q in enumerate(quats):
        stamp = T0 + k * 10_000_000
        journal.joints("joint_states", ["a", "b"], stamp, stamp, position=[0.1 * k, 0.2])
        journal.tf("world", "base_link", stamp, stamp, [0.1 * k, 0.0, 0.3], q)
    journal.close()
    return path


CASES = {
    "all-zero": ([ZERO] * 5, "5 orientation sample(s)", "t = 0 s"),
    "infinite": ([INF] * 5, "5 orientation sample(s)", "t = 0 s"),
    "zero-at-frame-2": ([UNIT, UNIT, ZERO, UNIT, UNIT], "1 orientation sample(s)", "t = 0.02 s"),
}


@pytest.mark.parametrize("case", CASES)
def test_recover_leaves_out_orientations_that_are_no_rotation(tmp_path: Path, case: str) -> None:
    quats, count, first = CASES[case]
    journal = tf_journal(tmp_path / "q.journal", quats)
    with pytest.warns(MotionFormatWarning) as caught:
        out, _, _ = recover(journal, tmp_path / "q.msgpack")
    [message] = [str(w.message) for w in caught if "no rotation" in str(w.message)]
    assert message.startswith(f"{journal}: {count} that are no rotation")
    assert f"the first at {first}" in message
    motion = read(out).motion
    assert motion.num_frames == 5
    q = motion.root_orientation
    assert q is not None
    expect = np.array([row if np.isfinite(row).all() and any(row) else [np.nan] * 4 for row in quats])
    np.testing.assert_array_equal(q, expect)
    np.testing.assert_allclose(motion.root_position[:, 0], [0.0, 0.1, 0.2, 0.3, 0.4])  # type: ignore[index]


@pytest.mark.parametrize("suffix", [".csv", ".seq", ".omf.yaml", ".mcap"])
def test_every_output_format_of_such_a_recording_reads_back(tmp_path: Path, suffix: str) -> None:
    journal = tf_journal(tmp_path / "q.journal", [UNIT, UNIT, ZERO, UNIT, UNIT])
    with pytest.warns(MotionFormatWarning, match="no rotation"):
        out, _, _ = recover(journal, tmp_path / f"q{suffix}")
    motion = read(out).motion
    assert motion.num_frames == 5
    assert motion.root_orientation is not None


def test_a_bag_of_a_recording_without_one_valid_orientation_names_no_root_it_lacks(tmp_path: Path) -> None:
    """Its root pose is written with the position alone: the bag reads back without an orientation."""
    journal = tf_journal(tmp_path / "q.journal", [ZERO] * 5)
    with pytest.warns(MotionFormatWarning) as caught:
        out, _, _ = recover(journal, tmp_path / "q.mcap")
    assert any("the root orientation (no frame has a finite value)" in str(w.message) for w in caught)
    motion = read(out).motion
    assert motion.num_frames == 5
    assert motion.root_orientation is None
    np.testing.assert_allclose(motion.root_position[:, 0], [0.0, 0.1, 0.2, 0.3, 0.4])  # type: ignore[index]


def test_the_command_warns_once_and_writes_a_readable_file(tmp_path: Path) -> None:
    journal = tf_journal(tmp_path / "q.journal", [UNIT, UNIT, ZERO, UNIT, UNIT])
    proc = subprocess.run(
        [str(EXE), "recover", str(journal), "q.msgpack"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stderr.splitlines() if "no rotation" in line] == [
        f"warning: {journal}: 1 orientation sample(s) that are no rotation (all zero or infinite), the first at "
        f"t = 0.02 s (stamp {T0 + 20_000_000} ns): left out, the orientation before them holds"
    ]
    assert read(tmp_path / "q.msgpack").motion.num_frames == 5


@pytest.mark.parametrize(("row", "what"), [(ZERO, "all zero"), (INF, "infinite")])
@pytest.mark.parametrize("suffix", [".msgpack", ".csv", ".seq"])
def test_write_refuses_a_root_orientation_its_reader_would_refuse(
    tmp_path: Path, suffix: str, row: list[float], what: str
) -> None:
    times = np.arange(4) * 0.5
    q = np.tile(UNIT, (4, 1))
    q[2] = row
    motion = Motion(times=times, joint_names=("a",), position=np.zeros((4, 1)), root_orientation=q)
    out = tmp_path / f"m{suffix}"
    with pytest.raises(WriteError) as raised:
        write(MotionFile(groups={"walk": motion}), out)
    assert str(raised.value) == (
        f"{out}: root orientation: at frame 2 (t = 1 s), [{', '.join(repr(float(x)) for x in row)}] (x, y, z, w): "
        f"{what}, no rotation"
    )
    assert "\n" not in str(raised.value)
    assert not out.exists()


def test_a_journal_of_root_poses_without_tf_drops_them_too(tmp_path: Path) -> None:
    journal = JournalWriter(tmp_path / "p.journal", {"name": "x"})
    for k, q in enumerate([UNIT, INF, UNIT]):
        stamp = T0 + k * 10_000_000
        journal.joints("joint_states", ["a"], stamp, stamp, position=[0.1 * k])
        journal.pose("root", stamp, stamp, [0.0, 0.0, 0.3], q)
    journal.close()
    with pytest.warns(MotionFormatWarning, match=r"p\.journal: 1 orientation sample\(s\) that are no rotation"):
        out, _, _ = recover(tmp_path / "p.journal", tmp_path / "p.msgpack")
    q = read(out).motion.root_orientation
    assert q is not None
    np.testing.assert_array_equal(np.isnan(q).all(axis=1), [False, True, False])
