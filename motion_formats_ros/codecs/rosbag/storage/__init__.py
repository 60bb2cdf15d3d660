"""The bag I/O layer: storage files read and written, below the codec's message mapping.

It knows bags, not motions: rosbag2 folders (``folder``: what ``metadata.yaml`` says and
whether rosbags can use it), bare ``.db3`` / ``.mcap`` files and ROS 1 bags opened
(``opening``, ``readers``, ``bounded``, ``compression``), MCAP salvage of crashed
recordings (``mcap_scan``), the package's own readers of rosbag2's usual layouts and
standard messages, without rosbags (``direct``, ``standard``), messages read in blocks
straight from storage (``chunks``), message types and CDR (``typeload``, ``msgtypes``,
``typehash``), bulk CDR of JointState and TF (``bulk``, ``tf_bulk``) and
the storage writers rosbags' Writer is given (``plugins``). :class:`BagSource` is what
the mapping reads a bag through. Nothing here imports the codec's mapping modules.
"""

from __future__ import annotations

from .chunks import BIG_CHUNK, Block
from .compression import DecompressionBombError
from .readers import BAG_SUFFIXES, Topic, direct_candidate, is_rosbag2_folder
from .source import BagSource
from .typeload import PayloadTooShortError, UndecodableMessageError, deserialize_cdr, typestore_for

__all__ = [
    "BAG_SUFFIXES",
    "BIG_CHUNK",
    "BagSource",
    "Block",
    "DecompressionBombError",
    "PayloadTooShortError",
    "Topic",
    "UndecodableMessageError",
    "deserialize_cdr",
    "direct_candidate",
    "is_rosbag2_folder",
    "typestore_for",
]
