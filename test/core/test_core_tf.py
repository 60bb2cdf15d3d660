"""The one TF buffer (core/tf.py) without ROS: composition over the tree, interpolation, conflicts."""

from __future__ import annotations

import numpy as np
import pytest

from motion_formats_ros.core.spatial import compose
from motion_formats_ros.core.tf import TfSamples

QZ90 = (0.0, 0.0, np.sin(np.pi / 4), np.cos(np.pi / 4))


def _samples() -> TfSamples:
    s = TfSamples()
    s.add("map", "odom", 0, 0, (1.0, 2.0, 0.0, *QZ90), static=True)
    for k in range(11):  # odom → base_link at 10 Hz: x = k / 10, a yaw ramp
        yaw = 0.1 * k
        s.add(
            "/odom",
            "base_link",
            1_000_000_000 + k * 100_000_000,
            0,
            (k / 10, 0, 0, 0, 0, np.sin(yaw / 2), np.cos(yaw / 2)),
            False,
        )
    s.add("base_link", "head", 0, 0, (0.0, 0.0, 0.5, 0, 0, 0, 1), static=True)
    return s


def test_lookup_composes_over_the_tree_and_interpolates_each_edge() -> None:
    buf, notes = _samples().buffer(1_000_000_000)
    assert not notes and not buf.problems
    query = np.array([0.05, 0.5, 0.95])
    found = buf.lookup("map", "base_link", query)
    assert found is not None
    yaw = query  # interpolated (slerp about z is linear in the angle)
    odom_pose = (
        np.stack([query, 0 * query, 0 * query], 1),
        np.stack([0 * yaw, 0 * yaw, np.sin(yaw / 2), np.cos(yaw / 2)], 1),
    )
    map_odom = (np.tile([1.0, 2.0, 0.0], (3, 1)), np.tile(QZ90, (3, 1)))
    want = compose(map_odom, odom_pose)
    np.testing.assert_allclose(found[0], want[0], atol=1e-12)
    np.testing.assert_allclose(found[1], want[1], atol=1e-12)
    # Across branches: head in odom goes through base_link.
    head = buf.lookup("odom", "head", np.array([0.0]))
    assert head is not None
    np.testing.assert_allclose(head[0], [[0.0, 0.0, 0.5]], atol=1e-12)
    assert buf.lookup("map", "nowhere", query) is None


def test_same_stamp_disagreement_is_reported_and_the_later_kept() -> None:
    s = TfSamples()
    s.add("odom", "base_link", 10, 0, (1.0, 0, 0, 0, 0, 0, 1), False)
    s.add("odom", "base_link", 10, 0, (2.0, 0, 0, 0, 0, 0, 1), False)
    s.add("odom", "base_link", 20, 0, (3.0, 0, 0, 0, 0, 0, 1), False)
    buf, _ = s.buffer(0)
    assert any("1 samples disagree with another sample at the same stamp" in p for p in buf.problems)
    np.testing.assert_array_equal(buf.edges["base_link"].translation[:, 0], [2.0, 3.0])


def test_static_and_dynamic_of_one_frame_are_reported() -> None:
    s = TfSamples()
    s.add("odom", "base_link", 0, 0, (9.0, 0, 0, 0, 0, 0, 1), True)
    s.add("odom", "base_link", 5, 0, (1.0, 0, 0, 0, 0, 0, 1), False)
    buf, _ = s.buffer(0)
    assert buf.problems == ["frame 'base_link' is published both on /tf and /tf_static; the /tf transform is used"]
    assert not buf.edges["base_link"].static


def test_out_of_range_stamps_and_origins_are_refused() -> None:
    s = TfSamples()
    with pytest.raises(ValueError, match="out of range"):
        s.add("a", "b", 1 << 63, 0, (0, 0, 0, 0, 0, 0, 1), False)
    s.add("a", "b", 0, 0, (0, 0, 0, 0, 0, 0, 1), False)
    with pytest.raises(ValueError, match=r"time origin .* out of range"):
        s.buffer(-(1 << 70))
