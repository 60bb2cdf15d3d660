"""Fast path of the Choreonoid ``.seq`` reader: the ``frames:`` blocks, parsed with numpy.

A body motion file is a small tree of mappings around large ``frames:`` blocks with one
flow row per line. :func:`extract` has the core (:func:`motion_formats_ros.core.serial.yaml.extract_rows`)
find and parse those blocks and replace each by a placeholder scalar, so that only a tiny
skeleton is left for the YAML parser. It declines (returns None) whenever anything is
unusual; the caller then parses the whole file with YAML.
"""

from __future__ import annotations

import os
import warnings

from ...core.errors import ReadError
from ...core.model import MotionFile
from ...core.naming import Names
from ...core.notices import collect, relay
from ...core.serial.yaml import Rows, extract_rows
from .schema import DeclineError
from .seq_reader import read_document
from .yaml_tree import load_yaml


def extract(data: bytes | str) -> tuple[str, dict[str, Rows]] | None:
    """The YAML skeleton of ``data`` with every ``frames:`` block parsed, or None to decline."""
    return extract_rows(data, "frames", "mfr-seq-")


def decode_fast(
    data: bytes | str, path: str | os.PathLike[str] = "<text>", *, names: Names | None = None
) -> MotionFile | None:
    """The fast path alone: the file, or None when it declines (unusual or bad input)."""
    extracted = extract(data)
    return None if extracted is None else from_skeleton(extracted, path, names)


def from_skeleton(
    extracted: tuple[str, dict[str, Rows]], path: str | os.PathLike[str], names: Names | None
) -> MotionFile | None:
    """The motion from :func:`extract`'s skeleton and rows, or None when the YAML path must decide."""
    skeleton, rows = extracted
    try:
        with warnings.catch_warnings(record=True) as caught, collect(isolated=True) as report:
            warnings.simplefilter("always")
            doc = load_yaml(skeleton, path, rows)
            result = read_document(doc, path, names)
    except (ReadError, DeclineError):
        return None  # the YAML path decides, with its line numbers (and its notices)
    relay(report.notices)
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result


__all__ = ["decode_fast", "extract", "from_skeleton"]
