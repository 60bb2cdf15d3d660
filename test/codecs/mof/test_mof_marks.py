"""A motion net's labels become marks of the motion at the time the run passes them."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path

from motion_formats_ros import read


def row(value: float, dur: int, joints: int = 22) -> str:
    return " ".join([str(value)] * joints + ["1", str(dur)])


def test_labels_of_both_files_at_the_times_they_are_reached(tmp_path: Path) -> None:
    (tmp_path / "a.mof").write_text(
        f"motion_id = a\nlabel start\n{row(0, 200)}\nlabel middle\n{row(10, 300)}\ntransition allMotions b go\n"
    )
    (tmp_path / "b.mof").write_text(
        f"motion_id = b\nlabel start\n{row(5, 100)}\nlabel go\n{row(20, 400)}\nlabel back\n"
        "transition allMotions a middle\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = read(tmp_path / "a.mof").motion
    # start at 0; middle after the first row (0.2 s); b's go after a's two rows (0.5 s); back after b's row (0.9 s).
    assert m.marks == ((0.0, "start"), (0.2, "middle"), (0.5, "b:go"), (0.9, "b:back"))
    assert m.loop == pytest.approx((0.2, 0.9))
    np.testing.assert_allclose(m.times, [0.0, 0.2, 0.5, 0.9])


def test_marks_survive_slicing_and_shifting(tmp_path: Path) -> None:
    (tmp_path / "a.mof").write_text(
        f"motion_id = a\nlabel start\n{row(0, 200)}\nlabel two\n{row(10, 300)}\ntransition allMotions extern start\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = read(tmp_path / "a.mof").motion
    assert m.marks == ((0.0, "start"), (0.2, "two"))
    assert m.slice_time(0.1, 1.0).marks == ((0.2, "two"),)
    assert m.shifted(1.0).marks == ((1.0, "start"), (1.2, "two"))
    assert m.resample(100).marks == m.marks


def test_corpus_loop_label_is_a_mark() -> None:
    path = corpus_path("mof", "bhuman2013", "sitDown.mof")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = read(path).motion
    assert [name for _, name in m.marks] == ["start", "repeat"]
    assert m.marks[1][0] == pytest.approx(m.loop[0])
