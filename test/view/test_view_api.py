"""The viewer without a browser: the Python API, ports, models, warnings and the command's errors."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path
from support.browser import free_port
from support.cli import cli

from motion_formats_ros import Motion, MotionFile, read, view, write
from motion_formats_ros.core.errors import MAX_LISTED
from motion_formats_ros.core.examples import BIPED_JOINTS, biped_urdf, biped_walk
from motion_formats_ros.core.spatial import compose, invert

pytest.importorskip("viser", reason="needs the view extra (viser)")
pytest.importorskip("trimesh", reason="needs the view extra (trimesh)")

from motion_formats_ros.view.page import ViewerError, choose_port


@pytest.fixture
def urdf(tmp_path: Path) -> Path:
    path = tmp_path / "biped.urdf"
    path.write_text(biped_urdf())
    return path


def test_view_returns_the_running_server(urdf: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the example's joints all match its model: no warning
        v = view(biped_walk(), urdf=urdf, port=free_port(), at=0.5, paused=True)
    try:
        assert v.url == f"http://127.0.0.1:{v.server.get_port()}"
        assert v.model.name and v.group == "target" and v.ghost_group is None
        assert v.clock.time() == pytest.approx(0.5) and not v.clock.playing
        # The robot stands on the motion's root path: its links are where the model's FK puts them
        # (each node holds its pose in its parent link's frame).
        pose = v.track.at(0.5)
        lp = v.posed.world(pose)
        nodes = v.posed.robot.nodes  # type: ignore[union-attr]
        world = {name: (lp.translation[0, i], lp.rotation[0, i]) for i, name in enumerate(lp.links)}
        for name, node in nodes.items():
            expected = world[name] if node.parent is None else compose(invert(world[node.parent]), world[name])
            np.testing.assert_allclose(node.handle.position, expected[0], atol=1e-6)
            q = np.asarray(node.handle.wxyz)
            assert abs(abs(float(np.dot(q, np.roll(expected[1], 1)))) - 1) < 1e-9
        assert nodes[lp.links[-1]].parent is not None  # nested as the model's tree
        v.play()
        assert v.clock.playing
        v.seek(1.0)
        assert v.clock.time() >= 1.0
    finally:
        v.stop()


def test_target_and_actual_show_together(urdf: Path) -> None:
    walk = biped_walk().motion
    actual = walk.sample(walk.times[::3] + 0.004)
    v = view(MotionFile(groups={"target": walk, "actual": actual}), urdf=urdf, port=free_port(), paused=True)
    try:
        assert (v.group, v.ghost_group) == ("target", "actual")
        assert v.ghost is not None and v.ghost.robot is not None
    finally:
        v.stop()
    v = view(MotionFile(groups={"target": walk, "actual": actual}), urdf=urdf, port=free_port(), group="actual")
    try:
        assert (v.group, v.ghost_group) == ("actual", "target")
    finally:
        v.stop()


def test_the_ghost_groups_curves_are_drawn_with_the_same_joints(urdf: Path) -> None:
    walk = biped_walk().motion
    actual = walk.sample(walk.times[::3] + 0.004)
    assert actual.position is not None
    actual = Motion(times=actual.times, joint_names=actual.joint_names, position=actual.position + 0.05)
    joints = ["left_knee", "right_hip_pitch"]
    files = {"target": walk, "actual": actual}
    v = view(MotionFile(groups=files), urdf=urdf, port=free_port(), paused=True, joints=joints)
    try:
        assert v.curves is not None
        labels = [s["label"] for s in v.curves.plot.series]
        assert labels == ["time (s)", *joints, "left_knee (actual)", "right_hip_pitch (actual)"]
        dashed = [s for s in v.curves.plot.series if s["label"].endswith("(actual)")]
        assert all(s.get("dash") for s in dashed)
        x, *columns = v.curves.plot.data
        inside = (x >= actual.times[0]) & (x <= actual.times[-1])
        expected = actual.sample(x[inside])
        for k, joint in enumerate(joints):
            col = actual.joint_names.index(joint)
            np.testing.assert_allclose(columns[2 + k][inside], expected.position[:, col], atol=1e-9)
            assert not np.allclose(columns[2 + k], columns[k])  # not the target's curve again
    finally:
        v.stop()
    v = view(walk, urdf=urdf, port=free_port(), paused=True, joints=joints)  # no ghost: no extra curves
    try:
        assert v.curves is not None
        assert [s["label"] for s in v.curves.plot.series] == ["time (s)", *joints]
    finally:
        v.stop()


def test_joints_the_model_lacks_are_listed_in_one_warning(urdf: Path) -> None:
    walk = biped_walk().motion
    renamed = walk.rename_joints({BIPED_JOINTS[0]: "tail", BIPED_JOINTS[1]: "antenna"})
    with pytest.warns(UserWarning, match="not in the model") as caught:
        v = view(renamed, urdf=urdf, port=free_port(), paused=True)
    v.stop()
    texts = [str(w.message) for w in caught]
    unknown = [t for t in texts if "not in the model" in t]
    assert len(unknown) == 1 and "tail" in unknown[0] and "antenna" in unknown[0]
    assert any(BIPED_JOINTS[0] in t and "stay at 0" in t for t in texts)


def test_a_motion_of_many_joints_the_model_lacks_gives_a_short_warning(urdf: Path) -> None:
    # Thousands of joints beyond the model: the warning names the first few and counts the rest.
    walk = biped_walk().motion
    n = 5000
    extra = Motion(
        times=walk.times,
        joint_names=(*walk.joint_names, *(f"extra_{i}" for i in range(n))),
        position=np.hstack([walk.position, np.zeros((walk.num_frames, n))]),
    )
    with pytest.warns(UserWarning, match="not in the model") as caught:
        v = view(extra, urdf=urdf, port=free_port(), paused=True)
    v.stop()
    (unknown,) = [str(w.message) for w in caught if "not in the model" in str(w.message)]
    assert len(unknown) < 1000 and "extra_0" in unknown and f"and {n - MAX_LISTED:,} more" in unknown


def test_no_model_shows_root_and_curves() -> None:
    m = Motion(
        times=np.arange(50) / 50,
        joint_names=("a", "b"),
        position=np.random.default_rng(0).normal(size=(50, 2)),
        root_position=np.column_stack([np.arange(50) / 50, np.zeros(50), np.ones(50)]),
    )
    v = view(m, port=free_port(), paused=True, at=0.5)
    try:
        assert v.model is None and v.posed.robot is None
        assert v._root_frame is not None
        np.testing.assert_allclose(v._root_frame.position, [0.5, 0, 1], atol=1e-9)
        assert v.curves is not None
    finally:
        v.stop()


def test_a_bag_brings_its_robot_description(tmp_path: Path, urdf: Path) -> None:
    bag = tmp_path / "walk"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), bag, format="rosbag", robot_model=str(urdf))
    assert read(bag).robot_description == urdf.read_text()
    v = view(bag, port=free_port(), paused=True)
    try:
        assert v.model is not None and set(BIPED_JOINTS) <= set(v.model.actuated_joints)
    finally:
        v.stop()


def test_a_bag_without_one_has_none(tmp_path: Path) -> None:
    bag = tmp_path / "walk"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), bag, format="rosbag")
    assert read(bag).robot_description is None


def test_a_mof_net_labels_are_timeline_marks() -> None:
    path = corpus_path("mof", "bhuman2013", "sitDown.mof")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = view(path, port=free_port(), paused=True)
    try:
        assert v.marks == [(0.0, "start"), (pytest.approx(3.0), "repeat")]
    finally:
        v.stop()


def test_the_next_free_port_unless_one_is_asked_for() -> None:
    first = choose_port("127.0.0.1", None)
    with socket.socket() as busy:
        busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        busy.bind(("127.0.0.1", first))
        busy.listen()
        assert choose_port("127.0.0.1", None) > first
        with pytest.raises(ViewerError, match=f"port {first} on 127.0.0.1 is in use"):
            choose_port("127.0.0.1", first)


def test_command_errors_are_one_line(tmp_path: Path, urdf: Path) -> None:
    motion = tmp_path / "walk.omf.msgpack"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), motion)
    bad = tmp_path / "bad.mof"
    bad.write_text("motion_id = bad\nlabel start\n1 2 3\n")
    code, _out, err, _ = cli("view", bad, "--no-browser", "--port", str(free_port()), blocked=())
    assert code == 1 and err.startswith(f"error: {bad}:") and len(err.strip().splitlines()) == 1
    broken = tmp_path / "broken.urdf"
    broken.write_text("<robot name='x'><link name='a'>")
    code, _out, err, _ = cli("view", motion, "--urdf", broken, "--no-browser", blocked=())
    assert code == 1 and err.startswith(f"error: {broken}") and len(err.strip().splitlines()) == 1
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code, _out, err, _ = cli("view", motion, "--no-browser", "--port", str(port), blocked=())
    assert code == 1 and err.strip().startswith(f"error: port {port} on 127.0.0.1 is in use")
    assert len(err.strip().splitlines()) == 1
    code, _out, err, _ = cli("view", motion, "--no-browser", "--at", "99", blocked=())
    assert code == 1 and "--at 99" in err and len(err.strip().splitlines()) == 1


def test_without_the_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    motion = tmp_path / "walk.omf.msgpack"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), motion)
    code, _out, err, _ = cli("view", motion, "--no-browser", blocked=("viser",))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "viser" in err and "[view]" in err


def test_a_scene_is_drawn_whole_and_moves() -> None:
    path = corpus_path("scene_json5", "waving_robot.json")
    v = view(path, port=free_port(), paused=True, at=0.0)
    try:
        drawing = v.scene_drawing
        assert drawing is not None and len(drawing.handles) == len(drawing.frames) > 1
        before = np.array([h.position for h in drawing.handles])
        v.seek(1.0)
        v._draw(v.clock.time())
        after = np.array([h.position for h in drawing.handles])
        assert np.abs(after - before).max() > 0.01  # the arm waves
    finally:
        v.stop()


def _arm_scene() -> dict[str, object]:
    """A two-link arm swinging about z with a box carried on its last link, beside a box that stays."""
    return {
        "models": {
            "arm": {
                "kind": "robot",
                "joints": {"j1": {}},
                "links": {
                    "base": {"parent": "ROOT", "pose": {"xyz": [0, 0, 0.1]}},
                    "upper": {"parent": "base", "pose": {"dh": {"theta": {"joint": "j1"}, "a": 0.5}}},
                    "lower": {"parent": "upper", "pose": {"xyz": [0.3, 0, 0]}},
                },
            },
            "box": {"kind": "rigidBody", "shapes": {"b": {"kind": "box", "size": [0.1, 0.1, 0.1]}}},
        },
        "objects": {
            "robot": {"model": "arm", "jointValues": {"j1": {"trajectory": "swing.0"}}},
            "cargo": {"model": "box", "parent": "robot.lower", "pose": {"xyz": [0, 0, 0.2]}},
            "crate": {"model": "box", "pose": {"xyz": [2, 0, 0]}},
        },
        "trajectories": {"swing": {"controlPoints": [{"f": [0]}, {"f": [1.5]}, {"f": [0.5]}]}},
    }


def test_a_scene_draws_the_world_path_of_every_moving_object(tmp_path: Path) -> None:
    import json

    from motion_formats_ros.codecs.scene import load_scene
    from motion_formats_ros.codecs.scene.scene_kinematics import SceneKinematics

    path = tmp_path / "arm.json"
    path.write_text(json.dumps(_arm_scene()))
    v = view(path, port=free_port(), paused=True)
    try:
        drawing = v.scene_drawing
        assert drawing is not None
        # The carried box and the arm's end link move; the base, the inner link and the crate stay.
        assert sorted(drawing.path_handles) == ["cargo", "robot/lower"]
        kin = SceneKinematics(load_scene(path))
        start, end = kin.time_range
        for frame, handle in drawing.path_handles.items():
            assert handle.name.startswith("/scene/paths/")
            segments = np.asarray(handle.points)
            assert segments.shape[1:] == (2, 3) and 1 < len(segments) < 2000
            np.testing.assert_allclose(segments[1:, 0], segments[:-1, 1])  # one connected line
            times = np.linspace(start, end, len(segments) + 1)
            truth = kin.world_poses(times)[frame][0]
            np.testing.assert_allclose(segments[:, 0], truth[:-1], atol=1e-5)
            np.testing.assert_allclose(segments[-1, 1], truth[-1], atol=1e-5)
    finally:
        v.stop()


def test_a_scene_draws_the_paths_of_what_moves() -> None:
    from motion_formats_ros.codecs.scene import load_scene
    from motion_formats_ros.codecs.scene.scene_kinematics import SceneKinematics

    path = corpus_path("scene_json5", "waving_robot.json")
    v = view(path, port=free_port(), paused=True)
    try:
        drawing = v.scene_drawing
        assert drawing is not None
        # The arm's end link moves; the robot's base and the still objects get no path.
        assert list(drawing.path_handles) == ["robot1/wrist3"]
        handle = drawing.path_handles["robot1/wrist3"]
        assert handle.name.startswith("/scene/paths/")
        segments = np.asarray(handle.points)
        assert segments.shape[1:] == (2, 3) and 1 < len(segments) < 2000
        np.testing.assert_allclose(segments[1:, 0], segments[:-1, 1])  # one connected line
        kin = SceneKinematics(load_scene(path))
        start, end = kin.time_range
        times = np.linspace(start, end, len(segments) + 1)
        truth = kin.world_poses(times)["robot1/wrist3"][0]
        np.testing.assert_allclose(segments[:, 0], truth[:-1], atol=1e-5)
        np.testing.assert_allclose(segments[-1, 1], truth[-1], atol=1e-5)
    finally:
        v.stop()


def test_a_scene_path_has_at_most_its_limit_of_points(monkeypatch: pytest.MonkeyPatch) -> None:
    from motion_formats_ros.view import scene_drawing as scene

    monkeypatch.setattr(scene, "PATH_POINTS", 25)
    drawing = scene.SceneDrawing(corpus_path("scene_json5", "waving_robot.json"))
    assert drawing.times.size > 25 and drawing.paths
    assert all(1 < len(pts) <= 25 for pts in drawing.paths.values())


def test_the_command_reads_a_bag_with_bag2motions_options(tmp_path: Path) -> None:
    bag = tmp_path / "walk"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), bag, format="rosbag")
    # Read as bag2motion reads it (here: no root pose from TF), then refused for the time asked.
    code, _out, err, _ = cli("view", bag, "--root", "none", "--no-browser", "--at", "99", blocked=())
    assert code == 1 and err.strip().startswith("error: --at 99: the motion runs from 0 s to 2.4 s"), err
    code, _out, err, _ = cli("view", bag, "--topics", "/nothing", "--no-browser", blocked=())
    assert code == 1 and "/nothing" in err and len(err.strip().splitlines()) == 1


def test_importing_the_view_function_loads_nothing_heavy() -> None:
    code = "import sys; from motion_formats_ros import view; print(callable(view), 'numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "False"]


def test_the_package_exports_the_view_function_however_its_modules_were_imported() -> None:
    import importlib

    import motion_formats_ros
    from motion_formats_ros.view import page  # the package's modules stay importable

    assert importlib.import_module("motion_formats_ros.view").page is page
    from motion_formats_ros import view

    assert view is importlib.import_module("motion_formats_ros.view").view
    v = motion_formats_ros.view(biped_walk(), port=free_port(), paused=True)
    try:
        assert isinstance(v, page.Viewer)
    finally:
        v.stop()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_command_stops_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    motion = tmp_path / "walk.omf.msgpack"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), motion)
    port = free_port()
    exe = Path(sys.executable).parent / "motion-formats"
    proc = subprocess.Popen(
        [str(exe), "view", str(motion), "--no-browser", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith(f"viewing {motion} at http://127.0.0.1:{port}"), line
    proc.send_signal(sig)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and err.strip() == "stopped", err


def test_joints_the_motion_lacks_are_said_once_with_the_check_running(urdf: Path) -> None:
    """The page says which model joints stay at 0 when it opens; the check it runs does not say it again."""
    pytest.importorskip("coal", reason="the check collides the biped's boxes")
    knees = biped_walk().motion.select_joints(["left_knee", "right_knee"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = view(knees, urdf=urdf, port=free_port(), paused=True, announce=False)
        try:
            assert v.findings is not None and v.findings.ready.wait(120)
            assert v.findings.report is not None, v.findings.error
        finally:
            v.stop()
    about = [str(w.message) for w in caught if "left_hip_yaw" in str(w.message)]
    assert len(about) == 1, about


def test_ctrl_c_in_wait_is_taken_by_the_viewers_own_handler(urdf: Path) -> None:
    """Ctrl-C during ``wait()`` stops the viewer and returns. It is taken by a handler of the
    viewer's own, not raised as KeyboardInterrupt inside a lock's wait: that could leave the
    lock held, and stopping then hung for ever (a script's user saw Ctrl-C do nothing)."""
    import os
    import threading
    import time

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = view(biped_walk(), urdf=urdf, port=free_port(), paused=True, announce=False)
    handlers: list[object] = []

    def press_ctrl_c() -> None:
        time.sleep(0.5)
        handlers.append(signal.getsignal(signal.SIGINT))
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=press_ctrl_c, daemon=True).start()
    before = signal.getsignal(signal.SIGINT)
    started = time.monotonic()
    v.wait()
    assert time.monotonic() - started < 10
    assert handlers and handlers[0] is not signal.default_int_handler  # the viewer's own while it waits
    assert signal.getsignal(signal.SIGINT) is before  # and the caller's again after
    assert v._stop.is_set()
