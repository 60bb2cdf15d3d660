"""Choreonoid .seq: every kind of bad input is a ReadError with its line, on both parse paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros import ReadError, read
from motion_formats_ros.codecs import seq
from motion_formats_ros.codecs.seq.fast import extract

GOOD = """\
type: CompositeSeq
content: BodyMotion
formatVersion: 2
frameRate: 100
numFrames: 3
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    numParts: 2
    frames:
      - [ 0.1, 0.2 ]
      - [ 0.3, 0.4 ]
      - [ 0.5, 0.6 ]
  -
    type: MultiSE3Seq
    content: LinkPosition
    numParts: 1
    SE3Format: XYZQWQXQYQZ
    frames:
      - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]
      - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]
      - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]
"""

TIMED = """\
type: CompositeSeq
content: BodyMotion
formatVersion: 2
frameRate: 100
hasFrameTime: true
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    numParts: 2
    frames:
      - [ 0.0, 0.1, 0.2 ]
      - [ 0.5, 0.3, 0.4 ]
      - [ 0.7, 0.5, 0.6 ]
"""

BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)
)

CASES = {
    "not a mapping": ("- 1\n- 2\n", 1, "expected a body motion mapping"),
    "a scalar document": ("just text\n", 1, "expected a body motion mapping"),
    "empty file": ("# nothing\n", 1, "empty file"),
    "unknown top type": (GOOD.replace("type: CompositeSeq", "type: PoseSeq"), 1, "unknown type 'PoseSeq'"),
    "unknown content": (GOOD.replace("content: BodyMotion", "content: Other"), 2, "unknown content"),
    "unknown component type": (GOOD.replace("type: MultiSE3Seq", "type: MultiFooSeq"), 16, "unknown type"),
    "component not a mapping": (
        GOOD.replace("  -\n    type: MultiSE3Seq", "  - 5\n  -\n    type: MultiSE3Seq"),
        15,
        "expected a mapping",
    ),
    "numParts vs row width": (GOOD.replace("numParts: 2", "numParts: 3"), 12, "has 2 elements, expected 3"),
    "a short row": (GOOD.replace("[ 0.3, 0.4 ]", "[ 0.3 ]"), 13, "has 1 elements, expected 2"),
    "a row with a word": (GOOD.replace("[ 0.3, 0.4 ]", "[ 0.3, abc ]"), 13, "expected a number"),
    "a row with a boolean": (GOOD.replace("[ 0.5, 0.6 ]", "[ 0.5, true ]"), 14, "expected a number"),
    "a row with a quoted number": (GOOD.replace("[ 0.5, 0.6 ]", "[ 0.5, '0.6' ]"), 14, "expected a number"),
    "a row with hex": (GOOD.replace("[ 0.5, 0.6 ]", "[ 0.5, 0x10 ]"), 14, "expected a number"),
    "a row with 1,000": (GOOD.replace("[ 0.5, 0.6 ]", "[ 0.5, 1_000 ]"), 14, "expected a number"),
    "a row that is a number": (GOOD.replace("      - [ 0.3, 0.4 ]", "      - 0.3"), 13, "expected a list"),
    "an SE3 part too short": (GOOD.replace("[ [ 1, 2, 3, 1, 0, 0, 0 ] ]\n", "[ [ 1, 2, 3, 1, 0, 0 ] ]\n", 1), 21, "7"),
    "SE3 parts vs numParts": (GOOD.replace("numParts: 1", "numParts: 2"), 21, "expected 2"),
    "unknown SE3Format": (GOOD.replace("SE3Format: XYZQWQXQYQZ", "SE3Format: XYZABC"), 19, "unknown SE3Format"),
    "frame times not increasing": (TIMED.replace("[ 0.7,", "[ 0.5,"), 14, "does not increase"),
    "frame times decreasing": (TIMED.replace("[ 0.5,", "[ -0.5,"), 13, "does not increase"),
    "zero frameRate": (GOOD.replace("frameRate: 100", "frameRate: 0"), 4, "frameRate must be positive"),
    "negative frameRate": (GOOD.replace("frameRate: 100", "frameRate: -50"), 4, "frameRate must be positive"),
    "frameRate not a number": (GOOD.replace("frameRate: 100", "frameRate: fast"), 4, "expected a number"),
    "huge frameRate": (
        GOOD.replace("frameRate: 100", "frameRate: 1e308"),
        4,
        "frameRate 1e+308 Hz is beyond the highest frame rate read, 1e+06 Hz",
    ),
    "huge frameRate, no components": (
        "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: 1e308\nnumFrames: 0\ncomponents: []\n",
        4,
        "frameRate 1e+308 Hz is beyond",
    ),
    "no frameRate": (GOOD.replace("frameRate: 100\n", ""), 7, "no frameRate"),
    "huge numParts": (GOOD.replace("numParts: 2", "numParts: 1000000000000"), 10, "more than this reader allows"),
    "huge numParts, no frames": (
        GOOD.replace(
            "numParts: 2\n    frames:\n      - [ 0.1, 0.2 ]\n      - [ 0.3, 0.4 ]\n      - [ 0.5, 0.6 ]",
            "numParts: 1000000000\n    frames: []",
        ),
        10,
        "more than this reader allows",
    ),
    "negative numParts": (GOOD.replace("numParts: 2", "numParts: -2"), 10, "non-negative integer"),
    "no frames key": (GOOD.replace("    frames:\n      - [ 0.1", "    other:\n      - [ 0.1"), 8, "no 'frames'"),
    "frames a mapping": (GOOD.replace("numParts: 2\n    frames:", "numParts: 2\n    frames: {a: 1}\n    x:"), 11, ""),
    "python object tag": (
        GOOD.replace("content: BodyMotion", "content: !!python/object/apply:os.system ['true']"),
        2,
        "not allowed",
    ),
    "python tag in a row": (GOOD.replace("[ 0.3, 0.4 ]", "[ 0.3, !!python/name:os.system '' ]"), 13, "not allowed"),
    "custom tag": (GOOD.replace("numParts: 2", "numParts: !mine 2"), 10, "not allowed"),
    "alias bomb": (BOMB, 3, "alias bomb"),
    "recursive alias": ("a: &a [1, *a]\n", 1, "recursive"),
    "format version 5": (GOOD.replace("formatVersion: 2", "formatVersion: 5"), 3, "not supported"),
    "format version 0": (GOOD.replace("formatVersion: 2", "formatVersion: 0"), 3, "expected 1 to 4"),
    "invalid YAML": (GOOD.replace("[ 0.3, 0.4 ]", "[ 0.3, 0.4"), 14, "invalid YAML"),
    "two documents": (GOOD + "---\na: 1\n", 24, "invalid YAML"),
    "duplicate key": (GOOD.replace("numParts: 2", "numParts: 2\n    numParts: 3"), 11, "duplicate key"),
    "hasFrameTime not a boolean": (TIMED.replace("hasFrameTime: true", "hasFrameTime: 7"), 5, "true or false"),
    "time given as a list": (TIMED.replace("[ 0.5, 0.3, 0.4 ]", "[ [ 0.5 ], 0.3, 0.4 ]"), 13, "time first"),
}


@pytest.mark.parametrize(("text", "line", "reason"), list(CASES.values()), ids=list(CASES))
def test_seq_bad_input(tmp_path: Path, text: str, line: int, reason: str) -> None:
    path = tmp_path / "bad.seq"
    path.write_text(text)
    with pytest.raises(ReadError) as fast:
        read(path)
    assert fast.value.line == line, str(fast.value)
    assert reason in fast.value.reason
    assert str(path) in str(fast.value)
    # The YAML path alone reports the same place.
    with pytest.raises(ReadError) as slow:
        seq.decode(text, path, fast=False)
    assert (slow.value.line, slow.value.reason) == (fast.value.line, fast.value.reason)


def test_seq_good_base_texts_read(tmp_path: Path) -> None:
    # The bad cases above are one edit away from these, which read fine on the fast path.
    for text in (GOOD, TIMED):
        assert extract(text) is not None
        path = tmp_path / "ok.seq"
        path.write_text(text)
        assert read(path).motion.num_frames == 3


@pytest.mark.parametrize(
    "edit",
    [
        ("[ 0.3, 0.4 ]", "[ 0.3, abc ]"),
        ("[ 0.3, 0.4 ]", "[ 0.3 ]"),
        ("[ 0.3, 0.4 ]", "[ 0.3, 0.4 ] # note"),
        ("[ 0.3, 0.4 ]", "[ 0.3,\n        0.4 ]"),
        ("[ [ 1, 2, 3, 1, 0, 0, 0 ] ]\n", "[ [ 1, 2, 3 ], [ 1, 0, 0, 0 ] ]\n"),
        ("[ 0.3, 0.4 ]", "[ 0.3, 1.2.3 ]"),
        ("[ 0.3, 0.4 ]", "[ 0.3, , 0.4 ]"),
    ],
)
def test_seq_fast_path_declines_unusual_rows(edit: tuple[str, str]) -> None:
    text = GOOD.replace(*edit, 1)
    result = extract(text)
    if result is not None:
        # Declined at the component level: the rows' layout differs from what it needs.
        _, rows = result
        assert any(r.layout not in ("[,]", "[[,,,,,,]]") for r in rows.values())


def test_seq_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bad.seq"
    path.write_bytes(GOOD.encode() + b"# \xff\xfe\n")
    with pytest.raises(ReadError, match="UTF-8") as err:
        read(path)
    assert err.value.line == 24


def test_seq_bad_body_and_joint_map(tmp_path: Path) -> None:
    path = tmp_path / "ok.seq"
    path.write_text(GOOD)
    body = tmp_path / "x.body"
    body.write_text("name: x\n")
    with pytest.raises(ReadError, match="not a Choreonoid body file"):
        read(path, body=body)
    jmap = tmp_path / "map.yaml"
    jmap.write_text("joints: 5\n")
    with pytest.raises(ReadError, match="joint map"):
        read(path, joint_map=jmap)
    with pytest.raises(ReadError, match="cannot read the joint map"):
        read(path, joint_map=tmp_path / "missing.yaml")
