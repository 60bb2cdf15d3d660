"""Rooms a newcomer can find: no module over 800 lines, no function over 100, and a module's
name says its role, so no two modules share a name (a file's stem and a package's folder
alike; ``__init__.py`` is named by its folder)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "motion_formats_ros"
MODULES = sorted(PACKAGE.rglob("*.py"))


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


def module_names(root: Path, modules: list[Path]) -> dict[str, list[str]]:
    """Every module's own name (a file's stem, a package's folder) → where each of that name is.

    A package's ``__init__.py`` is the one file whose name is structural: its module is named
    by its folder, so it counts under the folder's name and never as ``__init__``.
    """
    where: dict[str, list[str]] = defaultdict(list)
    for path in modules:
        if path.name == "__init__.py":
            if path.parent != root:
                where[path.parent.name].append(str(path.parent.relative_to(root)))
        else:
            where[path.stem].append(str(path.relative_to(root)))
    return where


def test_a_module_name_tells_its_room() -> None:
    repeated = {name: places for name, places in module_names(PACKAGE, MODULES).items() if len(places) > 1}
    assert not repeated, f"one module name in several places (name each for its role): {repeated}"


def test_a_repeated_name_is_found(tmp_path: Path) -> None:
    """The rule sees a file named like a file or like a package elsewhere, and no ``__init__``."""
    files = [
        "__init__.py",
        "a/__init__.py",
        "a/reader.py",
        "b/__init__.py",
        "b/reader.py",
        "c/__init__.py",
        "c/a.py",
        "d/x.py",
    ]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).touch()
    names = module_names(tmp_path, [tmp_path / name for name in files])
    assert {n for n, places in names.items() if len(places) > 1} == {"reader", "a"}
    assert "__init__" not in names
