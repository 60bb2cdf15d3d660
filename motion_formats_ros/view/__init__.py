"""Look at a motion on its robot in the browser (viser, the ``view`` extra).

``view(motion, urdf=...)`` serves a local page (http://127.0.0.1:8080, the next free
port when it is taken) showing the robot moving with the motion, a timeline (play,
pause, scrub, speed, loop, the time and frame, space = play / pause), the joint curves
with a cursor at the current time, the root path on a ground grid, a ``.mof`` net's
labels as marks on the timeline and, when a file holds both, the actual motion as a
translucent ghost of the target. It returns the :class:`~.page.Viewer` (its ``server``
is the viser server) and keeps serving in background threads until ``stop()``.

Example::

    from motion_formats_ros import view
    v = view("walk.seq", body="robot.body", at=1.5, paused=True)
    print(v.url)
    ...
    v.stop()

``motion_formats_ros.view`` is this function, not the package: import the package's
modules with ``from motion_formats_ros.view import page`` (``import
motion_formats_ros.view.page as page`` looks ``page`` up on the function and fails).

The robot comes from the one robot model of the package (URDF or Choreonoid .body,
:mod:`motion_formats_ros.core.kinematics`); nothing here computes kinematics itself.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.model import Motion, MotionFile
    from .page import Viewer


def load_model(urdf: str | os.PathLike[str] | None = None, body: str | os.PathLike[str] | None = None) -> Any:
    """The robot model of ``urdf`` or ``body`` (None when neither is given)."""
    if urdf is not None and body is not None:
        raise ValueError("give a URDF or a .body model, not both")
    path = urdf if urdf is not None else body
    if path is None:
        return None
    from ..core.kinematics import load_robot_model

    return load_robot_model(Path(path))


def view(
    motion: MotionFile | Motion | str | os.PathLike[str],
    urdf: str | os.PathLike[str] | None = None,
    body: str | os.PathLike[str] | None = None,
    *,
    model: Any = None,
    group: str | None = None,
    joints: Sequence[str] | None = None,
    host: str = "127.0.0.1",
    port: int | None = None,
    at: float | None = None,
    paused: bool = False,
    speed: float = 1.0,
    loop: bool = True,
    package_paths: Sequence[str | os.PathLike[str]] = (),
    srdf: str | os.PathLike[str] | None = None,
    limits: str | os.PathLike[str] | None = None,
    open_browser: bool = False,
    announce: bool = True,
    check: bool = True,
    simulate: dict[str, Any] | None = None,
    format: str | None = None,
    **read_options: Any,
) -> Viewer:
    """Serve a page showing ``motion`` on its robot; returns the running :class:`~.page.Viewer`.

    Args:
        motion: A MotionFile, a Motion, or a path to any file this package reads (a bag too).
        urdf, body: The robot model's file (URDF or Choreonoid .body); or ``model``, a
            loaded ``RobotModel``. A bag's ``/robot_description`` is used when none is given.
            With no model the page shows the root pose and the joint curves.
        group: The group drawn (default target, else the first); the other of
            target / actual, when present, is drawn as a translucent ghost.
        joints: Joints whose curves are shown first (default: the six that move most).
        host, port: Where to serve (default 127.0.0.1 and the first free port from 8080;
            a port given explicitly that is taken is an error).
        at: Open at this motion time (s); ``paused``: do not start playing.
        speed, loop: Playback speed (0.1–4) and looping.
        package_paths: Folders to find ``package://`` meshes in (besides
            ``AMENT_PREFIX_PATH`` and ``ROS_PACKAGE_PATH``).
        srdf, limits: The check's SRDF (its ``disable_collisions`` pairs are not checked) and
            MoveIt ``joint_limits.yaml``, as :func:`motion_formats_ros.safety.check` takes them.
        open_browser: Open the page in the default browser.
        check: Run the safety check (:func:`motion_formats_ros.safety.check`) on the robot
            model once the page is served, and show its findings.
        simulate: Keyword arguments of :func:`motion_formats_ros.simulation.simulate`: show what the
            robot did on its physical model, the motion as its ghost, a fall on the timeline.
        announce: Print the page's address (and a warning when it is served beyond this
            machine) on standard output.
        format, read_options: How to read ``motion`` when it is a path (as ``read``).
    """
    from .page import Viewer, ViewOptions
    from .scene_drawing import scene_drawing_for

    motion_file = _motion_file(motion, body, format, read_options)
    given = urdf if urdf is not None else body
    model_path = Path(given) if given is not None and model is None else None
    if model is None:
        model = load_model(urdf, body)
    if model is None and motion_file.robot_description:
        from ..core.kinematics import RobotModel

        model = RobotModel.from_urdf(motion_file.robot_description, source=f"{motion_file.source}: /robot_description")
    report = None
    if simulate is not None:
        motion_file, group, report = _simulated(motion_file, model, group, simulate, package_paths)
    options = ViewOptions(
        group=group,
        joints=joints,
        host=host,
        port=port,
        at=at,
        paused=paused,
        speed=speed,
        loop=loop,
        package_paths=tuple(str(p) for p in package_paths),
        srdf=srdf,
        limits=limits,
        open_browser=open_browser,
        title=Path(motion_file.source).name if motion_file.source else None,
        check=check or report is not None,
        report=report,
    )
    viewer = Viewer(
        motion_file,
        model,
        model_path=model_path,
        options=options,
        scene=scene_drawing_for(motion_file),
    )
    if announce:
        what = options.title or "the motion"
        print(f"viewing {what} at {viewer.url} (stop() ends it; wait() serves until Ctrl-C)", flush=True)
        if viewer.exposure is not None:
            print(f"warning: {viewer.exposure}", file=sys.stderr, flush=True)
    return viewer


def _motion_file(
    motion: MotionFile | Motion | str | os.PathLike[str],
    body: str | os.PathLike[str] | None,
    format: str | None,
    read_options: dict[str, Any],
) -> MotionFile:
    """The motion file to show: given, or read (a .body names the joints of the .seq it drives, as --body does)."""
    from ..core.model import Motion, MotionFile

    if isinstance(motion, Motion):
        return MotionFile.single(motion)
    if isinstance(motion, MotionFile):
        return motion
    from ..registry import codec_by_name, codec_for_path, read, with_body

    codec = codec_by_name(format) if format else codec_for_path(Path(motion))
    return read(Path(motion), format=format, **with_body(read_options, codec, body=body)[0])


def _simulated(
    motion_file: MotionFile, model: Any, group: str | None, options: dict[str, Any], package_paths: Sequence[Any]
) -> tuple[MotionFile, str, Any]:
    """The file to show for a simulation: ``actual`` (what the robot did) drawn, ``target`` (the plan) its ghost."""
    import dataclasses

    from ..simulation import simulate

    if model is None:
        raise ValueError("simulating needs a robot model (urdf or body)")
    plan = motion_file.group(group)
    result = simulate(plan, model, package_paths=package_paths, source=str(motion_file.source or "motion"), **options)
    groups = {"actual": result.motion(), "target": plan}
    return dataclasses.replace(motion_file, groups=groups), "actual", result.report


__all__ = ["load_model", "view"]
