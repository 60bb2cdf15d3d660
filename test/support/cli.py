"""Runs the command line in a fresh interpreter where optional packages can be made absent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

OPTIONAL = ("pyjson5", "matplotlib", "tqdm", "mcap", "rclpy")

_RUN = """
import importlib.abc, json, sys
blocked = set(json.loads(sys.argv[1]))

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Absent())
from motion_formats_ros.cli.main import main
try:
    status = main(json.loads(sys.argv[2]))
except SystemExit as exc:  # --help, --version
    status = exc.code
print("MODULES", json.dumps(sorted(sys.modules)), file=sys.stderr)
sys.exit(status)
"""


def cli(*args: str | Path, blocked: tuple[str, ...] = OPTIONAL) -> tuple[int, str, str, set[str]]:
    """(exit status, stdout, stderr without the module list, modules loaded) of one CLI run."""
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, json.dumps(list(blocked)), json.dumps([str(a) for a in args])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = proc.stderr.splitlines()
    modules = {line for line in lines if line.startswith("MODULES ")}
    loaded = set(json.loads(modules.pop()[len("MODULES ") :])) if modules else set()
    stderr = "\n".join(line for line in lines if not line.startswith("MODULES "))
    return proc.returncode, proc.stdout, stderr, loaded


#: The installed console script, as a user runs it.
EXE = Path(sys.executable).parent / "motion-formats"


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """One run of the installed ``motion-formats`` (exit status, stdout, stderr as text)."""
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=180, cwd=cwd)
