"""`motion-formats view` in a real browser: the robot is drawn, it moves, the play button plays.

Each case starts the command twice (two ``--at`` times, paused) and opens both pages in
headless Chromium (WebGL in software). Pixels are compared in the 3D view only (left
of the control panel): with the robot shown and hidden (the page's "show robot" box),
and between the two times. The play button must advance the time the page shows.
Set MFR_VIEW_SCREENSHOTS=DIR to keep the screenshots taken at the first time.
"""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path
from support.browser import NO_CHROMIUM, Chromium, chromium_binary, free_port

from motion_formats_ros import read

pytest.importorskip("viser", reason="needs the view extra (viser)")
pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")
Image = pytest.importorskip("PIL.Image", reason="needs Pillow to compare screenshots")

pytestmark = pytest.mark.slow  # a browser rendering WebGL in software: seconds per screenshot

WIDTH, HEIGHT = 960, 600
#: The control panel floats on the right; the 3D view is compared left of it.
VIEW_WIDTH = 600
#: Pixels that must differ (of 360k) for "drawn" and "moved".
MIN_CHANGED = 300
#: Seconds after which a wait counts as hung. Not a budget: each wait ends at its event.
HUNG = 300.0

COMMAND = [str(Path(sys.executable).parent / "motion-formats"), "view"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Chromium]:
    if chromium_binary() is None:
        pytest.skip(NO_CHROMIUM)
    b = Chromium(WIDTH, HEIGHT, timeout=HUNG)
    try:
        yield b
    finally:
        b.close()


class Page:
    """One `view` process serving its page."""

    def __init__(self, args: list[str]) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [*COMMAND, *args, "--no-browser", "--paused", "--port", str(self.port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "viewing" not in line:
            self.proc.kill()
            raise AssertionError(f"view did not start: {line}{self.proc.communicate()[1]}")
        self.url = re.search(r"http://\S+", line).group(0)  # type: ignore[union-attr]
        assert self.url == f"http://127.0.0.1:{self.port}"

    def stop(self) -> tuple[int, str]:
        """Ctrl-C: exit status 0 and no traceback."""
        self.proc.send_signal(signal.SIGINT)
        _, err = self.proc.communicate(timeout=20)
        return self.proc.returncode, err


def open_page(browser: Chromium, url: str) -> None:
    browser.navigate("about:blank")  # the page open before is gone: its text is not taken for this one's
    browser.wait_for("location.href === 'about:blank' && !document.body.innerText.includes('t = ')")
    browser.navigate(url)
    browser.wait_for("document.body && document.body.innerText.includes('t = ')", timeout=HUNG)
    # viser's note that WebGL runs in software covers part of the view.
    browser.evaluate("document.querySelectorAll('.mantine-Notifications-root').forEach(e => e.remove()); true")


def settled(browser: Chromium, timeout: float = 15.0) -> np.ndarray:
    """A screenshot once two in a row are the same (the scene has arrived and is drawn)."""
    last = None
    deadline = time.monotonic() + timeout
    while True:
        png = browser.screenshot()
        if png == last or time.monotonic() > deadline:
            break
        last = png
        time.sleep(0.4)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def changed(a: np.ndarray, b: np.ndarray) -> int:
    """Pixels of the 3D view that differ clearly between two screenshots."""
    da = np.abs(a[:, :VIEW_WIDTH].astype(int) - b[:, :VIEW_WIDTH].astype(int)).max(axis=2)
    return int((da > 24).sum())


def click_label(browser: Chromium, text: str) -> None:
    """Click the input a GUI label names (checkboxes)."""
    ok = browser.evaluate(
        f"""(() => {{
            const label = [...document.querySelectorAll('label')].find(l => l.innerText.trim() === {text!r});
            const input = label && document.getElementById(label.htmlFor);
            if (!input) return false;
            input.click();
            return true;
        }})()"""
    )
    assert ok, f"no {text!r} on the page"


def click_button(browser: Chromium, text: str) -> None:
    ok = browser.evaluate(
        f"""(() => {{
            const b = [...document.querySelectorAll('button')].find(b => b.innerText.trim() === {text!r});
            if (!b) return false;
            b.click();
            return true;
        }})()"""
    )
    assert ok, f"no {text!r} button on the page"


def click_frame_control(browser: Chromium, direction: str, times: int = 1) -> None:
    """Click the frame field's ▲ (``up``) or ▼ (``down``) ``times`` times, as fast as a mouse can
    (each a real press and release at its place, none waiting for the page)."""
    box = browser.evaluate(
        f"""(() => {{
            const label = [...document.querySelectorAll('label')].find(l => l.innerText.trim() === 'frame');
            const input = label && document.getElementById(label.htmlFor);
            const root = input && input.closest('.mantine-NumberInput-root');
            const control = root && root.querySelector('[data-direction="{direction}"]');
            if (!control) return null;
            const r = control.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2];
        }})()"""
    )
    assert box, "no frame field with its controls on the page"
    x, y = box
    for _ in range(times):
        for kind in ("mousePressed", "mouseReleased"):
            browser.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def shown_frame(browser: Chromium) -> int:
    found = re.search(r"frame (\d+) /", browser.text())
    assert found, browser.text()[:300]
    return int(found.group(1))


def settled_frame(browser: Chromium, quiet: float = 2.0) -> int:
    """The frame the page shows once it has not changed for ``quiet`` seconds.

    The page applies what the server sends in its drawing frames, which headless Chromium
    draws when asked: each look takes a screenshot (as a screen shows every frame).
    """
    frame, since = shown_frame(browser), time.monotonic()
    deadline = since + HUNG
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        browser.screenshot()
        now = shown_frame(browser)
        if now != frame:
            frame, since = now, time.monotonic()
    return frame


def shown_time(browser: Chromium) -> float:
    found = re.search(r"t = ([0-9.]+) s", browser.text())
    assert found, browser.text()[:300]
    return float(found.group(1))


def check_view(browser: Chromium, args: list[str], t1: float, t2: float, name: str) -> None:
    first, second = Page([*args, "--at", str(t1)]), Page([*args, "--at", str(t2)])
    try:
        open_page(browser, first.url)
        assert shown_time(browser) == pytest.approx(t1, abs=1e-3)
        robot = settled(browser)
        keep = os.environ.get("MFR_VIEW_SCREENSHOTS")
        if keep:
            Image.fromarray(robot).save(Path(keep) / f"{name}.png")
        click_label(browser, "show robot")
        hidden = settled(browser)
        drawn = changed(robot, hidden)
        assert drawn > MIN_CHANGED, f"the robot covers only {drawn} pixels"

        open_page(browser, second.url)
        later = settled(browser)
        moved = changed(robot, later)
        assert moved > MIN_CHANGED, f"only {moved} pixels changed between {t1} s and {t2} s"

        click_button(browser, "Play")
        browser.wait_for(
            "[...document.querySelectorAll('button')].some(b => b.innerText.trim() === 'Pause')", timeout=HUNG
        )
        deadline = time.monotonic() + HUNG
        while shown_time(browser) < t2 + 0.2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert shown_time(browser) >= t2 + 0.2, "play did not advance the time"
    finally:
        results = [first.stop(), second.stop()]
    for code, err in results:
        assert code == 0 and "Traceback" not in err, err


def test_nao_stands_up(browser: Chromium) -> None:
    mof = corpus_path("mof", "bhuman2009", "standUpBackNao.mof")
    urdf = corpus_path("urdf", "nao.urdf")
    check_view(browser, [str(mof), "--urdf", str(urdf)], 3.0, 6.0, "view_nao_standup")


def test_sr1_walks_on_its_root_path(browser: Chromium) -> None:
    motion = corpus_path("choreonoid", "v1", "SR1WalkPattern2.yaml")
    body = corpus_path("choreonoid", "model", "SR1.body")
    check_view(browser, [str(motion), "--body", str(body)], 4.0, 9.0, "view_sr1_walk")


def test_sr1_simulated_falls_beside_its_ghost(browser: Chromium) -> None:
    """view --simulate: the simulated SR1 (played too fast, it falls), the plan as a ghost, the fall marked."""
    pytest.importorskip("mujoco")
    motion = corpus_path("choreonoid", "v1", "SR1WalkPattern2.yaml")
    body = corpus_path("choreonoid", "model", "SR1.body")
    args = [str(motion), "--body", str(body), "--simulate", "--kp", "8000", "--kd", "100", "--sim-speed", "1.5"]
    page = Page([*args, "--at", "9.0"])
    try:
        assert page.proc.stdout is not None
        said = page.proc.stdout.readline()
        assert said.startswith("simulated:") and "FELL at t = 8.22 s" in said, said
        open_page(browser, page.url)
        browser.wait_for("document.body.innerText.includes('fall')", timeout=HUNG)  # the mark on the timeline
        fallen = settled(browser)
        keep = os.environ.get("MFR_VIEW_SCREENSHOTS")
        if keep:
            Image.fromarray(fallen).save(Path(keep) / "view_sr1_simulated.png")
        click_label(browser, "show target (ghost)")
        alone = settled(browser)
        assert changed(fallen, alone) > MIN_CHANGED, "the plan's ghost is not drawn beside the fallen robot"
        click_label(browser, "show robot")
        ghost_only = settled(browser)
        assert changed(alone, ghost_only) > MIN_CHANGED, "the simulated robot is not drawn"
    finally:
        code, err = page.stop()
    assert code == 0 and "Traceback" not in err, err


def test_example_biped_walks(browser: Chromium) -> None:
    """The project's own example (no files from the field needed)."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    check_view(
        browser, [str(examples / "walk.seq"), "--body", str(examples / "biped.body")], 0.3, 1.0, "view_biped_walk"
    )


def chart_box(browser: Chromium) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the curves' plotting area on the page."""
    box = browser.evaluate(
        "(() => { const r = document.querySelector('.uplot .u-over').getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })()"
    )
    left, top, right, bottom = (round(v) for v in box)
    return left, top, right, bottom


def curve_pixels(shot: np.ndarray, box: tuple[int, int, int, int]) -> tuple[int, float | None]:
    """Coloured curve pixels in the plotting area, and where (0..1) the dark cursor line stands."""
    left, top, right, bottom = box
    area = shot[top:bottom, left:right].astype(int)
    saturated = (area.max(axis=2) - area.min(axis=2)) > 90  # the curves' colours, not grey or black
    dark = area.max(axis=2) < 90
    columns = dark.sum(axis=0)
    columns[:3] = columns[-3:] = 0  # the axes' lines at the edges
    cursor = None
    if columns.max() > 0.6 * area.shape[0]:
        cursor = float(np.flatnonzero(columns == columns.max()).mean() / max(area.shape[1] - 1, 1))
    return int(saturated.sum()), cursor


def playing_shot(
    browser: Chromium, away_from: float, duration: float
) -> tuple[np.ndarray, float, tuple[int, int, int, int]]:
    """A screenshot taken while the page plays, once its time is 0.5 s from ``away_from`` (either way: it loops)
    and in the first half of the motion, past its first second: a screenshot takes seconds here (WebGL in
    software), and the shot must not land on the loop's seam, where the cursor sits on an axis.

    Also the time the page shows after it, and where the chart is.
    """
    browser.wait_for(
        "(() => { const m = document.body.innerText.match(/t = ([0-9.]+) s/); if (!m) return false;"
        f" const t = parseFloat(m[1]); return Math.abs(t - {away_from}) > 0.5 && t > 1 && t < {duration / 2}"
        " && document.body.innerText.includes('playing'); })()",
        timeout=60,
    )
    for _ in range(5):  # the chart where it was before and after the screenshot: not moved in between
        box = chart_box(browser)
        shot = np.asarray(Image.open(io.BytesIO(browser.screenshot())).convert("RGB"))
        if chart_box(browser) == box:
            break
    return shot, shown_time(browser), box


def test_the_curves_stay_drawn_while_playing(browser: Chromium) -> None:
    """Screenshots taken while the motion plays: the curves are there, the cursor moves along them."""
    mof = corpus_path("mof", "bhuman2009", "standUpBackNao.mof")
    urdf = corpus_path("urdf", "nao.urdf")
    page = Page([str(mof), "--urdf", str(urdf), "--at", "0.5", "--no-check"])  # the panel's layout stays put
    try:
        open_page(browser, page.url)
        click_button(browser, "Play")
        duration = float(read(mof).motion.times[-1])
        first, t1, box1 = playing_shot(browser, 0.5, duration)
        second, t2, box2 = playing_shot(browser, t1, duration)
        keep = os.environ.get("MFR_VIEW_SCREENSHOTS")
        if keep:
            Image.fromarray(first).save(Path(keep) / "view_nao_playing_first.png")
            Image.fromarray(second).save(Path(keep) / "view_nao_playing.png")
        cursors = []
        for shot, t, box in ((first, t1, box1), (second, t2, box2)):
            drawn, cursor = curve_pixels(shot, box)
            assert drawn > 400, f"only {drawn} curve pixels while playing at {t} s in {box}"
            assert cursor is not None and 0.02 < cursor < 0.98, f"no cursor while playing at {t} s"
            cursors.append(cursor)
        # The page's text and its drawing may be a few frames apart: the cursor moved, that is all.
        assert abs(cursors[1] - cursors[0]) > 0.02, cursors
    finally:
        code, err = page.stop()
    assert code == 0 and "Traceback" not in err, err


def test_arrow_keys_step_frames_and_the_views_turn_the_camera(browser: Chromium) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    page = Page([str(examples / "walk.seq"), "--body", str(examples / "biped.body"), "--at", "1.0"])
    try:
        open_page(browser, page.url)
        frame = int(re.search(r"frame (\d+) /", browser.text()).group(1))  # type: ignore[union-attr]
        browser.call(
            "Input.dispatchKeyEvent", type="keyDown", key="ArrowRight", code="ArrowRight", windowsVirtualKeyCode=39
        )
        browser.call(
            "Input.dispatchKeyEvent", type="keyUp", key="ArrowRight", code="ArrowRight", windowsVirtualKeyCode=39
        )
        browser.wait_for(f"document.body.innerText.includes('frame {frame + 1} /')")
        click_frame_control(browser, "down")
        browser.wait_for(f"document.body.innerText.includes('frame {frame} /')")
        assert "paused" in browser.text()
        fit = settled(browser)
        click_button(browser, "top")
        top = settled(browser)
        assert changed(fit, top) > MIN_CHANGED * 10, "the top view looks like the first one"
        label = browser.evaluate(
            "[...document.querySelectorAll('label')].map(l => l.innerText).find(t => t.includes('knee'))"
        )
        assert label and "\u200b" in label  # wraps after its underscores, not inside a word
    finally:
        code, err = page.stop()
    assert code == 0 and "Traceback" not in err, err


def test_every_quick_click_on_the_frame_field_moves_one_frame(browser: Chromium) -> None:
    """Forty clicks in a burst (the page sends at most one GUI message per 50 ms): forty frames on, then back."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    page = Page([str(examples / "walk.seq"), "--body", str(examples / "biped.body"), "--at", "0.5", "--no-check"])
    try:
        open_page(browser, page.url)
        first = shown_frame(browser)
        click_frame_control(browser, "up", 40)  # as fast as the browser takes them
        assert settled_frame(browser) == first + 40
        click_frame_control(browser, "down", 25)
        assert settled_frame(browser) == first + 15
        assert "paused" in browser.text()
    finally:
        code, err = page.stop()
    assert code == 0 and "Traceback" not in err, err


def robot_pixels(shot: np.ndarray, background: np.ndarray) -> np.ndarray:
    """The robot's pixels: coloured (its links are; its shadow and the grid are grey) where the page differs
    clearly from the same view with the robot hidden, the panel's area left out."""
    from motion_formats_ros.view.camera import PANEL_PX

    pixels = shot.astype(int)
    diff = np.abs(pixels - background.astype(int)).max(axis=2) > 24
    coloured = pixels.max(axis=2) - pixels.min(axis=2) > 60
    mask = diff & coloured
    mask[:, WIDTH - PANEL_PX :] = False
    return mask


@pytest.mark.parametrize("example", ["walk", "wave"])
def test_the_robot_stays_in_view_left_of_the_panel_while_it_plays(browser: Chromium, example: str) -> None:
    """The walking biped walks away from where it starts and the NAO-like robot raises its arm: screenshots
    while the motion plays show the robot's pixels inside the view, off its edges and clear of the panel."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    args = {
        "walk": [str(examples / "walk.seq"), "--body", str(examples / "biped.body")],
        "wave": [str(examples / "wave.mof"), "--urdf", str(examples / "mini_nao.urdf")],
    }[example]
    page = Page([*args, "--no-check"])
    try:
        open_page(browser, page.url)
        click_label(browser, "show robot")
        background = settled(browser)
        click_label(browser, "show robot")
        click_button(browser, "Play")
        browser.wait_for("document.body.innerText.includes('playing')", timeout=HUNG)
        seen = []
        for k in range(5):
            shot = np.asarray(Image.open(io.BytesIO(browser.screenshot())).convert("RGB"))
            mask = robot_pixels(shot, background)
            seen.append(shown_time(browser))
            assert mask.sum() > MIN_CHANGED, f"the robot is not drawn at {seen[-1]} s"
            ys, xs = np.nonzero(mask)
            assert xs.min() > 3 and ys.min() > 3 and ys.max() < HEIGHT - 4, f"the robot leaves the view at {seen[-1]} s"
            assert xs.max() < VIEW_WIDTH, f"the robot goes under the panel at {seen[-1]} s (x up to {xs.max()})"
            if os.environ.get("MFR_VIEW_SCREENSHOTS"):
                Image.fromarray(shot).save(Path(os.environ["MFR_VIEW_SCREENSHOTS"]) / f"view_{example}_{k}.png")
            time.sleep(0.3)
        assert len({round(t, 1) for t in seen}) >= 3, f"the motion did not play: {seen}"
    finally:
        code, err = page.stop()
    assert code == 0 and "Traceback" not in err, err
