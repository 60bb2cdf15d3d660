"""JSON5: the optional accelerator (pyjson5) gives exactly what the reference (json5) gives.

``parse_json5`` uses pyjson5 when it is installed and json5 when not; these tests parse
generated documents (comments, trailing commas, unquoted keys, hex, ±Infinity, NaN,
multi-line strings, …) and the corpus scenes both ways and require identical values,
types included, and identical errors.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from motion_formats_ros.codecs.scene import loader
from motion_formats_ros.core.errors import ReadError

pyjson5 = pytest.importorskip("pyjson5", reason="pyjson5 (the optional accelerator) is not installed")


def same(a: Any, b: Any) -> bool:
    """Equal values of equal types; NaN equals NaN, and -0.0 differs from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def parse_both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """(result with the accelerator, result without), an error as ('error', message)."""
    results = []
    for fast in (True, False):
        with monkeypatch.context() as m:
            if not fast:
                m.setattr(loader, "_fast_parser", lambda: None)
            try:
                results.append(loader.parse_json5(text, "doc.json5"))
            except ReadError as exc:
                results.append(("error", str(exc)))
    return results[0], results[1]


# ---------------------------------------------------------------- document generator
IDENT = st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,8}", fullmatch=True).filter(
    lambda s: s not in ("true", "false", "null", "Infinity", "NaN")
)
COMMENT = st.sampled_from(["", " ", "\n", " // note: {a: 1}\n", " /* [1, 2,] */ ", "\t/*\n multi\n*/\n", "\r\n"])


@st.composite
def json5_number(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "hex", "float", "exp", "lead", "trail", "special", "signed"]))
    sign = draw(st.sampled_from(["", "-", "+"])) if kind != "signed" else draw(st.sampled_from(["-", "+"]))
    if kind == "int":
        return sign + str(draw(st.integers(0, 10**20)))
    if kind == "hex":
        return (
            sign
            + draw(st.sampled_from(["0x", "0X"]))
            + format(draw(st.integers(0, 2**64)), draw(st.sampled_from(["x", "X"])))
        )
    if kind == "float":
        return sign + repr(draw(st.floats(0, 1e12, allow_nan=False, allow_infinity=False)))
    if kind == "exp":
        mantissa, e = draw(st.integers(1, 999)), draw(st.sampled_from(["e", "E"]))
        return f"{sign}{mantissa}{e}{draw(st.sampled_from(['', '+', '-']))}{draw(st.integers(0, 300))}"
    if kind == "lead":
        return f"{sign}.{draw(st.integers(0, 99999))}"
    if kind == "trail":
        return f"{sign}{draw(st.integers(0, 99999))}."
    if kind == "special":
        return sign + draw(st.sampled_from(["Infinity", "NaN"]))
    return sign + str(draw(st.integers(0, 1000)))


STRING_CHARS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\\\"'\n\r\u2028\u2029"), max_size=12
)


@st.composite
def json5_string(draw: st.DrawFn) -> str:
    quote = draw(st.sampled_from(['"', "'"]))
    parts = draw(st.lists(STRING_CHARS, min_size=1, max_size=3))
    joiner = draw(st.sampled_from(["", "\\\n", "\\\r\n", "\\n", "\\t", "\\u00e9", "\\x41", "\\'", '\\"', "\\\\"]))
    return quote + joiner.join(parts) + quote


def json5_value(depth: int = 0) -> st.SearchStrategy[str]:
    scalars = st.one_of(json5_number(), json5_string(), st.sampled_from(["true", "false", "null"]))
    if depth >= 3:
        return scalars
    inner = st.deferred(lambda: json5_value(depth + 1))

    @st.composite
    def array(draw: st.DrawFn) -> str:
        items = draw(st.lists(inner, max_size=4))
        body = ",".join(draw(COMMENT) + item + draw(COMMENT) for item in items)
        trailing = "," if items and draw(st.booleans()) else ""
        return "[" + body + trailing + draw(COMMENT) + "]"

    @st.composite
    def obj(draw: st.DrawFn) -> str:
        entries = draw(st.lists(st.tuples(st.one_of(IDENT, json5_string()), inner), max_size=4))
        body = ",".join(f"{draw(COMMENT)}{k}{draw(COMMENT)}:{draw(COMMENT)}{v}" for k, v in entries)
        trailing = "," if entries and draw(st.booleans()) else ""
        return "{" + body + trailing + draw(COMMENT) + "}"

    return st.one_of(scalars, array(), obj())


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(doc=json5_value())
def test_generated_documents_parse_the_same_with_and_without_the_accelerator(
    doc: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, reference = parse_both(doc, monkeypatch)
    assert same(fast, reference), (doc, fast, reference)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(doc=json5_value(), cut=st.integers(0, 10_000), junk=st.sampled_from(["", "@", ",", "}", "]", "1_0", "0x", "'"]))
def test_damaged_documents_fail_or_parse_the_same_either_way(
    doc: str, cut: int, junk: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut %= len(doc) + 1
    damaged = doc[:cut] + junk + doc[cut:]
    fast, reference = parse_both(damaged, monkeypatch)
    assert same(fast, reference), (damaged, fast, reference)


@pytest.mark.parametrize(
    "text",
    [
        "{a: 1_000}",  # only pyjson5 accepts digit separators: JSON5 does not
        "{a: 1e400}",  # only json5 reads an exponent beyond float range (as Infinity)
        "{a: 0x1F, b: -0xa, c: +Infinity, d: -Infinity, e: NaN, f: .5, g: 5., h: +1}",
        "{s: 'one\\\ntwo', t: \"\\u0041\\x41\"}",
        "// lead\n{/* mid */ a: [1, {b: null},], }\n",
        "{a: 1, a: 2}",
        "[1e,0]",  # json5 names no column for a bad number: found the same way whichever parsed first
        "{a: [2,\n -1e+ ]}",
    ],
)
def test_known_differences_between_the_parsers_are_resolved_to_the_reference(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json5

    fast, reference = parse_both(text, monkeypatch)
    try:
        expected: Any = json5.loads(text)
    except ValueError:
        assert isinstance(reference, tuple) and reference[0] == "error"
        assert fast == reference
        return
    assert same(fast, expected) and same(reference, expected)


def test_errors_name_file_line_and_column_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, reference = parse_both("{\n  models: {},\n  objects: {a: @},\n}\n", monkeypatch)
    assert fast == reference
    assert reference[1].startswith("doc.json5:3: column 16: JSON5 syntax error")


def test_corpus_scenes_parse_the_same_either_way(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    scenes = sorted(p for p in (corpus / "scene_json5").rglob("*") if p.suffix in (".json", ".json5"))
    assert scenes, "the corpus has scene files"
    for path in scenes:
        text = loader.decode_text(path.read_bytes(), path)
        fast, reference = parse_both(text, monkeypatch)
        assert same(fast, reference), path


def test_a_text_nested_too_deep_fails_at_once_with_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure-Python parser would take seconds (and pyjson5 stops at 32 levels): refused up front."""
    text = "{\n// [[[[ in a comment, 'and [[ in' strings\n a: 'x[[',\n b: " + "[" * 5000 + "]" * 5000 + "}"
    fast, reference = parse_both(text, monkeypatch)
    assert fast == reference
    assert isinstance(reference, tuple) and reference[0] == "error"
    assert "nested more than 100 levels deep" in str(reference) and ":4:" in str(reference)


def test_the_accelerator_is_used_only_with_a_reference_that_reads_the_same() -> None:
    assert not loader.reference_agrees("0.9.10")  # Debian 12's: refuses -0x10 and +Infinity
    assert not loader.reference_agrees("0.14.0")
    assert loader.reference_agrees("0.15.0")
    assert loader.reference_agrees("0.17.3")
    from importlib import metadata

    used = loader._fast_parser() is not None
    assert used == loader.reference_agrees(metadata.version("json5"))
