"""The command line tells a bad input from a bug: the package's errors are one line, a bug is a traceback."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros import MotionFormatError, write
from motion_formats_ros.core.errors import NoMotionError, ReadError, SelectionError
from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.pipeline import convert

EXE = Path(sys.executable).parent / "motion-formats"


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def walk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("errors") / "walk.msgpack"
    write(biped_walk(rate=50.0, cycles=1), path)
    return path


def test_selections_raise_the_packages_selection_error() -> None:
    motion_file = biped_walk(rate=50.0, cycles=1)
    for kwargs in ({"joints": ["nope"]}, {"group": "nope"}, {"start": 50.0, "end": 60.0}):
        with pytest.raises(SelectionError) as err:
            convert.transform(motion_file, **kwargs)  # type: ignore[arg-type]
        assert isinstance(err.value, MotionFormatError)
    with pytest.raises(KeyError, match=r"^unknown joint 'nope'; joints: "):  # still a KeyError, not quoted
        motion_file.motion.select_joints(["nope"])


def test_an_unknown_joint_is_one_line_naming_the_file_and_the_joints(walk: Path, tmp_path: Path) -> None:
    proc = run("convert", walk, tmp_path / "o.seq", "--joints", "nope")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: {walk}: unknown joint 'nope'; joints: ") and proc.stderr.count("\n") == 1
    assert not (tmp_path / "o.seq").exists()


def test_a_time_window_without_frames_names_the_file_and_where_the_motion_is(walk: Path) -> None:
    motion_file = biped_walk(rate=50.0, cycles=1)
    end = float(motion_file.motion.times[-1])
    for kwargs, said in (
        ({"start": 50.0}, f"no frames after 50 s (the motion ends at {end:g} s)"),
        ({"end": -1.0}, "no frames before -1 s (the motion starts at 0 s)"),
        (
            {"start": 0.001, "end": 0.002},
            f"no frames between 0.001 and 0.002 s (the motion's frames are from 0 to {end:g} s, none in between)",
        ),
    ):
        with pytest.raises(SelectionError) as err:
            convert.transform(dataclasses.replace(motion_file, source=str(walk)), **kwargs)  # type: ignore[arg-type]
        assert str(err.value) == f"{walk}: {said}"


def test_no_motion_error_lives_in_the_core() -> None:
    from motion_formats_ros.codecs import mof

    assert mof.NoMotionError is NoMotionError and issubclass(NoMotionError, ReadError)


def test_a_name_the_file_system_refuses_is_one_line_naming_it(walk: Path, tmp_path: Path) -> None:
    out = tmp_path / ("x" * 300 + ".seq")  # longer than any file system takes: OSError ENAMETOOLONG
    proc = run("convert", walk, out)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr == f"error: {out}: File name too long\n"


#: A codec with a bug: reading an OMF file looks up a key that is not there.
_BUGGY = """
import sys
from motion_formats_ros.codecs import omf

def decode(data, encoding, path):
    return {}["basic"]  # the bug

omf.decode = decode
from motion_formats_ros.cli.main import entry
sys.argv = ["motion-formats", "info", sys.argv[1]]
entry()
"""


def test_a_bug_in_a_codec_shows_its_traceback_and_a_status_of_its_own(walk: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", _BUGGY, str(walk)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 70, proc.stderr  # never 1, the status of a bad input
    assert proc.stderr.startswith("Traceback (most recent call last):")
    assert "KeyError: 'basic'" in proc.stderr and "error:" not in proc.stderr


def test_an_input_folder_where_a_file_belongs_is_a_read_error(tmp_path: Path) -> None:
    from motion_formats_ros import read

    folder = tmp_path / "walk.seq"
    folder.mkdir()
    with pytest.raises(ReadError, match=r"walk\.seq: Is a directory"):
        read(folder, format="seq")


_ARM = (
    '<robot name="arm"><link name="base"/><link name="l1"/><joint name="a" type="revolute">'
    '<parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>'
    '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint></robot>\n'
)


def test_check_of_a_table_with_a_header_and_no_rows_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "arm.urdf").write_text(_ARM)
    (tmp_path / "empty.csv").write_text("time,a.position\n")
    proc = run("check", tmp_path / "empty.csv", "--urdf", tmp_path / "arm.urdf")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == f"error: {tmp_path / 'empty.csv'}: no frames to check\n"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "long.omf.json",
            '{"format": "omf", "version": 1, "basic": {"n": ' + "9" * 5_000_000 + "}}",
            ":1: invalid JSON: an integer of 5,000,000 digits (at most 4,300 are read)",
        ),
        (
            "huge.json5",
            "{models: {arm: {joints: {a: {}}, links: {l1: {pose: {axisAngle: {axis: 'z', angle: {joint: 'a'}}}}}}},"
            " objects: {o: {model: 'arm', jointValues: {a: {trajectory: 't'}}}},"
            " trajectories: {t: {controlPoints: [{t: 0, f: 0, df: 0}, {t: 1, f: 1e308, df: 0}]}}}",
            ": trajectories.t.controlPoints[1]: the spline from t = 0 to 1 overflows",
        ),
    ],
)
def test_numbers_too_large_are_one_line_without_numpys_warnings(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    (tmp_path / name).write_text(text)
    proc = run("info", tmp_path / name)
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith(f"error: {tmp_path / name}{expected}")
