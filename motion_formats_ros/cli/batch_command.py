"""``batch``: convert many recordings and motion files at once (see ../batch.py)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..core.atomic import check_output, write_bytes_atomic
from ..core.errors import MissingDependencyError, OutOfRangeError, WriteError, require
from ..core.options import Resample
from ..pipeline import targets
from . import values
from .check_command import EXIT_FINDINGS
from .flags import (
    BAG_READ_ALIASES,
    MOTION2BAG_ALIASES,
    READ_ALIASES,
    WRITE_ALIASES,
    add_aliases,
    add_option_flags,
    aliases_given,
    bag_read_options,
    load_model_options,
    name_list_or_none,
    option_files,
    pairs_for,
    split_read_pairs,
)
from .simulate import add_simulation_arguments, simulation_options

if TYPE_CHECKING:
    from ..pipeline import batch

#: ``--storage``: a bag output's storage (as ``motion2bag --storage``).
_STORAGE = tuple(a for a in MOTION2BAG_ALIASES if a.name == "storage")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: expected 1 or more")
    return value


def add_parser(sub: Any) -> None:
    """Register ``batch`` on the ``motion-formats`` subparsers."""
    p = sub.add_parser(
        "batch",
        help="convert many bags / motion files (folders searched recursively) on local workers or a Dask cluster",
        description="Convert every recording (rosbag2 folder, .mcap, .db3, .bag) and motion file under SRC into "
        "OUTDIR, mirroring the input tree. Outputs newer than their input are skipped; failures are listed "
        "at the end (exit status 1).",
    )
    p.add_argument("sources", type=Path, nargs="+", metavar="SRC", help="files or folders")
    p.add_argument("-o", "--output-dir", type=Path, required=True, metavar="OUTDIR", help="the folder to write into")
    p.add_argument("--to", dest="to_format", choices=list(targets.TARGETS), required=True, help="output format")
    p.add_argument("--workers", type=_positive, help="local worker processes (default: the number of cores)")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask distributed scheduler (tcp://host:8786; default: Dask's scheduler-address config, "
        "else local workers); needs the [batch] extra",
    )
    p.add_argument("--overwrite", action="store_true", help="redo inputs whose output is up to date")
    p.add_argument(
        "--report", type=Path, metavar="FILE.json", help="write one entry per input here ('-': standard output)"
    )
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar")
    # What convert / bag2motion take, applied to every input.
    p.add_argument("--group", help="write only this group")
    p.add_argument("--joints", type=name_list_or_none, help="keep only these joints, in this order (a,b,c)")
    p.add_argument("--start", type=values.seconds, help="drop frames before this time (s)")
    p.add_argument("--end", type=values.seconds, help="drop frames after this time (s)")
    p.add_argument("--rate", type=values.rate, help="resample to this many frames per second")
    p.add_argument("--resample", choices=Resample.values(), help="resampling method for --rate (default linear)")
    add_aliases(p, (*READ_ALIASES, *BAG_READ_ALIASES, *WRITE_ALIASES, *_STORAGE))
    add_option_flags(p)
    sim = p.add_argument_group(
        "simulation",
        "--simulate: play each input on a physical model of the robot (MuJoCo, the sim extra); each output is "
        "what the robot did, and a table of the verdicts ends the run (--body or --urdf names the robot)",
    )
    sim.add_argument("--simulate", action="store_true", help="simulate every input on the robot model")
    sim.add_argument("--urdf", type=Path, help="the robot's URDF (else --body)")
    sim.add_argument("--srdf", type=Path, help="SRDF: its disable_collisions pairs do not collide")
    sim.add_argument("--package-path", dest="package_paths", type=Path, action="append", default=[], help="mesh folder")
    add_simulation_arguments(sim, speed="--sim-speed")
    # A flag given at its default value is given all the same: a simulation flag whose default is
    # a value has the mark of "not given" as its default instead, and the value it stands for is
    # kept aside for --simulate.
    stands_for = {dest: p.get_default(dest) for dest in _VALUE_DEFAULTS}
    p.set_defaults(handler=cmd_batch, simulation_defaults=stands_for, **dict.fromkeys(stands_for, _NOT_GIVEN))


#: The flags only the simulation uses (their destination and spelling): without ``--simulate``
#: one of them is a mistake, never silently ignored. Each is given when its value is not its
#: default: None, an empty list (``--package-path`` appends) or :data:`_NOT_GIVEN`.
_SIMULATION_ONLY: tuple[tuple[str, str], ...] = (
    ("urdf", "--urdf"),
    ("srdf", "--srdf"),
    ("package_paths", "--package-path"),
    ("gains", "--gains"),
    ("kp", "--kp"),
    ("kd", "--kd"),
    ("sim_speed", "--sim-speed"),
    ("floating", "--fixed-base/--floating-base"),
    ("timestep", "--timestep"),
    ("record_rate", "--record-rate"),
)

#: The simulation flags whose default is a value (every other one's is None or an empty list).
_VALUE_DEFAULTS = ("sim_speed", "record_rate")


class _NotGiven:
    """The default of a simulation flag whose own default is a value: the flag was not given."""

    def __repr__(self) -> str:
        return "<not given>"


_NOT_GIVEN = _NotGiven()


def _simulation_settings(args: argparse.Namespace) -> dict[str, Any] | None:
    """The simulation's keyword arguments (the robot model among them), or None without --simulate."""
    if not args.simulate:
        given = [flag for dest, flag in _SIMULATION_ONLY if getattr(args, dest, None) not in (None, [], _NOT_GIVEN)]
        if given:
            raise OutOfRangeError(f"{given[0]} is used only with --simulate")
        return None
    defaults = {dest: value for dest, value in args.simulation_defaults.items() if getattr(args, dest) is _NOT_GIVEN}
    args = argparse.Namespace(**{**vars(args), **defaults})
    robot = args.urdf or getattr(args, "body", None)
    if robot is None:
        raise OutOfRangeError("--simulate needs the robot model: --body or --urdf")
    return {**simulation_options(args), "robot": robot, "package_paths": list(args.package_paths)}


def simulation_table(results: list[batch.Result]) -> list[str]:
    """One line per simulated input: stood or fell (when), worst tracking, peak effort, drift."""
    rows = [f"{'input':<40} {'verdict':<14} {'worst error':>18} {'peak effort':>18} {'drift':>8}"]
    for r in results:
        v = r.simulation
        if v is None:
            rows.append(f"{r.path:<40} {r.status:<14}")
            continue
        verdict = "stood" if v["stood"] else f"FELL {v['fall_time']:.3g} s"
        error = f"{v['error_max']:.4f} {v['error_joint']}" if v["error_max"] is not None else "-"
        effort = f"{v['effort_peak']:.4g} {v['effort_joint']}" if v["effort_peak"] is not None else "-"
        drift = "-" if v["drift"] is None else f"{v['drift']:.3f}"
        rows.append(f"{r.path:<40} {verdict:<14} {error:>18} {effort:>18} {drift:>8}")
    return rows


def settings_from(args: argparse.Namespace) -> batch.Settings:
    """The batch settings the command line gives."""
    from ..pipeline import batch  # the pipeline only when a batch runs

    bag_pairs, read_pairs = split_read_pairs(args.read_pairs)
    bag = {**bag_read_options(args, pairs=False), **bag_pairs}
    writes = aliases_given(args, (*WRITE_ALIASES, *_STORAGE))
    writes.update(pairs_for(targets.TARGETS[args.to_format].codec, "write", args.write_pairs))
    return batch.Settings(
        to=args.to_format,
        bag_options=bag,
        read_options={**aliases_given(args, READ_ALIASES), **read_pairs},
        group=args.group,
        joints=args.joints,
        start=args.start,
        end=args.end,
        rate=args.rate,
        method=args.resample or "linear",
        write_options=writes,
        strict=bool(getattr(args, "strict", False)),
        simulate=_simulation_settings(args),
    )


def _command_line_files(args: argparse.Namespace) -> dict[str, Any]:
    """The files batch's own flags name (the robot model, ``--srdf``, ``--gains``), whether or not
    the run simulates: each is an input of every pair. (``--body`` is the robot only for the
    simulation; as a read option it is protected with the other options' files.)"""
    body = getattr(args, "body", None) if args.simulate else None
    return {
        "robot": args.urdf or body,
        "srdf": getattr(args, "srdf", None),
        "gains": getattr(args, "gains", None),
    }


def _robot_model(named: dict[str, Any]) -> Any:
    """The robot model batch's flags name (read once, before any work: a bad one stops the batch), or None."""
    from ..core.kinematics import load_robot_model

    robot = named.get("robot")
    return load_robot_model(robot) if isinstance(robot, (str, os.PathLike)) else None


def _option_files(settings: batch.Settings, named: dict[str, Any], robot: Any) -> list[str | os.PathLike[str]]:
    """The files the options name (``--body``, a joint map file …), the files of ``named`` (batch's
    own flags: :func:`_command_line_files`) and the files their robot models were read from (a
    xacro file's includes and YAML files): inputs no output may touch, with or without --simulate.

    ``robot`` is the model of ``named`` as :func:`_robot_model` read it (the one the workers
    simulate on). A robot model an option names is read here, once, and becomes the option's
    value: the workers use it as read before any output existed (read again, a xacro include's
    glob could match an output written meanwhile).
    """
    from ..registry import CODECS

    options = {**settings.bag_options, **settings.read_options, **settings.write_options}
    given = [p for p in (named.get(k) for k in ("robot", "srdf", "gains")) if isinstance(p, (str, os.PathLike))]
    files = [*option_files(options, *CODECS), *given, *(robot.files if robot is not None else ())]
    for kept in (settings.bag_options, settings.read_options, settings.write_options):
        files.extend(load_model_options(kept, *CODECS))
    return files


class Progress:
    """A tqdm bar (inputs done / total, failures) on a terminal; plain lines otherwise."""

    def __init__(self, total: int, enabled: bool | None, out: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.out = out or sys.stdout
        self.bar: Any = None
        terminal = sys.stderr.isatty()
        if enabled or (enabled is None and terminal):
            try:
                tqdm = require("tqdm", "--progress", package="tqdm", extra="progress", rosdep_key="python3-tqdm")
            except MissingDependencyError:
                if enabled:
                    raise
                tqdm = None  # no bar asked for and none installed: plain lines
            if tqdm is not None:
                self.bar = tqdm.tqdm(total=total, unit="input", file=sys.stderr, dynamic_ncols=True)

    def __call__(self, result: batch.Result) -> None:
        self.done += 1
        self.failed += result.status == "failed"
        for message in result.warnings:
            self._write(
                f"warning: {message}" if result.path in message else f"warning: {result.path}: {message}", sys.stderr
            )
        if self.bar is not None:
            self.bar.set_postfix(failed=self.failed, refresh=False)
            self.bar.update(1)
            if result.status == "failed":
                self.bar.write(f"failed: {result.error}", file=sys.stderr)
            return
        if result.status == "failed":
            error = result.error or ""
            named = error if result.path in error else f"{result.path}: {error}"
            print(f"[{self.done}/{self.total}] failed {named}", file=self.out, flush=True)
        else:
            done = "simulated" if result.simulation is not None else "converted"
            print(
                f"[{self.done}/{self.total}] {done} {result.path} -> {', '.join(result.outputs)} "
                f"({result.frames} frames, {result.seconds:.2f} s)",
                file=self.out,
                flush=True,
            )

    def _write(self, text: str, file: TextIO) -> None:
        if self.bar is not None:
            self.bar.write(text, file=file)
        else:
            print(text, file=file)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def cmd_batch(args: argparse.Namespace) -> int:
    from ..pipeline import batch  # the pipeline only when a batch runs

    started = time.perf_counter()
    to_stdout = str(args.report) == "-"  # the report is standard output; what batch says goes to stderr
    say = sys.stderr if to_stdout else sys.stdout
    scheduler = args.scheduler
    if scheduler is None and args.workers is None:
        scheduler = batch.scheduler_from_config()
    if scheduler:
        require("distributed", "--scheduler (a Dask cluster)", package="dask[distributed]", extra="batch")
    workers = args.workers or os.cpu_count() or 1
    settings = settings_from(args)
    outdir: Path = args.output_dir
    batch.refuse_output_in_sources(args.sources, outdir)
    inputs = batch.find_inputs(args.sources, exclude=[outdir])
    named = _command_line_files(args)
    robot = _robot_model(named)
    protected = _option_files(settings, named, robot)
    if settings.simulate is not None and robot is not None:
        # The workers simulate on the model as read here, before any output exists: one they
        # read again could differ (a xacro include's glob matching an output written meanwhile).
        settings = dataclasses.replace(settings, simulate={**settings.simulate, "robot": robot})
    if args.report and not to_stdout:  # a device, FIFO, an input … is refused before the work
        check_output(args.report, [*(source for source, _ in inputs), *protected], overwrite=True, folder=False)
    jobs, skipped = batch.plan(inputs, outdir, settings, overwrite=args.overwrite, protected=protected)
    if args.report and not to_stdout:  # nor is it one of the batch's own outputs
        report_path = os.path.realpath(args.report)
        if any(
            os.path.realpath(out) == report_path for out in [*(j.output for j in jobs), *(r.output for r in skipped)]
        ):
            raise WriteError(args.report, "is one of the batch's own outputs: the report goes elsewhere")
    where = f"Dask scheduler {scheduler}" if scheduler else f"{min(workers, max(len(jobs), 1))} local worker(s)"
    up_to_date = sum(r.status == "skipped" for r in skipped)
    print(
        f"batch: {len(inputs)} input(s), {up_to_date} up to date (skipped), {len(jobs)} to convert on {where}",
        file=say,
        flush=True,
    )
    for r in skipped:
        if r.status == "failed":
            print(f"failed {r.error}", file=say, flush=True)
    progress = Progress(len(jobs), args.progress, out=say)
    try:
        results = batch.run(jobs, workers=workers, scheduler=scheduler, on_result=progress)
    finally:
        progress.close()
    by_path = {r.path: r for r in [*results, *skipped]}
    ordered = [by_path[str(source)] for source, _ in inputs]
    counts = batch.summary(ordered)
    elapsed = time.perf_counter() - started
    if args.report:
        report: dict[str, Any] = {
            "summary": {**counts, "inputs": len(ordered), "seconds": elapsed},
            "inputs": [r.as_dict() for r in ordered],
        }
        text = json.dumps(report, indent=2) + "\n"
        if to_stdout:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            write_bytes_atomic(args.report, text.encode(), overwrite=True)
    print(
        f"batch: {counts['converted']} converted, {counts['skipped']} skipped (up to date), "
        f"{counts['failed']} failed, in {elapsed:.1f} s"
        + (f"; report {args.report}" if args.report and not to_stdout else ""),
        file=say,
    )
    fell = False
    if settings.simulate is not None:
        for line in simulation_table(ordered):
            print(line, file=say)
        fell = any(
            r.simulation and (not r.simulation["stood"] or r.simulation["effort_limit_findings"]) for r in ordered
        )
    failed = [r for r in ordered if r.status == "failed"]
    if failed:
        print(f"failed ({len(failed)}):", file=sys.stderr)
        for r in failed:
            error = r.error or ""
            print(f"  {error if r.path in error else f'{r.path}: {error}'}", file=sys.stderr)
        return 1
    return EXIT_FINDINGS if fell else 0


__all__ = ["Progress", "add_parser", "cmd_batch", "settings_from"]
