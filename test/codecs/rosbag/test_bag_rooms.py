"""The bag codec's rooms: a mapping over a storage layer that knows nothing of motions or the command line."""

from __future__ import annotations

import ast
from pathlib import Path

import motion_formats_ros.codecs.rosbag as rosbag

ROOT = Path(rosbag.__file__).parent
STORAGE = ROOT / "storage"


def _imports(path: Path) -> set[str]:
    """Modules ``path`` imports, relative ones resolved against the package (module level and in functions)."""
    package = ".".join(("motion_formats_ros", *path.relative_to(ROOT.parents[2]).with_suffix("").parts[1:-1]))
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def test_the_storage_layer_never_imports_the_mapping() -> None:
    mapping = {f"motion_formats_ros.codecs.rosbag.{p.stem}" for p in ROOT.glob("_*.py")}
    mapping.add("motion_formats_ros.codecs.rosbag")
    modules = sorted(STORAGE.glob("*.py"))
    assert len(modules) > 10
    for path in modules:
        wrong = {name for name in _imports(path) if name in mapping}
        assert not wrong, f"{path.name} imports {wrong}"


def test_no_room_over_800_lines_and_no_function_over_100() -> None:
    for path in sorted(ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert text.count("\n") <= 800, path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                assert length <= 100, f"{path.name}: {node.name} has {length} lines"
