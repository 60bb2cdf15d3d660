"""Start-up of the command line: import time of the CLI, a whole `info`, and `bag2motion`'s import budget.

Goals: ``python -X importtime -c "import motion_formats_ros.cli.main"`` at most 150 ms
cumulative, and the CLI's own cost beyond numpy at most 30 ms (what importing the CLI
costs in an interpreter that has numpy loaded already: numpy is not the CLI's to
save); ``motion-formats --help`` / ``--version`` load no numpy at all;
``motion-formats info walk.seq`` at most 300 ms for the whole process. Peers measured in
the same run: a bare interpreter, and one that imports numpy (which every command that
reads a motion needs), so the ratios show what the package itself adds. Last, the import
budget of ``bag2motion`` of small bags of each kind (rosbag2 folders of MCAP and sqlite3
storage, a bare ``.mcap``): the self time of its imports summed per package (numpy, the
package, the standard library; rosbags and the YAML libraries should not be loaded for
standard messages) and its costliest imports.
Its peer: importing rosbags' readers and deserializer with PyYAML (what a bag read
imported before the package read rosbag2's usual layouts itself) against importing the
package's own readers and standard messages, both in an interpreter that has numpy loaded.
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


def import_ms(modules: str, before: str) -> float:
    """Wall time (ms) a fresh interpreter that has imported ``before`` takes to import ``modules``, best of RUNS."""
    code = f"import time, {before}; t = time.perf_counter(); import {modules}; print(time.perf_counter() - t)"
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=ENV)
        for _ in range(RUNS)
    ]
    return min(float(run.stdout) for run in runs) * 1000.0


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


def bag2motion_budget(tmp: Path, kind: str = "mcap") -> tuple[dict[str, float], list[tuple[float, str]], float]:
    """Import time of ``bag2motion`` of a small bag (JointState) of ``kind``, best of RUNS.

    ``kind``: ``mcap`` / ``sqlite3`` (a rosbag2 folder of that storage) or ``bare`` (a
    ``.mcap`` file). Returns the self time (ms) of every import summed by top-level package
    (``rosbags``, ``numpy``, ``motion_formats_ros``, the standard library …), the 12
    costliest modules (cumulative ms, name), and the whole process's wall time (ms).
    """
    import numpy as np

    from motion_formats_ros import Motion, MotionFile, write

    bag = tmp / f"small-{kind}" if kind != "bare" else tmp / "small.mcap"
    if not bag.exists():
        m = Motion(times=np.arange(10) / 100.0, joint_names=("a", "b"), position=np.zeros((10, 2)))
        storage = "sqlite3" if kind == "sqlite3" else "mcap"
        write(MotionFile.single(m, group="actual"), bag, format="rosbag", storage=storage)
    cmd = [str(BIN / "motion-formats"), "bag2motion", str(bag), str(tmp / "out.msgpack"), "--overwrite"]
    best: tuple[dict[str, float], list[tuple[float, str]], float] | None = None
    for _ in range(RUNS):
        t0 = time.perf_counter()
        err = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import sys; from motion_formats_ros.cli.main import main; "
             "sys.exit(main(sys.argv[1:]))", *cmd[1:]],
            capture_output=True, text=True, check=True, env=ENV,
        ).stderr  # fmt: skip
        wall = (time.perf_counter() - t0) * 1000.0
        per_package: dict[str, float] = {}
        modules: list[tuple[float, str]] = []
        for line in err.splitlines():
            found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)$", line)
            if not found:
                continue
            own, total, name = int(found[1]) / 1000.0, int(found[2]) / 1000.0, found[4]
            top = name.split(".")[0]
            top = (
                top
                if top in ("rosbags", "numpy", "motion_formats_ros", "yaml", "ruamel")
                else ("standard library" if top in sys.stdlib_module_names or top.startswith("_") else "other")
            )
            per_package[top] = per_package.get(top, 0.0) + own
            if not found[3].strip(" ") and len(found[3]) <= 1:
                modules.append((total, name))
        if best is None or wall < best[2]:
            best = (per_package, sorted(modules, reverse=True)[:12], wall)
    assert best is not None
    return best


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
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench_startup.") as tmp:
        budgets = {kind: bag2motion_budget(Path(tmp), kind) for kind in ("mcap", "sqlite3", "bare")}
    per_package, modules, wall = budgets["mcap"]
    total = sum(per_package.values())
    print(f"motion-formats bag2motion of a 10-message rosbag2 folder (MCAP): {wall:.0f} ms whole process")
    print(f"  import budget, self time by package ({total:.0f} ms of imports):")
    for name, ms in sorted(per_package.items(), key=lambda kv: -kv[1]):
        print(f"    {name:<20} {ms:7.1f} ms")
    print("  costliest top-level imports (cumulative):")
    for ms, name in modules:
        print(f"    {name:<40} {ms:7.1f} ms")
    print("bag2motion of standard messages, by kind of bag (goal: neither rosbags nor a YAML library loaded):")
    for kind, (packages, _, ms) in budgets.items():
        loaded = [name for name in ("rosbags", "yaml", "ruamel") if name in packages]
        beyond = sum(v for k, v in packages.items() if k not in ("numpy",))
        print(
            f"  {kind:<8} {ms:5.0f} ms whole process, {beyond:5.1f} ms of imports other than numpy's "
            "(the interpreter's own included); "
            f"{'LOADED: ' + ', '.join(loaded) if loaded else 'rosbags and YAML not loaded'}"
        )
    peer = import_ms("rosbags.highlevel, rosbags.rosbag2, rosbags.typesys, yaml", before="numpy")
    own = import_ms(
        "motion_formats_ros.codecs.rosbag.storage.direct, motion_formats_ros.codecs.rosbag.storage.standard",
        before="numpy",
    )
    print(
        f"  peer: rosbags' readers and deserializer with PyYAML imported beyond numpy {peer:.0f} ms; "
        f"the package's own readers and standard messages {own:.0f} ms ({own / peer:.2f}x)"
    )


if __name__ == "__main__":
    main()
