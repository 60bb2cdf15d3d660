"""A TFMessage serialized from arrays is the message rclpy serializes, for any frame names and values."""

from __future__ import annotations

import numpy as np
import pytest
from support.rosutil import requires_ros

pytestmark = [requires_ros, pytest.mark.ros]


@pytest.mark.parametrize("seed", range(6))
def test_the_encoded_message_is_rclpys(seed: int) -> None:
    from rclpy.serialization import deserialize_message, serialize_message
    from tf2_msgs.msg import TFMessage

    from motion_formats_ros.ros import adapters
    from motion_formats_ros.ros.tf_cdr import TFEncoder

    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 40))
    # Names of every length mod 8 (the padding before the doubles), non-ASCII too.
    frames = [("r/" + "p" * int(rng.integers(0, 9)), "lïnk_" + "c" * int(rng.integers(0, 12))) for _ in range(count)]
    translation = rng.normal(size=(count, 3))
    rotation = rng.normal(size=(count, 4))
    rotation[0] = 0.0  # becomes the identity, as the adapter makes it
    if count > 2:
        rotation[1, 2] = np.nan
    stamp = int(rng.integers(0, 2**31 - 2)) * 1_000_000_000 + int(rng.integers(0, 999_999_999))
    encoder = TFEncoder(frames)
    for _ in range(2):  # the layout is reused
        ours = encoder.encode(stamp, translation, rotation)
        reference = TFMessage(
            transforms=[
                adapters.transform(p, c, stamp, t, q)
                for (p, c), t, q in zip(frames, translation, rotation, strict=True)
            ]
        )
        got = deserialize_message(ours, TFMessage)
        assert len(got.transforms) == count
        for a, b in zip(got.transforms, reference.transforms, strict=True):
            assert (a.header.frame_id, a.child_frame_id) == (b.header.frame_id, b.child_frame_id)
            assert (a.header.stamp.sec, a.header.stamp.nanosec) == (b.header.stamp.sec, b.header.stamp.nanosec)
            ta, tb = a.transform.translation, b.transform.translation
            assert (ta.x, ta.y, ta.z) == (tb.x, tb.y, tb.z)
            ra, rb = a.transform.rotation, b.transform.rotation
            np.testing.assert_allclose([ra.x, ra.y, ra.z, ra.w], [rb.x, rb.y, rb.z, rb.w], rtol=1e-15, atol=1e-16)
        # The same bytes as rclpy's, the rotations aside (normalised in another order).
        assert len(ours) == len(serialize_message(reference))
        stamp += 1
