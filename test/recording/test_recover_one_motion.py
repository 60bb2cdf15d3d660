"""A recording written to a format of one motion (a ``.seq``) keeps what the robot did.

The measured ``actual`` group is written, a warning names the commanded ``target`` group
left out, and the lines saying what was written list only that, without a group name the
file cannot hold (any ``.seq`` reads back as ``target``).
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read
from motion_formats_ros.core.model import DEFAULT_GROUP, Motion, MotionFile
from motion_formats_ros.recording.journal import JournalWriter
from motion_formats_ros.recording.recovery import recover
from motion_formats_ros.registry import CODECS, CodecInfo, write

EXE = Path(sys.executable).parent / "motion-formats"
T0 = 1_700_000_000_000_000_000
NAMES = ["a", "b", "c"]


def _recording(path: Path, commanded: bool = True) -> np.ndarray:
    """Ten joint states of three joints and, with ``commanded``, three trajectories of joint a."""
    j = JournalWriter(path, {"format": "seq", "name": "run"}, flush_interval=0)
    positions = np.arange(30, dtype=float).reshape(10, 3) / 10
    for k in range(10):
        t = T0 + k * 10_000_000
        j.joints("joint_states", NAMES, t, t, positions[k])
        if commanded and k % 4 == 0:
            j.trajectory(["a"], t, t, [0], [[0.1 * k]])
    j.close()
    return positions


def _recover(journal: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), "recover", str(journal), str(out)], capture_output=True, text=True)


def test_a_recording_with_a_target_keeps_the_measured_motion_in_a_seq(tmp_path: Path) -> None:
    positions = _recording(tmp_path / "run.journal")
    with pytest.warns(
        UserWarning, match=r"measured 'actual' group is written, the commanded group 'target' \(3 frames"
    ):
        _, written, _ = recover(tmp_path / "run.journal", tmp_path / "run.seq")
    assert list(written.groups) == ["actual"]
    back = read(tmp_path / "run.seq", joint_names=NAMES)
    assert list(back.groups) == [DEFAULT_GROUP]  # the name every .seq reads as
    np.testing.assert_allclose(back.motion.position, positions, rtol=1e-8)


def test_the_command_line_lists_only_what_it_wrote(tmp_path: Path) -> None:
    _recording(tmp_path / "run.journal")
    out = tmp_path / "run.seq"
    proc = subprocess.run(
        [str(EXE), "recover", str(tmp_path / "run.journal"), str(out)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1:] == [f"wrote {out}: 10 frames, 0.090 s, 3 joints (the measured motion)"]
    assert "the commanded group 'target' (3 frames) is not" in proc.stderr
    proc = _recover(tmp_path / "run.journal", tmp_path / "run.msgpack")
    assert proc.stdout.splitlines()[1:] == [
        f"wrote {tmp_path / 'run.msgpack'}: actual: 10 frames, 0.090 s, 3 joints",
        f"wrote {tmp_path / 'run.msgpack'}: target: 3 frames, 0.080 s, 1 joints",
    ]
    assert "commanded" not in proc.stderr  # OMF holds both


def test_a_measured_only_recording_to_a_seq_claims_no_group_name(tmp_path: Path) -> None:
    _recording(tmp_path / "run.journal", commanded=False)
    out = tmp_path / "run.seq"
    proc = subprocess.run(
        [str(EXE), "recover", str(tmp_path / "run.journal"), str(out)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == [f"wrote {out}: 10 frames, 0.090 s, 3 joints (the measured motion)"]
    assert "commanded" not in proc.stderr


@pytest.mark.parametrize("info", [c for c in CODECS.values() if c.writable and not c.per_group], ids=lambda c: c.name)
def test_one_motion_is_what_each_writer_does(tmp_path: Path, info: CodecInfo) -> None:
    """A codec says it holds one motion exactly when a file of two groups reads back as one, named ``target``."""
    times = np.arange(5) / 10
    joints = ("HeadYaw", "HeadPitch")  # names every writer takes (a .mof's are NAO joints)
    groups = {
        "actual": Motion(times=times, joint_names=joints, position=np.zeros((5, 2))),
        "target": Motion(times=times[:3], joint_names=joints[:1], position=np.ones((3, 1))),
    }
    out = tmp_path / f"two{info.suffixes[0]}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what each format cannot hold
        write(MotionFile(groups=groups), out)
    back = read(out)
    assert list(back.groups) == ([DEFAULT_GROUP] if info.one_motion else ["actual", "target"])
