"""Build the tf2_msgs interface package into a venv that holds the ROS 2 wheels.

tf2_msgs has no PyPI wheel. This configures tools/ros/tf2_msgs with CMake against the
rosidl/ament wheels in the venv and installs it there (≈25 s). The wheels' exported
``*__rosidl_generator_pyExport.cmake`` files name the wheel builder's Python include
dirs (/opt/python/cp311-cp311/…); they are rewritten to this interpreter's include dir
and numpy's before configuring. Idempotent: does nothing when tf2_msgs imports.

    python tools/ros/build_tf2_msgs.py VENV
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def already_built(python: Path) -> bool:
    probe = "from tf2_msgs.msg import TFMessage; TFMessage()"
    return subprocess.run([str(python), "-c", probe], capture_output=True).returncode == 0


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


def main() -> int:
    venv = Path(sys.argv[1] if len(sys.argv) > 1 else ".venv").resolve()
    python = venv / "bin" / "python"
    if already_built(python):
        print("tf2_msgs: already in the venv")
        return 0
    cmake = shutil.which("cmake") or str(venv / "bin" / "cmake")
    fix_exports(venv, python)
    env = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "AMENT_PREFIX_PATH": str(venv),
        "CMAKE_PREFIX_PATH": str(venv),
    }
    with tempfile.TemporaryDirectory(prefix="tf2_msgs-build-") as build:
        configure = [
            cmake,
            "-S",
            str(HERE / "tf2_msgs"),
            "-B",
            build,
            f"-DCMAKE_PREFIX_PATH={venv}",
            f"-DCMAKE_INSTALL_PREFIX={venv}",
            f"-DPython3_EXECUTABLE={python}",
            "-DBUILD_TESTING=OFF",
            "-DCMAKE_BUILD_TYPE=Release",
        ]
        for step in (configure, [cmake, "--build", build, "-j", str(os.cpu_count() or 2)], [cmake, "--install", build]):
            proc = subprocess.run(step, env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                print(proc.stdout[-4000:], proc.stderr[-4000:], sep="\n", file=sys.stderr)
                print(f"tf2_msgs: {' '.join(step[:2])} failed", file=sys.stderr)
                return 1
    if not already_built(python):
        print("tf2_msgs: built, but `from tf2_msgs.msg import TFMessage` still fails", file=sys.stderr)
        return 1
    print("tf2_msgs: built into the venv")
    return 0


if __name__ == "__main__":
    sysconfig.get_paths()
    sys.exit(main())
