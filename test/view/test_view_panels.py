"""The page's panels without a browser: traffic while playing, joint table, stepping, camera.

A real websocket client of the page (as the page's own script connects) counts what a
playing page is sent.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from support.browser import ViewerClient, free_port
from support.cli import cli

from motion_formats_ros import Motion, MotionFile, view, write
from motion_formats_ros.core.examples import BIPED_JOINTS, biped_urdf, biped_walk

pytest.importorskip("viser", reason="needs the view extra (viser)")

from motion_formats_ros.view.camera import DEFAULT_PAGE, PANEL_PX, VIEWS
from motion_formats_ros.view.panel import breakable

#: Most bytes per second one playing page may be sent.
TRAFFIC_LIMIT = 50_000


@pytest.fixture
def urdf(tmp_path: Path) -> Path:
    path = tmp_path / "biped.urdf"
    path.write_text(biped_urdf())
    return path


def long_motion(seconds: float = 60.0, rate: float = 1000.0) -> Motion:
    t = np.arange(int(seconds * rate)) / rate
    pos = np.stack([0.3 * np.sin(2 * np.pi * (0.4 + 0.05 * k) * t) for k in range(len(BIPED_JOINTS))], axis=1)
    pos[:, BIPED_JOINTS.index("left_knee")] += 0.6
    pos[:, BIPED_JOINTS.index("right_knee")] += 0.6
    return Motion(times=t, joint_names=BIPED_JOINTS, position=pos)


def replayed(client: ViewerClient) -> list[dict]:  # type: ignore[type-arg]
    """The messages of the page's initial replay (up to viser's end-of-replay marker)."""
    got: list[dict] = []  # type: ignore[type-arg]
    while True:
        frame = client.frame(60.0)
        assert frame is not None, "the page's scene did not arrive"
        got += frame
        if any(m["type"] == "ReplayDoneMessage" for m in frame):
            return got


@pytest.mark.parametrize("motion", ["example walk", "60 s at 1 kHz"])
def test_a_playing_page_is_sent_little_whatever_the_motions_length(urdf: Path, motion: str) -> None:
    m = biped_walk() if motion == "example walk" else MotionFile.single(long_motion())
    v = view(m, urdf=urdf, port=free_port(), announce=False)
    client = ViewerClient(v.url, origin=v.url)
    try:
        initial = replayed(client)
        assert any(m["type"] == "GuiUplotMessage" for m in initial)  # the curves, once
        start = client.received
        seconds = 3.0
        during = client.messages_for(seconds)
        rate = (client.received - start) / seconds
    finally:
        client.close()
        v.stop()
    moved = [m for m in during if m["type"] in ("SetOrientationMessage", "SetPositionMessage")]
    assert moved, "the robot did not move"
    resent = [m for m in during if m["type"] == "GuiUpdateMessage" and {"data", "series"} & set(m["updates"])]
    assert not resent, "the curves were sent again while playing"
    print(f"{motion}: {rate / 1000:.1f} kB/s to one playing page")
    assert rate < TRAFFIC_LIMIT, f"{rate / 1000:.1f} kB/s to one playing page"


def test_the_joint_table_marks_a_joint_beyond_its_limit(urdf: Path) -> None:
    walk = biped_walk().motion
    assert walk.position is not None
    position = walk.position.copy()
    knee = BIPED_JOINTS.index("left_knee")
    position[walk.num_frames // 2 :, knee] = 2.5  # beyond the knee's 2.2
    m = Motion(times=walk.times, joint_names=walk.joint_names, position=position)
    v = view(m, urdf=urdf, port=free_port(), paused=True, at=0.0, announce=False)
    try:
        assert v.table is not None
        assert v.table.beyond == ()
        assert "mfr-beyond" not in v.table.html.content and "2.200" in v.table.html.content
        v.seek(float(walk.times[-1]))
        v._draw(v.clock.time(), force_readout=True)
        assert v.table.beyond == ("left_knee",)
        row = next(r for r in v.table.html.content.split("<tr") if "left_\u200bknee" in r)
        assert "mfr-beyond" in row and "2.500" in row and "⚠" in row
    finally:
        v.stop()


def test_frame_stepping_pauses_and_moves_one_frame(urdf: Path) -> None:
    walk = biped_walk().motion
    times = walk.times
    v = view(walk, urdf=urdf, port=free_port(), at=float(times[3]), announce=False, check=False)
    try:
        assert v.clock.playing
        v.step(1)  # from wherever playing has reached (a loaded machine may be frames on)
        assert not v.clock.playing
        k = int(np.argmin(np.abs(times - v.clock.time())))
        assert k >= 4 and v.clock.time() == pytest.approx(times[k])  # on a frame, past the start
        v.seek(float(times[3]))
        v.step(1)
        assert not v.clock.playing and v.clock.time() == pytest.approx(times[4])
        v.step(-2)
        assert v.clock.time() == pytest.approx(times[2])
        v.seek(float(times[5] + 0.3 * (times[6] - times[5])))  # between two frames
        v.step(-1)
        assert v.clock.time() == pytest.approx(times[5])
        v.step(-1000)
        assert v.clock.time() == pytest.approx(times[0])
        v.step(1000)
        assert v.clock.time() == pytest.approx(times[-1])
    finally:
        v.stop()


def _projected(points: np.ndarray, position: np.ndarray, look_at: np.ndarray, fov: float) -> np.ndarray:
    """(x, y) of points on the camera's image, -1..1 across its height (z up)."""
    forward = (look_at - position) / np.linalg.norm(look_at - position)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    rel = points - position
    depth = rel @ forward
    assert (depth > 0).all(), "a link is behind the camera"
    return np.column_stack([rel @ right, rel @ up]) / depth[:, None] / math.tan(fov / 2)


@pytest.mark.parametrize("size", [DEFAULT_PAGE, (960, 600), (1920, 1080)])
def test_the_whole_motion_is_framed_left_of_the_panel_from_each_view(urdf: Path, size: tuple[int, int]) -> None:
    """Every link of every frame of the walk (which walks away from where it starts) stays in the view,
    left of the control panel, and the walk is not drawn tiny."""
    width, height = size
    v = view(biped_walk(), urdf=urdf, port=free_port(), paused=True, announce=False, check=False)
    try:
        track = v.track
        links = v.posed.world_many([track.at(float(t)) for t in track.times]).translation.reshape(-1, 3)
        for name, direction in VIEWS.items():
            if size == DEFAULT_PAGE and name == "fit":
                cam = v.server.initial_camera  # what a page opens with
                position, look_at, fov = cam.position, cam.look_at, cam.fov
            else:
                fov = v.server.initial_camera.fov
                position, look_at = v._view(name, fov, size)
            d = np.asarray(position) - np.asarray(look_at)
            assert np.dot(d / np.linalg.norm(d), np.asarray(direction) / np.linalg.norm(direction)) > 0.999
            xy = _projected(links, np.asarray(position), np.asarray(look_at), fov)
            px = width / 2 + xy[:, 0] * height / 2
            py = height / 2 - xy[:, 1] * height / 2
            assert px.min() > 0 and px.max() < width - PANEL_PX, (name, px.min(), px.max())
            assert py.min() > 0 and py.max() < height, (name, py.min(), py.max())
            assert max(px.max() - px.min(), py.max() - py.min()) > 0.3 * height, name
    finally:
        v.stop()


def test_joint_names_wrap_at_word_boundaries() -> None:
    assert breakable("left_hip_pitch") == "left_\u200bhip_\u200bpitch"
    assert breakable("arm/joint-1.a") == "arm/\u200bjoint-\u200b1.\u200ba"
    assert breakable("RShoulderPitch") == "RShoulderPitch"


def test_the_page_says_when_no_model_is_given() -> None:
    v = view(biped_walk(), port=free_port(), paused=True, announce=False)
    client = ViewerClient(v.url, origin=v.url)
    try:
        texts = [m["props"].get("_markdown", "") for m in replayed(client) if m["type"] == "GuiMarkdownMessage"]
    finally:
        client.close()
        v.stop()
    assert any("No robot model given" in t and "--urdf" in t for t in texts), texts


def test_a_model_without_any_of_the_motions_joints_is_refused(tmp_path: Path, urdf: Path) -> None:
    walk = biped_walk().motion
    renamed = walk.rename_joints({j: f"other_{i}" for i, j in enumerate(BIPED_JOINTS)})
    motion = tmp_path / "walk.omf.msgpack"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(MotionFile.single(renamed), motion)
    code, _out, err, _ = cli("view", motion, "--urdf", urdf, "--no-browser", blocked=())
    assert code == 1, err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: none of the motion's joints (other_0, other_1,") and "left_hip_yaw" in err, err


def test_a_model_without_any_of_the_motions_joints_is_refused_before_the_port_is_opened(urdf: Path) -> None:
    """The port asked for is held by another listener: the refusal names the joints, not the port (never reached)."""
    import socket

    from motion_formats_ros.view.page import ViewerError

    renamed = biped_walk().motion.rename_joints({j: f"other_{i}" for i, j in enumerate(BIPED_JOINTS)})
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ViewerError, match=r"none of the motion's joints \(other_0") as caught:
            view(renamed, urdf=urdf, port=port, paused=True, announce=False)
    assert "in use" not in str(caught.value)


def test_the_curves_shown_first_are_the_joints_that_move_most_even_for_an_instant() -> None:
    """A minute at 1 kHz: six joints held apart from zero, six that move for 50 ms only, in the middle."""
    from motion_formats_ros.view.panel import most_moving
    from motion_formats_ros.view.timeline import Track

    t = np.arange(60_000) / 1000.0
    pos = np.tile(np.linspace(0.1, 0.6, 12), (t.size, 1))
    blip = (t >= 30.0) & (t < 30.05)
    pos[blip, 6:] += 0.4
    motion = Motion(times=t, joint_names=BIPED_JOINTS, position=pos)
    assert most_moving(Track(motion), list(BIPED_JOINTS)) == list(BIPED_JOINTS[6:])


def test_curves_that_do_not_move_get_a_small_axis_around_their_value(urdf: Path) -> None:
    still = Motion(times=np.linspace(0, 2, 201), joint_names=BIPED_JOINTS, position=np.zeros((201, 12)))
    v = view(still, urdf=urdf, port=free_port(), paused=True, announce=False, check=False)
    try:
        assert v.curves is not None
        assert v.curves.plot.scales["y"]["range"] == pytest.approx((-0.1, 0.1))
        moving = biped_walk().motion
    finally:
        v.stop()
    v = view(moving, urdf=urdf, port=free_port(), paused=True, announce=False, check=False)
    try:
        assert v.curves is not None
        _, *columns = v.curves.plot.data
        lo, hi = v.curves.plot.scales["y"]["range"]
        values = np.concatenate(columns)
        assert lo < values.min() < values.max() < hi and hi - lo < 1.2 * np.ptp(values)
    finally:
        v.stop()
