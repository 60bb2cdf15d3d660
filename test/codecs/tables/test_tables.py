"""Parquet and CSV tables: one row per frame, read back by pyarrow / the csv module, and round trips.

Parquet round-trips a motion exactly (every array, names, dims, series frames, keyframe
interpolation, rate) and carries the file's metadata in its schema; CSV round-trips
every value exactly (shortest round-trip decimals). Tests that need pyarrow skip without it (``make
test-min``), where the one-line install message is tested instead.
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import ELBOW_JUMP, elbow_jump, lossy_messages, make_file, make_motion
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from motion_formats_ros import Motion, MotionFile, ReadError, Series, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.core.errors import WriteError
from motion_formats_ros.core.notices import collect

NO_PYARROW = "needs pyarrow (the [parquet] extra; `make test-min` runs without it)"
START_NS = 1_732_000_000_123_456_789
#: Bytes spliced into tables by the mutation test: what numbers, rows and quotes are made of.
SPLICE = b'0123456789.,-e\n"nan[]x'


def _pyarrow() -> None:
    pytest.importorskip("pyarrow", reason=NO_PYARROW)


def rich_file() -> MotionFile:
    """Two groups with every kind of data, plus masks, extra channels, series and time columns."""
    f = make_file()
    t = f.groups["target"]
    n, d = t.num_frames, t.dof
    rng = np.random.default_rng(3)
    off = rng.random((n, d)) < 0.2
    position = t.position.copy()  # type: ignore[union-attr]
    position[off] = np.nan
    f.groups["target"] = Motion(
        **{
            **{k: getattr(t, k) for k in ("times", "joint_names", "joint_dims", "velocity", "effort", "temperature")},
            "position": position,
            "acceleration": None,
            "joint_channels": {"stiffness": rng.uniform(0, 1, (n, d))},
            "joint_masks": {"off": off},
            "root_position": t.root_position,
            "root_orientation": t.root_orientation,
            "link_names": t.link_names,
            "links": t.links,
            "imu_names": t.imu_names,
            "imus": t.imus,
            "series": {
                "zmp": Series(rng.normal(size=(n, 2)), "root", ("x", "y")),
                "com": Series(rng.normal(size=(n, 3))),
            },
            "time_columns": {"stamp": t.times + 0.25},
        }
    )
    f.start_time_ns = START_NS
    f.source = "/data/robot7/run_0"
    return f


def assert_same(a: Motion, b: Motion) -> None:
    """Same arrays (exactly, bit for bit: -0.0 is not 0.0) and structure."""

    def same(x: np.ndarray, y: np.ndarray, what: str) -> None:
        assert x.shape == y.shape and x.dtype == y.dtype, what
        assert np.array_equal(x, y, equal_nan=True), what
        assert np.array_equal(np.signbit(x), np.signbit(y)), what

    assert np.array_equal(a.times, b.times)
    assert a.joint_names == b.joint_names and a.joint_dims == b.joint_dims
    assert a.link_names == b.link_names and a.imu_names == b.imu_names
    left, right = dict(a.iter_arrays()), dict(b.iter_arrays())
    assert sorted(left) == sorted(right)
    for label, values in left.items():
        same(values, right[label], label)
    assert {k: s.components for k, s in a.series.items()} == {k: s.components for k, s in b.series.items()}
    assert a.rate == b.rate


# --------------------------------------------------------------------------- Parquet
def test_parquet_round_trip_is_exact_with_the_files_metadata(tmp_path: Path) -> None:
    _pyarrow()
    f = rich_file()
    write(f, tmp_path / "log.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.actual.parquet", "log.target.parquet"]
    for group, motion in f.groups.items():
        back = read(tmp_path / f"log.{group}.parquet")
        assert list(back.groups) == [group]
        assert_same(motion, back.motion)
        assert {k: s.frame for k, s in back.motion.series.items()} == {k: s.frame for k, s in motion.series.items()}
        assert back.robot == "acme_biped" and back.name == "walk" and back.start_time_ns == START_NS


def test_parquet_keeps_keyframe_interpolation_and_loop(tmp_path: Path) -> None:
    _pyarrow()
    m = Motion(
        times=[0.0, 0.4, 1.0],
        joint_names=("HeadYaw",),
        position=[[0.0], [0.5], [0.1]],
        interpolation=("cosine", "step"),
        loop=(0.0, 1.0),
    )
    write(MotionFile.single(m), tmp_path / "nod.parquet")
    back = read(tmp_path / "nod.parquet").motion
    assert back.interpolation == ("cosine", "step") and back.loop == (0.0, 1.0)
    assert_same(m, back)


def test_pyarrow_reads_the_rows_columns_values_and_metadata(tmp_path: Path) -> None:
    _pyarrow()
    import pyarrow.parquet as pq

    f = rich_file()
    f = MotionFile.single(f.groups["target"], name="walk", robot="acme_biped", start_time_ns=START_NS, source="x")
    m = f.motion
    write(f, tmp_path / "walk.parquet")
    table = pq.read_table(tmp_path / "walk.parquet")
    assert table.num_rows == m.num_frames
    names = table.column_names
    assert names[:3] == ["time", "j0.position", "j1.position[0]"]
    assert {
        "j1.velocity[2]",
        "j2.effort",
        "j0.stiffness",
        "mask.off.j1[1]",
        "root.qw",
        "link.foot_r.orientation.qz",
    } <= (set(names))
    assert {"imu.base.linear_acceleration.z", "series.zmp.y", "series.com.2", "time.stamp"} <= set(names)
    assert np.array_equal(table.column("time").to_numpy(), m.times)
    assert np.array_equal(table.column("j1.position[2]").to_numpy(), m.position[:, 3], equal_nan=True)  # type: ignore[index]
    assert np.array_equal(table.column("link.foot_r.position.y").to_numpy(), m.links["position"][:, 1, 1])
    assert table.column("mask.off.j0").to_pylist() == m.joint_masks["off"][:, 0].tolist()
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}
    assert meta["robot"] == "acme_biped" and meta["start_time_ns"] == str(START_NS) and meta["source"] == "x"
    assert json.loads(meta["joint_names"]) == ["j0", "j1", "j2"]
    units = json.loads(meta["units"])
    assert units["time"] == "s" and units["root.x"] == "m" and units["link.foot_l.angular_velocity.x"] == "rad/s"
    assert table.schema.field("j0.temperature").metadata == {b"unit": b"degC"}
    column = pq.ParquetFile(tmp_path / "walk.parquet").metadata.row_group(0).column(0)
    assert column.compression == "ZSTD"


def test_a_parquet_table_written_by_another_tool_reads_from_its_header(tmp_path: Path) -> None:
    _pyarrow()
    import pyarrow as pa
    import pyarrow.parquet as pq

    t = np.arange(4) / 10.0
    table = pa.table({"time": t, "elbow.position": np.sin(t), "elbow.effort": pa.array([1, 2, 3, 4], pa.int32())})
    pq.write_table(table, tmp_path / "other.parquet")
    m = read(tmp_path / "other.parquet").motion
    assert m.joint_names == ("elbow",) and m.rate == pytest.approx(10.0)
    assert np.array_equal(m.effort[:, 0], [1, 2, 3, 4])  # type: ignore[index]


def test_bad_parquet_is_a_read_error_naming_the_file(tmp_path: Path) -> None:
    _pyarrow()
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "junk.parquet").write_bytes(b"PAR1" + b"\x00" * 64)
    with pytest.raises(ReadError, match=r"junk\.parquet: not a readable Parquet file"):
        read(tmp_path / "junk.parquet")
    pq.write_table(pa.table({"time": [0.0, 0.2, 0.1], "a.position": [1.0, 2, 3]}), tmp_path / "back.parquet")
    with pytest.raises(ReadError, match=r"back\.parquet: time\[2\]: times must be finite and strictly increasing"):
        read(tmp_path / "back.parquet")
    pq.write_table(pa.table({"time": [0.0], "a.position": ["x"]}), tmp_path / "text.parquet")
    with pytest.raises(ReadError, match=r"text\.parquet: a\.position: column of type string"):
        read(tmp_path / "text.parquet")


def test_convert_parquet_to_msgpack_and_back_restores_the_motion(tmp_path: Path) -> None:
    _pyarrow()
    f = MotionFile.single(make_motion(), name="walk", robot="acme_biped", start_time_ns=START_NS)  # what OMF holds
    write(f, tmp_path / "log.parquet")
    assert main(["convert", str(tmp_path / "log.parquet"), str(tmp_path / "log.msgpack")]) == 0
    back = read(tmp_path / "log.msgpack")
    assert_same(f.motion, back.motion)
    assert back.robot == "acme_biped"
    assert main(["convert", str(tmp_path / "log.msgpack"), str(tmp_path / "again.parquet")]) == 0
    assert_same(f.motion, read(tmp_path / "again.parquet").motion)


# --------------------------------------------------------------------------- CSV
def test_csv_has_a_header_row_and_exact_values(tmp_path: Path) -> None:
    m = make_motion(frames=30)
    write(MotionFile.single(m), tmp_path / "walk.csv")
    with open(tmp_path / "walk.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    assert len(body) == m.num_frames and header[0] == "time" and header[1] == "j0.position"
    assert len(header) == 1 + 5 * m.dof + 7 + 2 * (3 + 4 + 3 + 3) + (3 + 4 + 3 + 3 + 3)
    col = header.index("j1.velocity[1]")
    assert [r[col] for r in body] == [repr(v).removesuffix(".0") for v in m.velocity[:, 2].tolist()]  # type: ignore[index]
    assert [float(r[0]) for r in body] == m.times.tolist()
    assert [float(r[header.index("imu.base.orientation.qw")]) for r in body] == m.imus["orientation"][:, 0, 3].tolist()


def test_csv_round_trip_is_exact(tmp_path: Path) -> None:
    f = rich_file()
    with pytest.warns(UserWarning, match=r"target\.csv: CSV has no place for the series 'zmp' frame 'root'"):
        write(f, tmp_path / "log.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.actual.csv", "log.target.csv"]
    for group, motion in f.groups.items():
        assert_same(motion, read(tmp_path / f"log.{group}.csv").motion)


def test_a_walk_far_from_the_origin_keeps_every_step_in_csv(tmp_path: Path) -> None:
    """A root 1e8 m from the origin moving millimetres a frame: its steps survive the text."""
    m = make_motion(frames=30)
    assert m.root_position is not None
    far = Motion(
        times=m.times,
        joint_names=m.joint_names,
        joint_dims=m.joint_dims,
        position=m.position,
        root_position=m.root_position + np.array([1e8, -1e8, 0.0]),
        root_orientation=m.root_orientation,
    )
    write(MotionFile.single(far), tmp_path / "far.csv")
    back = read(tmp_path / "far.csv").motion
    assert_same(far, back)
    assert back.root_position is not None and np.all(np.diff(back.root_position[:, 0]) != 0)


FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    values=st.lists(st.lists(FINITE, min_size=3, max_size=3), min_size=1, max_size=6),
    start=st.floats(-1e308, 1e308, width=64),
)
def test_csv_write_then_read_is_bit_identical_for_every_finite_float64(
    tmp_path: Path, values: list[list[float]], start: float
) -> None:
    n = len(values)
    times = np.array([start], dtype=np.float64)
    for _ in range(n - 1):
        times = np.append(times, np.nextafter(times[-1], np.inf))  # the closest times there are
    v = np.array(values, dtype=np.float64)
    m = Motion(times=times, joint_names=("a", "b"), position=v[:, :2], root_position=v, velocity=v[:, 1:])
    out = tmp_path / "exact.csv"
    write(MotionFile.single(m), out, overwrite=True)
    assert_same(m, read(out).motion)


def test_convert_msgpack_to_csv_and_back(tmp_path: Path) -> None:
    f = MotionFile.single(make_motion(frames=25), name="walk")
    write(f, tmp_path / "x.msgpack")
    assert main(["convert", str(tmp_path / "x.msgpack"), str(tmp_path / "x.csv")]) == 0
    assert main(["convert", str(tmp_path / "x.csv"), str(tmp_path / "y.msgpack")]) == 0
    assert_same(f.motion, read(tmp_path / "y.msgpack").motion)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("time,a.position\n0,1\n0.1,oops\n", r"bad\.csv:3: column 'a\.position': 'oops' is not a number"),
        ("time,a.position\n0,1\n0.1,2,3\n", r"bad\.csv:3: 3 values, the header has 2 columns"),
        ("time,a.position\n0,1\n0.2,2\n\n0.1,3\n", r"bad\.csv:5: times must be finite and strictly increasing"),
        ("a.position,b.position\n1,2\n", r"bad\.csv:1: no 'time' column"),
        ("time,a.position,a.position\n0,1,1\n", r"bad\.csv:1: column 'a\.position' appears twice"),
        ("time,weird\n0,1\n", r"bad\.csv:1: column 'weird' is not JOINT\.CHANNEL"),
        ("", r"bad\.csv:1: empty file"),
    ],
)
def test_bad_csv_names_the_line(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "bad.csv").write_text(text)
    with pytest.raises(ReadError, match=message):
        read(tmp_path / "bad.csv")


def test_a_joint_name_that_reads_back_as_another_column_is_refused(tmp_path: Path) -> None:
    m = Motion(times=[0.0, 0.1], joint_names=("root.x",), position=[[0.0], [1.0]])
    with pytest.raises(WriteError, match=r"joint name 'root\.x' would be read back as another column"):
        write(MotionFile.single(m), tmp_path / "x.csv")
    assert not list(tmp_path.iterdir())


def test_bag2motion_to_a_table(tmp_path: Path) -> None:
    walk = MotionFile.single(make_motion(frames=20), "actual", name="walk", start_time_ns=START_NS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(walk, tmp_path / "bag", "rosbag")
    assert main(["bag2motion", str(tmp_path / "bag"), str(tmp_path / "log.csv")]) == 0
    back = read(tmp_path / "log.csv").motion
    direct = read(tmp_path / "bag").motion
    assert_same(direct, back)


# --------------------------------------------------------------------------- without pyarrow
def test_parquet_without_pyarrow_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    from support.cli import cli

    write(MotionFile.single(make_motion(frames=5)), tmp_path / "a.msgpack")
    status, out, err, _ = cli("convert", tmp_path / "a.msgpack", tmp_path / "a.parquet", blocked=("pyarrow",))
    assert status == 1 and out == ""
    assert (
        err.strip()
        == "error: writing Parquet needs the optional package pyarrow: pip install 'motion_formats_ros[parquet]'"
    )
    assert not (tmp_path / "a.parquet").exists()


# --------------------------------------------------------------------------- damaged tables
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_mutated_tables_fail_only_with_read_errors(tmp_path: Path, suffix: str) -> None:
    if suffix == "parquet":
        _pyarrow()
    m = Motion(
        times=np.arange(12) / 10.0,
        joint_names=("a", "b"),
        joint_dims=(1, 2),
        position=np.arange(36.0).reshape(12, 3),
        joint_masks={"off": np.eye(12, 3, dtype=bool)},
        series={"zmp": Series(np.ones((12, 2)), "root", ("x", "y"))},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(MotionFile.single(m, robot="r", start_time_ns=START_NS), tmp_path / f"seed.{suffix}")
    seed = (tmp_path / f"seed.{suffix}").read_bytes()
    rng = np.random.default_rng(18)
    target = tmp_path / f"mutant.{suffix}"
    outcomes = {"read": 0, "error": 0}
    unnamed: list[str] = []
    for _ in range(300):
        data = bytearray(seed)
        kind = rng.integers(4)
        at = int(rng.integers(len(data)))
        if kind == 0:
            data[at] = int(rng.integers(256))
        elif kind == 1:
            del data[at : at + int(rng.integers(1, 64))]
        elif kind == 2:
            data[at:at] = bytes(rng.choice(list(SPLICE), int(rng.integers(1, 8))))
        else:
            data = data[:at]
        target.write_bytes(bytes(data))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read(target, format=suffix)
            outcomes["read"] += 1
        except ReadError as exc:
            outcomes["error"] += 1
            unnamed += [] if "mutant" in str(exc) else [str(exc)]
    assert outcomes["error"] > 0 and not unnamed  # every error names the file


def test_csv_names_the_joint_and_times_of_a_jump_between_keyframes(tmp_path: Path) -> None:
    with collect(warn=False) as report:
        write(elbow_jump(), tmp_path / "jump.csv")
    assert any(ELBOW_JUMP in m for m in lossy_messages(report))


def test_csv_writes_a_hold_between_equal_keyframes_without_a_warning(tmp_path: Path) -> None:
    held = Motion(times=[0, 1, 2], joint_names=("a",), position=[[1], [1], [2]], interpolation=("step", "linear"))
    with collect(warn=False) as report:
        write(MotionFile.single(held), tmp_path / "held.csv")
    assert lossy_messages(report) == []
