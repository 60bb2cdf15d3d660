"""Build the ROS 2 interface packages that have no PyPI wheel into a venv with the ROS wheels.

Every directory next to this script that holds a ``package.xml`` is an interface package
(``tf2_msgs``, ``control_msgs``): its definitions are written in this repository with the
field lists of the upstream package for the targeted distro (ROS 2 Kilted), so the type
hashes equal upstream's. Each is configured with CMake against the rosidl/ament wheels in
the venv and installed there (≈25 s a package). The wheels' exported
``*__rosidl_generator_pyExport.cmake`` files name the wheel builder's Python include dirs
(/opt/python/cp311-cp311/…); they are rewritten to this interpreter's include dir and
numpy's before configuring.

A package is rebuilt only when its definitions changed: after a build the SHA-256 of the
package directory's files is stamped into ``VENV/share/<package>/motion_formats_ros.stamp``;
a package whose stamp matches and whose Python module imports is left alone.

    python tools/ros/build_interfaces.py VENV [PACKAGE ...]
    python tools/ros/build_interfaces.py VENV --hashes    # print the RIHS01 type hashes built
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAMP = "motion_formats_ros.stamp"
#: Built in this order (control_msgs does not depend on tf2_msgs, but the order is fixed).
ORDER = ("tf2_msgs", "control_msgs")


def packages() -> list[Path]:
    """Interface package directories next to this script, in build order."""
    found = {p.parent.name: p.parent for p in HERE.glob("*/package.xml")}
    return [found[n] for n in ORDER if n in found] + [found[n] for n in sorted(found) if n not in ORDER]


def digest(package: Path) -> str:
    """SHA-256 over the package's files (relative names and contents)."""
    h = hashlib.sha256()
    for path in sorted(p for p in package.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(package)).encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def stamp_path(venv: Path, name: str) -> Path:
    return venv / "share" / name / STAMP


def importable(python: Path, name: str) -> bool:
    return subprocess.run([str(python), "-c", f"import {name}"], capture_output=True).returncode == 0


def up_to_date(venv: Path, python: Path, package: Path) -> bool:
    stamp = stamp_path(venv, package.name)
    return stamp.exists() and stamp.read_text().strip() == digest(package) and importable(python, package.name)


def fix_exports(venv: Path, python: Path) -> int:
    """Point the wheels' CMake exports at this interpreter's headers; returns files changed."""
    out = subprocess.run(
        [
            str(python),
            "-c",
            "import sysconfig, numpy; print(sysconfig.get_paths()['include']); print(numpy.get_include())",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    py_include, np_include = out[0], out[1]
    pattern = re.compile(r'INTERFACE_INCLUDE_DIRECTORIES "[^"]*"')
    replacement = f'INTERFACE_INCLUDE_DIRECTORIES "{py_include};{np_include}"'
    changed = 0
    for export in venv.glob("share/*/cmake/*__rosidl_generator_pyExport.cmake"):
        text = export.read_text()
        new = pattern.sub(
            lambda m: replacement if "python" in m.group(0) or "numpy" in m.group(0) else m.group(0), text
        )
        if new != text:
            export.write_text(new)
            changed += 1
    return changed


def build(venv: Path, python: Path, package: Path) -> bool:
    """Configure, build and install one package into the venv; False (with the log) on failure."""
    cmake = shutil.which("cmake") or str(venv / "bin" / "cmake")
    env = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "AMENT_PREFIX_PATH": str(venv),
        "CMAKE_PREFIX_PATH": str(venv),
    }
    with tempfile.TemporaryDirectory(prefix=f"{package.name}-build-") as tmp:
        configure = [
            cmake,
            "-S",
            str(package),
            "-B",
            tmp,
            f"-DCMAKE_PREFIX_PATH={venv}",
            f"-DCMAKE_INSTALL_PREFIX={venv}",
            f"-DPython3_EXECUTABLE={python}",
            "-DBUILD_TESTING=OFF",
            "-DCMAKE_BUILD_TYPE=Release",
        ]
        steps = (configure, [cmake, "--build", tmp, "-j", str(os.cpu_count() or 2)], [cmake, "--install", tmp])
        for step in steps:
            proc = subprocess.run(step, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n", file=sys.stderr)
                print(f"{package.name}: {' '.join(step[:2])} failed", file=sys.stderr)
                return False
    if not importable(python, package.name):
        print(f"{package.name}: built, but `import {package.name}` still fails", file=sys.stderr)
        return False
    stamp_path(venv, package.name).write_text(digest(package) + "\n")
    return True


def type_hashes(venv: Path, name: str) -> dict[str, str]:
    """RIHS01 hashes of a built package's top-level types, from rosidl's type description files."""
    out = {}
    for path in sorted((venv / "share" / name).glob("*/*.json")):
        data = json.loads(path.read_text())
        for entry in data.get("type_hashes", []):
            out[entry["type_name"]] = entry["hash_string"]
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    venv = Path(args[0] if args else ".venv").resolve()
    python = venv / "bin" / "python"
    wanted = set(args[1:])
    chosen = [p for p in packages() if not wanted or p.name in wanted]
    if "--hashes" in argv:
        for package in chosen:
            for type_name, value in type_hashes(venv, package.name).items():
                print(f"{type_name} {value}")
        return 0
    fixed = False
    for package in chosen:
        if up_to_date(venv, python, package):
            print(f"{package.name}: up to date in the venv")
            continue
        if not fixed:
            fix_exports(venv, python)
            fixed = True
        print(f"{package.name}: building into the venv", flush=True)
        if not build(venv, python, package):
            return 1
        print(f"{package.name}: built")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
