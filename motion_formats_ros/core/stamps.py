"""Which time a received ROS message gets: its header stamp or its receive time.

The one rule, used by the recorder and by ``bag2motion``: ``header`` takes the header
stamps, ``receive`` the receive times, ``auto`` the header stamps unless every stamp of
the stream is zero (publishers that never set them), then the receive times.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .options import ChoiceEnum

IntArray = npt.NDArray[np.int64]


class Stamps(ChoiceEnum):
    """The modes of :func:`choose_times` (the recorder's ``stamps`` parameter, ``bag2motion --stamps``)."""

    AUTO = "auto"
    HEADER = "header"
    RECEIVE = "receive"


#: The modes' names.
STAMPS = Stamps.values()


def choose_times(stamps: IntArray, recv: IntArray, mode: str) -> tuple[IntArray, str | None]:
    """The times of one stream's samples in ns, and a note when ``auto`` chose the receive times.

    ``mode`` is a :class:`Stamps` (or its text), checked where it was given (the options and
    settings layer): anything but ``header`` and ``receive`` is ``auto``.
    """
    if mode == "receive":
        return recv, None
    if mode == "header":
        return stamps, None
    if stamps.size and not np.any(stamps):
        return recv, "every header stamp is zero; using receive times"
    return stamps, None


__all__ = ["STAMPS", "Stamps", "choose_times"]
