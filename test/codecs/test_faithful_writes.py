"""A writer never makes a file its own reader refuses: what a format cannot hold faithfully is
refused in one line naming the output and what could not be written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core.errors import WriteError


def _single(times: list[float], values: list[float], **kwargs: object) -> MotionFile:
    motion = Motion(times=times, joint_names=("a",), position=np.array(values)[:, None], **kwargs)  # type: ignore[arg-type]
    return MotionFile.single(motion)


@pytest.mark.parametrize(
    ("times", "rate"),
    [([0.0, 5e-324], "inf"), ([0.0, 1e-7, 2e-7], r"1e\+07")],
)
def test_a_seq_refuses_frames_closer_than_its_highest_frame_rate(tmp_path: Path, times: list[float], rate: str) -> None:
    out = tmp_path / "m.seq"
    with np.errstate(over="ignore"):
        motion_file = _single(times, [1.0] * len(times))
    with pytest.raises(WriteError, match=rf"m\.seq: frames 0 and 1 at 0 and .* s give a frameRate of {rate} Hz"):
        write(motion_file, out)
    assert not out.exists()


def test_a_seq_at_the_highest_frame_rate_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "m.seq"
    write(_single([0.0, 1e-6, 2e-6, 5e-6], [1.0, 2.0, 3.0, 4.0]), out)
    np.testing.assert_array_equal(read(out).motion.times, [0.0, 1e-6, 2e-6, 5e-6])


@pytest.mark.parametrize("suffix", [".json5", ".json"])
def test_a_scene_refuses_values_whose_spline_overflows_naming_joint_and_time(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"m{suffix}"
    with pytest.raises(WriteError, match=rf"m\{suffix}: joint 'a' from t = 1 to 2 s: its spline .* overflows"):
        write(_single([0.0, 1.0, 2.0], [0.0, 1e308, -1e308]), out, format="scene")
    assert not out.exists()


def test_a_scene_refuses_a_root_whose_spline_overflows(tmp_path: Path) -> None:
    motion = Motion(times=[0.0, 1.0], root_position=[[0.0, 1e308, 0.0], [0.0, -1e308, 0.0]])
    with pytest.raises(WriteError, match=r"the root's y from t = 0 to 1 s"):
        write(MotionFile.single(motion), tmp_path / "m.json5")


def test_a_scene_of_large_values_whose_spline_stays_in_range_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "m.json5"
    write(_single([0.0, 1.0, 2.0], [1e308, 1e308, 5e307]), out)
    np.testing.assert_array_equal(read(out).motion.position[:, 0], [1e308, 1e308, 5e307])  # type: ignore[index]


@pytest.mark.parametrize("suffix", [".msgpack", ".omf.yaml"])
def test_omf_frames_beyond_the_highest_fps_keep_their_times_in_the_stamp_column(tmp_path: Path, suffix: str) -> None:
    times = 1e9 + np.arange(3) * 1.2e-7  # uniform, at about 8 MHz: no fps a reader takes
    out = tmp_path / f"m{suffix}"
    write(_single(list(times), [0.0, 1.0, 2.0]), out)
    back = read(out).motion
    np.testing.assert_array_equal(back.times, times)


@pytest.mark.parametrize("suffix", [".mcap", ".db3"])
def test_a_bag_refuses_frames_less_than_a_nanosecond_apart(tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"m{suffix}"
    with pytest.raises(WriteError, match=r"frames 0 and 1 at 0 and 1e-10 s are less than a nanosecond apart"):
        write(_single([0.0, 1e-10, 1.0], [0.0, 1.0, 2.0]), out)
    assert not out.exists()


def test_an_mtn_whose_end_moves_to_the_next_frame_says_so(tmp_path: Path) -> None:
    from motion_formats_ros.core.notices import collect

    with collect(warn=False) as report:
        write(_single([0.0, 0.001], [0.0, 0.0]), tmp_path / "m.mtn")
    assert any(
        "the end at 0.001 s, between frames of 16 ms (moved to the next frame, 0.016 s)" in n.message
        for n in report.notices
    ), [n.message for n in report.notices]
    np.testing.assert_array_equal(read(tmp_path / "m.mtn").motion.times, [0.0, 0.016])
