"""The bulk JointState reader equals the message-by-message one, bit for bit, on mixed bags too.

Runs of one layout (names, array lengths) are decoded as strided views of the chunk or the
fetched rows; a message that differs starts a new run, one that is not a well-formed
JointState is decoded by rosbags' deserializer. ``read(..., bulk=False)`` deserializes every
message: both must give the same motion (every array's bytes) and the same warnings.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import corpus_params
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore

from motion_formats_ros import read
from motion_formats_ros.codecs.rosbag.storage import BagSource

TS = get_typestore(Stores.ROS2_JAZZY)
JS = "sensor_msgs/msg/JointState"
BASE = 1_700_000_000 * 1_000_000_000


def same(a: Any, b: Any, where: str = "") -> None:
    """Deep equality; arrays equal in dtype, shape and every byte (NaN payloads, -0.0)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), where
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for k in a:
            same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def outcome(bag: Path, **options: Any) -> tuple[Any, list[str]]:
    """(the motion file, or the error's type and text; the warnings) of reading ``bag``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got: Any = read(bag, progress=False, **options)
        except Exception as exc:  # both paths must fail alike
            got = (type(exc), str(exc))
    return got, [str(w.message) for w in caught]


def assert_paths_agree(bag: Path) -> None:
    fast, fast_warnings = outcome(bag)
    slow, slow_warnings = outcome(bag, bulk=False)
    assert fast_warnings == slow_warnings
    same(fast, slow)


BAGS = corpus_params("rosbag", "ros1/*.bag") + corpus_params("rosbag", "ros2/*")


@pytest.mark.parametrize("bag", BAGS)
def test_every_corpus_bag_reads_the_same_in_bulk_and_message_by_message(bag: Path) -> None:
    assert_paths_agree(bag)


# --------------------------------------------------------------------------- mixed bags
NAMES = ["hip", "knee", "ankle", "wrist"]
VARIANTS = ["same", "reordered", "joint added", "joint dropped", "no velocity", "short position", "frame"]


@st.composite
def mixed_messages(draw: st.DrawFn) -> list[tuple[int, Any]]:
    """(receive ns, JointState) in runs whose layouts change the ways real recordings do."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    out: list[tuple[int, Any]] = []
    t = BASE
    for _ in range(draw(st.integers(1, 6))):
        variant = draw(st.sampled_from(VARIANTS))
        names = list(NAMES[:3])
        if variant == "reordered":
            names = names[::-1]
        elif variant == "joint added":
            names = [*names, NAMES[3]]
        elif variant == "joint dropped":
            names = names[:1]
        for _ in range(draw(st.integers(1, 30))):
            t += draw(st.integers(0, 2)) * 1_000_000  # equal receive times happen
            k = len(names)
            position = rng.normal(size=k - 1 if variant == "short position" else k)
            position[rng.random(k - 1 if variant == "short position" else k) < 0.1] = np.nan
            velocity = np.zeros(0) if variant == "no velocity" else rng.normal(size=k)
            effort = rng.normal(size=k) if draw(st.booleans()) else np.zeros(0)
            if variant == "no velocity":
                effort = np.zeros(0)
            sec, nsec = divmod(t - draw(st.sampled_from([0, 0, 0, 3_000_000])), 1_000_000_000)
            msg = TS.types[JS](
                header=TS.types["std_msgs/msg/Header"](
                    stamp=TS.types["builtin_interfaces/msg/Time"](sec=sec, nanosec=nsec),
                    frame_id="base" if variant == "frame" else "",
                ),
                name=names,
                position=position,
                velocity=velocity,
                effort=effort,
            )
            out.append((t, msg))
    return out


def write_messages(path: Path, messages: list[tuple[int, Any]], storage: str) -> Path:
    plugin = StoragePlugin.MCAP if storage == "mcap" else StoragePlugin.SQLITE3
    with Writer(path, version=9, storage_plugin=plugin) as writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for t, msg in messages:
            writer.write(conn, t, TS.serialize_cdr(msg, JS))
    return path


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    messages=mixed_messages(), storage=st.sampled_from(["mcap", "sqlite3"]), stamps=st.sampled_from(["auto", "receive"])
)
def test_mixed_bags_read_the_same_in_bulk_and_message_by_message(
    tmp_path_factory: pytest.TempPathFactory, messages: Any, storage: str, stamps: str
) -> None:
    bag = write_messages(tmp_path_factory.mktemp("mixed") / "b", messages, storage)
    fast, fast_warnings = outcome(bag, stamps=stamps)
    slow, slow_warnings = outcome(bag, stamps=stamps, bulk=False)
    assert fast_warnings == slow_warnings
    same(fast, slow)


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_layout_changes_mid_bag_are_decoded_in_runs_not_message_by_message(
    tmp_path: Path, storage: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(3)

    def joint_state(i: int, names: list[str], size: int) -> Any:
        return TS.types[JS](
            header=TS.types["std_msgs/msg/Header"](
                stamp=TS.types["builtin_interfaces/msg/Time"](sec=1, nanosec=i * 1000), frame_id=""
            ),
            name=names,
            position=rng.normal(size=size),
            velocity=np.zeros(0),
            effort=np.zeros(0),
        )

    messages = []
    for i in range(300):
        names = NAMES[:3] if i < 100 else (NAMES[:3][::-1] if i < 200 else NAMES)  # reordered, then one added
        messages.append((BASE + i * 1000, joint_state(i, names, len(names))))
    messages.insert(150, (BASE + 149_500, joint_state(149, ["x"], 3)))  # arrays longer than its names
    bag = write_messages(tmp_path / "b", messages, storage)
    calls = []
    original = BagSource.deserialize

    def counted(self: BagSource, raw: Any, msgtype: str) -> Any:
        calls.append(msgtype)
        return original(self, raw, msgtype)

    monkeypatch.setattr(BagSource, "deserialize", counted)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        motion = read(bag, progress=False).motion
    assert len(calls) == 1  # only the message whose arrays do not match its names
    assert any("skipped 1 JointState" in str(w.message) for w in caught)
    assert motion.joint_names == tuple(NAMES)
    assert motion.num_frames == 300
    monkeypatch.setattr(BagSource, "deserialize", original)
    assert_paths_agree(bag)


MCAPS = corpus_params("rosbag", "ros2/*/*.mcap")


@pytest.mark.parametrize("path", MCAPS)
def test_metadata_through_the_summary_equals_the_scan(path: Path) -> None:
    from motion_formats_ros.codecs.rosbag.storage.mcap_scan import McapScanner

    scanner = McapScanner(path)
    found = scanner.summary_metadata()
    assert found is None or found == scanner.index().metadata


def test_metadata_of_a_written_bag_through_the_summary_equals_the_scan(tmp_path: Path) -> None:
    from motion_formats_ros import Motion, MotionFile, write
    from motion_formats_ros.codecs.rosbag.storage.mcap_scan import McapScanner

    motion = Motion(times=np.arange(5) / 10.0, joint_names=("a", "b"), position=np.zeros((5, 2)))
    write(MotionFile.single(motion, name="walk"), tmp_path / "bag", format="rosbag")
    (path,) = (tmp_path / "bag").glob("*.mcap")
    scanner = McapScanner(path)
    found = scanner.summary_metadata()
    assert found is not None and "motion_formats_ros" in found["rosbag2"]["serialized_metadata"]
    assert found == scanner.index().metadata
    assert read(path, progress=False).name == "walk"  # the bare file's own copy of the custom data


def test_a_damaged_message_count_sizes_no_more_samples_than_the_bag_holds() -> None:
    from motion_formats_ros.codecs.rosbag._joints import _TopicStream
    from motion_formats_ros.codecs.rosbag.storage import bulk as _bulk

    msg = TS.types[JS](
        header=TS.types["std_msgs/msg/Header"](
            stamp=TS.types["builtin_interfaces/msg/Time"](sec=1, nanosec=0), frame_id=""
        ),
        name=NAMES,
        position=np.arange(4.0),
        velocity=np.zeros(0),
        effort=np.zeros(0),
    )
    raws = [bytes(TS.serialize_cdr(msg, JS))] * 10
    decoded = _bulk.decode(raws, False)
    assert decoded is not None
    stream = _TopicStream("/joint_states", expected=10**15, bag_bytes=100 * len(raws[0]))
    stream.add(decoded, np.arange(10, dtype=np.int64))
    assert stream.run is not None
    assert stream.run.stamps.size <= 10 + 4 * 100  # not the count the index claims
    stream.finish()
    (segment,) = stream.segments
    assert segment.stamps.size == 10 and np.array_equal(segment.stamps, decoded.stamps)
