"""SE(3) layouts used by the .seq codec (motion_formats_ros.core.spatial)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from motion_formats_ros.core.spatial import pose_to_se3, quat_to_rpy, rpy_to_quat, se3_to_pose, se3_width


def rot(axis: str, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def matrix(q: np.ndarray) -> np.ndarray:
    x, y, z, w = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def test_seq_rpy_is_rz_ry_rx() -> None:
    roll, pitch, yaw = 0.3, -0.7, 2.1
    expected = rot("z", yaw) @ rot("y", pitch) @ rot("x", roll)
    q = rpy_to_quat(np.array([roll, pitch, yaw]))
    np.testing.assert_allclose(matrix(q), expected, atol=1e-12)
    np.testing.assert_allclose(quat_to_rpy(q), [roll, pitch, yaw], atol=1e-12)


def test_seq_quaternion_layouts_are_exact_permutations() -> None:
    rng = np.random.default_rng(0)
    pos = rng.normal(size=(5, 2, 3))
    quat = rng.normal(size=(5, 2, 4))  # not even normalised: kept as they are
    wxyz = pose_to_se3(pos, quat, "XYZQWQXQYQZ")
    np.testing.assert_array_equal(wxyz[..., 3], quat[..., 3])
    np.testing.assert_array_equal(wxyz[..., 4:], quat[..., :3])
    for fmt in ("XYZQWQXQYQZ", "XYZQXQYQZQW"):
        p, q = se3_to_pose(pose_to_se3(pos, quat, fmt), fmt)
        np.testing.assert_array_equal(p, pos)
        np.testing.assert_array_equal(q, quat)


def test_seq_rpy_layout_round_trip_and_nan() -> None:
    from scipy.spatial.transform import Rotation

    quat = Rotation.random(6, random_state=2).as_quat()
    quat[0] = np.nan
    values = pose_to_se3(np.zeros((6, 3)), quat, "XYZRPY")
    assert values.shape == (6, 6) and np.isnan(values[0, 3:]).all()
    _, back = se3_to_pose(values, "XYZRPY")
    dots = np.abs(np.sum(back[1:] * quat[1:], axis=1))
    np.testing.assert_allclose(dots, 1.0, atol=1e-12)


def test_seq_se3_widths_and_unknown_format() -> None:
    assert (se3_width("XYZQWQXQYQZ"), se3_width("XYZQXQYQZQW"), se3_width("XYZRPY")) == (7, 7, 6)
    with pytest.raises(ValueError, match="unknown SE3 format"):
        se3_width("XYZ")
    with pytest.raises(ValueError, match="7 values"):
        se3_to_pose(np.zeros((2, 6)), "XYZQWQXQYQZ")


@pytest.mark.skipif(importlib.util.find_spec("scipy") is None, reason="the reference is scipy's Rotation")
@settings(max_examples=300, deadline=None)
@given(
    angles=st.lists(st.tuples(*[st.floats(min_value=-50, max_value=50, allow_nan=False)] * 3), min_size=1, max_size=20)
)
def test_rpy_quaternions_are_scipy_s_within_a_rounding(angles: list[tuple[float, float, float]]) -> None:
    """Roll, pitch, yaw become the quaternions scipy's Rotation makes (URDF origins are read through
    them), without importing scipy: bit for bit with the scipy the tests pin, within the last bit
    of another release's (scipy 1.9 rounds a component up to 3 ulps apart)."""
    from scipy.spatial.transform import Rotation

    rpy = np.array(angles)
    for ours, theirs in ((rpy_to_quat(rpy), Rotation.from_euler("xyz", rpy).as_quat()),
                         (rpy_to_quat(rpy[0]), Rotation.from_euler("xyz", rpy[0]).as_quat())):  # fmt: skip
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=8 * np.finfo(np.float64).eps)
