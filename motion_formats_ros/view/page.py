"""The viewer's web page: a viser server with the robot, a timeline and joint curves.

The server runs in its own threads; :class:`Viewer` builds the page once (robot meshes,
ground grid, root path, GUI) and a drawing thread moves the robot at the display rate
(30 Hz) while the motion plays: each tick evaluates the motion at the clock's time
(:class:`~.session.Track`), the robot model's forward kinematics for that one pose,
and sends, in one batch, the link poses that changed (:mod:`motion_formats_ros.view.robot_drawing`). The browser thus
gets one update per drawn frame whatever the motion's own rate, a long motion costs
nothing at start-up beyond reading it, and nothing is drawn while no page is open.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import io
import math
import os
import signal
import socket
import threading
import time
import warnings
import webbrowser
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.errors import MotionFormatError, fixed, listed, require
from ..core.model import Motion, MotionFile
from ..core.notices import NoticeKind, collect, notify
from . import viser_adapter
from .camera import VIEWS, framing, view_from
from .findings_overlay import FindingsView
from .guard import TOKEN_PARAMETER, Guard, check_host, guarded_server, is_loopback, token_for
from .panel import CurvesPanel, JointTable, most_moving
from .robot_drawing import RobotDrawing, wxyz
from .timeline import MAX_SPEED, MIN_SPEED, Pose, Timeline, Track, mark_times

FloatArray = npt.NDArray[np.float64]

#: The address the page is served on unless told otherwise (this machine only).
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
#: How many ports after the default are tried when it is taken.
PORT_SEARCH = 100
#: Drawing rate of the robot while playing (Hz).
DISPLAY_RATE = 30.0
#: Update rate of the time readout and of the curves' cursor while playing (Hz).
READOUT_RATE = 10.0
#: The label of the frame field (its ▲ / ▼ step one frame on / back).
FRAME_LABEL = "frame"
#: Height of the lowest link origin above the ground when the motion has no root pose (m).
GROUND_CLEARANCE = 0.02
#: Poses of the motion the camera frames at most (its frames, and times between them for a keyframe motion).
FRAMED_POSES = 600
#: Missing mesh files named in the warning (the rest are counted).
MISSING_LISTED = 8

GHOST_COLOR = (255, 140, 50)
GHOST_OPACITY = 0.35
ROOT_PATH_COLOR = (230, 120, 40)


class ViewerError(MotionFormatError):
    """The page cannot be served (a port in use that was asked for …)."""


def _viser() -> Any:
    return require("viser", "view", package="viser", extra="view", rosdep_key=None)


def port_free(host: str, port: int) -> bool:
    """Whether a server could listen on ``host``:``port`` now (ViewerError when it never could)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise ViewerError(f"--host {host}: cannot serve there ({exc.strerror or exc})") from None
    return True


def choose_port(host: str, port: int | None) -> int:
    """``port`` when given (ViewerError when taken), else the first free one from 8080."""
    if port is not None:
        if not 0 <= port <= 65535:
            raise ViewerError(f"port {port}: expected 0..65535")
        if port and not port_free(host, port):
            raise ViewerError(f"port {port} on {host} is in use (leave out --port to take the next free one)")
        return port
    for candidate in range(DEFAULT_PORT, DEFAULT_PORT + PORT_SEARCH):
        if port_free(host, candidate):
            return candidate
    raise ViewerError(f"no free port on {host} in {DEFAULT_PORT}..{DEFAULT_PORT + PORT_SEARCH - 1}")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """viser prints a banner and status lines to stdout; the viewer prints its own."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


# --------------------------------------------------------------------------- one group
class _Posed:
    """One group drawn: its track, its robot (if there is a model), its root marker."""

    def __init__(self, track: Track, robot: RobotDrawing | None, lift: bool) -> None:
        self.track = track
        self.robot = robot
        self.lift = lift  # no root pose: the lowest link is put on the ground
        self.unknown: tuple[str, ...] = ()
        self.missing: tuple[str, ...] = ()

    def world(self, pose: Pose) -> Any:
        """The model's link poses for one pose (LinkPoses of one frame)."""
        return self.world_many([pose])

    def world_many(self, poses: Sequence[Pose]) -> Any:
        """The model's link poses for several poses at once (LinkPoses of ``len(poses)`` frames)."""
        assert self.robot is not None
        first = poses[0]
        root_p = None if first.root_position is None else np.stack([p.root_position for p in poses])  # type: ignore[misc]
        root_q = None if first.root_orientation is None else np.stack([p.root_orientation for p in poses])  # type: ignore[misc]
        lp = self.robot.model.link_poses(
            first.joint_names,
            np.stack([p.positions for p in poses]),
            root_position=root_p,
            root_orientation=root_q,
            warn=False,
        )
        if root_p is None and self.lift:
            # No root pose: the lowest link origin stands on the ground at every frame.
            z = lp.translation[:, :, 2]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # a frame without a finite link
                low = np.nan_to_num(np.nanmin(z, axis=1), nan=0.0)
            lp.translation[:, :, 2] += (GROUND_CLEARANCE - low)[:, None]
        return lp

    def draw(self, t: float) -> Pose:
        pose = self.track.at(t)
        if self.robot is not None:
            lp = self.world(pose)
            self.robot.update(lp.links, lp.translation[0], lp.rotation[0])
        return pose


@dataclasses.dataclass
class ViewOptions:
    """What the page shows and how it starts (see :func:`motion_formats_ros.view.view`)."""

    group: str | None = None
    joints: Sequence[str] | None = None
    host: str = DEFAULT_HOST
    port: int | None = None
    at: float | None = None
    paused: bool = False
    speed: float = 1.0
    loop: bool = True
    package_paths: Sequence[str | Path] = ()
    #: The check's SRDF and MoveIt joint_limits.yaml (as ``check`` takes them).
    srdf: str | os.PathLike[str] | None = None
    limits: str | os.PathLike[str] | None = None
    open_browser: bool = False
    title: str | None = None
    check: bool = True
    #: A report whose findings the page shows instead of running the check (a simulation's).
    report: Any = None


class Viewer:
    """A served page showing one motion file on its robot.

    Args:
        motion_file: The motion (all its groups).
        model: A robot model (``RobotModel``) or None (root pose and curves only).
        model_path: The model's file (relative mesh names), if any.
        options: See :class:`ViewOptions`.
    """

    def __init__(
        self,
        motion_file: MotionFile,
        model: Any = None,
        *,
        model_path: Path | None = None,
        options: ViewOptions | None = None,
        scene: Any = None,
    ) -> None:
        opts = options or ViewOptions()
        self.options = opts
        self.motion_file = motion_file
        self.model = model
        main_name, ghost_name = choose_groups(motion_file, opts.group)
        self.group = main_name
        self.ghost_group = ghost_name
        main = motion_file.groups[main_name]
        ghost = motion_file.groups[ghost_name] if ghost_name else None
        self.track = Track(main)
        self.ghost_track = Track(ghost) if ghost is not None else None
        start = min(self.track.start, self.ghost_track.start if self.ghost_track else math.inf)
        end = max(self.track.end, self.ghost_track.end if self.ghost_track else -math.inf)
        if scene is not None:
            start, end = min(start, scene.start), max(end, scene.end)
        if not MIN_SPEED <= opts.speed <= MAX_SPEED:  # NaN too
            raise ViewerError(f"speed {opts.speed}: expected a number from {MIN_SPEED:g} to {MAX_SPEED:g}")
        self.clock = Timeline(start, end, speed=opts.speed, loop=opts.loop)
        at = start if opts.at is None else opts.at
        if not (math.isfinite(at) and start - 1e-9 <= at <= end + 1e-9):
            raise ViewerError(f"--at {at:g}: the motion runs from {start:g} s to {end:g} s")
        self.clock.seek(at)
        if model is not None:
            self._refuse_a_model_without_the_joints()  # before the port opens: nothing served for a wrong model
            if opts.check and opts.report is None:  # the check's files, as check refuses them
                from ..safety.check import check_files

                check_files(model, srdf=opts.srdf, limits=opts.limits)
        addresses = check_host(opts.host)
        self.guard = Guard(opts.host, addresses, token=token_for(opts.host, addresses))
        port = choose_port(opts.host, opts.port)
        viser = _viser()
        with _quiet(), guarded_server(self.guard) as guarded:
            self.server = viser.ViserServer(host=opts.host, port=port, label=opts.title, verbose=False)
        self.guard.port = self.server.get_port()
        if not guarded:
            self.stop()
            raise ViewerError(f"viser {viser.__version__} does not let its connections be checked: not serving")
        viser_adapter.share_off(self.server)
        self.guard.messages.watch(self.server)
        if opts.port and self.server.get_port() != opts.port:
            self.stop()
            raise ViewerError(f"port {opts.port} on {opts.host} is in use")
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._dirty = threading.Event()
        self._updating_slider = False
        self._frame_from_page = False  # the frame shown is the one the page's frame field asked for
        self._last_readout = 0.0
        self.warnings: list[str] = []
        self.scene_drawing = scene
        self._framed: FloatArray | None = None
        self.findings: FindingsView | None = None
        try:
            self._build_scene(model_path, opts)
            self._build_gui(opts)
            self._draw(self.clock.time(), force_readout=True)
        except BaseException:
            self.stop()
            raise
        if not opts.paused:
            self.clock.play()
        viser_adapter.on_connect(self.server, self._dirty.set)
        self._thread = threading.Thread(target=self._run, name="motion-view", daemon=True)
        self._thread.start()
        # The safety check runs once the page is served; its findings join the page when done.
        if opts.check and self.model is not None and self.posed.robot is not None:
            self.findings = FindingsView(self, self._check)
            self.findings.start()
        if opts.open_browser:
            with contextlib.suppress(Exception):
                webbrowser.open(self.url)

    # ------------------------------------------------------------------ building
    @property
    def exposure(self) -> str | None:
        """A warning when the page is served beyond this machine (None on the loopback)."""
        host = self.options.host
        if is_loopback(host):
            return None
        return (
            f"the page is served on {host}, not only on this machine: whoever reaches it with the "
            "address above (its token) can watch the motion and drive its timeline"
        )

    @property
    def url(self) -> str:
        """The page's address; served beyond this machine, with the token it asks for."""
        host = self.options.host
        shown = f"[{host}]" if ":" in host else host
        token = f"/?{TOKEN_PARAMETER}={self.guard.token}" if self.guard.token is not None else ""
        return f"http://{shown}:{self.server.get_port()}{token}"

    def _warn(self, text: str) -> None:
        self.warnings.append(text)
        notify(NoticeKind.MISSING, text, stacklevel=3)

    def _build_scene(self, model_path: Path | None, opts: ViewOptions) -> None:
        server = self.server
        server.scene.set_up_direction("+z")
        base = model_path.parent if model_path is not None else None
        cache: dict[Any, Any] = {}
        robot = ghost_robot = None
        if self.model is not None:
            robot = RobotDrawing(
                server, self.model, "/robot", base=base, package_paths=opts.package_paths, mesh_cache=cache
            )
            if robot.missing_meshes:
                missing = robot.missing_meshes
                self._warn(
                    f"{len(missing)} mesh file(s) not found, those links are drawn as simple shapes "
                    f"(--package-path DIR to find package:// meshes): {listed(missing, limit=MISSING_LISTED)}"
                )
            if self.ghost_track is not None:
                ghost_robot = RobotDrawing(
                    server,
                    self.model,
                    "/ghost",
                    color=GHOST_COLOR,
                    opacity=GHOST_OPACITY,
                    own_colors=False,
                    base=base,
                    package_paths=opts.package_paths,
                    mesh_cache=cache,
                )
        if self.scene_drawing is not None:
            self.scene_drawing.attach(server)
        lift = self._lift(robot)
        self.posed = _Posed(self.track, robot, lift)
        self.ghost = _Posed(self.ghost_track, ghost_robot, lift) if self.ghost_track is not None else None
        if robot is not None:
            self._check_joints()
        lo, hi = self._extent()
        size = float(max(np.max(hi - lo), 0.3))
        server.scene.add_grid(
            "/ground",
            width=max(4.0, 2 * size + 2),
            height=max(4.0, 2 * size + 2),
            cell_size=0.1 if size < 2 else 0.5,
            section_size=1.0,
            position=(float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2), 0.0),
        )
        server.scene.add_frame("/world", axes_length=0.1 * size, axes_radius=0.004 * size)
        m = self.track.motion
        if m.root_position is not None and np.isfinite(m.root_position).all():
            path = m.root_position[:: max(1, m.num_frames // 2000)]
            ground = np.column_stack([path[:, :2], np.zeros(len(path))])
            if len(ground) > 1:
                segments = np.stack([ground[:-1], ground[1:]], axis=1).astype(np.float32)
                server.scene.add_line_segments(
                    "/root_path", segments, colors=ROOT_PATH_COLOR, thickness=max(0.002, 0.004 * size)
                )
        if m.root_position is not None or m.root_orientation is not None:
            self._root_frame = server.scene.add_frame("/root", axes_length=0.15 * size, axes_radius=0.005 * size)
        else:
            self._root_frame = None
        position, look_at = self._view("fit")
        server.initial_camera.look_at = look_at
        server.initial_camera.position = position

    def _refuse_a_model_without_the_joints(self) -> None:
        """ViewerError when the model has none of the motion's joints (the wrong robot model)."""
        names = self.track.joint_names
        if not self.track.has_joints or not names:
            return
        lp = self.model.link_poses(names, np.zeros((1, len(names))), warn=False)
        if len(lp.unknown) < len(names):
            return
        model_joints = [v for j in self.model.joints for v in j.variables]

        raise ViewerError(
            f"none of the motion's joints ({listed(names)}) is a joint of the model {self.model.name!r} "
            f"({listed(model_joints) or 'none'}): the wrong robot model?"
        )

    def _view(
        self, name: str, fov: float | None = None, size: tuple[int, int] | None = None
    ) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """Camera position and look-at point of a view (VIEWS) of the whole motion, left of the panel.

        ``fov`` and ``size`` are the page's (its camera's opening, its width and height in pixels).
        """
        centre, radius = framing(self._motion_points())
        return view_from(centre, radius, VIEWS[name], fov or self.server.initial_camera.fov, size)

    def _motion_points(self) -> FloatArray:
        """What the camera frames: every link origin over the motion (at most :data:`FRAMED_POSES` poses,
        its frames and times between them), the root's path, the scene's drawing."""
        if self._framed is not None:
            return self._framed
        pts: list[FloatArray] = [np.zeros((0, 3))]
        m, track = self.track.motion, self.track
        if m.root_position is not None:
            pts.append(m.root_position[np.isfinite(m.root_position).all(axis=1)])
        if self.posed.robot is not None:
            frames = track.times[:: max(1, track.times.size * 2 // FRAMED_POSES)]
            between = np.linspace(track.start, track.end, FRAMED_POSES - frames.size)
            tr = self.posed.world_many([track.at(float(t)) for t in np.union1d(frames, between)]).translation
            tr = tr.reshape(-1, 3)
            pts.append(tr[np.isfinite(tr).all(axis=1)])
        elif m.root_position is None:
            pts.append(np.zeros((1, 3)))
        if self.scene_drawing is not None:
            pts.append(self.scene_drawing.extent_points())
        self._framed = np.concatenate(pts, axis=0)
        return self._framed

    def show_view(self, name: str) -> None:
        """Turn every open page's camera to a view of the whole motion (front, side, top, fit)."""
        for client in self.server.get_clients().values():
            camera = client.camera
            size = (camera.image_width, camera.image_height) if camera.image_height > 0 else None
            position, look_at = self._view(name, camera.fov, size)
            with client.atomic():
                client.camera.look_at = look_at
                client.camera.position = position
                client.camera.up_direction = (0.0, 0.0, 1.0)

    def step(self, frames: int) -> None:
        """Pause and move ``frames`` motion frames on (back when negative)."""
        times = self.track.times
        with self._lock:
            t = self.clock.time()
            here = self.track.frame(t)
            if frames < 0 and t > times[here] + 1e-9:
                frames += 1  # between two frames: back to the one before first
        self.show_frame(here + frames, from_page=False)

    def show_frame(self, index: int, from_page: bool = True) -> None:
        """Pause at motion frame ``index`` (0-based, clamped to the motion's frames).

        ``from_page``: the page's frame field asked for it, so the page shows its number already
        (sending it back could undo a click the page made meanwhile).
        """
        times = self.track.times
        with self._lock:
            self.clock.pause()
            self.clock.seek(float(times[int(min(max(index, 0), times.size - 1))]))
            self._frame_from_page = from_page
        self._play.label = "Play"
        self._dirty.set()

    def _check(self) -> Any:
        """The safety check's report on the group drawn (with the CoM / ZMP series), or the report given.

        The check's notices are passed on but for what the page said already when it opened: the
        model's joints the motion lacks and the motion's joints the model lacks (said once, not twice).
        """
        from ..safety import check

        if self.options.report is not None:
            return self.options.report
        names = list(self.track.joint_names)
        with collect(warn=False, isolated=True) as said:  # the model's own notices of these joints
            self.model.link_poses(names, np.zeros((1, len(names))))
        with collect(warn=False, isolated=True) as found:
            report = check(
                self.motion_file,
                self.model,
                srdf=self.options.srdf,
                limits=self.options.limits,
                group=self.group,
                series=True,
                package_paths=self.options.package_paths,
            )
        for notice in found.notices:
            if notice not in said.notices:
                notify(notice.kind, notice.message, file=notice.file, line=notice.line, field=notice.field)
        return report

    def _lift(self, robot: RobotDrawing | None) -> bool:
        """Whether the robot is put on the ground (a motion without a root pose)."""
        return robot is not None and self.track.motion.root_position is None

    def _check_joints(self) -> None:
        lp = self.posed.world(self.track.at(self.track.start))
        self.posed.unknown = tuple(lp.unknown)
        self.posed.missing = tuple(lp.missing)
        if lp.unknown:
            self._warn(
                f"{len(lp.unknown)} joint(s) of the motion are not in the model {self.model.name!r} "
                f"and are not shown: {listed(lp.unknown)}"
            )
        if lp.missing and self.track.has_joints:
            self._warn(
                f"{len(lp.missing)} joint(s) of the model are not in the motion and stay at 0: {listed(lp.missing)}"
            )

    def _extent(self) -> tuple[FloatArray, FloatArray]:
        """Bounding box of what is drawn over the motion (link origins, root path) and the origin."""
        allp = np.concatenate([np.zeros((1, 3)), self._motion_points()], axis=0)
        return allp.min(axis=0), allp.max(axis=0)

    def _build_gui(self, opts: ViewOptions) -> None:
        gui = self.server.gui
        mf = self.motion_file
        source = Path(mf.source).name if mf.source else (mf.name or "motion")
        what = [f"**{source}**"]
        if self.model is not None:
            what.append(f"robot {self.model.name}")
        groups = f"group {self.group}" + (f", ghost: {self.ghost_group}" if self.ghost_group else "")
        what.append(groups)
        gui.add_markdown(" · ".join(what))
        if self.model is None:
            gui.add_markdown(
                "**No robot model given**: the page shows the root pose and the joint curves only. "
                "Give the robot's URDF or Choreonoid body (`--urdf FILE`, `--body FILE`) to see it move."
            )
        clock = self.clock
        self._status = gui.add_markdown("")
        self._play = gui.add_button("Pause" if not opts.paused else "Play", icon=None, hint="space: play / pause")
        self._play.on_click(lambda _event: self.toggle())
        rate = self.track.motion.rate
        step = 1.0 / rate if rate else 0.001
        step = max(min(step, (clock.end - clock.start) / 100 or 0.01), 1e-4)
        marks = [(float(t), name) for t, name in mark_times(self.track.motion, clock.start, clock.end)]
        self.marks = marks  # on the time slider
        self._slider = gui.add_slider(
            "time (s)",
            min=clock.start,
            max=clock.end if clock.end > clock.start else clock.start + step,
            step=step,
            initial_value=clock.time(),
            marks=tuple(marks) if marks else None,
        )

        def on_time(event: Any) -> None:
            if event.client is None or self._updating_slider:
                return  # the readout moving the slider
            self.seek(float(self._slider.value))

        self._slider.on_update(on_time)

        speed = gui.add_slider("speed (×)", min=0.1, max=4.0, step=0.1, initial_value=clock.speed)

        def on_speed(_event: Any) -> None:
            with self._lock:
                clock.set_speed(float(speed.value))

        speed.on_update(on_speed)

        loop = gui.add_checkbox("loop", clock.loop)

        def on_loop(_event: Any) -> None:
            with self._lock:
                clock.set_loop(bool(loop.value))

        loop.on_update(on_loop)

        command = gui.add_command("Play / pause", hotkey="space")
        command.on_trigger(lambda _event: self.toggle())
        self._build_steps_and_views(gui)
        if marks:
            gui.add_markdown("marks: " + ", ".join(f"{name} {t:.2f} s" for t, name in marks))
        if self.posed.robot is not None:
            shown = gui.add_checkbox("show robot", True)

            def on_shown(_event: Any) -> None:
                for node in self.posed.robot.nodes.values() if self.posed.robot else ():
                    node.handle.visible = bool(shown.value)

            shown.on_update(on_shown)

        if self.ghost is not None:
            show = gui.add_checkbox(f"show {self.ghost_group} (ghost)", True)

            def on_ghost(_event: Any) -> None:
                for node in self.ghost.robot.nodes.values() if self.ghost and self.ghost.robot else ():
                    node.handle.visible = bool(show.value)

            show.on_update(on_ghost)

        self._build_curves(opts)

    def _build_steps_and_views(self, gui: Any) -> None:
        """Frame stepping (buttons and the arrow keys) and the camera's views."""
        # A field holding the frame number, not buttons: the page sends at most one GUI message per
        # 50 ms, the last one, so a second click within that time would be lost; the field's number
        # counts every click of its ▲ / ▼ and the last message carries them all.
        self._frame = gui.add_number(
            FRAME_LABEL,
            self.track.frame(self.clock.time()) + 1,
            min=1,
            max=max(self.track.times.size, 2),
            step=1,
            hint="the frame shown: ▲ / ▼ (or → / ←) one frame on / back, or type its number (pauses)",
        )

        def on_frame(event: Any) -> None:
            if event.client is not None:  # not the readout
                self.show_frame(int(self._frame.value) - 1)

        self._frame.on_update(on_frame)
        for key, frames in (("arrowleft", -1), ("arrowright", 1)):
            gui.add_command(f"One frame {'back' if frames < 0 else 'on'}", hotkey=key).on_trigger(
                lambda _event, frames=frames: self.step(frames)
            )
        views = gui.add_button_group("view", tuple(VIEWS), hint="the camera on the robot: front, side, top, whole")
        views.on_click(lambda event: self.show_view(str(event.target.value)))

    def _build_curves(self, opts: ViewOptions) -> None:
        self.curves: CurvesPanel | None = None
        self.table: JointTable | None = None
        unknown = set(self.posed.unknown)
        names = [n for n in self.track.joint_names if n not in unknown] or list(self.track.joint_names)
        if not self.track.has_joints or not names:
            return
        if opts.joints:
            missing = [j for j in opts.joints if j not in self.track.joint_names]
            if missing:
                raise ViewerError(f"--joints: no joint {listed(missing)} in the motion")
            chosen = list(opts.joints)
        else:
            chosen = most_moving(self.track, names)
        gui, clock = self.server.gui, self.clock
        self.curves = CurvesPanel(
            gui, self.track, self.ghost_track, self.ghost_group, clock.start, clock.end, chosen, self._lock
        )
        self.table = JointTable(gui, self.track.joint_names, self.model)

    # ------------------------------------------------------------------ running
    def toggle(self) -> None:
        """Play / pause (the button and the space key)."""
        with self._lock:
            playing = self.clock.toggle()
            self._frame_from_page = False
        self._play.label = "Pause" if playing else "Play"
        self._dirty.set()

    def play(self) -> None:
        with self._lock:
            self.clock.play()
            self._frame_from_page = False
        self._play.label = "Pause"
        self._dirty.set()

    def pause(self) -> None:
        with self._lock:
            self.clock.pause()
        self._play.label = "Play"
        self._dirty.set()

    def seek(self, t: float) -> None:
        with self._lock:
            self.clock.seek(t)
            self._frame_from_page = False
        self._dirty.set()

    def _draw(self, t: float, force_readout: bool = False) -> None:
        with self.server.atomic():
            pose = self.posed.draw(t)
            if self.ghost is not None:
                self.ghost.draw(t)
            if self._root_frame is not None:
                p = pose.root_position if pose.root_position is not None else np.zeros(3)
                q = pose.root_orientation if pose.root_orientation is not None else np.array([0, 0, 0, 1.0])
                if np.all(np.isfinite(p)):
                    self._root_frame.position = tuple(float(v) for v in p)
                self._root_frame.wxyz = wxyz(q)
            if self.scene_drawing is not None:
                self.scene_drawing.draw(t)
            if self.findings is not None:
                self.findings.draw(t)
        now = time.monotonic()
        if force_readout or now - self._last_readout >= 1.0 / READOUT_RATE:
            self._last_readout = now
            self._readout(t, pose)

    def _readout(self, t: float, pose: Pose) -> None:
        n = self.track.motion.num_frames
        state = "playing" if self.clock.playing else "paused"
        self._status.content = (
            f"t = {fixed(t)} s / {fixed(self.clock.end)} s · frame {pose.frame + 1} / {n} · {state} · "
            f"{self.clock.speed:g}×"
        )
        self._updating_slider = True
        try:
            self._slider.value = float(min(max(t, self._slider.min), self._slider.max))
        finally:
            self._updating_slider = False
        if self.clock.playing or not self._frame_from_page:
            self._frame.value = pose.frame + 1
        if self.curves is not None:
            self.curves.set_time(t)
        if self.table is not None:
            self.table.update(pose)

    def _run(self) -> None:
        period = 1.0 / DISPLAY_RATE
        last_t: float | None = None
        was_playing = self.clock.playing
        while not self._stop.is_set():
            if not viser_adapter.watched(self.server):
                # Nobody watches: nothing is drawn until a page connects (or a seek, or stop).
                self._dirty.wait()
                self._dirty.clear()
                last_t = None
                continue
            tick = time.monotonic()
            dirty = self._dirty.is_set()
            self._dirty.clear()
            with self._lock:
                t = self.clock.time()
                playing = self.clock.playing
            if playing != was_playing:
                self._play.label = "Pause" if playing else "Play"
                was_playing = playing
                dirty = True
            if dirty or t != last_t:
                try:
                    self._draw(t, force_readout=dirty or not playing)
                except Exception as exc:  # a dead connection while stopping
                    if self._stop.is_set():
                        return
                    notify(NoticeKind.SKIPPED, f"viewer: a frame was not drawn: {exc}", stacklevel=1)
                last_t = t
            self._dirty.wait(max(0.0, period - (time.monotonic() - tick)))

    def stop(self) -> None:
        """Stop drawing and serving."""
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
            self._dirty.set()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)
        viser_adapter.drop_connections(self.server)
        with _quiet():
            self.server.stop()

    def wait(self) -> None:
        """Serve until stopped; Ctrl-C stops the viewer and returns, as a script's user expects.

        On the main thread, Ctrl-C is taken by a handler of its own for the while: a
        KeyboardInterrupt raised inside a lock's acquire or release (an ``Event.wait``) can
        leave that lock held, and stopping the viewer then waits on it for ever.
        """
        asked: list[int] = []
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, lambda signum, frame: asked.append(signum))
        try:
            while not self._stop.is_set() and not asked:  # is_set takes no lock
                time.sleep(0.1)
        except KeyboardInterrupt:  # off the main thread, or another handler's (the CLI's SIGTERM)
            asked.append(signal.SIGINT)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        if asked:
            self.stop()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def choose_groups(motion_file: MotionFile, group: str | None) -> tuple[str, str | None]:
    """(group drawn, group drawn as a ghost or None): target with actual as its ghost, and back."""
    groups = motion_file.groups
    if group is not None:
        motion_file.group(group)  # KeyError naming the groups
        main = group
    else:
        main = "target" if "target" in groups else next(iter(groups))
    other = {"target": "actual", "actual": "target"}.get(main)
    ghost = other if other in groups and _has_positions(groups[other]) else None
    return main, ghost


def _has_positions(m: Motion) -> bool:
    return m.position is not None and m.num_frames > 0


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "RobotDrawing", "ViewOptions", "Viewer", "ViewerError", "choose_port"]
