"""The ``motion_formats_ros`` entry of a bag's custom data, read back field by field.

The writer leaves it in the bag (``metadata.yaml``'s ``custom_data``, or a bare MCAP file's
metadata record) to say how to read the bag back: the group names, the time origin, the root
pose's frames, the links, IMU and series names. It is a hint: the bag reads without it. So an
entry that is no JSON object, and each field of the wrong type or form (a bag edited by hand or
by another tool), is left out with one warning naming the file and the field
(``custom_data.motion_formats_ros.root``), and the bag is read as if it were not there.
Fields this reader does not know are left alone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ...core.atomic import MAX_GROUP_NAME, plain_group_name
from ...core.errors import number
from ...core.notices import NoticeKind, notify
from ...core.serial.nesting import json_too_deep, too_deep_reason
from ...core.tf import MAX_NS
from ._messages import CUSTOM_KEY


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _text_or_null(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _group(value: Any) -> bool:
    """A group name that may become part of a file name (:func:`plain_group_name`), or null."""
    return value is None or (isinstance(value, str) and plain_group_name(value))


def _date(value: Any) -> bool:
    """An ISO 8601 date and time (``2024-01-01T12:00:00.000000``, a time zone's offset optional)."""
    return parsed_date(value) is not None


def parsed_date(value: Any) -> datetime | None:
    """The date of the entry's ``date`` field, or None when it is none."""
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _origin(value: Any) -> bool:
    return _int(value) and -MAX_NS < value < MAX_NS


def _root(value: Any) -> bool:
    """``PARENT:CHILD`` (two frame names), or ``none`` / empty (no root pose)."""
    if not isinstance(value, str):
        return False
    parts = value.split(":")
    return value in ("", "none") or (len(parts) == 2 and all(parts) and value.isprintable() and " " not in value)


def _imus(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def _series(value: Any) -> bool:
    """Topic → ``[NAME, WIDTH, FRAME]`` (WIDTH 1 to 3, FRAME a text or null; FRAME may be left out)."""
    return isinstance(value, dict) and all(
        isinstance(v, list)
        and len(v) in (2, 3)
        and isinstance(v[0], str)
        and _int(v[1])
        and 1 <= v[1] <= 3
        and (len(v) == 2 or v[2] is None or isinstance(v[2], str))
        for v in value.values()
    )


#: The most characters of a value a warning shows.
_SHOWN = 60

#: Each field the writer leaves: the test its value passes, and what it must be (for the warning).
FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "version": (_int, "an integer"),
    "origin_ns": (_origin, f"an integer of nanoseconds within ±{MAX_NS:.3g}"),
    "group": (_group, f"a group name (letters, digits, _ and -, at most {MAX_GROUP_NAME}) or null"),
    "trajectory_group": (_group, f"a group name (letters, digits, _ and -, at most {MAX_GROUP_NAME}) or null"),
    "joint_topic": (_text_or_null, "a topic name (text) or null"),
    "trajectory_needed": (lambda v: isinstance(v, bool), "true or false"),
    "name": (_text_or_null, "a text or null"),
    "robot": (_text_or_null, "a text or null"),
    "robot_description": (_text_or_null, "a topic name (text) or null"),
    "root": (_root, "PARENT:CHILD (two frame names, e.g. world:base_link) or none"),
    "root_channels": (_texts, "a list of texts (position, orientation)"),
    "links": (_texts, "a list of link names (texts)"),
    "world_frame": (_text, "a frame name (text)"),
    "imus": (_imus, "an object of topic: IMU name (texts)"),
    "series": (_series, "an object of topic: [name, components 1 to 3, frame or null]"),
    "date": (_date, "an ISO 8601 date and time (2024-01-01T12:00:00.000000)"),
    "date_text": (_text, "a text (a date that is no date and time)"),
}


class _LongInteger:
    """An integer of the entry with more digits than Python converts (``sys.get_int_max_str_digits``):
    no field takes it, and a warning shows it by its digit count."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __str__(self) -> str:
        return f"an integer of {self.digits:,} digits"


def _integer(text: str) -> int | _LongInteger:
    limit = sys.get_int_max_str_digits()
    digits = len(text.lstrip("-"))
    return _LongInteger(digits) if limit and digits > limit else int(text)


def where(path: Path) -> Path:
    """The file the custom data of the bag at ``path`` is in: a folder's ``metadata.yaml``, else the file."""
    return path / "metadata.yaml" if path.is_dir() else path


def read_custom(path: Path, custom: dict[str, str]) -> dict[str, Any]:
    """The package's own entry of ``custom`` (a bag's custom data, the bag at ``path``), each field
    checked: what is unusable is left out, with one warning each (see the module's text)."""
    text = custom.get(CUSTOM_KEY)
    if not text:
        return {}
    import json  # bags this package wrote only: bag2motion of others' bags loads no JSON library

    file, key = where(path), f"custom_data.{CUSTOM_KEY}"
    line = json_too_deep(text)
    if line is not None:  # json.loads would raise RecursionError
        _ignored(file, key, f"{too_deep_reason()} (line {line} of its JSON)")
        return {}
    try:
        data = json.loads(text, parse_int=_integer)
    except ValueError as exc:
        _ignored(file, key, f"not JSON ({exc})")
        return {}
    if not isinstance(data, dict):
        _ignored(file, key, f"{_shown(data)} is not a JSON object")
        return {}
    for name, (fits, expected) in FIELDS.items():
        if name in data and not fits(data[name]):
            _ignored(file, f"{key}.{name}", f"{_shown(data.pop(name))}: expected {expected}")
    return data


def _shown(value: Any) -> str:
    """A value of the entry as its JSON text says it (an integer of many digits by its size, a long text cut)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return number(value)
    if isinstance(value, _LongInteger):
        return str(value)
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _ignored(file: Path, field: str, reason: str) -> None:
    notify(NoticeKind.SKIPPED, f"{reason}; ignored (the bag is read without it)", file=file, field=field, stacklevel=3)


__all__ = ["FIELDS", "parsed_date", "read_custom", "where"]
