"""A motion's recording date goes into the bags this package writes: the messages are stamped
from it (when nothing says otherwise) and the custom data keeps it, so that reading the bag
gives it back."""

from __future__ import annotations

import dataclasses
import re
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from conftest import lossy_messages
from rosbags.highlevel import AnyReader

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.core.notices import collect

DATE = datetime(2024, 3, 1, 12, 30, 15, 123456)
#: DATE in ns since 1970, taken as UTC (it names no time zone).
DATE_NS = 1_709_296_215_123_456_000


def _first_stamp(bag: Path) -> int:
    with AnyReader([bag]) as reader:
        return min(t for _, t, _ in reader.messages())


@pytest.mark.parametrize("name", ["walk.mcap", "walk.db3", "walk_folder"])
def test_an_omf_date_survives_a_bag_and_stamps_its_messages(tmp_path: Path, name: str) -> None:
    omf = tmp_path / "walk.omf.msgpack"
    write(dataclasses.replace(biped_walk(rate=10.0, cycles=1), date=DATE), omf)
    bag = tmp_path / name
    write(read(omf), bag, format="rosbag")
    assert _first_stamp(bag) == DATE_NS  # read by rosbags, not only by this package
    back = read(bag)
    assert back.date == DATE
    assert back.start_time_ns == DATE_NS
    write(back, tmp_path / "back.omf.json")
    assert read(tmp_path / "back.omf.json").date == DATE


def test_a_date_with_a_time_zone_keeps_it(tmp_path: Path) -> None:
    date = DATE.replace(tzinfo=timezone(timedelta(hours=2)))
    write(dataclasses.replace(biped_walk(rate=10.0, cycles=1), date=date), tmp_path / "w.mcap")
    assert _first_stamp(tmp_path / "w.mcap") == DATE_NS - 2 * 3600 * 10**9
    assert read(tmp_path / "w.mcap").date == date


def test_a_recorded_start_still_comes_before_the_date(tmp_path: Path) -> None:
    start = 1_600_000_000_000_000_001
    motion_file = dataclasses.replace(biped_walk(rate=10.0, cycles=1), date=DATE, start_time_ns=start)
    write(motion_file, tmp_path / "w.mcap")
    assert _first_stamp(tmp_path / "w.mcap") == start
    back = read(tmp_path / "w.mcap")
    assert (back.date, back.start_time_ns) == (DATE, start)


@pytest.mark.parametrize("date", [datetime(1969, 12, 31, 23, 0), datetime(2262, 4, 12)])
def test_a_date_the_stamps_cannot_start_at_is_named_and_they_start_now(tmp_path: Path, date: datetime) -> None:
    """Before 1970, or beyond what a bag's int64 nanoseconds reach from it, a date stamps nothing:
    the bag starts now, and the warning says so; the date itself still comes back."""
    before = time.time_ns()
    with collect(warn=False) as report:
        write(dataclasses.replace(biped_walk(rate=10.0, cycles=1), date=date), tmp_path / "w.mcap")
    (message,) = [m for m in lossy_messages(report) if "date" in m]
    assert date.isoformat() in message and "the bag's stamps start now" in message
    assert before <= _first_stamp(tmp_path / "w.mcap") <= time.time_ns()
    assert read(tmp_path / "w.mcap").date == date


def test_a_day_without_a_time_survives_a_bag_as_text(tmp_path: Path) -> None:
    """An OMF ``basic.date`` of a day alone is no date and time: the bag keeps its text (and says
    its stamps start now), and reading the bag gives the same text back to OMF."""
    omf = tmp_path / "walk.omf.yaml"
    write(biped_walk(rate=10.0, cycles=1), omf)
    omf.write_text(re.sub(r"(?m)^  date: .*$", "  date: 2026-01-01", omf.read_text()))
    with collect(warn=False) as report:
        source = read(omf)
        write(source, tmp_path / "w.mcap")
    assert (source.date, source.date_text) == (None, "2026-01-01")
    assert any("the date '2026-01-01' is no date and time" in m for m in lossy_messages(report))
    back = read(tmp_path / "w.mcap")
    assert (back.date, back.date_text) == (None, "2026-01-01")
    write(back, tmp_path / "back.omf.yaml")
    assert "  date: '2026-01-01'" in (tmp_path / "back.omf.yaml").read_text()
