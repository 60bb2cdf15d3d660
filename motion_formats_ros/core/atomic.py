"""Atomic file output shared by the codecs (bounded input is :mod:`.inputs`).

Every output is written under a temporary name beside it, ``.NAME.<host>-<pid>.<random>.tmp``
(a file, or a folder for a rosbag2 folder), and put in place in one step: a rename over a
file, an exchange of two folders (Linux ``renameat2``) over a folder. Where a folder cannot
be exchanged (another system, a file system without it), the old folder is first moved
into the temporary folder; if the process dies between that and the second rename, the
next write to the same output puts the old one back before anything else.

The temporary name says which process made it: a later write to the same output removes
the temporaries of processes of this host that no longer run (killed by SIGKILL, a power
loss), and says so in a warning.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from .errors import ReadError, WriteError, listed, number, spelled
from .inputs import read_input
from .notices import NoticeKind, check_commit, notify


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Permissions for new files: what open() would give (a temporary alone gets 0600).
_FILE_MODE = 0o666 & ~_read_umask()


def _host_name() -> str:
    """This machine's name (``uname``'s node name, what ``socket.gethostname`` returns on POSIX)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()


#: This machine, short: a temporary of another host (a shared folder) is never judged by its pid here.
_HOST = f"{zlib.crc32(_host_name().encode()) & 0xFFFF:04x}"
#: Where an old folder waits inside the temporary folder while it is being replaced (fallback path).
OLD = ".old"


def temp_prefix(out: Path) -> str:
    """The prefix of this process's temporaries for ``out`` (``.NAME.<host>-<pid>.``)."""
    return f".{out.name}.{_HOST}-{os.getpid()}."


#: This process's temporaries being written: what :func:`remove_own_temporaries` removes.
_OWN: set[str] = set()


def _remove(name: str) -> None:
    """Remove the temporary file or folder ``name``, if it is still there."""
    if os.path.isdir(name) and not os.path.islink(name):
        import shutil  # only here: it pulls in every archive module

        shutil.rmtree(name, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(name)


def remove_own_temporaries() -> None:
    """Remove the temporaries this process is writing (for an exit that skips ``finally``)."""
    for name in list(_OWN):
        _remove(name)
        _OWN.discard(name)


def remove_temporaries_of(folder: str | os.PathLike[str], pids: Iterable[int]) -> None:
    """Remove the temporaries in ``folder`` that the ended processes ``pids`` of this host left."""
    marks = {f".{_HOST}-{pid}." for pid in pids}
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            if name.startswith(".") and name.endswith(".tmp") and any(m in name for m in marks):
                _remove(os.path.join(folder, name))


def _new_temp(out: Path, folder: Path, directory: bool) -> tuple[int, str]:
    """A new temporary beside ``out`` in ``folder``, only this user's (mode 0600 / 0700): (fd, path).

    A file comes open (fd), a folder does not (fd −1). Its name is :func:`temp_prefix` with a
    random part, made with O_EXCL, so another process's temporary is never reused. It is
    listed for :func:`remove_own_temporaries` until its writer removes or places it.
    """
    for _ in range(100):
        name = os.path.abspath(os.path.join(folder, f"{temp_prefix(out)}{os.urandom(6).hex()}.tmp"))
        try:
            if directory:
                os.mkdir(name, 0o700)
                _OWN.add(name)
                return -1, name
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            fd = os.open(name, flags | getattr(os, "O_BINARY", 0), 0o600)
            _OWN.add(name)
            return fd, name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def _exists() -> str:
    """The reason an existing output is not replaced, naming how to ask for it."""
    return f"already exists (pass {spelled('overwrite', '=True')} to replace it)"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _owner_gone(name: str, out_name: str) -> bool:
    """Whether the temporary ``name`` of ``out_name`` belongs to a process of this host that has ended."""
    middle = name[len(out_name) + 2 : -len(".tmp")]
    host, _, rest = middle.partition("-")
    pid_text = rest.split(".", 1)[0]
    if host != _HOST or not pid_text.isdigit():
        return False  # another machine's, or not ours at all: left alone
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


def sweep_stale(path: str | os.PathLike[str]) -> list[Path]:
    """Put back an output an interrupted replacement left aside, then remove the temporaries
    that ended processes left beside ``path``; warns about each. Returns what was removed."""
    out = Path(path)
    folder = out.parent if str(out.parent) else Path(".")
    prefix = f".{out.name}."
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return []  # an unreadable folder: check_writable says what is wrong with it
    removed = []
    for name in sorted(names):
        stale = folder / name
        if not _owner_gone(name, out.name):
            continue
        old = stale / OLD
        if stale.is_dir() and (old.exists() or old.is_symlink()) and not (out.exists() or out.is_symlink()):
            try:
                os.rename(old, out)
                notify(
                    NoticeKind.RECOVERED,
                    f"put back from {stale} (a replacing write was interrupted between its renames)",
                    file=out,
                    stacklevel=3,
                )
            except OSError as exc:
                reason = f"missing; the previous one is in {old} ({_reason(exc)})"
                notify(NoticeKind.MISSING, reason, file=out, stacklevel=3)
                continue
        try:
            if stale.is_dir() and not stale.is_symlink():
                import shutil

                shutil.rmtree(stale)
            else:
                stale.unlink()
        except OSError as exc:
            reason = f"a temporary left by an interrupted write; cannot remove: {_reason(exc)}"
            notify(NoticeKind.RECOVERED, reason, file=stale, stacklevel=3)
            continue
        notify(NoticeKind.RECOVERED, "removed a temporary left by an interrupted write", file=stale, stacklevel=3)
        removed.append(stale)
    return removed


_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str | None:
    """What a file that is neither a regular file nor a folder is (None for those two)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _target(out: Path) -> Path:
    """Where a write to ``out`` lands: ``out`` itself, or the file a symbolic link ``out`` points at.

    A link is written through, as a shell's ``>`` does: its target is replaced, the link is kept.

    Raises:
        WriteError: The link cannot be followed (a loop, a folder on its way that cannot be searched).
    """
    if not out.is_symlink():
        return out
    try:
        return Path(os.path.realpath(out, strict=True))
    except FileNotFoundError:
        return Path(os.path.realpath(out))  # a dangling link: its target is created
    except OSError as exc:
        raise WriteError(out, f"a symbolic link that cannot be followed: {_reason(exc)}") from exc


#: Why an output is refused where it would touch an input.
INPUT_RULE = "an output never is, holds or goes inside an input, which is never modified"


def _real(path: str | os.PathLike[str]) -> Path:
    """``path`` absolute, through every link (as far as it exists); as given where a link loops."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, RuntimeError, ValueError):
        return Path(os.path.abspath(path))


class Inputs:
    """The inputs of one command, to judge its outputs by (:meth:`conflict`).

    An output never equals an input (the same real path, or the same file through a hard
    link), never holds one (a folder it would replace) and is never inside one (a file
    written into an input's folder, a rosbag2 bag). Paths that do not exist are no inputs.
    """

    def __init__(self, paths: Iterable[str | os.PathLike[str]] = ()) -> None:
        self.real: dict[Path, Path] = {}  # real path → as given
        self.ids: dict[tuple[int, int], Path] = {}  # (st_dev, st_ino) → as given
        self.under: dict[Path, Path] = {}  # every folder above an input → one input below it
        self.add(paths)

    def add(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        """Count ``paths`` too (inputs known only once read: the files a xacro model includes)."""
        for given in paths:
            path = Path(given)
            try:
                st = os.stat(path)
            except (OSError, ValueError):
                continue  # not there (or a link loop): nothing of it to lose
            real = _real(path)
            self.real.setdefault(real, path)
            self.ids.setdefault((st.st_dev, st.st_ino), path)
            for folder in real.parents:
                self.under.setdefault(folder, path)

    def conflict(self, output: str | os.PathLike[str]) -> str | None:
        """Why writing ``output`` would lose an input (a reason naming it), or None."""
        real = _real(output)
        same = self.real.get(real)
        if same is None:
            try:
                st = os.stat(output)
                same = self.ids.get((st.st_dev, st.st_ino))
            except (OSError, ValueError):
                pass
        if same is not None:
            return f"is the input {str(same)!r}"
        inside = next((self.real[p] for p in real.parents if p in self.real), None)
        if inside is not None:
            return f"is inside the input {str(inside)!r}"
        below = self.under.get(real)
        if below is not None:
            return f"holds the input {str(below)!r}"
        return None

    def check(self, output: str | os.PathLike[str]) -> None:
        """Raise :class:`WriteError` when writing ``output`` would lose an input (see :meth:`conflict`)."""
        reason = self.conflict(output)
        if reason is not None:
            raise WriteError(output, f"{reason}: {INPUT_RULE}")


#: The files of a rosbag2 bag folder besides metadata.yaml: its storage files (compressed or
#: not) and sqlite3's side files.
_BAG_FILE_ENDINGS = (".mcap", ".db3", ".mcap.zstd", ".db3.zstd", ".db3-wal", ".db3-shm", ".db3-journal")


def _bag_information(folder: str | os.PathLike[str]) -> Any:
    """``rosbag2_bagfile_information`` of the ``metadata.yaml`` in ``folder``, or None where there is
    none that can be read (no such file, not YAML, another tool's ``metadata.yaml``)."""
    from .serial import yaml  # only where a folder holds a metadata.yaml (aliases bounded)

    try:  # the bounded reader: a FIFO or device named metadata.yaml is refused at once, not waited on
        text = read_input(os.path.join(folder, "metadata.yaml"), limit=1 << 20)  # rosbag2's is a few kB
        return yaml.load(text.decode("utf-8"))["rosbag2_bagfile_information"]
    except (ReadError, LookupError, TypeError, ValueError):
        return None


def _listed_storage(folder: str | os.PathLike[str]) -> set[str] | None:
    """The storage files a bag folder's ``metadata.yaml`` lists (``relative_file_paths``), or
    None when it has none that can be read (then every storage file counts as the bag's)."""
    try:
        files = _bag_information(folder)["relative_file_paths"]
    except (LookupError, TypeError):
        return None
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        return None
    return {os.path.basename(f) for f in files}


def named_as_recorded(folder: str | os.PathLike[str], names: Iterable[str]) -> bool:
    """Whether ``names`` (the entries of ``folder``) are those of a rosbag2 recording never closed:
    storage files, every one named as rosbag2 names them, ``<folder>_<n>.mcap`` (``.db3`` …)."""
    prefix = os.path.basename(os.path.abspath(folder)) + "_"
    members = [n for n in names if n.endswith(_BAG_FILE_ENDINGS[:4])]
    return bool(members) and all(m.startswith(prefix) and m[len(prefix) :].split(".")[0].isdigit() for m in members)


def is_bag_folder(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` is a rosbag2 bag's folder: its ``metadata.yaml`` is rosbag2's, or it
    holds a recording never closed (:func:`named_as_recorded`)."""
    try:
        if not os.path.isdir(folder):
            return False
        if os.path.lexists(os.path.join(folder, "metadata.yaml")) and _bag_information(folder) is not None:
            return True
        # A recording cut short has no metadata.yaml; its first file is <folder>_0.mcap (.db3 …).
        first = os.path.join(folder, os.path.basename(os.path.abspath(folder)) + "_0")
        if not any(os.path.lexists(first + ending) for ending in _BAG_FILE_ENDINGS[:4]):
            return False  # the folder is listed only where such a file is
        return named_as_recorded(folder, os.listdir(folder))
    except OSError:
        return False


def foreign_entries(folder: str | os.PathLike[str]) -> list[str]:
    """What ``folder`` holds besides a rosbag2 bag's own files (``metadata.yaml`` and the storage
    files it lists; every storage file when it lists none), sorted; a sub-folder's name ends in ``/``."""
    listed_files = _listed_storage(folder)
    foreign = []
    with os.scandir(folder) as entries:
        for entry in entries:
            storage = entry.name.endswith(_BAG_FILE_ENDINGS) and (listed_files is None or entry.name in listed_files)
            if (entry.name == "metadata.yaml" or storage) and entry.is_file(follow_symlinks=False):
                continue
            foreign.append(entry.name + ("/" if entry.is_dir(follow_symlinks=False) else ""))
    return sorted(foreign)


def check_replaceable(out: Path, folder: bool | None) -> None:
    """Refuse to replace ``out`` with anything but its like: a file with a file, a rosbag2 bag
    folder with a bag folder (``folder``: whether the new output is a folder; None: not known yet).

    A folder that holds anything but a bag's own files is never replaced, whatever comes.
    """
    try:
        if not out.is_dir():
            if folder and (out.exists() or out.is_symlink()):
                raise WriteError(out, "is a file; this output is a folder (a rosbag2 bag), which never replaces a file")
            return
        if folder is False:
            raise WriteError(out, "is a folder; this output is a file, which never replaces a folder")
        foreign = foreign_entries(out)
    except OSError as exc:
        raise WriteError(out, _reason(exc)) from exc
    if foreign:
        raise WriteError(
            out,
            f"is a folder holding {listed(foreign)}: not a rosbag2 bag's own files, so it is never replaced "
            "(only a bag's folder, metadata.yaml and the storage files it lists, is)",
        )


#: Why nothing is written into a rosbag2 bag's folder.
_INSIDE_BAG = (
    "is inside the rosbag2 bag {folder!r}, whose folder holds the bag's own files only (a storage file there "
    "joins the bag: its readers take every one); write it beside the folder, or name the folder itself to "
    "replace the whole bag ({overwrite})"
)


def enclosing_bag(path: str | os.PathLike[str]) -> str | None:
    """The rosbag2 bag folder (:func:`is_bag_folder`) that ``path`` is in, at any depth, or None.

    A folder inside a bag's folder is part of the bag: every folder above ``path`` is looked
    at, as written and through its links (a few ``stat`` calls each). The bag is named as
    ``path`` names it where ``path`` names it at all, else by its absolute path.
    """
    given = os.path.dirname(os.fspath(path)) or "."
    for start in dict.fromkeys((os.path.abspath(given), os.fspath(_real(given)))):
        folder, shown = start, given if start == os.path.abspath(given) else start
        while True:
            if is_bag_folder(folder):
                return shown or folder
            above = os.path.dirname(folder)
            if above == folder:
                break
            named = os.path.basename(shown) not in ("", ".", "..")  # what is above ".." no text of it names
            folder, shown = above, os.path.dirname(shown) if named else ""
    return None


def check_not_in_bag(path: str | os.PathLike[str]) -> None:
    """Refuse an output inside an existing rosbag2 bag's folder, or in a folder inside it
    (:func:`enclosing_bag`): it would join the bag, or keep it from being replaced.

    Raises:
        WriteError: Naming the output and the bag.
    """
    bag = enclosing_bag(path)
    if bag is not None:
        raise WriteError(path, _INSIDE_BAG.format(folder=bag, overwrite=spelled("overwrite", "=True")))


def _not_a_folder(path: Path) -> str:
    """Why ``path``, where a folder should be, is none: missing, a link to nothing, or not a folder."""
    if path.is_symlink() and not path.exists():
        return f"is a symbolic link to {os.readlink(path)!r}, which does not exist"
    return "is not a folder" if path.exists() else "does not exist"


def folders_to_make(folder: str | os.PathLike[str]) -> list[Path]:
    """The folders :func:`make_folders` makes for ``folder`` (the missing ones, innermost first),
    found without recursion: a mirrored tree may be deeper than Python's recursion limit.

    A folder is never made through a symbolic link that points nowhere (a disk not mounted, a
    folder moved away), nor where a file stands.

    Raises:
        WriteError: Naming such a link (and where it points) or file on the way.
    """
    path = Path(folder)
    missing = []
    while not path.is_dir():
        if path.is_symlink() or path.exists():
            reason = _not_a_folder(path)
            if not path.exists():  # a link to nothing
                reason += ": no folder is made through a link (make the folder it points to, or remove the link)"
            raise WriteError(path, reason)
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    return missing


def make_folders(folder: str | os.PathLike[str]) -> None:
    """Make ``folder`` and every missing folder above it, as ``mkdir -p`` does (see :func:`folders_to_make`).

    Raises:
        WriteError: A link to nothing or a file on the way, a folder that cannot be made, or one
            that would be made inside a rosbag2 bag's folder (:func:`check_not_in_bag`).
    """
    missing = folders_to_make(folder)
    if missing:  # none is made inside a rosbag2 bag's folder: it would be part of the bag
        check_not_in_bag(missing[-1])
    for path in reversed(missing):
        try:
            path.mkdir(exist_ok=True)
        except OSError as exc:
            raise WriteError(path, f"cannot make the folder: {_reason(exc)}") from exc


def check_output(
    path: str | os.PathLike[str],
    inputs: Inputs | Iterable[str | os.PathLike[str]] = (),
    overwrite: bool = False,
    *,
    folder: bool | None = None,
) -> Path:
    """The rule every command applies to each output before any work: ``path`` is none of
    ``inputs``, holds none and is inside none (:class:`Inputs`), and is writable
    (:func:`check_writable`). Returns where the output goes."""
    (inputs if isinstance(inputs, Inputs) else Inputs(inputs)).check(path)
    return check_writable(path, overwrite, folder=folder)


def check_writable(path: str | os.PathLike[str], overwrite: bool = False, *, folder: bool | None = None) -> Path:
    """Fail early (before any work) when ``path`` exists or its folder is unusable.

    Returns where the output goes: ``path``, or the target of a symbolic link ``path`` (a
    link is written through and kept). Devices, FIFOs and sockets are never outputs: they are
    refused whether or not ``overwrite`` is given, before anything is touched. ``overwrite``
    replaces a file with a file and a rosbag2 bag folder with a bag folder, nothing else
    (:func:`check_replaceable`; ``folder``: whether this output is a folder, None if not known).

    Also tidies up after an earlier write to ``path`` that was killed (:func:`sweep_stale`).
    """
    given = Path(path)
    try:
        mode: int | None = os.stat(given).st_mode  # through links: what a write would replace
    except OSError:
        mode = None
    kind = _kind(mode) if mode is not None else None
    if kind is not None:
        raise WriteError(given, f"is {kind}, not a regular file: outputs are only written to files and folders")
    out = _target(given)
    parent = out.parent if str(out.parent) else Path(".")
    try:
        if parent.is_dir():
            sweep_stale(out)
        if (given.exists() or given.is_symlink()) and not overwrite:
            raise WriteError(given, _exists())
        check_replaceable(out, folder)
        if not parent.is_dir():
            if out != given:  # written through a link: say so, naming the output as it was given
                where = f"is a symbolic link to {os.readlink(given)!r}, whose folder {str(parent)!r}"
                raise WriteError(given, f"{where} {_not_a_folder(parent)}")
            raise WriteError(out, f"folder {str(parent)!r} {_not_a_folder(parent)}")
    except OSError as exc:  # a folder on the way that this user may not search
        raise WriteError(out, _reason(exc)) from exc
    check_not_in_bag(out)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise WriteError(out, f"folder {str(parent)!r} is not writable")
    return out


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], overwrite: bool = False) -> Iterator[IO[bytes]]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` atomically.

    Readers never see a half-written file: the data is written to a temporary file in
    the same folder, flushed and fsynced, then renamed over ``path``. On any error (or
    KeyboardInterrupt: SIGINT, and SIGTERM in the command line) the temporary file is
    removed and ``path`` is left as it was. Without ``overwrite`` an existing ``path``
    is never replaced, even if it appears while writing. Inside a strict notices report
    that holds a notice nothing is put in place (:class:`~.notices.StrictNoticeError`).
    """
    out = check_writable(path, overwrite, folder=False)
    try:
        fd, tmp = _new_temp(out, out.parent, directory=False)
    except OSError as exc:
        raise WriteError(out, _reason(exc)) from exc
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
                raise WriteError(out, _exists()) from None
            except OSError:
                # Filesystems without hard links: check-then-rename is the best we have.
                if out.exists():
                    raise WriteError(out, "already exists") from None
                os.replace(tmp, out)
    except OSError as exc:
        raise WriteError(out, _reason(exc)) from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        _OWN.discard(tmp)


#: What a group's name may hold when it becomes part of an output file's name.
_GROUP_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
#: The longest group name that is part of a file name (a name is at most 255 bytes, with the output's own).
MAX_GROUP_NAME = 100


def plain_group_name(name: str) -> bool:
    """Whether ``name`` may be part of an output file's name: letters, digits, ``_`` and ``-``,
    at most :data:`MAX_GROUP_NAME` of them (see :func:`check_group_names`)."""
    return len(name) <= MAX_GROUP_NAME and _GROUP_NAME.match(name) is not None


def check_group_names(groups: Iterable[str]) -> str | None:
    """Why a group name cannot be part of an output file's name (one file per group), or None.

    Letters, digits, ``_`` and ``-`` only: a name such as ``../x`` would put the file in
    another folder, and one with a path separator or a dot cannot be told from the suffix.
    The message quotes the name's start only (a name may be megabytes long).
    """
    for g in groups:
        if not plain_group_name(g):
            return (
                f"group name {number(g)} cannot be part of a file name "
                f"(letters, digits, _ and - only, at most {MAX_GROUP_NAME})"
            )
    return None


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, overwrite: bool = False) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_output`)."""
    with atomic_output(path, overwrite) as fh:
        fh.write(data)


@contextlib.contextmanager
def temp_folder(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary folder beside ``path`` (named as :func:`sweep_stale` knows), removed at the end."""
    out = Path(path)
    folder = out.parent if str(out.parent) else Path(".")
    try:
        tmp = Path(_new_temp(out, folder, directory=True)[1])
    except OSError as exc:
        raise WriteError(out, _reason(exc)) from exc
    try:
        yield tmp
    finally:
        import shutil  # only here and for a stale folder: it pulls in every archive module

        shutil.rmtree(tmp, ignore_errors=True)
        _OWN.discard(str(tmp))


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_renameat2: Any = None


def _exchange(a: Path, b: Path) -> None:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); OSError where not possible."""
    global _renameat2
    import ctypes
    import ctypes.util

    if _renameat2 is None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        _renameat2 = getattr(libc, "renameat2", False)
        if _renameat2:
            _renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if not _renameat2:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))


def place(src: Path, out: Path, overwrite: bool, tmp: Path) -> None:
    """Move the finished ``src`` (a file or folder inside the temporary folder ``tmp``) to ``out``.

    An existing ``out`` is replaced only with ``overwrite``, and stays whole until the new
    one is in place: a file by one rename; a folder by one exchange, or (where folders
    cannot be exchanged) by moving it to ``tmp`` first, which :func:`sweep_stale` undoes
    if the process dies before the second rename.
    """
    try:
        if out.exists() or out.is_symlink():
            if not overwrite:
                raise WriteError(out, _exists())
            check_replaceable(out, src.is_dir())  # again: the folder may have changed during the work
            if out.is_dir() and not out.is_symlink():
                try:
                    _exchange(src, out)  # the old folder is now at src, removed with tmp
                    return
                except OSError:
                    pass
                old = tmp / OLD
                os.rename(out, old)
                try:
                    os.rename(src, out)
                except OSError:
                    os.rename(old, out)
                    raise
                return
            os.replace(src, out)
            return
        os.rename(src, out)
    except OSError as exc:
        raise WriteError(out, _reason(exc)) from exc
