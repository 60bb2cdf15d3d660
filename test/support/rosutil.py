"""Helpers for tests on a real ROS 2 middleware: confined environments, player processes, probes.

Every DDS participant a test starts (in this process or a child) is confined to the
loopback interface and gets its own domain id, so tests neither leak discovery traffic
out of the machine nor hear each other.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CONFINED = {"ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
#: Domains this test process may use: under pytest-xdist each worker (gw0, gw1, …) has a band
#: of its own, so two workers' nodes never meet; within a band they are reused in turn (a
#: session's nodes have ended before its domain comes round again). ROS 2 takes 0–232.
_BAND = 60
_worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
_base = int(os.environ.get("MFR_TEST_DOMAIN_BASE", "40")) + _BAND * _worker
#: The environment's own domain (the Makefile's) is left to what runs outside the tests.
_domains = (d for n in itertools.count() if (d := _base + n % _BAND) != int(os.environ.get("ROS_DOMAIN_ID", "-1")))
BIN = Path(sys.executable).parent
#: The module of each node's console script.
MODULES = {
    "motion_player": "motion_formats_ros.ros.player",
    "motion_recorder": "motion_formats_ros.ros.recorder",
    "motion_sim": "motion_formats_ros.ros.sim",
}


def have_ros() -> bool:
    try:
        import rclpy  # noqa: F401
        from tf2_msgs.msg import TFMessage  # noqa: F401
    except ImportError:
        return False
    return True


requires_ros = pytest.mark.skipif(not have_ros(), reason="ROS 2 runtime not in the venv (make ros)")


def ros_env(log_dir: Path, domain: int) -> dict[str, str]:
    """Environment for a child process that may start DDS."""
    return {
        **os.environ,
        **CONFINED,
        "ROS_DOMAIN_ID": str(domain),
        "ROS_LOG_DIR": str(log_dir),
        "RCUTILS_COLORIZED_OUTPUT": "0",
        "PYTHONUNBUFFERED": "1",
        # A child that hangs is ended with SIGABRT by Player.wait: this makes it print where it hung.
        "PYTHONFAULTHANDLER": "1",
    }


def assert_confined(env: dict[str, str] | os._Environ[str]) -> None:
    """Fail unless ``env`` confines DDS discovery to this machine and names a domain."""
    if env.get("ROS_AUTOMATIC_DISCOVERY_RANGE") != "LOCALHOST":
        raise AssertionError("DDS would discover beyond this machine: ROS_AUTOMATIC_DISCOVERY_RANGE != LOCALHOST")
    if not env.get("ROS_DOMAIN_ID"):
        raise AssertionError("no ROS_DOMAIN_ID: the test would share the default domain")


def init_confined_child() -> None:
    """rclpy.init in a helper process a test started with :func:`ros_env`; refuses an unconfined env."""
    import rclpy

    assert_confined(os.environ)
    rclpy.init(domain_id=int(os.environ["ROS_DOMAIN_ID"]))


def clean_shm() -> None:
    """Remove Fast DDS shared-memory segments that killed processes left behind."""
    fastdds = shutil.which("fastdds", path=str(BIN))
    if fastdds:
        subprocess.run([fastdds, "shm", "clean"], capture_output=True, timeout=30, check=False)


class Player:
    """A motion_player child process."""

    def __init__(self, proc: subprocess.Popen[str], log: Path) -> None:
        self.proc = proc
        self.log = log

    def output(self) -> str:
        return self.log.read_text() if self.log.exists() else ""

    def wait(self, timeout: float = 30.0) -> int:
        """The exit status; a child still running after ``timeout`` fails the test with its stacks."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)  # the faulthandler prints every thread's stack
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            raise AssertionError(f"{self.proc.args[0]} still running after {timeout} s:\n{self.output()}") from None


class RosSession:
    """A probe node in its own context and domain, and the players it talks to."""

    def __init__(self, tmp: Path) -> None:
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor

        self.domain = next(_domains)
        self.tmp = tmp
        self.env = ros_env(tmp / "ros_log", self.domain)
        assert_confined(self.env)
        os.environ.update(CONFINED)
        os.environ["ROS_LOG_DIR"] = str(tmp / "ros_log")
        self.context = Context()
        rclpy.init(context=self.context, domain_id=self.domain)
        self.node = rclpy.create_node("probe", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self.players: list[Player] = []

    def start_player(self, *params: str, remap: tuple[str, ...] = ()) -> Player:
        extra = [arg for r in remap for arg in ("-r", r)]
        return start_node(self, "motion_player", *params, name="player", extra=extra)

    def spin_until(self, condition: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return True
            self.executor.spin_once(timeout_sec=0.01)
        return condition()

    def spin_for(self, seconds: float) -> None:
        self.spin_until(lambda: False, seconds)

    def collect(self, msg_type: Any, topic: str, qos: Any = 100) -> list[Any]:
        received: list[Any] = []
        self.node.create_subscription(msg_type, topic, received.append, qos)
        return received

    def close(self) -> None:
        for p in self.players:
            if p.proc.poll() is None:
                p.proc.terminate()
                try:
                    p.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.proc.kill()
                    p.proc.wait()
        self.executor.shutdown()
        self.node.destroy_node()
        self.context.try_shutdown()
        clean_shm()


@contextmanager
def ros_session(tmp: Path) -> Iterator[RosSession]:
    session = RosSession(tmp)
    try:
        yield session
    finally:
        session.close()


def start_node(
    session: RosSession, executable: str, *params: str, name: str = "node", extra: list[str] | None = None
) -> Player:
    """One of the package's nodes as a child process, confined like every DDS process here.

    A console script the environment has not installed yet (a node newer than the
    installation) runs as its module.
    """
    script = BIN / executable
    command = [str(script)] if script.exists() else [sys.executable, "-m", MODULES[executable]]
    args = [*command, "--ros-args", *(extra or [])]
    for p in params:
        args += ["-p", p]
    log = session.tmp / f"{name}{len(session.players)}.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(args, env=session.env, stdout=out, stderr=subprocess.STDOUT, text=True)
    node = Player(proc, log)
    session.players.append(node)
    return node
