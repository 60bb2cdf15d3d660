"""SIGINT and SIGTERM end both nodes cleanly, whatever they are doing.

Each node runs as its own process (as under ``ros2 launch``, which sends SIGINT on Ctrl-C
and SIGTERM after a timeout). The signal comes while the node waits for subscribers,
streams at 500 Hz, is paused, or while parameter changes arrive. Each must stop publishing
before ROS shuts down, exit with status 0 within 2 s and print no traceback, ``[ERROR]``,
``RCLError`` or ``Failed to publish``; the recorder still writes its file.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from support.rosutil import requires_ros, ros_session, start_node

from motion_formats_ros import MotionFile, read, write
from motion_formats_ros.core.examples import smooth_motion

pytestmark = [requires_ros, pytest.mark.ros]
SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]
BAD = ("Traceback", "[ERROR]", "RCLError", "Failed to publish", "error:")


def _motion(tmp_path: Path) -> Path:
    path = tmp_path / "smooth.msgpack"
    write(MotionFile.single(smooth_motion(duration=4.0, rate=500.0, joints=6).motion), path)
    return path


def _remap(name: str) -> tuple[str, ...]:
    return (f"__node:={name}", f"joint_states:=/{name}/joint_states", f"joint_trajectory:=/{name}/joint_trajectory")


def _hammer_parameters(ros, node: str, value_of, count: int = 200) -> None:  # type: ignore[no-untyped-def]
    """Send ``count`` parameter changes to ``node``; return once the first is answered.

    The rest are still arriving or being handled when the caller sends its signal.
    """
    from rcl_interfaces.srv import SetParameters

    client = ros.node.create_client(SetParameters, f"/{node}/set_parameters")
    assert client.wait_for_service(timeout_sec=10)
    pending = [client.call_async(SetParameters.Request(parameters=[value_of(k)])) for k in range(count)]
    assert ros.spin_until(lambda: any(f.done() for f in pending), 10)


def _stop_all(nodes: dict, sig: int) -> dict[str, float]:  # type: ignore[type-arg]
    """Signal every node at once; seconds each took to exit."""
    sent = time.monotonic()
    for node in nodes.values():
        node.proc.send_signal(sig)
    took = {}
    for name, node in nodes.items():
        node.wait(10)
        took[name] = time.monotonic() - sent
    return took


def _check(nodes: dict, took: dict[str, float]) -> None:  # type: ignore[type-arg]
    for name, node in nodes.items():
        out = node.output()
        assert node.proc.returncode == 0, f"{name}: exit {node.proc.returncode}\n{out}"
        assert took[name] < 2.0, f"{name}: {took[name]:.2f} s to exit\n{out}"
        for bad in BAD:
            assert bad not in out, f"{name}: {bad!r} in\n{out}"


@pytest.mark.parametrize("sig", SIGNALS)
def test_player_stops_cleanly_at_any_point(tmp_path: Path, sig: int) -> None:
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState

    path = _motion(tmp_path)
    common = (f"file:={path}", "mode:=stream", "loop:=true")
    with ros_session(tmp_path) as ros:
        seen = {name: ros.collect(JointState, f"/{name}/joint_states", 1000) for name in ("stream", "paused", "params")}
        nodes = {
            # Waits for five subscribers on a topic nobody reads.
            "waiting": ros.start_player(
                *common, "wait_for_subscribers:=30.0", "min_subscribers:=5", remap=_remap("waiting")
            ),
            "stream": ros.start_player(*common, remap=_remap("stream")),
            "paused": ros.start_player(*common, "start_paused:=true", remap=_remap("paused")),
            "params": ros.start_player(*common, remap=_remap("params")),
        }
        assert ros.spin_until(lambda: all(len(s) > 50 for s in seen.values()), 30), {
            n: p.output() for n, p in nodes.items()
        }
        assert "loaded" in nodes["waiting"].output()
        _hammer_parameters(
            ros, "params", lambda k: Parameter("rate" if k % 2 else "seek", value=0.5 + k % 3).to_parameter_msg()
        )
        took = _stop_all(nodes, sig)
    _check(nodes, took)


@pytest.mark.parametrize("sig", SIGNALS)
def test_recorder_stops_cleanly_and_writes_its_file(tmp_path: Path, sig: int) -> None:
    from rclpy.parameter import Parameter

    path = _motion(tmp_path)
    with ros_session(tmp_path) as ros:
        # The source streams once all three recorders have matched it.
        source = ros.start_player(
            f"file:={path}",
            "mode:=stream",
            "loop:=true",
            "min_subscribers:=3",
            "wait_for_subscribers:=30.0",
            remap=_remap("source"),
        )
        outputs = {name: tmp_path / f"{name}.msgpack" for name in ("waiting", "recording", "params")}
        topics = "topics:=[/source/joint_states]"
        nodes = {
            name: start_node(
                ros,
                "motion_recorder",
                f"output:={outputs[name]}",
                topics,
                "flush_interval:=0.1",
                *(["autostart:=false"] if name == "waiting" else []),
                name=name,
                extra=["-r", f"__node:={name}"],
            )
            for name in outputs
        }
        recording = ("recording", "params")
        assert ros.spin_until(lambda: all("recording to" in nodes[n].output() for n in recording), 20)
        journals = {n: Path(str(outputs[n]) + ".journal") for n in recording}
        empty = {n: journals[n].stat().st_size for n in recording}
        # Samples have reached both journals (discovery can take a while on a busy machine).
        assert ros.spin_until(lambda: all(journals[n].stat().st_size > empty[n] for n in recording), 30), {
            n: nodes[n].output() for n in recording
        }
        ros.spin_for(0.5)
        _hammer_parameters(ros, "params", lambda k: Parameter("rate", value=float(k)).to_parameter_msg())
        took = _stop_all(nodes, sig)
        source.proc.send_signal(signal.SIGINT)
        assert source.wait(10) == 0
    _check(nodes, took)
    assert not outputs["waiting"].exists()  # nothing was recorded
    for name in ("recording", "params"):
        motion = read(outputs[name]).group("actual")
        assert motion.num_frames > 50, name  # what arrived before the signal, written on the way out
        assert not Path(str(outputs[name]) + ".journal").exists()


@pytest.mark.parametrize("code", [0, 1])
def test_a_hanging_middleware_teardown_still_ends_the_process(tmp_path: Path, code: int) -> None:
    """Once the node's work is done, a teardown that hangs does not keep the process alive."""
    import subprocess
    import sys

    script = (
        "import time\n"
        "from motion_formats_ros.ros.scaffold import _teardown_watchdog\n"
        "with _teardown_watchdog('probe', 0, 0.1):\n"
        "    time.sleep(0.01)\n"  # a teardown that finishes: the watchdog stays quiet
        f"with _teardown_watchdog('probe', {code}, 0.3):\n"
        "    time.sleep(30)\n"  # one that hangs
        "print('not reached')\n"
    )
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=20)
    assert done.returncode == code, done.stderr
    assert time.monotonic() - began < 10
    assert done.stderr.count("teardown took over 0.3 s") == 1, done.stderr
    assert "not reached" not in done.stdout
