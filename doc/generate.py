"""The generated parts of the manual, written before Sphinx reads the pages.

- ``_generated/options_<format>.md``: the table of a format's read and write options, from
  the codec's own declarations (name, type, default, help, the command-line flag).
- The API check: every public module of the package has an ``automodule`` entry in
  ``api.md`` (a missing one is a build warning, so ``make docs`` fails on it).
"""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parent


def options_table(name: str) -> str:
    """The Markdown table of one format's options, from the codec's declarations."""
    from motion_formats_ros.core.options import markdown_table, rows
    from motion_formats_ros.registry import CODECS

    codec = CODECS[name]
    declared = rows(name, codec.read_options, codec.write_options if codec.writable else ())
    if not declared:
        return "This format takes no options.\n"
    return markdown_table(declared)


def write_all(out: Path) -> None:
    from motion_formats_ros.registry import CODECS

    out.mkdir(parents=True, exist_ok=True)
    for name in CODECS:
        path = out / f"options_{name}.md"
        text = options_table(name)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def public_modules() -> list[str]:
    """Every module of the package whose name has no leading underscore part."""
    import motion_formats_ros

    names = ["motion_formats_ros"]
    for info in pkgutil.walk_packages(motion_formats_ros.__path__, "motion_formats_ros."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def documented_modules(api_page: Path = DOC / "api.md") -> set[str]:
    return set(re.findall(r"automodule::\s*(\S+)", api_page.read_text(encoding="utf-8")))


def check_api_coverage(app: Any) -> None:
    from sphinx.util import logging

    missing = sorted(set(public_modules()) - documented_modules())
    if missing:
        logging.getLogger(__name__).warning("api.md has no entry for: %s", ", ".join(missing))
