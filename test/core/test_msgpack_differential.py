"""The msgpack fast path (core._msgpack) against the ``msgpack`` library.

Decoding: whatever ``msgpack.packb`` writes, :func:`unpack` returns what
``msgpack.unpackb`` returns (uniform float arrays as float64 numpy arrays of the same
values; integer arrays stay integers; non-string keys; bin stays bytes, str stays str),
except extension types, which motion files may not hold: those are a MsgpackError.
Encoding: :func:`pack` writes exactly the bytes ``msgpack.packb`` writes for the same
data as plain lists. Damaged bytes: a MsgpackError, never a value the library would not give.
"""

from __future__ import annotations

from typing import Any

import msgpack
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_yaml_differential import plain_values, same

from motion_formats_ros.core.serial import msgpack as _msgpack

INTS = st.one_of(st.integers(-(2**63), 2**64 - 1), st.integers(-40, 200))
FLOATS = st.floats(allow_nan=True, allow_infinity=True)
KEYS = st.one_of(
    st.text(max_size=6), INTS, FLOATS.filter(lambda f: f == f), st.none(), st.booleans(), st.binary(max_size=4)
)


@st.composite
def float_rows(draw: Any) -> list[Any]:
    """Lists the fast path decodes as one block: n elements of the same nested float layout."""
    shape = draw(st.sampled_from([(3,), (4, 2), (2, 3, 2), (1, 1), (20, 7)]))
    values = draw(st.lists(FLOATS, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    return np.array(values, dtype=np.float64).reshape(shape).tolist()  # type: ignore[no-any-return]


LEAVES = st.one_of(st.none(), st.booleans(), INTS, FLOATS, st.text(max_size=8), st.binary(max_size=8), float_rows())
DOCS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=25,
)


def reference(data: bytes) -> Any:
    return msgpack.unpackb(data, strict_map_key=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS, st.booleans())
def test_unpack_is_msgpack_unpackb(doc: Any, single_float: bool) -> None:
    try:
        data = msgpack.packb(doc, use_bin_type=True, use_single_float=single_float)
    except OverflowError:  # a float64 too large for float32
        assume(False)
    got = _msgpack.unpack(data)
    assert same(got, reference(data)), (doc, got)


def test_integer_arrays_stay_integers() -> None:
    data = msgpack.packb([[1, 2, 3], [4, 5, 6]])
    got = _msgpack.unpack(data)
    assert got == [[1, 2, 3], [4, 5, 6]] and all(type(v) is int for row in got for v in row)
    packed = _msgpack.pack({"a": np.array([[1, 2], [3, 4]], dtype=np.int32)})
    assert packed == msgpack.packb({"a": [[1, 2], [3, 4]]})
    assert reference(packed) == {"a": [[1, 2], [3, 4]]}


@given(st.sampled_from([msgpack.ExtType(5, b"abc"), msgpack.Timestamp(1, 2), [1.0, msgpack.ExtType(0, b"")]]))
def test_extension_types_are_refused(value: Any) -> None:
    data = msgpack.packb({"x": value}, use_bin_type=True, datetime=False)
    with pytest.raises(_msgpack.MsgpackError, match="extension"):
        _msgpack.unpack(data)


@st.composite
def numpy_doc(draw: Any) -> Any:
    kind = draw(st.sampled_from(["f", "i", "u", "b"]))
    shape = draw(st.sampled_from([(0,), (3,), (2, 3), (2, 0), (3, 1, 2), (1,)]))
    n = int(np.prod(shape))
    if kind == "f":
        values = draw(st.lists(FLOATS, min_size=n, max_size=n))
        arr = np.array(values, dtype=np.float64).reshape(shape)
    elif kind == "b":
        arr = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool).reshape(shape)
    else:
        dtype = draw(st.sampled_from([np.int8, np.int64]) if kind == "i" else st.sampled_from([np.uint16, np.uint64]))
        info = np.iinfo(dtype)
        values = draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=n, max_size=n))
        arr = np.array(values, dtype=dtype).reshape(shape)
    return {draw(st.text(max_size=4)): arr, "meta": draw(LEAVES)}


@settings(max_examples=200, deadline=None)
@given(numpy_doc())
def test_pack_writes_the_bytes_msgpack_writes(doc: Any) -> None:
    packed = _msgpack.pack(doc)
    assert packed == msgpack.packb(plain_values(doc), use_bin_type=True)
    assert same(_msgpack.unpack(packed), reference(packed))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS, st.data())
def test_damaged_bytes_never_give_a_value_msgpack_would_not(doc: Any, data: st.DataObject) -> None:
    raw = bytearray(msgpack.packb(doc, use_bin_type=True))
    at = data.draw(st.integers(0, len(raw) - 1))
    raw[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.sampled_from([len(raw), len(raw), max(0, len(raw) - 1)]))
    damaged = bytes(raw[:cut])
    try:
        got = _msgpack.unpack(damaged)
    except _msgpack.MsgpackError:
        return  # refused: the library may have read something (ext types, deep nesting), never worse
    assert same(got, reference(damaged))
