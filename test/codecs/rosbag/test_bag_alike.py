"""The group compare that finds a run of alike JointStates, and the arrays the run fills.

:func:`bulk._regular_prefix` first compares groups of rows as byte strings (one memory
compare per coarse range of a group) and only from the first group with a difference
row by row. Both must find exactly the row a plain byte-by-byte loop over the static
ranges finds, for rows contiguous or strided (as MCAP records lie in a chunk), groups
of any size, and a difference anywhere: in a name, the frame id, a sequence length, in
padding (which does not count), in the stamp or the doubles (which do not either). A
decode of such rows must equal rosbags' deserializer message by message.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.bags import JS, TS, joint_state

from motion_formats_ros import read
from motion_formats_ros.codecs.rosbag import _joints
from motion_formats_ros.codecs.rosbag.storage import bulk as _bulk
from motion_formats_ros.codecs.rosbag.storage import deserialize_cdr

BASE = 1_690_000_000 * 1_000_000_000
NAMES = [["j0", "j1", "j2"], ["a", "bb", "ccc", "dddd"], ["shoulder", "elbow"]]
FRAMES = ["", "odom", "base_link"]


def reference_prefix(rows: np.ndarray, layout: _bulk.Layout, head: np.ndarray) -> int:
    """The first row whose bytes in a static range differ from ``head``'s (a plain loop)."""
    want = bytes(head)
    for i in range(rows.shape[0]):
        got = bytes(rows[i])
        if any(got[s:e] != want[s:e] for s, e in layout.static):
            return i
    return rows.shape[0]


@st.composite
def batches(draw: st.DrawFn) -> tuple[np.ndarray, list[bytes], _bulk.Layout]:
    """Rows of one size (contiguous or strided) with some bytes changed, and their payloads."""
    names = draw(st.sampled_from(NAMES))
    frame = draw(st.sampled_from(FRAMES))
    present = draw(st.sets(st.sampled_from(_bulk.CHANNELS), min_size=1))
    count = draw(st.integers(1, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    raws = []
    for k in range(count):
        vals = {ch: rng.normal(size=len(names)) if ch in present else [] for ch in _bulk.CHANNELS}
        msg = joint_state(BASE + k * 1_000_000, names, vals["position"], vals["velocity"], vals["effort"])
        msg.header.frame_id = frame
        raws.append(bytearray(TS.serialize_cdr(msg, JS)))
    layout = _bulk.parse_layout(bytes(raws[0]), False)
    assert layout is not None
    size = len(raws[0])
    for _ in range(draw(st.integers(0, 3))):  # a byte changed anywhere, in any row but the first
        row = draw(st.integers(1, count - 1)) if count > 1 else 0
        at = draw(st.integers(0, size - 1))
        raws[row][at] ^= draw(st.integers(1, 255))
    gap = draw(st.sampled_from([0, 3, 31]))  # 31: an MCAP message record's header
    buf = np.frombuffer(b"".join(b"\xee" * gap + bytes(r) for r in raws), dtype=np.uint8)
    rows = np.lib.stride_tricks.as_strided(buf[gap:], shape=(count, size), strides=(size + gap, 1), writeable=False)
    return rows, [bytes(r) for r in raws], layout


@settings(max_examples=300, deadline=None)
@given(batch=batches(), group=st.sampled_from([1, 2, 7, _bulk.ALIKE_ROWS]))
def test_the_group_compare_finds_the_row_a_plain_loop_finds(batch: Any, group: int) -> None:
    rows, _, layout = batch
    head = rows[0].copy()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bulk, "ALIKE_ROWS", group)
        assert _bulk._regular_prefix(rows, layout) == reference_prefix(rows, layout, head)
        assert _bulk._regular_prefix(rows, layout, head) == reference_prefix(rows, layout, head)
        # the template of an earlier batch
        template = np.frombuffer(layout.template, dtype=np.uint8)
        assert _bulk._regular_prefix(rows, layout, template) == reference_prefix(rows, layout, template)


@settings(max_examples=200, deadline=None)
@given(batch=batches(), group=st.sampled_from([1, 5, _bulk.ALIKE_ROWS]))
def test_runs_decode_like_the_deserializer(batch: Any, group: int) -> None:
    """Runs cut by the group compare decode every message as rosbags does (None: one that does not decode)."""
    rows, raws, _ = batch
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_bulk, "ALIKE_ROWS", group)
        cuts = list(_bulk.runs(rows, False))
    assert [c[0] for c in cuts] == [0, *(c[1] for c in cuts[:-1])] and cuts[-1][1] == len(raws)
    for lo, hi, decoded in cuts:
        for i in range(lo, hi):
            try:
                msg = deserialize_cdr(TS, raws[i], JS)
            except Exception:
                assert decoded is None  # not a JointState a run may hold
                continue
            if decoded is None:
                continue  # decoded one by one by the caller, as the reference does
            s = msg.header.stamp
            assert decoded.stamps[i - lo] == s.sec * 1_000_000_000 + s.nanosec
            assert decoded.layout.names == tuple(msg.name)
            assert decoded.layout.frame_id == msg.header.frame_id
            for ch in _bulk.CHANNELS:
                value = getattr(msg, ch)
                if len(value):
                    assert np.array_equal(decoded.channels[ch][i - lo], value)
                else:
                    assert ch not in decoded.channels


def test_a_group_of_many_rows_with_one_changed_name_is_cut_there() -> None:
    """Thousands of rows (several groups): a name changed in row 5000 ends the run there."""
    msgs = [joint_state(BASE + k, ["j0", "j1"], [k, -k], [1.0, 2.0]) for k in range(3 * _bulk.ALIKE_ROWS)]
    msgs[5000] = joint_state(BASE + 5000, ["j0", "jX"], [0.0, 0.0], [1.0, 2.0])
    raws = [bytes(TS.serialize_cdr(m, JS)) for m in msgs]
    rows = np.frombuffer(b"".join(raws), dtype=np.uint8).reshape(len(raws), -1)
    layout = _bulk.parse_layout(raws[0], False)
    assert layout is not None
    assert _bulk._regular_prefix(rows, layout) == 5000
    assert _bulk.decode_rows(rows, False) is None
    assert [(lo, hi) for lo, hi, _ in _bulk.runs(rows, False)] == [(0, 5000), (5000, 5001), (5001, len(raws))]


@pytest.mark.parametrize("huge", [True, False])
def test_big_arrays_hold_what_is_written(monkeypatch: pytest.MonkeyPatch, huge: bool) -> None:
    """A big array (huge pages where the kernel offers them, else prefaulted) is an ordinary array."""
    monkeypatch.setattr(_joints, "_huge_pages", lambda: huge)
    shape = (40_000, 30)  # 9.6 MB
    a = _joints._empty(shape, np.float64)
    assert a.shape == shape and a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable
    values = np.arange(a.size, dtype=np.float64).reshape(shape)
    a[:] = values
    assert np.array_equal(a, values)
    if huge:
        assert a.__array_interface__["data"][0] % _joints.HUGE_PAGE == 0
    small = _joints._empty((10, 3), np.int64)
    small[:] = 7
    assert int(small.sum()) == 210


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_names_without_their_nul_terminator_are_read_as_the_reference_reads_them(tmp_path: Path, storage: str) -> None:
    """rosbags refuses a CDR string whose last counted byte is not NUL; so does the bulk path."""
    from rosbags.rosbag2 import StoragePlugin, Writer

    good = [bytes(TS.serialize_cdr(joint_state(BASE + k, ["j0", "j1"], [k, -k]), JS)) for k in range(6)]
    at = good[0].index(b"j1\x00") + 2
    bad = [r[:at] + b"!" + r[at + 1 :] if k >= 3 else r for k, r in enumerate(good)]
    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    with Writer(tmp_path / "b", version=9, storage_plugin=plugin) as writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for k, raw in enumerate(bad):
            writer.write(conn, BASE + k * 1_000_000, raw)
    results = []
    for bulk in (True, False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mf = read(tmp_path / "b", bulk=bulk, progress=False)
        results.append((mf, sorted(str(w.message) for w in caught)))
    (fast, fast_said), (slow, slow_said) = results
    assert fast_said == slow_said and any("3" in s for s in fast_said), fast_said
    assert fast.motion.num_frames == slow.motion.num_frames == 3
    assert np.array_equal(fast.motion.position, slow.motion.position)
