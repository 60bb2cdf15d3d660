"""Write every motion file of some folders to every writable format; one sha256 per output.

Used to prove a refactoring changed no output: run it on two commits (e.g. a ``git worktree``
of the older one, with ``PYTHONPATH`` pointing at it) and compare the two listings::

    PYTHONPATH=. python tools/corpus_outputs.py examples FOLDER... > after.txt

Each line is ``INPUT -> FORMAT: SHA256`` (a format that writes several files, one per
group, or a folder hashes every file with its name), ``INPUT -> FORMAT: error: LINE`` for a
combination that cannot be written, ``INPUT: error: LINE`` for a file that cannot be read.
A Choreonoid ``.seq`` / ``.pseq`` input is read with the ``.body`` model of its robot when
one lies in a ``model`` folder beside it (joint names), as a user would give it.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

#: Output suffix of every writable format (OMF in each of its encodings).
OUTPUTS = {
    "omf-msgpack": ".msgpack",
    "omf-yaml": ".omf.yaml",
    "omf-json": ".omf.json",
    "seq": ".seq",
    "mof": ".mof",
    "mtn": ".mtn",
    "scene": ".json5",
    "rosbag-mcap": ".mcap",
    "csv": ".csv",
    "parquet": ".parquet",
}
#: Write options an output needs to be the same on every run (a bag of a file without an
#: absolute start would start now).
WRITE_OPTIONS: dict[str, dict[str, Any]] = {"rosbag-mcap": {"start_time": 0.0}}
#: Files that are no motion input (robot models, the notes of a folder, a bag's parts).
SKIPPED_SUFFIXES = {".body", ".urdf", ".md", ".db3-shm", ".db3-wal", ".xacro"}


def inputs(folder: Path) -> list[Path]:
    """The motion inputs under ``folder``: files, and rosbag2 folders as one input each."""
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        if "metadata.yaml" in files:  # a rosbag2 folder
            found.append(here)
            dirs[:] = []
            continue
        dirs.sort()
        found.extend(here / name for name in sorted(files) if Path(name).suffix.lower() not in SKIPPED_SUFFIXES)
    return found


def _body_for(path: Path) -> Path | None:
    """The ``.body`` model of a Choreonoid motion's robot: ``../model/ROBOT.body`` by folder or file name."""
    for parent in path.parents:
        models = parent / "model"
        if models.is_dir():
            for candidate in sorted(models.glob("*.body")):
                if candidate.stem in path.parts or path.stem.startswith(candidate.stem):
                    return candidate
            return None
    return None


def _mcap_digest(out: Path) -> str:
    """sha256 of an MCAP file's schemas, channels, messages and metadata (not of its
    bytes: a bag records when it was written)."""
    from mcap.reader import make_reader

    h = hashlib.sha256()
    with open(out, "rb") as fh:
        reader = make_reader(fh)
        for schema, channel, message in reader.iter_messages(log_time_order=False):
            h.update(f"{schema.name if schema else ''}|{channel.topic}|{channel.message_encoding}|".encode())
            h.update(f"{message.log_time}|{message.publish_time}|{message.sequence}|".encode() + message.data)
        for schema in sorted(reader.get_summary().schemas.values(), key=lambda s: s.id):  # type: ignore[union-attr]
            h.update(schema.name.encode() + b"|" + schema.encoding.encode() + b"|" + schema.data)
        for record in reader.iter_metadata():
            h.update(record.name.encode() + repr(sorted(record.metadata.items())).encode())
    return "messages " + h.hexdigest()


def _digest(out: Path) -> str:
    """sha256 of the output: a file's bytes, or every file of the folder / group set with its name."""
    if out.suffix == ".mcap" and out.is_file():
        return _mcap_digest(out)
    h = hashlib.sha256()
    files = sorted(p for p in out.parent.rglob("*") if p.is_file())
    if len(files) == 1 and files[0] == out:
        h.update(out.read_bytes())
        return h.hexdigest()
    for p in files:
        h.update(p.relative_to(out.parent).as_posix().encode() + b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]


def run(folders: list[Path], out: Any) -> int:
    from motion_formats_ros import read, write

    count = 0
    for folder in folders:
        for path in inputs(folder):
            name = f"{folder.name}/{path.relative_to(folder).as_posix()}"
            options: dict[str, Any] = {}
            if path.suffix.lower() in (".seq", ".pseq", ".yaml"):
                body = _body_for(path)
                if body is not None:
                    options["body"] = str(body)
            try:
                motion_file = read(path, **options)
            except Exception as exc:  # every failure is a line of the listing
                print(f"{name}: error: {_line(exc)}", file=out)
                continue
            for fmt, suffix in OUTPUTS.items():
                with tempfile.TemporaryDirectory(prefix="corpus-out-") as tmp:
                    target = Path(tmp) / f"out{suffix}"
                    try:
                        write(motion_file, target, **WRITE_OPTIONS.get(fmt, {}))
                        print(f"{name} -> {fmt}: {_digest(target)}", file=out)
                        count += 1
                    except Exception as exc:  # every failure is a line of the listing
                        print(f"{name} -> {fmt}: error: {_line(exc).replace(tmp, 'OUT')}", file=out)
                    shutil.rmtree(tmp, ignore_errors=True)
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[Path("examples")], help="folders of motion files")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = run(args.folders, sys.stdout)
    print(f"# {written} outputs written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
