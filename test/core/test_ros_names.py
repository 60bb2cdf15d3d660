"""ROS 2's topic name rules, checked without ROS: the same verdicts as rclpy's where it is installed."""

from __future__ import annotations

import pytest

from motion_formats_ros.core.options import make_config
from motion_formats_ros.core.ros_names import MAX_LENGTH, topic_problem
from motion_formats_ros.playback.config import PlayerConfig

VALID = ("/joint_states", "/a/b_c", "/_x", "/a__b", "/" + "a" * (MAX_LENGTH - 1))
#: Each invalid fully qualified name and a word of the rule it breaks.
INVALID = {
    "": "not empty",
    "/a b": "not ' '",
    "//x": "'//'",
    "/a//b": "'//'",
    "1abc": "starts with '/'",
    "joint_states": "starts with '/'",
    "~": "not '~'",
    "~/x": "not '~'",
    "/a/": "end with '/'",
    "/": "end with '/'",
    "/ok/1x": "'1x'",
    "/x{y}": "not '{'",
    "/a-b": "not '-'",
    "/é": "not 'é'",
    "/" + "a" * MAX_LENGTH: f"at most {MAX_LENGTH}",
}
#: Names a node resolves (relative): valid, and not.
RELATIVE_VALID = ("joint_states", "~", "~/state", "{node}/state", "a/b", "/abs")
RELATIVE_INVALID = ("1abc", "a b", "x/", "a//b", "~/1a", "{y}/x", "/a/")

SAMPLE = (*VALID, *INVALID, *RELATIVE_VALID, *RELATIVE_INVALID, "~x", "/~", "/a~b", "{ns}", "/" + "a" * 300)


def test_fully_qualified_names_as_a_bag_holds_them() -> None:
    for name in VALID:
        assert topic_problem(name) is None, name
    for name, rule in INVALID.items():
        problem = topic_problem(name)
        assert problem is not None and rule in problem, (name, problem)


def test_relative_names_are_judged_as_resolved() -> None:
    for name in RELATIVE_VALID:
        assert topic_problem(name, relative=True) is None, name
    for name in RELATIVE_INVALID:
        assert topic_problem(name, relative=True) is not None, name


def test_the_verdicts_are_rclpys() -> None:
    pytest.importorskip("rclpy")
    from rclpy.expand_topic_name import expand_topic_name
    from rclpy.validate_full_topic_name import validate_full_topic_name

    for name in SAMPLE:
        for relative in (False, True):
            try:
                validate_full_topic_name(expand_topic_name(name, "node", "/") if relative else name)
                ros_valid = True
            except Exception:  # rclpy raises its own exception or a ValueError
                ros_valid = False
            if relative and name in ("{ns}", "/" + "a" * 300):
                continue  # the namespace ('/' here) and its length decide: ROS judges them when the node starts
            assert (topic_problem(name, relative=relative) is None) == ros_valid, (name, relative)


def test_a_node_setting_naming_a_topic_is_checked() -> None:
    assert make_config(PlayerConfig, {"state_topic": "~/joint_states"}).state_topic == "~/joint_states"
    with pytest.raises(ValueError, match=r"state_topic '/a b' is not a ROS topic name: .*not ' '"):
        make_config(PlayerConfig, {"state_topic": "/a b"})
