"""A URDF's ``<origin>`` rotations are turned into quaternions together, in one call per file:
each the very quaternion its rpy gives alone, and a bad one still reported on its own line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.kinematics.urdf import read_urdf
from motion_formats_ros.core.spatial import rpy_to_quat

#: Angles as a URDF gives them: zeros, right angles written out, anything in a few turns.
angles = st.one_of(
    st.just(0.0),
    st.sampled_from([1.5707963267948966, -1.5707963267948966, 3.141592653589793, 0.7853981633974483]),
    st.floats(-20.0, 20.0, allow_nan=False),
)
rpys = st.tuples(angles, angles, angles)


def urdf(joints: list[tuple[float, float, float]], collisions: list[tuple[float, float, float]]) -> str:
    """A chain of links, one joint and one collision box of the given rpy each (None: no <origin>)."""
    links, chain = [], []
    for k in range(len(joints) + 1):
        rpy = collisions[k] if k < len(collisions) else None
        origin = "" if rpy is None else f'<origin xyz="0 0 0.1" rpy="{" ".join(repr(v) for v in rpy)}"/>'
        links.append(
            f'<link name="l{k}"><collision>{origin}<geometry><box size="1 1 1"/></geometry></collision></link>'
        )
    for k, rpy in enumerate(joints):
        chain.append(
            f'<joint name="j{k}" type="revolute"><parent link="l{k}"/><child link="l{k + 1}"/>'
            f'<origin xyz="0 0 1" rpy="{" ".join(repr(v) for v in rpy)}"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>'
        )
    return '<robot name="r">\n' + "\n".join(links + chain) + "\n</robot>\n"


@settings(max_examples=150, deadline=None)
@given(joints=st.lists(rpys, max_size=12), collisions=st.lists(rpys, max_size=13))
def test_origins_read_together_are_each_converted_alone(
    joints: list[tuple[float, float, float]], collisions: list[tuple[float, float, float]]
) -> None:
    robot = read_urdf(urdf(joints, collisions))
    for joint, rpy in zip(robot.joints, joints, strict=True):
        np.testing.assert_array_equal(joint.origin_quat, rpy_to_quat(np.array(rpy)))
    for link, rpy in zip(robot.links, collisions, strict=False):
        np.testing.assert_array_equal(link.collisions[0].origin_quat, rpy_to_quat(np.array(rpy)))


@settings(max_examples=100, deadline=None)
@given(rows=st.lists(rpys, min_size=1, max_size=40))
def test_rpy_rows_converted_together_equal_each_alone(rows: list[tuple[float, float, float]]) -> None:
    together = rpy_to_quat(np.array(rows))
    for row, quat in zip(rows, together, strict=True):
        np.testing.assert_array_equal(quat, rpy_to_quat(np.array(row)))


def test_a_file_s_rotations_are_converted_in_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """Twelve joints and thirteen collisions turned: one conversion (one per origin made reading the
    Panda's URDF a third slower)."""
    from motion_formats_ros.core.kinematics import urdf as module

    calls: list[int] = []

    def counted(rpy: np.ndarray) -> np.ndarray:
        calls.append(np.asarray(rpy).size // 3)
        return rpy_to_quat(rpy)

    monkeypatch.setattr(module, "rpy_to_quat", counted)
    read_urdf(urdf([(0.1, 0.2, 0.3)] * 12, [(1.0, 0.0, 0.0)] * 13))
    assert calls == [25]


@pytest.mark.parametrize("rpy", ["0 0 nan", "0 x 0", "1 2", "0 0 inf"])
def test_a_bad_rpy_is_still_reported_on_its_line(rpy: str) -> None:
    text = urdf([(0.1, 0.0, 0.0), (0.0, 0.2, 0.0)], []).replace('rpy="0.0 0.2 0.0"', f'rpy="{rpy}"')
    with pytest.raises(ReadError, match=r"^bad\.urdf:6: <origin>: rpy="):
        read_urdf(text, "bad.urdf")
