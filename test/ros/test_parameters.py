"""The nodes' parameters as their own processes: nothing misspelled, mistyped or empty is ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.rosutil import Player, requires_ros, ros_session, start_node

from motion_formats_ros import write
from motion_formats_ros.core.examples import biped_urdf, biped_walk

pytestmark = [requires_ros, pytest.mark.ros]

#: Seconds after which a node that has not exited counts as hung. Not a budget: every wait
#: below ends when its process exits, however long a loaded machine takes to get there.
HUNG = 300.0


def _refused(node: Player, *words: str) -> str:
    """The one error line of a node that must exit 1 before doing anything."""
    assert node.wait(HUNG) == 1, node.output()
    out = node.output()
    assert "Traceback" not in out, out
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, out
    for word in words:
        assert word in errors[0], out
    return errors[0]


@pytest.fixture
def walk(tmp_path: Path) -> Path:
    path = tmp_path / "walk.msgpack"
    write(biped_walk(rate=50.0, cycles=1, period=1.0), path)
    return path


def test_unknown_parameters_refuse_to_start_both_nodes(tmp_path: Path, walk: Path) -> None:
    urdf = tmp_path / "tight.urdf"
    urdf.write_text(biped_urdf())
    with ros_session(tmp_path) as ros:
        # The launch argument's name given to the node: a limit check that would be skipped.
        player = ros.start_player(f"file:={walk}", f"urdf:={urdf}", "bogus_param:=1", "mode:=stream")
        recorder = start_node(
            ros, "motion_recorder", f"output:={tmp_path / 'log.msgpack'}", "flush_intervall:=0.5", name="recorder"
        )
        line = _refused(player, "unknown parameters bogus_param, urdf", "valid:", "urdf_file", "ignore_limits")
        assert "loaded" not in player.output()  # refused before reading anything
        assert line.count("urdf_file") == 1
        _refused(recorder, "unknown parameter flush_intervall", "valid:", "flush_interval")
    assert not (tmp_path / "log.msgpack.journal").exists()


def test_mistyped_values_name_the_parameter_without_a_traceback(tmp_path: Path, walk: Path) -> None:
    out = tmp_path / "log.msgpack"
    with ros_session(tmp_path) as ros:
        nodes = {
            "rate": ros.start_player(f"file:={walk}", "rate:=fast"),
            "wait_for_subscribers": ros.start_player(f"file:={walk}", "wait_for_subscribers:=abc"),
            "flush_interval": start_node(ros, "motion_recorder", f"output:={out}", "flush_interval:=abc"),
            "topics": start_node(ros, "motion_recorder", f"output:={out}", "topics:=[]"),
        }
        for name, node in nodes.items():
            _refused(node, f"{name} ")
        # An integer where a float goes is taken as the number it is.
        ok = ros.start_player(f"file:={walk}", "rate:=2", "mode:=stream", "wait_for_subscribers:=0")
        assert ok.wait(HUNG) == 0, ok.output()


def test_robot_descriptions_that_check_nothing_are_errors(tmp_path: Path, walk: Path) -> None:
    empty = tmp_path / "empty.urdf"
    empty.write_text("\n")
    other = tmp_path / "other.urdf"
    other.write_text(biped_urdf().replace('joint name="', 'joint name="other_'))
    with ros_session(tmp_path) as ros:
        given_empty = ros.start_player(f"file:={walk}", 'urdf_file:=""')
        empty_file = ros.start_player(f"file:={walk}", f"urdf_file:={empty}")
        no_joint = ros.start_player(f"file:={walk}", f"urdf_file:={other}")
        no_model = ros.start_player(f"file:={walk}", "publish_link_tf:=true")
        _refused(given_empty, "urdf_file is empty")
        _refused(no_model, "publish_link_tf needs a robot model")
        _refused(empty_file, str(empty), "empty")
        _refused(no_joint, str(other), "none of its limited joints", "other_left_knee", "left_knee")


def test_the_log_says_how_many_of_the_motions_joints_were_checked(tmp_path: Path, walk: Path) -> None:
    # Limits for the left leg only: 6 of the walk's 12 joints can be checked.
    text = biped_urdf()
    for side in ("right_hip_yaw", "right_hip_roll", "right_hip_pitch", "right_knee", "right_ankle_pitch"):
        text = text.replace(f'joint name="{side}" type="revolute"', f'joint name="{side}" type="fixed"')
    text = text.replace('joint name="right_ankle_roll" type="revolute"', 'joint name="right_ankle_roll" type="fixed"')
    urdf = tmp_path / "left.urdf"
    urdf.write_text(text)
    with ros_session(tmp_path) as ros:
        # The right leg, fixed straight, reaches into the floor: played anyway, the limits are the point.
        player = ros.start_player(
            f"file:={walk}", f"urdf_file:={urdf}", "mode:=stream", "wait_for_subscribers:=0", "ignore_collisions:=true"
        )
        assert player.wait(HUNG) == 0, player.output()
    assert f"6 of the motion's 12 joints checked against the limits from {urdf}" in player.output()


#: Child: builds each node with a refused parameter, with the garbage collector off so that a
#: half-built node nobody destroyed would stay alive (and in the graph, and in the set of
#: nodes rclpy's shutdown destroys); prints the node names the graph still has.
_HALF_BUILT = """
import gc, json, sys, time
gc.disable()
import rclpy
from rclpy.parameter import Parameter
from support.rosutil import init_confined_child
from motion_formats_ros.ros.player import MotionPlayer
from motion_formats_ros.ros.recorder import MotionRecorder
init_confined_child()
refused = []
walk, urdf = sys.argv[1:]
tries = (
    (MotionPlayer, [Parameter("file", value=walk), Parameter("urdf_file", value=urdf)]),
    (MotionPlayer, [Parameter("file", value=walk), Parameter("publish_link_tf", value=True)]),
    (MotionRecorder, [Parameter("output", value=walk + ".xyz")]),
)
for make, bad in tries:
    try:
        make(parameter_overrides=bad)
    except Exception as exc:
        refused.append(type(exc).__name__)
probe = rclpy.create_node("probe")
time.sleep(0.5)
names = sorted(probe.get_node_names())
probe.destroy_node()
rclpy.try_shutdown()
print(json.dumps({"refused": refused, "names": names}))
"""


def test_a_node_refused_while_built_is_destroyed_at_once(tmp_path: Path, walk: Path) -> None:
    """A constructor that fails destroys its node then, not rclpy's shutdown later (it once
    crashed there, destroying a half-built node a garbage collection had partly freed)."""
    import json
    import subprocess
    import sys

    from support.rosutil import ros_env

    tests = Path(__file__).resolve().parents[1]  # where ``support`` is
    empty = tmp_path / "empty.urdf"
    empty.write_text("\n")
    with ros_session(tmp_path) as ros:
        env = {**ros_env(tmp_path / "ros_log", ros.domain), "PYTHONPATH": str(tests)}
        proc = subprocess.run(
            [sys.executable, "-c", _HALF_BUILT, str(walk), str(empty)],
            capture_output=True,
            text=True,
            env=env,
            timeout=HUNG,
        )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    assert len(seen["refused"]) == 3, seen
    assert "probe" in seen["names"]
    assert not {"motion_player", "motion_recorder"} & set(seen["names"]), seen


def test_a_chunk_duration_that_would_make_millions_of_messages_is_refused_at_start(tmp_path: Path, walk: Path) -> None:
    """chunk_duration:=1e-9 would cut a 1 s motion into a billion messages: refused before the file is read."""
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={walk}", "chunk_duration:=1e-9", "mode:=trajectory")
        line = _refused(player, "chunk_duration must be 0 (off) or at least 0.01, got 1e-09")
        assert "loaded" not in player.output() and "MemoryError" not in player.output(), line
        ok = ros.start_player(f"file:={walk}", "chunk_duration:=0.01", "mode:=trajectory", "wait_for_subscribers:=0")
        assert ok.wait(HUNG) == 0, ok.output()
