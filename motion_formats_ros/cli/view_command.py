"""``motion-formats view``: the motion on its robot in the browser (see :mod:`motion_formats_ros.view`)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from ..core.errors import OutOfRangeError
from ..registry import CODECS
from .bag import add_bag_read_arguments
from .flags import (
    READ_ALIASES,
    add_aliases,
    add_check_model,
    add_option_flags,
    name_list,
    read_beside_model,
)
from .simulate import add_simulation_arguments, simulation_options


def add_parser(sub: Any) -> None:
    """Register ``view`` on the ``motion-formats`` subparsers."""
    p = sub.add_parser(
        "view",
        help="look at a motion on its robot in the browser (timeline, joint curves)",
        description="Serve a local web page showing the motion on its robot: a timeline (space = play / "
        "pause), joint curves, the root path on a ground grid. Ctrl-C stops.",
    )
    p.add_argument("input", type=Path, help="any motion file this package reads, or a bag")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    add_check_model(p, required=False)
    p.add_argument("--group", help="group to show (default target; actual is drawn as a ghost beside it)")
    p.add_argument("--joints", type=name_list, help="joints whose curves are shown first (a,b,c)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, help="port (default 8080, or the next free one)")
    p.add_argument("--at", type=float, help="open at this time (s)")
    p.add_argument("--paused", action="store_true", help="open paused")
    p.add_argument("--speed", type=_speed, default=1.0, help="playback speed, 0.1 to 4 (default 1)")
    p.add_argument("--no-loop", dest="loop", action="store_false", help="stop at the end instead of looping")
    p.add_argument("--no-browser", action="store_true", help="only print the page's address")
    p.add_argument(
        "--no-check",
        dest="check",
        action="store_false",
        help="do not run the safety check on the robot model (the one `check` makes: self-collision, floor, "
        "balance, limits; with --srdf and --limits as check takes them)",
    )
    sim = p.add_argument_group(
        "simulation", "--simulate: play the motion on a physical model of the robot (MuJoCo, the sim extra) first"
    )
    sim.add_argument(
        "--simulate",
        action="store_true",
        help="show what the simulated robot did, the motion as a ghost beside it, a fall on the timeline",
    )
    add_simulation_arguments(sim, speed="--sim-speed")
    add_aliases(p, [a for a in READ_ALIASES if a.name != "body"])  # --body is the robot model here
    add_option_flags(p, write=False)
    bag = p.add_argument_group("bags", "how a bag's messages are read (as bag2motion reads them)")
    add_bag_read_arguments(bag)
    p.set_defaults(handler=cmd_view)


def _speed(text: str) -> float:
    from ..view.timeline import MAX_SPEED, MIN_SPEED

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number from {MIN_SPEED:g} to {MAX_SPEED:g}") from None
    if not MIN_SPEED <= value <= MAX_SPEED:  # NaN too
        raise argparse.ArgumentTypeError(f"{text}: expected a number from {MIN_SPEED:g} to {MAX_SPEED:g}")
    return value


def _say_when_checked(viewer: Any) -> None:
    """One line once the safety check the page runs is done (its findings are on the page)."""
    findings = viewer.findings
    while not findings.ready.wait(0.5):
        if viewer._stop.is_set():
            return
    report = findings.report
    if report is None:
        print(f"check: not done: {findings.error}", flush=True)
    else:
        print(f"check: {len(report.errors)} error(s), {len(report.warnings)} warning(s), shown on the page", flush=True)


def _on_signal(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM too: stop serving the same way


def cmd_view(args: argparse.Namespace) -> int:
    from ..view import view

    motion_file = read_beside_model(args)
    simulate = simulation_options(args) if args.simulate else None
    if simulate is not None and args.urdf is None and args.body is None:
        raise OutOfRangeError("--simulate needs the robot model: --urdf or --body")
    viewer = view(
        motion_file,
        urdf=args.urdf,
        body=args.body,
        group=args.group,
        joints=args.joints,
        host=args.host,
        port=args.port,
        at=args.at,
        paused=args.paused,
        speed=args.speed,
        loop=args.loop,
        package_paths=args.package_paths,
        srdf=args.srdf,
        limits=args.limits,
        open_browser=not args.no_browser,
        announce=False,
        check=args.check,
        simulate=simulate,
    )
    robot = f" on {viewer.model.name}" if viewer.model is not None else ""
    # Ctrl-C and SIGTERM stop the page cleanly (also when started where SIGINT was ignored),
    # from the moment the address is printed: whoever reads it may signal at once.
    previous = {sig: signal.signal(sig, _on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        print(f"viewing {args.input}{robot} at {viewer.url} (Ctrl-C to stop)", flush=True)
        if viewer.exposure is not None:
            print(f"warning: {viewer.exposure}", file=sys.stderr, flush=True)
        if simulate is not None:  # what the simulation found is the page's: its verdict once, here
            print(f"simulated: {viewer.options.report.lines()[0].split(': ', 1)[1]}", flush=True)
        elif viewer.findings is not None:
            threading.Thread(target=_say_when_checked, args=(viewer,), name="view-check-line", daemon=True).start()
        viewer.wait()
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        viewer.stop()
    print("stopped", file=sys.stderr)
    return 0


__all__ = ["add_parser", "cmd_view"]
