"""Robot motion files as first-class citizens of ROS 2.

``read`` and ``write`` convert between files and the in-memory model
(:class:`~motion_formats_ros.core.model.MotionFile`); the ``ros`` subpackage (the only part
that needs ROS) plays and records motions; ``view`` shows a motion on its robot in the
browser (the ``view`` extra); ``check`` finds what in a motion would hurt its robot
(self-collisions, the floor, balance, joint limits; the ``check`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.errors import MotionFormatError, ReadError, UnknownFormatError, WriteError

# The function, not its package: ``from motion_formats_ros import view`` gives what serves a
# page. Imported here, before anything imports the package's modules, so the name is bound
# once (the package's own imports are light; it loads viser and numpy when it runs).
from .view import view

if TYPE_CHECKING:
    from .core.model import Motion, MotionFile, Series
    from .registry import CODECS, read, write
    from .safety import check

__version__ = "0.2.0"

#: Loaded on first use (PEP 562), so that ``motion-formats --help`` does not load numpy.
_LAZY = {
    "Motion": "core.model",
    "MotionFile": "core.model",
    "Series": "core.model",
    "CODECS": "registry",
    "read": "registry",
    "write": "registry",
    "check": "safety",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


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
    "check",
    "read",
    "view",
    "write",
]
