"""The expansion of one ``.xacro`` file, in a process of its own with bounded memory.

:func:`..robot.expand_xacro` runs this file as a script (it imports nothing of the
package): ``python xacro_expansion.py FILE MEMORY OUTPUT``. A xacro file is a program
(``${'x' * 10**9}`` builds a gigabyte), so it runs where it cannot take the machine: its
address space is at most ``MEMORY`` bytes, the parent stops it after a time, and it ends
when the parent ends. Exit status 0: the URDF text on standard output. Otherwise
standard output holds one line saying why (xacro's own messages on standard error are
not shown).

Every file the expansion reads (an ``xacro:include``, ``xacro.load_yaml``) is read as
every input of the package is, by :func:`motion_formats_ros.core.inputs.read_input`: a
FIFO, a device or a folder is refused at once, not waited on. xacro opens them with the
built-in ``open``, which a name ``open`` in its module shadows; it is the only thing of the
package this process imports (that module imports nothing else of it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import io
import os
import resource
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Exit statuses: the expansion failed, needed more memory than allowed, or gave more text than allowed.
FAILED, NO_MEMORY, TOO_LONG = 2, 3, 4
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
    return text.splitlines()[0] if text.strip() else type(exc).__name__


def _bounded_open(read_input: Callable[..., bytes]) -> Callable[..., Any]:
    """An ``open`` for xacro: a file read goes through the package's bounded reader (anything else is refused)."""

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
        return io.BytesIO(data) if "b" in mode else io.StringIO(data.decode(kwargs.get("encoding") or "utf-8"))

    return bounded_open


def _package_inputs() -> Callable[..., bytes]:
    """The package's bounded reader, from the copy of the package this file is part of."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from motion_formats_ros.core.inputs import read_input

    return read_input


def main(argv: list[str]) -> int:
    path, memory, output = argv[1], int(argv[2]), int(argv[3])
    _end_with_parent()
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        import xacro  # type: ignore[import-untyped]

        xacro.open = _bounded_open(_package_inputs())  # xacro's module name shadows the built-in open

        text = xacro.process_file(path).toxml()
    # xacro raises its own XacroException, the XML parser's and MemoryError, and a file's ${...}
    # expressions are Python, which may raise anything: all of them are the file's fault. The
    # reason goes to the parent, which raises the package's error naming the file.
    except Exception as exc:
        if _out_of_memory(exc):
            return NO_MEMORY
        sys.stdout.write(_reason(exc))
        return FAILED
    data = text.encode("utf-8")
    if len(data) > output:
        sys.stdout.write(str(len(data)))
        return TOO_LONG
    sys.stdout.buffer.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
