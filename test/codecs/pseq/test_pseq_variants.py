"""Choreonoid PoseSeq variants: exponent numbers, no poses, two poses at one time.

PyYAML follows YAML 1.1, where ``1e-06`` (no dot) or ``1.5e3`` (no exponent sign) is a
string; Choreonoid's reader takes them as numbers, and so must we.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import ReadError, read

EXPONENTS = """\
type: PoseSeq
name: "exp"
targetBody: "X"
refs:
  - time: 0
    refer:
      type: Pose
      name: ""
      joints: [ 0, 1 ]
      q: [ 1e-06, -2.5E+01 ]
      ikLinks:
        - name: WAIST
          index: 0
          isBaseLink: true
          translation: [ 1e-3, 0, 7.5e-1 ]
          rotation: [ 1e0, 0, 0, 0, 1E0, 0, 0, 0, 1e+00 ]
      zmp: [ 2.5e-2, 0, 0 ]
  - time: 5e-1
    maxTransitionTime: 1e-1
    refer:
      type: Pose
      joints: [ 0, 1 ]
      q: [ 1.5e3, 3 ]
"""


def write(folder: Path, text: str, name: str = "motion.pseq") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_numbers_in_exponent_form_anywhere(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = read(write(tmp_path, EXPONENTS), joint_names=["a", "b"]).motion  # named: no notice about names
    np.testing.assert_allclose(m.times, [0.0, 0.5])
    assert m.position is not None
    np.testing.assert_allclose(m.position, [[1e-6, -25.0], [1500.0, 3.0]])
    assert m.root_position is not None
    np.testing.assert_allclose(m.root_position[0], [1e-3, 0.0, 0.75])
    np.testing.assert_allclose(m.series["zmp"].values[0], [0.025, 0.0, 0.0])


@pytest.mark.parametrize(
    "text",
    [
        "type: PoseSeq\nname: empty\nrefs: []\n",
        "type: PoseSeq\nname: empty\n",
        "type: PoseSeq\nname: empty\nrefs:\n",
        "type: PoseSeq\nrefs:\n  - time: 0\n    refer: {type: Pose, joints: [], q: []}\n",
    ],
    ids=["empty list", "no refs", "null refs", "poses that set nothing"],
)
def test_no_poses_is_an_error_not_an_empty_motion(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ReadError) as info:
        read(path)
    assert str(info.value).startswith(f"{path}: no poses")


SAME_TIME = """\
type: PoseSeq
refs:
  - time: 0
    refer: {type: Pose, joints: [0, 1], q: [0, 0]}
  - time: 1.0
    refer: {type: Pose, joints: [0, 1], q: [0.3, 0.5]}
  - time: 1.0
    refer: {type: Pose, joints: [1], q: [0.9]}
  - time: 2.0
    refer: {type: Pose, joints: [0, 1], q: [1.0, 1.0]}
"""


def test_two_poses_at_the_same_time_keep_the_later_with_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path, SAME_TIME)
    with pytest.warns(UserWarning, match=r"two key poses at time 1 \(line 5 and line 7\).*later one \(line 7\)"):
        m = read(path).motion
    np.testing.assert_allclose(m.times, [0.0, 1.0, 2.0])
    assert m.position is not None
    # The later pose replaces the earlier one: joint 1 is 0.9; joint 0, which the later
    # pose does not set, is interpolated between its neighbours (not the earlier 0.3).
    assert m.position[1, 1] == pytest.approx(0.9)
    assert m.position[1, 0] == pytest.approx(0.5 * (0.0 + 1.0))
    assert m.joint_masks["unset"][1, 0] and not m.joint_masks["unset"][1, 1]


def test_same_time_warning_names_lines_in_block_style_too(tmp_path: Path) -> None:
    text = SAME_TIME.replace("  - time: 1.0\n    refer: {type: Pose, joints: [1], q: [0.9]}\n", "")
    text = text.replace(
        "  - time: 2.0\n",
        "  - time: 1.0\n    refer:\n      type: Pose\n      joints: [0]\n      q: [0.7]\n  - time: 2.0\n",
    )
    with pytest.warns(UserWarning, match="two key poses") as caught:
        m = read(write(tmp_path, text)).motion
    caught = [w for w in caught if "does not name its" not in str(w.message)]  # the notice about joint names
    assert len(caught) == 1
    assert re.search(r"\(line 5 and line 7\)", str(caught[0].message))
    assert m.position is not None
    assert m.position[1, 0] == pytest.approx(0.7)
