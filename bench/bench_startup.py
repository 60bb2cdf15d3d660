"""Start-up of the command line: import time of the CLI and a whole `motion-formats info`.

Goals: ``python -X importtime -c "import motion_formats_ros.cli.main"`` at most 150 ms
cumulative, and the CLI's own cost beyond numpy at most 30 ms (what importing the CLI
costs in an interpreter that has numpy loaded already: numpy is not the CLI's to
save); ``motion-formats --help`` / ``--version`` load no numpy at all;
``motion-formats info walk.seq`` at most 300 ms for the whole process. Peers measured in
the same run: a bare interpreter, and one that imports numpy (which every command that
reads a motion needs), so the ratios show what the package itself adds.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
BIN = Path(sys.executable).parent
RUNS = 7
#: As installed (pip / colcon compile the bytecode): children use cached bytecode, whatever
#: PYTHONDONTWRITEBYTECODE this shell has (the first run writes it).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def importtime_ms(module: str, before: str = "") -> float:
    """Cumulative import time (ms) of ``module`` as ``-X importtime`` reports it, best of RUNS.

    ``before`` is imported first, in the same interpreter (its cost is not counted).
    """
    best = float("inf")
    code = f"import {before}; import {module}" if before else f"import {module}"
    for _ in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, check=True, env=ENV
        ).stderr
        last = [line for line in out.splitlines() if re.search(rf"\|\s*{re.escape(module)}$", line)][-1]
        best = min(best, int(last.split("|")[1]) / 1000.0)
    return best


def process_ms(args: list[str]) -> float:
    """Wall time (ms) of a whole process, best of RUNS."""
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True, cwd=EXAMPLES, env=ENV)
        best = min(best, (time.perf_counter() - t0) * 1000.0)
    return best


def loads_numpy(args: list[str]) -> bool:
    """Whether the CLI run with ``args`` imports numpy."""
    code = (
        "import sys\nfrom motion_formats_ros.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\nprint('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV).stdout
    return out.strip().splitlines()[-1] == "True"


def main() -> None:
    cli_import = importtime_ms("motion_formats_ros.cli.main")
    numpy_import = importtime_ms("numpy")
    cli_after_numpy = importtime_ms("motion_formats_ros.cli.main", before="numpy")
    info = process_ms([str(BIN / "motion-formats"), "info", "walk.seq", "--body", "biped.body"])
    bare = process_ms([sys.executable, "-c", "pass"])
    with_numpy = process_ms([sys.executable, "-c", "import numpy"])
    helped = process_ms([str(BIN / "motion-formats"), "--help"])
    version = process_ms([str(BIN / "motion-formats"), "--version"])
    print(f"import motion_formats_ros.cli.main: {cli_import:.0f} ms cumulative (goal <= 150 ms)")
    print(f"  numpy alone {numpy_import:.0f} ms")
    print(f"  ratio to importing numpy: {cli_import / numpy_import:.2f}x")
    verdict = "met" if cli_after_numpy <= 30 else "MISSED"
    print(
        f"  the CLI's own cost beyond numpy (numpy loaded first): {cli_after_numpy:.0f} ms (goal <= 30 ms): {verdict}"
    )
    for flag, ms in (("--help", helped), ("--version", version)):
        numpy_loaded = loads_numpy([flag])
        print(
            f"motion-formats {flag}: {ms:.0f} ms whole process (bare interpreter {bare:.0f} ms), "
            f"numpy {'LOADED' if numpy_loaded else 'not loaded'} (goal: not loaded)"
        )
    print(f"motion-formats info walk.seq: {info:.0f} ms whole process (goal <= 300 ms)")
    print(f"  peers: bare interpreter {bare:.0f} ms, interpreter + numpy {with_numpy:.0f} ms")
    print(f"  ratio to interpreter + numpy: {info / with_numpy:.2f}x")


if __name__ == "__main__":
    main()
