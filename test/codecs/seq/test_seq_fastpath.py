"""Choreonoid .seq fast path: identical to the YAML parse on the corpus and generated files."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import CORPUS, corpus_path

from motion_formats_ros import Motion, MotionFile, ReadError, Series, write
from motion_formats_ros.codecs import seq
from motion_formats_ros.codecs.seq.fast import extract
from motion_formats_ros.codecs.seq.seq_reader import read_document
from motion_formats_ros.core.serial.yaml import to_number

CHOREONOID = CORPUS / "choreonoid"
CORPUS = ["v1/SR1WalkPattern2.yaml", "v2/SR1WalkPattern1.seq", "v2/SR1WalkPattern2.seq"]


def same(a: Any, b: Any, where: str = "") -> None:
    """Deep equality: arrays bit for bit (NaN equal), dicts, lists, scalars, types too."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{where}[{i}]")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, float) and np.isnan(a):
        assert np.isnan(b), where
    else:
        assert a == b, where


def same_file(a: MotionFile, b: MotionFile) -> None:
    same(a.extras, b.extras, "extras")
    same(a.records, b.records, "records")
    assert (a.robot, a.name) == (b.robot, b.name)
    same(list(a.groups), list(b.groups))
    for name in a.groups:
        same(a.groups[name], b.groups[name], name)


def both(text: str, names: seq.Names | None = None) -> tuple[MotionFile, MotionFile]:
    fast = seq.decode_fast(text, "<t>", names=names)
    assert fast is not None, "the fast path declined"
    slow = seq.decode(text, "<t>", names=names, fast=False)
    same_file(fast, slow)
    return fast, slow


@pytest.mark.parametrize("name", CORPUS)
def test_seq_fast_path_equals_yaml_on_corpus(name: str) -> None:
    text = corpus_path("choreonoid", name).read_text()
    names = seq.load_body(CHOREONOID / "model" / "SR1.body")
    fast, _ = both(text, names)
    assert fast.motion.num_frames > 6000


def generated() -> dict[str, Motion]:
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(3)
    n = 25
    q = Rotation.random(n * 3, random_state=4).as_quat().reshape(n, 3, 4)
    full = Motion(
        times=np.arange(n) / 30,
        joint_names=("a", "b", "c", "d"),
        position=rng.normal(size=(n, 4)) * 10.0 ** rng.integers(-12, 12, size=(n, 4)),
        velocity=rng.normal(size=(n, 4)),
        effort=rng.normal(size=(n, 4)),
        root_position=rng.normal(size=(n, 3)),
        root_orientation=q[:, 0],
        link_names=("l1", "l2"),
        links={"position": rng.normal(size=(n, 2, 3)), "orientation": q[:, 1:]},
        series={"zmp": Series(rng.normal(size=(n, 3)), frame="root")},
    )
    special = full.position.copy()  # type: ignore[union-attr]
    special[0] = [np.nan, np.inf, -np.inf, -0.0]
    special[1] = [1e-300, 5e-324, 1.7976931348623157e308, 0.0]
    timed = dataclasses.replace(full, times=np.cumsum(rng.uniform(0.001, 0.1, size=n)), rate=None)
    return {
        "full": full,
        "special": dataclasses.replace(full, position=special),
        "timed": timed,
        "joints": Motion(times=np.arange(n) / 7, joint_names=("x",), position=rng.normal(size=(n, 1))),
        "one frame": full.take([0]),
    }


@pytest.mark.parametrize("name", list(generated()))
@pytest.mark.parametrize("options", [{}, {"lossless": True}, {"version": 4}, {"se3_format": "XYZRPY"}])
def test_seq_fast_path_equals_yaml_on_generated(tmp_path: Path, name: str, options: dict[str, Any]) -> None:
    path = tmp_path / "g.seq"
    write(MotionFile.single(generated()[name]), path, **options)
    both(path.read_text())


VARIANTS = {
    "trailing spaces": lambda t: t.replace("\n", "  \n"),
    "comments": lambda t: t.replace("    frames:\n", "    frames:  \n    # the frames\n").replace(
        "components:", "# comment\ncomponents: # list"
    ),
    "indentless rows": lambda t: t.replace("      - [", "    - ["),
    "no spaces in rows": lambda t: t.replace("[ ", "[").replace(" ]", "]").replace(", ", ","),
    "wide spaces": lambda t: t.replace(", ", " ,   "),
    "windows endings": lambda t: t.replace("\n", "\r\n"),
    "nan spellings": lambda t: t.replace("[ 0, 1.5 ]", "[ .NaN, -Infinity ]"),
    "exponents": lambda t: t.replace("[ 0, 1.5 ]", "[ 1E5, -.5e-3 ]"),
    "no final newline": lambda t: t.rstrip("\n"),
}

BASE = """\
type: CompositeSeq
content: BodyMotion
formatVersion: 2
frameRate: 100
numFrames: 2
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    numParts: 2
    frames:
      - [ 0, 1.5 ]
      - [ 1e-08, -2 ]
  -
    type: MultiSE3Seq
    content: LinkPosition
    numParts: 2
    SE3Format: XYZQXQYQZQW
    frames:
      - [ [ 1, 2, 3, 0, 0, 0, 1 ], [ 4, 5, 6, 0, 0, 1, 0 ] ]
      - [ [ 1, 2, 3, 0, 0, 0, 1 ], [ 4, 5, 6, 0, 1, 0, 0 ] ]
"""


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_seq_style_variants_read_the_same_on_both_paths(variant: str) -> None:
    text = VARIANTS[variant](BASE)
    slow = seq.decode(text, "<t>", fast=False)
    fast = seq.decode(text, "<t>")
    same_file(fast, slow)
    assert slow.motion.position is not None and slow.motion.position.shape == (2, 2)
    if variant != "windows endings":
        assert seq.decode_fast(text) is not None


TOKENS = ["1", "-0", "+1", ".5", "5.", "-.5", "1e5", "1E+05", "1e-400", "1e400", "00012", "0.1e-3", "nan", "-inf"]
BAD_TOKENS = ["1e", "1 2", "- 1", "-", "1.2.3", "1e5.5", "+-1", "--1", "1e+", "0x10", "1_0", "e5", ".", "abc", "true"]


@pytest.mark.parametrize("token", TOKENS + BAD_TOKENS)
def test_seq_number_tokens_agree_on_both_paths(token: str) -> None:
    text = BASE.replace("[ 0, 1.5 ]", f"[ {token}, 1.5 ]")
    try:
        slow: MotionFile | None = seq.decode(text, "<t>", fast=False)
    except ReadError:
        slow = None
    fast = seq.decode_fast(text)
    if slow is None:
        assert token in BAD_TOKENS
        assert fast is None
        assert to_number(token) is None
    else:
        assert token in TOKENS
        assert fast is not None
        same_file(fast, slow)
        value = slow.motion.position[0, 0]  # type: ignore[index]
        assert value == to_number(token) or (np.isnan(value) and token == "nan")


def test_seq_fast_path_reports_the_yaml_line_for_frame_times(tmp_path: Path) -> None:
    text = BASE.replace("frameRate: 100", "frameRate: 100\nhasFrameTime: true")
    text = text.replace("[ 0, 1.5 ]", "[ 0.5, 0, 1.5 ]").replace("[ 1e-08, -2 ]", "[ 0.5, 1e-08, -2 ]")
    text = text.replace("[ [ 1, 2, 3, 0, 0, 0, 1 ], [ 4", "[ 0, [ 1, 2, 3, 0, 0, 0, 1 ], [ 4")
    text = text.replace("[ [ 1, 2, 3, 0, 0, 0, 1 ], [ 4", "[ 1, [ 1, 2, 3, 0, 0, 0, 1 ], [ 4")
    extracted = extract(text)
    assert extracted is not None
    skeleton, rows = extracted
    with pytest.raises(ReadError) as fast:
        read_document(seq.load_yaml(skeleton, "<t>", rows), "<t>")
    with pytest.raises(ReadError) as slow:
        seq.decode(text, "<t>", fast=False)
    assert fast.value.line == slow.value.line == 14
    assert fast.value.reason == slow.value.reason


def test_seq_fast_path_reads_big_files_without_yaml_rows() -> None:
    # The skeleton the YAML parser sees is tiny: the rows became arrays.
    n = 500
    rows = "".join(f"      - [ {i}, {i * 0.5}, {-i} ]\n" for i in range(n))
    text = (
        BASE.split("components:")[0] + "components:\n  -\n    type: Vector3Seq\n    content: ZMP\n    frames:\n" + rows
    )
    extracted = extract(text)
    assert extracted is not None
    skeleton, found = extracted
    assert len(skeleton.replace("\n", "")) < 200 and len(found) == 1
    (block,) = found.values()
    assert block.values.shape == (n, 3) and block.line == 11
    fast, _ = both(text.replace("numFrames: 2", f"numFrames: {n}"))
    np.testing.assert_array_equal(fast.motion.series["zmp"].values[:, 0], np.arange(n))
