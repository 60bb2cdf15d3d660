"""The page's joint panels: the curves with a cursor at the current time, and the joint table.

The curves are sent to the page once per choice of joints; while the motion plays only
the cursor moves: it is a line drawn by a style rule over the chart's plotting area
(``left: P%`` of it, the x axis spanning exactly the motion's time range), and each
update sends that one rule — a few dozen bytes, whatever the motion's length.
The joint table shows each joint's value now against the model's limits, a row marked
while the value is beyond one.
"""

from __future__ import annotations

import html
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import fixed
from ..core.joint_limits import JointLimits
from ..core.kinematics import RobotModel
from ..core.model import JointLimit
from .timeline import Pose, Track

FloatArray = npt.NDArray[np.float64]

#: Joints whose curves are shown at first.
DEFAULT_CURVES = 6
#: The value axis either side of curves that do not move (rad, or m for a prismatic joint).
FLAT_RANGE = 0.1
#: Room above and below the curves on the value axis (a fraction of their range).
CURVE_MARGIN = 0.05
PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324")
CURSOR_COLOR = "#222222"
#: Rows of the joint table beyond a limit.
BEYOND_COLOR = "#ffd6d6"


def breakable(name: str) -> str:
    """A joint name that wraps after its ``_``, ``/``, ``.`` or ``-`` (never inside a word)."""
    return "".join(c + "\u200b" if c in "_/.-" else c for c in name)


def cursor_rule(fraction: float) -> str:
    """The style rule drawing the cursor at ``fraction`` (0..1) of the chart's width."""
    left = min(max(fraction, 0.0), 1.0) * 100
    return (
        "<style>.uplot .u-over::after{content:'';position:absolute;top:0;bottom:0;"
        f"left:{left:.2f}%;border-left:2px solid {CURSOR_COLOR};pointer-events:none}}</style>"
    )


class CurvesPanel:
    """The "Joint curves" folder (a chart and its cursor) and the "Joints shown" checkboxes.

    Args:
        gui: viser's GUI API.
        track, ghost_track: The group drawn and the ghost's (or None).
        ghost_group: The ghost group's name (its curves' labels).
        start, end: The time axis (the timeline's range).
        chosen: The joints shown first.
        lock: Held while the joints shown change.
    """

    def __init__(
        self,
        gui: Any,
        track: Track,
        ghost_track: Track | None,
        ghost_group: str | None,
        start: float,
        end: float,
        chosen: Sequence[str],
        lock: threading.RLock,
    ) -> None:
        self.track = track
        self.ghost_track = ghost_track
        self.ghost_group = ghost_group
        self.start, self.end = start, end if end > start else start + 1e-3
        self.joints = list(chosen)
        self._lock = lock
        self._shown_rule = ""
        with gui.add_folder("Joint curves"):
            data, series = self.lines()
            self.plot = gui.add_uplot(
                data,
                series,
                aspect=1.6,
                legend={"show": True, "live": False},
                cursor={"show": False},
                scales=self.scales(data),
                axes=({"label": "time (s)"}, {"label": "position (rad)"}),
            )
            self.cursor = gui.add_html(cursor_rule(0.0))
        with gui.add_folder("Joints shown", expand_by_default=False):
            for name in track.joint_names:
                box = gui.add_checkbox(breakable(name), name in self.joints, hint=name)
                box.on_update(self._toggle(name, box))

    def _toggle(self, name: str, box: Any) -> Callable[[Any], None]:
        def toggle(_event: Any) -> None:
            with self._lock:
                if box.value and name not in self.joints:
                    self.joints.append(name)
                elif not box.value and name in self.joints:
                    self.joints.remove(name)
                data, series = self.lines()
            self.plot.series = series
            self.plot.data = data
            self.plot.scales = self.scales(data)

        return toggle

    def lines(self) -> tuple[tuple[FloatArray, ...], tuple[dict[str, Any], ...]]:
        """The chart's data (times, then each curve) and series for the joints shown."""
        joints = self.joints
        if joints:
            times, values = self.track.curves(joints)
        else:
            times, values = np.array([self.start, self.end]), np.zeros((2, 0))
        series: list[dict[str, Any]] = [{"label": "time (s)"}]
        series += [{"label": j, "stroke": PALETTE[i % len(PALETTE)], "width": 1.5} for i, j in enumerate(joints)]
        ghost = self.ghost_track
        if ghost is not None and ghost.has_joints:
            # The other group's curves of the same joints, dashed, on this group's time axis.
            ghost_joints = set(ghost.joint_names)
            shared = [(i, j) for i, j in enumerate(joints) if j in ghost_joints]
            if shared:
                values = np.column_stack([values, ghost.sample([j for _, j in shared], times)])
                series += [
                    {
                        "label": f"{j} ({self.ghost_group})",
                        "stroke": PALETTE[i % len(PALETTE)],
                        "width": 1,
                        "dash": (5, 4),
                    }
                    for i, j in shared
                ]
        if len(series) == 1:  # the chart needs one curve: an empty one
            values = np.full((times.size, 1), np.nan)
            series.append({"label": "(no joint chosen)", "stroke": "#999999", "width": 1})
        data = (np.asarray(times, dtype=np.float64), *(values[:, i] for i in range(values.shape[1])))
        return data, tuple(series)

    def scales(self, data: tuple[FloatArray, ...]) -> dict[str, Any]:
        """The chart's axes: x the timeline's range, y the range of the curves drawn (see :func:`value_range`)."""
        values = np.concatenate([np.ravel(d) for d in data[1:]]) if len(data) > 1 else np.zeros(0)
        return {"x": {"time": False, "range": (self.start, self.end)}, "y": {"range": value_range(values)}}

    def set_time(self, t: float) -> None:
        """Move the cursor to motion time ``t`` (sends only when it moves by a visible step)."""
        rule = cursor_rule((t - self.start) / (self.end - self.start))
        if rule != self._shown_rule:
            self._shown_rule = rule
            self.cursor.content = rule


class JointTable:
    """Each joint's current value against the model's limits; a row marked beyond a limit.

    Args:
        gui: viser's GUI API.
        names: The motion's joints (one degree of freedom each).
        model: The robot model (limits), or None.
    """

    def __init__(self, gui: Any, names: Sequence[str], model: Any) -> None:
        self.names = tuple(names)
        limits = JointLimits.of_model(model) if isinstance(model, RobotModel) else JointLimits()
        unstated = JointLimit()
        self.lower = np.array([_or_nan(limits.get(n, unstated).lower) for n in self.names])
        self.upper = np.array([_or_nan(limits.get(n, unstated).upper) for n in self.names])
        self._shown = ""
        self.beyond: tuple[str, ...] = ()
        with gui.add_folder("Joint values", expand_by_default=len(self.names) <= 40):
            self.html = gui.add_html("")

    def update(self, pose: Pose) -> None:
        """Show ``pose``'s values (sends only what changed)."""
        index = {n: i for i, n in enumerate(pose.joint_names)}
        values = np.array([pose.positions[index[n]] if n in index else np.nan for n in self.names])
        with np.errstate(invalid="ignore"):
            over = (values < self.lower - 1e-9) | (values > self.upper + 1e-9)
        self.beyond = tuple(n for n, o in zip(self.names, over, strict=True) if o)
        rows = [
            "<tr>"
            + "".join(f"<th style='text-align:{a};padding:0 4px'>{h}</th>" for h, a in zip(_HEAD, _ALIGN, strict=True))
            + "</tr>"
        ]
        for name, value, lo, hi, o in zip(self.names, values, self.lower, self.upper, over, strict=True):
            style = f" style='background:{BEYOND_COLOR};font-weight:bold'" if o else ""
            cells = (html.escape(breakable(name)) + (" ⚠" if o else ""), _num(value), _num(lo), _num(hi))
            rows.append(
                f"<tr class='{'mfr-beyond' if o else 'mfr-within'}'{style}>"
                + "".join(
                    f"<td style='text-align:{a};padding:0 4px'>{c}</td>" for c, a in zip(cells, _ALIGN, strict=True)
                )
                + "</tr>"
            )
        content = "<table style='width:100%;font-size:0.75rem;border-collapse:collapse'>" + "".join(rows) + "</table>"
        if content != self._shown:
            self._shown = content
            self.html.content = content


_HEAD = ("joint", "now", "lower", "upper")
_ALIGN = ("left", "right", "right", "right")


def _or_nan(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _num(value: float) -> str:
    return "—" if not math.isfinite(value) else fixed(value)


def most_moving(track: Track, names: Sequence[str], count: int = DEFAULT_CURVES) -> list[str]:
    """The ``count`` joints whose position range over every frame is widest (in their order in the motion)."""
    spread = np.nan_to_num(track.spread(list(names)), nan=-1.0)
    order = np.argsort(-spread, kind="stable")[:count]
    return [names[i] for i in sorted(order)]


def value_range(values: FloatArray) -> tuple[float, float]:
    """The chart's value axis for ``values``: their range with a margin; a flat curve gets
    :data:`FLAT_RANGE` either side of its value (not the chart library's 0 to 100)."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        return -FLAT_RANGE, FLAT_RANGE
    lo, hi = float(finite.min()), float(finite.max())
    if hi - lo < 1e-9:
        return lo - FLAT_RANGE, hi + FLAT_RANGE
    margin = CURVE_MARGIN * (hi - lo)
    return lo - margin, hi + margin


__all__ = ["CurvesPanel", "JointTable", "breakable", "cursor_rule", "most_moving", "value_range"]
