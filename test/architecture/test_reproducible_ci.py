"""The suite's own determinism: property tests repeat the same examples unless asked not to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import settings

REPO = Path(__file__).resolve().parents[2]


def test_property_tests_are_derandomized_by_default() -> None:
    if os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci":
        return  # an explicit exploring run
    assert settings.default.derandomize
    assert settings.default.database is None


def test_an_exploring_target_draws_random_examples() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "HYPOTHESIS_PROFILE=explore" in makefile
    code = "import conftest, hypothesis; print(hypothesis.settings.default.derandomize)"
    path = os.pathsep.join([str(REPO / "test"), str(REPO)])
    env = {**os.environ, "HYPOTHESIS_PROFILE": "explore", "PYTHONPATH": path}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False"
