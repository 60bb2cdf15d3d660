"""Which time a received ROS message gets: its header stamp or its receive time.

The one rule, used by the recorder and by ``bag2motion``: ``header`` takes the header
stamps, ``receive`` the receive times, ``auto`` the header stamps unless every stamp of
the stream is zero (publishers that never set them), then the receive times.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]

#: The modes of :func:`choose_times` (the recorder's ``stamps`` parameter, ``bag2motion --stamps``).
STAMPS = ("auto", "header", "receive")


def choose_times(stamps: IntArray, recv: IntArray, mode: str) -> tuple[IntArray, str | None]:
    """The times of one stream's samples in ns, and a note when ``auto`` chose the receive times."""
    if mode not in STAMPS:
        raise ValueError(f"unknown stamps mode {mode!r}; known: {', '.join(STAMPS)}")
    if mode == "receive":
        return recv, None
    if mode == "header":
        return stamps, None
    if stamps.size and not np.any(stamps):
        return recv, "every header stamp is zero; using receive times"
    return stamps, None


__all__ = ["STAMPS", "choose_times"]
