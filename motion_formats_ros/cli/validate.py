"""``motion-formats validate FILE``: run the scene preprocessor (or any codec's reader).

For a scene (``.json5``, or ``.json`` with ``models`` / ``objects`` / ``trajectories``)
every problem is printed with its JSON path, errors and warnings alike; ``--canonical``
prints the canonical scene. Any other motion file is read with its codec and a bad
one reported; values that are not finite are warned about as ``convert`` does. Exit
status 0 when valid, 1 otherwise; with ``--strict`` a file with any warning (a scene's
warning-level problem, a notice of its read) is not valid: it is not called valid and the
status is 1, as ``convert --strict`` refuses it.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from ..core.errors import ReadError
from ..core.notices import Report
from ..registry import CODECS, codec_by_name, codec_for_path, read
from .report import notices_json


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``validate`` on the subparsers ``sub``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "validate", help="check a file; scenes: report every problem with its JSON path"
    )
    p.add_argument("file", type=Path, help="the motion file whose format is validated")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    p.add_argument("--canonical", action="store_true", help="print the canonical (preprocessed) scene as JSON")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(handler=cmd_validate)
    return p


def _jsonable(node: Any) -> Any:
    if isinstance(node, float) and not math.isfinite(node):
        return None if math.isnan(node) else ("Infinity" if node > 0 else "-Infinity")
    if isinstance(node, dict):
        return {k: _jsonable(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_jsonable(v) for v in node]
    return node


def _strict_failure(args: argparse.Namespace, problems: int = 0) -> str | None:
    """With ``--strict``, why the file is not valid: its warnings (notices, and ``problems``
    warning-level problems of the codec's own validation); None when it is, or without ``--strict``."""
    if not getattr(args, "strict", False):
        return None
    report = getattr(args, "notices", None)
    count = problems + (len(report.warned) if isinstance(report, Report) else 0)
    return f"{count} warning{'s' if count > 1 else ''}" if count else None


def cmd_validate(args: argparse.Namespace) -> int:
    path: Path = args.file
    if not path.exists():
        raise ReadError(path, "no such file")
    info = codec_by_name(args.from_format) if args.from_format else codec_for_path(path)
    validation = info.validate(path)
    if validation is None:  # the format has no checks of its own: reading it is the check
        from ..core.nonfinite import warn_nonfinite
        from .flags import read_options

        motion_file = read(path, format=info.name, **read_options(args, path, info.name))
        warn_nonfinite(motion_file, path)
        frames = sum(m.num_frames for m in motion_file.groups.values())
        failed = _strict_failure(args)
        what = f"{info.name} file ({len(motion_file.groups)} group(s), {frames} frames)"
        if failed is not None:
            what = f"{info.name} file, {len(motion_file.groups)} group(s), {frames} frames"
        if args.json:
            summary = {
                "file": str(path),
                "valid": failed is None,
                "format": info.name,
                "groups": len(motion_file.groups),
            }
            print(json.dumps({**summary, "frames": frames, "notices": notices_json(args)}, indent=2))
        else:
            print(f"{path}: valid {what}" if failed is None else f"{path}: fails --strict: {failed} ({what})")
        return 0 if failed is None else 1
    warned = sum(1 for p in validation.problems if getattr(p, "severity", "error") == "warning")
    failed = _strict_failure(args, warned) if validation.valid else None
    valid = validation.valid and failed is None
    canonical = validation.canonical if valid and args.canonical else None
    if args.json:
        report = {"file": str(path), "valid": valid, "problems": [vars(p) for p in validation.problems]}
        if canonical is not None:
            report["canonical"] = _jsonable(canonical())
        print(json.dumps({**report, "notices": notices_json(args)}, indent=2))
        return 0 if valid else 1
    for problem in validation.problems:
        print(f"{path}: {problem}")
    if canonical is not None:
        print(json.dumps(_jsonable(canonical()), indent=2))
    print(f"{path}: {validation.summary}" if failed is None else f"{path}: fails --strict: {failed}")
    return 0 if valid else 1


__all__ = ["add_parser", "cmd_validate"]
