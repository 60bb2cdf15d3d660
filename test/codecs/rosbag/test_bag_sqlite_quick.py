"""rosbag2 folders of sqlite3 storage open without counting their messages, and read the same.

The folder's counts come from its metadata.yaml; the storage's count (a scan of every
message) only finds damage, and the read's own scan of the table stands in for it. Every
read here is compared with the ordinary read (rosbags' open, counts included): the same
motion to the byte, the same warnings, the same error on a damaged table.
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
from support.bags import joint_state
from test_bag_fast_runs import BASE, same, write_messages

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.codecs.rosbag import _read
from motion_formats_ros.codecs.rosbag.storage import BagSource
from motion_formats_ros.codecs.rosbag.storage import sqlite_quick as _sqlite
from motion_formats_ros.core.errors import ReadError


class Spy:
    """Which storages opened quickly, and which of them still owed the scan at the end."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.quick: list[Any] = []
        self.owed_at_check: list[bool] = []
        original_open, original_check = _sqlite.QuickSqlite3Reader._open, _sqlite.QuickSqlite3Reader.check
        spy = self

        def opened(reader: Any) -> None:
            original_open(reader)
            if reader.owed:
                spy.quick.append(reader)

        def checked(reader: Any) -> None:
            spy.owed_at_check.append(reader.owed)
            original_check(reader)

        monkeypatch.setattr(_sqlite.QuickSqlite3Reader, "_open", opened)
        monkeypatch.setattr(_sqlite.QuickSqlite3Reader, "check", checked)


def outcome(bag: Path, quick: bool, monkeypatch: pytest.MonkeyPatch, **options: Any) -> tuple[Any, list[str]]:
    """(the motion file, or the error's type and text; the warnings) of reading ``bag``."""
    with monkeypatch.context() as patch:
        if not quick:
            patch.setattr(_read, "quick_candidate", lambda path: False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got: Any = read(bag, progress=False, **options)
            except Exception as exc:
                got = (type(exc), str(exc))
    return got, [str(w.message) for w in caught]


def agree(bag: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Any:
    quick, quick_warnings = outcome(bag, True, monkeypatch, **options)
    ordinary, ordinary_warnings = outcome(bag, False, monkeypatch, **options)
    assert quick_warnings == ordinary_warnings
    same(quick, ordinary)
    return quick


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
    assert len(spy.quick) == 1  # the quick read; the ordinary one counted
    assert spy.owed_at_check == [False]  # the joint states' query visited every row: nothing owed


def test_a_read_that_scans_no_message_table_runs_the_count_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bag = walk_bag(tmp_path / "walk")
    spy = Spy(monkeypatch)
    agree(bag, monkeypatch, bulk=False)  # the bulk switch does not change the blocks: still scanned
    assert spy.owed_at_check == [False]
    with BagSource(bag, quick=True) as source:  # opened, nothing read
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
        BagSource(bag).open()  # the ordinary open counts, and meets the damage
    with BagSource(bag, quick=True) as source:
        assert source.quick
        with pytest.raises(apsw.CorruptError):
            source.settle()


def _set_encoding(db: Path, encoding: str) -> None:
    con = apsw.Connection(str(db))
    try:
        con.execute("UPDATE message_definitions SET encoding = ?", (encoding,))
    finally:
        con.close()


def _drop_schema_table(db: Path) -> None:
    con = apsw.Connection(str(db))
    try:
        con.execute("DROP TABLE schema")
    finally:
        con.close()


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


BAGS = corpus_params("rosbag", "ros2/*")


@pytest.mark.parametrize("bag", BAGS)
def test_every_corpus_folder_reads_the_same_quick_and_ordinary(
    bag: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not any(bag.glob("*.db3")):
        pytest.skip("not sqlite3 storage")
    copy = tmp_path / bag.name
    shutil.copytree(bag, copy)
    spy = Spy(monkeypatch)
    agree(copy, monkeypatch)
    assert spy.quick or not (copy / "metadata.yaml").is_file()
