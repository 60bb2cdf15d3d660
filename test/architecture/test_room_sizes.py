"""Rooms a newcomer can find: no module over 800 lines, no function over 100, and a module's
name tells its room (no two unrelated modules of one name in different folders)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "motion_formats_ros"
MODULES = sorted(PACKAGE.rglob("*.py"))

#: Names that several folders use for the same role; anything else must be unique.
SHARED_ROLES = {
    "__init__.py": "a package's entry",
    "reader.py": "a codec package's reading half",
    "writer.py": "a codec package's writing half",
    # A command module of cli/ and the layer it is thin over, named alike on purpose.
    "batch.py": "cli/batch.py is the command over pipeline/batch.py",
    "check.py": "cli/check.py is the command over safety/check.py",
}


def _rel(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def test_no_module_over_800_lines() -> None:
    big = {_rel(p): n for p in MODULES if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert not big, f"modules over 800 lines (split them by responsibility): {big}"


def test_no_function_over_100_lines() -> None:
    long = []
    for path in MODULES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 100:
                    long.append(f"{_rel(path)}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, f"functions over 100 lines: {long}"


def test_a_module_name_tells_its_room() -> None:
    folders: dict[str, list[str]] = defaultdict(list)
    for path in MODULES:
        folders[path.name].append(_rel(path.parent))
    repeated = {name: where for name, where in folders.items() if len(where) > 1 and name not in SHARED_ROLES}
    assert not repeated, f"one module name in several folders (name each for its room): {repeated}"
