"""A number of hundreds of digits in a file is quoted short in every message (the one helper,
``core.errors.number``): never its digits in full."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros.core.errors import ReadError, number
from motion_formats_ros.core.kinematics import load_robot_model
from motion_formats_ros.core.options import settings_of
from motion_formats_ros.recording.recorder_config import RecorderConfig

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIGITS = "9" * 400


def test_a_long_run_of_digits_in_a_text_is_shown_by_its_length() -> None:
    assert number(DIGITS) == "'999…(400 digits)'"
    assert number(f"0 -{DIGITS} 0") == "'0 -999…(400 digits) 0'"
    assert number("1.5 2") == "'1.5 2'"  # short numbers as they are
    assert number("123456789012345") == "'123456789012345'"  # what a float holds: in full


@pytest.mark.parametrize(
    ("line", "old", "new", "where"),
    [
        (12, 'effort="12"', f'effort="-{DIGITS}"', "<limit>: effort="),
        (12, 'lower="-0.6"', f'lower="{DIGITS}"', "<limit>: lower="),
        (5, 'mass value="1.2"', f'mass value="{DIGITS}"', "<mass>: value="),
        (11, 'xyz="0 0.05 -0.05"', f'xyz="0 {DIGITS} 0"', "<origin>: xyz="),
    ],
)
def test_urdf_errors_quote_a_400_digit_number_short(tmp_path: Path, line: int, old: str, new: str, where: str) -> None:
    lines = (EXAMPLES / "biped.urdf").read_text().split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    path = tmp_path / "r.urdf"
    path.write_text("\n".join(lines))
    with pytest.raises(ReadError) as caught:
        load_robot_model(path)
    text = str(caught.value)
    assert f"r.urdf:{line}: {where}" in text and "999…(400 digits)" in text, text
    assert len(text) < 200, text


def test_urdf_limits_the_wrong_way_round_quote_a_long_bound_short(tmp_path: Path) -> None:
    long = "1" + "0" * 30  # finite, but 31 digits
    text = (EXAMPLES / "biped.urdf").read_text().replace('lower="-0.6"', f'lower="{long}"', 1)
    path = tmp_path / "r.urdf"
    path.write_text(text)
    with pytest.raises(ReadError) as caught:
        load_robot_model(path)
    assert "lower='100…(31 digits)' is above upper='0.6'" in str(caught.value)


@pytest.mark.parametrize("value", [10**400, -(10**400)], ids=["positive", "negative"])
def test_an_option_of_400_digits_is_refused_in_a_short_line(value: int) -> None:
    problem = settings_of(RecorderConfig)["rate"].problem(value)
    assert problem == "rate must be a finite number, got " + number(value)
    assert "integer of about 401 digits" in problem
