"""What a writer cannot hold is named in its lossy-write notice: marks (a ``.mof`` net's
labels), a time column named like the format's own, each group's own joints, multi-DOF
joints, a start that is not 0; and its figures match its words."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core.notices import NoticeKind, Report, collect
from motion_formats_ros.registry import CODECS, written_counts


def _lossy(report: Report) -> str:
    return "\n".join(n.message for n in report.by_kind(NoticeKind.LOSSY_WRITE))


def _nao(times: np.ndarray, **kwargs: object) -> MotionFile:
    position = np.column_stack([np.linspace(0.0, 0.5, times.size), np.linspace(0.0, -0.3, times.size)])
    motion = Motion(times=times, joint_names=("HeadYaw", "HeadPitch"), position=position, **kwargs)  # type: ignore[arg-type]
    return MotionFile.single(motion)


def _marked() -> MotionFile:
    return _nao(np.arange(5) * 0.1, marks=((0.0, "start"), (0.3, "kick")))


#: Every writable format but those that keep marks, by an output suffix.
NO_MARKS = {"omf": "m.msgpack", "seq": "m.seq", "scene": "m.json5", "csv": "m.csv", "rosbag": "m.mcap", "mtn": "m.mtn"}


def test_every_writer_is_listed() -> None:
    assert {name for name, c in CODECS.items() if c.writable and not c.marks} == set(NO_MARKS)


@pytest.mark.parametrize("fmt", sorted(NO_MARKS))
def test_a_writer_without_marks_names_them(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / NO_MARKS[fmt]
    with collect(warn=False) as report:
        write(_marked(), out)
    marks = [n for n in report.by_kind(NoticeKind.LOSSY_WRITE) if n.field == "marks"]
    assert len(marks) == 1 and marks[0].file == str(out), report.warnings
    assert marks[0].message.endswith("dropped: kick at 0.3 s")  # a start at the first frame says nothing more
    with collect(warn=False) as report:
        write(_nao(np.arange(5) * 0.1, marks=((0.0, "start"),)), tmp_path / f"start.{out.name}")
    assert not [n for n in report.notices if n.field == "marks"], report.warnings


def test_parquet_keeps_the_marks(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    out = tmp_path / "m.parquet"
    with collect(warn=False) as report:
        write(_marked(), out)
    assert not report.by_kind(NoticeKind.LOSSY_WRITE)
    assert read(out).motion.marks == ((0.0, "start"), (0.3, "kick"))


def test_a_mof_names_the_marks_its_labels_do_not_give_back(tmp_path: Path) -> None:
    out = tmp_path / "m.mof"
    with collect(warn=False) as report:
        write(_marked(), out)
    marks = [n for n in report.by_kind(NoticeKind.LOSSY_WRITE) if n.field == "marks"]
    assert len(marks) == 1 and marks[0].message.endswith("kick at 0.3 s"), report.warnings


def test_a_corpus_mof_net_converted_names_its_labels(tmp_path: Path) -> None:
    source = corpus_path("mof", "bhuman2013", "sitDown.mof")
    with collect(warn=False):
        motion_file = read(source)
    with collect(warn=False) as report:
        write(motion_file, tmp_path / "out.csv")
        write(motion_file, tmp_path / "out.mof")
    named = [n.file for n in report.notices if n.field == "marks"]
    assert named == [str(tmp_path / "out.csv")], report.warnings


@pytest.mark.parametrize("times", [[0.0, 0.1, 0.2, 0.3], [0.0, 0.1, 0.25, 0.3]], ids=["uniform", "variable"])
def test_omf_names_a_time_column_called_stamp_instead_of_replacing_it(tmp_path: Path, times: list[float]) -> None:
    t = np.array(times)
    motion = Motion(times=t, joint_names=("a",), position=t[:, None], time_columns={"stamp": np.array([7.0, 8, 9, 10])})
    out = tmp_path / "m.msgpack"
    with collect(warn=False) as report:
        write(MotionFile.single(motion), out)
    assert "time column 'stamp'" in _lossy(report), report.warnings
    back = read(out).motion
    np.testing.assert_array_equal(back.times, t)  # the motion's own times are what the stamp column holds


def test_omf_names_the_joints_a_group_is_given_that_it_lacks(tmp_path: Path) -> None:
    one = Motion(times=np.arange(3) * 0.1, joint_names=("a", "b", "c"), position=np.zeros((3, 3)))
    two = Motion(times=np.arange(2) * 0.1, joint_names=("a",), position=np.ones((2, 1)))
    with collect(warn=False) as report:
        write(MotionFile(groups={"target": one, "second": two}), tmp_path / "m.msgpack")
    lossy = report.by_kind(NoticeKind.LOSSY_WRITE)
    assert len(lossy) == 1 and "group 'second'" in lossy[0].message, report.warnings
    assert "'b', 'c'" in lossy[0].message and "NaN" in lossy[0].message


def test_a_bag_counts_the_groups_it_wrote(tmp_path: Path) -> None:
    pytest.importorskip("rosbags")
    one = Motion(times=np.arange(7) * 0.1, joint_names=("a",), position=np.zeros((7, 1)))
    two = Motion(times=np.arange(2) * 0.1, joint_names=("b",), position=np.ones((2, 1)))
    with collect(warn=False):
        written = write(MotionFile(groups={"target": one, "second": two}), tmp_path / "m.mcap")
    assert written == {"target": 7}  # 'second' was dropped
    assert written_counts(written, MotionFile(groups={"target": one, "second": two})) == (1, 7)


def test_an_mtn_names_multi_dof_joints_and_says_why_the_deviation_exceeds_the_tolerance(tmp_path: Path) -> None:
    n = 4
    motion = Motion(
        times=np.arange(n) * 0.1,
        joint_names=("ball", "hinge", "planar"),
        joint_dims=(3, 1, 1),
        position=np.arange(n * 5, dtype=float).reshape(n, 5) / 10,
    )
    with collect(warn=False) as report:
        write(MotionFile.single(motion), tmp_path / "m.mtn")
    text = _lossy(report)
    assert "multi-DOF joints (written as flat joints: ball[3] as ball_0 … ball_2)" in text, text
    deviation = re.search(r"largest deviation ([0-9.]+)°", text)
    assert deviation is not None and float(deviation.group(1)) > 0.1, text
    assert "within 0.1°" not in text and "beyond the 0.1° reduction tolerance, from keyframes on the 16 ms" in text


@pytest.mark.parametrize("suffix", ["mof", "mtn"])
def test_a_keyframe_format_says_the_start_moves_to_0(tmp_path: Path, suffix: str) -> None:
    with collect(warn=False) as report:
        write(_nao(5 + np.arange(5) * 0.1), tmp_path / f"m.{suffix}")
    assert "start at 5 s" in _lossy(report), report.warnings
    with collect(warn=False) as report:
        write(_nao(np.arange(5) * 0.1), tmp_path / f"zero.{suffix}")
    assert "start at" not in _lossy(report), report.warnings
