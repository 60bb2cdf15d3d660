"""``bag2motion``, ``motion2bag`` and ``info`` of a bag (see codecs/rosbag)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..core.atomic import check_writable, same_file
from ..core.distros import COMPRESSIONS, DISTROS, STORAGES, WRITE_DISTROS, default_write_distro
from ..core.errors import MotionValueError, WriteError, require
from ..registry import CODECS, codec_for_path, read, write
from . import values
from .options import add_option_flags, name_list_or_none


def add_bag_read_arguments(p: argparse.ArgumentParser) -> None:
    """The options that select and merge a bag's messages (``bag2motion``, ``view``)."""
    p.add_argument(
        "--topics",
        type=name_list_or_none,
        help="JointState topics merged by joint name (default /joint_states, else every JointState topic); "
        "TOPIC:FIELD for joint states inside another message (e.g. /x:trajectory_start.joint_state)",
    )
    p.add_argument(
        "--stamps",
        choices=["auto", "header", "receive"],
        default="auto",
        help="time of each sample: header stamp, bag receive time, or auto (header; receive when all are zero)",
    )
    p.add_argument(
        "--root",
        type=values.frame_pair_or_none,
        help="root pose from TF as PARENT:CHILD (e.g. world:base_link); 'none' for no root",
    )
    p.add_argument(
        "--links", type=name_list_or_none, help="TF frames to record as link poses (in the root's parent frame)"
    )
    p.add_argument("--imu", type=name_list_or_none, help="sensor_msgs/Imu topics (default: all; 'none': none)")
    p.add_argument(
        "--trajectory",
        type=name_list_or_none,
        help="JointTrajectory topics → 'target' group (default: all); TOPIC:FIELD for trajectories inside "
        "another message (e.g. /display_planned_path:trajectory[].joint_trajectory; `info` lists them)",
    )
    p.add_argument("--points", type=name_list_or_none, help="PointStamped topics → series (default: /zmp)")
    p.add_argument("--hold", action="store_true", help="hold a joint's last value instead of NaN where it is absent")
    p.add_argument("--distro", choices=list(DISTROS), help="typestore for types the bag does not define")


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
    p.add_argument("output", type=Path)
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
    p.add_argument("input", type=Path)
    p.add_argument("bag", type=Path, help="rosbag2 folder to create (or a bare .mcap / .db3 file)")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    p.add_argument("--storage", choices=list(STORAGES), help="storage plugin (default mcap)")
    p.add_argument(
        "--compression",
        choices=list(COMPRESSIONS),
        help="MCAP chunk compression (default zstd, as ros2 bag record writes MCAP)",
    )
    p.add_argument(
        "--distro",
        choices=list(WRITE_DISTROS),
        help="ROS distro the bag is written for (message definitions, metadata; default: $ROS_DISTRO when it "
        "is one of these, else jazzy)",
    )
    p.add_argument(
        "--start-time",
        type=values.start_time,
        help="stamp of the first frame: epoch seconds, now, ISO date (default: the file's recorded start, else now)",
    )
    p.add_argument("--group", help="group written as joint states (default: actual, else the first)")
    p.add_argument(
        "--root",
        type=values.frame_pair,
        help="TF frames of the root pose WORLD:BASE (default world:base_link; with a robot model "
        "world:<its root link>)",
    )
    p.add_argument(
        "--urdf",
        type=Path,
        help="robot model (.urdf, .urdf.xacro): also write /robot_description and every link's TF as "
        "robot_state_publisher would (--body FILE does the same with a Choreonoid model)",
    )
    p.add_argument(
        "--frame-prefix", default="", help="prefix of the link frames (robot_state_publisher's frame_prefix)"
    )
    p.add_argument("--joint-topic", default="/joint_states")
    p.add_argument("--tf-topic", default="/tf")
    p.add_argument("--tf-static-topic", default="/tf_static")
    p.add_argument("--trajectory-topic", default="/joint_trajectory", help="'none' to leave it out")
    p.add_argument("--imu-topic", default="/{name}", help="topic of each IMU ({name} is the IMU's name)")
    p.add_argument("--zmp-topic", default="/zmp")
    p.add_argument("--joints", type=name_list_or_none, help="keep only these joints, in this order (a,b,c)")
    p.add_argument("--start", type=values.seconds, help="drop frames before this time (s)")
    p.add_argument("--end", type=values.seconds, help="drop frames after this time (s)")
    p.add_argument("--rate", type=values.rate, help="resample to this many frames per second")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output")
    add_option_flags(p, read=False)  # the read side (and its aliases) is added with the other readers' flags
    p.set_defaults(handler=cmd_motion2bag)


def cmd_bag2motion(args: argparse.Namespace) -> int:
    from .options import bag_read_options, write_options

    fmt = args.to_format or codec_for_path(args.output, for_write=True).name
    check_writable(args.output, args.overwrite)
    if args.progress:  # asked for: say how to get it, by its flag, before anything is read
        require("tqdm", "--progress", package="tqdm", extra="progress", rosdep_key="python3-tqdm")
    writes = write_options(args, args.output, fmt)
    options: dict[str, Any] = {
        **bag_read_options(args),
        "joints": args.joints,
        "start": args.start,
        "end": args.end,
        "rate": args.rate,
        "progress": args.progress,
    }
    motion_file = read(args.bag, format="rosbag", **options)
    write(motion_file, args.output, format=fmt, overwrite=args.overwrite, **writes)
    summary = ", ".join(
        f"{name}: {m.num_frames} frames, {len(m.joint_names)} joints" for name, m in motion_file.groups.items()
    )
    print(f"wrote {args.output} ({fmt}; {summary})")
    return 0


def cmd_motion2bag(args: argparse.Namespace) -> int:
    if same_file(args.input, args.bag):
        raise WriteError(args.bag, "the output is the input; the input is never modified")
    check_writable(args.bag, args.overwrite)
    from ..core.kinematics import load_robot_model
    from ..pipeline import convert
    from ..registry import codec_by_name
    from .options import MOTION2BAG_ALIASES, pairs_for, read_options

    writes = {name: getattr(args, dest) for dest, name in MOTION2BAG_ALIASES.items()}
    if writes["trajectory_topic"].lower() in ("", "none"):
        writes["trajectory_topic"] = None
    writes["frame_prefix"] = args.frame_prefix
    writes.update(pairs_for("rosbag", "write", args.write_pairs))
    # The model first: a bad one stops before anything is read or written.
    model_file = args.urdf if args.urdf is not None else args.body
    if model_file is None and isinstance(writes.get("robot_model"), (str, os.PathLike)):
        model_file = writes["robot_model"]
    if writes["frame_prefix"] and model_file is None:
        raise MotionValueError("--frame-prefix names the link frames of a robot model: give --urdf FILE or --body FILE")
    robot = load_robot_model(model_file) if model_file is not None else None
    writes["robot_model"] = robot
    options = read_options(args, args.input, args.from_format)
    if "body" in options:
        codec = codec_by_name(args.from_format) if args.from_format else codec_for_path(args.input)
        if not codec.accepted({"body": True}, "read"):
            options.pop("body")  # only the robot model here; the format names its joints itself
    motion_file = read(args.input, format=args.from_format, **options)
    motion_file = convert.transform(motion_file, joints=args.joints, start=args.start, end=args.end, rate=args.rate)
    write(motion_file, args.bag, format="rosbag", overwrite=args.overwrite, **writes)
    from ..codecs.rosbag import resolved_compression, resolved_storage

    frames = sum(m.num_frames for m in motion_file.groups.values())
    storage = resolved_storage(args.bag, writes["storage"])
    compression = resolved_compression(args.bag, storage, writes["compression"])
    chunks = f", {compression}-compressed chunks" if compression != "none" else ""
    distro = writes["distro"] or default_write_distro()
    model = f", robot {robot.name or model_file}: {len(robot.links)} links" if robot is not None else ""
    print(f"wrote {args.bag} (rosbag2 {storage}, {distro}, {frames} frames{chunks}{model})")
    return 0


__all__ = ["add_bag_read_arguments", "add_parsers", "cmd_bag2motion", "cmd_motion2bag", "describe_lines"]
