"""The nodes and the playback session set every attribute in ``__init__``: a reader finds their whole state there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "motion_formats_ros"
FILES = ("ros/player.py", "ros/recorder.py", "playback/session.py", "playback/emit.py")


def attributes_set_outside_init(source: str) -> dict[str, list[str]]:
    """``Class.attribute`` → the methods that set it, for attributes ``__init__`` never sets."""
    found: dict[str, list[str]] = {}
    for cls in (n for n in ast.parse(source).body if isinstance(n, ast.ClassDef)):
        in_init: set[str] = set()
        elsewhere: dict[str, list[str]] = {}
        for fn in cls.body:
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == "self"
                ):
                    if fn.name == "__init__":
                        in_init.add(node.attr)
                    else:
                        elsewhere.setdefault(node.attr, []).append(fn.name)
        found.update({f"{cls.name}.{a}": m for a, m in elsewhere.items() if a not in in_init})
    return found


def test_the_check_finds_an_attribute_born_in_a_method() -> None:
    source = (
        "class A:\n    def __init__(self):\n        self.a = 1\n"
        "    def go(self):\n        self.a = 2\n        self.b = 3\n"
    )
    assert attributes_set_outside_init(source) == {"A.b": ["go"]}


@pytest.mark.parametrize("name", FILES)
def test_every_attribute_is_set_in_init(name: str) -> None:
    found = attributes_set_outside_init((PACKAGE / name).read_text(encoding="utf-8"))
    assert not found, found
