"""Start-up of the command line: import time of the CLI and a whole `motion-formats info`.

Goals (issue 12): ``python -X importtime -c "import motion_formats_ros.cli.main"`` at most
150 ms cumulative; ``motion-formats info walk.seq`` at most 300 ms for the whole process.
Peers measured in the same run: a bare interpreter, and one that imports numpy (which
every command needs), so the ratios show what the package itself adds.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
BIN = Path(sys.executable).parent
RUNS = 7


def importtime_ms(module: str) -> float:
    """Cumulative import time (ms) of ``module`` as ``-X importtime`` reports it, best of RUNS."""
    best = float("inf")
    for _ in range(RUNS):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True, check=True
        ).stderr
        last = [line for line in out.splitlines() if re.search(rf"\|\s*{re.escape(module)}$", line)][-1]
        best = min(best, int(last.split("|")[1]) / 1000.0)
    return best


def process_ms(args: list[str]) -> float:
    """Wall time (ms) of a whole process, best of RUNS."""
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True, cwd=EXAMPLES)
        best = min(best, (time.perf_counter() - t0) * 1000.0)
    return best


def main() -> None:
    cli_import = importtime_ms("motion_formats_ros.cli.main")
    numpy_import = importtime_ms("numpy")
    info = process_ms([str(BIN / "motion-formats"), "info", "walk.seq", "--body", "biped.body"])
    bare = process_ms([sys.executable, "-c", "pass"])
    with_numpy = process_ms([sys.executable, "-c", "import numpy"])
    print(f"import motion_formats_ros.cli.main: {cli_import:.0f} ms cumulative (goal <= 150 ms)")
    print(f"  numpy alone {numpy_import:.0f} ms")
    print(f"  ratio to importing numpy: {cli_import / numpy_import:.2f}x")
    print(f"motion-formats info walk.seq: {info:.0f} ms whole process (goal <= 300 ms)")
    print(f"  peers: bare interpreter {bare:.0f} ms, interpreter + numpy {with_numpy:.0f} ms")
    print(f"  ratio to interpreter + numpy: {info / with_numpy:.2f}x")


if __name__ == "__main__":
    main()
