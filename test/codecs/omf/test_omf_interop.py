"""Interop with the reference implementation, PyPI otter-motion-format 0.1.5 (never mocked)."""

from __future__ import annotations

import warnings
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from conftest import make_file

from motion_formats_ros import read, write

otter = pytest.importorskip("otter_motion_format")

ENCODINGS = ["msgpack", "yaml", "json"]


def _ref_array(section: dict, *keys: str) -> np.ndarray:  # type: ignore[type-arg]
    node = section
    for k in keys:
        node = node[k]
    return np.asarray(node, dtype=np.float64)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_our_files_load_in_the_reference(tmp_path: Path, encoding: str) -> None:
    f = make_file()
    path = tmp_path / f"ours.{encoding}"
    write(f, path)
    ref = otter.load(path)
    assert ref.basic["joint_names"] == ["j0", "j1", "j2"]
    assert ref.basic["joint_dims"] == [1, 3, 1]
    assert ref.data_names == ["target", "actual"]
    assert ref.name == "walk" and ref.basic["robot"] == "acme_biped"
    for group, m in f.groups.items():
        sec = ref.data_section(group)
        assert sec["length"] == m.num_frames
        np.testing.assert_array_equal(_ref_array(sec, "joint", "pos"), m.position)
        np.testing.assert_array_equal(_ref_array(sec, "joint", "tau"), m.effort)
        np.testing.assert_array_equal(_ref_array(sec, "joint", "temp"), m.temperature)
        np.testing.assert_array_equal(_ref_array(sec, "root_rot"), m.root_orientation)
        np.testing.assert_array_equal(_ref_array(sec, "link", "rot"), m.links["orientation"])
        np.testing.assert_array_equal(_ref_array(sec, "imu", "gyro"), m.imus["angular_velocity"])
        np.testing.assert_array_equal(_ref_array(sec, "imu", "acc"), m.imus["linear_acceleration"])
    # The variable-rate group carries its times in the stamp column.
    assert ref.basic["time_names"] == ["stamp"]
    np.testing.assert_array_equal(_ref_array(ref.data_section("actual"), "time")[:, 0], f.groups["actual"].times)
    assert ref.data_section("target")["fps"] == 50


def _reference_file(path: Path) -> tuple[object, dict[str, np.ndarray]]:
    rng = np.random.default_rng(3)
    motion = otter.OMF(
        name="reach",
        robot="acme_arm",
        joint_names=["shoulder", "wrist"],
        joint_dims=[1, 3],
        link_names=["hand"],
        imu_names=["base"],
        data_names=["target", "actual"],
    )
    data = {
        "pos": rng.normal(size=(30, 4)),
        "vel": rng.normal(size=(30, 4)),
        "root_pos": rng.normal(size=(30, 3)),
        "root_rot": np.tile([0.0, 0.0, 0.0, 1.0], (30, 1)),
        "link_pos": rng.normal(size=(30, 1, 3)),
        "imu_gyro": rng.normal(size=(30, 1, 3)),
        "actual_pos": rng.normal(size=(20, 4)),
    }
    for i in range(30):
        motion.target["joint"]["pos"].append(data["pos"][i])
        motion.target["joint"]["vel"].append(data["vel"][i].tolist())
        motion.target["root_pos"].append(data["root_pos"][i].tolist())
        motion.target["root_rot"].append(data["root_rot"][i].tolist())
        motion.target["link"]["pos"].append(data["link_pos"][i].tolist())
        motion.target["imu"]["gyro"].append(data["imu_gyro"][i].tolist())
    for i in range(20):
        motion.actual["joint"]["pos"].append(data["actual_pos"][i].tolist())
    motion.target["fps"] = 30
    motion.actual["fps"] = 100
    motion.save(path)
    return motion, data


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_reference_files_load_here(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / f"ref.{encoding}"
    _, data = _reference_file(path)
    f = read(path)
    assert f.format == "omf" and f.name == "reach" and f.robot == "acme_arm"
    assert f.date is not None  # the reference stamps its creation time
    assert list(f.groups) == ["target", "actual"]
    t, a = f.groups["target"], f.groups["actual"]
    assert t.joint_names == ("shoulder", "wrist") and t.joint_dims == (1, 3)
    assert (t.rate, t.num_frames, a.rate, a.num_frames) == (30.0, 30, 100.0, 20)
    np.testing.assert_array_equal(t.position, data["pos"])
    np.testing.assert_array_equal(t.velocity, data["vel"])
    np.testing.assert_array_equal(t.root_position, data["root_pos"])
    np.testing.assert_array_equal(t.root_orientation, data["root_rot"])
    np.testing.assert_array_equal(t.links["position"], data["link_pos"])
    np.testing.assert_array_equal(t.imus["angular_velocity"], data["imu_gyro"])
    np.testing.assert_array_equal(a.position, data["actual_pos"])
    np.testing.assert_allclose(t.times, np.arange(30) / 30)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_reference_round_trip_through_us_is_lossless(tmp_path: Path, encoding: str) -> None:
    """Reference → us → reference keeps every value the reference wrote."""
    src = tmp_path / f"ref.{encoding}"
    ref, _ = _reference_file(src)
    write(read(src), tmp_path / f"again.{encoding}")
    again = otter.load(tmp_path / f"again.{encoding}")
    for group in ("target", "actual"):
        a, b = ref.data_section(group), again.data_section(group)  # type: ignore[attr-defined]
        assert a["fps"] == b["fps"] and a["length"] == b["length"]
        for key in ("pos", "vel"):
            np.testing.assert_array_equal(np.asarray(a["joint"][key]), np.asarray(b["joint"][key]))
    assert again.basic["date"] == ref.basic["date"]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("time_names", "columns"),
    [
        (["stamp"], [[0.0, 0.013, 0.021, 0.05, 0.07, 0.2]]),  # variable rate
        (["stamp"], [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]),  # stamps that happen to be 1 s apart
        (["stamp", "recv"], [[0.0, 0.01, 0.03, 0.04, 0.08, 0.09], [0.001, 0.012, 0.031, 0.04, 0.081, 0.1]]),
        (["recv"], [[0.0, 0.013, 0.021, 0.05, 0.07, 0.2]]),  # a time column, but no stamp
    ],
)
def test_fps_0_with_time_columns_survives_every_encoding(
    tmp_path: Path, time_names: list[str], columns: list[list[float]]
) -> None:
    """fps 0 (variable rate) stays 0, with its time columns, through msgpack ⇄ yaml ⇄ json."""
    ref = otter.OMF(
        name="var",
        robot="r",
        joint_names=["a", "b"],
        joint_dims=[1, 1],
        link_names=[],
        imu_names=[],
        time_names=time_names,
        data_names=["actual"],
    )
    for i in range(6):
        ref.actual["joint"]["pos"].append([float(i), -0.5 * i])
        ref.actual["time"].append([col[i] for col in columns])
    ref.actual["fps"] = 0
    src = tmp_path / "ref.msgpack"
    ref.save(src)
    chain = ["a.yaml", "b.json", "c.msgpack", "d.json", "e.yaml", "f.msgpack"]
    prev = src
    for name in chain:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f = read(prev)
        assert bool(caught) == ("stamp" not in time_names)  # without a stamp: frames 1 s apart, said so
        write(f, tmp_path / name)
        prev = tmp_path / name
        again = otter.load(tmp_path / name)
        sec = again.data_section("actual")
        assert sec["fps"] == 0, name
        assert again.basic["time_names"] == time_names, name
        np.testing.assert_array_equal(np.asarray(sec["time"], dtype=float), np.array(columns).T)
        np.testing.assert_array_equal(np.asarray(sec["joint"]["pos"], dtype=float)[:, 1], -0.5 * np.arange(6))
    if time_names[0] == "stamp":
        np.testing.assert_array_equal(read(prev).groups["actual"].times, columns[0])


_NAIVE_DATES = [datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59, 999999), datetime(2024, 5, 6, 7, 8, 9, 10)]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("date", _NAIVE_DATES, ids=str)
def test_a_date_of_any_year_reads_back_here_and_in_the_reference(tmp_path: Path, encoding: str, date: datetime) -> None:
    f = make_file()
    f.date = date
    path = tmp_path / f"d.{encoding}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "cannot parse" on the way back
        write(f, path)
        assert read(path).date == date
    assert otter.load(path).basic["date"] == date
    if date.year == 1:  # the reference's own writer: strftime's year of one digit, which no reader parses
        assert otter.otter_motion_format.msgpack_encode_datetime(date).startswith("10101T")


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00-23:59", "9999-12-31T23:59:59.999999+00:00"])
def test_a_date_with_a_time_zone_keeps_its_offset(tmp_path: Path, text: str) -> None:
    f = make_file()
    f.date = datetime.fromisoformat(text)
    path = tmp_path / "d.omf.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write(f, path)
        back = read(path).date
    assert back == f.date and back is not None and back.utcoffset() == f.date.utcoffset()
    assert text[:4] + text[5:7] + text[8:10] + "T" in path.read_text()
