"""Motion nets built in tmp_path: jumps between files, conditions, loops, parse errors."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import ReadError, read
from motion_formats_ros.codecs.mof import MofRecord


def row(value: float, interp: int = 1, dur: int = 100, joints: int = 22) -> str:
    return " ".join([str(value)] * joints + [str(interp), str(dur)])


def mof(folder: Path, name: str, body: str, newline: str = "\n") -> Path:
    path = folder / f"{name}.mof"
    path.write_bytes(body.replace("\n", newline).encode())
    return path


def error(path: Path, **options: object) -> ReadError:
    with pytest.raises(ReadError) as info:
        read(path, **options)
    assert str(path) in str(info.value)
    return info.value


def test_last_line_without_newline_and_crlf(tmp_path: Path) -> None:
    body = f"motion_id = a\nlabel start\n{row(10)}\ntransition allMotions extern start"
    m = read(mof(tmp_path, "a", body, newline="\r\n")).motion
    np.testing.assert_allclose(m.times, [0, 0.1])


def test_jump_into_another_file_of_the_folder(tmp_path: Path) -> None:
    mof(tmp_path, "a", f"motion_id = a\nlabel start\n{row(10)}\ntransition allMotions b middle\n")
    mof(
        tmp_path,
        "b",
        f"motion_id = b\nlabel start\n{row(99)}\nlabel middle\n{row(20, dur=200)}\n"
        "transition allMotions extern start\n",
    )
    mf = read(tmp_path / "a.mof")
    m = mf.motion
    np.testing.assert_allclose(m.times, [0, 0.1, 0.3])
    np.testing.assert_allclose(np.degrees(m.position[:, 0]), [10, 10, 20])
    assert m.loop is None
    assert [Path(p).name for p in mf.record(MofRecord).files] == ["a.mof", "b.mof"]


def test_conditions_select_transitions_by_requested_motion(tmp_path: Path) -> None:
    body = (
        f"motion_id = a\nlabel start\n{row(10)}\ntransition other a start\n"
        f"label loop\n{row(20)}\ntransition a a loop\ntransition allMotions extern start\n"
    )
    path = mof(tmp_path, "a", body)
    m = read(path).motion  # requested a: `transition other …` falls through, `transition a a loop` loops
    np.testing.assert_allclose(m.times, [0, 0.1, 0.2])
    assert m.loop == pytest.approx((0.1, 0.2))
    m = read(path, motion="other").motion  # requested other: loops back to start
    np.testing.assert_allclose(m.times, [0, 0.1])
    assert m.loop == pytest.approx((0.0, 0.1))


def test_jump_back_across_files_is_the_loop(tmp_path: Path) -> None:
    mof(tmp_path, "a", f"motion_id = a\nlabel start\n{row(1)}\nlabel again\n{row(2)}\ntransition allMotions b start\n")
    mof(
        tmp_path,
        "b",
        f"motion_id = b\nlabel start\n{row(3)}\ntransition a a again\ntransition allMotions extern start\n",
    )
    m = read(tmp_path / "a.mof").motion
    np.testing.assert_allclose(np.degrees(m.position[:, 0]), [1, 1, 2, 3])
    assert m.loop == pytest.approx((0.1, 0.3))


# ------------------------------------------------------------------ errors (file:line)
def test_wrong_column_count(tmp_path: Path) -> None:
    body = f"motion_id = a\nlabel start\n{row(1)}\n{row(1, joints=21)}\ntransition allMotions extern start\n"
    err = error(mof(tmp_path, "a", body))
    assert err.line == 4
    assert "wrong column count" in err.reason


def test_wrong_column_count_in_a_hardness_line(tmp_path: Path) -> None:
    body = f"motion_id = a\nlabel start\nhardness {' '.join(['*'] * 20)} 100\n{row(1)}\n"
    err = error(mof(tmp_path, "a", body))
    assert err.line == 3
    assert "wrong column count" in err.reason


def test_row_before_any_label(tmp_path: Path) -> None:
    body = f'motion_id = a\n" comment\n{row(1)}\nlabel start\n{row(1)}\ntransition allMotions extern start\n'
    err = error(mof(tmp_path, "a", body))
    assert err.line == 3
    assert "before any label" in err.reason


def test_unknown_label(tmp_path: Path) -> None:
    body = f"motion_id = a\nlabel start\n{row(1)}\ntransition a a nowhere\ntransition allMotions extern start\n"
    err = error(mof(tmp_path, "a", body))
    assert err.line == 4
    assert "unknown label 'nowhere'" in err.reason


def test_unknown_label_in_another_file(tmp_path: Path) -> None:
    mof(tmp_path, "b", f"motion_id = b\nlabel start\n{row(1)}\ntransition allMotions extern start\n")
    body = f"motion_id = a\nlabel start\n{row(1)}\ntransition allMotions b nowhere\n"
    err = error(mof(tmp_path, "a", body))
    assert err.line == 4
    assert "unknown label 'nowhere' in motion 'b'" in err.reason


def test_bad_number(tmp_path: Path) -> None:
    bad = row(1).replace("1 1 1", "1 1x 1", 1)
    body = f"motion_id = a\nlabel start\n\n{bad}\ntransition allMotions extern start\n"
    err = error(mof(tmp_path, "a", body))
    assert err.line == 4
    assert "bad number '1x'" in err.reason


def test_bad_duration(tmp_path: Path) -> None:
    body = f"motion_id = a\nlabel start\n{row(1)[:-3]}1e3\ntransition allMotions extern start\n"
    err = error(mof(tmp_path, "a", body))
    assert err.line == 3
    assert "Dur" in err.reason


def test_unknown_target_motion(tmp_path: Path) -> None:
    body = f"motion_id = a\nlabel start\n{row(1)}\ntransition allMotions missing start\n"
    err = error(mof(tmp_path, "a", body))
    assert err.line == 4
    assert "unknown target motion 'missing'" in err.reason


def test_transition_loop_that_never_plays_a_row(tmp_path: Path) -> None:
    body = (
        f"motion_id = a\nlabel start\n{row(1)}\nlabel spin\ntransition allMotions b start\n"
        "transition allMotions extern start\n"
    )
    mof(tmp_path, "a", body)
    mof(tmp_path, "b", "motion_id = b\nlabel start\ntransition allMotions a spin\n")
    with pytest.raises(ReadError) as info:
        read(tmp_path / "a.mof")
    err = info.value
    assert Path(err.path) == tmp_path / "b.mof"
    assert err.line == 3
    assert "never plays a row" in err.reason


def test_missing_final_all_motions_transition_warns(tmp_path: Path) -> None:
    path = mof(tmp_path, "a", f"motion_id = a\nlabel start\n{row(1)}\n")
    with pytest.warns(UserWarning, match=r"a\.mof:3: missing final `transition allMotions extern start`"):
        m = read(path).motion
    assert m.num_frames == 2


def test_motion_id_needs_spaces(tmp_path: Path) -> None:
    err = error(mof(tmp_path, "a", f"motion_id=a\nlabel start\n{row(1)}\n"))
    assert err.line == 1
    assert "motion_id = NAME" in err.reason


def test_joint_map_with_another_column_count(tmp_path: Path) -> None:
    path = mof(tmp_path, "a", f"motion_id = a\nlabel start\n{row(1)}\ntransition allMotions extern start\n")
    err = error(path, joint_map="nao_26")
    assert err.line == 3
    assert "26 columns" in err.reason


def test_extern_holds_no_motion(tmp_path: Path) -> None:
    path = mof(tmp_path, "extern", "motion_id = extern\nlabel start\ntransition extern extern start\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        err = error(path)
    assert "no motion in it" in err.reason  # a net of labels and transitions only
