"""``motion-formats check``: a motion checked on its robot model before it reaches hardware.

Exit status: 0 when no error-level finding was made (warnings such as ``balance`` may
have been), :data:`EXIT_FINDINGS` (3) when one was, 1 when the input cannot be checked
(one ``error:`` line naming the file: a motion, model, SRDF, limits or mesh file that
cannot be read, or the ``check`` extra missing), 2 for a bad command line. With
``--strict`` every warning fails: a warning-level finding exits 3 as an error does, a
warning met reading the files exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..registry import CODECS
from . import values
from .bag import add_bag_read_arguments
from .flags import add_check_model, add_option_flags, name_list, read_beside_model
from .report import notices_json

#: Exit status when an error-level finding was made (1 is for input that cannot be checked).
EXIT_FINDINGS = 3


#: The largest floor tolerance and balance margin taken (m): a robot's feet are not a metre into
#: the ground or off their support; beyond it the check would be off without a word.
MAX_TOLERANCE = 1.0


def _tolerance(text: str) -> float:
    """A length (m) from 0 to :data:`MAX_TOLERANCE`."""
    value = values.seconds(text)  # a finite number
    if not 0 <= value <= MAX_TOLERANCE:
        raise argparse.ArgumentTypeError(f"expected a length from 0 to {MAX_TOLERANCE:g} m, got {text}")
    return value


def add_parser(sub: Any) -> None:
    """Register ``check`` on the ``motion-formats`` subparsers."""
    p = sub.add_parser(
        "check",
        help="check a motion on its robot before hardware (self-collision, floor, balance, joint limits)",
        description="Examine every frame of a motion as the player sends it, on its robot model: self-collision "
        "(an SRDF's disabled pairs left out), collision geometry below the ground, the ZMP leaving the support "
        f"polygon, joint limits. Exit 0: no error-level finding; {EXIT_FINDINGS}: one or more; 1: cannot be checked.",
    )
    p.add_argument("input", type=Path, help="any motion file this package reads, or a bag")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    add_check_model(p, required=True)
    p.add_argument(
        "--rate",
        type=values.rate,
        default=100.0,
        help="Hz a keyframe motion is sampled at besides its keyframes, which are always checked; "
        "velocities, accelerations and balance are judged at this rate (default 100)",
    )
    p.add_argument("--group", help="group to check (default: the first)")
    p.add_argument(
        "--floor-tolerance", type=_tolerance, default=0.005, help="m geometry may go below the ground, up to 1 (0.005)"
    )
    p.add_argument(
        "--balance-margin",
        type=_tolerance,
        default=0.01,
        help="m the ZMP may leave the support polygon, up to 1 (0.01)",
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help=f"fail on any warning: a warning-level finding (balance) exits {EXIT_FINDINGS} as an error does, "
        "any other warning 1",
    )
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.add_argument("--series", action="store_true", help="with --json: per-frame time, com and zmp")
    add_motion_reading(p)
    p.set_defaults(handler=cmd_check)


def add_motion_reading(p: argparse.ArgumentParser) -> None:
    """How a command that takes a robot model (``check``, ``simulate``) reads its motion: joint names,
    a joint map, any read option, and a bag's messages as ``bag2motion`` reads them."""
    p.add_argument("--joint-names", type=name_list, help="joint names in the file's joint order (a,b,c)")
    p.add_argument("--joint-map", type=Path, help="joint map (a name from config/joint_maps, or a YAML file)")
    add_option_flags(p, write=False)
    bag = p.add_argument_group("bags", "how a bag's messages are read (as bag2motion reads them)")
    add_bag_read_arguments(bag)


def cmd_check(args: argparse.Namespace) -> int:
    from ..safety import check

    motion_file = read_beside_model(args)
    report = check(
        motion_file,
        args.urdf or args.body,
        srdf=args.srdf,
        limits=args.limits,
        package_paths=args.package_paths,
        rate=args.rate,
        group=args.group,
        series=args.series,
        floor_tolerance=args.floor_tolerance,
        balance_margin=args.balance_margin,
    )
    report.source = str(args.input)
    if args.json:
        out = {**report.to_dict(series=args.series), "notices": notices_json(args)}
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for line in report.lines():
            print(line)
    if report.errors or (getattr(args, "strict", False) and report.warnings):
        return EXIT_FINDINGS  # with --strict a warning-level finding (balance) fails as an error does
    return 0


__all__ = ["EXIT_FINDINGS", "add_parser", "cmd_check"]
