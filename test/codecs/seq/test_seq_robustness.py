"""Choreonoid .seq: inputs where the fast path once parted from YAML, value errors, memory.

Each text here is a small edit of a valid file; the fast path must either decline or give
exactly what the YAML parse gives, and every failure must be a ReadError with its line.
"""

from __future__ import annotations

import gc
import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from test_seq_errors import GOOD
from test_seq_fastpath import same_file

from motion_formats_ros import Motion, MotionFile, ReadError, read
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs import seq


def outcome(text: str, fast: bool) -> MotionFile | tuple[int | None, str]:
    """The file read on one path, or (line, reason) of its ReadError."""
    try:
        return seq.decode(text, "<t>", fast=fast)
    except ReadError as err:
        return err.line, err.reason


def assert_paths_agree(text: str) -> MotionFile | tuple[int | None, str]:
    slow = outcome(text, fast=False)
    fast = outcome(text, fast=True)
    if isinstance(slow, MotionFile):
        assert isinstance(fast, MotionFile), fast
        same_file(fast, slow)
    else:
        assert fast == slow
    return slow


def error_of(result: MotionFile | tuple[int | None, str]) -> tuple[int | None, str]:
    assert not isinstance(result, MotionFile), "expected a ReadError"
    return result


def test_seq_empty_field_in_a_row_is_not_a_number(tmp_path: Path) -> None:
    # numpy reads the empty field as -1 and the row keeps its comma layout: the fast
    # path must see the hole and leave the file to YAML, which rejects it.
    text = GOOD.replace("[ 1, 2, 3, 1, 0, 0, 0 ] ]\n", "[ 1, , 3, 1, 0, 0, 0 ] ]\n", 1)
    assert seq.decode_fast(text) is None
    line, reason = error_of(assert_paths_agree(text))
    assert line == 21 and "invalid YAML" in reason
    path = tmp_path / "hole.seq"
    path.write_text(text)
    with pytest.raises(ReadError, match="invalid YAML") as err:
        read(path)
    assert err.value.line == 21


@pytest.mark.parametrize(
    "edit",
    [
        ("[ 0.3, 0.4 ]", "[ 0.3, 0.4, ]"),  # YAML: a trailing comma ends the row (2 values)
        ("[ 0.3, 0.4 ]", "[ , 0.4 ]"),
        ("[ 0.5, 0.6 ]", "[ 0.5,   , 0.6 ]"),
        ("[ [ 1, 2, 3, 1, 0, 0, 0 ] ]\n", "[ [ 1, 2, 3, 1, 0, 0, 0 ], ]\n"),
    ],
)
def test_seq_rows_with_empty_fields_read_as_yaml_reads_them(edit: tuple[str, str]) -> None:
    text = GOOD.replace(*edit, 1)
    assert_paths_agree(text)
    fast = seq.decode_fast(text)
    if fast is not None:  # a row numpy read must hold only the numbers written
        assert fast.motion.position is not None and not np.any(fast.motion.position == -1)


def test_seq_line_after_the_rows_continuing_the_block() -> None:
    # A line indented between the frames key and its rows: YAML does not end the block
    # there (here it is an error); the fast path must not cut the rows off before it.
    text = GOOD.replace("      - [ 0.5, 0.6 ]\n", "      - [ 0.5, 0.6 ]\n     true - [ 0.7, 0.8 ]\n")
    text = text.replace("content: JointDisplacement", "contents: JointDisplacement")
    line, _ = error_of(assert_paths_agree(text))
    assert line == 15


def test_seq_tagged_value_that_is_not_its_type(tmp_path: Path) -> None:
    text = GOOD.replace("numParts: 2", "!!float numParts: 2")
    line, reason = error_of(assert_paths_agree(text))
    assert line == 10 and "invalid value" in reason
    body = tmp_path / "bad.body"
    body.write_text("name: R\nlinks:\n  - {name: B, jointId: !!float zero}\n")
    path = tmp_path / "ok.seq"
    path.write_text(GOOD)
    with pytest.raises(ReadError, match="invalid value in the body file"):
        read(path, body=body)


@pytest.mark.parametrize("rate", [".inf", "-1", "0"])
def test_seq_bad_top_frame_rate_without_components(rate: str) -> None:
    text = f"type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: {rate}\ncomponents: []\n"
    line, reason = error_of(assert_paths_agree(text))
    assert line == 4 and "frameRate must be positive" in reason


def test_seq_cli_joint_map_file_names_the_joints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.seq"
    path.write_text(GOOD)
    jmap = tmp_path / "names.yaml"
    jmap.write_text("joint_names:\n  1: knee\n  0: hip\n")
    assert main(["info", str(path), "--joint-map", str(jmap), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert [j["name"] for j in info["groups"]["target"]["joints"]] == ["hip", "knee"]
    # --joint-names wins over --joint-map.
    assert main(["info", str(path), "--joint-map", str(jmap), "--joint-names", "a,b", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert [j["name"] for j in info["groups"]["target"]["joints"]] == ["a", "b"]


def test_seq_load_memory_is_at_most_three_times_the_arrays(tmp_path: Path) -> None:
    # The benchmark's file: 7,261 frames x 30 joints + a 1-part root LinkPosition.
    frames, joints = 7261, 30
    t = np.arange(frames) / 1000.0
    rng = np.random.default_rng(0)
    position = np.round(rng.uniform(0.05, 1.2, joints) * np.sin(t[:, None] * rng.uniform(1, 12, joints)), 6)
    yaw = 0.1 * np.sin(np.pi * t)
    quat = np.column_stack([np.zeros(frames), np.zeros(frames), np.sin(yaw / 2), np.cos(yaw / 2)])
    root = np.round(np.column_stack([0.2 * t, 0.02 * np.sin(6 * t), 0.7 + 0.01 * np.cos(12 * t)]), 6)
    m = Motion(
        times=t,
        joint_names=tuple(f"J{i}" for i in range(joints)),
        position=position,
        root_position=root,
        root_orientation=quat,
    )
    path = tmp_path / "big.seq"
    seq.write(MotionFile.single(m), path)
    assert path.stat().st_size > 2_500_000
    gc.collect()
    tracemalloc.start()
    try:
        loaded = seq.read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    got = loaded.motion
    arrays = sum(a.nbytes for _, a in got.iter_arrays()) + got.times.nbytes
    assert got.num_frames == frames and got.position is not None and got.position.shape == (frames, joints)
    assert peak <= 3 * arrays, f"peak {peak / 1e6:.2f} MB for {arrays / 1e6:.2f} MB of arrays"
