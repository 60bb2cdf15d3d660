"""A body motion document (a YAML tree with lines) → the motion model.

The top node gives the format version and the type; each component is parsed by
:class:`.components.ComponentReader`; :meth:`Reader.combine` puts the components on one
time base and names the joints and links (:class:`~motion_formats_ros.core.naming.Names`).
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from ...core import timing
from ...core.errors import number as shown
from ...core.model import CodecRecord, Motion, MotionFile, Series
from ...core.naming import Names, note_unnamed
from ...core.notices import NoticeKind, notify
from ...core.spatial import se3_to_pose
from .components import Component, ComponentReader
from .record import SeqMotionRecord, SeqRecord
from .schema import START_TIME_KEY, TOP_KEYS, camel, kind_of
from .yaml_tree import YMap, YSeq, plain

#: The order in which components are placed on the time base (the first longest wins).
_CHANNEL_ORDER = ("position", "link", "velocity", "effort", "zmp")


class Reader(ComponentReader):
    """Reads one document of the file at ``path``, naming joints and links from ``names``."""

    def __init__(self, path: str | os.PathLike[str], names: Names) -> None:
        super().__init__(path)
        self.names = names

    # ------------------------------------------------------------------ document
    def file(self, doc: Any) -> MotionFile:
        if not isinstance(doc, YMap):
            line = doc.line if isinstance(doc, YSeq) else 1
            raise self.fail(f"expected a body motion mapping at the top level, got {kind_of(doc)}", line)
        version = self.version(doc)
        self.check_type(doc)
        self.frame_rate([doc])  # the top node's, even where every component states its own
        components = doc.get("components")
        comp_line = doc.key_lines.get("components", doc.line)
        if components is None:
            components = YSeq(comp_line)
        if not isinstance(components, YSeq):
            raise self.fail(f"components: expected a list, got {kind_of(components)}", comp_line)

        parsed: list[Component] = []
        unknown: list[tuple[int, dict[str, Any]]] = []
        for i, comp in enumerate(components):
            line = components.item_lines[i]
            if not isinstance(comp, YMap):
                raise self.fail(f"component {i + 1}: expected a mapping, got {kind_of(comp)}", line)
            c = self.component(i, comp, doc)
            if c is None:
                unknown.append((i, plain(comp)))
            else:
                parsed.append(c)
        top_extra = {str(k): plain(v) for k, v in doc.items() if camel(k) not in TOP_KEYS}
        motion = self.combine(parsed, unknown, doc, version)
        records = {SeqRecord.codec: SeqRecord(top_extra)} if top_extra else {}
        start = self.start_time(doc)
        return MotionFile.single(motion, robot=self.names.robot, start_time_ns=start, records=records)

    def start_time(self, doc: YMap) -> int | None:
        """``startTimeNs``: the recording's absolute start (ns since the epoch), if given."""
        if START_TIME_KEY not in doc or doc[START_TIME_KEY] is None:
            return None
        value, line = doc[START_TIME_KEY], doc.key_lines.get(START_TIME_KEY, doc.line)
        # Written quoted: this YAML path (like many) reads every plain number as a float.
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value.strip())
        if isinstance(value, bool) or not isinstance(value, int) or not -(1 << 63) <= value < 1 << 63:
            raise self.fail(
                f"{START_TIME_KEY}: expected an integer in quotes (ns since the epoch), got {shown(value)}", line
            )
        return int(value)

    def version(self, doc: YMap) -> float:
        """The format version (1 when the file does not say)."""
        found = self.lookup([doc], "formatVersion")
        if found is None:
            return 1.0
        value, line = found
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(f"formatVersion: expected a number, got {shown(value)}", line)
        if value >= 5:
            raise self.fail(f"format version {value:g} is not supported (versions 1 to 4 are)", line)
        if value < 1:
            raise self.fail(f"formatVersion: expected 1 to 4, got {value:g}", line)
        return float(value)

    def check_type(self, doc: YMap) -> None:
        """``type: CompositeSeq`` (with ``content: BodyMotion`` when given) or v1's ``type: BodyMotion``."""
        typ = self.text([doc], "type")
        if typ is None:
            raise self.fail("no 'type' key: not a Choreonoid body motion (type: CompositeSeq)", doc.line)
        if typ[0] == "CompositeSeq":
            content = self.text([doc], "content")
            if content is not None and content[0] != "BodyMotion":
                raise self.fail(f"unknown content {content[0]!r} (expected BodyMotion)", content[1])
        elif typ[0] != "BodyMotion":
            raise self.fail(f"unknown type {typ[0]!r} (expected CompositeSeq or BodyMotion)", typ[1])

    # ------------------------------------------------------------------ motion
    def combine(
        self, parsed: list[Component], unknown: list[tuple[int, dict[str, Any]]], top: YMap, version: float
    ) -> Motion:
        """One motion from the components, on the time base of the longest."""
        comps = self.choose(parsed, unknown)
        record = SeqMotionRecord(int(version) if version == int(version) else version)
        if unknown:
            record.components = [u for _, u in sorted(unknown, key=lambda u: u[0])]
        records: dict[str, CodecRecord] = {SeqMotionRecord.codec: record}
        if not comps:
            top_rate = self.frame_rate([top])
            empty_rate = top_rate[0] if top_rate is not None else None
            return Motion(times=np.zeros(0), rate=empty_rate, records=records)
        ref = max(comps, key=lambda c: len(c.times))
        times = ref.times
        resampled = [c for c in comps if c is not ref and not np.array_equal(c.times, times)]
        if resampled:
            what = ", ".join(f"{c.channel} ({len(c.times)} frames)" for c in resampled)
            notify(
                NoticeKind.RESAMPLED,
                f"{what} not on the time base of {ref.channel} ({len(times)} frames): interpolated onto it",
                file=self.path,
                stacklevel=3,
            )
        rate: float | None = ref.uniform_rate
        if ref.has_time:
            record.has_frame_time = True
            if ref.declared_rate is not None:
                record.frame_rate = ref.declared_rate
        fields = self.fields(comps, times, resampled, record)
        try:
            return Motion(times=times, rate=rate, records=records, **fields)
        except ValueError as exc:
            raise self.fail(str(exc), ref.line) from None

    def choose(self, parsed: list[Component], unknown: list[tuple[int, dict[str, Any]]]) -> list[Component]:
        """One component per channel, joint channels of one width, in :data:`_CHANNEL_ORDER`.

        Components left out are appended to ``unknown`` (kept in the motion's record, written back).
        """
        chosen: dict[str, Component] = {}
        for c in parsed:
            if c.channel in chosen:
                notify(
                    NoticeKind.KEPT_UNUSED,
                    f"a second {c.channel} component is kept as an extra",
                    file=self.path,
                    stacklevel=4,
                )
                unknown.append((c.index, plain(c.source)))
                continue
            chosen[c.channel] = c
        joints = [c for c in chosen.values() if c.kind == "joint"]
        if joints:
            ref_joint = chosen.get("position") or joints[0]
            for c in joints:
                if c.values.shape[1] != ref_joint.values.shape[1]:
                    notify(
                        NoticeKind.INCONSISTENT,
                        f"{c.channel} has {c.values.shape[1]} joints, "
                        f"{ref_joint.channel} {ref_joint.values.shape[1]}: kept as an extra",
                        file=self.path,
                        stacklevel=4,
                    )
                    unknown.append((c.index, plain(chosen.pop(c.channel).source)))
        # Zero-frame components beside non-empty ones are kept as they are.
        if any(len(c.times) for c in chosen.values()):
            for ch in [k for k, c in chosen.items() if len(c.times) == 0]:
                c = chosen.pop(ch)
                unknown.append((c.index, plain(c.source)))
        return [chosen[k] for k in _CHANNEL_ORDER if k in chosen]

    def fields(
        self, comps: list[Component], times: np.ndarray, resampled: list[Component], record: SeqMotionRecord
    ) -> dict[str, Any]:
        """The Motion fields of the components, interpolated onto ``times`` where needed."""
        fields: dict[str, Any] = {}
        dof = 0
        for c in comps:
            where = timing.locate(c.times, times) if c in resampled and len(c.times) else None

            def fit(values: np.ndarray, kind: str = "value", where: timing.Location | None = where) -> np.ndarray:
                if where is None:
                    return values
                return timing.interpolate(values, where, kind)

            if c.kind == "joint":
                fields[c.channel] = fit(c.values)
                dof = c.values.shape[1]
            elif c.kind == "link":
                position, quat = se3_to_pose(c.values, c.se3_format)
                position, quat = fit(position), fit(quat, "quaternion")
                if c.values.shape[1] >= 1:
                    fields["root_position"] = position[:, 0]
                    fields["root_orientation"] = quat[:, 0]
                if c.values.shape[1] > 1:
                    fields["links"] = {"position": position[:, 1:], "orientation": quat[:, 1:]}
                    fields["link_names"] = self.link_names(c.values.shape[1])
                record.se3_format = c.se3_format
            else:
                frame = "root" if c.root_relative else "world"
                fields["series"] = {"zmp": Series(fit(c.values), frame=frame, components=("x", "y", "z"))}
            if c.other_keys:
                record.component_keys[c.channel] = c.other_keys
        labels = next((c.labels for c in comps if c.kind == "joint" and c.labels and len(c.labels) == dof), None)
        if any(c.kind == "joint" for c in comps):
            fields["joint_names"] = self.joint_names(dof, labels)
        return fields

    # ------------------------------------------------------------------ names
    def joint_names(self, count: int, labels: list[str] | None) -> tuple[str, ...]:
        names = self.names
        if names.joints is not None:
            given = names.joints
            if names.explicit and len(given) != count:
                raise self.fail(f"{names.source} gives {len(given)} joint names but the file has {count} joints", None)
            if len(given) != count:
                notify(
                    NoticeKind.INCONSISTENT,
                    f"the {names.source} has {len(given)} joints, the motion {count}: "
                    + ("extra joints named joint_N" if len(given) < count else "extra names ignored"),
                    file=self.path,
                    stacklevel=5,
                )
            out = [given[i] if i < len(given) else f"joint_{i}" for i in range(count)]
        elif labels is not None:
            out = labels
        else:
            out = [f"joint_{i}" for i in range(count)]
            note_unnamed(self.path, count, stacklevel=5)
        if len(set(out)) != len(out):
            raise self.fail(f"duplicate joint names from the {names.source or 'file'}", None)
        return tuple(out)

    def link_names(self, parts: int) -> tuple[str, ...]:
        links = self.names.links or []
        return tuple(links[i] if i < len(links) else f"link_{i}" for i in range(1, parts))


def read_document(doc: Any, path: str | os.PathLike[str], names: Names | None = None) -> MotionFile:
    """The motion in a document loaded by :func:`.tree.load_yaml`."""
    return Reader(path, names or Names()).file(doc)


__all__ = ["Reader", "read_document"]
