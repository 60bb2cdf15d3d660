"""Usage errors: the subcommand's usage and one line naming the option, exit 2; nothing clamped, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros import write
from motion_formats_ros.core.errors import OutOfRangeError, listed
from motion_formats_ros.core.examples import biped_walk

EXE = Path(sys.executable).parent / "motion-formats"


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("usage") / "walk.msgpack"
    write(biped_walk(rate=25.0, cycles=1), path)
    return path


def _usage_error(proc: subprocess.CompletedProcess[str], command: str, option: str) -> str:
    """The one error line, after checking the status, the subcommand's usage and that no traceback came."""
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"usage: motion-formats {command} "), proc.stderr
    assert "Traceback" not in proc.stderr
    last = proc.stderr.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"motion-formats {command}: error: "), proc.stderr
    assert option in last, last
    return last


def test_an_unknown_option_shows_the_subcommands_usage(walk: Path, tmp_path: Path) -> None:
    proc = run("convert", walk, tmp_path / "o.yaml", "--urdf", "x")
    line = _usage_error(proc, "convert", "--urdf x")
    assert line.endswith("unrecognized arguments: --urdf x")
    assert not (tmp_path / "o.yaml").exists()


@pytest.mark.parametrize(
    ("command", "args", "option"),
    [
        ("motion2bag", ["--start-time", "-1"], "--start-time"),
        ("motion2bag", ["--start-time", "1e30"], "--start-time"),
        ("motion2bag", ["--start-time", "nan"], "--start-time"),
        ("motion2bag", ["--root", ":::"], "--root"),
        ("bag2motion", ["--root", "a:b:c"], "--root"),
        ("convert", ["--rate", "0"], "--rate"),
        ("convert", ["--rate", "nan"], "--rate"),
        ("convert", ["--start", "inf"], "--start"),
        ("convert", ["--rate", "1e9"], "--rate"),
        ("motion2bag", ["--rate", "1e9"], "--rate"),
    ],
)
def test_out_of_range_values_are_one_line_naming_the_option(
    command: str, args: list[str], option: str, walk: Path, tmp_path: Path
) -> None:
    out = tmp_path / ("o.yaml" if command == "convert" else "bag")
    proc = run(command, walk, out, *args)
    _usage_error(proc, command, option)
    assert not out.exists()


def test_a_rate_the_machine_cannot_hold_is_refused_before_allocating(walk: Path, tmp_path: Path) -> None:
    """Under an address-space limit of 1 GiB: the refusal comes from the estimate, not from numpy failing."""
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from motion_formats_ros.cli.main import main\n"
        f"sys.exit(main(['convert', {str(walk)!r}, {str(tmp_path / 'o.yaml')!r}, '--rate', '2e7']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    line = _usage_error(proc, "convert", "--rate 2e+07")
    assert "frames × " in line and "more than the" in line


def test_the_python_api_names_the_keyword() -> None:
    motion = biped_walk(rate=25.0, cycles=1).motion
    with pytest.raises(OutOfRangeError, match=r"^rate 1e\+12: .* frames × .* values would need .*, more than the "):
        motion.resample(1e12)
    with pytest.raises(OutOfRangeError, match=r"^rate must be positive and finite, got -1$"):
        motion.resample(-1.0)


@pytest.mark.parametrize("name", ["p.xyz", "dir.msgpack"])
def test_plot_to_a_suffix_no_image_has_is_a_usage_error(name: str, walk: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    (tmp_path / "dir.msgpack").mkdir()
    proc = run("plot", walk, "-o", tmp_path / name, "--overwrite")
    _usage_error(proc, "plot", name)
    assert (tmp_path / "dir.msgpack").is_dir() and not (tmp_path / "p.xyz").exists()


def test_plot_to_a_folder_is_one_line(walk: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    (tmp_path / "dir.png").mkdir()
    proc = run("plot", walk, tmp_path / "dir.png", "--overwrite")
    assert proc.returncode == 1 and proc.stderr == (
        f"error: {tmp_path / 'dir.png'}: is a folder; this output is a file, which never replaces a folder\n"
    )


def test_lists_in_messages_are_capped() -> None:
    assert listed([]) == ""
    assert listed(["a", "b"]) == "a, b"
    names = [f"j{i}" for i in range(100_000)]
    text = listed(names)
    assert text == "j0, j1, j2, j3, j4, j5, j6, j7, j8, j9 … and 99,990 more"
    assert listed(iter(names), limit=3) == "j0, j1, j2 … and 99,997 more"
