"""The safety check's findings on the page: timeline marks, links in a warning colour, CoM and ZMP.

The check (:func:`motion_formats_ros.safety.check`) runs in a thread of its own once the
page is served, so the page appears as fast as without it. When it is done the page
gets: a mark on the time slider at the start of each interval a finding holds (its kind
as the label), a "Check" folder listing the findings, the links of a self-collision or
floor finding drawn in a warning colour while the finding holds, and, where balance was
checked, the centre of mass projected on the ground, the ZMP and the support polygon at
the current time.
"""

from __future__ import annotations

import contextlib
import html
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionFormatError
from . import viser_adapter

FloatArray = npt.NDArray[np.float64]

WARNING_COLOR = (230, 30, 30)
COM_COLOR = (20, 150, 60)
ZMP_COLOR = (230, 120, 0)
SUPPORT_COLOR = (90, 90, 90)
#: Short labels of the kinds on the timeline.
LABELS = {
    "self_collision": "collision",
    "floor": "floor",
    "balance": "balance",
    "position_limit": "limit",
    "velocity_limit": "speed",
    "acceleration_limit": "accel.",
    "jerk_limit": "jerk",
    "effort_limit": "effort",
    "fall": "fall",
}
#: Updates of the CoM, ZMP and support polygon per second while playing.
BALANCE_RATE = 10.0
#: Findings listed on the page (the rest are counted).
LISTED = 20


class FindingsView:
    """Runs the check for a viewer and draws what it found.

    Args:
        viewer: The :class:`~.page.Viewer` (its server, lock, robot drawing, slider).
        run: Makes the report (the check on the viewer's motion and model).
    """

    def __init__(self, viewer: Any, run: Callable[[], Any]) -> None:
        self.viewer = viewer
        self._run = run
        self.report: Any = None
        self.error: str | None = None
        self.ready = threading.Event()
        self._held: dict[str, list[tuple[float, float]]] = {}  # link -> intervals of its findings
        self._red: set[str] = set()
        self._com: Any = None
        self._zmp: Any = None
        self._support: Any = None
        self._support_shown: FloatArray | None = None
        self._balance_at = float("nan")
        self._balance_sent = -float("inf")
        self._thread = threading.Thread(target=self._work, name="motion-view-check", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _work(self) -> None:
        try:
            report = self._run()
        except MotionFormatError as exc:  # a missing collision library or mesh: said on the page
            self.error = str(exc)
            report = None
        except Exception as exc:  # the page stays usable whatever the check meets
            self.error = f"the check failed: {exc}"
            report = None
        viewer = self.viewer
        if viewer._stop.is_set():
            self.ready.set()
            return
        with contextlib.suppress(Exception), viewer._lock:
            self.report = report
            self._show(report)
        self.ready.set()
        viewer._dirty.set()

    def _show(self, report: Any) -> None:
        gui = self.viewer.server.gui
        with gui.add_folder("Check"):
            if report is None:
                gui.add_markdown(f"Not checked: {html.escape(self.error or '')}")
                return
            gui.add_html(_summary(report))
        for finding in report.findings:
            if finding.kind in ("self_collision", "floor", "fall"):
                for link in finding.links:
                    self._held.setdefault(link, []).extend(finding.intervals)
        self._mark(report)
        if report.series is not None:
            scene = self.viewer.server.scene
            self._com = scene.add_icosphere("/check/com", radius=0.012, color=COM_COLOR, position=(0.0, 0.0, -1.0))
            self._zmp = scene.add_icosphere("/check/zmp", radius=0.012, color=ZMP_COLOR, position=(0.0, 0.0, -1.0))

    def _mark(self, report: Any) -> None:
        """The findings' intervals as marks on the time slider, beside the motion's own marks."""
        marks: list[tuple[float, str | None]] = [(float(t), name) for t, name in self.viewer.marks]
        seen: set[float] = set()
        labelled: set[str] = set()  # each kind's label once: marks close together would overlap
        for finding in report.findings:
            label = LABELS.get(finding.kind, finding.kind)
            for start, _end in finding.intervals:
                if round(start, 3) not in seen:
                    seen.add(round(start, 3))
                    marks.append((float(start), None if label in labelled else label))
                    labelled.add(label)
        self.marks = sorted((value, label or "") for value, label in marks)
        viser_adapter.set_slider_marks(self.viewer._slider, marks)

    def draw(self, t: float) -> None:
        """The links in a warning colour while their findings hold; CoM, ZMP, support polygon at ``t``."""
        if self.report is None:
            return
        robot = self.viewer.posed.robot
        red = {link for link, spans in self._held.items() if any(a - 1e-9 <= t <= b + 1e-9 for a, b in spans)}
        if robot is not None and red != self._red:
            for link in red ^ self._red:
                robot.paint(link, WARNING_COLOR if link in red else None)
            self._red = red
        series = self.report.series
        if series is None or self._com is None or series.time.size == 0:
            return
        now = time.monotonic()
        if t == self._balance_at or (self.viewer.clock.playing and now - self._balance_sent < 1.0 / BALANCE_RATE):
            return  # while playing, the CoM, ZMP and support polygon move at the readout's rate
        self._balance_at, self._balance_sent = t, now
        i = int(np.clip(np.searchsorted(series.time, t, side="right") - 1, 0, series.time.size - 1))
        com, zmp = series.com[i], series.zmp[i]
        if np.isfinite(com).all():
            self._com.position = (float(com[0]), float(com[1]), 0.002)
        self._com.visible = bool(np.isfinite(com).all())
        if np.isfinite(zmp).all():
            self._zmp.position = (float(zmp[0]), float(zmp[1]), 0.002)
        self._zmp.visible = bool(np.isfinite(zmp).all())
        polygon = series.support[i] if i < len(series.support) else np.zeros((0, 2))
        if self._support_shown is None or not np.array_equal(polygon, self._support_shown):
            self._support_shown = polygon
            self._draw_support(polygon)

    def _draw_support(self, polygon: FloatArray) -> None:
        scene = self.viewer.server.scene
        if len(polygon) < 2:
            if self._support is not None:
                self._support.visible = False
            return
        ring = np.column_stack([polygon, np.full(len(polygon), 0.001)])
        segments = np.stack([ring, np.roll(ring, -1, axis=0)], axis=1).astype(np.float32)
        if self._support is None:
            self._support = scene.add_line_segments("/check/support", segments, colors=SUPPORT_COLOR, thickness=2.0)
        else:
            self._support.points = segments
            self._support.colors = np.broadcast_to(np.asarray(SUPPORT_COLOR, np.uint8), segments.shape).copy()
            self._support.visible = True


def _summary(report: Any) -> str:
    """The findings as an HTML list (errors first), and what was checked."""
    if not report.findings:
        return f"<p>No finding ({html.escape(', '.join(report.checked))} checked).</p>"
    items = [
        f"<li style='color:{'#b00000' if f.level == 'error' else '#8a5a00'}'>{html.escape(f.message())}</li>"
        for f in report.findings[:LISTED]
    ]
    more = len(report.findings) - LISTED
    tail = f"<li>… and {more} more</li>" if more > 0 else ""
    head = f"{len(report.errors)} error(s), {len(report.warnings)} warning(s)"
    return f"<p><b>{head}</b></p><ul style='padding-left:1.1em;margin:0'>{''.join(items)}{tail}</ul>"


__all__ = ["WARNING_COLOR", "FindingsView"]
