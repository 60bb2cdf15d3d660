"""Many recordings and motion files → outputs, on local worker processes or a Dask cluster.

:func:`find_inputs` walks the sources (a rosbag2 folder is one input, never its member
files), :func:`plan` gives each input its output under the output folder (mirroring the
input tree, the new suffix) and says which are already done (an output newer than its
input is skipped unless ``overwrite``), and :func:`run` converts the rest with
:func:`convert_one`: in this process (one worker), in local worker processes, or on the
workers of a Dask distributed cluster (optional extra ``[batch]``), which write their
outputs to the output folder themselves (a file system they share, as on a cluster).

A failed input never stops the batch: its :class:`Result` carries the error. Outputs are
written atomically by the codecs, so an interrupted batch leaves no half-written file,
and running it again converts only what is missing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import stat
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..core.atomic import (
    INPUT_RULE,
    Inputs,
    check_not_in_bag,
    folders_to_make,
    is_bag_folder,
    make_folders,
    named_as_recorded,
    remove_own_temporaries,
    remove_temporaries_of,
)
from ..core.errors import (
    MotionFormatError,
    MotionValueError,
    ReadError,
    UnknownFormatError,
    WriteError,
    listed,
    require,
)
from ..core.nonfinite import warn_nonfinite
from ..core.notices import NoticeKind, collect, notify
from ..registry import CODECS, codec_for_path, read, read_head, with_body, write, written_counts
from .targets import TARGETS, Target


@dataclasses.dataclass(frozen=True)
class Settings:
    """What applies to every input (the options ``bag2motion`` and ``convert`` take).

    Attributes:
        to: A :data:`TARGETS` name.
        bag_options: rosbag read options (topics, root, joints, start, end, rate …).
        read_options: Read options of the other formats (joint names, joint map, body …);
            each input's codec gets those it declares.
        group, joints, start, end, rate, method: ``convert``'s selection and resampling
            (for bags, ``joints``/``start``/``end``/``rate`` go to the bag reader, as in
            ``bag2motion``; ``group`` applies to every input).
        write_options: Options of the output codec.
        strict: Fail an input on any warning, and write no output for it (``--strict``).
        simulate: Keyword arguments of :func:`motion_formats_ros.simulation.simulate` (``robot``
            among them): each input is played on the robot's physical model and the output is
            what the robot did; None: plain conversion.
    """

    to: str
    bag_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    read_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    group: str | None = None
    joints: list[str] | None = None
    start: float | None = None
    end: float | None = None
    rate: float | None = None
    method: str = "linear"
    write_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    strict: bool = False
    simulate: dict[str, Any] | None = None


@dataclasses.dataclass(frozen=True)
class Job:
    """One input to convert: where from, where to, with what."""

    source: str
    output: str
    settings: Settings


@dataclasses.dataclass
class Result:
    """What became of one input (one entry of ``--report``)."""

    path: str
    status: str  # converted, skipped, failed
    output: str
    outputs: list[str] = dataclasses.field(default_factory=list)
    frames: int | None = None
    duration: float | None = None
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    error: str | None = None
    warnings: list[str] = dataclasses.field(default_factory=list)
    notices: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # the warnings as typed notices
    simulation: dict[str, Any] | None = None  # a simulated input's verdict (SimulationReport.row)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# --------------------------------------------------------------------------- inputs
def _suffixes() -> list[str]:
    out = [s for info in CODECS.values() for s in (*info.suffixes, *info.shared)]
    return sorted(set(out), key=len, reverse=True)


def input_suffix(path: Path) -> str:
    """The registered suffix ``path`` ends with (the longest; '' for a folder or none)."""
    if path.is_dir():
        return ""
    name = path.name.lower()
    return next((s for s in _suffixes() if name.endswith(s)), "")


def _is_input(path: Path) -> bool:
    """Whether a file or folder met while walking is a recording or motion file."""
    try:
        info = codec_for_path(path)
        if info.content_decides:  # e.g. not every CSV file is a motion table: only those with a time column first
            return info.sniff(path, read_head(path, 4096))
    except (UnknownFormatError, MotionFormatError, OSError):
        return False
    return not path.is_dir() or info.directories


def find_inputs(sources: Sequence[Path], exclude: Sequence[Path] = ()) -> list[tuple[Path, Path]]:
    """(input, path relative to its source root) for every input under ``sources``.

    A file given directly is an input whatever its suffix (a bad one fails in the batch);
    folders are searched recursively for rosbag2 folders (one input each, never their
    member files), ``.mcap``/``.db3``/``.bag`` files and files of every readable format
    (``.yaml``/``.json`` only when their content is a motion, ``.csv`` only when its first
    column is ``time``). Hidden files and folders
    and the folders in ``exclude`` (the output folder) are left out; so is what is not a
    regular file (a FIFO, a socket, a device), with a warning. An input reached twice (two
    sources, a link) is listed once.
    """
    skip = {os.path.realpath(p) for p in exclude}
    found: list[tuple[Path, Path, str]] = []
    for source in sources:
        src = Path(source)
        if not src.exists():
            raise ReadError(src, "no such file or folder")
        if src.is_file() or _is_rosbag_folder(src):
            found.append((src, Path(src.name), os.path.realpath(src)))
        elif src.is_dir():
            found.extend(_search(src, skip))
        else:
            raise ReadError(src, f"not a regular file or folder ({_kind(src)})")
    unique: dict[str, tuple[Path, Path]] = {}
    for path, rel, real in found:
        unique.setdefault(real, (path, rel))
    return list(unique.values())


def _search(src: Path, skip: set[str]) -> Iterator[tuple[Path, Path, str]]:
    """The inputs in the folder ``src`` and below (see :func:`find_inputs`): (path, path below
    ``src``, real path), leaving out the folders whose real path is in ``skip``.

    Each folder's real path is its parent's with its name added (the walk never enters a
    linked folder): only links are resolved. ``realpath`` of every path would look up each
    level of it again, which makes a deep tree cost the square of its depth.
    """
    top = os.fspath(src)
    real = {top: os.path.realpath(top)}
    for folder, dirs, files in _walk(src):
        real_here = real.pop(folder)
        keep = []
        for d in sorted(dirs):
            path = os.path.join(folder, d)
            linked = os.path.islink(path)
            real_d = os.path.realpath(path) if linked else os.path.join(real_here, d)
            if d.startswith(".") or real_d in skip:
                continue
            try:
                bag_folder = _is_rosbag_folder(path)
            except OSError as exc:
                notify(NoticeKind.SKIPPED, f"skipped, cannot be read: {exc.strerror or exc}", file=path, stacklevel=3)
                continue
            if bag_folder:
                yield Path(path), Path(os.path.relpath(path, top)), real_d
            else:
                keep.append(d)
                if not linked:  # the walk enters it: its real path is needed there
                    real[path] = real_d
        dirs[:] = keep
        for f in sorted(files):
            path = os.path.join(folder, f)
            if f.startswith("."):
                continue
            if not os.path.isfile(path):  # a FIFO would block the first read; a socket or device is no motion
                if os.path.exists(path):
                    notify(
                        NoticeKind.SKIPPED,
                        f"skipped, not a regular file ({_kind(Path(path))})",
                        file=path,
                        stacklevel=3,
                    )
                continue
            if not input_suffix(Path(path)) or not _is_input(Path(path)):
                continue
            real_f = os.path.realpath(path) if os.path.islink(path) else os.path.join(real_here, f)
            yield Path(path), Path(os.path.relpath(path, top)), real_f


def refuse_output_in_sources(sources: Sequence[Path], outdir: Path) -> None:
    """Refuse an output folder that is a source folder or lies inside one (symbolic links resolved).

    Its outputs would be inputs of the next batch of that folder (one with another ``-o``,
    or ``-o`` the folder itself, whose walk cannot leave its own root out), converted again
    into outputs nested ever deeper. A hidden folder inside is accepted: the walk never
    enters one.

    Raises:
        WriteError: Naming the output folder and the source folder it is in.
    """
    out = Path(os.path.realpath(outdir))
    for source in sources:
        src = Path(os.path.realpath(source))
        if not src.is_dir() or (out != src and src not in out.parents):
            continue
        if any(part.startswith(".") for part in out.relative_to(src).parts):
            continue
        where = f"is the input folder {source}" if out == src else f"is inside the input folder {source}"
        raise WriteError(
            outdir,
            f"output folder {where}: a later batch of it would read the outputs as inputs; "
            "choose a folder outside it (or a hidden one in it, which the search never enters)",
        )


def _kind(path: Path) -> str:
    """What a path that is neither a regular file nor a folder is (for messages)."""
    mode = path.stat().st_mode
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


def _is_rosbag_folder(path: str | os.PathLike[str]) -> bool:
    """A rosbag2 folder: ``metadata.yaml`` beside its storage files, or (a recording never
    closed) storage files named as rosbag2 names them, ``<folder>_<n>.mcap``; a folder that
    merely holds bare bag files is searched like any other."""
    if not os.path.isdir(path):
        return False
    if os.path.isfile(os.path.join(path, "metadata.yaml")):
        return any(info.directories and info.sniff(Path(path), "") for info in CODECS.values())
    return named_as_recorded(path, os.listdir(path))


# --------------------------------------------------------------------------- plan
def output_for(source: Path, rel: Path, outdir: Path, target: Target, keep_suffix: bool = False) -> Path:
    """The output of ``source`` (``rel`` below its source root) under ``outdir``, with the target's suffix."""
    name = rel.name
    suffix = "" if keep_suffix else input_suffix(source)
    if suffix:
        name = name[: len(name) - len(suffix)]
    return outdir / rel.parent / (name + target.suffix)


def _walk(top: Path) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(top)`` without recursion: top down, the caller may prune the folders it is
    given, symbolic links to folders are listed but not entered, unreadable folders skipped.

    Python's own walk calls itself once per level and fails past about a thousand levels
    (a deep tree is a valid input: it is searched, not refused with a traceback).
    """
    stack = [os.fspath(top)]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError:
            continue
        dirs: list[str] = []
        files: list[str] = []
        for entry in listed:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirs if is_dir else files).append(entry.name)
        yield folder, dirs, files
        for name in reversed(dirs):  # in the order the caller left them, each before the next
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                stack.append(path)


def _mtime(path: Path) -> int:
    """Modification time (ns) of a file, or of the newest file in a folder."""
    if path.is_dir():
        times = [path.stat().st_mtime_ns]
        for folder, _, files in _walk(path):
            times.extend(Path(folder, f).stat().st_mtime_ns for f in files)
        return max(times)
    return path.stat().st_mtime_ns


def existing_outputs(output: Path, codec: str, others: set[Path]) -> list[Path]:
    """The files a previous run wrote for ``output`` (tables: one per group when several).

    ``others``: the outputs of the batch's other inputs, never taken for a group's table
    (``a.b.parquet`` of the input ``a.b.mcap`` is not a group ``b`` of ``a.parquet``).
    """
    if output.exists():
        return [output]
    if not CODECS[codec].per_group or not output.parent.is_dir():
        return []
    stem, suffix = output.name[: -len(output.suffix)], output.suffix
    found = []
    for p in sorted(output.parent.glob(f"{stem}.*{suffix}")):
        middle = p.name[len(stem) + 1 : -len(suffix)]
        if middle and "." not in middle and p not in others:
            found.append(p)
    return found


def is_done(source: Path, output: Path, codec: str, others: set[Path]) -> list[Path] | None:
    """The outputs of ``source`` when every one is newer than it, else None."""
    outputs = existing_outputs(output, codec, others)
    if not outputs:
        return None
    newest_input = _mtime(source)
    if output.is_dir():
        meta = output / "metadata.yaml"
        return [output] if meta.exists() and meta.stat().st_mtime_ns > newest_input else None
    if all(p.stat().st_mtime_ns > newest_input for p in outputs):
        return outputs
    return None


def _clear_group_tables(
    inputs: Sequence[tuple[Path, Path]], outputs: list[Path], outdir: Path, target: Target
) -> list[Path]:
    """Outputs whose per-group tables (``a.GROUP.csv``) could be another input's output
    (``a.target.csv`` of ``a.target.mcap``) keep their input's suffix (``a.mcap.GROUP.csv``)."""
    taken = set(outputs)
    suffix = target.suffix
    owners = set()
    for out in outputs:
        stem = out.name[: -len(suffix)]
        head, dot, group = stem.rpartition(".")
        if dot and head and group:
            owners.add(out.with_name(head + suffix))
    return [
        output_for(source, rel, outdir, target, keep_suffix=True) if out in owners and out in taken else out
        for (source, rel), out in zip(inputs, outputs, strict=True)
    ]


def _root(source: Path, rel: Path) -> Path:
    """The source root ``source`` was found under (``rel`` is its path below it)."""
    parts = source.parts[: len(source.parts) - len(rel.parts)]
    return Path(*parts) if parts else Path(".")


def _one_folder_per_root(inputs: Sequence[tuple[Path, Path]], outputs: list[Path], outdir: Path) -> list[Path]:
    """Inputs of different source roots with the same path below them (``r1/a.msgpack`` and
    ``r2/a.msgpack``) get their outputs in a folder named after their root (``OUT/r1/a.csv``)."""
    roots: dict[Path, set[Path]] = {}
    for (source, rel), out in zip(inputs, outputs, strict=True):
        roots.setdefault(out, set()).add(_root(source, rel))
    moved = []
    for (source, rel), out in zip(inputs, outputs, strict=True):
        if len(roots[out]) > 1:
            root = _root(source, rel)
            name = root.name or root.resolve().name or "root"
            out = outdir / name / out.relative_to(outdir)
        moved.append(out)
    return moved


def plan(
    inputs: Sequence[tuple[Path, Path]],
    outdir: Path,
    settings: Settings,
    overwrite: bool = False,
    protected: Sequence[str | os.PathLike[str]] = (),
) -> tuple[list[Job], list[Result]]:
    """Jobs for the inputs to convert, and results for the others (``skipped``: done).

    Two inputs that would share an output (``a.mcap`` and ``a.db3`` side by side) keep
    their own suffix in the output name (``a.mcap.parquet``, ``a.db3.parquet``); so does a
    table output whose per-group files could be another input's (``a.mcap`` beside
    ``a.target.mcap``: ``a.mcap.target.csv`` and ``a.target.csv``). Inputs of several
    source roots that would share an output (``r1/a.msgpack``, ``r2/a.msgpack``) go to a
    folder named after their root (``OUT/r1/a.csv``); if even that is shared (two roots of
    one name), every input after the first fails (a ``failed`` result in the second list)
    rather than overwrite another's output.

    No output may be, hold or go inside an input, or a file of ``protected`` (the robot
    model …): where one would, nothing is planned (:func:`refuse_lost_inputs`). Nor is anything
    where ``outdir`` is a symbolic link to nothing or a file (:func:`~..core.atomic.folders_to_make`).
    """
    folders_to_make(outdir)  # a link to nothing or a file in its place: one error, before any work
    if is_bag_folder(outdir):  # nor are outputs written into a bag's folder
        raise WriteError(
            outdir, "output folder is a rosbag2 bag's, which holds the bag's own files only: choose another"
        )
    check_not_in_bag(outdir)  # nor into a folder inside one, which is part of the bag
    target = TARGETS[settings.to]
    outputs = [output_for(source, rel, outdir, target) for source, rel in inputs]
    outputs = _one_folder_per_root(inputs, outputs, outdir)
    counts: dict[Path, int] = {}
    for out in outputs:
        counts[out] = counts.get(out, 0) + 1
    outputs = [
        out.with_name(output_for(source, rel, outdir, target, keep_suffix=True).name) if counts[out] > 1 else out
        for (source, rel), out in zip(inputs, outputs, strict=True)
    ]
    if CODECS[target.codec].per_group:
        outputs = _clear_group_tables(inputs, outputs, outdir, target)
    refuse_lost_inputs(inputs, outputs, outdir, protected)
    primaries = set(outputs)
    jobs: list[Job] = []
    skipped: list[Result] = []
    owner: dict[Path, Path] = {}
    for (source, _), out in zip(inputs, outputs, strict=True):
        first = owner.setdefault(out, source)
        if first is not source:  # never two inputs into one file
            error = f"{source}: its output {out} is also the output of {first}; convert one of them separately"
            skipped.append(Result(str(source), "failed", str(out), error=error))
            continue
        done = None if overwrite else is_done(source, out, target.codec, primaries)
        if done is not None:
            skipped.append(Result(str(source), "skipped", str(out), [str(p) for p in done]))
        else:
            jobs.append(Job(str(source), str(out), settings))
    return jobs, skipped


def refuse_lost_inputs(
    inputs: Sequence[tuple[Path, Path]],
    outputs: Sequence[Path],
    outdir: Path,
    protected: Sequence[str | os.PathLike[str]] = (),
) -> None:
    """One :class:`WriteError` listing every (input, output) pair whose output is, holds or is
    inside one of the inputs or ``protected`` files (:class:`~..core.atomic.Inputs`)."""
    guard = Inputs([*(source for source, _ in inputs), *protected])
    clashes = []
    for (source, _), out in zip(inputs, outputs, strict=True):
        reason = guard.conflict(out)
        if reason is not None:
            clashes.append(f"{source} -> {out} ({reason})")
    if clashes:
        raise WriteError(
            outdir,
            f"nothing converted: {len(clashes)} output(s) would replace an input: {listed(clashes, sep='; ')}; "
            f"{INPUT_RULE} (choose another output folder)",
        )


# --------------------------------------------------------------------------- one input
def convert_one(job: Job) -> Result:
    """Read, select, resample and write one input; every error is caught into the result.

    This runs on the workers (local processes or Dask): it takes and returns plain data.
    """
    from . import convert  # loaded by the workers, not by ``motion-formats --help``

    started = time.perf_counter()
    cpu_started = time.process_time()
    s = job.settings
    target = TARGETS[s.to]
    result = Result(job.source, "failed", job.output)
    # The job's notices stay its own (returned in the result), whichever process runs it.
    with warnings.catch_warnings(record=True) as caught, collect(isolated=True, strict=s.strict) as report:
        warnings.simplefilter("always")
        try:
            source = Path(job.source)
            info = codec_for_path(source)
            codec = info.name
            # --body: the read's (it names a .seq's columns) and the write's (it orders them), as in convert
            reads, body = with_body(s.read_options, info, writer=CODECS[target.codec])
            if info.recording:  # the reader cuts, selects and resamples as it reads the messages
                bag = dict(s.bag_options, joints=s.joints, start=s.start, end=s.end, rate=s.rate, progress=False)
                motion_file = read(source, format=codec, **bag)
                motion_file = convert.transform(motion_file, group=s.group)
            else:
                motion_file = read(source, format=codec, **CODECS[codec].accepted(reads, "read"))
                motion_file = convert.transform(
                    motion_file, group=s.group, joints=s.joints, start=s.start, end=s.end, rate=s.rate, method=s.method
                )
            warn_nonfinite(motion_file, source)
            if s.simulate is not None:
                motion_file, result.simulation = _simulated(motion_file, s.simulate, job.source)
            out = Path(job.output)
            make_folders(out.parent)
            written = write(
                motion_file,
                out,
                format=target.codec,
                overwrite=True,  # the plan decided: a missing or stale output is (re)written
                **CODECS[target.codec].accepted({**body, **s.write_options}, "write"),
            )
            groups = list(motion_file.groups.values())
            result.frames = written_counts(written, motion_file)[1]
            result.duration = max(m.duration for m in groups)
            outs = CODECS[target.codec].output_paths(out, list(motion_file.groups))
            result.outputs = [str(p) for p in outs]
            result.status = "converted"
        except MotionValueError as exc:  # a selection or value that does not fit this input: name it
            result.error = f"{job.source}: {exc}"
        except MotionFormatError as exc:
            result.error = str(exc)
        except OSError as exc:  # e.g. the output folder cannot be made
            named = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
            result.error = f"{job.source}: {named}{exc.strerror or exc}"
        except (ValueError, KeyError) as exc:
            message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            result.error = f"{job.source}: {message}"
        except Exception as exc:  # a bug must not stop the batch either; say where it is
            where = traceback.extract_tb(exc.__traceback__)[-1]
            result.error = (
                f"{job.source}: internal error {type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"
            )
    result.warnings = [str(w.message) for w in caught]
    result.notices = report.as_json()
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.process_time() - cpu_started
    return result


def _simulated(motion_file: Any, options: dict[str, Any], source: str) -> tuple[Any, dict[str, Any]]:
    """What the robot did when it played the motion (one group, ``actual``), and the verdict's row."""
    from ..core.model import MotionFile
    from ..simulation import simulate

    settings = dict(options)
    robot = settings.pop("robot")
    done = simulate(motion_file, robot, source=source, **settings)
    out = MotionFile(groups={"actual": done.motion()}, name=motion_file.name, robot=motion_file.robot)
    return out, done.report.row()


# --------------------------------------------------------------------------- executors
def scheduler_from_config() -> str | None:
    """The scheduler address Dask's own configuration gives (``scheduler-address``), if Dask is installed."""
    import importlib
    import importlib.util

    if importlib.util.find_spec("dask") is None:
        return None
    config: Any = importlib.import_module("dask.config")
    address = config.get("scheduler-address", None)
    return str(address) if address else None


def _failed(job: Job, error: str) -> Result:
    return Result(job.source, "failed", job.output, error=f"{job.source}: {error}")


def run(
    jobs: Sequence[Job],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    on_result: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Convert every job; results in the jobs' order.

    Args:
        jobs: From :func:`plan`.
        workers: Local worker processes (1: in this process). Ignored with ``scheduler``.
        scheduler: A Dask distributed scheduler address (``tcp://host:8786``): the
            cluster's workers do the work (they need this package and the file system).
        on_result: Called with each result as it arrives (progress).
    """
    notify = on_result or (lambda r: None)
    if not jobs:
        return []
    if scheduler:
        done = _run_dask(jobs, scheduler, notify)
    elif workers <= 1 or len(jobs) == 1:
        done = {}
        for i, job in enumerate(jobs):
            done[i] = convert_one(job)
            notify(done[i])
    else:
        done = _run_local(jobs, workers, notify)
    return [done[i] for i in range(len(jobs))]


class _WorkerState:
    """A local worker's stop: asked for once; a job that began before it is unwound once."""

    stopping = False  # a stop was asked for: no new job begins
    in_job = False  # a conversion is running (its temporaries are being written)


def _worker_stop(signum: int, frame: object) -> None:
    """SIGTERM in a worker: stop as SIGINT would (the running write removes its temporary).

    A second SIGTERM while the running job unwinds is ignored: raised inside that job's
    cleanup it would leave the temporary behind."""
    if _WorkerState.stopping and _WorkerState.in_job:
        return
    _WorkerState.stopping = True
    raise SystemExit(128 + signum)


def _leave_when_idle() -> None:
    """Stop this worker once it waits for work (SIGTERM again, until it has gone)."""

    def repeat() -> None:
        while True:
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=repeat, name="leave-when-idle", daemon=True).start()


def _watch_parent(alive: Any) -> None:
    """In a worker: wait until the batch process is gone (its end of ``alive`` closes), then stop."""
    with contextlib.suppress(OSError, EOFError):
        alive.poll(None)  # nothing is ever sent: this returns at EOF, when the parent has exited
    os.kill(os.getpid(), signal.SIGTERM)  # the clean way out: temporaries removed
    time.sleep(10.0)
    remove_own_temporaries()  # stuck in native code: go anyway, leaving nothing half-written
    os._exit(1)


def _worker_start(alive: Any) -> None:
    """Initializer of every local worker process: SIGTERM stops it as SIGINT does, and it
    exits when the batch process dies, however it dies (even SIGKILL: no orphans). SIGINT
    (Ctrl-C reaches the whole process group) is left to the batch process, which stops
    the workers with SIGTERM."""
    signal.signal(signal.SIGTERM, _worker_stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(alive,), name="parent-watch", daemon=True).start()


def _convert_in_worker(job: Job) -> Result:
    """:func:`convert_one` in a local worker: a stop fails this input (its result still goes
    back) and every input queued behind it, then the worker exits as soon as it is idle."""
    if _WorkerState.stopping:
        return _failed(job, "stopped before it began")
    _WorkerState.in_job = True
    try:
        return convert_one(job)
    except SystemExit as exc:
        _leave_when_idle()
        return _failed(job, f"stopped (worker exit status {exc.code})")
    finally:
        _WorkerState.in_job = False


def _run_local(jobs: Sequence[Job], workers: int, notify: Callable[[Result], None]) -> dict[int, Result]:
    import concurrent.futures
    import multiprocessing

    # forkserver: workers start from a clean interpreter, never a fork of threads (progress bar).
    context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    done: dict[int, Result] = {}
    # Only this process holds the sending end: when it exits, the workers read EOF.
    alive_r, alive_w = context.Pipe(duplex=False)
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)), mp_context=context, initializer=_worker_start, initargs=(alive_r,)
    )
    try:
        futures = {pool.submit(_convert_in_worker, job): i for i, job in enumerate(jobs)}
        for future in concurrent.futures.as_completed(futures):
            i = futures[future]
            try:
                done[i] = future.result()
            except Exception as exc:  # the worker process died (killed, out of memory)
                done[i] = _failed(jobs[i], f"worker process failed: {type(exc).__name__}: {exc}")
            notify(done[i])
    except BaseException:
        # Interrupted: the running inputs stop too (their temporaries removed), not just the queue.
        processes = dict(getattr(pool, "_processes", None) or {})
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes.values():
            if process.is_alive():
                process.terminate()
        for process in processes.values():
            process.join(10.0)
            if process.is_alive():
                process.kill()
                process.join(10.0)
        # A worker that had to be killed, or was stopped between making a temporary and
        # taking charge of it, left it behind: the ended workers' temporaries go.
        ended = [p.pid for p in processes.values() if not p.is_alive() and p.pid is not None]
        for folder in {os.path.dirname(os.path.abspath(job.output)) for job in jobs}:
            remove_temporaries_of(folder, ended)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        alive_w.close()
        alive_r.close()
    return done


def _run_dask(jobs: Sequence[Job], address: str, notify: Callable[[Result], None]) -> dict[int, Result]:
    distributed = require("distributed", "--scheduler (a Dask cluster)", package="dask[distributed]", extra="batch")

    done: dict[int, Result] = {}
    try:
        client = distributed.Client(address, timeout="30s")
    except (OSError, TimeoutError) as exc:
        raise MotionFormatError(f"Dask scheduler {address}: cannot connect ({exc})") from None
    try:
        futures = client.map(convert_one, list(jobs), pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for future in distributed.as_completed(futures):
            i = index[future.key]
            try:
                done[i] = future.result()
            except Exception as exc:  # the task was lost (worker killed too often)
                done[i] = _failed(jobs[i], f"Dask task failed: {type(exc).__name__}: {exc}")
            notify(done[i])
    finally:
        client.close()
    return done


def summary(results: Iterable[Result]) -> dict[str, int]:
    """Count of results by status."""
    counts = {"converted": 0, "skipped": 0, "failed": 0}
    for r in results:
        counts[r.status] = counts.get(r.status, 0) + 1
    return counts


__all__ = [
    "TARGETS",
    "Job",
    "Result",
    "Settings",
    "Target",
    "convert_one",
    "find_inputs",
    "is_done",
    "output_for",
    "plan",
    "refuse_output_in_sources",
    "run",
    "scheduler_from_config",
    "summary",
]
