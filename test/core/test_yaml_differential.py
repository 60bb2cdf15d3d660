"""The fast YAML path (core._yaml) against PyYAML's safe loader, the judge of YAML.

``_yaml.load`` must give what ``yaml.safe_load`` gives (numeric blocks as float64
arrays holding the same values) or raise where it raises, on the same line; the
writer's output must load in PyYAML to the values written. Regressions first, then
hypothesis over generated documents with everything that trips a line-based reader.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from motion_formats_ros import read
from motion_formats_ros.codecs.omf import OmfRecord
from motion_formats_ros.codecs.seq import SeqRecord
from motion_formats_ros.codecs.seq import decode as seq_decode
from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.core.serial import yaml as _yaml

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_ERROR = "<error>"


def reference(text: str) -> Any:
    """PyYAML's answer: the document, or (_ERROR, line)."""
    try:
        return yaml.load(text, Loader=Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return (_ERROR, mark.line + 1 if mark is not None else None)
    except yaml.YAMLError:
        return (_ERROR, None)


def ours(text: str) -> Any:
    try:
        return _yaml.load(text)
    except _yaml.YamlError as exc:
        return (_ERROR, exc.line)


def same(got: Any, want: Any) -> bool:
    """Equal values of equal types, except that an array stands for a list of numbers."""
    if isinstance(got, np.ndarray):
        if got.dtype != np.float64 or not isinstance(want, list):
            return False
        return _same_numbers(got.tolist(), want)
    if type(got) is not type(want):
        return False
    if isinstance(got, dict):
        return list(got) == list(want) and all(same(got[k], want[k]) for k in got)
    if isinstance(got, (list, tuple)):
        return len(got) == len(want) and all(same(a, b) for a, b in zip(got, want, strict=True))
    if isinstance(got, float):
        return (math.isnan(got) and math.isnan(want)) or got == want
    return bool(got == want)


def _same_numbers(got: Any, want: Any) -> bool:
    if isinstance(got, list):
        return isinstance(want, list) and len(got) == len(want) and all(map(_same_numbers, got, want))
    if type(want) not in (int, float):  # bool, str, None: never part of a numeric block
        return False
    return (math.isnan(got) and math.isnan(want)) if math.isnan(want) else got == want


def assert_same(text: str) -> Any:
    got, want = ours(text), reference(text)
    assert same(got, want), f"{text!r}\nours:   {got!r}\nPyYAML: {want!r}"
    return got


# -- regressions: rows-like text inside scalars -------------------------------------------------------------
ROWS_LOOKALIKES = [
    "a:\n- - 0. 5\n  - 1\n",  # a scalar with a space inside is text, not two numbers
    "notes: |\n  calib:\n  - [1.0, 2.0]\n  - [3.0, 4.0]\nx: 1\n",
    "notes: >-\n  calib:\n  - [1.0, 2.0]\n  - [3.0, 4.0]\n\nx: 1\n",
    "notes: |+\n  calib:\n  - - 1.0\n    - 2.0\n  - - 3.0\n    - 4.0\n",
    'notes: "first\n  calib:\n  - [1.0, 2.0]\n  - [3.0, 4.0]\n  last"\n',
    "x: [\ncalib:\n- [1, 2]\n- [3, 4]\n]\n",
]


@pytest.mark.parametrize("text", ROWS_LOOKALIKES)
def test_rows_inside_a_scalar_stay_text(text: str) -> None:
    assert not isinstance(assert_same(text), dict) or "calib" not in assert_same(text)


@pytest.mark.parametrize(
    "text",
    [
        "a:\n- [-.5, 1.0]\n- [2.0, 3.0]\n",  # -.5 is a string to YAML 1.1
        "a:\n- -.5\n- 2.0\n",
        "a:\n- [+.5, 1.0]\n- [2.0, 3.0]\n",
        "a:\n- [.5, +1, 1.0e-06, 1e-06]\n- [.5, +1, 1.0e-06, 1e-06]\n",
        "a:\n- [.inf, -.Inf, .nan, .NaN]\n- [+.inf, -.inf, .NAN, .nan]\n",
        "a:\n- [-.nan, 1.0]\n- [2.0, 3.0]\n",
        "a:\n- [12345678901234567, 1]\n- [2, 3]\n",  # an int float64 cannot hold
        "a:\n- [1, 2]\n\n- [3, 4]\n",  # the sequence goes on after a blank line
        "a:\n- [1, 2]\n# c\n- [3, 4]\n",
        "a:\n  - [1, 2]\n    - [3, 4]\n",
        "a:\n- 1\n  5\n",
        "a:\n- - 1\n   - 2\n- - 3\n   - 4\n",
    ],
)
def test_numbers_as_pyyaml_reads_them(text: str) -> None:
    assert_same(text)


def test_minus_point_five_is_a_string() -> None:
    assert _yaml.load("a:\n- -.5\n- 2.0\n") == {"a": ["-.5", 2.0]}


def test_the_fast_path_still_takes_plain_blocks() -> None:
    doc = assert_same("\ufeffa:\r\n- [1.5, 2]\r\n- [3, 4]\r\nb:\n  - - 1.0\n    - 2.0\n  - - 3.0\n    - 4.0\n")
    assert isinstance(doc["a"], np.ndarray) and isinstance(doc["b"], np.ndarray)


def test_omf_notes_block_scalar_is_text(tmp_path: Path) -> None:
    path = tmp_path / "walk.omf.yaml"
    from motion_formats_ros import write

    write(biped_walk(), path)
    notes = "calib:\n- [1.0, 2.0]\n- [3.0, 4.0]\n"
    text = path.read_text().replace(
        "basic:\n", "basic:\n  notes: |\n" + "".join(f"    {n}\n" for n in notes.splitlines())
    )
    path.write_text(text)
    mf = read(path)
    assert mf.record(OmfRecord).basic["notes"] == notes
    assert mf.groups["target"].position.shape == biped_walk().groups["target"].position.shape


def test_seq_comment_block_is_text() -> None:
    text = Path(__file__).resolve().parents[2].joinpath("examples", "walk.seq").read_text()
    comment = "comment: |\n  frames:\n  - [ 1, 2 ]\n  - [ 3, 4 ]\n"
    fast = seq_decode(comment + text, fast=True)
    slow = seq_decode(comment + text, fast=False)
    assert fast.records == slow.records and fast.record(SeqRecord).top["comment"].startswith("frames:")
    assert "mfr-" not in repr(fast.records)
    for name, group in slow.groups.items():
        np.testing.assert_array_equal(fast.groups[name].position, group.position)


# -- generated documents -------------------------------------------------------------------
NUMBER_TOKENS = st.sampled_from(
    ["0", "1", "-3", "+1", "10", "-.5", ".5", "+.5", "1.0", "-2.5", "1e-06", "1.0e-06", "1.5E+3", "3.",
     ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "-.nan", "~", "null", "12345678901234567", "007", "1_0",
     "0x1F", "1.0e5", "'1.0'", '"2"', "true", "-0", "-0.0"]
)  # fmt: skip
PLAIN_FLOATS = st.floats(allow_nan=True, allow_infinity=True).map(_yaml.format_float)
TOKENS = st.one_of(NUMBER_TOKENS, PLAIN_FLOATS, PLAIN_FLOATS)
#: Numbers to PyYAML 1.1 (the fast path's business), in every spelling it accepts here.
CLEAN_TOKENS = st.one_of(
    PLAIN_FLOATS, st.sampled_from(["0", "1", "-3", "+1", "10", ".5", "1.0", "-2.5", "1.0e-06", "3.", ".inf", "-.Inf"])
)
KEYS = st.sampled_from(["a", "b", "frames", "calib", "root_pos", "'q'", '"dq"', "null", "x y", "a"])


@st.composite
def numeric_block(draw: Any, indent: int, clean: bool | None = None) -> list[str]:
    rows = draw(st.integers(1, 4))
    width = draw(st.integers(1, 3))
    style = draw(st.sampled_from(["flow", "flow", "nested", "block"]))
    pad = " " * (indent + draw(st.sampled_from([0, 0, 2])))
    if clean is None:
        clean = draw(st.integers(0, 2)) > 0  # mostly blocks the fast path takes; else anything goes
    tokens = CLEAN_TOKENS if clean else TOKENS
    out = []
    for _ in range(rows):
        values = [draw(tokens) for _ in range(width)]
        if style == "flow":
            out.append(f"{pad}- [{', '.join(values)}]")
        elif style == "nested":
            out.append(f"{pad}- [[{', '.join(values)}], [{', '.join(values)}]]")
        else:
            out.append(f"{pad}- - {values[0]}")
            out.extend(f"{pad}  - {v}" for v in values[1:])
    if clean:
        return out
    if draw(st.booleans()):
        at = draw(st.integers(0, len(out)))
        out.insert(at, draw(st.sampled_from(["", "# comment", pad + "# c", pad + "  x", "\t"])))
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(out) - 1))
        out[at] += draw(st.sampled_from([" # after", "  ", "\t", " &a", ","]))
    return out


@st.composite
def entry(draw: Any, indent: int, depth: int) -> list[str]:
    pad = " " * indent
    key = draw(KEYS)
    kind = draw(
        st.sampled_from(["block"] * 4 + ["scalar", "block_scalar", "quoted", "flow", "nested", "nested", "alias"])
    )
    if kind == "block":
        anchor = draw(st.sampled_from(["", "", "", "", " &r", " !!seq", " # c"]))
        return [f"{pad}{key}:{anchor}", *draw(numeric_block(indent))]
    if kind == "scalar":
        return [f"{pad}{key}: {draw(TOKENS)}{draw(st.sampled_from(['', ' # c', '  ']))}"]
    if kind == "block_scalar":
        head = draw(st.sampled_from(["|", ">", "|-", "|+", ">-", ">+", "|2", "|  # c"]))
        inner = draw(st.sampled_from([0, 2])) + 2
        body = [f"{pad}{' ' * inner}calib:", *draw(numeric_block(indent + inner))]
        trail = draw(st.sampled_from([[], [""], ["", ""]]))
        return [f"{pad}{key}: {head}", *body, *trail]
    if kind == "quoted":
        q = draw(st.sampled_from(["'", '"']))
        return [f"{pad}{key}: {q}first", f"{pad}  calib:", *draw(numeric_block(indent + 2)), f"{pad}  last{q}"]
    if kind == "flow":
        if draw(st.booleans()):
            return [f"{pad}{key}: {{x: [1, 2], y: .5, z: -.5}}"]
        return [f"{pad}{key}: [", f"{pad}calib:", *draw(numeric_block(indent)), f"{pad}]"]
    if kind == "alias":  # an anchored block and an alias to it
        return [f"{pad}{key}: &r", *draw(numeric_block(indent)), f"{pad}{key}_again: *r"]
    if depth >= 2:
        return [f"{pad}{key}: {{}}"]
    children = draw(st.lists(entry(indent + 2, depth + 1), min_size=1, max_size=3))
    return [f"{pad}{key}:", *[line for child in children for line in child]]


@st.composite
def document(draw: Any) -> str:
    entries = draw(st.lists(entry(0, 0), min_size=1, max_size=4))
    lines = [line for e in entries for line in e]
    text = "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))
    if draw(st.integers(0, 5)) == 0:
        text = text.replace("\n", "\r\n")
    if draw(st.integers(0, 5)) == 0:
        text = "\ufeff" + text
    if draw(st.integers(0, 4)) == 0:  # a small edit anywhere
        at = draw(st.integers(0, len(text)))
        text = (
            text[:at]
            + draw(st.sampled_from(["", " ", "\t", "-", ":", "#", "[", "'", "|", "\n", "\r"]))
            + text[at + 1 :]
        )
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document())
def test_load_is_safe_load(text: str) -> None:
    assert_same(text)


@st.composite
def usual_document(draw: Any) -> str:
    """Numeric blocks the fast path must take, between scalars and rows-lookalike block scalars."""
    lines: list[str] = []
    for i in range(draw(st.integers(1, 3))):
        indent = draw(st.sampled_from([0, 2])) if lines else 0
        if indent:
            lines.append(f"group{i}:")
        pad = " " * indent
        lines.append(f"{pad}data{i}:")
        lines.extend(draw(numeric_block(indent, clean=True).filter(lambda block: len(block) >= 2)))
        if draw(st.booleans()):
            head = draw(st.sampled_from(["|", ">", "|-", ">+"]))
            lines += [f"{pad}notes{i}: {head}", f"{pad}  calib:", f"{pad}  - [1.0, 2.0]", f"{pad}  - [3.0, 4.0]"]
        lines.append(f"{pad}rate{i}: {draw(CLEAN_TOKENS)}")
    return "\n".join(lines) + "\n"


def _arrays(node: Any) -> int:
    if isinstance(node, np.ndarray):
        return 1
    if isinstance(node, dict):
        return sum(_arrays(v) for v in node.values())
    return 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(usual_document())
def test_usual_documents_take_the_fast_path(text: str) -> None:
    doc = assert_same(text)
    assert _arrays(doc) == text.count("data"), text  # every numeric block as an array, nothing else


# -- the writer ----------------------------------------------------------------------------
FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), FLOATS, st.text(max_size=12))


@st.composite
def float_array(draw: Any) -> np.ndarray:
    shape = draw(st.sampled_from([(0,), (3,), (2, 3), (1, 1), (2, 0), (3, 2, 4), (2, 1, 7)]))
    values = draw(st.lists(FLOATS, min_size=math.prod(shape), max_size=math.prod(shape)))
    return np.array(values, dtype=np.float64).reshape(shape)


def tree(depth: int = 0) -> st.SearchStrategy[dict[Any, Any]]:
    leaves = st.one_of(SCALARS, float_array())
    values = leaves if depth >= 2 else st.one_of(leaves, st.deferred(lambda: tree(depth + 1)))
    keys = st.one_of(st.text(max_size=8), st.integers(-5, 5), st.sampled_from(["null", "1.0", "- a", "a: b", "#"]))
    return st.dictionaries(keys, values, max_size=4)


def plain_values(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: plain_values(v) for k, v in node.items()}
    if isinstance(node, np.ndarray):
        return node.tolist()
    return node


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree())
def test_dump_loads_to_the_same_values(doc: dict[Any, Any]) -> None:
    text = _yaml.dump(doc)
    want = plain_values(doc)
    loaded = yaml.load(text, Loader=Loader)
    assert same(loaded, want) or (not doc and loaded is None), f"{text!r}\n{loaded!r}\n{want!r}"
    assert same(_yaml.load(text), loaded), text


def test_dump_keeps_odd_whitespace_and_line_breaks() -> None:
    doc = {"a": "\xa0", "\xa0": 1, "b": "x\ny", "c": ["p\u2028q", 2], "": None}
    assert same(yaml.load(_yaml.dump(doc), Loader=Loader), doc)
