"""The player's ROS-free half: its settings, and a playback session's joints, limits, plan and clock."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.core.examples import biped_urdf, biped_walk
from motion_formats_ros.core.options import make_config, settings_of
from motion_formats_ros.playback.config import PlayerConfig, PlayerError
from motion_formats_ros.playback.session import PlaybackSession, load, open_session
from motion_formats_ros.ros.launch_args import read_config

ROOT = Path(__file__).resolve().parents[2]


def _without_collisions(urdf: str) -> str:
    """The model without its collision shapes: these tests are about limits, speed and frames, and run
    where no collision library is installed too."""
    return re.sub(r"<collision>.*?</collision>", "", urdf, flags=re.S)


def test_the_config_file_lists_every_setting_with_its_default() -> None:
    config = read_config(ROOT / "config" / "player.yaml", "motion_player")
    settings = settings_of(PlayerConfig)
    assert [n for n in config if n != "use_sim_time"] == list(settings)
    for name, spec in settings.items():
        expected = list(spec.default) or [""] if isinstance(spec.default, tuple) else spec.default
        assert config[name] == expected, name


def test_settings_are_typed_and_checked_once() -> None:
    config = make_config(PlayerConfig, {"rate": 2, "joints": ["a", "b"], "mode": "stream"})
    assert config.speed == 2.0
    assert config.joints == ("a", "b")
    with pytest.raises(ValueError, match="rate must be a float, got 'fast'"):
        make_config(PlayerConfig, {"rate": "fast"})
    with pytest.raises(ValueError, match="rate must be greater than 0"):
        make_config(PlayerConfig, {"rate": 0.0})
    with pytest.raises(ValueError, match=r"unknown setting\(s\) urdf; valid: file, .*urdf_file"):
        make_config(PlayerConfig, {"urdf": "x.urdf"})
    with pytest.raises(ValueError, match="mode must be one of both, stream, trajectory"):
        make_config(PlayerConfig, {"mode": "all"})
    with pytest.raises(AttributeError):
        config.speed = 3.0  # type: ignore[misc]


def _walk(tmp_path: Path) -> Path:
    path = tmp_path / "walk.msgpack"
    write(biped_walk(rate=50.0, cycles=1, period=1.0), path)
    return path


def test_limits_are_counted_and_a_model_of_another_robot_is_refused(tmp_path: Path) -> None:
    path = _walk(tmp_path)
    notes: list[tuple[str, str]] = []
    model = _without_collisions(biped_urdf())
    session = open_session(PlayerConfig(file=str(path), robot_description=model), lambda *n: notes.append(n))
    assert (
        "info",
        "motion within the limits: 12 of the motion's 12 joints checked against the limits from robot_description",
    ) in notes
    assert len(session.limits) == 12
    other = _without_collisions(biped_urdf()).replace('joint name="', 'joint name="x_')
    with pytest.raises(PlayerError, match=r"none of its limited joints .*x_left_knee.* is a joint of the motion"):
        open_session(PlayerConfig(file=str(path), robot_description=other))
    (tmp_path / "empty.urdf").write_text("")
    with pytest.raises(PlayerError, match="empty robot description"):
        open_session(PlayerConfig(file=str(path), urdf_file=str(tmp_path / "empty.urdf")))
    notes.clear()
    open_session(PlayerConfig(file=str(path)), lambda *n: notes.append(n))
    assert any("nothing checked" in text for _, text in notes)


def test_a_faster_speed_is_judged_without_changing_anything(tmp_path: Path) -> None:
    path = _walk(tmp_path)
    slow = _without_collisions(biped_urdf())
    config = PlayerConfig(file=str(path), robot_description=slow)
    session = PlaybackSession(load(config), config)
    before = (session.clock.speed, session.config)
    problem = session.speed_problem(20.0)
    assert problem is not None and problem.startswith("refused: ") and "velocity" in problem
    assert (session.clock.speed, session.config) == before
    assert session.speed_problem(1.0) is None
    session.set_speed(0.5, 0.0)
    assert session.speed == session.clock.speed == 0.5


def test_the_speed_playing_is_kept_in_the_clock_alone(tmp_path: Path) -> None:
    """The configuration says where the speed starts; the clock holds the speed playing now, and
    nothing else keeps a copy that could disagree with it."""
    config = PlayerConfig(file=str(_walk(tmp_path)), speed=1.5)
    session = PlaybackSession(load(config), config)
    assert session.speed == 1.5
    session.set_speed(0.5, 0.0)
    assert session.speed == session.clock.speed == 0.5
    assert session.config is config and session.config.speed == 1.5
    copies = [v for v in vars(session).values() if isinstance(v, float) and v == 0.5]
    assert copies == [], copies


def test_pause_before_the_start_starts_paused_and_seek_moves_the_clock(tmp_path: Path) -> None:
    session = open_session(PlayerConfig(file=str(_walk(tmp_path)), mode="stream"))
    assert session.pause(0.0) == 0.0 and session.start_paused
    session.resume(0.0)
    session.begin()
    assert session.clock.motion_time(0.5) == pytest.approx(0.5)
    session.seek(0.2, 0.5)
    assert session.clock.motion_time(0.6) == pytest.approx(0.3)
    plan = session.plan({})
    assert plan.joint_names == session.motion.joint_names


def test_an_end_time_before_the_start_time_is_refused_as_such(tmp_path: Path) -> None:
    path = str(_walk(tmp_path))  # a motion of 1 s
    with pytest.raises(PlayerError, match=r"^end_time 0.1 is before start_time 0.2$"):
        open_session(PlayerConfig(file=path, start_time=0.2, end_time=0.1))
    with pytest.raises(PlayerError, match=r"^start_time 5 is after the end of the motion \(1 s\)$"):
        open_session(PlayerConfig(file=path, start_time=5.0, end_time=6.0))
    clock = open_session(PlayerConfig(file=path, start_time=0.2, end_time=0.5)).clock
    assert (clock.start, clock.end) == pytest.approx((0.2, 0.5))


def test_link_frames_are_robot_state_publishers_at_and_between_frames(tmp_path: Path) -> None:
    from motion_formats_ros.core.kinematics import RobotModel

    text = _without_collisions(biped_urdf()).replace(
        "</robot>",
        '<joint name="cam" type="fixed"><parent link="base_link"/><child link="cam_link"/>'
        '<origin xyz="0 0 0.1"/></joint><link name="cam_link"/></robot>',
    )
    notes: list[tuple[str, str]] = []
    config = PlayerConfig(file=str(_walk(tmp_path)), robot_description=text, frame_prefix="r/")
    session = open_session(config, lambda *n: notes.append(n))
    frames = session.link_frames()
    assert [(t.parent, t.child) for t in frames.static] == [("r/base_link", "r/cam_link")]
    model = RobotModel.from_urdf(text)
    m = session.motion
    assert m.position is not None
    for k in (0, 7, m.num_frames - 1):  # on a frame: the table computed ahead
        _, expected = model.joint_transforms(m.joint_names, m.position[k : k + 1], "r/")
        got = frames.at(float(m.times[k]), m.position[k])
        assert [(p, c) for p, c, _, _ in got] == [(e.parent, e.child) for e in expected]
        for (_, _, xyz, q), e in zip(got, expected, strict=True):
            assert np.array_equal(xyz, e.translation[0]) and np.array_equal(q, e.rotation[0])
    between = 0.5 * (m.position[3] + m.position[4])
    _, expected = model.joint_transforms(m.joint_names, between[None, :], "r/")
    got = frames.at(float(m.times[3] + m.times[4]) / 2, between)
    for (_, _, xyz, q), e in zip(got, expected, strict=True):
        np.testing.assert_allclose(xyz, e.translation[0], atol=1e-15)
        np.testing.assert_allclose(q, e.rotation[0], atol=1e-15)
    # A model joint the motion lacks is held at 0, and said once (the straight leg reaches into the floor).
    notes.clear()
    extra = text.replace('joint name="left_knee"', 'joint name="left_knee_x"')
    open_session(
        PlayerConfig(file=config.file, robot_description=extra, ignore_limits=True, ignore_collisions=True),
        lambda *n: notes.append(n),
    ).link_frames()
    assert sum("left_knee_x" in t for level, t in notes if level == "warning") == 1


def test_a_file_of_times_or_values_near_the_float_range_is_refused_in_one_line(tmp_path: Path) -> None:
    endless = tmp_path / "endless.csv"
    still = Motion(times=np.array([0.0, 1e308]), joint_names=("a",), position=np.zeros((2, 1)))
    write(MotionFile(groups={"g": still}), endless)
    wide = tmp_path / "wide.csv"
    swing = Motion(times=np.array([0.0, 1.0, 2.0]), joint_names=("a",), position=np.array([[1e308], [-1e308], [0.0]]))
    write(MotionFile(groups={"g": swing}), wide)
    said: list[str] = []
    refusals = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for path in (endless, wide):
            session = open_session(PlayerConfig(file=str(path)), lambda level, text: said.append(text))
            session.begin()
            try:
                session.plan({})
            except PlayerError as exc:
                refusals.append(str(exc))
    assert [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)] == []
    assert refusals == [
        "cannot send the trajectory: the motion's last frame comes 1e+308 s from the start at speed 1: a trajectory "
        "point comes at most 2,147,483,647 s from it (a ROS Duration's int32 seconds)",
        "cannot send the trajectory: velocities derived from the positions go beyond the float range "
        "(values near ±1e308)",
    ]
    assert f"loaded {endless} (csv): 2 frames, 1e+308 s, 1 joints" in said, said
