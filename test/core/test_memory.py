"""core.memory: what a rate or a duration would allocate is refused in one line before it is."""

from __future__ import annotations

import numpy as np
import pytest

from motion_formats_ros.core.errors import OutOfRangeError
from motion_formats_ros.core.memory import available_memory, check_frames, require_room, size_text
from motion_formats_ros.core.merge import Segment, merge_on_grid


def test_a_request_beyond_the_memory_there_is_names_itself_and_both_sizes() -> None:
    room = available_memory()
    assert room is not None and room > 0
    require_room("rate 1", 1024)  # a kibibyte is there
    with pytest.raises(OutOfRangeError, match=r"^rate 1e\+12: .* would need 8\.0 PiB, more than the .* this process"):
        require_room("rate 1e+12: a lot", 8 * 1024**5)
    assert size_text(1536) == "1.5 KiB" and size_text(12) == "12 B"


def test_frames_times_joints_times_channels() -> None:
    """The simulator's call: a billion frames of 30 joints and 3 channels is refused naming the option."""
    check_frames("duration 10", 10_000, 30, 3)
    with pytest.raises(
        OutOfRangeError, match=r"^duration 1e\+07: 1,000,000,000 frames × 30 joints × 3 channels would need"
    ):
        check_frames("duration 1e+07", 1_000_000_000, 30, 3)


def test_a_recovery_grid_too_fine_is_refused_before_its_times_exist() -> None:
    """Two samples a second apart on a grid of 1e12 Hz: a trillion frames, refused naming the rate."""
    stamps = np.array([0, 1_000_000_000], dtype=np.int64)
    segment = Segment(("a",), stamps, stamps, {"position": np.zeros((2, 1))}, times=stamps)
    assert merge_on_grid([segment], 10.0)[0].size == 11
    with pytest.raises(OutOfRangeError, match=r"^rate 1e\+12: 1,000,000,000,001 frames × 1 joints would need"):
        merge_on_grid([segment], 1e12)
