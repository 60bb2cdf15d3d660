"""``motion-formats``: inspect, convert and plot motion files.

Every subcommand turns a bad input, option or selection (the package's errors, all
:class:`~motion_formats_ros.core.errors.MotionFormatError`) into ``error: FILE:LINE: reason``
on stderr and exit status 1, and a file the system cannot open or write into one line
naming it (standard output too: ``cannot write to standard output: …``, also when it is
closed); warnings (data a format cannot hold …) go to stderr too, as ``warning: FILE:LINE:
message``, and nowhere when stderr is closed. Anything else is a bug and shows its traceback.

The commands that read or write files collect the warnings as typed notices
(:mod:`motion_formats_ros.core.notices`): ``--json`` adds them to the output as a
``notices`` list, and ``--strict`` fails on them as a compiler's ``-Werror`` does: every
warning is still printed, no output file is put in place once one was given (the write
stops with ``error: OUT: not written: …``), and the exit status is 1.
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import os
import signal
import sys
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..core.errors import MotionFormatError, OutOfRangeError, command_line
from ..core.notices import collect
from ..core.options import Resample
from ..registry import CODECS
from . import values
from .flags import READ_ALIASES, SPELLING, WRITE_ALIASES, Parser, add_aliases, add_option_flags, name_list

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
#: A bug: an exception the package does not raise on purpose (sysexits' EX_SOFTWARE).
EXIT_BUG = 70

#: The commands whose warnings ``--strict`` turns into failure (those that read or write motion files).
STRICT_COMMANDS = (
    *("info", "convert", "plot", "recover", "validate", "bag2motion", "motion2bag", "batch", "check", "simulate"),
)


#: The subcommands that have a module of their own: (module, the commands it adds, its function
#: that adds them), in the order ``--help`` lists them. A module is imported only when one of
#: its commands runs, or to list them all.
_MODULES = (
    ("validate", ("validate",), "add_parser"),
    ("bag", ("bag2motion", "motion2bag"), "add_parsers"),
    ("batch_command", ("batch",), "add_parser"),
    ("view_command", ("view",), "add_parser"),
    ("check_command", ("check",), "add_parser"),
    ("simulate", ("simulate",), "add_parser"),
    ("example", ("example",), "add_parser"),
)


def _add_read_options(p: argparse.ArgumentParser) -> None:
    """``--read-option NAME=VALUE``, and the aliases of a few read options (``options.READ_ALIASES``)."""
    add_option_flags(p, write=False)
    add_aliases(p, READ_ALIASES)


def _add_write_options(p: argparse.ArgumentParser) -> None:
    """``--write-option NAME=VALUE``, and the .seq and bag writers' aliases (``options.WRITE_ALIASES``)."""
    add_option_flags(p, read=False)
    add_aliases(p, WRITE_ALIASES)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation).

    With ``only``, the subcommands of a module of their own (``_MODULES``) are added only
    when ``only`` is one of them: the others' modules are not imported.
    """
    parser = Parser(
        prog="motion-formats",
        description="Inspect, convert, plot and view robot motion files.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    actions = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = actions.add_parser("formats", help="list the supported formats")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--options",
        action="store_true",
        help="list each format's read and write options, with the command-line spelling that sets each",
    )
    p.add_argument("--markdown", action="store_true", help="the options as a Markdown table (for the manual)")

    p = actions.add_parser("info", help="summarise a motion file")
    p.add_argument("file", type=Path, help="any motion file this package reads, or a bag")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    _add_read_options(p)

    p = actions.add_parser("convert", help="convert between formats (format from the suffix)")
    p.add_argument("input", type=Path, help="any motion file this package reads, or a bag")
    p.add_argument("output", type=values.output_file, help="the file to write (its suffix names the format, or --to)")
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    p.add_argument("--to", dest="to_format", choices=list(CODECS), help="output format (default: suffix)")
    p.add_argument("--group", help="write only this group (default: all the output format can hold)")
    p.add_argument("--rate", type=values.rate, help="resample to this many frames per second")
    p.add_argument(
        "--resample",
        choices=Resample.values(),
        help="resampling method for --rate (default linear; hold: Choreonoid's import semantics)",
    )
    p.add_argument("--joints", type=name_list, help="keep only these joints, in this order (a,b,c)")
    p.add_argument("--start", type=values.seconds, help="drop frames before this time (s)")
    p.add_argument("--end", type=values.seconds, help="drop frames after this time (s)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output")
    p.add_argument("--json", action="store_true", help="machine-readable summary (with the warnings as notices)")
    _add_read_options(p)
    _add_write_options(p)

    p = actions.add_parser("recover", help="write the file a recording journal stands for (after a crash)")
    p.add_argument("journal", type=Path, help="the recorder's OUTPUT.journal")
    p.add_argument(
        "output",
        type=values.output_file,
        nargs="?",
        help="where to write (default: beside the journal, named as it is without .journal)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace an existing output")

    p = actions.add_parser(
        "plot",
        help="plot joint curves and root pose to an image",
        description="Draw a motion into an image (the plot extra, matplotlib): one panel per joint channel, "
        "then the root's position and orientation when the motion has them, against time, every axis "
        "named with its unit. A file of several groups (target, actual) gives one image per group, "
        "OUT-GROUP.png.",
    )
    p.add_argument("file", type=Path, help="any motion file this package reads, or a bag")
    p.add_argument(
        "output", type=values.output_file, nargs="?", help="the image to write: .png, .svg or .pdf (or -o OUTPUT)"
    )
    p.add_argument(
        "-o",
        "--output",
        dest="output_option",
        type=values.output_file,
        metavar="OUTPUT",
        help="the image to write, as a flag",
    )
    p.add_argument("--from", dest="from_format", choices=list(CODECS), help="input format (default: detect)")
    p.add_argument("--joints", type=name_list, help="plot only these joints (a,b,c; default: every joint)")
    p.add_argument("--group", help="plot only this group (default: one image per group)")
    p.add_argument("--overwrite", action="store_true", help="replace existing images (never the input)")
    _add_read_options(p)
    for module, commands, adds in _MODULES:
        if only is None or only in commands:
            getattr(importlib.import_module(f".{module}", __package__), adds)(actions)
    built = actions.choices
    for name in ("motion2bag", "validate"):
        if name in built:
            _add_read_options(built[name])  # a .seq input needs its joint names
    for name in STRICT_COMMANDS:
        if name in built and "--strict" not in built[name]._option_string_actions:  # check words its own
            built[name].add_argument(
                "--strict", action="store_true", help="fail (exit 1, no output written) on any warning"
            )
    for command in built.values():  # a usage error names the subcommand's usage, not the top level's
        command.set_defaults(subparser=command)
    return parser


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, Any]:
    return next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed arguments; what the subcommand does not know is its error (its usage, exit 2)."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        getattr(args, "subparser", parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    print(f"warning: {message}", file=sys.stderr)


#: Set when SIGTERM interrupted the command (it then stops the way SIGINT does).
_terminated = False


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM: stop as SIGINT does (temporaries removed, workers stopped)."""
    global _terminated
    _terminated = True
    raise KeyboardInterrupt


def _one_line(text: str) -> str:
    """An error is one line: a library's message that runs over several is joined."""
    return "; ".join(part.strip() for part in text.splitlines() if part.strip())


class StandardOutputError(MotionFormatError):
    """Standard output refused what the command wrote to it (a full disk, ``> /dev/full``)."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(f"cannot write to standard output: {exc.strerror or exc}")


class _StandardOutput:
    """``sys.stdout`` while a command runs: the same stream, whose failures say they are its own.

    The system's error for a write to standard output names no file (``No space left on
    device``); raised as :class:`StandardOutputError`, ``main`` words it as such. A closed pipe
    (``| head``) stays a :class:`BrokenPipeError`: the reader has all it wanted.
    """

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return int(self.stream.write(text))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StandardOutputError(exc) from exc

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StandardOutputError(exc) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)  # isatty, fileno, encoding … as the stream has them


class _ClosedOutput:
    """Standard output of a process started without one (``>&-``, where Python's is None).

    Writing to it fails as writing to a closed descriptor does (``EBADF``), so a command
    that has something to print says in one line that it could not; one that prints nothing
    succeeds.
    """

    def write(self, text: str) -> int:
        if text:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return 0

    def flush(self) -> None:
        """Nothing is buffered."""

    def isatty(self) -> bool:
        return False


def _standard_output() -> _StandardOutput:
    """``sys.stdout`` (or :class:`_ClosedOutput` when there is none) as :class:`_StandardOutput`."""
    return _StandardOutput(sys.stdout if sys.stdout is not None else _ClosedOutput())


def _os_error(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    return ": ".join([*names, reason]) if names else reason


def _parsed(parser: argparse.ArgumentParser, given: list[str]) -> argparse.Namespace:
    """:func:`_parse` with standard output that says its failures (``--help > /dev/full``).

    argparse ignores an ``OSError`` of its help and version text, and what stays buffered
    fails only at the process's exit, where nobody says so; here the text goes through
    :class:`_StandardOutput` and is flushed before argparse's exit, so a failure is a
    :class:`StandardOutputError` as for any command's output.
    """
    stdout = sys.stdout
    sys.stdout = _standard_output()
    try:
        return _parse(parser, given)
    except SystemExit as stop:
        if not stop.code:  # help or version printed
            sys.stdout.flush()
        raise
    finally:
        sys.stdout = stdout


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    given = list(sys.argv[1:] if argv is None else argv)
    wanted = given[0] if given and not given[0].startswith("-") else None
    parser = build_parser(only=wanted)
    if wanted is not None and wanted not in _subcommands(parser):
        parser = build_parser()  # an unknown command: the full parser lists the known ones
    try:
        args = _parsed(parser, given)
    except StandardOutputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # the reader (| head) has all it wanted
        return EXIT_OK
    previous = warnings.showwarning
    warnings.showwarning = _show_warning
    on_term = None
    if threading.current_thread() is threading.main_thread():
        on_term = signal.signal(signal.SIGTERM, _terminate)
    strict = bool(getattr(args, "strict", False))
    stdout = sys.stdout
    sys.stdout = _standard_output()
    try:
        handler = getattr(args, "handler", None)
        if handler is None:
            from . import commands  # the general commands (and numpy) only when one of them runs

            handler = getattr(commands, f"cmd_{args.command.replace('-', '_')}")
        spelling = {**SPELLING, **getattr(args, "spelling", {})}  # a command's own flags for some options
        with collect(strict=strict) as report, command_line(spelling):
            values.check_together(args)
            args.notices = report  # the handlers that print JSON add the notices to it
            result: int = handler(args)
            sys.stdout.flush()  # what is still buffered fails here, while its error can be said
        if strict and report.warned and result == EXIT_OK:
            count = len(report.warned)
            print(f"error: {count} warning{'s' if count > 1 else ''} with --strict", file=sys.stderr)
            return EXIT_ERROR
        return result
    except OutOfRangeError as exc:  # a value out of range: the subcommand's usage error
        try:
            getattr(args, "subparser", parser).error(_one_line(str(exc)))
        except SystemExit as stop:
            return int(stop.code or EXIT_USAGE)
        return EXIT_USAGE
    except MotionFormatError as exc:
        print(f"error: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK
    except MemoryError as exc:  # what the memory pre-check does not count (a text writer's encoding): one line
        detail = f" ({_one_line(str(exc))})" if str(exc) else ""
        print(
            f"error: not enough memory for this command{detail}: a lower --rate, a shorter --start/--end "
            "or a binary output (msgpack, parquet) needs less",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except OSError as exc:  # a file the system refuses (permissions, a full disk …): one line naming it
        print(f"error: {_os_error(exc)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        if _terminated:
            print("terminated", file=sys.stderr)
            return 128 + signal.SIGTERM
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stdout = stdout
        warnings.showwarning = previous
        if on_term is not None:
            signal.signal(signal.SIGTERM, on_term)


def entry() -> None:
    """Console-script entry point.

    A bug (any exception that is not the package's own) prints its traceback as Python
    would, and exits with :data:`EXIT_BUG`, never the status of a bad input.
    """
    _standard_streams()
    try:
        status = main()
    except Exception:
        import traceback

        traceback.print_exc()
        sys.exit(EXIT_BUG)
    _quick_exit()
    sys.exit(status)


def _standard_streams() -> None:
    """Make do when the process was started with standard output or error closed (``>&-``).

    Python then has None for ``sys.stdout`` / ``sys.stderr``, and the next file the command
    opens would take the free descriptor 1 or 2, where a child process (a batch worker) or
    native code writing to its standard output or error would write into that file:
    ``/dev/null`` takes the descriptor instead. Messages for a closed standard error are
    dropped (the exit status still tells); a closed standard output stays closed for
    ``main``, which says when a command had something to print there.
    """
    for fd in (1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - the process's, open to its exit


def _quick_exit() -> None:
    """Spare the process's exit the collections that would only free its memory.

    The command is done: its outputs are closed and in place. The interpreter's teardown
    would still walk every object of every module loaded (numpy, the codecs) in its last
    cyclic collections, about 15 ms of a short command, to free memory the exit returns
    anyway. Frozen, those objects are left to the exit; the rest of the teardown stays as
    it is (``atexit`` handlers run, stdout and stderr are flushed, files still open are
    closed as their references go). Python never promised ``__del__`` for objects alive at
    exit; nothing of this package relies on it.
    """
    gc.freeze()


__all__ = ["build_parser", "entry", "main"]
