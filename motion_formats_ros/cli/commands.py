"""The subcommands of ``motion-formats`` (each takes the parsed arguments)."""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from ..core.atomic import Inputs, check_output
from ..core.errors import MotionFormatError, NoMotionError, OutOfRangeError
from ..core.model import Motion, MotionFile
from ..core.nonfinite import unexplained, warn_nonfinite
from ..core.options import Option, markdown_table
from ..core.options import rows as option_rows
from ..pipeline import convert
from ..registry import CODECS, Codec, codec_by_name, codec_for_path, read, with_body, write, written_counts
from .flags import (
    READ_ALIASES,
    input_codec,
    load_model_options,
    note_read_back,
    option_files,
    output_format,
    read_option_files,
    read_options,
    write_options,
)
from .report import notices_json


def _option_rows(options: tuple[Option, ...]) -> list[dict[str, Any]]:
    return [{"name": o.name, "type": o.type_name, "default": o.default, "help": o.help} for o in options]


def cmd_formats(args: argparse.Namespace) -> int:
    codecs: list[Codec] = list(CODECS.values())
    rows: list[dict[str, Any]] = [
        {
            "name": c.name,
            "suffixes": list(c.suffixes) + list(c.shared),
            "writable": c.writable,
            "description": c.description,
            "read_options": _option_rows(c.read_options),
            "write_options": _option_rows(c.write_options) if c.writable else [],
        }
        for c in codecs
    ]
    options = [r for c in codecs for r in option_rows(c.name, c.read_options, c.write_options if c.writable else ())]
    if getattr(args, "markdown", False):
        print(markdown_table(options), end="")
        return 0
    if args.json:
        print(json.dumps(options if getattr(args, "options", False) else rows, indent=2))
        return 0
    for row in rows:
        mode = "read/write" if row["writable"] else "read"
        print(f"{row['name']:<8} {mode:<10} {' '.join(row['suffixes']):<40} {row['description']}")
        if getattr(args, "options", False):
            for o in options:
                if o["format"] == row["name"]:
                    help_text = o["help"] + (f" ({o['unit']})" if o["unit"] else "")
                    print(
                        f"    {o['direction']:<5} {o['name']:<18} {o['type']:<28} default {o['default']!r:<14} "
                        f"{help_text}\n          set with: {o['flag']}"
                    )
    return 0


# ------------------------------------------------------------------------- info
def summarize(motion_file: MotionFile) -> dict[str, Any]:
    """Everything ``info`` shows, as plain data."""
    return {
        "file": motion_file.source,
        "format": motion_file.format,
        "name": motion_file.name,
        "robot": motion_file.robot,
        "date": motion_file.date.isoformat() if motion_file.date else motion_file.date_text,
        "groups": {name: summarize_motion(m) for name, m in motion_file.groups.items()},
    }


def _finite_range(values: np.ndarray) -> list[float | None]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return [None, None]
    return [float(finite.min()), float(finite.max())]


def summarize_motion(m: Motion) -> dict[str, Any]:
    """Frames, timing, joints and per-channel ranges of one motion."""
    channels: dict[str, Any] = {}
    for label, values in m.iter_arrays():
        if values.dtype == bool:
            channels[label] = {"true": int(values.sum())}
            continue
        entry: dict[str, Any] = {"range": _finite_range(values)}
        if label.startswith("joint.") and values.ndim == 2 and m.joint_names:
            per_joint = {}
            for name in m.joint_names:
                lo, hi = _finite_range(values[:, m.joint_columns(name)])
                per_joint[name] = [lo, hi]
            entry["joints"] = per_joint
        channels[label] = entry
    for bad in unexplained(m):  # NaN / ±Inf that no mask marks as intended
        channels[bad.channel]["nonfinite"] = {"nan": bad.nan, "inf": bad.inf, "first": bad.first}
    return {
        "frames": m.num_frames,
        "start": float(m.times[0]) if m.num_frames else None,
        "duration": m.duration,
        "rate": m.rate,
        "keyframed": m.is_keyframed,
        "keyframes": m.num_frames if m.is_keyframed else None,
        "interpolation": dict(Counter(m.interpolation)) if m.interpolation else None,
        "loop": list(m.loop) if m.loop else None,
        "joint_map": m.joint_map,
        # How the reader settled what the file leaves open (joint map, Int bits, timing ...).
        "read_choices": dict(m.read_choices),
        "joints": [_joint_entry(m, n, d) for n, d in zip(m.joint_names, m.joint_dims, strict=True)],
        "links": list(m.link_names),
        "imus": list(m.imu_names),
        "channels": channels,
    }


def _joint_entry(m: Motion, name: str, dims: int) -> dict[str, Any]:
    """A joint's name and dims, plus its column / locator in the file when a joint map named it."""
    entry: dict[str, Any] = {"name": name, "dims": dims}
    source = m.joint_sources.get(name)
    if source is not None and source != name:
        entry["source"] = source
    return entry


def _fmt(value: float | None) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.6g}"


def _described(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]] | None:
    """The container view of ``args.file`` (a bag's topics …) when its format has one."""
    if args.from_format:
        codec = codec_by_name(args.from_format)
    else:
        if not Path(args.file).exists():
            return None  # the read says so
        try:
            codec = codec_for_path(args.file)
        except MotionFormatError:
            return None  # the read says why
    info = codec.describe(args.file)
    if info is None:
        return None
    from .bag import describe_lines  # the one container view: a bag's topics

    return info, describe_lines(info)


def cmd_info(args: argparse.Namespace) -> int:
    described = _described(args)
    if described is not None:
        info, lines = described
        if args.json:
            print(json.dumps({**info, "notices": notices_json(args)}, indent=2))
        else:
            for line in lines:
                print(line)
        return 0
    try:
        motion_file = read(args.file, format=args.from_format, **read_options(args, args.file, args.from_format))
    except NoMotionError as exc:  # a file with no motion that still describes something (.mof nets)
        if not isinstance(exc.net, dict):
            raise
        return _print_net(args, exc.net)
    warn_nonfinite(motion_file, args.file)  # the warning convert gives: --strict fails on it here too
    info = summarize(motion_file)
    if args.json:
        print(json.dumps({**info, "notices": notices_json(args)}, indent=2))
        return 0
    print(f"file:     {info['file']}")
    print(f"format:   {info['format']}")
    for key in ("name", "robot", "date"):
        if info[key]:
            print(f"{key + ':':<9} {info[key]}")
    for name, g in info["groups"].items():
        rate = f"{g['rate']:g} Hz" if g["rate"] else ("keyframes" if g["keyframed"] else "variable")
        print(
            f"group {name}: {g['frames']} frames, {g['duration']:.6g} s, rate {rate}"
            + (f", starts at {g['start']:.9g} s" if g["start"] else "")
        )
        if g["keyframes"] is not None:
            kinds = ", ".join(f"{k} {v}" for k, v in (g["interpolation"] or {}).items())
            print(f"  keyframes: {g['keyframes']}" + (f" (segments: {kinds})" if kinds else ""))
        if g["loop"]:
            print(f"  loop: {g['loop'][0]:.6g} s to {g['loop'][1]:.6g} s")
        if g["joints"]:
            names = ", ".join(
                j["name"] + (f"[{j['dims']}]" if j["dims"] > 1 else "") + (f" ({j['source']})" if "source" in j else "")
                for j in g["joints"]
            )
            mapped = f", joint map {g['joint_map']}" if g["joint_map"] else ""
            print(f"  joints ({len(g['joints'])}{mapped}): {names}")
        for what, why in g["read_choices"].items():
            print(f"  {what}: {why}")
        if g["links"]:
            print(f"  links ({len(g['links'])}): {', '.join(g['links'])}")
        if g["imus"]:
            print(f"  imus ({len(g['imus'])}): {', '.join(g['imus'])}")
        print("  channels:" + ("" if g["channels"] else " none"))
        for label, c in g["channels"].items():
            if "true" in c:
                print(f"    {label:<26} {c['true']} set")
                continue
            lo, hi = c["range"]
            print(f"    {label:<26} min {_fmt(lo):>12}  max {_fmt(hi):>12}")
            if "nonfinite" in c:
                bad = c["nonfinite"]
                counts = ", ".join(f"{n} {what}" for n, what in ((bad["nan"], "NaN"), (bad["inf"], "infinite")) if n)
                print(f"      non-finite: {counts} (first: {bad['first']})")
            for joint, (jlo, jhi) in c.get("joints", {}).items():
                print(f"      {joint:<24} min {_fmt(jlo):>12}  max {_fmt(jhi):>12}")
    return 0


def _print_net(args: argparse.Namespace, net: dict[str, Any]) -> int:
    """``info`` of a motion net file with no keyframes: its labels and transitions."""
    if args.json:
        print(json.dumps({"file": str(args.file), **net, "notices": notices_json(args)}, indent=2))
        return 0
    print(f"file:     {args.file}")
    print(f"format:   {net.get('format')}")
    print(
        f"net:      {net.get('motion_id')}: no keyframe rows, {len(net['labels'])} label(s), "
        f"{len(net['transitions'])} transition(s)"
    )
    for label in net["labels"]:
        print(f"  label {label['name']} (line {label['line']})")
    for t in net["transitions"]:
        print(f"  transition {t['condition']} -> {t['target']} {t['label']} (line {t['line']})")
    if net.get("targets"):
        print(f"  leads to: {', '.join(net['targets'])}")
    return 0


# ------------------------------------------------------------------------- convert
def cmd_convert(args: argparse.Namespace) -> int:
    fmt = output_format(args.output, args.to_format)
    options = write_options(args, args.output, fmt)
    reads = read_options(args, args.input, args.from_format)
    codecs = (
        *sorted({a.codec for a in READ_ALIASES if a.name in reads}),
        input_codec(args.input, args.from_format),
        fmt,
    )
    inputs = Inputs([args.input, *option_files({**reads, **options}, *codecs)])
    check_output(args.output, inputs, args.overwrite)
    inputs.add(load_model_options(options, *codecs))  # a robot model read once, with the files it read
    inputs.check(args.output)
    source = codec_by_name(args.from_format) if args.from_format else codec_for_path(args.input)
    reads, body = with_body(reads, source, writer=codec_by_name(fmt))
    options = {**body, **options}  # a --write-option body=… given too wins
    motion_file = read(args.input, format=args.from_format, **reads)
    motion_file = convert.transform(
        motion_file,
        group=args.group,
        joints=args.joints,
        start=args.start,
        end=args.end,
        rate=args.rate,
        method=args.resample or "linear",
    )
    warn_nonfinite(motion_file, args.input)
    for path in codec_by_name(fmt).output_paths(Path(args.output), list(motion_file.groups)):
        inputs.check(path)  # a table per group: none of them an input either
    note_read_back(args.output, args.to_format)  # before writing: --strict then writes nothing
    written = write(motion_file, args.output, format=fmt, overwrite=args.overwrite, **options)
    groups, frames = written_counts(written, motion_file)  # what the output holds, not what was given
    if getattr(args, "json", False):
        summary = {"output": str(args.output), "format": fmt, "groups": groups, "frames": frames}
        print(json.dumps({**summary, "notices": notices_json(args)}, indent=2))
    elif isinstance(written, int):
        print(f"wrote {args.output} ({fmt}, 1 group, {written} frames)")
    else:
        print(f"wrote {args.output} ({fmt}, {groups} group(s), {frames} frames)")
    return 0


# ------------------------------------------------------------------------- recover
def cmd_recover(args: argparse.Namespace) -> int:
    from ..recording.recovery import recover, written_lines
    from ..registry import codec_for_path

    out, motion_file, content = recover(args.journal, args.output, overwrite=args.overwrite)
    state = "complete" if content.complete else "cut short"
    lost = ""
    if content.truncated_at is not None:
        dropped = Path(args.journal).stat().st_size - content.truncated_at
        lost = f", torn tail of {dropped} bytes after byte {content.truncated_at} dropped"
    print(f"journal {args.journal}: {content.records} records ({state}{lost})")
    for line in written_lines(motion_file, codec_for_path(out, for_write=True), out):
        print(f"wrote {line}")
    return 0


# ------------------------------------------------------------------------- plot
def cmd_plot(args: argparse.Namespace) -> int:
    from . import plot

    output = args.output or args.output_option
    if output is None or (args.output and args.output_option and args.output != args.output_option):
        raise OutOfRangeError("give one image file: plot FILE OUT.png (or -o OUT.png)")
    plot.image_format(output)  # before the work: a suffix no image format has
    reads = read_options(args, args.file, args.from_format)
    inputs = Inputs([args.file, *read_option_files(reads, args.file, args.from_format)])  # --body too
    inputs.check(output)
    motion_file = read(args.file, format=args.from_format, **reads)
    warn_nonfinite(motion_file, args.file)
    outputs = plot.plot_file(
        motion_file, output, joints=args.joints, group=args.group, overwrite=args.overwrite, inputs=inputs
    )
    for out in outputs:
        print(f"wrote {out}")
    return 0


__all__ = ["cmd_convert", "cmd_formats", "cmd_info", "cmd_plot", "summarize"]
