"""What a short command pays for: only the modules its work needs, and an exit that still does its duties.

``motion-formats`` runs through :func:`motion_formats_ros.cli.main.entry`, here in a fresh
interpreter exactly as the console script runs it. An ``atexit`` handler registered before
the command prints the modules loaded: it also proves that the handlers still run after
the command froze its objects for a quick exit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros import read
from motion_formats_ros.cli.main import _subcommands, build_parser

_ENTRY = """
import atexit, sys
atexit.register(lambda: print("MODULES " + " ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["motion-formats", *sys.argv[1:]]
from motion_formats_ros.cli.main import entry
entry()
"""

#: Loaded only where they are used: temporaries, JSON, several-file merges, tracebacks,
#: YAML, rosbags, and the other subcommands' modules.
NOT_FOR_BAG2MOTION = (
    "tempfile",
    "json",
    "heapq",
    "traceback",
    "yaml",
    "rosbags",
    "motion_formats_ros.pipeline",
    "motion_formats_ros.cli.batch_command",
    "motion_formats_ros.cli.view_command",
    "motion_formats_ros.cli.check_command",
    "motion_formats_ros.cli.example",
    "motion_formats_ros.cli.validate",
    "motion_formats_ros.cli.commands",
)


def _entry(*args: str | Path) -> tuple[int, str, str, set[str]]:
    proc = subprocess.run([sys.executable, "-c", _ENTRY, *map(str, args)], capture_output=True, text=True, timeout=120)
    lines = proc.stderr.splitlines()
    modules = [line for line in lines if line.startswith("MODULES ")]
    assert len(modules) == 1, f"the atexit handler did not run once: {proc.stderr}"
    stderr = "\n".join(line for line in lines if not line.startswith("MODULES "))
    return proc.returncode, proc.stdout, stderr, set(modules[0].split()[1:])


def _numpy_loads() -> set[str]:
    """What importing numpy loads by itself (some versions load json, for one)."""
    code = "import sys, numpy; print(' '.join(sys.modules))"
    return set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())


def _joint_bag(tmp_path: Path) -> Path:
    pytest.importorskip("rosbags")
    from support.bags import JS, joint_state, write_bag

    messages = []
    for i in range(50):
        ns = 1_000_000_000 + i * 10_000_000
        messages.append(("/joint_states", JS, ns, joint_state(ns, ["j0", "j1", "j2"], [0.01 * i, 0.0, -0.01 * i])))
    return write_bag(tmp_path / "rec", messages)


def test_bag2motion_loads_only_what_it_uses(tmp_path: Path) -> None:
    bag = _joint_bag(tmp_path)
    out = tmp_path / "out.msgpack"
    status, _, err, modules = _entry("bag2motion", bag, out)
    assert status == 0, err
    assert read(out).motion.num_frames == 50
    ours = modules - _numpy_loads()
    loaded = sorted(m for m in ours if any(m == n or m.startswith(n + ".") for n in NOT_FOR_BAG2MOTION))
    assert not loaded
    assert "motion_formats_ros.cli.bag" in modules  # the probe sees what the command loaded


def test_the_quick_exit_still_flushes_stdout(tmp_path: Path) -> None:
    status, out, err, _ = _entry("formats", "--json", "--options")
    assert status == 0, err
    listed = json.loads(out)  # all of it: a lost buffer would cut the document
    assert len(listed) > 5


def test_a_failing_command_keeps_its_status_and_message(tmp_path: Path) -> None:
    status, _, err, _ = _entry("info", tmp_path / "missing.seq")
    assert status == 1
    assert "missing.seq" in err


def test_the_help_is_what_argparse_lays_out_at_that_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's help at COLUMNS=60 equals argparse's stock formatter's (which asks shutil)."""
    env = {**os.environ, "COLUMNS": "60"}
    proc = subprocess.run(
        [sys.executable, "-c", _ENTRY, "bag2motion", "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    monkeypatch.setenv("COLUMNS", "60")
    command = _subcommands(build_parser(only="bag2motion"))["bag2motion"]
    command.formatter_class = argparse.HelpFormatter
    assert proc.stdout == command.format_help()
    monkeypatch.setenv("COLUMNS", "200")
    assert proc.stdout != command.format_help()  # the width mattered
