"""Times and values near the end of the float range through the commands: one line naming the
file and the field or option, or a right result; never a traceback, never numpy's or
matplotlib's own warning on the console."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import read, write
from motion_formats_ros.core.examples import biped_urdf
from motion_formats_ros.core.model import Motion, MotionFile

RAW = ("Traceback", "overflow encountered", "invalid value encountered", "RuntimeWarning")


def _clean(err: str) -> None:
    assert not any(word in err for word in RAW), err


def _csv(path: Path, times: list[float], positions: list[list[float]], names: tuple[str, ...] = ("a", "b")) -> Path:
    motion = Motion(times=np.array(times), joint_names=names, position=np.array(positions, dtype=np.float64))
    write(MotionFile(groups={"g": motion}), path)
    return path


def test_a_rate_over_times_near_the_float_range_is_one_line_naming_the_rate(tmp_path: Path) -> None:
    source = _csv(tmp_path / "endless.csv", [0.0, 1e308], [[0, 0], [1, 1]])
    status, _, err, _ = cli("convert", source, tmp_path / "out.csv", "--rate", "10")
    _clean(err)
    assert status == 2 and err.splitlines()[-1].endswith(
        "error: --rate 10: the motion's 1e+308 s would make more frames than can be counted"
    ), err
    assert not (tmp_path / "out.csv").exists()


def test_a_rate_that_leaves_one_frame_is_refused_naming_the_rate(tmp_path: Path) -> None:
    times = np.linspace(0.0, 600.0, 601)
    source = _csv(tmp_path / "long.csv", times.tolist(), np.zeros((601, 2)).tolist())
    status, _, err, _ = cli("convert", source, tmp_path / "out.csv", "--rate", "1e-3")
    _clean(err)
    assert status == 2 and "--rate 0.001 leaves 1 frame of a 600 s motion: at least 0.00167 Hz" in err, err
    assert not (tmp_path / "out.csv").exists()
    status, out, err, _ = cli("batch", source, "-o", tmp_path / "many", "--to", "csv", "--rate", "1e-3")
    _clean(err)
    assert status == 1 and "--rate 0.001 leaves 1 frame" in out + err, out + err


def test_resampling_values_of_opposite_sign_near_the_float_range_stays_between_them(tmp_path: Path) -> None:
    source = _csv(tmp_path / "wide.csv", [0.0, 1.0, 2.0], [[1e308, -1e308], [-1e308, 1e308], [1e308, 0.0]])
    status, _, err, _ = cli("convert", source, tmp_path / "out.csv", "--rate", "10")
    _clean(err)
    assert status == 0 and "non-finite" not in err, err
    position = read(tmp_path / "out.csv").group().position
    assert position is not None and position.shape == (21, 2) and np.all(np.isfinite(position))
    np.testing.assert_allclose(position[1], [8e307, -8e307], rtol=1e-8)


def test_plotting_values_or_times_near_the_float_range_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    wide = _csv(tmp_path / "wide.csv", [0.0, 1.0, 2.0], [[1e308, -1e308], [-1e308, 1e308], [1e308, 0.0]])
    endless = _csv(tmp_path / "endless.csv", [0.0, 1e308], [[0, 0], [1, 1]])
    for source, what in ((wide, "joint position reaches 1e+308"), (endless, "time reaches 1e+308")):
        status, _, err, _ = cli("plot", source, tmp_path / "out.png", blocked=())
        _clean(err)
        expected = f"error: {source}: group target: {what}, beyond the ±1e+300 a plot's axis can be scaled to"
        assert status == 1 and err.strip() == expected, err
        assert not (tmp_path / "out.png").exists()


def test_a_joint_limit_of_401_digits_is_one_line_naming_the_key(tmp_path: Path) -> None:
    pytest.importorskip("coal", reason="checks the example robot's collision boxes (check extra)")
    urdf = tmp_path / "biped.urdf"
    urdf.write_text(biped_urdf())
    source = _csv(tmp_path / "still.csv", [0.0, 0.1], [[0.0], [0.1]], names=("left_knee",))
    limits = tmp_path / "joint_limits.yaml"
    limits.write_text(f"joint_limits:\n  left_knee:\n    has_velocity_limits: true\n    max_velocity: {'9' * 401}\n")
    status, _, err, _ = cli("check", source, "--urdf", urdf, "--limits", limits)
    _clean(err)
    assert status == 1 and err.startswith(f"error: {limits}: joint_limits.left_knee.max_velocity: max_velocity is "), (
        err
    )
    assert len(err.splitlines()) == 1 and len(err) < 300, err


def test_checking_positions_near_the_float_range_finds_infinite_speeds_without_raw_warnings(tmp_path: Path) -> None:
    pytest.importorskip("coal", reason="checks the example robot's collision boxes (check extra)")
    urdf = tmp_path / "biped.urdf"
    urdf.write_text(biped_urdf())
    q = [[1e308, 0.5], [-1e308, 0.5], [1e308, 0.5], [-1e308, 0.5], [1e308, 0.5]]
    source = _csv(tmp_path / "wide.csv", [0.0, 0.01, 0.02, 0.03, 0.04], q, names=("left_knee", "right_knee"))
    status, out, err, _ = cli("check", source, "--urdf", urdf)
    _clean(err)
    assert status == 3, out + err
    assert "joint left_knee beyond its velocity limit 6 rad/s at t = 0 s (worst inf rad/s)" in out, out
    assert "worst nan" not in out and "right_knee beyond its velocity" not in out, out


def test_a_check_of_times_near_the_float_range_prints_short_intervals(tmp_path: Path) -> None:
    pytest.importorskip("coal", reason="checks the example robot's collision boxes (check extra)")
    urdf = tmp_path / "biped.urdf"
    urdf.write_text(biped_urdf())
    source = _csv(tmp_path / "late.csv", [0.0, 0.01, 1e308], [[0.0], [3.0], [3.0]], names=("left_knee",))
    status, out, err, _ = cli("check", source, "--urdf", urdf)
    _clean(err)
    assert status == 3 and "beyond its position limit 2.2 rad" in out, out + err
    assert "[0.010-1e+308 s]" in out and max(len(line) for line in out.splitlines()) < 300, out
    assert "velocity limit" in out and "worst nan" not in out, out


def test_a_number_beyond_the_float_range_in_a_csv_is_named_by_line_and_column(tmp_path: Path) -> None:
    source = tmp_path / "big.csv"
    source.write_text("time,a.position,b.position\n0,0,inf\n1,1e400,-1E999\n2,-Infinity,3\n")
    status, _, err, _ = cli("info", source)
    _clean(err)
    assert status == 0, err
    said = [line for line in err.splitlines() if "float range" in line]
    expected = (
        f"{source}:3: column 'a.position': '1e400' is beyond the float range: read as inf (and 1 more such values)"
    )
    assert said == [f"warning: {expected}"], err
    status, _, err, _ = cli("info", source, "--strict")
    assert status == 1, err


def test_times_near_the_float_range_do_not_fit_mtn_frames(tmp_path: Path) -> None:
    source = _csv(tmp_path / "endless.csv", [0.0, 1e308], [[0, 0], [1, 1]])
    status, _, err, _ = cli("convert", source, tmp_path / "out.mtn")
    _clean(err)
    expected = (
        f"error: {tmp_path / 'out.mtn'}: 1e+308 s is more frames of 16 ms: .mtn counts the frames between "
        "keyframes in 32 bits (at most 2,147,483,647)"
    )
    assert status == 1 and err.strip() == expected, err
    # keyframes 1e8 s apart: 6.25e9 frames of 16 ms, which a 32-bit count held wrapped round
    keys = Motion(times=np.array([0.0, 1e8]), joint_names=("a",), position=np.zeros((2, 1)), interpolation=("linear",))
    pytest.importorskip("pyarrow", reason="keyframes kept as such in a Parquet table (parquet extra)")
    write(MotionFile(groups={"g": keys}), tmp_path / "keys.parquet")
    status, _, err, _ = cli("convert", tmp_path / "keys.parquet", tmp_path / "out.mtn", blocked=())
    assert status == 1 and "1e+08 s is 6,250,000,000 frames of 16 ms: .mtn counts" in err, err
    assert not (tmp_path / "out.mtn").exists()


def test_a_keyframe_motion_shorter_than_the_check_rates_period_is_checked_as_its_keyframes(tmp_path: Path) -> None:
    pytest.importorskip("coal", reason="checks the example robot's collision boxes (check extra)")
    from motion_formats_ros.safety import check

    urdf = tmp_path / "biped.urdf"
    urdf.write_text(biped_urdf())
    keys = Motion(
        times=np.array([0.0, 0.005]),
        joint_names=("left_knee",),
        position=np.array([[0.0], [0.01]]),
        interpolation=("linear",),
    )
    report = check(MotionFile(groups={"g": keys}), urdf)  # at the default 100 Hz: no refusal naming a rate
    assert report.times.tolist() == [0.0, 0.005] and not report.errors
