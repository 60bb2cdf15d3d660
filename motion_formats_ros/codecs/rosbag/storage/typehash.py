"""RIHS01 type hashes (``topic_type_hash`` / ``type_description_hash``) of the types bags hold.

From Jazzy on rosbag2 records, per topic, the RIHS01 hash of the message type's
description (REP 2016), as the interface packages generate it into
``share/<package>/msg/<Type>.json``. :func:`type_hash` takes it from there when the
interfaces are installed (``AMENT_PREFIX_PATH``, the Python environment's prefix), else
from :data:`KNOWN` (the types this package writes), else computes it from the typestore's
definition with rosbags.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Any

#: RIHS01 of the types ``motion2bag`` writes (ROS 2 Humble … Kilted define them alike);
#: a test checks them against the installed interfaces' generated type descriptions.
KNOWN = {
    "sensor_msgs/msg/JointState": "RIHS01_a13ee3a330e346c9d87b5aa18d24e11690752bd33a0350f11c5882bc9179260e",
    "tf2_msgs/msg/TFMessage": "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
    "trajectory_msgs/msg/JointTrajectory": "RIHS01_179b33eba59d676f6d967ac71fe35e7ca2f64b2f3928f4a018cec115e213796e",
    "sensor_msgs/msg/Imu": "RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b",
    "geometry_msgs/msg/PointStamped": "RIHS01_4c0296af86e01e562e9e0405d138a01537247580076c58ea38d7923ac1045897",
}


def _prefixes() -> list[Path]:
    found = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    return [*found, Path(sys.prefix)]


@functools.lru_cache(maxsize=256)
def installed_hash(msgtype: str) -> str | None:
    """The RIHS01 hash the installed interface package generated for ``msgtype``, or None."""
    parts = msgtype.split("/")
    if len(parts) != 3:
        return None
    package, kind, name = parts
    for prefix in _prefixes():
        description = prefix / "share" / package / kind / f"{name}.json"
        try:
            doc = json.loads(description.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        hashes = doc.get("type_hashes") if isinstance(doc, dict) else None
        for entry in hashes if isinstance(hashes, list) else []:
            if isinstance(entry, dict) and entry.get("type_name") == msgtype:
                value = entry.get("hash_string")
                if isinstance(value, str) and value.startswith("RIHS01_"):
                    return value
    return None


def type_hash(msgtype: str, typestore: Any) -> str:
    """RIHS01 of ``msgtype``: installed interfaces, else :data:`KNOWN`, else rosbags' computation."""
    found = installed_hash(msgtype) or KNOWN.get(msgtype)
    if found is not None:
        return found
    computed: str = typestore.hash_rihs01(msgtype)
    return computed
