"""A motion whose values are near the end of the float range: a root at 1e308 m everywhere is
checked where it stands (the check computes in a frame near the first frame's root), a root that
jumps that far is refused in one line naming its file, the frame and the axis, never judged on
infinities ("ZMP outside … by inf mm"); a joint's rates across such values (a joint jumping
between ±1e308) are infinite, beyond every limit, never NaN; and never numpy's own warnings. And
a motion's NaN values held for the kinematics are its own: the warning names the motion, not the
robot model."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read, write
from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.joint_limits import JointLimits
from motion_formats_ros.core.kinematics import load_robot_model
from motion_formats_ros.core.model import MotionFile
from motion_formats_ros.core.notices import collect
from motion_formats_ros.safety import balance_series, check
from motion_formats_ros.safety.limits import LimitViolationError, check_limits

pytest.importorskip("coal")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BODY = EXAMPLES / "biped.body"
EXE = Path(sys.executable).parent / "motion-formats"
LIMITS = """joint_limits:
  left_hip_yaw:
    has_velocity_limits: true
    max_velocity: 6
    has_acceleration_limits: true
    max_acceleration: 10
"""


def _walk() -> MotionFile:
    return read(EXAMPLES / "walk.seq", body=BODY)


def _with(walk: MotionFile, **fields: object) -> MotionFile:
    motion = dataclasses.replace(walk.motion, **fields)  # type: ignore[arg-type]
    return dataclasses.replace(walk, groups=dict.fromkeys(walk.groups, motion))


def _raw(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def _root_at(walk: MotionFile, x: float, start: int = 0) -> MotionFile:
    root = np.array(walk.motion.root_position, dtype=np.float64)
    root[start:, 0] = x
    return _with(walk, root_position=root)


def _refusal(x: float, frame: int) -> str:
    """The one line that refuses a root at ``x`` from ``frame`` on (the walk starts near x = 0)."""
    return (
        f"root position: at frame {frame} (t = {frame / 100:.6g} s), x = {x:g} m is {abs(x):.3g} m from the "
        "check's origin (x = 0 m): beyond 8.59e+09 m floats are more than 1 µm apart, too coarse to "
        "check collisions or balance"
    )


def test_a_root_at_1e308_everywhere_is_checked_where_it_stands() -> None:
    """Moved along the ground the robot meets the same floor and the same balance: the check
    computes in a frame near the first frame's root, where nothing overflows."""
    walk = _walk()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        far = check(_root_at(walk, 1e308), BODY)
    assert not _raw(caught), _raw(caught)
    here = check(_root_at(walk, 0.0), BODY)
    assert [(f.kind, f.links, f.intervals) for f in far.findings] == [
        (f.kind, f.links, f.intervals) for f in here.findings
    ]


@pytest.mark.parametrize("x", [1e308, 1e307, -1e17])
def test_a_root_that_jumps_too_far_is_refused_naming_the_frame(x: float) -> None:
    walk = _root_at(_walk(), x, start=30)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ReadError) as refused:
            check(walk, BODY)
    assert not _raw(caught), _raw(caught)
    assert str(refused.value) == f"{EXAMPLES / 'walk.seq'}: {_refusal(x, 30)}"


def test_the_balance_series_refuses_a_root_that_jumps_to_1e308_naming_the_file() -> None:
    walk = _root_at(_walk(), -1e308, start=5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ReadError) as refused:
            balance_series(load_robot_model(BODY), walk.motion, source="walk.seq")
    assert not _raw(caught), _raw(caught)
    assert str(refused.value) == f"walk.seq: {_refusal(-1e308, 5)}"


def test_the_command_line_refuses_a_root_that_jumps_to_1e308_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "far.seq"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(_root_at(_walk(), 1e308, start=12), path)
    proc = subprocess.run(
        [str(EXE), "check", str(path), "--body", str(BODY)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert [line for line in lines if not line.startswith("warning: ") or "encountered" in line] == [
        f"error: {path}: {_refusal(1e308, 12)}"
    ]
    assert "inf mm" not in proc.stdout


def test_rates_across_values_beyond_the_float_range_are_infinite_never_nan(tmp_path: Path) -> None:
    walk = _walk()
    position = np.array(walk.motion.position, dtype=np.float64)
    position[6, 0], position[7, 0] = 1e308, -1e308  # the velocity overflows; its own rate is inf - inf
    walk = _with(walk, position=position)
    limits = tmp_path / "joint_limits.yaml"
    limits.write_text(LIMITS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = check(walk, BODY, limits=limits)
    assert not _raw(caught), _raw(caught)
    rates = {f.kind: f for f in report.findings if f.kind in ("velocity_limit", "acceleration_limit")}
    assert rates["velocity_limit"].worst == np.inf
    assert rates["acceleration_limit"].worst == np.inf  # was NaN, and the frames around it went unjudged
    assert [list(i) for i in rates["acceleration_limit"].intervals] == [[0.04, 0.09]]
    with pytest.raises(LimitViolationError, match=r"^joint 'left_hip_yaw' .* limit .* at t = 0\.0[45] s"):
        check_limits(walk.motion, JointLimits.of_model(load_robot_model(BODY)).overlay(limits))


def test_values_that_stay_in_range_are_still_judged() -> None:
    report = check(_root_at(_walk(), 1.0), BODY)
    assert "balance" in report.checked
    assert all(np.isfinite(f.worst) for f in report.findings)


def test_a_held_nan_of_the_motion_is_named_on_the_motion_not_the_model() -> None:
    walk = _walk()
    position = np.array(walk.motion.position, dtype=np.float64)
    position[6, 0] = np.nan
    walk = _with(walk, position=position)
    with collect(warn=False) as report:
        check(walk, BODY)
    held = [n for n in report.notices if "hold the last finite value" in n.message]
    assert len(held) == 1
    assert held[0].file == str(EXAMPLES / "walk.seq")
    assert held[0].message == (
        "non-finite values of left_hip_yaw hold the last finite value (0 before it; the first at frame 6)"
    )
    assert "biped.body" not in str(held[0])
