"""Codec options given on the command line, shared by every subcommand."""

from __future__ import annotations

import argparse
from typing import Any


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


def read_options(args: argparse.Namespace) -> dict[str, Any]:
    """Codec read options given on the command line (only those given)."""
    names = ("joint_names", "joint_map", "body", "int_bits")
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}


#: What selects and merges a bag's messages (``bag2motion`` and ``batch``): the rosbag reader's options.
BAG_OPTIONS = ("topics", "stamps", "root", "links", "imu", "trajectory", "points", "hold", "distro")


def bag_read_options(args: argparse.Namespace) -> dict[str, Any]:
    """The rosbag reader's options given on the command line."""
    return {name: getattr(args, name) for name in BAG_OPTIONS}


def write_options(args: argparse.Namespace) -> dict[str, Any]:
    """Codec write options given on the command line (only those given)."""
    opts: dict[str, Any] = {}
    if getattr(args, "seq_version", None) is not None:
        opts["version"] = args.seq_version
    if getattr(args, "lossless", False):
        opts["lossless"] = True
    if getattr(args, "se3_format", None) is not None:
        opts["se3_format"] = args.se3_format
    return opts


__all__ = ["read_options", "write_options"]
