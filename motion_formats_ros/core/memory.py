"""The memory pre-check: a request whose arrays this process cannot hold is refused before they exist.

Everything whose size grows with a rate or a duration the user gives (a resampling
``rate``, the frames a motion check stores, a player's trajectory chunks, a simulation's
frames) asks :func:`require_room` first, with what it would allocate. Too big a request is
one line naming the option or parameter and the size it would need, never numpy's
``MemoryError`` halfway through, nor a process the system's out-of-memory killer ends.

Example (what a simulator that records ``frames`` × ``joints`` × ``channels`` values does)::

    check_frames("rate 1e+06", frames, joints, channels)
"""

from __future__ import annotations

import resource

from .errors import OutOfRangeError

#: Bytes of one stored value (float64).
VALUE_BYTES = 8


def available_memory() -> int | None:
    """Bytes this process can still allocate: the memory the system has available, and no more
    than its address-space limit leaves (None where neither is known)."""
    limits: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    limits.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError, IndexError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        try:
            with open("/proc/self/statm", encoding="ascii") as fh:
                used = int(fh.read().split()[0]) * resource.getpagesize()
        except (OSError, ValueError, IndexError):
            used = 0
        limits.append(max(soft - used, 0))
    return min(limits) if limits else None


def size_text(count: float) -> str:
    """``17.9 GiB``: a byte count for a message."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if count < 1024 or unit == "PiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} PiB"


def require_room(what: str, needed: float) -> None:
    """Refuse, before allocating, ``needed`` bytes that this process cannot hold.

    Args:
        what: The request as the message names it: the option or parameter and its value,
            then what it makes (``--rate 1e+06: 3,500,001 frames × 27 values``).
        needed: The bytes it would allocate at its peak.

    Raises:
        OutOfRangeError: ``needed`` is more than :func:`available_memory`; one line naming
            ``what``, the size it would need and the size there is.
    """
    room = available_memory()
    if room is not None and needed > room:
        raise OutOfRangeError(
            f"{what} would need {size_text(needed)}, more than the {size_text(room)} this process can still allocate"
        )


def check_frames(what: str, frames: int, joints: int, channels: int = 1, copies: float = 2.0) -> None:
    """Refuse ``frames`` × ``joints`` × ``channels`` float64 values (held ``copies`` times at the
    peak: the result and the temporaries that make it) when this process cannot hold them.

    The one call for a layer that records values per frame (a simulator's positions,
    velocities and efforts per joint), with ``what`` naming the option that sets the frames.

    Raises:
        OutOfRangeError: See :func:`require_room`.
    """
    values = max(int(frames), 0) * max(int(joints), 0) * max(int(channels), 0)
    require_room(
        f"{what}: {int(frames):,} frames × {int(joints):,} joints × {int(channels):,} channels",
        copies * values * VALUE_BYTES,
    )


__all__ = ["VALUE_BYTES", "available_memory", "check_frames", "require_room", "size_text"]
