"""The nesting-depth check before JSON is parsed: the skeleton's depth equals the depth the
token walk (and the parsed value) gives, for any JSON text, strings with brackets, quotes
and backslashes included."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from motion_formats_ros.core.serial import nesting

_TRICKY = st.lists(st.sampled_from([*list('ab[]{}"\\/\n é\u2028'), "\\\\", '\\"']), max_size=12).map("".join)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=4),
    max_leaves=40,
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, ascii_only=st.booleans(), indent=st.sampled_from([None, 1]))
def test_the_skeleton_gives_the_depth_of_any_json(value: Any, ascii_only: bool, indent: int | None) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    depth = _depth(value)
    assert nesting.json_depth(text) == depth
    for limit in (depth - 1, depth):
        if limit >= 0:
            walked = nesting.json_too_deep(text, limit=limit)
            assert (walked is not None) == (depth > limit), (text, limit)


def test_a_deep_text_is_still_found_at_its_line() -> None:
    text = '{"format": "omf",\n"groups": ' + "[" * 150 + "]" * 150 + ', "s": "[[[[\\\\"}'
    assert nesting.json_depth(text) == 151
    assert nesting.json_too_deep(text) == 2
