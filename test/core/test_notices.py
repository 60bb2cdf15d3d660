"""Typed notices: what reading and writing report, as data, as Python warnings, and under strict checking."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read, write
from motion_formats_ros.core.atomic import write_bytes_atomic
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.core.notices import (
    MotionFormatWarning,
    Notice,
    NoticeKind,
    StrictNoticeError,
    collect,
    notify,
    overflow_noted,
    relay,
)

ROW = " ".join(["0.1"] * 22 + ["1", "100"])


def unclosed_mof(folder: Path) -> Path:
    """A .mof motion without its final ``transition allMotions extern start`` (a notice on line 3)."""
    path = folder / "a.mof"
    path.write_text(f"motion_id = a\nlabel start\n{ROW}\n")
    return path


def masked_motion() -> MotionFile:
    """A motion with a per-joint mask, which OMF cannot hold (a notice when written as OMF)."""
    m = Motion(
        times=np.arange(3) / 10.0,
        joint_names=("a",),
        position=np.zeros((3, 1)),
        joint_masks={"off": np.array([[False], [True], [False]])},
    )
    return MotionFile.single(m)


def test_a_notice_prints_like_an_error_and_becomes_plain_data() -> None:
    n = Notice(NoticeKind.MISSING, "no root pose", file="a.mof", line=3)
    assert str(n) == "a.mof:3: no root pose"
    in_field = Notice(NoticeKind.INCONSISTENT, "stamps", file="b.omf", field="actual.time")
    assert str(in_field) == "b.omf: actual.time: stamps"
    assert str(Notice(NoticeKind.REPLACED, "dropped", field="/joint_states")) == "/joint_states: dropped"
    assert n.as_dict() == {
        "kind": "missing",
        "file": "a.mof",
        "line": 3,
        "field": None,
        "message": "no root pose",
        "text": "a.mof:3: no root pose",
    }
    assert pickle.loads(pickle.dumps(n)) == n  # batch workers send them back


def test_read_returns_the_notices_and_still_warns(tmp_path: Path) -> None:
    path = unclosed_mof(tmp_path)
    with pytest.warns(MotionFormatWarning, match=r"a\.mof:3: missing final") as caught:
        motion_file = read(path, joint_map="nao_bhuman_22")
    missing = [n for n in motion_file.notices if n.kind is NoticeKind.MISSING]
    assert len(missing) == 1
    assert (missing[0].file, missing[0].line) == (str(path), 3)
    assert missing[0].message.startswith("missing final `transition allMotions extern start`")
    warned = [w.message.notice for w in caught if isinstance(w.message, MotionFormatWarning)]
    assert missing[0] in warned
    assert issubclass(MotionFormatWarning, UserWarning)  # existing UserWarning filters keep working


def test_collect_nests_and_can_silence_the_python_warnings(tmp_path: Path) -> None:
    path = unclosed_mof(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any Python warning would raise here
        with collect(warn=False) as outer, collect() as inner:
            read(path)
    assert inner.notices and inner.notices == outer.notices
    assert outer.by_kind(NoticeKind.MISSING)
    assert all(w.startswith(str(path)) for w in outer.warnings)


def test_an_isolated_report_keeps_its_notices_until_relayed() -> None:
    with collect(warn=False) as outer:
        with collect(isolated=True) as tentative:
            notify(NoticeKind.RESAMPLED, "first try")
        assert len(tentative) == 1 and len(outer) == 0
        relay(tentative.notices)
    assert [n.message for n in outer] == ["first try"]


def test_a_lossy_write_is_a_notice_naming_the_output(tmp_path: Path) -> None:
    out = tmp_path / "m.omf.yaml"
    with collect(warn=False) as report:
        write(masked_motion(), out)
    (lossy,) = report.by_kind(NoticeKind.LOSSY_WRITE)
    assert lossy.file == str(out) and "joint masks 'off'" in lossy.message
    assert out.exists()


def test_strict_puts_no_output_in_place(tmp_path: Path) -> None:
    out = tmp_path / "m.omf.yaml"
    with pytest.raises(StrictNoticeError, match="not written: 1 warning"), collect(strict=True, warn=False) as report:
        write(masked_motion(), out)
    assert len(report) == 1
    assert list(tmp_path.iterdir()) == []  # neither the output nor a temporary file


def test_strict_without_notices_writes(tmp_path: Path) -> None:
    clean = Motion(times=np.arange(3) / 10.0, joint_names=("a",), position=np.zeros((3, 1)))
    out = tmp_path / "m.omf.yaml"
    with collect(strict=True) as report:
        write(MotionFile.single(clean), out)
    assert len(report) == 0 and out.exists()


def test_numpys_overflow_inside_a_codec_becomes_one_notice_naming_the_file() -> None:
    big = np.array([1e308, -1e308])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # none reaches the caller raw
        with collect(warn=False) as report, overflow_noted("big.csv", "reading"):
            assert np.isinf(big * 10).all() and np.isnan(big * 10 - big * 10).all()
            _ = big[:1] - big[1:]
    assert [(n.kind, n.file) for n in report] == [(NoticeKind.OVERFLOW, "big.csv")]
    assert report.notices[0].message.startswith("overflow/invalid value in arithmetic while reading values near")


def _overflow_then_refuse() -> None:
    with overflow_noted("b.csv", "reading"):
        _ = np.array([1e308]) * 10
        raise ValueError("refused")


def test_no_overflow_notice_when_the_block_raises_or_computes_nothing_out_of_range() -> None:
    with collect(warn=False) as report:
        with overflow_noted("a.csv", "reading"):
            _ = np.array([1.0, 2.0]) * 10
        with pytest.raises(ValueError, match="refused"):
            _overflow_then_refuse()
    assert report.notices == []


def _overflow_then_write(out: Path) -> None:
    with overflow_noted(out, "writing"):
        _ = np.array([1e308]) * 10
        write_bytes_atomic(out, b"inf\n", False)


def test_strict_puts_no_output_in_place_whose_values_overflowed(tmp_path: Path) -> None:
    out = tmp_path / "big.csv"
    with pytest.raises(StrictNoticeError, match="not written: 1 warning"), collect(strict=True, warn=False) as report:
        _overflow_then_write(out)
    assert [(n.kind, n.file) for n in report] == [(NoticeKind.OVERFLOW, str(out))]  # reported once, before the commit
    assert list(tmp_path.iterdir()) == []


def test_overflow_before_a_commit_that_is_not_strict_is_reported_once_at_the_end(tmp_path: Path) -> None:
    out = tmp_path / "big.csv"
    with collect(warn=False) as report, overflow_noted(out, "writing"):
        _ = np.array([1e308]) * 10
        write_bytes_atomic(out, b"inf\n", False)
        _ = np.array([0.0]) / 0.0
    assert [n.message.split(" in ")[0] for n in report] == ["overflow/invalid value"]
    assert out.read_bytes() == b"inf\n"
