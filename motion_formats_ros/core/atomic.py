"""Atomic file output and file input shared by the codecs."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from .errors import ReadError, WriteError
from .notices import check_commit


def read_input(
    path: str | os.PathLike[str], size: int = -1, *, name: str | os.PathLike[str] | None = None, what: str = ""
) -> bytes:
    """The bytes of an input file (its first ``size`` bytes when given).

    Every codec reads its input through this, so that a file the system will not give
    (missing, a folder, no permission) is a :class:`ReadError` naming it (``name``, when
    the user knows the file by another name than ``path``; ``what`` says what the file is for).
    """
    try:
        with open(path, "rb") as fh:
            return fh.read(size)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ReadError(
            path if name is None else name, f"cannot read the {what}: {reason}" if what else reason
        ) from exc


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Permissions for new files: what open() would give (mkstemp alone gives 0600).
_FILE_MODE = 0o666 & ~_read_umask()


def check_writable(path: str | os.PathLike[str], overwrite: bool = False) -> Path:
    """Fail early (before any work) when ``path`` exists or its folder is unusable."""
    out = Path(path)
    if out.exists() and not overwrite:
        raise WriteError(out, "already exists (pass overwrite=True / --overwrite to replace it)")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise WriteError(out, f"folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise WriteError(out, f"folder {str(folder)!r} is not writable")
    return out


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], overwrite: bool = False) -> Iterator[IO[bytes]]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically.

    Readers never see a half-written file: the data is written to a temporary file in
    the same folder, flushed and fsynced, then renamed over ``path``. On any error the
    temporary file is removed and ``path`` is left as it was. Without ``overwrite`` an
    existing ``path`` is never replaced, even if it appears while writing. Inside a strict
    notices report that holds a notice nothing is put in place
    (:class:`~.notices.StrictNoticeError`).
    """
    out = check_writable(path, overwrite)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or ".")
    try:
        os.chmod(tmp, (out.stat().st_mode & 0o7777) if out.exists() else _FILE_MODE)
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        check_commit(out)  # a strict run puts nothing in place once a warning was reported
        if overwrite:
            os.replace(tmp, out)
        else:
            try:
                os.link(tmp, out)  # fails if out appeared meanwhile; never clobbers
            except FileExistsError:
                raise WriteError(out, "already exists (pass overwrite=True / --overwrite to replace it)") from None
            except OSError:
                # Filesystems without hard links: check-then-rename is the best we have.
                if out.exists():
                    raise WriteError(out, "already exists") from None
                os.replace(tmp, out)
    except OSError as exc:
        raise WriteError(out, exc.strerror or str(exc)) from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, overwrite: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_output`)."""
    with atomic_output(path, overwrite) as fh:
        fh.write(data)
