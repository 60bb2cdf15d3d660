"""A bag is written only with topic names ROS accepts: a bad option or a name from the motion is one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import write
from motion_formats_ros.core.errors import OutOfRangeError, WriteError
from motion_formats_ros.core.model import Motion, MotionFile, Series

pytest.importorskip("rosbags")


def _motion(imu: str = "torso_imu", series: str = "zmp") -> MotionFile:
    n = 5
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    return MotionFile.single(
        Motion(
            times=np.arange(n) / 10.0,
            joint_names=("hip",),
            position=np.zeros((n, 1)),
            imu_names=(imu,),
            imus={"orientation": quat[:, None]},
            series={series: Series(np.zeros((n, 2)), frame="world", components=("x", "y"))},
        )
    )


@pytest.mark.parametrize(
    ("flag", "name", "rule"),
    [
        ("--joint-topic", "/a b", "not ' '"),
        ("--joint-topic", "//x", "'//'"),
        ("--tf-topic", "1abc", "starts with '/'"),
        ("--zmp-topic", "~", "not '~'"),
        ("--trajectory-topic", "/arm/", "end with '/'"),
        ("--imu-topic", "/{0}", "not '{'"),
    ],
)
def test_an_invalid_topic_option_is_refused_naming_the_option_and_the_rule(
    tmp_path: Path, flag: str, name: str, rule: str
) -> None:
    source = tmp_path / "m.csv"
    write(_motion(), source)
    out = tmp_path / "out.mcap"
    status, _, err, _ = cli("motion2bag", source, out, flag, name, blocked=())
    last = err.strip().splitlines()[-1]
    assert status == 2 and "Traceback" not in err, err
    assert f"{flag} {name!r} is not a ROS topic name" in last and rule in last, err
    assert not out.exists()


def test_convert_to_a_bag_checks_the_topic_options_too(tmp_path: Path) -> None:
    with pytest.raises(OutOfRangeError, match=r"joint_topic '/a b' is not a ROS topic name"):
        write(_motion(), tmp_path / "out.mcap", joint_topic="/a b")
    assert not (tmp_path / "out.mcap").exists()
    write(_motion(), tmp_path / "ok.mcap", joint_topic="/robot/joint_states", imu_topic="/imu/{name}")


@pytest.mark.parametrize(("imu", "series", "what"), [("a b", "zmp", "IMU 'a b'"), ("imu", "com 2", "series 'com 2'")])
def test_a_name_from_the_motion_that_makes_no_topic_is_one_error(
    tmp_path: Path, imu: str, series: str, what: str
) -> None:
    out = tmp_path / "out.mcap"
    with pytest.raises(WriteError, match=rf"{what} would be the topic .* which ROS refuses"):
        write(_motion(imu, series), out)
    assert not out.exists()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (["--joint-topic", "/tf"], "--joint-topic and --tf-topic both name the topic '/tf'"),
        (["--trajectory-topic", "/a", "--zmp-topic", "/a"], "--trajectory-topic and --zmp-topic both name the topic"),
    ],
)
def test_two_options_naming_one_topic_are_refused(tmp_path: Path, given: list[str], said: str) -> None:
    source = tmp_path / "m.csv"
    write(_motion(), source)
    out = tmp_path / "out.mcap"
    status, _, err, _ = cli("motion2bag", source, out, *given, blocked=())
    assert status == 2 and said in err.strip().splitlines()[-1], err
    assert not out.exists()


def test_a_name_from_the_motion_that_lands_on_another_types_topic_is_one_error(tmp_path: Path) -> None:
    out = tmp_path / "out.mcap"
    with pytest.raises(WriteError, match=r"the topic '/joint_states' would carry both"):
        write(_motion(imu="joint_states"), out, imu_topic="/{name}")
    assert not out.exists()
