"""The interface packages built into the venv (tools/ros/) have upstream's type hashes.

A controller only talks to a client whose types hash the same (RIHS01, REP 2011). The
definitions in tools/ros/control_msgs carry the field lists of control_msgs 6.x, the
version ROS 2 Kilted ships (released from upstream's master branch). Checked against
hashes that upstream's own rosidl build generated and that are public:

- ``control_msgs/msg/JointComponentTolerance``: RIHS01_739ea756…ffa4, as in upstream's
  generated ``joint_component_tolerance__description.c``.
- ``control_msgs/msg/JointTrajectoryControllerState`` before its ``speed_scaling_factor``
  field was added: RIHS01_6cb9ac08…8335, as in upstream's generated
  ``joint_trajectory_controller_state__description.c``. Hashing the description our build
  generates, minus that last field, with rosidl's own function gives exactly that value: every
  other field and every referenced type (Header, JointTrajectoryPoint, MultiDOF…) agrees.

The Kilted hashes of the full types are pinned too, so that a changed definition fails here.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.rosutil import requires_ros

pytestmark = [requires_ros, pytest.mark.ros]

VENV = Path(sys.executable).parent.parent
ROOT = Path(__file__).resolve().parents[2]

#: Published by upstream's generated code (see the module docstring).
UPSTREAM_COMPONENT_TOLERANCE = "RIHS01_739ea7566931944d33830fa10f1bf5e7a7fbdc3172bce7a7eaac642bd6e3ffa4"
UPSTREAM_STATE_WITHOUT_SPEED_SCALING = "RIHS01_6cb9ac0858fc11b54bd6c0a46f032ea243c16856182276d8eb0875f6ce6a8335"
#: What this repository builds for ROS 2 Kilted (the manual's "Sending to a controller").
KILTED = {
    "control_msgs/action/FollowJointTrajectory": (
        "RIHS01_ff29901b2693f5deb847e96084a1c2cdb26e70b7c847be21859b70a55fb29cf0"
    ),
    "control_msgs/msg/JointTrajectoryControllerState": (
        "RIHS01_51d8dd89cc624cbe9daaeeb4d80d6de9b86168ffdc3be41fefc0953e3c26e480"
    ),
    "control_msgs/msg/JointComponentTolerance": UPSTREAM_COMPONENT_TOLERANCE,
    "tf2_msgs/msg/TFMessage": "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
}


def _description(package: str, kind: str, name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((VENV / "share" / package / kind / f"{name}.json").read_text())  # type: ignore[no-any-return]


def _hash(package: str, kind: str, name: str) -> str:
    data = _description(package, kind, name)
    top = f"{package}/{kind}/{name}"
    return next(h["hash_string"] for h in data["type_hashes"] if h["type_name"] == top)


def test_built_hashes_are_the_pinned_kilted_ones() -> None:
    for type_name, expected in KILTED.items():
        package, kind, name = type_name.split("/")
        assert _hash(package, kind, name) == expected, type_name


def test_component_tolerance_hash_equals_upstreams() -> None:
    assert _hash("control_msgs", "msg", "JointComponentTolerance") == UPSTREAM_COMPONENT_TOLERANCE


def test_controller_state_hashes_like_upstreams_build() -> None:
    from rosidl_generator_type_description import calculate_type_hash

    description = _description("control_msgs", "msg", "JointTrajectoryControllerState")["type_description_msg"]
    assert calculate_type_hash(description) == KILTED["control_msgs/msg/JointTrajectoryControllerState"]
    before = copy.deepcopy(description)
    fields = before["type_description"]["fields"]
    assert fields[-1]["name"] == "speed_scaling_factor"
    before["type_description"]["fields"] = fields[:-1]
    assert calculate_type_hash(before) == UPSTREAM_STATE_WITHOUT_SPEED_SCALING


def test_rclpy_action_and_the_messages_work() -> None:
    probe = (
        "import rclpy.action\n"
        "from control_msgs.action import FollowJointTrajectory as F\n"
        "from control_msgs.msg import JointTrajectoryControllerState as S\n"
        "assert F.Result.GOAL_TOLERANCE_VIOLATED == -5 and F.Feedback().index == 0\n"
        "assert S().speed_scaling_factor == 0.0\n"
        "print(rclpy.action.ActionClient.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ActionClient"


def test_every_interface_package_is_stamped_and_up_to_date() -> None:
    """`make` rebuilds a package only when its definitions change: the stamps say so."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "ros" / "build_interfaces.py"), str(VENV)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["tf2_msgs: up to date in the venv", "control_msgs: up to date in the venv"]


def test_a_changed_definition_makes_its_package_out_of_date(tmp_path: Path) -> None:
    import importlib.util
    import shutil

    spec = importlib.util.spec_from_file_location("build_interfaces", ROOT / "tools" / "ros" / "build_interfaces.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    python = VENV / "bin" / "python"
    copy_ = tmp_path / "control_msgs"
    shutil.copytree(ROOT / "tools" / "ros" / "control_msgs", copy_)
    assert build.up_to_date(VENV, python, copy_)  # same definitions: nothing to rebuild
    state = copy_ / "msg" / "JointTrajectoryControllerState.msg"
    state.write_text(state.read_text().replace("float64 speed_scaling_factor\n", ""))
    assert not build.up_to_date(VENV, python, copy_)  # a field less: rebuild
    assert [p.name for p in build.packages()] == ["tf2_msgs", "control_msgs"]
