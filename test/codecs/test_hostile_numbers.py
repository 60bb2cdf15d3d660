"""Numbers a reader must not take as they come: a frame rate beyond the float range, a CSV
cell with Python's digit separator, a row value of 400 digits. Each is refused in one line
naming the file, the line and what was wrong, and a long number is never quoted in full."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros import read
from motion_formats_ros.core.errors import ReadError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DIGITS = "9" * 400


def _walk_with(tmp_path: Path, line: int, old: str, new: str) -> Path:
    lines = (EXAMPLES / "walk.seq").read_text().split("\n")
    assert old in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    out = tmp_path / "walk.seq"
    out.write_text("\n".join(lines))
    return out


def test_a_top_frame_rate_beyond_the_float_range_is_refused_though_components_state_their_own(
    tmp_path: Path,
) -> None:
    path = _walk_with(tmp_path, 4, "frameRate: 100", "frameRate: 1e400")  # the top node's key
    with pytest.raises(ReadError, match=r"walk\.seq:4: frameRate must be positive and finite, got inf$"):
        read(path)


def test_a_top_frame_rate_beyond_the_highest_rate_is_refused(tmp_path: Path) -> None:
    path = _walk_with(tmp_path, 4, "frameRate: 100", "frameRate: 1e300")
    with pytest.raises(ReadError, match=r"walk\.seq:4: frameRate 1e\+300 Hz is beyond the highest frame rate"):
        read(path)


@pytest.mark.parametrize("cell", ["1_000", "1_0.5", "0_0"])
def test_a_csv_cell_with_a_digit_separator_is_not_a_number(tmp_path: Path, cell: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(f"time,left_hip.position\n0,1\n0.1,{cell}\n")
    with pytest.raises(ReadError, match=rf"t\.csv:3: column 'left_hip\.position': '{cell}' is not a number$"):
        read(path)


def test_csv_names_with_underscores_still_read(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("time,left_hip.position\n0,1\n0.1,1000\n")
    assert read(path).motion.position.tolist() == [[1.0], [1000.0]]  # type: ignore[union-attr]


def _wave_with(tmp_path: Path, column: int, token: str) -> Path:
    lines = (EXAMPLES / "wave.mof").read_text().split("\n")
    row = next(i for i, line in enumerate(lines) if line.split() and line.split()[-1] == "1000")
    tokens = lines[row].split()
    tokens[column] = token
    lines[row] = " ".join(tokens)
    out = tmp_path / "wave.mof"
    out.write_text("\n".join(lines))
    return out


@pytest.mark.parametrize("sign", ["", "-"])
def test_a_mof_value_of_400_digits_is_refused_naming_its_line(tmp_path: Path, sign: str) -> None:
    path = _wave_with(tmp_path, 0, sign + DIGITS)
    with pytest.raises(
        ReadError, match=rf"wave\.mof:\d+: joint column 1: '{sign}999…\(400 digits\)' is beyond the float"
    ):
        read(path)


def test_a_mof_int_of_400_digits_is_refused_in_a_short_line(tmp_path: Path) -> None:
    path = _wave_with(tmp_path, -2, DIGITS)
    with pytest.raises(ReadError) as caught:
        read(path)
    text = str(caught.value)
    assert "'999…(400 digits)' for Int" in text and "at most 2147483647" in text
    assert len(text) < 200


def test_a_mof_int_of_a_c_int_still_reads(tmp_path: Path) -> None:
    assert read(_wave_with(tmp_path, -2, "0000000000001")).motion.num_frames > 0


@pytest.mark.parametrize("field", ["version", "joint_dims"])
def test_an_omf_integer_of_400_digits_is_quoted_short(tmp_path: Path, field: str) -> None:
    import json

    doc = {
        "format": "omf",
        "version": 1,
        "basic": {"joint_names": ["a"], "joint_dims": [1]},
        "target": {"time": [0.0, 0.1], "joint": {"pos": [[0.0], [1.0]]}},
    }
    big = int(DIGITS)
    if field == "version":
        doc["version"] = big
    else:
        doc["basic"]["joint_dims"] = [big]  # type: ignore[index]
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ReadError) as caught:
        read(path, format="omf")
    expected = {
        "version": "version: unsupported version an integer of about 401 digits",
        "joint_dims": "basic.joint_dims[0]: an integer of about 401 digits is more values than a file of",
    }
    assert expected[field] in str(caught.value)
    assert DIGITS[:40] not in str(caught.value)


def test_a_bags_robot_frames_name_the_motion_for_its_held_nan(tmp_path: Path) -> None:
    import dataclasses

    import numpy as np

    from motion_formats_ros import write
    from motion_formats_ros.core.kinematics import load_robot_model
    from motion_formats_ros.core.notices import collect

    walk = read(EXAMPLES / "walk.seq", body=EXAMPLES / "biped.body")
    position = np.array(walk.motion.position)
    position[6, 0] = np.nan
    walk = dataclasses.replace(
        walk, groups={k: dataclasses.replace(m, position=position) for k, m in walk.groups.items()}
    )
    with collect(warn=False) as report:
        write(walk, tmp_path / "bag", format="rosbag", robot_model=load_robot_model(EXAMPLES / "biped.body"))
    held = [n for n in report.notices if "hold the last finite value" in n.message]
    assert [(n.file, n.message) for n in held] == [
        (
            str(EXAMPLES / "walk.seq"),
            "non-finite values of left_hip_yaw hold the last finite value (0 before it; the first at frame 6)",
        )
    ]
