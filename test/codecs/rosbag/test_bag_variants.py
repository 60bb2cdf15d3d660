"""rosbag2 folders from the field that the specifications do not describe.

Every fixture is written with rosbags' own Writer (or, for the 2018 layout, sqlite3 with
the tables of that time) and then given exactly the shape the item describes.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore
from support.bags import JS, TS, joint_state, stamp, write_bag

from motion_formats_ros import read
from motion_formats_ros.cli.bag import describe_lines
from motion_formats_ros.codecs import rosbag
from motion_formats_ros.codecs.rosbag import BagRecord
from motion_formats_ros.core.errors import ReadError

S = 1_000_000_000
BASE = 1_720_000_000 * S
NAMES = ["shoulder", "elbow", "wrist"]


def _states(n: int, start: int = 0) -> tuple[list[tuple[str, str, int, Any]], np.ndarray]:
    values = np.arange(n * 3, dtype=np.float64).reshape(n, 3) / 7.0 + start
    msgs = [
        ("/joint_states", JS, BASE + (start + k) * 10_000_000, joint_state(BASE + (start + k) * 10_000_000, NAMES, v))
        for k, v in enumerate(values)
    ]
    return msgs, values


def _read_all(path: Path, **options: object) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mf = read(path, **options)
    return mf, [str(w.message) for w in caught]


# --------------------------------------------------------------------------- item 9
#: What rosbag2 (Jazzy and later) stores as the definition of a service event topic: the
#: service's own definition under an ``SRV:`` delimiter, not a message definition.
SRV_SCHEMA = "=" * 80 + "\nSRV: example_interfaces/srv/AddTwoInts\nint64 a\nint64 b\n---\nint64 sum\n"
EVENT = "example_interfaces/srv/AddTwoInts_Event"


def _service_store() -> Any:
    """Jazzy's types plus AddTwoInts' request, response and event (parse trees: rosbags' .msg
    parser reads a ``pkg/srv/Name`` type name as a package ``pkg/srv``)."""
    from rosbags.interfaces import Nodetype

    ts = get_typestore(Stores.ROS2_JAZZY)
    int64 = (Nodetype.BASE, ("int64", 0))
    request, response = "example_interfaces/srv/AddTwoInts_Request", "example_interfaces/srv/AddTwoInts_Response"
    types: Any = {
        request: ([], [("a", int64), ("b", int64)]),
        response: ([], [("sum", int64)]),
        EVENT: (
            [],
            [
                ("info", (Nodetype.NAME, "service_msgs/msg/ServiceEventInfo")),
                ("request", (Nodetype.SEQUENCE, ((Nodetype.NAME, request), 1))),
                ("response", (Nodetype.SEQUENCE, ((Nodetype.NAME, response), 1))),
            ],
        ),
    }
    ts.register(types)
    return ts


def _service_bag(path: Path, storage: StoragePlugin) -> tuple[Path, np.ndarray]:
    """/joint_states next to /add_two_ints/_service_event, as `ros2 bag record --all` of Jazzy writes."""
    ts = _service_store()
    t = ts.types
    states, values = _states(20)
    with Writer(path, version=9, storage_plugin=storage) as writer:
        js = writer.add_connection("/joint_states", JS, typestore=TS)
        ev = writer.add_connection(
            "/add_two_ints/_service_event", EVENT, msgdef=SRV_SCHEMA, rihs01=ts.hash_rihs01(EVENT)
        )
        for k, (_, _, ns, msg) in enumerate(states):
            writer.write(js, ns, TS.serialize_cdr(msg, JS))
            if k % 5 == 0:
                info = t["service_msgs/msg/ServiceEventInfo"](
                    event_type=1, stamp=stamp(ns), client_gid=np.arange(16, dtype=np.uint8), sequence_number=k
                )
                event = t[EVENT](
                    info=info, request=[t["example_interfaces/srv/AddTwoInts_Request"](a=k, b=2)], response=[]
                )
                writer.write(ev, ns + 1, ts.serialize_cdr(event, EVENT))
    return path, values


@pytest.mark.parametrize("storage", [StoragePlugin.MCAP, StoragePlugin.SQLITE3], ids=["mcap", "sqlite3"])
def test_bag_service_events_do_not_stop_a_read(tmp_path: Path, storage: StoragePlugin) -> None:
    bag, values = _service_bag(tmp_path / "rec", storage)
    m = read(bag).motion
    assert m.joint_names == tuple(NAMES)
    assert np.array_equal(m.position, values)  # type: ignore[arg-type]


def test_bag_service_events_are_listed_as_not_convertible(tmp_path: Path) -> None:
    bag, _ = _service_bag(tmp_path / "rec", StoragePlugin.MCAP)
    info = rosbag.describe(bag)
    event = next(t for t in info["topics"] if t["topic"] == "/add_two_ints/_service_event")
    assert event["type"] == EVENT and event["messages"] == 4
    assert event["converts_to"] is None and "service events" in event["note"]
    lines = describe_lines(info)
    other = lines.index(next(line for line in lines if line.startswith("other topics, not convertible (1)")))
    assert "/add_two_ints/_service_event" in lines[other + 1] and "service events" in lines[other + 1]
    assert any("/joint_states" in line and "-> joints" in line for line in lines[:other])


def test_bag_an_unparsable_definition_concerns_its_own_topic_only(tmp_path: Path) -> None:
    # Only the definitions of the topics a command reads are parsed.
    states, values = _states(5)
    path = tmp_path / "rec"
    with Writer(path, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        js = writer.add_connection("/joint_states", JS, typestore=TS)
        odd = writer.add_connection(
            "/vendor/blob", "vendor_msgs/msg/Blob", msgdef="%% not a definition {", rihs01="RIHS01_" + "0" * 64
        )
        for _, _, ns, msg in states:
            writer.write(js, ns, TS.serialize_cdr(msg, JS))
            writer.write(odd, ns, b"\x00\x01\x00\x00\x01\x02\x03\x04")
    assert np.array_equal(read(path).motion.position, values)  # type: ignore[arg-type]
    blob = next(t for t in rosbag.describe(path)["topics"] if t["topic"] == "/vendor/blob")
    assert blob["converts_to"] is None and blob["note"].startswith("cannot parse its definition")
    with pytest.raises(ReadError, match=r"topic '/vendor/blob' \(vendor_msgs/msg/Blob\): cannot parse"):
        read(path, trajectory=["/vendor/blob"])


# --------------------------------------------------------------------------- item 10
def _compressed_bag(path: Path, msgs: list[tuple[str, str, int, Any]], storage: StoragePlugin) -> Path:
    """A bag recorded with ``--compression-mode file`` (rosbags writes ``x.mcap.zstd`` / ``x.db3.zstd``)."""
    from rosbags.rosbag2 import CompressionFormat, CompressionMode

    writer = Writer(path, version=9, storage_plugin=storage)
    writer.set_compression(CompressionMode.FILE, CompressionFormat.ZSTD)
    with writer:
        conns: dict[str, Any] = {}
        for topic, msgtype, ns, msg in msgs:
            if topic not in conns:
                conns[topic] = writer.add_connection(topic, msgtype, typestore=TS)
            writer.write(conns[topic], ns, TS.serialize_cdr(msg, msgtype))
    return path


@pytest.mark.parametrize("storage", [StoragePlugin.MCAP, StoragePlugin.SQLITE3], ids=["mcap", "sqlite3"])
def test_bag_recover_compressed_recording_without_metadata(tmp_path: Path, storage: StoragePlugin) -> None:
    msgs, values = _states(300)
    bag = _compressed_bag(tmp_path / "rec", msgs, storage)
    (stored,) = [p for p in bag.iterdir() if p.name.endswith(".zstd")]
    (bag / "metadata.yaml").unlink()
    mf, notes = _read_all(bag)
    assert any("no metadata.yaml" in n and "recovered 300 messages" in n for n in notes), notes
    assert mf.record(BagRecord).recovered_messages == 300
    assert np.array_equal(mf.motion.position, values)
    assert stored.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"  # the input is left as it was
    with pytest.warns(UserWarning, match="recovered 300 messages"):
        info = rosbag.describe(bag)
    assert info["recovered_messages"] == 300


def test_bag_recover_message_compressed_recording_without_metadata(tmp_path: Path) -> None:
    # --compression-mode message: plain storage files whose messages are zstd frames.
    from rosbags.rosbag2 import CompressionFormat, CompressionMode

    msgs, values = _states(100)
    bag = tmp_path / "rec"
    writer = Writer(bag, version=9, storage_plugin=StoragePlugin.SQLITE3)
    writer.set_compression(CompressionMode.MESSAGE, CompressionFormat.ZSTD)
    with writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for _, _, ns, msg in msgs:
            writer.write(conn, ns, TS.serialize_cdr(msg, JS))
    assert np.array_equal(read(bag).motion.position, values)  # through metadata.yaml
    (bag / "metadata.yaml").unlink()
    mf, notes = _read_all(bag)
    assert any("recovered 100 messages" in n for n in notes), notes
    assert np.array_equal(mf.motion.position, values)  # detected by the zstd frame magic


def test_bag_recover_compressed_splits_and_the_cut_active_file(tmp_path: Path) -> None:
    # A split recording killed while it wrote its third file: the closed splits were
    # compressed (rec_0.mcap.zstd, rec_1.mcap.zstd), the active one (rec_2.mcap) is
    # uncompressed and has no summary or footer; no metadata.yaml.
    folder = tmp_path / "rec"
    folder.mkdir()
    all_values = []
    for k in range(3):
        msgs, values = _states(200, start=200 * k)
        all_values.append(values)
        if k < 2:
            part = _compressed_bag(tmp_path / f"part{k}", msgs, StoragePlugin.MCAP)
            (src,) = part.glob("*.zstd")
            shutil.move(src, folder / f"rec_{k}.mcap.zstd")
        else:
            part = write_bag(tmp_path / f"part{k}", msgs, StoragePlugin.MCAP)
            data = (part / f"part{k}.mcap").read_bytes()
            (folder / f"rec_{k}.mcap").write_bytes(data[: int(len(data) * 0.6)])
    mf, notes = _read_all(folder)
    m = mf.motion
    assert any("recording was not closed" in n for n in notes), notes
    assert 400 < m.num_frames < 600
    expected = np.concatenate(all_values)[: m.num_frames]
    assert np.array_equal(m.position, expected)  # both splits whole, the cut file up to its last intact message


def test_bag_recover_partial_metadata_and_interrupted_compression(tmp_path: Path) -> None:
    # Killed while closing: the last file was being compressed (rec_1.mcap complete,
    # rec_1.mcap.zstd cut short) and metadata.yaml was written only half-way.
    msgs0, values0 = _states(100)
    msgs1, values1 = _states(100, start=100)
    bag = _compressed_bag(tmp_path / "rec", msgs0, StoragePlugin.MCAP)
    (first,) = bag.glob("*.zstd")
    first.rename(bag / "rec_0.mcap.zstd")
    part = write_bag(tmp_path / "part", msgs1, StoragePlugin.MCAP)
    shutil.copyfile(part / "part.mcap", bag / "rec_1.mcap")
    other = _compressed_bag(tmp_path / "part_z", msgs1, StoragePlugin.MCAP)
    data = next(other.glob("*.zstd")).read_bytes()
    (bag / "rec_1.mcap.zstd").write_bytes(data[: len(data) // 2])
    meta = bag / "metadata.yaml"
    text = meta.read_text()
    meta.write_text(text[: len(text) // 2])
    mf, notes = _read_all(bag)
    assert any("metadata.yaml is not valid YAML" in n or "metadata.yaml has no" in n for n in notes), notes
    assert np.array_equal(mf.motion.position, np.concatenate([values0, values1]))


def test_bag_recover_a_cut_compressed_file(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)  # values that do not compress to one zstd block
    msgs = [
        ("/joint_states", JS, BASE + k * 1_000_000, joint_state(BASE + k * 1_000_000, NAMES, rng.normal(size=3)))
        for k in range(6000)
    ]
    values = np.array([m[3].position for m in msgs])
    bag = _compressed_bag(tmp_path / "rec", msgs, StoragePlugin.MCAP)
    (stored,) = bag.glob("*.zstd")
    data = stored.read_bytes()
    stored.write_bytes(data[: int(len(data) * 0.7)])
    (bag / "metadata.yaml").unlink()
    mf, notes = _read_all(bag)
    assert any("compression was interrupted" in n for n in notes), notes
    count = mf.motion.num_frames
    assert 0 < count < 6000
    assert np.array_equal(mf.motion.position, values[:count])


# --------------------------------------------------------------------------- item 11
def _meta(bag: Path) -> dict[str, Any]:
    doc = yaml.safe_load((bag / "metadata.yaml").read_text())
    assert isinstance(doc, dict)
    return doc


def _write_meta(bag: Path, doc: dict[str, Any]) -> None:
    (bag / "metadata.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))


@pytest.mark.parametrize("storage", [StoragePlugin.MCAP, StoragePlugin.SQLITE3], ids=["mcap", "sqlite3"])
def test_bag_metadata_stub_with_empty_storage_identifier(tmp_path: Path, storage: StoragePlugin) -> None:
    msgs, values = _states(50)
    bag = write_bag(tmp_path / "rec", msgs, storage)
    doc = _meta(bag)
    doc["rosbag2_bagfile_information"]["storage_identifier"] = ""
    _write_meta(bag, doc)
    mf, notes = _read_all(bag)
    kind = "mcap" if storage == StoragePlugin.MCAP else "sqlite3"
    assert any(f"'storage_identifier' is empty; the files are {kind} storage (detected)" in n for n in notes), notes
    assert np.array_equal(mf.motion.position, values)
    assert mf.record(BagRecord).recovered_messages is None  # a stub, not a crash


def test_bag_metadata_older_version_without_times_and_counts(tmp_path: Path) -> None:
    msgs, values = _states(50)
    bag = write_bag(tmp_path / "rec", msgs, StoragePlugin.SQLITE3)
    info = _meta(bag)["rosbag2_bagfile_information"]
    older = {
        "version": 4,
        "storage_identifier": "sqlite3",
        "relative_file_paths": info["relative_file_paths"],
        "topics_with_message_count": [
            {
                "topic_metadata": {k: v for k, v in t["topic_metadata"].items() if k != "type_description_hash"},
                "message_count": t["message_count"],
            }
            for t in info["topics_with_message_count"]
        ],
        "compression_format": "",
        "compression_mode": "",
    }
    _write_meta(bag, {"rosbag2_bagfile_information": older})
    mf, notes = _read_all(bag)
    (note,) = [n for n in notes if "metadata.yaml: no " in n]
    assert "'duration', 'starting_time', 'message_count'" in note and "metadata version 4" in note
    assert np.array_equal(mf.motion.position, values)


def test_bag_metadata_prerelease_layout(tmp_path: Path) -> None:
    # rosbag2 before its first release (2018): no version, a top-level encoding,
    # topic_and_type instead of topic_metadata, and a sqlite3 file with the tables of then.
    msgs, values = _states(30)
    bag = tmp_path / "rosbag2_2018"
    bag.mkdir()
    con = sqlite3.connect(bag / "rosbag2_2018.db3")
    con.executescript(
        "CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL,"
        " serialization_format TEXT NOT NULL);"
        "CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL,"
        " data BLOB NOT NULL);"
    )
    con.execute("INSERT INTO topics VALUES (1, '/joint_states', 'sensor_msgs/msg/JointState', 'cdr')")
    con.executemany(
        "INSERT INTO messages(topic_id, timestamp, data) VALUES (1, ?, ?)",
        [(ns, TS.serialize_cdr(msg, JS).tobytes()) for _, _, ns, msg in msgs],
    )
    con.commit()
    con.close()
    (bag / "metadata.yaml").write_text(
        "rosbag2_bagfile_information:\n"
        "  storage_identifier: sqlite3\n"
        "  encoding: cdr\n"
        "  relative_file_paths:\n    - rosbag2_2018.db3\n"
        "  duration:\n    nanoseconds: 290000000\n"
        f"  starting_time:\n    nanoseconds_since_epoch: {BASE}\n"
        "  message_count: 30\n"
        "  topics_with_message_count:\n"
        "    - topic_and_type:\n        name: /joint_states\n        type: sensor_msgs/msg/JointState\n"
        "      message_count: 30\n"
    )
    mf, notes = _read_all(bag)
    assert any("no 'version' (the pre-release rosbag2 layout)" in n for n in notes), notes
    assert any("'topics_with_message_count[].topic_metadata'" in n for n in notes), notes
    assert np.array_equal(mf.motion.position, values)


def test_bag_metadata_that_cannot_be_completed_names_the_field(tmp_path: Path) -> None:
    msgs, _ = _states(5)
    bag = write_bag(tmp_path / "rec", msgs, StoragePlugin.MCAP)
    doc = _meta(bag)
    doc["rosbag2_bagfile_information"]["storage_identifier"] = ""
    doc["rosbag2_bagfile_information"]["relative_file_paths"] = []
    _write_meta(bag, doc)
    (bag / "rec.mcap").unlink()  # nothing left to detect the storage from
    with pytest.raises(ReadError, match=r"'storage_identifier' is empty and the folder holds no storage file"):
        read(bag, format="rosbag")
    doc["rosbag2_bagfile_information"]["storage_identifier"] = "mcap"
    del doc["rosbag2_bagfile_information"]["relative_file_paths"]
    _write_meta(bag, doc)
    with pytest.raises(ReadError, match=r"'relative_file_paths' is missing and the folder holds no"):
        read(bag, format="rosbag")


def test_bag_metadata_complete_for_its_version_is_read_by_rosbags_as_before(tmp_path: Path) -> None:
    # No warning for a bag whose metadata is complete (version 9 as rosbags writes it).
    msgs, values = _states(20)
    bag = write_bag(tmp_path / "rec", msgs, StoragePlugin.MCAP)
    mf, notes = _read_all(bag)
    assert not [n for n in notes if "metadata.yaml" in n]
    assert np.array_equal(mf.motion.position, values)
    assert re.search(r"version: 9", (bag / "metadata.yaml").read_text())
