"""The safety check's findings on the viewer's page: timeline marks, links in a warning colour, CoM/ZMP.

The robot is the project's example biped with shins down to the ankle; its walk is sunk
into the ground for a while (floor findings naming leg links) and bends a knee into its
foot (self-collisions: the example's own shins stop short of the foot).
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pytest
from support.browser import NO_CHROMIUM, Chromium, chromium_binary, free_port

from motion_formats_ros import Motion, MotionFile, view, write
from motion_formats_ros.core.examples import biped_urdf, biped_walk

pytest.importorskip("viser", reason="needs the view extra (viser)")
pytest.importorskip("coal", reason="needs the check extra (coal)")

from motion_formats_ros.view.findings_overlay import WARNING_COLOR
from motion_formats_ros.view.viser_adapter import slider_marks


@pytest.fixture(scope="module")
def robot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("findings") / "biped.urdf"
    shin = '<origin xyz="0 0 -0.05"/><geometry><box size="0.03 0.03 0.1"/>'
    assert shin in biped_urdf()
    path.write_text(biped_urdf().replace(shin, '<origin xyz="0 0 -0.06"/><geometry><box size="0.03 0.03 0.12"/>'))
    return path


def sunk() -> Motion:
    walk = biped_walk().motion
    assert walk.root_position is not None
    root = walk.root_position.copy()
    root[:, 2] += 0.09  # the feet just above the ground …
    root[120:180, 2] -= 0.19  # … but 10 cm below it from 1.2 s to 1.8 s
    return Motion(
        times=walk.times,
        joint_names=walk.joint_names,
        position=walk.position,
        root_position=root,
        root_orientation=walk.root_orientation,
    )


def test_findings_mark_the_timeline_and_paint_the_links_while_they_hold(robot: Path) -> None:
    v = view(sunk(), urdf=robot, port=free_port(), paused=True, at=0.0, announce=False)
    try:
        assert v.findings is not None and v.findings.ready.wait(120), "the check did not finish"
        report = v.findings.report
        assert report is not None, v.findings.error
        collisions = report.of_kind("self_collision")
        assert collisions and report.of_kind("floor")
        # Every finding's intervals start at a mark on the time slider.
        marked = {round(value, 3) for value, _ in slider_marks(v._slider)}
        assert all(round(a, 3) in marked for f in report.findings for a, _ in f.intervals)
        assert any(label == "collision" for _, label in slider_marks(v._slider))
        robot_drawing = v.posed.robot
        assert robot_drawing is not None
        finding = collisions[0]
        (start, end), link = finding.intervals[0], finding.links[0]
        held = [f for f in report.of_kind("self_collision", "floor") if link in f.links]

        def holds(t: float) -> bool:
            return any(a - 1e-9 <= t <= b + 1e-9 for f in held for a, b in f.intervals)

        outside = next(t for t in np.linspace(v.clock.start, v.clock.end, 200) if not holds(float(t)))
        for t, red in (((start + end) / 2, True), (float(outside), False)):
            v.seek(t)
            v._draw(t)
            colors = {tuple(shape.color) for shape, _own in robot_drawing.visuals[link]}
            assert colors == ({WARNING_COLOR} if red else {own for _s, own in robot_drawing.visuals[link]}), (t, colors)
        # The centre of mass and the ZMP stand on the ground where the check's series puts them.
        series = report.series
        assert series is not None and v.findings._com is not None
        i = int(np.flatnonzero(np.isfinite(series.zmp).all(axis=1))[0])
        v.seek(float(series.time[i]))
        v._draw(float(series.time[i]))
        np.testing.assert_allclose(v.findings._com.position[:2], series.com[i, :2], atol=1e-6)
        np.testing.assert_allclose(v.findings._zmp.position[:2], series.zmp[i], atol=1e-6)
    finally:
        v.stop()


def test_without_collision_geometry_the_page_says_what_was_not_checked(tmp_path: Path) -> None:
    urdf = tmp_path / "biped.urdf"
    urdf.write_text(biped_urdf())
    v = view(biped_walk(), urdf=urdf, port=free_port(), paused=True, announce=False)
    try:
        assert v.findings is not None and v.findings.ready.wait(120)
        assert v.findings.report is not None and not v.findings.report.of_kind("self_collision", "floor")
    finally:
        v.stop()
    v = view(biped_walk(), urdf=urdf, port=free_port(), paused=True, announce=False, check=False)
    try:
        assert v.findings is None
    finally:
        v.stop()


@pytest.mark.slow
def test_the_page_shows_the_findings(robot: Path, tmp_path: Path) -> None:
    """Headless Chromium: the colliding links are drawn red at a time a finding holds, not before it."""
    if chromium_binary() is None:
        pytest.skip(NO_CHROMIUM)
    image = pytest.importorskip("PIL.Image")
    motion = tmp_path / "sunk.omf.msgpack"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(MotionFile.single(sunk()), motion)
    browser = Chromium(960, 600)
    viewers = []
    try:
        shots = {}
        # Before the sinking, between two steps (no knee in a foot), and inside it (the legs below
        # the ground, a knee in a foot).
        for at in (0.8, 1.53):
            v = view(motion, urdf=robot, port=free_port(), paused=True, at=at, announce=False)
            viewers.append(v)
            assert v.findings is not None and v.findings.ready.wait(120)
            browser.navigate(v.url)
            browser.wait_for("document.body && document.body.innerText.includes('error(s)')", timeout=60)
            browser.evaluate("document.querySelectorAll('.mantine-Notifications-root').forEach(e => e.remove()); true")
            browser.wait_for("document.body.innerText.includes('self-collision between')")
            last = None
            for _ in range(30):  # settled: two screenshots alike
                png = browser.screenshot()
                if png == last:
                    break
                last = png
            shots[at] = np.asarray(image.open(io.BytesIO(png)).convert("RGB"))[:, :600].astype(int)
        red = {at: int(((s[..., 0] > 180) & (s[..., 1] < 140) & (s[..., 2] < 140)).sum()) for at, s in shots.items()}
        assert red[1.53] > 800, red  # the camera frames the whole motion: the robot is drawn smaller than in one pose
        assert red[1.53] > 3 * red[0.8], red
    finally:
        browser.close()
        for v in viewers:
            v.stop()
