"""Sphinx configuration of the manual (Markdown pages through myst-parser).

Laid out as rosdoc2 expects of a package with its own Sphinx setup: ``doc/conf.py`` next to
the pages, the package importable (installed, or from the checkout added below). Build it
with ``make docs`` (warnings are errors). The option tables of the format pages are
generated here from the codecs' option declarations, so they cannot drift from the code.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

DOC = Path(__file__).resolve().parent
ROOT = DOC.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOC))

import generate  # noqa: E402  (doc/generate.py: the generated parts of the pages)

_package = ET.parse(ROOT / "package.xml").getroot()  # noqa: S314 - the package's own manifest
project = _package.findtext("name", "motion_formats_ros")
release = version = _package.findtext("version", "0.0.0")
author = "motion_formats_ros developers"
copyright = "2026, motion_formats_ros developers"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "README.md"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3


autodoc_member_order = "bysource"
# A package documents what it defines; what it re-exports is documented where it is defined.
autodoc_default_options = {"ignore-module-all": True}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "alabaster"
html_static_path: list[str] = []
html_title = f"{project} {release}"


def _skip_tuple_fields(app: object, what: str, name: str, obj: object, skip: bool, options: object) -> bool | None:
    """A NamedTuple's fields are documented by its docstring's Attributes, not again as members."""
    return True if type(obj).__name__ == "_tuplegetter" else None


def setup(app: object) -> None:
    generate.write_all(DOC / "_generated")
    app.connect("builder-inited", generate.check_api_coverage)  # type: ignore[attr-defined]
    app.connect("autodoc-skip-member", _skip_tuple_fields)  # type: ignore[attr-defined]
