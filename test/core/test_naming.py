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


def test_an_empty_joint_name_is_refused_by_its_position_in_either_form(tmp_path: Path) -> None:
    from motion_formats_ros.core.errors import OutOfRangeError
    from motion_formats_ros.core.naming import NamingOptions, resolve_names

    with pytest.raises(OutOfRangeError, match=r"^joint names 'a,b,': name 3 of 3 is empty; every joint needs a name$"):
        resolve_names(tmp_path / "m.seq", NamingOptions(joint_names="a,b,"))
    with pytest.raises(OutOfRangeError, match=r"^joint names 'a, ,c': name 2 of 3 is empty"):
        resolve_names(tmp_path / "m.seq", NamingOptions(joint_names=["a", " ", "c"]))
    assert resolve_names(tmp_path / "m.seq", NamingOptions(joint_names=" a , b ")).joints == ["a", "b"]
    with pytest.raises(OutOfRangeError, match=r"^joint names ' ': name 1 of 1 is empty; every joint needs a name$"):
        resolve_names(tmp_path / "m.seq", NamingOptions(joint_names=" "))  # blank: a name given empty, not none


def test_names_given_beside_a_body_say_what_was_not_used(tmp_path: Path) -> None:
    from motion_formats_ros.core.naming import NamingOptions, resolve_names
    from motion_formats_ros.core.notices import NoticeKind, collect

    body = tmp_path / "b.body"
    body.write_text(biped_body())
    own = load_body(body).joints
    assert own is not None
    with collect(warn=False) as report:
        names = resolve_names(
            tmp_path / "m.seq", NamingOptions(joint_names=[f"j{i}" for i in range(len(own))], body=body)
        )
        resolve_names(tmp_path / "m.seq", NamingOptions(joint_names=own, body=body))  # the same names: nothing to say
    assert names.joints == [f"j{i}" for i in range(len(own))] and names.robot  # the body still gives the robot
    assert [(n.kind, n.message) for n in report.notices] == [
        (
            NoticeKind.INCONSISTENT,
            f"the joints are named by joint_names=; not used: the body file {body}'s joint names, which differ "
            "(it gives the robot and its links only)",
        )
    ]
    with collect(warn=False) as report:
        resolve_names(tmp_path / "m.seq", NamingOptions(joint_names="a", joint_map=["b"]))
    assert [n.message for n in report.notices] == ["the joints are named by joint_names=; not used: joint_map="]
