"""Write config/player.yaml, config/recorder.yaml and config/sim.yaml from the nodes' declarations.

    python tools/make_config.py          # write them
    python tools/make_config.py --check  # exit 1, naming them, when a checked-in file differs

Each node's parameters are declared once, in its configuration dataclass; these files are
what :func:`motion_formats_ros.ros.node_settings.config_text` makes of them (every parameter,
its default, its one line of help). Never edit them by hand.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from motion_formats_ros.core.atomic import atomic_output  # noqa: E402
from motion_formats_ros.ros.node_settings import NODES, config_text  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when a file differs")
    args = parser.parse_args(argv)
    stale = []
    for node, settings in NODES.items():
        path = ROOT / "config" / settings.file
        text = config_text(node)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            with atomic_output(path, overwrite=True) as out:
                out.write(text.encode("utf-8"))
            print(f"wrote {path.relative_to(ROOT)}")
    if args.check and stale:
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
        print(f"{names}: not what the declarations give (python tools/make_config.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
