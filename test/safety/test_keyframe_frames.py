"""A keyframe's value is always judged, wherever its time falls on the sampling grid.

The example wave (``motion-formats example nao``) with its HeadYaw raised to 119.6° (2.087 rad,
beyond NAO's 2.08 rad) at t = 2.005 s, between two frames of the default 100 Hz grid: ``check``
must find it at any rate, the player refuses it, and both name the same time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.mof import WAVE_LOWERED, WAVE_PEAK, wave_peak

from motion_formats_ros import read
from motion_formats_ros.cli.example import contents
from motion_formats_ros.playback.config import PlayerConfig, PlayerError
from motion_formats_ros.playback.session import open_session


def _position_findings(out: str) -> list[dict[str, object]]:
    return [f for f in json.loads(out)["findings"] if f["kind"] == "position_limit"]


def test_the_peak_keyframe_is_where_the_file_puts_it(tmp_path: Path) -> None:
    mof, _ = wave_peak(tmp_path, 119.6, 1005)
    motion = read(mof).group()
    yaw = motion.joint_columns("HeadYaw").start
    peak = int(np.argmax(motion.position[:, yaw]))
    assert motion.times[peak] == pytest.approx(2.005)
    assert motion.position[peak, yaw] == pytest.approx(np.radians(119.6))


@pytest.mark.parametrize("rate", ["100", "0.5", "1000"])
def test_check_finds_a_keyframe_beyond_its_limit_between_the_sampled_frames(tmp_path: Path, rate: str) -> None:
    pytest.importorskip("coal")
    mof, urdf = wave_peak(tmp_path, 119.6, 1005)
    code, out, err, _ = cli("check", mof, "--urdf", urdf, "--rate", rate, "--json")
    assert code == 3, err
    (found,) = _position_findings(out)
    assert found["joint"] == "HeadYaw"
    worst = found["worst"]
    assert isinstance(worst, dict)
    assert worst["time"] == pytest.approx(2.005)
    assert worst["value"] == pytest.approx(np.radians(119.6))
    if rate == "1000":
        return  # its frames just before the peak are beyond the limit too
    code, out, _, _ = cli("check", mof, "--urdf", urdf, "--rate", rate)
    assert "joint HeadYaw beyond its position limit 2.08 rad at t = 2.005 s" in out, out  # the player's time


def test_a_rate_of_two_frames_still_judges_every_keyframe(tmp_path: Path) -> None:
    pytest.importorskip("coal")
    mof, urdf = wave_peak(tmp_path, 150.0, 1300)  # at t = 2.3 s: the 0.5 Hz grid has 0, 2 and 4 s
    code, out, err, _ = cli("check", mof, "--urdf", urdf, "--rate", "0.5")
    assert code == 3, out + err
    assert "HeadYaw beyond its position limit 2.08 rad" in out
    assert "no findings" not in out


def test_the_player_and_check_refuse_the_same_keyframe(tmp_path: Path) -> None:
    pytest.importorskip("coal")
    mof, urdf = wave_peak(tmp_path, 119.6, 1005)
    with pytest.raises(PlayerError, match=r"'HeadYaw' above its upper limit 2.08 at t = 2.005 s"):
        open_session(PlayerConfig(file=str(mof), urdf_file=str(urdf)))
    code, out, _, _ = cli("check", mof, "--urdf", urdf, "--json")
    assert code == 3
    (found,) = _position_findings(out)
    assert found["intervals"] == [[pytest.approx(2.005), pytest.approx(2.005)]]


def test_a_motion_within_its_limits_is_judged_as_before(tmp_path: Path) -> None:
    """The example wave, its keyframes on the 100 Hz grid: the same frames and no findings."""
    pytest.importorskip("coal")
    mof, urdf = wave_peak(tmp_path, 100.0, 1005)  # within the limit, off the grid
    code, out, err, _ = cli("check", mof, "--urdf", urdf)
    assert code == 0, out + err
    assert "no findings" in out
    files = contents("nao")
    (tmp_path / "wave.mof").write_bytes(files["wave.mof"])
    code, out, err, _ = cli("check", tmp_path / "wave.mof", "--urdf", urdf)
    assert code == 0, out + err
    motion = read(tmp_path / "wave.mof").group()
    assert f": {motion.frames_at(100.0)} frames checked" in out
    assert "no findings" in out


def test_the_frames_judged_are_the_grid_and_every_keyframe(tmp_path: Path) -> None:
    from motion_formats_ros.safety.frames import checked_frames, frame_count

    mof, _ = wave_peak(tmp_path, 100.0, 1005)
    motion = read(mof).group()
    chosen = checked_frames(motion, 100.0)
    times = chosen.motion.times
    assert set(motion.times.tolist()) <= set(times.tolist())
    grid = motion.resample(100.0).times
    np.testing.assert_array_equal(times[chosen.uniform], grid)
    assert times.size <= frame_count(motion, 100.0)  # what the memory pre-check counts
    # 1.005, 2.005, 3.005, 3.505 s lie between the grid's frames, and 4.505 s (the last) beyond it
    assert times.size == grid.size + 5
    assert times[-1] == motion.times[-1] > grid[-1]
    yaw = motion.joint_columns("HeadYaw").start
    np.testing.assert_array_equal(chosen.motion.position[chosen.uniform], motion.resample(100.0).position)
    assert chosen.motion.position[:, yaw].max() == motion.position[:, yaw].max()


#: One revolute joint ``a`` limited to ±7.59453 rad: below the scene's spline peak (7.594535 rad),
#: above its nearest 100 Hz frames (7.594524 rad at most).
ONE_JOINT = """<robot name="one">
 <link name="base"/><link name="l1"/>
 <joint name="a" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
  <limit lower="-7.59453" upper="7.59453" velocity="100" effort="1"/></joint>
</robot>"""

#: A cubic Hermite segment of ``a`` peaking at t = 0.566826 s (7.594535 rad), between 100 Hz frames.
PEAKING_SCENE = """{
 models: {arm: {joints: {a: {}}, links: {l1: {pose: {axisAngle: {axis: "z", angle: {joint: "a"}}}}}}},
 objects: {r: {model: "arm", jointValues: {a: {trajectory: "t"}}}},
 trajectories: {t: {controlPoints: [{t: 0, f: 0, df: 30}, {t: 1.003, f: 5, df: -10}]}},
}"""


def test_a_spline_peak_between_frames_is_judged_by_check_and_the_player(tmp_path: Path) -> None:
    scene = tmp_path / "peak.json5"
    scene.write_text(PEAKING_SCENE)
    urdf = tmp_path / "one.urdf"
    urdf.write_text(ONE_JOINT)
    code, out, err, _ = cli("check", scene, "--urdf", urdf, "--json")
    assert code == 3, out + err
    (found,) = _position_findings(out)
    worst = found["worst"]
    assert isinstance(worst, dict)
    assert worst["time"] == pytest.approx(0.566825, abs=1e-6)
    assert worst["value"] == pytest.approx(7.594535, abs=1e-6)
    with pytest.raises(PlayerError, match=r"'a' above its upper limit 7.59453 at t = 0.566826 s"):
        open_session(PlayerConfig(file=str(scene), urdf_file=str(urdf)))


def test_a_keyframe_reached_in_a_millisecond_is_judged_for_its_velocity_at_every_rate(tmp_path: Path) -> None:
    """HeadYaw to 100° (inside its ±2.08 rad) and back, 1 ms each way, between two sampled frames:
    about 1,700 rad/s against its 7 rad/s, which the sampled frames alone did not see."""
    pytest.importorskip("coal")
    mof, urdf = wave_peak(tmp_path, 100.0, 1005)
    lines = mof.read_text().splitlines()
    for number in (WAVE_PEAK, WAVE_LOWERED):
        fields = lines[number].split()
        fields[-1] = "1"
        lines[number] = " ".join(fields)
    mof.write_text("\n".join(lines) + "\n")
    for rate in ("100", "0.5", "1000"):
        code, out, err, _ = cli("check", mof, "--urdf", urdf, "--rate", rate)
        assert code == 3 and "joint HeadYaw beyond its velocity limit 7 rad/s" in out, (rate, out + err)
    with pytest.raises(PlayerError, match=r"joint 'HeadYaw' faster than its velocity limit 7 rad/s"):
        open_session(PlayerConfig(file=str(mof), urdf_file=str(urdf)))
