"""One component of a body motion: its kind, rate, layout, and frames as arrays.

A component's frames come either from the fast path (:class:`Rows`, already numbers;
anything that does not fit raises :class:`DeclineError` so that the YAML path decides)
or from the YAML tree (:class:`YSeq`, checked row by row with the row's line).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...core.errors import number as shown
from ...core.notices import NoticeKind, notify
from ...core.serial.yaml import Rows
from ...core.spatial import DEFAULT_SE3_FORMAT, SE3_FORMATS
from ...core.timing import rate_beyond
from .fields import Fields
from .schema import (
    COMPONENT_KEYS,
    JOINT_CONTENTS,
    LINK_CONTENTS,
    MAX_PARTS,
    TYPES,
    ZMP_CONTENTS,
    DeclineError,
    camel,
    kind_of,
)
from .yaml_tree import YMap, YSeq, plain


class Component:
    """One parsed component: its kind, times and values."""

    def __init__(self, index: int, kind: str, channel: str, times: np.ndarray, values: np.ndarray, line: int) -> None:
        self.index = index
        self.kind = kind  # "joint", "link" or "zmp"
        self.channel = channel
        self.times = times
        self.values = values
        self.line = line
        self.uniform_rate: float | None = None
        self.declared_rate: float | None = None
        self.has_time = False
        self.se3_format = DEFAULT_SE3_FORMAT
        self.root_relative = False
        self.labels: list[str] | None = None
        self.other_keys: dict[str, Any] = {}
        self.source: YMap = YMap()


class ComponentReader(Fields):
    """Parses the components of one file."""

    def frame_rate(self, maps: Sequence[YMap]) -> tuple[float, int | None] | None:
        """``frameRate`` (and its line) of the first of ``maps`` that has it: positive, finite and
        at most :data:`~motion_formats_ros.core.timing.MAX_RATE`."""
        rate = self.number(maps, "frameRate")
        if rate is not None and not (rate[0] > 0 and math.isfinite(rate[0])):
            raise self.fail(f"frameRate must be positive and finite, got {rate[0]:g}", rate[1])
        if rate is not None and (beyond := rate_beyond(rate[0])):
            raise self.fail(f"frameRate {beyond}", rate[1])
        return rate

    def component(self, index: int, comp: YMap, top: YMap) -> Component | None:
        """The component ``comp`` (keys it lacks come from ``top``), or None when the model has no slot for it."""
        maps = [comp, top]
        classified = self.classify(index, comp)
        if classified is None:
            return None
        kind, channel, name, typ = classified
        has_time = self.flag(maps, "hasFrameTime")
        rate = self.frame_rate(maps)
        if rate is None and not has_time:
            raise self.fail(f"component {index + 1} ({name}): no frameRate (here or in the top node)", comp.line)
        fmt = self.se3_format(maps) if kind == "link" else DEFAULT_SE3_FORMAT
        parts = self.integer([comp], "numParts") if kind != "zmp" else None
        frames = self.frames(comp)
        offset = 1 if has_time else 0
        layout = self.layout(kind, fmt, parts, top, frames, offset)
        values, times = self.rows(frames, layout, offset, name or typ)
        n = values.shape[0]
        c = Component(index, kind, channel, times if has_time else np.zeros(0), values, comp.line or 1)
        c.source = comp
        c.has_time = has_time
        c.se3_format = fmt
        if rate is not None:
            c.declared_rate = rate[0]
        if not has_time:
            assert rate is not None
            c.uniform_rate = rate[0]
            c.times = np.arange(n, dtype=np.float64) / rate[0]
        else:
            self.check_times(c.times, frames, name)
        declared = self.integer(maps, "numFrames")
        if declared is not None and declared[0] != n:
            notify(
                NoticeKind.INCONSISTENT,
                f"component {index + 1} ({name}) says numFrames {declared[0]} but lists {n} frames (using {n})",
                file=self.path,
                line=declared[1],
                stacklevel=2,
            )
        c.root_relative = name == "RelativeZMP" or self.flag([comp], "isRootRelative")
        labels = self.lookup([comp], "partLabels")
        if labels is not None and isinstance(labels[0], list) and all(isinstance(s, str) for s in labels[0]):
            c.labels = [str(s) for s in labels[0]]
        c.other_keys = {str(k): plain(v) for k, v in comp.items() if camel(k) not in COMPONENT_KEYS}
        return c

    def classify(self, index: int, comp: YMap) -> tuple[str, str, str, str] | None:
        """(kind, channel, content, type) of a component, or None when the model has no slot for it."""
        typ = self.text([comp], "type")
        if typ is None:
            raise self.fail(f"component {index + 1}: no 'type' key", comp.line)
        if typ[0] not in TYPES:
            raise self.fail(f"component {index + 1}: unknown type {typ[0]!r} (known: {', '.join(TYPES)})", typ[1])
        content = self.text([comp], "content") or self.text([comp], "purpose")
        name = content[0] if content is not None else ""
        if typ[0] == "MultiValueSeq" and name in JOINT_CONTENTS:
            return "joint", JOINT_CONTENTS[name], name, typ[0]
        if typ[0] == "MultiSE3Seq" and name in LINK_CONTENTS:
            return "link", "link", name, typ[0]
        if typ[0] == "Vector3Seq" and name in ZMP_CONTENTS:
            return "zmp", "zmp", name, typ[0]
        return None

    def se3_format(self, maps: list[YMap]) -> str:
        """The pose layout of a link component (``SE3Format``, v1 ``format``)."""
        found = self.text(maps, "SE3Format") or self.text(maps, "format")
        if found is None:
            return DEFAULT_SE3_FORMAT
        if found[0] not in SE3_FORMATS:
            raise self.fail(f"unknown SE3Format {found[0]!r} (known: {', '.join(SE3_FORMATS)})", found[1])
        return found[0]

    def layout(
        self,
        kind: str,
        fmt: str,
        parts_found: tuple[int, int | None] | None,
        top: YMap,
        frames: YSeq | Rows,
        offset: int,
    ) -> tuple[int, int | None]:
        """(parts, values per part or None for one number per part) of a component's rows.

        ``parts_found`` is the component's own numParts (with its line); else the top
        node's, else the first row's.
        """
        if kind == "zmp":
            return 3, None
        if parts_found is None:
            parts_found = self.integer([top], "numParts")
        if parts_found is None:
            parts_found = (self.guess_parts(frames, offset), None)
        if parts_found[0] > MAX_PARTS:
            raise self.fail(f"numParts {parts_found[0]} is more than this reader allows ({MAX_PARTS})", parts_found[1])
        return (parts_found[0], None) if kind == "joint" else (parts_found[0], SE3_FORMATS[fmt])

    # ------------------------------------------------------------------ frames
    def frames(self, comp: YMap) -> YSeq | Rows:
        if "frames" not in comp:
            raise self.fail("component has no 'frames' key", comp.line)
        frames = comp["frames"]
        line = comp.key_lines.get("frames", comp.line)
        if frames is None:
            return YSeq(line)
        if not isinstance(frames, (YSeq, Rows)):
            raise self.fail(f"frames: expected a list of frames, got {kind_of(frames)}", line)
        if isinstance(frames, YSeq):
            for i, row in enumerate(frames):
                self.check_numbers(row, frames.item_lines[i], i)
        return frames

    def check_numbers(self, row: Any, line: int, index: int, depth: int = 0) -> None:
        """Every scalar in a frame row is a number (bounded by the alias check)."""
        if isinstance(row, list):
            if depth > 2:
                raise self.fail(f"frame {index}: nested too deeply", line)
            for v in row:
                self.check_numbers(v, line, index, depth + 1)
        elif type(row) is not float:
            raise self.fail(f"frame {index}: expected a number, got {kind_of(row)} {shown(row)}", line)

    def guess_parts(self, frames: YSeq | Rows, offset: int) -> int:
        """numParts from the first row when the file does not say."""
        if isinstance(frames, Rows):
            inner = frames.layout[1:-1]
            if "[" in inner:
                return inner.count("[")
            return max(inner.count(",") + 1 - offset, 0)
        if not frames:
            return 0
        first = frames[0]
        return max(len(first) - offset, 0) if isinstance(first, list) else 0

    def rows(
        self, frames: YSeq | Rows, layout: tuple[int, int | None], offset: int, what: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """(values (N, parts) or (N, parts, width), times (N,)) of a component's frames."""
        if isinstance(frames, Rows):
            return self.parsed_rows(frames, layout, offset)
        return self.yaml_rows(frames, layout, offset, what)

    def parsed_rows(self, frames: Rows, layout: tuple[int, int | None], offset: int) -> tuple[np.ndarray, np.ndarray]:
        """The fast path's rows, when their layout is the one the component needs."""
        parts, width = layout
        if width is None:
            expected = "[" + "," * (parts + offset - 1) + "]"
        else:
            group = "[" + "," * (width - 1) + "]"
            expected = "[" + ("," if offset else "") + ",".join([group] * parts) + "]"
        if frames.layout != expected or parts == 0:
            raise DeclineError
        v = frames.values
        times = v[:, 0].copy() if offset else np.zeros(0)
        data = v[:, offset:]
        values = data.reshape(len(frames), parts, width) if width else np.ascontiguousarray(data)
        return values, times

    def yaml_rows(
        self, frames: YSeq, layout: tuple[int, int | None], offset: int, what: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """The YAML tree's rows, each checked against the layout (errors with the row's line)."""
        parts, width = layout
        n = len(frames)
        shape = (n, parts, width) if width else (n, parts)
        if n:
            self.check_row(frames, 0, layout, offset, what)  # before allocating: numParts alone is not backed by data
        values = np.empty(shape, dtype=np.float64)
        times = np.empty(n if offset else 0, dtype=np.float64)
        for i, row in enumerate(frames):
            line = frames.item_lines[i]
            self.check_row(frames, i, layout, offset, what)
            if offset:
                if isinstance(row[0], list):
                    raise self.fail(f"{what} frame {i}: expected the frame time first, got a list", line)
                times[i] = row[0]
            if width:
                for j in range(parts):
                    g = row[offset + j]
                    if not isinstance(g, list) or len(g) != width:
                        got = f"{len(g)} values" if isinstance(g, list) else kind_of(g)
                        raise self.fail(
                            f"{what} frame {i} part {j}: expected a list of {width} values, got {got}", line
                        )
                    if any(isinstance(v, list) for v in g):
                        raise self.fail(f"{what} frame {i} part {j}: expected numbers, got a nested list", line)
                    values[i, j] = g
            else:
                items = row[offset:]
                if any(isinstance(v, list) for v in items):
                    raise self.fail(f"{what} frame {i}: expected numbers, got a nested list", line)
                values[i] = items
        return values, times

    def check_row(self, frames: YSeq, i: int, layout: tuple[int, int | None], offset: int, what: str) -> None:
        """Row ``i`` is a list of the frame time (with ``offset``) and ``parts`` elements."""
        parts, width = layout
        need = parts + offset
        row = frames[i]
        line = frames.item_lines[i]
        if not isinstance(row, list):
            raise self.fail(f"{what} frame {i}: expected a list, got {kind_of(row)}", line)
        if len(row) != need:
            extra = " (the frame time and" if offset else " ("
            unit = "parts" if width else "values"
            raise self.fail(
                f"{what} frame {i} has {len(row)} elements, expected {need}{extra} numParts {parts} {unit})", line
            )

    def check_times(self, times: np.ndarray, frames: YSeq | Rows, what: str) -> None:
        if times.size < 2 and np.all(np.isfinite(times)):
            return
        bad = np.flatnonzero(~np.isfinite(times))
        if bad.size:
            i = int(bad[0])
            raise self.fail(f"{what} frame {i}: frame time {times[i]!r} is not finite", self.row_line(frames, i))
        bad = np.flatnonzero(np.diff(times) <= 0)
        if bad.size:
            i = int(bad[0]) + 1
            raise self.fail(
                f"{what} frame {i}: frame time {times[i]!r} does not increase (previous {times[i - 1]!r})",
                self.row_line(frames, i),
            )

    def row_line(self, frames: YSeq | Rows, i: int) -> int | None:
        if isinstance(frames, Rows):
            return frames.line + i
        return frames.item_lines[i] if i < len(frames.item_lines) else frames.line


__all__ = ["Component", "ComponentReader"]
