"""``bag2motion``, ``motion2bag`` and ``info`` of a bag (see codecs/rosbag)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..core.atomic import Inputs, check_output
from ..core.distros import default_write_distro
from ..core.errors import MotionValueError, require
from ..registry import CODECS, codec_for_path, read, with_body, write
from . import values
from .flags import (
    BAG_READ_ALIASES,
    MOTION2BAG_ALIASES,
    add_aliases,
    add_option_flags,
    aliases_given,
    name_list_or_none,
)


def add_bag_read_arguments(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The options that select and merge a bag's messages (``bag2motion``, ``view``): the rosbag reader's."""
    add_aliases(p, BAG_READ_ALIASES)


def _flag(option: str) -> str:
    """The command-line flag of a read option."""
    return "--" + option.replace("_", "-")


def describe_lines(info: dict[str, Any]) -> list[str]:
    """Lines ``info`` prints for a bag (what :func:`~motion_formats_ros.codecs.rosbag.describe` returns)."""
    lines = [f"file:     {info['file']}", "format:   rosbag" + (" (ROS 1)" if info["ros1"] else " (rosbag2)")]
    if info.get("distro"):
        lines.append(f"distro:   {info['distro']}")
    if info.get("recovered_messages") is not None:
        lines.append(f"recovered: {info['recovered_messages']} messages (recording was not closed)")
    convertible = [t for t in info["topics"] if t["converts_to"] or t.get("fields")]
    other = [t for t in info["topics"] if not (t["converts_to"] or t.get("fields"))]
    count = sum(1 if t["converts_to"] else len(t["fields"]) for t in convertible)
    lines.append(f"convertible topics ({count}):")
    for t in convertible:
        if t["converts_to"]:
            lines.append(f"  {t['topic']:<32} {t['type']:<36} {t['messages']:>8} msgs  -> {t['converts_to']}")
            continue
        for f in t["fields"]:
            name = f"{t['topic']}: {f['field']}"
            how = f"{_flag(f['option'])} {f['value']}"
            lines.append(f"  {name:<32} {t['type']:<36} {t['messages']:>8} msgs  -> {f['converts_to']} ({how})")
    if other:
        lines.append(f"other topics, not convertible ({len(other)}):")
        for t in other:
            note = f"  ({t['note']})" if t.get("note") else ""
            lines.append(f"  {t['topic']:<32} {t['type']:<36} {t['messages']:>8} msgs{note}")
    return lines


def add_parsers(sub: Any) -> None:
    """Register ``bag2motion`` and ``motion2bag`` on the ``motion-formats`` subparsers."""
    p = sub.add_parser("bag2motion", help="convert a rosbag2 folder / .mcap / .db3 / ROS 1 .bag to a motion file")
    p.add_argument("bag", type=Path, help="rosbag2 folder, .mcap, .db3 or ROS 1 .bag")
    p.add_argument(
        "output", type=values.output_file, help="the motion file to write (its suffix names the format, or --to)"
    )
    p.add_argument("--to", dest="to_format", choices=list(CODECS), help="output format (default: suffix)")
    add_bag_read_arguments(p)
    p.add_argument("--joints", type=name_list_or_none, help="keep only these joints, in this order (a,b,c)")
    p.add_argument("--start", type=values.seconds, help="drop frames before this time (s from the first message)")
    p.add_argument("--end", type=values.seconds, help="drop frames after this time (s)")
    p.add_argument("--rate", type=values.rate, help="resample to this many frames per second")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output")
    add_option_flags(p)
    p.set_defaults(handler=cmd_bag2motion)

    p = sub.add_parser("motion2bag", help="record a motion file as a rosbag2 bag (MCAP or sqlite3)")
    p.add_argument("input", type=Path, help="any motion file this package reads")
    p.add_argument("bag", type=values.output_file, help="rosbag2 folder to create (or a bare .mcap / .db3 file)")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    add_aliases(p, MOTION2BAG_ALIASES)
    p.add_argument(
        "--urdf",
        type=Path,
        help="robot model (.urdf, .urdf.xacro): also write /robot_description and every link's TF as "
        "robot_state_publisher would (--body FILE does the same with a Choreonoid model)",
    )
    p.add_argument(
        "--balance-series",
        action="store_true",
        help="with --urdf/--body and a motion with a root pose: also write the centre of mass and the ZMP "
        "(the motion check's) as /com and /zmp, geometry_msgs/PointStamped in the world frame",
    )
    p.add_argument("--joints", type=name_list_or_none, help="keep only these joints, in this order (a,b,c)")
    p.add_argument("--start", type=values.seconds, help="drop frames before this time (s)")
    p.add_argument("--end", type=values.seconds, help="drop frames after this time (s)")
    p.add_argument("--rate", type=values.rate, help="resample to this many frames per second")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output")
    add_option_flags(p, read=False)  # the read side (and its aliases) is added with the other readers' flags
    p.set_defaults(handler=cmd_motion2bag)


def cmd_bag2motion(args: argparse.Namespace) -> int:
    from ..core.nonfinite import warn_nonfinite
    from ..registry import codec_by_name
    from .flags import bag_read_options, note_read_back, option_files, output_format, write_options

    fmt = output_format(args.output, args.to_format)
    writes = write_options(args, args.output, fmt)
    inputs = Inputs([args.bag, *option_files(writes, fmt)])
    check_output(args.output, inputs, args.overwrite)
    if args.progress:  # asked for: say how to get it, by its flag, before anything is read
        require("tqdm", "--progress", package="tqdm", extra="progress", rosdep_key="python3-tqdm")
    options: dict[str, Any] = {
        **bag_read_options(args),
        "joints": args.joints,
        "start": args.start,
        "end": args.end,
        "rate": args.rate,
        "progress": args.progress,
    }
    motion_file = read(args.bag, format="rosbag", **options)
    warn_nonfinite(motion_file, args.bag)
    for path in codec_by_name(fmt).output_paths(Path(args.output), list(motion_file.groups)):
        inputs.check(path)  # a table per group: none of them an input either
    note_read_back(args.output, args.to_format)  # before writing: --strict then writes nothing
    write(motion_file, args.output, format=fmt, overwrite=args.overwrite, **writes)
    summary = ", ".join(
        f"{name}: {m.num_frames} frames, {len(m.joint_names)} joints" for name, m in motion_file.groups.items()
    )
    print(f"wrote {args.output} ({fmt}; {summary})")
    return 0


def _with_balance_series(motion_file: Any, robot: Any) -> Any:
    """The file with its first group's centre of mass and ZMP added as the series ``com`` and ``zmp``."""
    if robot is None:
        raise MotionValueError("--balance-series needs the robot model: give --urdf FILE or --body FILE")
    import dataclasses

    import numpy as np

    from ..core.model import Series
    from ..core.notices import NoticeKind, notify
    from ..safety import balance_series

    name = next(iter(motion_file.groups))
    motion = motion_file.groups[name]
    com, zmp = balance_series(robot, motion, source=str(motion_file.source) if motion_file.source else None)
    series = {**motion.series, "com": Series(com, "world", ("x", "y", "z"))}
    undefined = int((~np.isfinite(zmp).all(axis=1)).sum())
    if undefined:
        notify(
            NoticeKind.SKIPPED,
            f"the ZMP is undefined in {undefined} frames (the ground is not pressed): /zmp not written",
        )
    else:
        series["zmp"] = Series(zmp, "world", ("x", "y"))
    return motion_file.map(lambda m: dataclasses.replace(m, series=series) if m is motion else m)


def cmd_motion2bag(args: argparse.Namespace) -> int:
    from ..core.kinematics import load_robot_model
    from ..core.nonfinite import warn_nonfinite
    from ..pipeline import convert
    from ..registry import codec_by_name
    from .flags import READ_ALIASES, input_codec, option_files, pairs_for, read_options

    writes = aliases_given(args, MOTION2BAG_ALIASES)
    if writes.get("trajectory_topic", "/").lower() in ("", "none"):
        writes["trajectory_topic"] = None  # --trajectory-topic none: no trajectory topic
    writes.update(pairs_for("rosbag", "write", args.write_pairs))
    model_file = args.urdf if args.urdf is not None else args.body
    if model_file is None and isinstance(writes.get("robot_model"), (str, os.PathLike)):
        model_file = writes["robot_model"]
    options = read_options(args, args.input, args.from_format)
    codecs = (*sorted({a.codec for a in READ_ALIASES if a.name in options}), input_codec(args.input, args.from_format))
    model_files = [model_file] if model_file is not None else []
    inputs = Inputs([args.input, *model_files, *option_files(options, *codecs)])
    check_output(args.bag, inputs, args.overwrite)
    # The model first: a bad one stops before anything is read or written.
    if writes.get("frame_prefix") and model_file is None:
        raise MotionValueError("--frame-prefix names the link frames of a robot model: give --urdf FILE or --body FILE")
    robot = load_robot_model(model_file) if model_file is not None else None
    if robot is not None:
        inputs.add(robot.files)  # a xacro model's includes and YAML files, known once it is read
        inputs.check(args.bag)
    writes["robot_model"] = robot
    reader = codec_by_name(args.from_format) if args.from_format else codec_for_path(args.input)
    motion_file = read(args.input, format=args.from_format, **with_body(options, reader)[0])
    motion_file = convert.transform(motion_file, joints=args.joints, start=args.start, end=args.end, rate=args.rate)
    warn_nonfinite(motion_file, args.input)
    if args.balance_series:
        motion_file = _with_balance_series(motion_file, robot)
    write(motion_file, args.bag, format="rosbag", overwrite=args.overwrite, **writes)
    from ..codecs.rosbag import resolved_compression, resolved_storage

    frames = sum(m.num_frames for m in motion_file.groups.values())
    storage = resolved_storage(args.bag, writes.get("storage"))
    compression = resolved_compression(args.bag, storage, writes.get("compression"))
    chunks = f", {compression}-compressed chunks" if compression != "none" else ""
    distro = writes.get("distro") or default_write_distro()
    model = f", robot {robot.name or model_file}: {len(robot.links)} links" if robot is not None else ""
    print(f"wrote {args.bag} (rosbag2 {storage}, {distro}, {frames} frames{chunks}{model})")
    return 0


__all__ = ["add_bag_read_arguments", "add_parsers", "cmd_bag2motion", "cmd_motion2bag", "describe_lines"]
