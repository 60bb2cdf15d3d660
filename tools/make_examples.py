"""(Re)build the files in examples/ from motion_formats_ros.core.examples.

    .venv/bin/python tools/make_examples.py [--check]

--check compares the committed files with what the code generates (exit 1 on a difference).
The files are those `motion-formats example NAME` writes, for every NAME.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from motion_formats_ros.cli.example import EXAMPLES, contents

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"


def build(folder: Path) -> list[Path]:
    written = []
    for name in EXAMPLES:
        for filename, data in contents(name).items():
            (folder / filename).write_bytes(data)
            written.append(folder / filename)
    return written


def _same(committed: Path, fresh: Path) -> bool:
    """The same file, numbers allowed to differ in their last digits (numpy/libm versions)."""
    if not committed.exists():
        return False
    a, b = committed.read_bytes(), fresh.read_bytes()
    if a == b:
        return True
    ta, tb = re.split(rb"[\s,\[\]]+", a), re.split(rb"[\s,\[\]]+", b)
    if len(ta) != len(tb):
        return False
    for x, y in zip(ta, tb, strict=True):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if abs(fx - fy) > 1e-8 * max(1.0, abs(fx)):
            return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not args.check:
        for path in build(EXAMPLES_DIR):
            print(f"wrote {path.relative_to(EXAMPLES_DIR.parent)}")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = build(Path(tmp))
        stale = [p.name for p in fresh if not _same(EXAMPLES_DIR / p.name, p)]
    if stale:
        print(f"examples out of date: {', '.join(stale)} (run tools/make_examples.py)", file=sys.stderr)
        return 1
    print("examples up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
