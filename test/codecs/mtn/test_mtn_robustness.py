"""Sony AIBO ``.mtn``: repeated locators, name clashes, and ``motion-formats info`` on the seed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.mtn_seed import write_seed
from test_mtn_errors import SECTION2, patched, read_error

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs.mtn import MtnRecord

#: The first two locators of the seed: ``PRM:/r1/c1-Joint2:j1`` (length 20 at byte
#: SECTION2 + 10) and ``PRM:/r1/c1/c2-Joint2:j2`` (length 23 right after it).
FIRST_LOCATOR = SECTION2 + 10
SECOND_LOCATOR = FIRST_LOCATOR + 1 + 20


def test_repeated_locator_is_a_read_error_at_its_offset(tmp_path: Path) -> None:
    # The second locator's 24 bytes become the first locator (1 + 20 bytes) and a 2-character
    # string (1 + 2 bytes) that the third joint then reads: every size stays valid.
    first = b"PRM:/r1/c1-Joint2:j1"
    err = read_error(patched(tmp_path, {SECOND_LOCATOR: bytes([20]) + first + bytes([2]) + b"xy"}))
    assert err.offset == SECOND_LOCATOR
    assert "joint 1 repeats the PRM locator 'PRM:/r1/c1-Joint2:j1' of joint 0" in err.reason


def test_locator_equal_to_another_joints_mapped_name(tmp_path: Path) -> None:
    # A locator the maps do not know is kept as the name; when that string is also the
    # mapped name of another joint, the names stay unique and the bytes round trip.
    m = Motion(
        times=np.array([0.0, 0.16]),
        joint_names=("head_tilt", "other"),
        position=np.array([[0.1, 0.2], [0.3, 0.4]]),
        interpolation=("linear",),
    )
    mf = MotionFile.single(m, name="clash")
    mf.motion.joint_sources = {"head_tilt": "PRM:/r1/c1-Joint2:j1", "other": "head_tilt"}
    mf.records[MtnRecord.codec] = MtnRecord(locators=["PRM:/r1/c1-Joint2:j1", "head_tilt"])
    out = tmp_path / "clash.mtn"
    write(mf, out)
    back = read(out)
    assert back.record(MtnRecord).locators == ["PRM:/r1/c1-Joint2:j1", "head_tilt"]
    assert len(set(back.motion.joint_names)) == 2
    again = tmp_path / "again.mtn"
    write(back, again)
    assert again.read_bytes() == out.read_bytes()


def test_info_shows_keyframes_and_locator_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_seed(tmp_path)
    assert main(["info", str(src)]) == 0
    out = capsys.readouterr().out
    assert "name:     a_stand#sit_S" in out
    assert "6 frames, 4.88 s" in out
    assert "keyframes: 6 (segments: linear 5)" in out
    assert "loop" not in out  # an .mtn plays once
    assert "joints (20, joint map aibo_ers210)" in out
    assert "head_tilt (PRM:/r1/c1-Joint2:j1)" in out
    assert "tail_tilt (PRM:/r6/c2-Joint2:j2)" in out
    assert main(["info", str(src), "--json"]) == 0
    group = json.loads(capsys.readouterr().out)["groups"]["target"]
    assert group["keyframes"] == 6 and group["loop"] is None
    assert group["joints"][3] == {"name": "mouth", "dims": 1, "source": "PRM:/r1/c1/c2/c3/c4-Joint2:j4"}
