"""OMF: round trips in every encoding, every field, and one test per kind of bad file."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import msgpack
import numpy as np
import pytest
import yaml
from conftest import ELBOW_JUMP, elbow_jump, lossy_messages, make_file, make_motion

from motion_formats_ros import Motion, MotionFile, ReadError, WriteError, read, write
from motion_formats_ros.codecs import omf
from motion_formats_ros.codecs.omf import omf_reader
from motion_formats_ros.core.notices import collect

ENCODINGS = ["msgpack", "yaml", "json"]


def assert_same_motion(a: Motion, b: Motion) -> None:
    np.testing.assert_array_equal(a.times, b.times)
    assert a.joint_names == b.joint_names and a.joint_dims == b.joint_dims
    assert a.rate == b.rate
    la, lb = dict(a.iter_arrays()), dict(b.iter_arrays())
    assert set(la) == set(lb)
    for key in la:
        np.testing.assert_array_equal(la[key], lb[key], err_msg=key)


@pytest.mark.parametrize("suffix", ["msgpack", "yaml", "json", "omf.json", "omf.yaml"])
def test_round_trip_every_field(tmp_path: Path, suffix: str) -> None:
    f = make_file()
    f.date = datetime(2026, 5, 13, 12, 30, 1, 250000)
    path = tmp_path / f"walk.{suffix}"
    write(f, path)
    back = read(path)
    assert back.format == "omf"
    assert (back.name, back.robot, back.date) == ("walk", "acme_biped", f.date)
    assert list(back.groups) == ["target", "actual"]
    for name in f.groups:
        assert_same_motion(f.groups[name], back.groups[name])


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_nan_and_inf_survive(tmp_path: Path, encoding: str) -> None:
    m = Motion(times=[0, 1, 2], joint_names=("a", "b"), position=[[np.nan, 1e-5], [np.inf, -np.inf], [1e300, -0.0]])
    path = tmp_path / f"x.{encoding}"
    write(MotionFile.single(m), path)
    back = read(path).motion.position
    assert back is not None
    np.testing.assert_array_equal(back, m.position)


def test_empty_channels_and_zero_frames(tmp_path: Path) -> None:
    m = Motion(times=np.zeros(0), joint_names=("a",))
    write(MotionFile.single(m), tmp_path / "e.msgpack")
    back = read(tmp_path / "e.msgpack").motion
    assert back.num_frames == 0 and back.position is None and back.joint_names == ("a",)


def test_msgpack_bytes_are_plain_float64_lists(tmp_path: Path) -> None:
    f = make_file()
    write(f, tmp_path / "a.msgpack")
    doc = msgpack.unpackb((tmp_path / "a.msgpack").read_bytes(), raw=False)
    assert doc["format"] == "omf" and doc["version"] == 1
    pos = doc["target"]["joint"]["pos"]
    assert isinstance(pos, list) and isinstance(pos[0], list) and isinstance(pos[0][0], float)
    assert doc["target"]["fps"] == 50 and doc["target"]["length"] == 40
    # The same document packed by msgpack itself gives the same bytes.
    assert msgpack.packb(doc, use_bin_type=True) == (tmp_path / "a.msgpack").read_bytes()


def test_variable_rate_written_with_stamp_column(tmp_path: Path) -> None:
    f = make_file()
    write(f, tmp_path / "v.json")
    doc = json.loads((tmp_path / "v.json").read_text())
    assert doc["basic"]["time_names"] == ["stamp"]
    np.testing.assert_array_equal(np.array(doc["actual"]["time"])[:, 0], f.groups["actual"].times)


def test_fast_yaml_equals_plain_yaml(tmp_path: Path) -> None:
    """Our YAML reader gives what yaml.safe_load gives, for our layout and PyYAML's."""
    f = make_file()
    write(f, tmp_path / "ours.yaml")
    doc = omf.to_document(f)
    plain = json.loads(json.dumps(doc, default=lambda a: a.tolist()))
    (tmp_path / "pyyaml.yaml").write_text(yaml.safe_dump(plain, sort_keys=True))
    for name in ("ours.yaml", "pyyaml.yaml"):
        text = (tmp_path / name).read_text()
        fast = omf.decode(text.encode(), "yaml", name)
        slow = omf_reader._Reader(name).file(yaml.safe_load(text))
        for g in f.groups:
            assert_same_motion(fast.groups[g], slow.groups[g])
            assert_same_motion(fast.groups[g], f.groups[g])


def test_unknown_fields_round_trip(tmp_path: Path) -> None:
    doc = omf.to_document(MotionFile.single(make_motion(frames=3, dims=(1, 1, 1))))
    doc["basic"]["comment"] = "kept"
    doc["target"]["joint"]["voltage"] = [[24.0, 24.1, 24.2]] * 3
    doc["target"]["notes"] = {"operator": "kim"}
    doc["x_top"] = [1, 2]
    (tmp_path / "in.json").write_text(json.dumps(doc, default=lambda a: a.tolist()))
    f = read(tmp_path / "in.json")
    assert f.motion.joint_channels["voltage"].shape == (3, 3)
    write(f, tmp_path / "out.json")
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["basic"]["comment"] == "kept"
    assert out["target"]["joint"]["voltage"][2] == [24.0, 24.1, 24.2]
    assert out["target"]["notes"] == {"operator": "kim"}
    assert out["x_top"] == [1, 2]


def test_iso_date_and_implementation_date(tmp_path: Path) -> None:
    doc = omf.to_document(MotionFile.single(make_motion(frames=2)))
    for text, expected in [
        ("20260513T00:00:00.000000", datetime(2026, 5, 13)),
        ("2026-05-13T00:00:00.000", datetime(2026, 5, 13)),
    ]:
        doc["basic"]["date"] = text
        (tmp_path / "d.json").write_text(json.dumps(doc, default=lambda a: a.tolist()))
        assert read(tmp_path / "d.json").date == expected
    write(read(tmp_path / "d.json"), tmp_path / "d2.json")
    assert json.loads((tmp_path / "d2.json").read_text())["basic"]["date"] == "20260513T00:00:00.000000"


def test_a_yaml_day_without_a_time_is_kept_in_a_plain_warning(tmp_path: Path) -> None:
    path = tmp_path / "d.omf.yaml"
    write(MotionFile.single(make_motion(frames=2)), path)
    text = path.read_text()
    start = text.index("  date: ")
    end = text.index("\n", start)
    path.write_text(text[:start] + "  date: 0001-01-01" + text[end:])
    with collect(warn=False) as report:
        assert read(path).date is None
    messages = [n.message for n in report.notices if n.field == "basic.date"]
    assert messages == ["cannot parse 0001-01-01 (a day without a time) as a date and time; kept as text"]


@pytest.mark.parametrize(
    ("text", "warned"),
    [("20260513T00:00:00.123456789", True), ("2026-05-13T00:00:00.123456000", False), ("20260513T00:00:00.5", False)],
)
def test_a_date_finer_than_microseconds_is_read_to_them_with_a_warning(tmp_path: Path, text: str, warned: bool) -> None:
    doc = omf.to_document(MotionFile.single(make_motion(frames=2)))
    doc["basic"]["date"] = text
    (tmp_path / "d.json").write_text(json.dumps(doc, default=lambda a: a.tolist()))
    with collect(warn=False) as report:
        date = read(tmp_path / "d.json").date
    assert date is not None and date.replace(microsecond=0) == datetime(2026, 5, 13)
    messages = [n.message for n in report.notices if n.field == "basic.date"]
    if not warned:
        assert messages == []
        return
    assert date.microsecond == 123456
    assert messages == [
        f"{text!r} gives 9 digits of a second; read to the microsecond (2026-05-13T00:00:00.123456), "
        "the finest a date holds"
    ]


def test_groups_with_different_joints_are_merged(tmp_path: Path) -> None:
    a = Motion(times=[0, 1], joint_names=("x", "y"), position=[[1, 2], [3, 4]])
    b = Motion(times=[0, 1], joint_names=("y", "z"), position=[[5, 6], [7, 8]])
    write(MotionFile(groups={"target": a, "actual": b}), tmp_path / "m.json")
    back = read(tmp_path / "m.json")
    assert back.groups["actual"].joint_names == ("x", "y", "z")
    pos = back.groups["actual"].position
    assert pos is not None
    np.testing.assert_array_equal(pos, [[np.nan, 5, 6], [np.nan, 7, 8]])


def test_dropped_data_warns(tmp_path: Path) -> None:
    m = Motion(times=[0, 1], joint_names=("a",), position=[[0], [1]], interpolation=("step",), loop=(0.0, 1.0))
    with pytest.warns(UserWarning, match=r"dropped.*step interpolation.*loop 0-1 s"):
        write(MotionFile.single(m), tmp_path / "k.json")


# ------------------------------------------------------------------ writes are atomic
def test_existing_output_not_replaced_unless_asked(tmp_path: Path) -> None:
    out = tmp_path / "a.msgpack"
    out.write_bytes(b"precious")
    with pytest.raises(WriteError, match="already exists"):
        write(make_file(), out)
    assert out.read_bytes() == b"precious"
    write(make_file(), out, overwrite=True)
    assert read(out).name == "walk"
    assert [p.name for p in tmp_path.iterdir()] == ["a.msgpack"]


def test_failed_write_leaves_nothing(tmp_path: Path) -> None:
    bad = MotionFile(groups={"basic": make_motion()})  # a reserved group name
    with pytest.raises(WriteError, match="reserved"):
        write(bad, tmp_path / "x.msgpack")
    assert list(tmp_path.iterdir()) == []


def test_unwritable_folder(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="does not exist"):
        write(make_file(), tmp_path / "missing" / "x.msgpack")


def test_new_files_get_normal_permissions(tmp_path: Path) -> None:
    write(make_file(), tmp_path / "p.msgpack")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "p.msgpack").stat().st_mode & 0o777 == 0o666 & ~mask


# ------------------------------------------------------------------ bad files
def _doc() -> dict:  # type: ignore[type-arg]
    return json.loads(json.dumps(omf.to_document(make_file()), default=lambda a: a.tolist()))


def _read_doc(tmp_path: Path, doc: object, encoding: str = "json") -> MotionFile:
    path = tmp_path / f"bad.{encoding}"
    if encoding == "json":
        path.write_text(json.dumps(doc))
    elif encoding == "yaml":
        path.write_text(yaml.safe_dump(doc))
    else:
        path.write_bytes(msgpack.packb(doc, use_bin_type=True))
    return read(path, format="omf")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_row_of_wrong_width_names_field_and_row(tmp_path: Path, encoding: str) -> None:
    doc = _doc()
    doc["actual"]["joint"]["pos"][17] = doc["actual"]["joint"]["pos"][17][:-1]
    with pytest.raises(ReadError, match=r"bad\.\w+: actual\.joint\.pos\[17\]: expected 5 values, got 4"):
        _read_doc(tmp_path, doc, encoding)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_array_length_neither_zero_nor_length(tmp_path: Path, encoding: str) -> None:
    doc = _doc()
    doc["target"]["root_pos"] = doc["target"]["root_pos"][:-2]
    with pytest.raises(ReadError, match=r"target\.root_pos: expected 0 or 40 frames \(length\), got 38"):
        _read_doc(tmp_path, doc, encoding)


def test_wrong_format_marker(tmp_path: Path) -> None:
    doc = _doc()
    doc["format"] = "bvh"
    with pytest.raises(ReadError, match=r"format: expected 'omf', got 'bvh'"):
        _read_doc(tmp_path, doc)


def test_unknown_version(tmp_path: Path) -> None:
    doc = _doc()
    doc["version"] = 2
    with pytest.raises(ReadError, match=r"version: unsupported version 2 \(supported: 1\)"):
        _read_doc(tmp_path, doc)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["target"]["joint"]["vel"][3].__setitem__(2, "fast"),
            r"target\.joint\.vel\[3\]\[2\]: expected a number, got string 'fast'",
        ),
        (
            lambda d: d["target"]["joint"]["vel"][3].__setitem__(2, None),
            r"target\.joint\.vel\[3\]\[2\]: expected a number, got null",
        ),
        (lambda d: d["target"]["joint"].__setitem__("pos", 5), r"target\.joint\.pos: expected a list, got integer"),
        (lambda d: d.__setitem__("basic", []), r"basic: expected a mapping, got list"),
        (lambda d: d["basic"]["joint_names"].__setitem__(0, 7), r"basic\.joint_names\[0\]: expected a string"),
        (
            lambda d: d["basic"].__setitem__("joint_dims", [1, 0, 1]),
            r"basic\.joint_dims\[1\]: expected an integer >= 1, got 0",
        ),
        (lambda d: d["basic"].__setitem__("joint_dims", [1, 3]), r"basic\.joint_dims: has 2 entries"),
        (lambda d: d["target"].__setitem__("length", "many"), r"target\.length: expected an integer"),
        (lambda d: d["target"].__setitem__("fps", -5), r"target\.fps: expected a positive frame rate"),
        (
            lambda d: d["target"]["link"]["rot"][0].__setitem__(1, [0, 0, 1]),
            r"target\.link\.rot\[0\]\[1\]: expected 4 values, got 3",
        ),
        (
            lambda d: d["actual"]["time"][4].__setitem__(0, d["actual"]["time"][3][0]),
            r"actual: times must be strictly increasing",
        ),
        (lambda d: d["basic"].__setitem__("data_names", ["basic"]), r"basic\.data_names: 'basic' is reserved"),
    ],
)
def test_wrong_types_name_the_field(tmp_path: Path, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    doc = _doc()
    mutate(doc)
    with pytest.raises(ReadError, match=message):
        _read_doc(tmp_path, doc)


def test_not_a_mapping(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match=r"\(top level\): expected a mapping, got list"):
        _read_doc(tmp_path, [1, 2, 3], "msgpack")


def test_truncated_msgpack_reports_byte_offset(tmp_path: Path) -> None:
    write(make_file(), tmp_path / "ok.msgpack")
    data = (tmp_path / "ok.msgpack").read_bytes()
    (tmp_path / "cut.msgpack").write_bytes(data[:-100])
    with pytest.raises(ReadError, match=r"cut\.msgpack: byte \d+: truncated"):
        read(tmp_path / "cut.msgpack")


def test_huge_count_rejected_before_allocating(tmp_path: Path) -> None:
    (tmp_path / "bomb.msgpack").write_bytes(b"\x81\xa6format\xdd\xff\xff\xff\xf0")
    with pytest.raises(ReadError, match=r"byte 8: array of 4294967280 elements cannot fit"):
        read(tmp_path / "bomb.msgpack")


def test_msgpack_extension_types_rejected(tmp_path: Path) -> None:
    (tmp_path / "ext.msgpack").write_bytes(b"\x81\xa1a\xd4\x01\x00")
    with pytest.raises(ReadError, match="extension types are not allowed"):
        read(tmp_path / "ext.msgpack")


def test_invalid_yaml_reports_line(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text("format: omf\nversion: 1\nbasic: {joint_names: [a, b]\ntarget:\n  fps: 1\n")
    with pytest.raises(ReadError, match=r"b\.yaml:4: invalid YAML"):
        read(tmp_path / "b.yaml")


def test_yaml_python_tags_refused(tmp_path: Path) -> None:
    (tmp_path / "evil.yaml").write_text("format: omf\nversion: 1\nbasic: !!python/object/apply:os.system ['true']\n")
    with pytest.raises(ReadError, match=r"evil\.yaml:3: invalid YAML"):
        read(tmp_path / "evil.yaml")


def test_invalid_json_reports_line(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('{\n"format": "omf",\n"version": 1,,\n}')
    with pytest.raises(ReadError, match=r"b\.json:3: invalid JSON"):
        read(tmp_path / "b.json")


def test_jump_at_segment_start_is_reported_too(tmp_path: Path) -> None:
    m = Motion(times=[0, 1, 2], joint_names=("a",), position=[[0], [1], [2]], interpolation=("next", "linear"))
    with pytest.warns(UserWarning, match=r"next interpolation between keyframes"):
        write(MotionFile.single(m), tmp_path / "n.json")


def test_a_jump_between_keyframes_written_as_a_line_names_the_joint_and_times(tmp_path: Path) -> None:
    with collect(warn=False) as report:
        write(elbow_jump(), tmp_path / "jump.omf.json")
    assert any(ELBOW_JUMP in m for m in lossy_messages(report))


# ------------------------------------------------------------------ numbers out of range
@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        pytest.param(
            "length", 1e308, r"target\.length: 1e\+308 is more frames than a file of [\d,]+ bytes can hold", id="length"
        ),
        pytest.param(
            "length",
            10**400,
            r"target\.length: an integer of about 401 digits is more frames than a file of",
            id="length-int",
        ),
        pytest.param(
            "fps", 1e308, r"target\.fps: 1e\+308 Hz is beyond the highest frame rate read, 1e\+06 Hz", id="fps"
        ),
        pytest.param(
            "fps",
            10**400,
            r"target\.fps: expected a number in the float range, got an integer of about 401",
            id="fps-int",
        ),
    ],
)
def test_a_huge_length_or_rate_is_refused_at_its_field_in_short(
    tmp_path: Path, encoding: str, key: str, value: float, message: str
) -> None:
    if encoding == "msgpack" and isinstance(value, int):
        pytest.skip("msgpack has no integers beyond 64 bits")
    doc = _doc()
    doc["target"][key] = value
    with pytest.raises(ReadError, match=message) as caught:
        _read_doc(tmp_path, doc, encoding)
    assert len(str(caught.value).replace(str(tmp_path), "")) < 150  # short: no 400-digit number


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("long.json", '{"format": "omf",\n"version": 1,\n"basic": {"n": ' + "9" * 5_000_000 + "}}", 3),
        ("long.yaml", "format: omf\nversion: 1\nbasic:\n  n: " + "9" * 5_000_000 + "\n", 4),
    ],
)
def test_an_integer_longer_than_python_converts_is_a_read_error_at_its_line(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(ReadError) as caught:
        read(tmp_path / name, format="omf")
    assert str(caught.value).startswith(f"{tmp_path / name}:{line}: ")
    assert "an integer of 5,000,000 digits (at most 4,300 are read)" in str(caught.value)
