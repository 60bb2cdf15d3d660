"""The bulk numpy JointState path gives exactly what rosbags' (de)serializer gives."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rosbags.highlevel import AnyReader
from support.bags import JS, TS, corpus_bag, joint_state, write_bag

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.codecs.rosbag import BagMotionRecord
from motion_formats_ros.codecs.rosbag.storage import bulk as _bulk

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


# --------------------------------------------------------------------------- differential (hypothesis)
# The fast paths (bulk numpy decode of regular batches, blocks read without a Python step
# per message) must give exactly what rosbags' reader + deserializer gives message by
# message, on payloads as writers really produce them: rosbags' own, and rclpy's (bytes
# after the message, uninitialised alignment padding), some cut short.

#: Names and frame ids of equal lengths: batches of equal sizes that differ only in their text.
NAME_POOL = ["a", "b", "cc", "dd", "eee", "fff", "gggg", "hhhhhhhh"]
FRAME_POOL = ["", "b", "odom", "base", "base_link"]


def _padding(raw: bytes) -> list[int]:
    """Byte offsets of raw (a well-formed CDR JointState) that carry no data (alignment padding)."""
    layout = _bulk.parse_layout(raw, False)
    assert layout is not None
    used = np.zeros(len(raw), dtype=bool)
    for start, end in layout.static:
        used[start:end] = True
    used[layout.stamp : layout.stamp + 8] = True
    used[2:4] = True  # encapsulation options: not compared, not data
    for offset, count in layout.arrays.values():
        used[offset : offset + 8 * count] = True
    return [int(i) for i in np.flatnonzero(~used)]


@st.composite
def _payloads(draw: st.DrawFn) -> list[tuple[int, bytes, bool]]:
    """(receive ns, payload, cut short) for a sequence of JointStates, mostly regular runs."""
    count = draw(st.integers(1, 40))
    runs = draw(st.lists(st.integers(1, 8), min_size=1, max_size=4))
    layouts: list[tuple[list[str], str, set[str]]] = []
    for _ in runs:
        how = draw(st.sampled_from(["fresh", "renamed", "reframed"])) if layouts else "fresh"
        if how == "fresh":
            layouts.append(
                (
                    draw(st.lists(st.sampled_from(NAME_POOL), min_size=0, max_size=4, unique=True)),
                    draw(st.sampled_from(FRAME_POOL)),
                    draw(st.sets(st.sampled_from(_bulk.CHANNELS))),
                )
            )
            continue
        names, frame, present = layouts[-1]  # the same sizes, other text: only the bytes tell them apart
        if how == "renamed":
            names = [n.upper() if k == draw(st.integers(0, max(0, len(names) - 1))) else n for k, n in enumerate(names)]
        else:
            frame = frame.upper() if frame else frame
        layouts.append((names, frame, present))
    garbage = draw(st.booleans())  # rclpy-like: random padding and 8 trailing bytes
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    out = []
    t = BASE
    for i in range(count):
        names, frame, present = layouts[i // max(1, count // len(layouts)) % len(layouts)]
        t += draw(st.integers(0, 3)) * 1_000_000  # equal receive times happen
        stamp = t if draw(st.integers(0, 9)) else t - 5_000_000  # and stamps out of order
        vals = {ch: rng.normal(size=len(names)) if ch in present else [] for ch in _bulk.CHANNELS}
        msg = joint_state(stamp, names, vals["position"], vals["velocity"], vals["effort"])
        msg.header.frame_id = frame
        raw = bytearray(TS.serialize_cdr(msg, JS))
        if garbage:
            for k in _padding(bytes(raw)):
                raw[k] = int(rng.integers(0, 256))
            raw += rng.integers(0, 256, size=8, dtype=np.uint8).tobytes()
        cut = draw(st.integers(0, 30)) == 0
        if cut:
            raw = raw[: draw(st.integers(0, len(raw) - 9 if garbage else len(raw) - 1))]
        out.append((t, bytes(raw), cut))
    return out


def _write_payloads(path: Path, payloads: list[tuple[int, bytes, bool]], storage: str) -> Path:
    from rosbags.rosbag2 import StoragePlugin, Writer

    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    with Writer(path, version=9, storage_plugin=plugin) as writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for t, raw, _ in payloads:
            writer.write(conn, t, raw)
    return path


def _read_both(bag: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, list[str], list[str]]:
    """(fast result or error, reference result or error, fast warnings, reference warnings)."""
    from motion_formats_ros.codecs.rosbag.storage import BagSource

    def run() -> tuple[Any, list[str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got: Any = read(bag, progress=False)
            except Exception as exc:  # both paths must fail alike
                got = (type(exc), str(exc))
        return got, sorted(str(w.message) for w in caught)

    fast, fast_warnings = run()
    with monkeypatch.context() as patch:
        patch.setattr(BagSource, "blocks", lambda self, topics: None)  # the message-by-message reader
        patch.setattr(_bulk, "decode", lambda raws, ros1: None)  # and rosbags' deserializer for every batch
        patch.setattr(_bulk, "decode_rows", lambda rows, ros1, hint=None: None)
        patch.setattr(BagSource, "standard_joint_state", lambda self, msgtype: False)  # no runs either
        slow, slow_warnings = run()
    return fast, slow, fast_warnings, slow_warnings


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(payloads=_payloads(), storage=st.sampled_from(["mcap", "sqlite3"]))
def test_bag_bulk_fast_paths_equal_the_reference(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, payloads: Any, storage: str
) -> None:
    bag = _write_payloads(tmp_path_factory.mktemp("diff") / "b", payloads, storage)
    fast, slow, fast_warnings, slow_warnings = _read_both(bag, monkeypatch)
    assert fast_warnings == slow_warnings
    if isinstance(fast, tuple) or isinstance(slow, tuple):
        assert fast == slow
        return
    _equal(fast, slow)
    assert fast.motion.record(BagMotionRecord).time_origin_ns == slow.motion.record(BagMotionRecord).time_origin_ns


@settings(max_examples=200, deadline=None)
@given(payloads=_payloads())
def test_bag_bulk_decode_rows_equals_the_deserializer(payloads: Any) -> None:
    from motion_formats_ros.codecs.rosbag.storage import deserialize_cdr

    raws = [raw for _, raw, _ in payloads]
    size = len(raws[0])
    if any(len(r) != size for r in raws):
        assert _bulk.decode(raws, False) is None
        return
    rows = np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(len(raws), size)
    decoded = _bulk.decode_rows(rows, False)
    if decoded is None:
        return  # not regular: the caller deserializes message by message
    for i, raw in enumerate(raws):
        msg = deserialize_cdr(TS, raw, JS)  # a regular batch never holds a payload it cannot decode
        s = msg.header.stamp
        assert decoded.stamps[i] == s.sec * 1_000_000_000 + s.nanosec
        assert decoded.layout.names == tuple(msg.name)
        assert decoded.layout.frame_id == msg.header.frame_id
        for ch in _bulk.CHANNELS:
            value = getattr(msg, ch)
            if len(value):
                assert np.array_equal(decoded.channels[ch][i], value)
            else:
                assert ch not in decoded.channels


def test_bag_bulk_strided_rows_decode_like_contiguous_ones() -> None:
    raws = [bytes(TS.serialize_cdr(joint_state(BASE + k, ["a", "bb"], [k, -k], [2 * k, 0]), JS)) for k in range(9)]
    size = len(raws[0])
    gap = 5  # rows inside a bigger buffer, as MCAP message records lie in a chunk
    buf = np.frombuffer(b"".join(b"\xee" * gap + r for r in raws), dtype=np.uint8)
    rows = np.lib.stride_tricks.as_strided(buf[gap:], shape=(9, size), strides=(size + gap, 1), writeable=False)
    a, b = _bulk.decode_rows(rows, False), _bulk.decode(raws, False)
    assert a is not None and b is not None
    assert np.array_equal(a.stamps, b.stamps)
    assert all(np.array_equal(a.channels[c], b.channels[c]) for c in b.channels)
    assert np.shares_memory(a.channels["position"], buf)  # views of the chunk: the reader copies once


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_bag_bulk_topic_on_two_connections_reads_like_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, storage: str
) -> None:
    """Two connections of one topic (other QoS), interleaved, times going backwards: same as message by message."""
    from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
    from rosbags.rosbag2 import StoragePlugin, Writer

    zero = QosTime(0, 0)

    def qos(depth: int) -> Qos:
        return Qos(
            QosHistory.KEEP_LAST,
            depth,
            QosReliability.RELIABLE,
            QosDurability.VOLATILE,
            zero,
            zero,
            QosLiveliness.AUTOMATIC,
            zero,
            False,
        )

    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    bag = tmp_path / "two"
    with Writer(bag, version=9, storage_plugin=plugin) as writer:
        conns = [
            writer.add_connection("/joint_states", JS, typestore=TS, offered_qos_profiles=[qos(d)]) for d in (1, 9)
        ]
        for k in range(60):
            stamp = BASE + (k if k % 11 else k - 3) * 1_000_000  # now and then a stamp steps back
            msg = joint_state(stamp, ["a", "b"] if k % 2 else ["b", "c"], [k, -k])
            writer.write(conns[k % 2], BASE + k * 1_000_000, TS.serialize_cdr(msg, JS))
    fast, slow, fast_warnings, slow_warnings = _read_both(bag, monkeypatch)
    assert fast_warnings == slow_warnings and any("backwards" in w for w in fast_warnings)
    _equal(fast, slow)
    assert fast.motion.joint_names == ("b", "c", "a")


def test_bag_bulk_names_of_equal_length_are_told_apart_in_every_row_size() -> None:
    """Both ways of comparing the static bytes (8-byte words, byte slices) see a changed name or frame id."""
    sizes = set()
    for length, frame, vel in itertools.product(range(1, 17), ("", "odom"), ([], [0.5, 0.25])):
        # position + velocity without effort: 8-byte rows; position alone: not
        same = [joint_state(BASE + k, ["x" * length, "y"], [k, 1.0], vel) for k in range(3)]
        other = joint_state(BASE + 3, ["z" * length, "y"], [3.0, 1.0], vel)
        for msg in [*same, other]:
            msg.header.frame_id = frame
        raws = [bytes(TS.serialize_cdr(m, JS)) for m in same]
        changed = bytes(TS.serialize_cdr(other, JS))
        moved = bytearray(raws[-1])
        moved[12 + 4] ^= 1 if frame else 0  # a frame id byte (when there is one)
        sizes.add(len(raws[0]) % 8 == 0)
        assert _bulk.decode(raws, False) is not None
        assert _bulk.decode([*raws, changed], False) is None, (length, frame)
        if frame:
            assert _bulk.decode([*raws, bytes(moved)], False) is None, (length, frame)
    assert sizes == {True, False}  # both comparisons were exercised
