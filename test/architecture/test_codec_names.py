"""No layer above the codecs tests a format's name: it asks what the codec declares.

Every module of the layers above the registry (the public API, ``cli``, ``pipeline``,
``recording``, ``ros``, ``view``) is read with ``ast`` (never imported) and a comparison
(``==``, ``!=``, ``in``, ``not in``) of something named like a format (``name``,
``codec``, ``format``, ``fmt``, ``*_format``, ``*_codec``, a variable or an attribute) with
a string literal that is a registered format name (or a literal tuple, list or set holding
one) fails the test. ``p.name == "rate"`` or ``os.name == "posix"`` do not compare formats
and pass. The checker is tried on small synthetic sources too, so that it is known to fail.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable
from pathlib import Path

import pytest

from motion_formats_ros.registry import CODECS

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "motion_formats_ros"

#: The layers above the registry: they use codecs only through what the registry declares.
ABOVE = ("cli", "pipeline", "recording", "ros", "view")
#: Identifiers that hold a format's name.
NAMES = frozenset({"name", "codec", "format", "fmt"})
COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def _holds_format(node: ast.expr) -> bool:
    """Whether ``node`` is a variable or attribute named like a format's name."""
    ident = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
    return ident is not None and (ident in NAMES or ident.endswith(("_format", "_codec")))


def _format_literal(node: ast.expr, formats: frozenset[str]) -> str | None:
    """The registered format name ``node`` spells as a literal (alone or in a literal collection)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in formats:
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return next((hit for elt in node.elts if (hit := _format_literal(elt, formats)) is not None), None)
    return None


def name_tests(source: str, filename: str, formats: Iterable[str]) -> list[str]:
    """``file:line: <comparison>`` for every comparison of a format's name with a literal format name."""
    known = frozenset(f.lower() for f in formats)
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for op, left, right in zip(node.ops, operands, operands[1:], strict=False):
            if not isinstance(op, COMPARISONS):
                continue
            for side, other in ((left, right), (right, left)):
                literal = _format_literal(other, known)
                if literal is not None and _holds_format(side):
                    found.append(f"{filename}:{node.lineno}: {ast.unparse(node)}")
                    break
    return found


def modules_above(package_dir: Path) -> list[Path]:
    """Every module of the layers above the registry, and the package's public API."""
    modules = [package_dir / "__init__.py"]
    for layer in ABOVE:
        modules += sorted((package_dir / layer).rglob("*.py"))
    return modules


def package_name_tests(package_dir: Path) -> list[str]:
    found = []
    for path in modules_above(package_dir):
        found += name_tests(path.read_text(encoding="utf-8"), str(path.relative_to(package_dir.parent)), CODECS)
    return found


def test_no_layer_above_the_codecs_tests_a_format_name() -> None:
    assert len(modules_above(PACKAGE_DIR)) > 20  # the walk found the layers
    found = package_name_tests(PACKAGE_DIR)
    assert not found, "ask the codec what it declares instead:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source",
    [
        'if info.name == "rosbag": pass',
        'if "scene" != info.name: pass',
        'x = bag if codec == "rosbag" else other',
        'ok = codec_for_path(p).name == "csv"',
        'if self.codec == "seq": pass',
        'if args.to_format in ("omf", "json"): pass',
        'if fmt not in ["mof", "mtn"]: pass',
        'if 0 < len(x) and name == "parquet": pass',
        'if name == "SEQ": pass',
    ],
)
def test_a_format_name_test_is_found(source: str) -> None:
    assert len(name_tests(source, "synthetic.py", CODECS)) == 1


@pytest.mark.parametrize(
    "source",
    [
        'if p.name == "rate": pass',
        'if os.name == "posix": pass',
        "if info.recording: pass",
        "if codec == other_codec: pass",
        'if name in ("start", "end"): pass',
        'label = "rosbag"',
        'if path.suffix == ".seq": pass',
    ],
)
def test_other_comparisons_pass(source: str) -> None:
    assert name_tests(textwrap.dedent(source), "synthetic.py", CODECS) == []


def test_a_recording_declares_what_its_callers_pass() -> None:
    """A codec that declares itself a recording reads the bag flags and cuts while reading."""
    from motion_formats_ros.cli.flags import BAG_OPTIONS

    recordings = [info for info in CODECS.values() if info.recording]
    assert recordings
    for info in recordings:
        declared = {o.name for o in info.read_options}
        missing = {*BAG_OPTIONS, "joints", "start", "end", "rate", "progress"} - declared
        assert not missing, f"{info.name} does not declare {sorted(missing)}"


def test_a_codec_offers_what_its_record_says() -> None:
    """A per-group codec names its files; a codec's own validation is offered by its module."""
    for info in CODECS.values():
        module = info.load()
        assert info.per_group == hasattr(module, "output_paths"), info.name
        if info.per_group:
            assert info.output_paths(Path("run.x"), ["a", "b"]) != [Path("run.x")], info.name
        else:
            assert info.output_paths(Path("run.x"), ["a", "b"]) == [Path("run.x")], info.name
