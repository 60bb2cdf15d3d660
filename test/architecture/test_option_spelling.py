"""Only the command line knows its flags: a codec names an option by its keyword
(:func:`motion_formats_ros.core.errors.spelled`), and the command line says how it sets each
keyword a message may name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from motion_formats_ros.cli.flags import SPELLING
from motion_formats_ros.core.errors import command_line, spelled

PACKAGE = Path(__file__).resolve().parents[2] / "motion_formats_ros"
FLAG = re.compile(r"""["'(]--[a-z][a-z-]+""")


def _spelled_keywords() -> set[tuple[str, str]]:
    """(module, keyword) of every ``spelled("keyword", …)`` call in the package."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "spelled":
                first = node.args[0]
                assert isinstance(first, ast.Constant), f"{path}:{node.lineno}: spelled() takes a literal keyword"
                found.add((str(path.relative_to(PACKAGE)), first.value))
    return found


def test_no_codec_names_a_command_line_flag() -> None:
    hits = [
        f"{path.relative_to(PACKAGE)}:{i}: {line.strip()}"
        for path in sorted((PACKAGE / "codecs").rglob("*.py"))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FLAG.search(line)
    ]
    assert not hits, hits


def test_the_command_line_spells_every_option_a_message_names() -> None:
    keywords = _spelled_keywords()
    assert len(keywords) >= 5  # the scan finds the calls (overwrite, rate, body, joint_names, …)
    missing = sorted(f"{module}: {keyword}" for module, keyword in keywords if keyword not in SPELLING)
    assert not missing, f"keywords that messages name but the command line does not spell: {missing}"


@pytest.mark.parametrize(
    ("keyword", "value", "python", "flag"),
    [("overwrite", "=True", "overwrite=True", "--overwrite"), ("joint_map", "=", "joint_map=", "--joint-map")],
)
def test_a_message_names_the_keyword_in_python_and_the_flag_on_the_command_line(
    keyword: str, value: str, python: str, flag: str
) -> None:
    assert spelled(keyword, value) == python
    with command_line(SPELLING):
        assert spelled(keyword, value) == flag
