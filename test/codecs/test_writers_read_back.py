"""Every writer, given motions of extreme but finite numbers (times a subnormal apart, values
near the end of the float range, subnormal values, long names), either refuses in one line
naming the output or writes a file its own reader reads back, values within the format's
precision (derandomized, as every property test of the package)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core.errors import MotionFormatError, MotionValueError
from motion_formats_ros.core.notices import NoticeKind, collect

#: Output name → format; values are compared to 8 significant digits (``.seq`` writes ``%.9g``).
OUTPUTS = {
    "m.msgpack": "omf",
    "m.omf.yaml": "omf",
    "m.omf.json": "omf",
    "m.seq": "seq",
    "m.json5": "scene",
    "m.json": "scene",
    "m.csv": "csv",
    "m.parquet": "parquet",
    "m.mcap": "rosbag",
    "m.mtn": "mtn",  # keyframes of 16 ms frames and micro-radians: lossy, with a warning naming it
    "m.mof": "mof",
}
#: Keyframe formats on a frame grid: what they approximate is named in a warning.
KEYFRAMES = ("mtn", "mof")
#: Their values' own step: micro-radians (.mtn), degrees to 6 decimals (.mof).
ATOL = {"mtn": 5.01e-7, "mof": 1e-8}
pytest.importorskip("pyarrow")

STARTS = [0.0, 1.0, -2.5, 1e9, 1e300, -1e300, 5e-324]
STEPS = [5e-324, 1e-310, 1e-12, 1e-9, 1.2e-7, 1e-3, 0.04, 1.0, 1e300]
VALUES = [0.0, -0.0, 1.0, -1.5, 1e308, -1e308, 1.7976931348623157e308, 5e-324, -5e-324, 1e-310, 2.2e-308, 1e-9]
NAMES = ["a", "b", "HeadYaw", "LShoulderPitch", "joint_0", "x" * 300, "名前"]


@st.composite
def motions(draw: st.DrawFn) -> Motion:
    n = draw(st.integers(1, 5))
    times = [draw(st.sampled_from(STARTS))]
    for _ in range(n - 1):
        t = times[-1] + draw(st.sampled_from(STEPS))
        times.append(max(t, float(np.nextafter(times[-1], np.inf))))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2, unique=True))
    values = draw(
        st.lists(
            st.lists(st.sampled_from(VALUES) | st.floats(-1e6, 1e6), min_size=len(names), max_size=len(names)),
            min_size=n,
            max_size=n,
        )
    )
    try:
        with np.errstate(all="ignore"):
            return Motion(times=np.array(times), joint_names=tuple(names), position=np.array(values))
    except MotionValueError:
        assume(False)
        raise


def _close(a: np.ndarray, b: np.ndarray, atol: float = 1e-300) -> bool:
    return bool(np.all(np.isclose(a, b, rtol=1e-8, atol=atol) | (a == b)))


def _written_and_read(motion: Motion, out: Path, fmt: str) -> None:
    with collect(warn=False) as report:
        try:
            write(MotionFile.single(motion), out, format=fmt, overwrite=True)
        except MotionFormatError as exc:
            text = str(exc)
            assert "\n" not in text and str(out) in text and len(text) < 1200, text
            return
        back = read(out, format=fmt).motion
    if fmt in KEYFRAMES and any(n.kind == NoticeKind.LOSSY_WRITE for n in report.notices):
        return  # an approximation named in its warning (keyframes on a frame grid): read back, not compared
    assert back.times.shape == motion.times.shape, (out.name, back.times, motion.times)
    assert _close(back.times - back.times[0], motion.times - motion.times[0]) or _close(back.times, motion.times), (
        out.name,
        back.times.tolist(),
        motion.times.tolist(),
    )
    assert back.position is not None and motion.position is not None
    position = back.position
    if set(motion.joint_names) <= set(back.joint_names):  # a .mof holds every NAO joint: the motion's by name
        position = position[:, [back.joint_names.index(n) for n in motion.joint_names]]
    assert _close(position, motion.position, ATOL.get(fmt, 1e-300)), (
        out.name,
        position.tolist(),
        motion.position.tolist(),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(motion=motions())
def test_every_writer_refuses_in_one_line_or_writes_what_its_reader_reads_back(motion: Motion) -> None:
    with tempfile.TemporaryDirectory(prefix="mfr-writers-") as folder:
        for name, fmt in OUTPUTS.items():
            _written_and_read(motion, Path(folder) / name, fmt)
