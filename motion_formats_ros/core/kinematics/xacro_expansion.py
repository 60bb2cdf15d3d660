"""The expansion of one ``.xacro`` file, in a process of its own with bounded memory.

:func:`..robot.expand_xacro` runs this file as a script (it imports nothing of the
package): ``python xacro_expansion.py FILE MEMORY OUTPUT SECONDS``. A xacro file is a
program (``${'x' * 10**9}`` builds a gigabyte), so it runs where it cannot take the
machine: its address space is at most ``MEMORY`` bytes, the parent stops it after a time,
and it ends when the parent ends. Exit status 0: standard output holds one line, the JSON
list of every file the expansion read (absolute paths, ``FILE`` among them: inputs of the
command that reads the model, which no output of it may replace), then the URDF text.
Otherwise standard output holds one line saying why (xacro's own messages on standard
error are not shown).

One ``${...}`` expression may take at most ``SECONDS`` (real ones take microseconds;
``${9**9**9}`` or ``${python.sum(python.range(10**12))}`` run in native code for hours, where
no Python signal handler runs): :mod:`faulthandler`'s watchdog thread, which needs no
interpreter lock, then writes the stack to standard output and ends the process with
status :data:`SLOW`. Each expression is compiled under a name that says which it is and
in which file (:func:`slow_expression` reads it back from that stack).

Every file the expansion reads (an ``xacro:include``, ``xacro.load_yaml``) is read as
every input of the package is, by :func:`motion_formats_ros.core.inputs.read_input`: a
FIFO, a device or a folder is refused at once, not waited on. xacro opens them with the
built-in ``open`` (and compiles expressions with the built-in ``compile``), which a name in
its module shadows. A YAML file is parsed as the package parses every YAML input
(:func:`motion_formats_ros.core.naming.parse_safe`): aliases that expand to more values
than the file has characters (a "billion laughs") are refused at their line, before
anything walks them. Those two modules are all of the package this process imports.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import faulthandler
import io
import json
import os
import re
import resource
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Exit statuses: the expansion failed, needed more memory than allowed, or gave more text than allowed,
#: or a ``$(find PKG)`` found no package (standard output: ``[file, package, searched]`` as JSON).
FAILED, NO_MEMORY, TOO_LONG, NO_PACKAGE = 2, 3, 4, 5
#: Exit status of an expression stopped after its time (faulthandler's, after it wrote the stack).
SLOW = 1
#: How an expression's code is named (the stack shows it): this prefix, then ``[file, text]`` as JSON.
_LABEL = "xacro expression "
#: The most characters of an expression its name holds (faulthandler shows 500 of a name).
LABEL_TEXT = 200
_PR_SET_PDEATHSIG = 1


def _end_with_parent() -> None:
    """Linux: SIGKILL this process when its parent ends, however it ends."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # another system: the parent's timeout still ends it


def _out_of_memory(exc: BaseException | None) -> bool:
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, MemoryError) or "MemoryError" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _reason(exc: BaseException) -> str:
    """The first line of xacro's message, without the wrapped error it already quotes
    (``No such file or directory: F [Errno 2] No such file or directory: 'F'``)."""
    error: BaseException | None = exc
    for _ in range(20):  # a file xacro.load_yaml could not read: its error, as xacro words an include's
        if error is None:
            break
        if isinstance(error, OSError) and error.strerror and error.filename:
            return f"{error.strerror}: {error.filename}"
        error = getattr(error, "exc", None) or error.__cause__ or error.__context__
    inner = getattr(exc, "exc", None)
    text = str(exc.args[0]) if isinstance(inner, OSError) and exc.args and exc.args[0] else str(exc)
    return text.splitlines()[0].strip() if text.strip() else type(exc).__name__


def _package_finder(xacro: Any, ament_find: Callable[[str], str]) -> Callable[[str], str]:
    """``$(find PKG)``: the package's share folder on ``AMENT_PREFIX_PATH`` (xacro's own lookup),
    else a folder of ``ROS_PACKAGE_PATH`` that is the package or holds it (as ``package://``
    meshes are found); else a LookupError whose ``no_package`` is ``[file, package, searched]``
    (the xacro file being expanded, the package, where it looked)."""

    def find(package: str) -> str:
        try:
            return ament_find(package)
        except Exception:  # noqa: S110 - not on AMENT_PREFIX_PATH (or no such variable): the folders next
            pass
        searched = []
        for variable in ("AMENT_PREFIX_PATH", "ROS_PACKAGE_PATH"):
            entries = [e for e in os.environ.get(variable, "").split(os.pathsep) if e]
            searched.append(f"{variable}: {', '.join(entries)}" if entries else f"{variable} not set")
        for entry in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
            if not entry:
                continue
            for folder in (Path(entry) / package, Path(entry)):
                if folder.name == package and (folder / "package.xml").is_file():
                    return str(folder)
        stack = getattr(xacro, "filestack", None) or [""]
        missing = LookupError(f"package {package!r} not found")
        missing.no_package = [os.path.abspath(stack[-1]) if stack[-1] else "", package, searched]  # type: ignore[attr-defined]
        raise missing

    return find


def _no_package(exc: BaseException | None) -> list[Any] | None:
    """The ``no_package`` of the error of :func:`_package_finder` that ``exc`` is or wraps (xacro wraps
    what an expression raises), or None."""
    for _ in range(20):
        if exc is None or hasattr(exc, "no_package"):
            return getattr(exc, "no_package", None)
        exc = getattr(exc, "exc", None) or exc.__cause__ or exc.__context__
    return None


def _bounded_open(read_input: Callable[..., bytes], read: list[str]) -> Callable[..., Any]:
    """An ``open`` for xacro: a file read goes through the package's bounded reader (anything else
    is refused); each file read is added to ``read`` (its absolute path)."""

    def bounded_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if set(mode) - set("rbt"):
            raise PermissionError(errno.EACCES, "a xacro expansion writes no file", file)
        try:
            data = read_input(file)
        except Exception as exc:  # the package's ReadError: told to xacro as the system's error it stands for
            cause = exc.__cause__
            if isinstance(cause, OSError):
                raise cause from None  # missing, no permission: as xacro says it
            raise OSError(errno.EINVAL, getattr(exc, "reason", str(exc)), os.fspath(file)) from None
        read.append(os.path.abspath(file))
        return io.BytesIO(data) if "b" in mode else io.StringIO(data.decode(kwargs.get("encoding") or "utf-8"))

    return bounded_open


def _package_inputs() -> Callable[..., bytes]:
    """The package's bounded reader, from the copy of the package this file is part of."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from motion_formats_ros.core.inputs import read_input

    return read_input


class _Budget:
    """At most ``seconds`` for each outermost ``${...}`` expression xacro evaluates.

    Reading a YAML file inside an expression (``xacro.load_yaml``) is not counted: its time
    is bounded by the file's size, and a unit tag's expression in it (``!degrees 9**9**9``)
    has a budget of its own.
    """

    def __init__(self, xacro: Any, seconds: float) -> None:
        self.xacro = xacro
        self.seconds = seconds
        self.depth = 0

    def _arm(self) -> None:
        faulthandler.dump_traceback_later(self.seconds, exit=True, file=sys.stdout)

    def safe_eval(self, safe_eval: Callable[..., Any]) -> Callable[..., Any]:
        """xacro's ``safe_eval``, stopped (status :data:`SLOW`) when it takes too long."""

        def bounded_eval(expr: str, globals: Any, locals: Any = None) -> Any:
            self.depth += 1
            if self.depth == 1:
                self._arm()
            try:
                return safe_eval(expr, globals, locals)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    faulthandler.cancel_dump_traceback_later()

        return bounded_eval

    def compile(self, source: str, filename: str, mode: str, *args: Any, **kwargs: Any) -> Any:
        """The built-in ``compile``, naming the code after the expression and its file."""
        files = self.xacro.filestack or []
        label = _LABEL + json.dumps([files[-1] if files else "", source[:LABEL_TEXT]])
        return compile(source, label, mode, *args, **kwargs)

    def yaml_load(self, loader: type) -> Callable[[Any], Any]:
        """A ``yaml.safe_load`` for ``xacro.load_yaml``: the package's YAML parse (expansion
        limit, one line naming the file and line) of the file xacro is reading, with
        ``loader`` (which xacro gave its unit tags), outside the expression's budget."""

        def safe_load(stream: Any) -> Any:
            from motion_formats_ros.core.naming import parse_safe  # only when a file loads YAML

            text = stream.read()
            depth, self.depth = self.depth, 0
            faulthandler.cancel_dump_traceback_later()
            try:
                return parse_safe(text, self.xacro.filestack[-1], "YAML file", loader)
            finally:
                self.depth = depth
                if depth:
                    self._arm()

        return safe_load


def slow_expression(stdout: bytes) -> tuple[str, str] | None:
    """The file and text of the expression a child ended with :data:`SLOW` was evaluating
    (empty when its stack does not tell), or None when it was not stopped for its time."""
    text = stdout.decode("ascii", errors="replace")
    if not text.startswith("Timeout ("):
        return None
    found = re.search(r'^\s*File "' + re.escape(_LABEL) + r'(.*)", line \d+ in ', text, re.MULTILINE)
    try:
        file, expr = json.loads(found.group(1)) if found else ("", "")
    except ValueError:  # a name faulthandler cut short
        file, expr = "", ""
    return str(file), str(expr)


def main(argv: list[str]) -> int:
    path, memory, output, seconds = argv[1], int(argv[2]), int(argv[3]), float(argv[4])
    _end_with_parent()
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    read: list[str] = []  # the files the expansion reads (bounded_open adds them)
    try:
        import xacro  # type: ignore[import-untyped]
        import yaml

        xacro.open = _bounded_open(_package_inputs(), read)  # xacro's module name shadows the built-in open
        budget = _Budget(xacro, seconds)
        xacro.compile = budget.compile  # as for open: the name expressions are compiled under
        xacro.safe_eval = budget.safe_eval(xacro.safe_eval)
        yaml.safe_load = budget.yaml_load(yaml.SafeLoader)  # type: ignore[assignment] # xacro.load_yaml parses with it
        from xacro import substitution_args

        find = _package_finder(xacro, substitution_args._eval_find)
        substitution_args._eval_find = find  # $(find PKG)
        substitution_args._eval_dict["find"] = find  # $(eval find('PKG'))

        text = xacro.process_file(path).toxml()
    # xacro raises its own XacroException, the XML parser's and MemoryError, and a file's ${...}
    # expressions are Python, which may raise anything: all of them are the file's fault. The
    # reason goes to the parent, which raises the package's error naming the file.
    except Exception as exc:
        if _out_of_memory(exc):
            return NO_MEMORY
        missing = _no_package(exc)
        if missing is not None:
            sys.stdout.write(json.dumps(missing))
            return NO_PACKAGE
        sys.stdout.write(_reason(exc))
        return FAILED
    data = text.encode("utf-8")
    if len(data) > output:
        sys.stdout.write(str(len(data)))
        return TOO_LONG
    files = json.dumps(list(dict.fromkeys(read)))  # ASCII: a name that is no UTF-8 as its escapes
    sys.stdout.buffer.write(files.encode("ascii") + b"\n" + data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
