"""The package's own entry in a bag's custom data is a hint: a field of the wrong type or form is
left out with one warning naming the file and the field, and the bag is read as if it were absent."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_walk

KEY = "motion_formats_ros"


def _bag(folder: Path, storage: str) -> Path:
    write(biped_walk(rate=10.0, cycles=1), folder, format="rosbag", storage=storage)
    return folder


def _edit(folder: Path, change: object) -> Path:
    """The bag's metadata.yaml with its custom entry changed by ``change`` (a callable on the entry, or a
    text that replaces it whole)."""
    meta = folder / "metadata.yaml"
    doc = yaml.safe_load(meta.read_text())
    custom = doc["rosbag2_bagfile_information"]["custom_data"]
    custom[KEY] = change if isinstance(change, str) else json.dumps(change(json.loads(custom[KEY])))  # type: ignore[operator]
    meta.write_text(yaml.safe_dump(doc))
    return meta


def _read(folder: Path) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        motion_file = read(folder)
    return motion_file, [str(w.message) for w in caught]


@pytest.mark.parametrize("storage", ["sqlite3", "mcap"])
@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("root", 123, "123"),
        ("root", True, "true"),
        ("root", ["a"], '["a"]'),
        ("root", {"a": 1}, '{"a": 1}'),
        ("root", "base_link", '"base_link"'),
        ("group", 7, "7"),
        ("links", "base_link", '"base_link"'),
        ("imus", [1], "[1]"),
        ("series", {"/zmp": ["zmp", 9, None]}, '{"/zmp": ["zmp", 9, null]}'),
        ("trajectory_needed", "no", '"no"'),
        ("origin_ns", "0", '"0"'),
        pytest.param("origin_ns", 10**399, "an integer of about 400 digits", id="origin_ns-400-digits"),
    ],
)
def test_a_field_of_the_wrong_type_or_form_is_ignored_with_one_warning(
    tmp_path: Path, storage: str, field: str, value: object, shown: str
) -> None:
    clean = read(_bag(tmp_path / "clean", storage))
    bag = _bag(tmp_path / "b1", storage)
    meta = _edit(bag, lambda entry: {**entry, field: value})
    motion_file, messages = _read(bag)
    assert messages == [f"{meta}: custom_data.{KEY}.{field}: {shown}: " + messages[0].split(f"{shown}: ", 1)[1]]
    assert messages[0].endswith("; ignored (the bag is read without it)")
    assert len(messages[0]) < 300  # a 400-digit number is not printed whole
    np.testing.assert_array_equal(motion_file.motion.position, clean.motion.position)  # type: ignore[attr-defined]


@pytest.mark.parametrize(("entry", "reason"), [("[1]", "[1] is not a JSON object"), ("{", "not JSON (")])
def test_an_entry_that_is_no_json_object_is_ignored_with_one_warning(tmp_path: Path, entry: str, reason: str) -> None:
    bag = _bag(tmp_path / "b1", "mcap")
    meta = _edit(bag, entry)
    motion_file, messages = _read(bag)
    assert len(messages) == 1 and messages[0].startswith(f"{meta}: custom_data.{KEY}: {reason}"), messages
    assert motion_file.motion.num_frames > 0  # type: ignore[attr-defined]


def test_what_the_writer_leaves_passes_without_a_warning(tmp_path: Path) -> None:
    """A bag without a trajectory group has ``"trajectory_group": null``: no warning for it, nor for any field."""
    bag = _bag(tmp_path / "b1", "mcap")
    _edit(bag, lambda entry: {**entry, "trajectory_group": None, "name": None})
    motion_file, messages = _read(bag)
    assert not [m for m in messages if "custom_data" in m], messages
    assert motion_file.motion.num_frames > 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("storage", ["sqlite3", "mcap"])
@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("../../etc", '"../../etc"'),
        ("a/b", '"a/b"'),
        ("x" * 1_000_000, '"' + "x" * 59 + "…"),
    ],
    ids=["parent-folders", "separator", "1MB"],
)
def test_a_group_that_is_no_plain_name_is_ignored_and_shown_bounded(
    tmp_path: Path, storage: str, value: str, shown: str
) -> None:
    """A group name may become part of an output file's name (a table or plot per group)."""
    bag = _bag(tmp_path / "b1", storage)
    meta = _edit(bag, lambda entry: {**entry, "group": value})
    motion_file, messages = _read(bag)
    assert messages == [
        f"{meta}: custom_data.{KEY}.group: {shown}: expected a group name (letters, digits, _ and -, at most 100) "
        "or null; ignored (the bag is read without it)"
    ]
    assert list(motion_file.groups) == ["actual"]  # type: ignore[attr-defined]


def test_an_integer_of_more_digits_than_python_converts_is_ignored_as_its_field(tmp_path: Path) -> None:
    bag = _bag(tmp_path / "b1", "mcap")
    meta = _edit(bag, lambda entry: {**entry, "origin_ns": 0})
    text = meta.read_text()
    meta.write_text(text.replace('"origin_ns": 0', '"origin_ns": ' + "9" * 5000))
    motion_file, messages = _read(bag)
    assert messages == [
        f"{meta}: custom_data.{KEY}.origin_ns: an integer of 5,000 digits: expected an integer of nanoseconds "
        "within ±4.61e+18; ignored (the bag is read without it)"
    ]
    assert motion_file.motion.num_frames > 0  # type: ignore[attr-defined]


def test_the_writer_leaves_out_a_group_name_that_is_no_plain_name(tmp_path: Path) -> None:
    walk = biped_walk(rate=10.0, cycles=1)
    motion_file = dataclasses.replace(walk, groups={"run 1": walk.motion})
    with pytest.warns(UserWarning, match=r"a bag cannot hold the group name 'run 1' \(letters, digits, _ and - only\)"):
        write(motion_file, tmp_path / "b.mcap")
    motion_file_back, messages = _read(tmp_path / "b.mcap")
    assert messages == []
    assert list(motion_file_back.groups) == ["actual"]  # type: ignore[attr-defined]
