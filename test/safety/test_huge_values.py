"""A motion whose values are near the end of the float range: where the balance check's centre of
mass, ground reaction or ZMP would be infinite (a root at 1e308 m) the motion is refused in one
line naming its file, the frame and what overflowed, never judged on infinities ("ZMP outside …
by inf mm"); a joint's rates across such values (a joint jumping between ±1e308) are infinite,
beyond every limit, never NaN; and never numpy's own warnings. And a motion's NaN values held for
the kinematics are its own: the warning names the motion, not the robot model."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import read, write
from motion_formats_ros.core.joint_limits import JointLimits
from motion_formats_ros.core.kinematics import load_robot_model
from motion_formats_ros.core.model import MotionFile
from motion_formats_ros.core.notices import collect
from motion_formats_ros.safety import balance_series, check
from motion_formats_ros.safety.findings import BeyondFloatRangeError
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


def _root_said(walk: MotionFile) -> str:
    """The root position at frame 0 as a refusal quotes it, with x at 1e308."""
    _, y, z = walk.motion.root_position[0]  # type: ignore[index]
    return f"(1e+308, {y:g}, {z:g}) m"


def _root_at(walk: MotionFile, x: float) -> MotionFile:
    root = np.array(walk.motion.root_position, dtype=np.float64)
    root[:, 0] = x
    return _with(walk, root_position=root)


def test_a_root_at_1e308_is_refused_naming_the_frame_and_the_centre_of_mass() -> None:
    walk = _root_at(_walk(), 1e308)
    root = _root_said(walk)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(BeyondFloatRangeError) as refused:
            check(walk, BODY)
    assert not _raw(caught), _raw(caught)
    assert str(refused.value) == (
        f"{EXAMPLES / 'walk.seq'}: the centre of mass is beyond the float range at t = 0.000 s (frame 0) "
        f"(the root position there is {root}): the motion's values are too large for it"
    )


def test_a_root_that_overflows_only_the_ground_reaction_is_refused_naming_it() -> None:
    walk = _root_at(_walk(), 1e307)  # the centre of mass holds; M · c × g does not
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(BeyondFloatRangeError) as refused:
            check(walk, BODY)
    assert not _raw(caught), _raw(caught)
    assert refused.value.what == "the ground's reaction (the rate of change of the momentum)"
    assert refused.value.frame == 0


def test_the_balance_series_refuses_a_root_at_1e308_naming_the_file() -> None:
    walk = _root_at(_walk(), -1e308)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(BeyondFloatRangeError) as refused:
            balance_series(load_robot_model(BODY), walk.motion, source="walk.seq")
    assert not _raw(caught), _raw(caught)
    assert str(refused.value).startswith("walk.seq: the centre of mass is beyond the float range at t = 0.000 s")


def test_the_command_line_refuses_a_root_at_1e308_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "far.seq"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(_root_at(_walk(), 1e308), path)
    root = _root_said(read(path, body=BODY))
    proc = subprocess.run(
        [str(EXE), "check", str(path), "--body", str(BODY)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert [line for line in lines if not line.startswith("warning: ") or "encountered" in line] == [
        f"error: {path}: the centre of mass is beyond the float range at t = 0.000 s (frame 0) "
        f"(the root position there is {root}): the motion's values are too large for it"
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
