"""One error hierarchy: every exception class the package defines is a MotionFormatError.

Callers (the CLI, the nodes, users' scripts) catch ``MotionFormatError`` to tell "bad
input / bad setting" from a bug; a class outside it escapes that handler. The test
imports every module of the package (``ros/`` included: the venv has rclpy) and checks
each Exception subclass *defined* there. The checker is also run on a synthetic module
so that it is known to fail.
"""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest
from support.rosutil import have_ros

import motion_formats_ros
from motion_formats_ros.core.errors import FallbackSignal, MotionFormatError

#: ``ros/`` imports rclpy and the message packages: checked where ROS is installed
#: (make test); ``make test-min`` checks every other module.
ROS_PACKAGE = motion_formats_ros.__name__ + ".ros"


def all_modules() -> list[types.ModuleType]:
    """Every module of the package, imported (``ros/`` only where ROS is installed)."""
    modules = [motion_formats_ros]
    for info in pkgutil.walk_packages(motion_formats_ros.__path__, motion_formats_ros.__name__ + "."):
        if info.name.startswith(ROS_PACKAGE) and not have_ros():
            continue
        modules.append(importlib.import_module(info.name))
    return modules


def outside_hierarchy(module: types.ModuleType) -> list[str]:
    """``module.Class`` for each exception class defined in ``module`` outside the hierarchy."""
    found = []
    for name, value in vars(module).items():
        if (
            isinstance(value, type)
            and issubclass(value, BaseException)
            and value.__module__ == module.__name__
            and not issubclass(value, MotionFormatError)
            and not issubclass(value, FallbackSignal)  # a fast path's "not mine", always caught inside
            and not issubclass(value, Warning)  # warning categories (MotionFormatWarning) are not raised as errors
        ):
            found.append(f"{module.__name__}.{name}")
    return found


def test_checker_finds_a_class_outside_the_hierarchy() -> None:
    bad = types.ModuleType("synthetic")
    exec(
        "class GoodError(Base, ValueError): pass\nclass BadError(ValueError): pass\nimported = KeyError\n"
        "class SomeWarning(UserWarning): pass\n",
        {"Base": MotionFormatError, "__name__": "synthetic"},
        bad.__dict__,
    )
    assert outside_hierarchy(bad) == ["synthetic.BadError"]


def test_every_module_is_found() -> None:
    names = {m.__name__ for m in all_modules()}
    # One module from each layer, so that a broken walk cannot pass vacuously.
    for expected in (
        "motion_formats_ros.core.errors",
        "motion_formats_ros.core.joint_maps",
        "motion_formats_ros.codecs.scene.transforms",
        "motion_formats_ros.registry",
        "motion_formats_ros.cli.main",
    ):
        assert expected in names


@pytest.mark.skipif(not have_ros(), reason="ROS 2 runtime not in the venv (make ros)")
def test_the_nodes_modules_are_found_where_ros_is_installed() -> None:
    names = {m.__name__ for m in all_modules()}
    assert {f"{ROS_PACKAGE}.player", f"{ROS_PACKAGE}.recorder"} <= names


def test_every_exception_class_derives_from_motion_format_error() -> None:
    escapes = [name for module in all_modules() for name in outside_hierarchy(module)]
    assert escapes == []


def test_value_error_kept_where_callers_rely_on_it() -> None:
    from motion_formats_ros.codecs.scene.transforms import TransformError
    from motion_formats_ros.core.joint_maps import JointMapError
    from motion_formats_ros.core.serial.msgpack import MsgpackError
    from motion_formats_ros.core.serial.yaml import YamlError
    from motion_formats_ros.safety.limits import LimitViolationError

    for cls in (JointMapError, TransformError, LimitViolationError, MsgpackError, YamlError):
        assert issubclass(cls, MotionFormatError)
        assert issubclass(cls, ValueError)
