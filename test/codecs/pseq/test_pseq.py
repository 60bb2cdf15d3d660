"""Choreonoid PoseSeq (.pseq): the corpus files, per-joint key poses, and bad input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import ReadError, UnknownFormatError, read, write
from motion_formats_ros.codecs.pseq import PseqMotionRecord

PSEQ = """\
# Body pose sequence format version 1.0 defined by cnoid-Robotics
type: PoseSeq
name: "wave"
targetBody: "arm"
refs:
  - time: 0
    refer:
      type: Pose
      joints: [ 0, 1, 2 ]
      q: [ 0, 0, 0 ]
      ikLinks:
        - name: BASE
          index: 0
          isBaseLink: true
          translation: [ 0, 0, 1 ]
          rotation: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]
      zmp: [ 0.1, 0, 0 ]
  - time: 1
    maxTransitionTime: 0.5
    refer:
      type: Pose
      joints: [ 1 ]
      q: [ 1.0 ]
  - time: 3
    refer:
      type: Pose
      joints: [ 0, 1 ]
      q: [ 3.0, 0.5 ]
      ikLinks:
        - name: BASE
          index: 0
          isBaseLink: true
          translation: [ 2, 0, 1 ]
          rotation: [ 0, -1, 0, 1, 0, 0, 0, 0, 1 ]
"""


def test_joints_move_between_the_poses_that_set_them(tmp_path: Path) -> None:
    (tmp_path / "wave.pseq").write_text(PSEQ)
    f = read(tmp_path / "wave.pseq", joint_names=["shoulder", "elbow", "wrist"])
    m = f.motion
    assert (f.format, f.name, f.robot) == ("pseq", "wave", "arm")
    assert m.joint_names == ("shoulder", "elbow", "wrist") and m.is_keyframed
    np.testing.assert_array_equal(m.times, [0, 1, 3])
    assert m.position is not None
    np.testing.assert_allclose(m.position[:, 0], [0.0, 1.0, 3.0])  # not set at t=1: linear 0 → 3
    np.testing.assert_allclose(m.position[:, 1], [0.0, 1.0, 0.5])
    np.testing.assert_allclose(m.position[:, 2], [0.0, 0.0, 0.0])  # held after its only pose
    assert m.joint_masks["unset"].tolist() == [[False, False, False], [True, False, True], [False, False, True]]
    assert m.root_position is not None and m.root_orientation is not None
    np.testing.assert_allclose(m.root_position[:, 0], [0.0, 2 / 3, 2.0])
    np.testing.assert_allclose(m.root_orientation[-1], [0, 0, np.sqrt(0.5), np.sqrt(0.5)], atol=1e-12)
    assert m.series["zmp"].values[0, 0] == 0.1
    assert m.record(PseqMotionRecord).pose_extras[1] == {"maxTransitionTime": 0.5}


def test_corpus_pose_sequences_with_their_bodies(corpus: Path) -> None:
    root = corpus / "choreonoid"
    for robot, name, body in (
        ("GR001", "SampleMotion1", "GR001"),
        ("HRP4C", "exercise", "HRP4C"),
        ("SR1", "SR1WalkPattern2", "SR1"),
    ):
        f = read(root / "pseq" / robot / f"{name}.pseq", body=root / "model" / f"{body}.body")
        m = f.motion
        assert m.num_frames > 5 and m.is_keyframed, robot
        assert not m.joint_names[0].startswith("joint_"), robot  # named by the body file
        assert m.position is not None, robot
        never_set = m.joint_masks["unset"].all(axis=0)  # joints no pose names stay unknown (NaN)
        assert np.isfinite(m.position[:, ~never_set]).all() and np.isnan(m.position[:, never_set]).all(), robot
    walk = read(root / "pseq" / "SR1" / "SR1WalkPattern2.pseq", body=root / "model" / "SR1.body").motion
    seq = read(root / "v2" / "SR1WalkPattern2.seq", body=root / "model" / "SR1.body").motion
    assert walk.joint_names == seq.joint_names  # the same robot, the same names


def test_convert_to_seq_and_not_back(tmp_path: Path) -> None:
    (tmp_path / "wave.pseq").write_text(PSEQ)
    f = read(tmp_path / "wave.pseq")
    with pytest.warns(UserWarning, match="dropped: joint masks 'unset'"):
        write(f.map(lambda m: m.resample(10.0)), tmp_path / "wave.seq")
    assert read(tmp_path / "wave.seq").motion.num_frames == 31
    with pytest.raises(UnknownFormatError, match="cannot be written"):
        write(f, tmp_path / "again.pseq")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- 1\n- 2\n", r"not a PoseSeq: the top level is a list"),
        ("type: BodyMotion\nrefs: []\n", r"type: not a PoseSeq \(type is 'BodyMotion'\)"),
        ("type: PoseSeq\nrefs: 5\n", r"refs: expected a list of poses"),
        ("type: PoseSeq\nrefs: []\n", r"bad\.pseq: no poses\Z"),
        (
            "type: PoseSeq\nrefs:\n  - time: x\n    refer: {joints: [0], q: [1]}\n",
            r"refs\[0\]\.time: expected a finite",
        ),
        (
            "type: PoseSeq\nrefs:\n  - time: 0\n    refer: {joints: [0, 1], q: [1]}\n",
            r"refs\[0\]\.refer\.joints: joints and q differ in length",
        ),
        (
            "type: PoseSeq\nrefs:\n  - time: 0\n    refer: {joints: [-1], q: [1]}\n",
            r"refs\[0\]\.refer\.joints\[0\]: expected a joint ID",
        ),
        (
            "type: PoseSeq\nrefs:\n  - time: 2\n    refer: {joints: [0], q: [1]}\n"
            "  - time: 1\n    refer: {joints: [0], q: [2]}\n",
            r"refs\[1\]\.time: pose time 1.0 is before",
        ),
        (
            "type: PoseSeq\nrefs:\n  - time: 0\n    refer: {joints: [0], q: [1], ikLinks: [{isBaseLink: true, "
            "translation: [0, 0, 0], rotation: [2, 0, 0, 0, 1, 0, 0, 0, 1]}]}\n",
            r"refs\[0\]\.refer\.ikLinks\[0\]\.rotation: rotation is not orthonormal",
        ),
        ("type: PoseSeq\nrefs: [\n", r"bad\.pseq:\d+: invalid YAML"),
    ],
)
def test_bad_pose_sequences(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "bad.pseq").write_text(text)
    with pytest.raises(ReadError, match=message):
        read(tmp_path / "bad.pseq")


def test_joint_id_beyond_the_body(tmp_path: Path) -> None:
    (tmp_path / "x.pseq").write_text("type: PoseSeq\nrefs:\n  - time: 0\n    refer: {joints: [5], q: [1]}\n")
    with pytest.raises(ReadError, match="sets joint ID 5, but joint_names names 2 joints"):
        read(tmp_path / "x.pseq", joint_names=["a", "b"])


@pytest.mark.parametrize(
    ("time", "message"),
    [
        ("0x" + "F" * 300, r"refs\[0\]\.time: expected a finite number, got an integer of about 362 digits"),
        ("9" * 5000, r":6: an integer of 5,000 digits \(at most 4,300 are read\) in the pose sequence"),
    ],
)
def test_a_time_beyond_the_float_range_is_a_read_error_in_short(tmp_path: Path, time: str, message: str) -> None:
    path = tmp_path / "huge.pseq"
    path.write_text(PSEQ.replace("  - time: 0\n", f"  - time: {time}\n"))
    with pytest.raises(ReadError, match=message) as caught:
        read(path)
    assert len(str(caught.value)) < 200
