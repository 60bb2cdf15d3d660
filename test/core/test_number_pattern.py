"""The number pattern the fast YAML paths and .pseq use answers in linear time on hostile input."""

from __future__ import annotations

import time

import pytest

from motion_formats_ros.codecs.pseq import _EXPONENT_NUMBER
from motion_formats_ros.core.serial.yaml import NUMBER


@pytest.mark.parametrize("pattern", [NUMBER, _EXPONENT_NUMBER], ids=["yaml", "pseq"])
def test_a_long_run_of_digits_then_a_letter_is_refused_at_once(pattern: object) -> None:
    text = "9" * 200_000 + "x"
    started = time.process_time()
    assert pattern.fullmatch(text) is None  # type: ignore[attr-defined]
    # the backtracking pattern took minutes on this; a linear one takes milliseconds
    assert time.process_time() - started < 2.0


@pytest.mark.parametrize("text", ["5", "5.", "5.5", "-5e3", "+.5", ".5E-2", "55", ".inf", "-.Inf", ".nan"])
def test_the_numbers_it_took_before_it_takes_now(text: str) -> None:
    assert NUMBER.fullmatch(text)
