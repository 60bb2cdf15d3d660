"""Every test bag's outputs from one checkout of the package, to compare byte for byte with another's.

Not a timing: the proof that a change of the bag codec's code left its outputs alone. For a
checkout (``--code``: the folder holding its ``motion_formats_ros``) it writes into ``--out``:

- bags made by ``motion2bag`` from the corpus' motion files (``.seq``, ``.pseq``, ``.mof``) in
  every storage and chunk compression, and with the NAO URDF (``/robot_description`` and
  every link's TF);
- for each of those and each bag of the corpus: ``bag2motion`` to OMF msgpack, and
  ``motion2bag`` of the bag again as a folder, a bare ``.mcap`` and a bare ``.db3``;
- ``log.txt``: every command's exit status and output.

Every stamp is fixed (``--start-time``), so two checkouts' folders compare with ``diff -r``:

    .venv/bin/python bench/bench_bag_identical.py --code OLD_CHECKOUT --out /tmp/before
    .venv/bin/python bench/bench_bag_identical.py --code . --out /tmp/after
    diff -r /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
START = "1700000000"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, required=True, help="the checkout whose package is run")
    parser.add_argument("--out", type=Path, required=True, help="folder for the outputs (replaced)")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    out, corpus = args.out.resolve(), args.corpus
    shutil.rmtree(out, ignore_errors=True)
    (out / "_gen").mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(args.code.resolve())}
    cli = [sys.executable, "-c", "import sys; from motion_formats_ros.cli.main import main; sys.exit(main())"]

    def run(*words: object) -> str:
        done = subprocess.run([*cli, *map(str, words)], capture_output=True, text=True, env=env, cwd="/")
        return f"{done.returncode}\n{done.stdout}\n{done.stderr}".replace(str(out), "OUT")

    bags = [
        p.parent if p.name == "metadata.yaml" else p
        for p in sorted(corpus.glob("rosbag/**/*"))
        if p.name == "metadata.yaml" or p.suffix == ".bag"
    ]
    motions = sorted(p for p in corpus.glob("choreonoid/**/*") if p.suffix in (".seq", ".pseq"))
    mofs = sorted(corpus.glob("mof/**/*.mof"))
    motions += mofs[:20]
    log: list[str] = []
    variants = (
        ["--compression", "zstd"],
        ["--compression", "lz4"],
        ["--compression", "none"],
        ["--storage", "sqlite3"],
    )
    for i, m in enumerate(motions):
        for variant in variants:
            bag = out / "_gen" / f"m{i}_{variant[1]}"
            log.append(f"{bag.name} {run('motion2bag', m, bag, '--start-time', START, *variant)}")
            if bag.exists():
                bags.append(bag)
    for i, m in enumerate(mofs[:3]):
        bag = out / "_gen" / f"nao{i}.mcap"
        log.append(
            f"{bag.name} {run('motion2bag', m, bag, '--urdf', corpus / 'urdf' / 'nao.urdf', '--start-time', START)}"
        )
        bags.append(bag)
    for i, bag in enumerate(bags):
        shown = str(bag).replace(str(out), "OUT")
        log.append(f"b{i} {shown} {run('bag2motion', bag, out / f'b{i}.msgpack')}")
        for suffix in ("", ".mcap", ".db3"):
            log.append(
                f"b{i} motion2bag{suffix} {run('motion2bag', bag, out / f'b{i}_again{suffix}', '--start-time', START)}"
            )
    (out / "log.txt").write_text("\n".join(log), encoding="utf-8")
    print(f"{len(bags)} bags, {len(log)} commands: {out}")


if __name__ == "__main__":
    main()
