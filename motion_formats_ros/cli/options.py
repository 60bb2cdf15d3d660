"""Codec options on the command line, generated from each codec's ``ReadOptions`` / ``WriteOptions``.

Every option a codec declares is set with ``--read-option NAME=VALUE`` or
``--write-option NAME=VALUE`` (repeatable); the text is turned into the declared type
by the codec's own declaration (:meth:`~motion_formats_ros.core.options.Option.parse`),
so nothing here lists a codec's options, and building the parser imports no codec. The
hand-written flags of earlier releases (``--joint-names``, ``--lossless``, ``--topics`` …)
stay as aliases: :data:`READ_ALIASES` / :data:`WRITE_ALIASES` say which declared option
each one sets; a ``NAME=VALUE`` pair given too wins over an alias.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..core.errors import OptionError
from ..core.options import FLAGS, Option, parse_pairs


def utf8(text: str) -> str:
    """A command-line value that must be text (names): undecodable bytes are refused.

    On POSIX a byte that is not UTF-8 reaches Python as a lone surrogate; as an
    ``argparse`` type this makes the error name the option.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raw = text.encode("utf-8", "surrogateescape")
        bad = text[exc.start : exc.end].encode("utf-8", "surrogateescape")
        shown = raw.decode("utf-8", "backslashreplace")
        raise argparse.ArgumentTypeError(f"not valid UTF-8 (byte 0x{bad[0]:02x} in '{shown}')") from None
    return text


def name_list(text: str) -> list[str]:
    """``a,b,c`` → ``["a", "b", "c"]`` (an ``argparse`` type: undecodable bytes are refused)."""
    return [item.strip() for item in utf8(text).split(",") if item.strip()]


def name_list_or_none(text: str) -> list[str]:
    """As :func:`name_list`; ``none`` → [] (none of them)."""
    return [] if utf8(text).strip().lower() == "none" else name_list(text)


#: Hand-written read flags kept as aliases: argparse destination → the read option it sets.
READ_ALIASES = {"joint_names": "joint_names", "joint_map": "joint_map", "body": "body", "int_bits": "int_bits"}
#: Hand-written write flags of ``convert`` / ``batch`` kept as aliases: destination → the write option.
WRITE_ALIASES = {
    "seq_version": "version",
    "lossless": "lossless",
    "se3_format": "se3_format",
    "compression": "compression",
}
#: ``motion2bag``'s hand-written flags: argparse destination → the rosbag write option it sets.
MOTION2BAG_ALIASES = {
    name: name
    for name in (
        "storage",
        "compression",
        "distro",
        "start_time",
        "group",
        "root",
        "joint_topic",
        "tf_topic",
        "tf_static_topic",
        "trajectory_topic",
        "imu_topic",
        "zmp_topic",
    )
}
#: What selects and merges a bag's messages (``bag2motion`` and ``batch``): the rosbag reader's options.
BAG_OPTIONS = ("topics", "stamps", "root", "links", "imu", "trajectory", "points", "hold", "distro")


def add_option_flags(p: argparse.ArgumentParser, *, read: bool = True, write: bool = True) -> None:
    """``--read-option NAME=VALUE`` / ``--write-option NAME=VALUE``: any option the codec declares."""
    if read:
        p.add_argument(
            FLAGS["read"],
            dest="read_pairs",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="an option of the input's codec (repeatable; `formats --options` lists them)",
        )
    if write:
        p.add_argument(
            FLAGS["write"],
            dest="write_pairs",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="an option of the output's codec (repeatable; `formats --options` lists them)",
        )


def aliases_given(args: argparse.Namespace, aliases: Mapping[str, str]) -> dict[str, Any]:
    """The options set by hand-written alias flags (those given)."""
    out: dict[str, Any] = {}
    for dest, name in aliases.items():
        value = getattr(args, dest, None)
        if value is not None and value is not False:
            out[name] = value
    return out


def _codec(path: str | os.PathLike[str], fmt: str | None, *, for_write: bool) -> str:
    from ..registry import codec_by_name, codec_for_path

    return (codec_by_name(fmt) if fmt else codec_for_path(Path(path), for_write=for_write)).name


def pairs_for(codec: str, direction: str, pairs: Iterable[str]) -> dict[str, Any]:
    """``NAME=VALUE`` texts → options of ``codec``'s ``direction`` (``read`` / ``write``), typed."""
    from ..registry import codec_by_name

    info = codec_by_name(codec)
    declared = info.read_options if direction == "read" else info.write_options
    return parse_pairs(info.name, direction, pairs, declared)


def read_options(
    args: argparse.Namespace, path: str | os.PathLike[str] | None = None, fmt: str | None = None
) -> dict[str, Any]:
    """Codec read options given on the command line (only those given) for the input ``path``.

    The input's codec is looked up only when ``--read-option`` pairs were given (to type them).
    """
    opts = aliases_given(args, READ_ALIASES)
    pairs = getattr(args, "read_pairs", None) or []
    if pairs:
        if not Path(path or "").exists():
            from ..registry import read  # a missing input: the registry's own error first

            read(Path(path or ""), format=fmt)
        opts.update(pairs_for(_codec(path or "", fmt, for_write=False), "read", pairs))
    return opts


def write_options(
    args: argparse.Namespace, path: str | os.PathLike[str] | None = None, fmt: str | None = None
) -> dict[str, Any]:
    """Codec write options given on the command line (only those given) for the output ``path``."""
    opts = aliases_given(args, WRITE_ALIASES)
    pairs = getattr(args, "write_pairs", None) or []
    if pairs:
        opts.update(pairs_for(_codec(path or "", fmt, for_write=True), "write", pairs))
    return opts


def bag_read_options(args: argparse.Namespace, codec: str = "rosbag", *, pairs: bool = True) -> dict[str, Any]:
    """A recording's reader options given on the command line (the bag aliases, then ``--read-option``).

    ``codec`` is the recording's format (one whose codec declares itself a recording).
    """
    opts = {name: getattr(args, name) for name in BAG_OPTIONS}
    given = getattr(args, "read_pairs", None) or []
    if pairs and given:
        opts.update(pairs_for(codec, "read", given))
    return opts


def split_read_pairs(pairs: Iterable[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``batch``: (rosbag options, other formats' options) from ``--read-option`` pairs.

    A name goes to the bags when the rosbag reader declares it, to the other inputs when
    another reader does (each input's codec then takes the options it declares).

    Raises:
        OptionError: No reader declares the name, or no reader takes the value.
    """
    from ..registry import CODECS

    bag: dict[str, Any] = {}
    other: dict[str, Any] = {}
    declared: dict[str, list[tuple[str, Option]]] = {}
    recordings = {info.name for info in CODECS.values() if info.recording}
    for info in CODECS.values():
        for o in info.read_options:
            declared.setdefault(o.name, []).append((info.name, o))
    for pair in pairs:
        name = pair.partition("=")[0].strip().replace("-", "_")
        owners = declared.get(name)
        if not owners:
            raise OptionError("batch", "read", name, sorted(declared), "is not an option of any format")
        errors: list[OptionError] = []
        for codec, _ in owners:
            target = bag if codec in recordings else other
            if name in target:
                continue
            try:
                target.update(parse_pairs(codec, "read", [pair], [o for c, o in owners if c == codec]))
            except OptionError as exc:
                errors.append(exc)
        if name not in bag and name not in other and errors:
            raise errors[0]
    return bag, other


__all__ = [
    "BAG_OPTIONS",
    "MOTION2BAG_ALIASES",
    "READ_ALIASES",
    "WRITE_ALIASES",
    "add_option_flags",
    "aliases_given",
    "bag_read_options",
    "pairs_for",
    "read_options",
    "split_read_pairs",
    "write_options",
]
