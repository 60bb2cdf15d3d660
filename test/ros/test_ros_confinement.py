"""DDS discovery confinement: no test may start ROS 2 without LOCALHOST discovery and its own domain."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from support.rosutil import requires_ros, ros_session

from motion_formats_ros import write
from motion_formats_ros.core.examples import biped_walk

TEST_DIR = Path(__file__).resolve().parents[1]
ROOT = TEST_DIR.parent


@requires_ros
def test_rclpy_init_refuses_without_localhost_discovery(monkeypatch: pytest.MonkeyPatch) -> None:
    import rclpy
    from rclpy.context import Context

    monkeypatch.delenv("ROS_AUTOMATIC_DISCOVERY_RANGE")
    context = Context()
    with pytest.raises(AssertionError, match="beyond this machine"):
        rclpy.init(context=context, domain_id=99)
    assert not context.ok()


@requires_ros
def test_rclpy_init_refuses_without_own_domain() -> None:
    import rclpy
    from rclpy.context import Context

    context = Context()
    with pytest.raises(AssertionError, match="domain_id of their own"):
        rclpy.init(context=context)
    assert not context.ok()


def test_no_test_starts_ros_around_the_helpers() -> None:
    """rclpy.init and node processes only through rosutil, which confines them."""
    offenders = []
    for path in sorted(TEST_DIR.rglob("*.py")):
        if path.name in ("rosutil.py", "conftest.py", Path(__file__).name):
            continue
        text = path.read_text()
        # A helper process (test/fjtserver.py) may init rclpy after checking its own confinement.
        if re.search(r"\brclpy\.init\(", text) and "assert_confined(os.environ)" not in text:
            offenders.append(f"{path.name}: calls rclpy.init (use rosutil.ros_session)")
        for match in re.finditer(r"(Popen|subprocess\.run)\((?P<body>[^\n]*(\n[^\n]*){0,3})", text):
            body = match.group("body")
            if ("player" in body or "cmd" in body) and "env=" not in body:
                offenders.append(f"{path.name}: starts a process without a confined env: {body.strip()[:60]}")
    assert not offenders, "\n".join(offenders)


def test_makefile_confines_every_process() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST" in makefile
    assert re.search(r"export ROS_DOMAIN_ID \??= ?\d+", makefile)


@requires_ros
@pytest.mark.ros
def test_player_process_runs_confined(tmp_path: Path) -> None:
    walk = tmp_path / "w.msgpack"
    write(biped_walk(rate=20.0, cycles=1), walk)
    with ros_session(tmp_path) as ros:
        player = ros.start_player(f"file:={walk}", "start_paused:=true", "wait_for_subscribers:=0.0")
        assert ros.spin_until(lambda: "loaded" in player.output(), 30), player.output()  # exec'd and running
        environ = Path(f"/proc/{player.proc.pid}/environ").read_bytes().split(b"\0")
        env = dict(item.decode().split("=", 1) for item in environ if b"=" in item)
        assert env["ROS_AUTOMATIC_DISCOVERY_RANGE"] == "LOCALHOST"
        assert env["ROS_DOMAIN_ID"] == str(ros.domain) != os.environ.get("ROS_DOMAIN_ID")
