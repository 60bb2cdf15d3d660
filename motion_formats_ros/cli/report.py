"""The notices of one command as plain data, for the commands' ``--json`` output."""

from __future__ import annotations

import argparse
from typing import Any

from ..core.notices import Report


def notices_json(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The notices reported so far in this command (``main`` collects them), as plain data."""
    report = getattr(args, "notices", None)
    return report.as_json() if isinstance(report, Report) else []


__all__ = ["notices_json"]
