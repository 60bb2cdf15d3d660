"""Bags in rosbag2's usual layouts read by the package's own readers, and read the same as through rosbags.

The own readers open rosbag2 folders, indexed ``.mcap`` and ``.db3`` files without
loading rosbags; what they do not know (and any read of theirs that fails) is read again
through rosbags' readers. A folder's sqlite3 storage opens without counting its messages
(a scan of every one that only finds damage: the counts come from its metadata.yaml),
and the read's own scan of the table stands in for it. Every read here is compared with
the read through rosbags: the same motion to the byte, the same warnings, the same error.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import apsw
import numpy as np
import pytest
import yaml
from conftest import corpus_params
from hypothesis import given, settings
from hypothesis import strategies as st
from support.bags import joint_state
from test_bag_fast_runs import BASE, same, write_messages

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.codecs.rosbag import _read
from motion_formats_ros.codecs.rosbag.storage import BagSource
from motion_formats_ros.codecs.rosbag.storage import direct as _direct
from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.notices import NoticeKind


class Spy:
    """Which storages opened quickly, which of them still owed the scan at the end, and which reads were direct."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.quick: list[Any] = []
        self.owed_at_check: list[bool] = []
        self.direct: list[bool] = []  # per read: did the own readers' read stand
        original_open, original_check = _direct.SqliteStorage._open, _direct.SqliteStorage.check
        original_read = _read._BagReader._direct_read
        spy = self

        def opened(reader: Any) -> None:
            original_open(reader)
            if reader.owed:
                spy.quick.append(reader)

        def checked(reader: Any) -> None:
            spy.owed_at_check.append(reader.owed)
            original_check(reader)

        def direct_read(reader: Any) -> Any:
            got = original_read(reader)
            spy.direct.append(got is not None)
            return got

        monkeypatch.setattr(_direct.SqliteStorage, "_open", opened)
        monkeypatch.setattr(_direct.SqliteStorage, "check", checked)
        monkeypatch.setattr(_read._BagReader, "_direct_read", direct_read)


def outcome(bag: Path, direct: bool, monkeypatch: pytest.MonkeyPatch, **options: Any) -> tuple[Any, list[str]]:
    """(the motion file, or the error's type and text; the warnings) of reading ``bag`` (``direct``: as a user does)."""
    with monkeypatch.context() as patch:
        if not direct:
            patch.setattr(_read, "direct_candidate", lambda path: False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got: Any = read(bag, progress=False, **options)
            except Exception as exc:
                got = (type(exc), str(exc))
    if isinstance(got, MotionFile):  # a fallback says so (informational); the rest must agree
        fallbacks = [n for n in got.notices if n.kind is NoticeKind.FALLBACK]
        assert direct or not fallbacks
        got.notices = tuple(n for n in got.notices if n.kind is not NoticeKind.FALLBACK)
    return got, [str(w.message) for w in caught]


def agree(bag: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Any:
    direct, direct_warnings = outcome(bag, True, monkeypatch, **options)
    ordinary, ordinary_warnings = outcome(bag, False, monkeypatch, **options)
    assert direct_warnings == ordinary_warnings
    if isinstance(direct, tuple):
        assert direct == ordinary
    else:
        same(direct, ordinary)
    return direct


def walk_bag(path: Path, frames: int = 2000) -> Path:
    rng = np.random.default_rng(0)
    motion = Motion(
        times=np.arange(frames) / 100.0,
        joint_names=("hip", "knee"),
        position=rng.normal(size=(frames, 2)),
        velocity=rng.normal(size=(frames, 2)),
    )
    write(MotionFile.single(motion, name="walk"), path, format="rosbag", storage="sqlite3")
    return path


def damage_a_message_page(bag: Path) -> None:
    """Break the header of a leaf page in the middle of the messages table."""
    (db,) = bag.glob("*.db3")
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        pages = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf'")]
        ((size,),) = list(con.execute("PRAGMA page_size"))
    finally:
        con.close()
    assert len(pages) > 4
    with open(db, "r+b") as fh:
        fh.seek((pages[len(pages) // 2] - 1) * size)
        fh.write(b"\xff")  # no page type


def test_a_folder_opens_without_the_count_and_its_read_does_the_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bag = walk_bag(tmp_path / "walk")
    spy = Spy(monkeypatch)
    got = agree(bag, monkeypatch)
    assert got.motion.num_frames == 2000
    assert len(spy.quick) == 1  # the direct read; the ordinary one counted
    assert spy.owed_at_check == [False]  # the joint states' query visited every row: nothing owed
    assert spy.direct == [True]


def test_a_read_that_scans_no_message_table_runs_the_count_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bag = walk_bag(tmp_path / "walk")
    spy = Spy(monkeypatch)
    agree(bag, monkeypatch, bulk=False)  # the bulk switch does not change the blocks: still scanned
    assert spy.owed_at_check == [False]
    with BagSource(bag, direct=True) as source:  # opened, nothing read
        assert source.quick and all(s.owed for s in source.quick)
        source.settle()
        assert not any(s.owed for s in source.quick)
    assert spy.owed_at_check[-1] is True


@pytest.mark.parametrize("variant", ["rosbags", "package", "metadata note"])
def test_a_damaged_message_table_fails_as_the_ordinary_read_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    if variant == "rosbags":  # written by rosbags' own writer
        messages = [(BASE + i * 1000, joint_state(BASE + i * 1000, ["a", "b"], [i, -i])) for i in range(3000)]
        bag = write_messages(tmp_path / "b", messages, "sqlite3")
    else:
        bag = walk_bag(tmp_path / "walk")
    if variant == "metadata note":  # a warning before the storage opens: said once, by the read that counts
        meta = bag / "metadata.yaml"
        doc = yaml.safe_load(meta.read_text())
        del doc["rosbag2_bagfile_information"]["custom_data"]
        meta.write_text(yaml.safe_dump(doc))
    damage_a_message_page(bag)
    spy = Spy(monkeypatch)
    quick, quick_warnings = outcome(bag, True, monkeypatch)
    assert len(spy.quick) == 1  # opened quickly, then read again the ordinary way
    assert spy.direct == [False]
    ordinary, ordinary_warnings = outcome(bag, False, monkeypatch)
    assert quick == ordinary
    assert quick_warnings == ordinary_warnings
    assert quick[0] is ReadError and "cannot read bag: Cannot open database" in quick[1]
    assert "malformed" in quick[1]
    assert len(quick_warnings) == (variant == "metadata note")


def test_the_scan_left_out_fails_on_a_damaged_table(tmp_path: Path) -> None:
    bag = walk_bag(tmp_path / "walk")
    damage_a_message_page(bag)
    with pytest.raises(ReadError, match="malformed"):
        BagSource(bag).open()  # rosbags' open counts, and meets the damage
    with BagSource(bag, direct=True) as source:
        assert source.quick
        with pytest.raises(_direct.UnusualLayoutError, match="malformed") as caught:
            source.settle()  # the planned signal: rosbags' reader words the damage
        assert isinstance(caught.value.__cause__, apsw.CorruptError)


def _execute(db: Path, statement: str, values: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Run one SQL statement on a bag's database (a damage a test makes); its rows."""
    con = apsw.Connection(str(db))
    try:
        return list(con.execute(statement, values))
    finally:
        con.close()


def _set_encoding(db: Path, encoding: str) -> None:
    _execute(db, "UPDATE message_definitions SET encoding = ?", (encoding,))


def _drop_schema_table(db: Path) -> None:
    _execute(db, "DROP TABLE schema")


@pytest.mark.parametrize(
    ("change", "quick"),
    [(lambda db: _set_encoding(db, "weird"), False), (_drop_schema_table, True), (lambda db: None, True)],
    ids=["unknown definition encoding", "no schema table", "as written"],
)
def test_unusual_layouts_are_opened_by_rosbags_own_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any, quick: bool
) -> None:
    bag = walk_bag(tmp_path / "walk", frames=50)
    (db,) = bag.glob("*.db3")
    change(db)
    spy = Spy(monkeypatch)
    agree(bag, monkeypatch)
    assert bool(spy.quick) is quick
    assert spy.direct == [quick]


BAGS = corpus_params("rosbag", "ros2/*")


@pytest.mark.parametrize("bag", BAGS)
def test_every_corpus_folder_reads_the_same_directly_and_through_rosbags(
    bag: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / bag.name
    shutil.copytree(bag, copy)
    spy = Spy(monkeypatch)
    agree(copy, monkeypatch)
    if any(copy.glob("*.db3")):
        assert spy.quick or not (copy / "metadata.yaml").is_file()


# --------------------------------------------------------------------------- every usual layout
def _messages() -> list[tuple[str, str, int, Any]]:
    """Joint states, TF, a robot description and a commanded trajectory: what a robot's recording holds."""
    from support.bags import JS, TF, TS, tf_message, transform

    traj = TS.types["trajectory_msgs/msg/JointTrajectory"]
    point = TS.types["trajectory_msgs/msg/JointTrajectoryPoint"]
    duration = TS.types["builtin_interfaces/msg/Duration"]
    from support.bags import header

    out: list[tuple[str, str, int, Any]] = [
        ("/robot_description", "std_msgs/msg/String", BASE, TS.types["std_msgs/msg/String"](data="<robot name='r'/>")),
        (
            "/arm_controller/joint_trajectory",
            "trajectory_msgs/msg/JointTrajectory",
            BASE,
            traj(
                header=header(BASE),
                joint_names=["a", "b"],
                points=[
                    point(
                        positions=np.array([0.1 * k, -0.1 * k]),
                        velocities=np.array([], dtype=np.float64),
                        accelerations=np.array([], dtype=np.float64),
                        effort=np.array([], dtype=np.float64),
                        time_from_start=duration(sec=k, nanosec=5),
                    )
                    for k in range(4)
                ],
            ),
        ),
    ]
    for i in range(200):
        ns = BASE + i * 10_000_000
        out.append(("/joint_states", JS, ns, joint_state(ns, ["a", "b"], [0.01 * i, -0.01 * i], [0.5, 0.25])))
        out.append(("/tf", TF, ns, tf_message(transform(ns, "world", "base", [0.0, 0.001 * i, 0.3]))))
    return out


def _layout(tmp_path: Path, kind: str) -> Path:
    from rosbags.rosbag2 import StoragePlugin
    from support.bags import write_bag

    if kind.startswith("bare-mcap-"):
        from test_bag_mcap_summary import bare_mcap, joint_states

        return bare_mcap(tmp_path / "x.mcap", joint_states(), kind.removeprefix("bare-mcap-").replace("none", ""))
    if kind == "package-mcap":
        rng = np.random.default_rng(3)
        motion = Motion(times=np.arange(300) / 100.0, joint_names=("a", "b"), position=rng.normal(size=(300, 2)))
        write(MotionFile.single(motion, name="m"), tmp_path / "p", format="rosbag", storage="mcap")
        return tmp_path / "p"
    storage = StoragePlugin.SQLITE3 if "sqlite3" in kind or kind == "bare-db3" else StoragePlugin.MCAP
    folder = write_bag(tmp_path / "rec", _messages(), storage)
    if kind == "bare-db3":
        (db,) = folder.glob("*.db3")
        return db
    return folder


@pytest.mark.parametrize(
    "kind",
    ["mcap-folder", "sqlite3-folder", "bare-db3", "package-mcap", "bare-mcap-zstd", "bare-mcap-lz4", "bare-mcap-none"],
)
@pytest.mark.parametrize("bulk", [True, False], ids=["in bulk", "message by message"])
def test_each_usual_layout_is_read_directly_and_as_through_rosbags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, bulk: bool
) -> None:
    bag = _layout(tmp_path, kind)
    spy = Spy(monkeypatch)
    got = agree(bag, monkeypatch, bulk=bulk)  # message by message: the standard types' own decoder
    assert spy.direct == [True]
    assert not isinstance(got, tuple) and got.motion.num_frames > 100
    if "folder" in kind or kind == "bare-db3":  # the trajectory and the description were decoded too
        assert sorted(m.num_frames for m in got.groups.values()) == [4, 200], got.groups.keys()
        assert got.robot_description == "<robot name='r'/>"


def _edit_metadata(folder: Path, change: Any) -> None:
    meta = folder / "metadata.yaml"
    doc = yaml.safe_load(meta.read_text())
    change(doc["rosbag2_bagfile_information"])
    meta.write_text(yaml.safe_dump(doc))


def _qos_of_tf(info: dict[str, Any], value: Any) -> None:
    for entry in info["topics_with_message_count"]:
        if entry["topic_metadata"]["name"] == "/tf":
            entry["topic_metadata"]["offered_qos_profiles"] = value


def _another_tf_hash(folder: Path) -> None:
    """The type hash recorded for /tf, in metadata.yaml and the storage alike, is not its definition's."""
    wrong = "RIHS01_" + "0" * 64
    _edit_metadata(
        folder,
        lambda info: [
            e["topic_metadata"].update(type_description_hash=wrong)
            for e in info["topics_with_message_count"]
            if e["topic_metadata"]["name"] == "/tf"
        ],
    )
    (db,) = folder.glob("*.db3")
    _execute(db, "UPDATE topics SET type_description_hash = ? WHERE name = '/tf'", (wrong,))


def _other_joint_state_definition(folder: Path) -> None:
    """The folder's JointState definition with one more field (a fork's): not the standard type."""
    (db,) = folder.glob("*.db3")
    query = "SELECT encoded_message_definition FROM message_definitions WHERE topic_type = ?"
    ((text,),) = _execute(db, query, ("sensor_msgs/msg/JointState",))
    assert isinstance(text, str)
    _execute(
        db,
        "UPDATE message_definitions SET encoded_message_definition = ? WHERE topic_type = ?",
        (text.replace("float64[] effort", "float64[] effort\nfloat64 temperature", 1), "sensor_msgs/msg/JointState"),
    )


@pytest.mark.parametrize(
    ("change", "direct"),
    [
        ("QoS of a topic read message by message that differ from the storage's", False),
        ("QoS that do not parse", False),
        ("a newer metadata version", False),
        ("compressed storage named in the metadata", False),
        ("a JointState definition that is not the standard one", True),
        ("a type hash that does not match the definition", True),
    ],
)
def test_what_the_own_readers_do_not_know_reads_as_through_rosbags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, direct: bool
) -> None:
    bag = _layout(tmp_path, "sqlite3-folder")
    if change.startswith("QoS of a topic"):
        _edit_metadata(
            bag,
            lambda info: _qos_of_tf(
                info,
                [
                    {
                        "history": 1,
                        "depth": 10,
                        "reliability": 1,
                        "durability": 2,
                        "deadline": {"sec": 0, "nsec": 0},
                        "lifespan": {"sec": 0, "nsec": 0},
                        "liveliness": 1,
                        "liveliness_lease_duration": {"sec": 0, "nsec": 0},
                        "avoid_ros_namespace_conventions": False,
                    }
                ],
            ),
        )
    elif change.startswith("QoS that do not"):
        _edit_metadata(bag, lambda info: _qos_of_tf(info, "- history: [unclosed"))
    elif change.startswith("a newer"):
        _edit_metadata(bag, lambda info: info.update(version=10))
    elif change.startswith("compressed"):
        _edit_metadata(bag, lambda info: info.update(compression_mode="message", compression_format="zstd"))
    elif change.startswith("a JointState"):
        _other_joint_state_definition(bag)
    else:
        _another_tf_hash(bag)
    spy = Spy(monkeypatch)
    agree(bag, monkeypatch)
    assert spy.direct == [direct]
    if change.startswith("a type hash"):  # said by the own readers as by rosbags' typestore
        _, said = outcome(bag, True, monkeypatch)
        assert any("does not match the type hash" in w for w in said), said


def test_a_summary_that_lies_and_a_file_without_summary_read_as_through_rosbags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bag = _layout(tmp_path, "bare-mcap-zstd")
    data = bag.read_bytes()
    cut = tmp_path / "cut.mcap"
    cut.write_bytes(data[: len(data) * 2 // 3])  # a recording killed mid-way: no summary, no footer
    spy = Spy(monkeypatch)
    agree(cut, monkeypatch)
    assert spy.direct == [False]


# --------------------------------------------------------------------------- metadata YAML
SCALARS = st.sampled_from(
    ["0", "12", "-3", "007", "0o17", "0x1f", "1e3", "1.5", ".inf", "1:30", "1_000", "yes", "No", "on", "OFF", "y",
     "true", "True", "false", "null", "Null", "~", "", "keep_last", "/joint_states", "sensor_msgs/msg/JointState",
     "RIHS01_abc", "'quoted'", '"dq \\t tab"', '"a\\/b"', "2001-12-14", "a: b", "http://x", "=", "-", "jazzy"]
)  # fmt: skip


@st.composite
def yaml_documents(draw: st.DrawFn) -> str:
    keys = draw(st.lists(st.sampled_from(["version", "a", "b", "ros_distro", "yes", "1", "x"]), min_size=1, max_size=4))
    lines = []
    for key in keys:
        if draw(st.booleans()):
            lines.append(f"{key}: {draw(SCALARS)}")
        else:
            lines.append(f"{key}:")
            lines += [f"  - {draw(SCALARS)}" for _ in range(draw(st.integers(0, 3)))]
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(yaml_documents())
def test_metadata_yaml_is_read_as_rosbags_reads_it_or_left_to_it(text: str) -> None:
    from ruamel.yaml import YAML

    try:
        theirs: Any = YAML(typ="safe").load(text)
    except Exception as exc:
        theirs = type(exc)
    try:
        ours: Any = _direct._yaml(text)
    except _direct.UnusualLayoutError:
        return
    assert ours == theirs and type(ours) is type(theirs)
    if isinstance(ours, dict):
        for key in ours:
            assert type(ours[key]) is type(theirs[key]), key


def test_a_rosbag2_metadata_file_is_read_without_rosbags_parser(tmp_path: Path) -> None:
    """Every metadata.yaml written by rosbags' writer and the package's reads alike (no fallback)."""
    from ruamel.yaml import YAML

    for kind in ("mcap-folder", "sqlite3-folder", "package-mcap"):
        (tmp_path / kind).mkdir()
        text = (_layout(tmp_path / kind, kind) / "metadata.yaml").read_text()
        assert _direct._yaml(text) == YAML(typ="safe").load(text)
