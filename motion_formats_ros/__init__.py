"""Robot motion files as first-class citizens of ROS 2.

``read`` and ``write`` convert between files and the in-memory model
(:class:`~motion_formats_ros.core.model.MotionFile`); the ``ros`` subpackage (the only part
that needs ROS) plays and records motions; ``view`` shows a motion on its robot in the
browser (the ``view`` extra).
"""

from . import view  # callable: view(motion, urdf=...) serves the page
from .core.errors import MotionFormatError, ReadError, UnknownFormatError, WriteError
from .core.model import Motion, MotionFile, Series
from .registry import CODECS, read, write

__version__ = "0.1.0"

__all__ = [
    "CODECS",
    "Motion",
    "MotionFile",
    "MotionFormatError",
    "ReadError",
    "Series",
    "UnknownFormatError",
    "WriteError",
    "__version__",
    "read",
    "view",
    "write",
]
