"""The one output rule of :mod:`motion_formats_ros.core.atomic`: an output is no input, holds none
and is inside none; ``overwrite`` replaces a file with a file and a rosbag2 bag folder with a bag
folder, and never a folder holding anything else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from motion_formats_ros import write
from motion_formats_ros.core import atomic
from motion_formats_ros.core.errors import WriteError
from motion_formats_ros.core.examples import biped_walk


def test_an_output_that_is_holds_or_is_inside_an_input_is_named(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    motion = tmp_path / "in" / "walk.seq"
    motion.write_text("x")
    bag = tmp_path / "bag"
    bag.mkdir()
    (tmp_path / "link.seq").symlink_to(motion)
    (tmp_path / "hard.seq").hardlink_to(motion)
    inputs = atomic.Inputs([motion, bag, tmp_path / "missing.urdf"])
    assert inputs.conflict(motion) == f"is the input {str(motion)!r}"
    assert inputs.conflict(tmp_path / "link.seq") == f"is the input {str(motion)!r}"
    assert inputs.conflict(tmp_path / "hard.seq") == f"is the input {str(motion)!r}"
    assert inputs.conflict(tmp_path / "in") == f"holds the input {str(motion)!r}"
    assert str(inputs.conflict(tmp_path)).startswith("holds the input")
    assert inputs.conflict(bag / "out.csv") == f"is inside the input {str(bag)!r}"
    assert inputs.conflict(tmp_path / "in" / "walk.csv") is None  # beside an input: nothing lost
    assert inputs.conflict(tmp_path / "missing.urdf") is None  # not there: nothing to lose
    with pytest.raises(WriteError, match=r"in: holds the input .*an output never is, holds or goes inside an input"):
        atomic.check_output(tmp_path / "in", [motion], overwrite=True)
    assert motion.read_text() == "x"


def test_a_folder_is_replaced_only_when_it_holds_a_bag_and_only_by_a_bag(tmp_path: Path) -> None:
    bag = tmp_path / "run"
    bag.mkdir()
    for name in ("metadata.yaml", "run_0.mcap", "run_1.db3", "run_1.db3-wal", "run_1.db3-shm", "run_2.mcap.zstd"):
        (bag / name).write_text("")
    assert atomic.foreign_entries(bag) == []
    assert atomic.check_writable(bag, overwrite=True, folder=True) == bag
    with pytest.raises(WriteError, match=r"run: is a folder; this output is a file, which never replaces a folder"):
        atomic.check_writable(bag, overwrite=True, folder=False)
    (bag / "notes.txt").write_text("mine")
    (bag / "plots").mkdir()
    (bag / "metadata.yaml.mcap").mkdir()  # a folder, whatever its name
    assert atomic.foreign_entries(bag) == ["metadata.yaml.mcap/", "notes.txt", "plots/"]
    for folder in (True, None):
        with pytest.raises(WriteError, match=r"run: is a folder holding metadata.yaml.mcap/, notes.txt, plots/: not a"):
            atomic.check_writable(bag, overwrite=True, folder=folder)
    (tmp_path / "file").write_text("mine")
    with pytest.raises(WriteError, match=r"file: is a file; this output is a folder \(a rosbag2 bag\)"):
        atomic.check_writable(tmp_path / "file", overwrite=True, folder=True)


def test_a_bare_bag_file_never_replaces_a_folder_through_the_api(tmp_path: Path) -> None:
    """A write of a bare .mcap onto a folder of the same name exchanged the two, deleting the folder."""
    folder = tmp_path / "data.mcap"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep")
    with pytest.raises(WriteError, match=r"data\.mcap: is a folder; this output is a file"):
        write(biped_walk(rate=25.0, cycles=1), folder, overwrite=True)
    assert (folder / "keep.txt").read_text() == "keep"
    (folder / "keep.txt").unlink()
    (folder / "metadata.yaml").write_text("")  # a bag's own file: still no file in place of a folder
    with pytest.raises(WriteError, match=r"data\.mcap: is a folder; this output is a file"):
        write(biped_walk(rate=25.0, cycles=1), folder, overwrite=True)
    assert folder.is_dir() and (folder / "metadata.yaml").exists()


def test_a_folder_that_changed_during_the_work_is_not_replaced(tmp_path: Path) -> None:
    """place() looks again: a file put into the old bag folder while the new one was written stays."""
    out = tmp_path / "run"
    out.mkdir()
    (out / "metadata.yaml").write_text("old")
    assert atomic.check_writable(out, overwrite=True, folder=True) == out
    (out / "late.txt").write_text("written meanwhile")
    with atomic.temp_folder(out) as tmp:
        new = tmp / "run"
        new.mkdir()
        (new / "metadata.yaml").write_text("new")
        with pytest.raises(WriteError, match=r"run: is a folder holding late\.txt"):
            atomic.place(new, out, True, tmp)
        produced = tmp / "run.mcap"
        produced.write_text("bare")
        with pytest.raises(WriteError, match=r"run: is a folder; this output is a file"):
            atomic.place(produced, out, True, tmp)
    assert sorted(os.listdir(out)) == ["late.txt", "metadata.yaml"]
    assert (out / "metadata.yaml").read_text() == "old"


def test_an_output_in_a_folder_inside_a_bag_is_refused_however_it_is_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bag = tmp_path / "bag"
    write(biped_walk(rate=10.0, cycles=1), bag, format="rosbag", storage="mcap")
    (bag / "sub" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(bag / "sub")
    monkeypatch.chdir(tmp_path)
    assert atomic.enclosing_bag("bag/sub/deep/x.csv") == "bag"
    assert atomic.enclosing_bag("bag/x.csv") == "bag"
    assert atomic.enclosing_bag(bag / "sub" / "x.csv") == str(bag)
    assert atomic.enclosing_bag("link/deep/x.csv") == str(bag)  # through a link
    monkeypatch.chdir(bag / "sub" / "deep")
    assert atomic.enclosing_bag("x.csv") == str(bag)
    assert atomic.enclosing_bag("../../sub/x.csv") == "../.."
    assert atomic.enclosing_bag(tmp_path / "x.csv") is None
    with pytest.raises(WriteError, match=r"link/deep/x\.csv: is inside the rosbag2 bag "):
        atomic.check_writable(tmp_path / "link" / "deep" / "x.csv")
    with pytest.raises(WriteError, match=r"is inside the rosbag2 bag"):
        atomic.make_folders(tmp_path / "bag" / "new" / "more")
    assert not (bag / "new").exists()
