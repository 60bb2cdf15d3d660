"""Declared dependency floors: they admit the packages of the ROS distros' own bases, and
they are exactly what `make test-min` installs (core, then the extras)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from motion_formats_ros.codecs.scene.loader import REFERENCE_AGREES_FROM

REPO = Path(__file__).resolve().parents[2]
#: What Debian 12 (and, for msgpack, Ubuntu 22.04 and 24.04) ship: the floors must admit them.
DISTRO_PACKAGES = {"numpy": "1.24.2", "scipy": "1.10.1", "PyYAML": "6.0", "msgpack": "1.0.3", "json5": "0.9.10"}


def _setup_kwargs() -> dict[str, object]:
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "setup")
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg in ("install_requires", "extras_require")}


def _floors(requirements: list[str]) -> dict[str, tuple[int, ...]]:
    out = {}
    for req in requirements:
        name, floor = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", req.split(";")[0].strip()).groups()  # type: ignore[union-attr]
        out[name] = _version(floor)
    return out


def _version(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:  # 2.0 is 2.0.0
        parts.pop()
    return tuple(parts)


def _pins(name: str) -> dict[str, tuple[int, ...]]:
    pins = {}
    for line in (REPO / "tools" / name).read_text(encoding="utf-8").splitlines():
        line = line.split("#")[0].strip()
        if line:
            pkg, version = line.split("==")
            pins[pkg] = _version(version)
    return pins


def test_the_core_floors_admit_the_distros_packages_and_are_what_test_min_installs() -> None:
    floors = _floors(_setup_kwargs()["install_requires"])  # type: ignore[arg-type]
    for name, shipped in DISTRO_PACKAGES.items():
        assert floors[name] <= _version(shipped), f"{name}: floor {floors[name]} refuses the distros' {shipped}"
    assert _pins("min-constraints.txt") == floors


def test_the_extras_floors_are_what_test_min_installs_for_them() -> None:
    extras = _setup_kwargs()["extras_require"]
    pins = _pins("min-constraints-extras.txt")
    for extra in ("fast", "parquet", "progress"):
        for name, floor in _floors(extras[extra]).items():  # type: ignore[index]
            assert pins[name] == floor, f"[{extra}] {name}: floor {floor}, test-min installs {pins.get(name)}"
    # The accelerator is only used with a json5 that reads like it: the extra asks for one.
    assert _floors(extras["fast"])["json5"] >= REFERENCE_AGREES_FROM  # type: ignore[index]
    # The extras run on the core's NumPy floor (pyarrow 26 and later need NumPy 2).
    assert pins["numpy"] == _pins("min-constraints.txt")["numpy"]
    assert _floors(extras["parquet"])["pyarrow"] < (26,)  # type: ignore[index]


#: setup() options that setuptools no longer knows (72 removed its test command and what fed it):
#: a build with today's setuptools warns "Unknown distribution option" for each.
REMOVED_SETUP_OPTIONS = frozenset({"tests_require", "test_suite", "test_loader", "test_runner", "use_2to3"})


def test_setup_passes_only_options_setuptools_still_knows() -> None:
    from setuptools.dist import Distribution

    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "setup")
    given = {k.arg for k in call.keywords if k.arg is not None}
    assert not given & REMOVED_SETUP_OPTIONS, sorted(given & REMOVED_SETUP_OPTIONS)
    known = set(vars(Distribution())) | set(vars(Distribution().metadata))
    assert given <= known, sorted(given - known)
