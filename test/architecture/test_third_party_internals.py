"""What viser and websockets do not promise is used in one module only: ``view/viser_adapter.py``.

Every other module is read with ``ast`` (never imported) for three kinds of use:

- an import of a private module or name of viser or websockets (``viser._messages``,
  ``from viser import _messages``);
- an attribute set on a viser or websockets module or on a name imported from one
  (``ws_server.serve = ...``);
- an attribute whose name is one of viser's or websockets' private ones (read from their
  installed sources: ``self._x`` they assign, ``_x`` methods they define), unless the package
  itself defines an attribute of that name (its own ``self._lock`` is not viser's).

The checker is tried on small synthetic sources too, so that it is known to fail.
"""

from __future__ import annotations

import ast
import importlib.util
import textwrap
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "motion_formats_ros"
ADAPTER = PACKAGE_DIR / "view" / "viser_adapter.py"
THIRD_PARTY = ("viser", "websockets")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _defined_private(paths: list[Path]) -> set[str]:
    """The private attribute names that ``paths`` define: ``self._x = ...`` and ``def _x``."""
    names: set[str] = set()
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _private(node.attr):
                if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                    names.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _private(node.target.id):
                names.add(node.target.id)  # a dataclass's or message's private field
    return names


def _third_party_private() -> set[str]:
    names: set[str] = set()
    for package in THIRD_PARTY:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            pytest.skip(f"needs {package} (the view extra)")
        names |= _defined_private(sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.py")))
    return names


def _is_third_party(module: str) -> bool:
    return module.split(".")[0] in THIRD_PARTY


def internal_uses(source: str, filename: str, private_names: set[str]) -> list[str]:
    """``file:line: what`` for every use of viser's or websockets' internals in ``source``."""
    found = []
    modules: set[str] = set()  # local names bound to a viser / websockets module or to a name of one
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_third_party(alias.name):
                    modules.add(alias.asname or alias.name.split(".")[0])
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"{filename}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and _is_third_party(node.module):
            parts = node.module.split(".")
            for alias in node.names:
                if any(_private(part) for part in parts) or _private(alias.name):
                    found.append(f"{filename}:{node.lineno}: from {node.module} import {alias.name}")
                modules.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id in modules:
            found.append(f"{filename}:{node.lineno}: {node.value.id}.{node.attr} set")
        elif node.attr in private_names:
            found.append(f"{filename}:{node.lineno}: .{node.attr}")
    return found


def test_only_the_adapter_uses_viser_and_websockets_internals() -> None:
    modules = sorted(PACKAGE_DIR.rglob("*.py"))
    private_names = _third_party_private() - _defined_private([p for p in modules if p != ADAPTER])
    found = []
    for path in modules:
        if path != ADAPTER:
            rel = str(path.relative_to(PACKAGE_DIR.parent))
            found += internal_uses(path.read_text(encoding="utf-8"), rel, private_names)
    assert not found, f"viser / websockets internals outside view/viser_adapter.py: {found}"
    adapter = internal_uses(ADAPTER.read_text(encoding="utf-8"), "adapter", private_names)
    assert len(adapter) >= 5  # the checker sees what the adapter does


@pytest.mark.parametrize(
    "source",
    [
        "from viser._messages import GuiSliderMark",
        "from viser import _messages",
        "import viser._viser",
        "import websockets.asyncio.server as ws\nws.serve = object",
        "from websockets.asyncio import server\nserver.serve = object",
        "def f(server):\n    return server._websock_server",
    ],
)
def test_the_checker_finds_internals(source: str) -> None:
    assert internal_uses(textwrap.dedent(source), "m.py", {"_websock_server"})


@pytest.mark.parametrize(
    "source",
    [
        "import viser\nviser.ViserServer()",
        "from websockets.exceptions import ConnectionClosedError",
        "def f(self):\n    return self._lock",
    ],
)
def test_the_checker_lets_public_uses_pass(source: str) -> None:
    assert not internal_uses(textwrap.dedent(source), "m.py", {"_websock_server"})
