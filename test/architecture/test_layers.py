"""The package's layers point one way: cli and ros → pipeline, playback, recording, view → registry → codecs → core.

Every module's imports (module level and inside functions, read with ``ast``, never by
importing) must respect the layout in the manual (doc/architecture.md):

- no import cycle between modules;
- ``core`` imports nothing of the package above it;
- a codec imports the core only, never another codec (what two codecs share lives in core);
- nothing points up a layer; ``cli`` and ``ros`` never import each other;
- only ``ros/`` imports rclpy or ROS message / interface packages.

The checker is tried on small synthetic packages too, so that it is known to fail.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "motion_formats_ros"

#: Rank of each layer: an import may go to the same or a lower rank only.
RANKS = {
    "core": 0,  # the model, errors, notices, timing, kinematics, serial fast paths
    "codecs": 1,  # one unit per format; never each other
    "registry": 2,  # the codec map, detection, read() and write()
    "pipeline": 3,  # convert and batch
    "playback": 3,  # the clock, sampler, schedule, trajectory plan, what to emit (ROS-free)
    "recording": 3,  # the recorder's journal and recovery
    "safety": 3,  # the motion check (collisions, floor, balance, limits)
    "simulation": 3,  # the physics preview (MuJoCo): model builder, servos, the loop, the report
    "view": 4,  # the browser viewer, over playback
    "api": 5,  # the package's __init__: the public API
    "cli": 6,
    "ros": 6,
}
#: Layers of one rank that stay apart (neither imports the other).
APART = ({"pipeline", "playback"}, {"cli", "ros"})
#: Top-level ROS Python packages that are not message packages by their name.
ROS_PACKAGES = frozenset(
    {
        "rclpy",
        "rcl",
        "rmw",
        "rosidl_runtime_py",
        "rosidl_parser",
        "launch",
        "launch_ros",
        "ament_index_python",
        "tf2_ros",
        "message_filters",
    }
)
#: Suffixes of ROS interface packages (std_msgs, std_srvs, rcl_interfaces, …).
ROS_SUFFIXES = ("_msgs", "_srvs", "_interfaces", "_actions")


@dataclasses.dataclass(frozen=True)
class Import:
    """One import statement: the importing module, what it imports, the line."""

    source: str
    target: str
    line: int


def module_name(path: Path, root: Path) -> str:
    """``pkg.a.b`` for ``root/a/b.py`` (``pkg.a`` for ``root/a/__init__.py``)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def collect_imports(root: Path) -> tuple[set[str], list[Import]]:
    """The package's modules and every import in them (anywhere in the file)."""
    files = sorted(root.rglob("*.py"))
    modules = {module_name(f, root) for f in files}
    imports: list[Import] = []
    for f in files:
        name = module_name(f, root)
        is_package = f.name == "__init__.py"
        tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imports.extend(Import(name, alias.name, node.lineno) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    # ``from pkg import sub``: the edge goes to the submodule when it is one.
                    sub = f"{target}.{alias.name}"
                    imports.append(Import(name, sub if sub in modules else target, node.lineno))
    return modules, imports


def layer(module: str, package: str) -> tuple[str, str]:
    """(layer, unit) of a package module; the unit tells codecs apart (``codecs.seq``)."""
    parts = module.split(".")[1:]
    if not parts:
        return "api", package  # the package's __init__: the public API over the registry
    head = parts[0]
    if head == "core":
        return "core", "core"
    if head == "codecs":
        return "codecs", ".".join(parts[:2])
    if head == "registry":
        return "registry", "registry"
    if head in RANKS and head not in ("codecs", "api"):
        return head, head
    raise ValueError(f"{module}: not in any layer (add its folder to RANKS)")


def is_ros(target: str) -> bool:
    top = target.split(".")[0]
    return top in ROS_PACKAGES or top.endswith(ROS_SUFFIXES)


def find_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (or a self-import)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check_layers(root: Path) -> list[str]:
    """Every violation of the layout in the package at ``root``, one line each."""
    package = root.name
    modules, imports = collect_imports(root)
    problems: list[str] = []
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module in sorted(modules):
        layer(module, package)  # every module belongs to a named layer
    for imp in imports:
        where = f"{imp.source}:{imp.line} imports {imp.target}"
        src_layer, src_unit = layer(imp.source, package)
        if imp.target != package and not imp.target.startswith(package + "."):
            if is_ros(imp.target) and src_layer != "ros":
                problems.append(f"ROS outside ros/: {where}")
            continue
        if imp.target not in modules:
            problems.append(f"no such module: {where}")
            continue
        if imp.target != imp.source:
            edges[imp.source].add(imp.target)
        dst_layer, dst_unit = layer(imp.target, package)
        if RANKS[dst_layer] > RANKS[src_layer]:
            problems.append(f"upward ({src_layer} → {dst_layer}): {where}")
        elif src_layer == "codecs" and dst_layer == "codecs" and src_unit != dst_unit:
            problems.append(f"codec imports another codec: {where}")
        elif {src_layer, dst_layer} in APART:
            problems.append(f"{src_layer} imports {dst_layer}: {where}")
    problems.extend(f"import cycle: {' → '.join(c)}" for c in find_cycles(edges))
    return list(dict.fromkeys(problems))


# ------------------------------------------------------------------------- the package
def test_package_layers_point_one_way() -> None:
    problems = check_layers(PACKAGE_DIR)
    assert not problems, "\n".join(problems)


def test_the_walk_sees_the_package() -> None:
    modules, imports = collect_imports(PACKAGE_DIR)
    assert {
        "motion_formats_ros.core.model",
        "motion_formats_ros.codecs.seq",
        "motion_formats_ros.ros.player",
    } <= modules
    # Function-level imports are seen too (a scene's frame tree imports the scene kinematics when asked).
    assert any(
        (i.source, i.target)
        == ("motion_formats_ros.codecs.scene.motion", "motion_formats_ros.codecs.scene.scene_kinematics")
        for i in imports
    )
    assert any(i.source == "motion_formats_ros.ros.player" and i.target.startswith("rclpy") for i in imports)


# ------------------------------------------------------------------------- the checker can fail
def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", "core/__init__.py": "", "codecs/__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_a_clean_synthetic_package_passes(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        {
            "core/model.py": "import numpy\n",
            "core/timing.py": "from .model import x\n",
            "codecs/a.py": "from ..core import model\n",
            "codecs/b/__init__.py": "from ...core.timing import y\nfrom . import part\n",
            "codecs/b/part.py": "from ...core import model\n",
            "registry.py": "import importlib\nfrom .core import model\n",
            "cli/__init__.py": "",
            "cli/main.py": "from ..registry import read\nfrom .. import __version__\n",
            "ros/__init__.py": "",
            "ros/node.py": "import rclpy\nfrom sensor_msgs.msg import JointState\nfrom ..registry import read\n",
        },
    )
    assert check_layers(root) == []


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"core/model.py": "def f():\n    from ..codecs import a\n", "codecs/a.py": ""}, "upward (core → codecs)"),
        ({"core/model.py": "from .. import registry\n", "registry.py": ""}, "upward (core → registry)"),
        (
            {"core/model.py": "from ..cli import main\n", "cli/__init__.py": "", "cli/main.py": ""},
            "upward (core → cli)",
        ),
        (
            {"core/model.py": "from ..ros import node\n", "ros/__init__.py": "", "ros/node.py": ""},
            "upward (core → ros)",
        ),
        (
            {
                "core/model.py": "from ..pipeline import convert\n",
                "pipeline/__init__.py": "",
                "pipeline/convert.py": "",
            },
            "upward (core → pipeline)",
        ),
        (
            {"registry.py": "from .view import server\n", "view/__init__.py": "", "view/server.py": ""},
            "upward (registry → view)",
        ),
        (
            {"pipeline/__init__.py": "", "pipeline/convert.py": "from .. import read\n", "__init__.py": ""},
            "upward (pipeline → api)",
        ),
        (
            {"playback/__init__.py": "", "playback/clock.py": "from ..view import page\n", "view/page.py": ""},
            "upward (playback → view)",
        ),
        (
            {"playback/__init__.py": "", "playback/session.py": "import rclpy\n"},
            "ROS outside ros/",
        ),
        (
            {
                "playback/__init__.py": "",
                "playback/session.py": "from ..pipeline import convert\n",
                "pipeline/convert.py": "",
            },
            "playback imports pipeline",
        ),
        ({"codecs/a.py": "from .b import f\n", "codecs/b.py": ""}, "codec imports another codec"),
        (
            {"codecs/a/__init__.py": "from ..b import part\n", "codecs/b/__init__.py": "", "codecs/b/part.py": ""},
            "codec imports another codec",
        ),
        (
            {"codecs/a.py": "def f():\n    from ..registry import read\n", "registry.py": ""},
            "upward (codecs → registry)",
        ),
        ({"core/model.py": "import rclpy\n"}, "ROS outside ros/"),
        ({"codecs/a.py": "def f():\n    from sensor_msgs.msg import JointState\n"}, "ROS outside ros/"),
        ({"cli/__init__.py": "", "cli/main.py": "from builtin_interfaces.msg import Time\n"}, "ROS outside ros/"),
        (
            {
                "cli/__init__.py": "",
                "cli/main.py": "from ..ros import node\n",
                "ros/__init__.py": "",
                "ros/node.py": "",
            },
            "cli imports ros",
        ),
        (
            {
                "ros/__init__.py": "",
                "ros/node.py": "from ..cli import main\n",
                "cli/__init__.py": "",
                "cli/main.py": "",
            },
            "ros imports cli",
        ),
        ({"core/model.py": "from .errors import E\n"}, "no such module: pkg.core.model:1 imports pkg.core.errors"),
        (
            {"core/a.py": "from . import b\n", "core/b.py": "def f():\n    from .a import x\n"},
            "import cycle: pkg.core.a → pkg.core.b",
        ),
        (
            {
                "cli/__init__.py": "",
                "cli/a.py": "from .b import x\n",
                "cli/b.py": "from .c import y\n",
                "cli/c.py": "import pkg.cli.a\n",
            },
            "import cycle: pkg.cli.a → pkg.cli.b → pkg.cli.c",
        ),
    ],
)
def test_the_checker_finds_each_violation(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    problems = check_layers(_package(tmp_path, files))
    assert any(p.startswith(expected) for p in problems), problems


def test_the_checker_names_file_line_and_target(tmp_path: Path) -> None:
    root = _package(tmp_path, {"core/model.py": "import os\n\n\ndef f():\n    import rclpy.node\n"})
    assert check_layers(root) == ["ROS outside ros/: pkg.core.model:5 imports rclpy.node"]


def test_rosbags_is_not_ros(tmp_path: Path) -> None:
    # The pure-Python rosbags library reads bags in the codecs; it is not ROS.
    root = _package(tmp_path, {"codecs/bag.py": "from rosbags.rosbag2 import Reader\nimport rosbags.typesys\n"})
    assert check_layers(root) == []


if __name__ == "__main__":  # pragma: no cover - a quick look from the shell
    print("\n".join(check_layers(PACKAGE_DIR)) or "layers ok")
    sys.exit(0)


def test_a_module_outside_every_layer_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "misc.py").write_text("")
    with pytest.raises(ValueError, match="not in any layer"):
        check_layers(root)
