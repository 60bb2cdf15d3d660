"""The bulk numpy JointState path gives exactly what rosbags' (de)serializer gives."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from rosbags.highlevel import AnyReader
from test_bag_support import JS, TS, corpus_bag, joint_state, write_bag

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.codecs.rosbag import _bulk

BASE = 1_690_000_000 * 1_000_000_000


def _equal(a: MotionFile, b: MotionFile) -> None:
    assert list(a.groups) == list(b.groups)
    for key in a.groups:
        ma, mb = a.groups[key], b.groups[key]
        assert np.array_equal(ma.times, mb.times)
        assert ma.joint_names == mb.joint_names
        for ch in ("position", "velocity", "effort"):
            va, vb = getattr(ma, ch), getattr(mb, ch)
            assert (va is None) == (vb is None), ch
            if va is not None:
                assert np.array_equal(va, vb, equal_nan=True), ch


@pytest.mark.parametrize(
    "rel", ["ros1/fake_joint_state.bag", "ros1/C-Shape-1_joints.bag", "ros2/test_bag_mcap", "ros2/test_bag_sqlite3"]
)
def test_bag_bulk_decode_matches_rosbags_on_corpus(rel: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _equal(read(corpus_bag(rel), bulk=True), read(corpus_bag(rel), bulk=False))


def test_bag_bulk_decode_fields_match_deserializer() -> None:
    for rel, ros1 in (("ros1/fake_joint_state.bag", True), ("ros2/test_bag_mcap", False)):
        with AnyReader([corpus_bag(rel)]) as reader:
            conns = [c for c in reader.connections if c.msgtype == JS]
            raws = [raw for _, _, raw in reader.messages(connections=conns)]
            decoded = _bulk.decode(raws, ros1)
            assert decoded is not None, rel
            for i in (0, len(raws) - 1):
                msg = reader.deserialize(raws[i], JS)
                s = msg.header.stamp  # type: ignore[attr-defined]
                assert decoded.stamps[i] == s.sec * 1_000_000_000 + s.nanosec
                assert decoded.layout.names == tuple(msg.name)  # type: ignore[attr-defined]
                assert np.array_equal(decoded.channels["position"][i], msg.position)  # type: ignore[attr-defined]


def test_bag_bulk_irregular_batches_fall_back(tmp_path: Path) -> None:
    msgs = []
    for k in range(40):
        names = ["a", "b"] if k < 20 else ["b", "a", "c"]  # layout changes mid-bag
        vals = [k, -k] if k < 20 else [-k, k, 2 * k]
        frame = "" if k % 7 else "base"  # a different frame id changes the bytes
        msg = joint_state(BASE + k, names, vals, velocity=vals if k % 3 else [])
        msg.header.frame_id = frame
        msgs.append(("/joint_states", JS, BASE + k, msg))
    bag = write_bag(tmp_path / "b", msgs)
    raws = [bytes(TS.serialize_cdr(m[3], JS)) for m in msgs]
    assert _bulk.decode(raws, False) is None  # not regular: the caller falls back
    assert _bulk.decode(raws[1:7], False) is None  # velocity present / absent differs
    fast, slow = read(bag, bulk=True), read(bag, bulk=False)
    _equal(fast, slow)
    m = fast.motion
    assert m.joint_names == ("a", "b", "c")
    assert m.position[25, 2] == 50  # type: ignore[index]


def test_bag_bulk_encode_bytes_equal_rosbags(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    n = 50
    m = Motion(
        times=np.arange(n) / 100.0,
        joint_names=tuple(f"joint_{i}" for i in range(7)),
        position=rng.normal(size=(n, 7)),
        effort=rng.normal(size=(n, 7)),
    )
    mf = MotionFile.single(m)
    write(mf, tmp_path / "fast", format="rosbag", bulk=True, trajectory_topic=None, start_time=12.5)
    write(mf, tmp_path / "slow", format="rosbag", bulk=False, trajectory_topic=None, start_time=12.5)

    def payloads(path: Path) -> list[tuple[int, bytes]]:
        with AnyReader([path]) as reader:
            return [(t, bytes(raw)) for _, t, raw in reader.messages()]

    fast, slow = payloads(tmp_path / "fast"), payloads(tmp_path / "slow")
    assert fast == slow and len(fast) == n
    # and what rosbags itself serializes for the same message
    first = joint_state(12_500_000_000, m.joint_names, m.position[0], effort=m.effort[0])  # type: ignore[index]
    assert fast[0][1] == bytes(TS.serialize_cdr(first, JS))


def test_bag_bulk_layout_rejects_malformed() -> None:
    good = bytes(TS.serialize_cdr(joint_state(5, ["a", "b"], [1, 2]), JS))
    assert _bulk.parse_layout(good, False) is not None
    assert _bulk.parse_layout(good[:-9], False) is None  # cut short
    assert _bulk.parse_layout(b"\x00\x00" + good[2:], False) is None  # big-endian: rosbags handles it
    bad = bytes(TS.serialize_cdr(joint_state(5, ["a", "b"], [1]), JS))
    assert _bulk.parse_layout(bad, False) is None
