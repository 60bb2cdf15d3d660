"""Choreonoid Standard Body Motion (``.seq``, also ``.yaml``): format versions 1 to 4.

A body motion is a YAML mapping (``type: CompositeSeq``, ``content: BodyMotion``; v1:
``type: BodyMotion``) whose ``components`` hold one trajectory each:

- ``MultiValueSeq`` ``JointDisplacement`` (v1 ``JointPosition``, v3
  ``MultiJointDisplacementSeq``): joint values in joint-ID order → ``position``;
  ``JointVelocity`` / ``JointEffort`` → ``velocity`` / ``effort``;
- ``MultiSE3Seq`` ``LinkPosition`` (v3 ``MultiLinkPositionSeq``): part 0 is the root
  pose, further parts are links in link-index order (``SE3Format``, v1 ``format``);
- ``Vector3Seq`` ``ZMP`` (v3 ``ZMPSeq``, v1 ``RelativeZMP``): ``series["zmp"]`` in frame
  ``"root"`` when ``isRootRelative``, else ``"world"``.

Keys are read in both spellings (``frameRate`` / ``frame_rate`` …); components inherit
keys from the top node; ``hasFrameTime`` rows start with their time (kept as the motion's
times). Components the model has no slot for are kept in the motion's
:class:`SeqMotionRecord` (other top-level keys in the file's :class:`SeqRecord`) and written
back. Joint names come from the ``joint_names`` / ``joint_map`` options, else a
Choreonoid ``.body`` file (``body``), else ``joint_0 …``.

Reading takes the fast path (:mod:`.fast`: frame rows parsed with numpy, only the
small skeleton goes to PyYAML) and falls back to a full safe YAML parse whenever anything
is unusual; errors always come from the YAML path, so they carry the same line numbers.
Writing emits Choreonoid's own layout (block nodes, one flow row per frame, ``%.9g``
values or ``repr`` with ``lossless=True``), format version 2 by default or 4.

Modules, one job each: :mod:`.schema` (versions, keys, types, sniffing), :mod:`.yaml_tree`
(the YAML tree with lines), :mod:`.fields` (typed keys), :mod:`.components` (one
component's frames), :mod:`.seq_reader` (document → motion), :mod:`.fast` (the fast path),
:mod:`.seq_writer`. Names come from :mod:`motion_formats_ros.core.naming`.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from ...core.errors import ReadError
from ...core.inputs import read_input
from ...core.model import MotionFile
from ...core.naming import Names, NamingOptions, load_body, load_joint_map, resolve_names
from .fast import decode_fast, extract, from_skeleton
from .record import SeqMotionRecord, SeqRecord
from .schema import DEFAULT_VERSION, KEYS, READ_VERSIONS, WRITE_VERSIONS, DeclineError, sniff
from .seq_reader import read_document
from .seq_writer import WriteOptions, encode, write
from .yaml_tree import load_yaml


@dataclasses.dataclass(frozen=True)
class ReadOptions(NamingOptions):
    """Options of :func:`read`: names for the joints (and links)."""


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read a body motion file.

    Args:
        path: The ``.seq`` / ``.yaml`` file.
        options: The joint names in joint-ID order (a list or ``"a,b,c"``), a joint map
            (a YAML file or data, see :func:`load_joint_map`) or a Choreonoid ``.body``
            file for joint and link names.

    Raises:
        ReadError: The file is not a body motion or is malformed (with its line).
    """
    names = resolve_names(path, options or ReadOptions())
    extracted = extract(read_input(path))  # the text is freed before the motion is built
    if extracted is not None:
        result = from_skeleton(extracted, path, names)
        if result is not None:
            return result
    return decode(read_input(path), path, names=names, fast=False)


def _text(data: bytes | str, path: str | os.PathLike[str]) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReadError(path, "not valid UTF-8 text", offset=exc.start, line=line) from None


def decode(
    data: bytes | str, path: str | os.PathLike[str] = "<text>", *, names: Names | None = None, fast: bool = True
) -> MotionFile:
    """Parse a body motion: the fast path, else (or with ``fast=False``) the YAML path."""
    names = names or Names()
    if fast:
        result = decode_fast(data, path, names=names)
        if result is not None:
            return result
    doc = load_yaml(_text(data, path), path)
    try:
        return read_document(doc, path, names)
    except DeclineError:  # pragma: no cover - YAML trees never decline
        raise ReadError(path, "internal error: unexpected frame layout") from None


__all__ = [
    "DEFAULT_VERSION",
    "KEYS",
    "READ_VERSIONS",
    "WRITE_VERSIONS",
    "Names",
    "ReadOptions",
    "SeqMotionRecord",
    "SeqRecord",
    "WriteOptions",
    "decode",
    "decode_fast",
    "encode",
    "load_body",
    "load_joint_map",
    "load_yaml",
    "read",
    "resolve_names",
    "sniff",
    "write",
]
