"""Joint names from a robot's ``.body`` (by joint ID)."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.examples import biped_body
from motion_formats_ros.core.naming import MAX_JOINT_ID, load_body


def test_a_body_joint_id_far_beyond_its_joints_is_refused_before_any_column_is_made(tmp_path: Path) -> None:
    """Every ID up to the largest is a joint: one huge ID in a small file would make millions of columns."""
    body = tmp_path / "b.body"
    body.write_text(biped_body().replace("joint_id: 0\n", "joint_id: 100000000\n", 1))
    with pytest.raises(ReadError, match=r"link '\w+': jointId 100000000 is beyond 9999"):
        load_body(body)
    body.write_text(biped_body().replace("joint_id: 0\n", f"joint_id: {MAX_JOINT_ID}\n", 1))
    assert len(load_body(body).joints) == MAX_JOINT_ID + 1  # sparse IDs up to the bound still read
