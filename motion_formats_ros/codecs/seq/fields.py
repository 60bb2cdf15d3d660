"""Typed access to the keys of a body motion's mappings, in either spelling, with lines."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

from ...core.errors import ReadError
from ...core.errors import number as shown
from .schema import KEYS
from .yaml_tree import YMap


class Fields:
    """Reads keys of the mappings of one file; errors name the file and the key's line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = path

    def fail(self, reason: str, line: int | None) -> ReadError:
        return ReadError(self.path, reason, line=line)

    def lookup(self, maps: Sequence[YMap], key: str) -> tuple[Any, int | None] | None:
        """(value, line) of ``key`` in either spelling, in the first of ``maps`` that has it."""
        snake = KEYS.get(key)
        for m in maps:
            for k in (key, snake):
                if k is not None and k in m:
                    return m[k], m.key_lines.get(k, m.line)
        return None

    def number(self, maps: Sequence[YMap], key: str) -> tuple[float, int | None] | None:
        found = self.lookup(maps, key)
        if found is None or found[0] is None:
            return None
        value, line = found
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"{key}: expected a number, got {shown(value)}", line)
        try:
            return float(value), line
        except OverflowError:  # an integer beyond the float range
            raise self.fail(f"{key}: expected a number in the float range, got {shown(value)}", line) from None

    def integer(self, maps: Sequence[YMap], key: str) -> tuple[int, int | None] | None:
        found = self.number(maps, key)
        if found is None:
            return None
        value, line = found
        if not math.isfinite(value) or value != int(value) or value < 0:
            raise self.fail(f"{key}: expected a non-negative integer, got {shown(value)}", line)
        return int(value), line

    def flag(self, maps: Sequence[YMap], key: str) -> bool:
        found = self.lookup(maps, key)
        if found is None or found[0] is None:
            return False
        value, line = found
        if not isinstance(value, bool):
            raise self.fail(f"{key}: expected true or false, got {shown(value)}", line)
        return value

    def text(self, maps: Sequence[YMap], key: str) -> tuple[str, int | None] | None:
        found = self.lookup(maps, key)
        if found is None:
            return None
        value, line = found
        if not isinstance(value, str):
            raise self.fail(f"{key}: expected a name, got {shown(value)}", line)
        return value, line


__all__ = ["Fields"]
