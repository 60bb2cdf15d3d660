"""``motion-formats simulate``: a motion played on a physical model of its robot (MuJoCo) before hardware.

Exit status as ``check``'s: 0 when the robot stood and no servo passed its effort limit,
3 (:data:`EXIT_FINDINGS`) when it fell or one did, 1 when the motion cannot be simulated
(one ``error:`` line: a file that cannot be read, MuJoCo missing), 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..core.errors import OutOfRangeError
from ..registry import CODECS
from . import values
from .check_command import EXIT_FINDINGS, add_motion_reading
from .flags import SIM, add_robot_model, mirrored, read_beside_model, read_option_files, read_options


def _within(text: str, low: float, high: float) -> float:
    """``text`` as a number above ``low`` and at most ``high``."""
    value = values.seconds(text)  # a finite number
    if not low < value <= high:
        raise argparse.ArgumentTypeError(f"expected a number above {low:g} and at most {high:g}, got {text}")
    return value


def _speed(text: str) -> float:
    return _within(text, 0.0, 100.0)


def _record_rate(text: str) -> float:
    return _within(text, 0.0, 1e5)


def _gain(text: str) -> float:
    value = values.seconds(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a gain of at least 0, got {text}")
    return value


def add_simulation_arguments(p: argparse.ArgumentParser | Any, speed: str) -> None:
    """The simulation's options (``simulate``'s, and ``view --simulate``'s with ``speed`` spelt apart
    from the page's own playback speed)."""
    gains = p.add_mutually_exclusive_group()
    gains.add_argument("--gains", type=Path, help="gains file: gains: {JOINT: {p: P, d: D}} (ros2_control's layout)")
    gains.add_argument("--kp", type=_gain, help="P gain of every servo (N·m/rad or N/m)")
    p.add_argument("--kd", type=_gain, help="D gain of every servo (N·m·s/rad or N·s/m)")
    p.add_argument(
        speed,
        dest="sim_speed",
        type=_speed,
        default=1.0,
        help="playback speed factor, up to 100 (default 1)",
    )
    base = p.add_mutually_exclusive_group()
    base.add_argument("--fixed-base", dest="floating", action="store_false", default=None, help="fix the root link")
    base.add_argument("--floating-base", dest="floating", action="store_true", help="let the root link float")
    p.add_argument("--timestep", **mirrored(SIM, "timestep"))
    p.add_argument(
        "--record-rate", type=_record_rate, default=100.0, help="Hz the result keeps, up to 100 kHz (default 100)"
    )
    p.set_defaults(spelling={"speed": speed})  # the command's own flag for the simulation's speed


def simulation_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`motion_formats_ros.simulation.simulate` the command line gave."""
    if args.kd is not None and args.gains is not None:
        raise OutOfRangeError("--kd goes with --kp, not with --gains")
    return {
        "gains": args.gains,
        "kp": args.kp,
        "kd": args.kd,
        "speed": args.sim_speed,
        "floating": args.floating,
        **({"timestep": args.timestep} if args.timestep is not None else {}),  # else motion_sim's default
        "record_rate": args.record_rate,
        "srdf": getattr(args, "srdf", None),
    }


def add_parser(sub: Any) -> None:
    """Register ``simulate`` on the ``motion-formats`` subparsers."""
    p = sub.add_parser(
        "simulate",
        help="play a motion on a physical model of its robot (MuJoCo): does it stand, track, what torques",
        description="Play a motion on a MuJoCo model of its robot, a PD servo on every joint, at 1 kHz: whether "
        "the robot stays up (a fall: when and why), how far each joint lags the plan, the efforts its servos "
        f"give against the model's effort limits, where the base goes. Exit 0: it stood within limits; "
        f"{EXIT_FINDINGS}: it fell or an effort limit was passed; 1: cannot be simulated. Needs the sim extra.",
    )
    p.add_argument("input", type=Path, help="any motion file this package reads, or a bag")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    add_robot_model(p, required=True)
    p.add_argument("--srdf", **mirrored(SIM, "srdf_file"))
    add_simulation_arguments(p, speed="--speed")
    p.add_argument("--group", help="group to simulate (default: the first)")
    p.add_argument(
        "-o",
        "--output",
        type=values.output_file,
        help="what the robot did, in any writable format (bags: effort and TF)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace an existing output or --mjcf file")
    p.add_argument("--mjcf", type=values.output_file, help="write the MuJoCo model it built (MJCF) to this file")
    p.add_argument("--json", action="store_true", help="the report as JSON")
    p.add_argument("--series", action="store_true", help="with --json: the recorded time, base position and efforts")
    p.add_argument("--joints", action="store_true", help="print every joint's tracking and effort")
    add_motion_reading(p)
    p.set_defaults(handler=cmd_simulate)


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..core.atomic import Inputs, check_output, write_bytes_atomic
    from ..core.kinematics import load_robot_model
    from ..core.model import MotionFile
    from ..registry import codec_by_name, codec_for_path, with_body, write
    from ..simulation import simulate

    options = simulation_options(args)
    robot = load_robot_model(args.urdf or args.body)
    given = (args.input, args.urdf or args.body, args.srdf, args.gains, args.joint_map)
    named = read_option_files(read_options(args, args.input, args.from_format), args.input, args.from_format)
    model = (*robot.files, *robot.mesh_files(args.package_paths))  # a xacro model's includes and YAML files too
    inputs = Inputs([*(p for p in given if p is not None), *named, *model])
    if (
        args.output is not None
        and args.mjcf is not None
        and os.path.realpath(args.output) == os.path.realpath(args.mjcf)
    ):
        raise OutOfRangeError(f"-o {args.output} and --mjcf {args.mjcf} name one file: give two")
    for out in (args.output, args.mjcf):
        if out is not None:
            check_output(out, inputs, args.overwrite)
    if args.output is not None:
        codec_for_path(args.output, for_write=True)  # an unknown suffix: one line before the work
    motion_file = read_beside_model(args)
    result = simulate(
        motion_file, robot, package_paths=args.package_paths, group=args.group, source=str(args.input), **options
    )
    report = result.report
    if args.mjcf is not None:
        write_bytes_atomic(args.mjcf, result.built.to_xml().encode("utf-8"), overwrite=args.overwrite)
    if args.output is not None:
        done = MotionFile(groups={"simulated": result.motion()}, source=str(args.output))
        reader = codec_by_name(args.from_format) if args.from_format else codec_for_path(args.input)
        writer = codec_for_path(args.output, for_write=True)
        body = with_body({}, reader, body=args.body, writer=writer)[1]  # a .seq's columns in the body's order
        write(done, args.output, overwrite=args.overwrite, **body)
    if args.json:
        out = report.to_dict()
        if args.series:
            out["series"] = {
                "time": result.times.tolist(),
                "base": None if result.root_position is None else result.root_position.tolist(),
                "effort": {n: result.effort[:, k].tolist() for k, n in enumerate(result.joint_names)},
            }
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        for line in report.lines():
            print(line)
        if args.joints:
            for line in report.table():
                print(line)
    return EXIT_FINDINGS if report.errors else 0


__all__ = ["add_parser", "cmd_simulate"]
