"""Inputs the ``make fuzz`` campaign found escaping the MotionFormatError hierarchy, each now a ReadError.

Every test rebuilds the shape of the mutated file the campaign kept (not the file
itself) and checks the error names the field that is wrong.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from conftest import make_file

from motion_formats_ros import read, write
from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.examples import biped_walk


def _read_error(path: Path) -> ReadError:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ReadError) as err:
            read(path)
    return err.value


def _omf_json(tmp_path: Path, old: str, new: str, *, links: bool = False) -> Path:
    path = tmp_path / "walk.omf.json"
    write(make_file(frames=6) if links else biped_walk(rate=20.0, cycles=1), path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def test_omf_joint_dim_of_infinity_is_a_read_error(tmp_path: Path) -> None:
    # Was OverflowError (int(inf)) in the OMF reader's integer check.
    path = _omf_json(tmp_path, '"joint_dims": [1, ', '"joint_dims": [1e999, ')
    assert "basic.joint_dims[0]" in str(_read_error(path))


def test_omf_custom_link_field_of_one_number_is_a_read_error(tmp_path: Path) -> None:
    # Was IndexError: a custom per-link field given as a number, not as rows.
    path = _omf_json(tmp_path, '"link": {', '"link": {"length": 6, ', links=True)
    assert "target.link.length" in str(_read_error(path))


def test_mof_duration_beyond_float_precision_is_a_read_error(tmp_path: Path) -> None:
    # Was ValueError from Motion (times not increasing): 1e20 ms + 2000 ms == 1e20 ms.
    def row(value: float, ms: str) -> str:
        return " " + " ".join(f"{value:g}" for _ in range(22)) + f" 1 {ms}"

    path = tmp_path / "long.mof"
    lines = ["motion_id = long", "label start", row(0, "200"), row(1, "99999999999999999999"), row(2, "2000")]
    path.write_text("\n".join([*lines, "transition allMotions extern start", ""]))
    err = _read_error(path)
    assert err.line == 5 and "too long" in err.reason, err


def test_joint_states_missing_a_field_of_their_type_are_skipped_not_a_crash() -> None:
    """A damaged bag schema gave decoded JointStates without ``effort`` (an AttributeError escaped)."""
    from types import SimpleNamespace

    from motion_formats_ros.codecs.rosbag._joints import _append_rows, _TopicStream

    stamp = SimpleNamespace(sec=1, nanosec=0)
    good = SimpleNamespace(name=["a"], position=[0.5], velocity=[], effort=[], header=SimpleNamespace(stamp=stamp))
    no_effort = SimpleNamespace(name=["a"], position=[0.5], velocity=[], header=SimpleNamespace(stamp=stamp))
    no_stamp = SimpleNamespace(name=["a"], position=[0.5], velocity=[], effort=[], header=None)
    stream = _TopicStream("/joint_states")
    _append_rows(stream, [(10, good), (20, no_effort), (30, no_stamp), (40, good)])
    assert stream.bad == 2
    assert [int(t) for seg in stream.segments for t in seg.recv] == [10, 40]


def test_a_listed_bag_file_whose_name_is_too_long_is_a_read_error(tmp_path: Path) -> None:
    """metadata.yaml listing a file name no file system takes raised OSError (ENAMETOOLONG)."""
    folder = tmp_path / "bag"
    write(biped_walk(rate=10.0, cycles=1), folder, format="rosbag", storage="mcap")
    meta = folder / "metadata.yaml"
    (mcap,) = folder.glob("*.mcap")
    meta.write_text(meta.read_text().replace(mcap.name, "x" * 300 + ".mcap"))
    err = _read_error(folder)
    assert "relative_file_paths" in str(err) and "x" * 300 in str(err)
