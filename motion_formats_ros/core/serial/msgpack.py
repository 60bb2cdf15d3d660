"""A bounded msgpack decoder / encoder that moves numeric arrays as numpy blocks.

Motion files are a few small maps around large arrays of float64 rows. The generic
msgpack library turns each float into a Python object; here an array whose elements
all have the same nested layout of floats (a 1-D, 2-D or 3-D block) is decoded with one
strided numpy view, and encoded the same way. Everything else goes through a small
recursive decoder that checks every length against the bytes that remain (a count the
file cannot back is rejected before anything is allocated) and reports byte offsets.

The bytes are plain msgpack: what :func:`pack` writes, ``msgpack.unpackb`` reads, and
float64 arrays are encoded exactly as ``msgpack.packb`` encodes lists of Python floats.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import MotionFormatError

_MAX_DEPTH = 64
_FLOAT_MARKERS = {0xCB: (9, ">f8"), 0xCA: (5, ">f4")}
_U8 = struct.Struct(">B")
_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_I8 = struct.Struct(">b")
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_I64 = struct.Struct(">q")
_F32 = struct.Struct(">f")
_F64 = struct.Struct(">d")


class MsgpackError(MotionFormatError, ValueError):
    """Malformed msgpack; ``offset`` is the byte where decoding failed."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(reason)
        self.offset = offset
        self.reason = reason


class _Template:
    """The byte layout of one element made only of nested arrays of floats."""

    __slots__ = ("fixed", "marker", "shape", "size", "value_offsets")

    def __init__(self, size: int, shape: tuple[int, ...], value_offsets: list[int], marker: int) -> None:
        self.size = size
        self.shape = shape
        self.value_offsets = value_offsets
        self.marker = marker


class Decoder:
    """Decode one msgpack object from ``data`` with numeric blocks as numpy arrays."""

    def __init__(self, data: bytes | bytearray | memoryview) -> None:
        self.data = memoryview(data).cast("B")
        self.end = len(self.data)

    # -- primitives --------------------------------------------------------------
    def _need(self, pos: int, count: int, what: str) -> None:
        if pos + count > self.end:
            raise MsgpackError(pos, f"truncated {what}: needs {count} bytes, {self.end - pos} left")

    def _unpack(self, st: struct.Struct, pos: int, what: str) -> Any:
        self._need(pos, st.size, what)
        return st.unpack_from(self.data, pos)[0]

    def _array_header(self, pos: int) -> tuple[int, int] | None:
        """(count, header size) if an array starts at ``pos``."""
        if pos >= self.end:
            return None
        b = self.data[pos]
        if 0x90 <= b <= 0x9F:
            return b & 0x0F, 1
        if b == 0xDC:
            return self._unpack(_U16, pos + 1, "array header"), 3
        if b == 0xDD:
            return self._unpack(_U32, pos + 1, "array header"), 5
        return None

    def decode(self) -> Any:
        value, pos = self._obj(0, 0)
        if pos != self.end:
            raise MsgpackError(pos, f"{self.end - pos} unexpected bytes after the end of the data")
        return value

    def _obj(self, pos: int, depth: int) -> tuple[Any, int]:
        if depth > _MAX_DEPTH:
            raise MsgpackError(pos, f"nesting deeper than {_MAX_DEPTH} levels")
        self._need(pos, 1, "value")
        b = self.data[pos]
        if b <= 0x7F:
            return b, pos + 1
        if b >= 0xE0:
            return b - 0x100, pos + 1
        if 0x80 <= b <= 0x8F:
            return self._map(pos + 1, b & 0x0F, depth, pos)
        if 0x90 <= b <= 0x9F:
            return self._array(pos + 1, b & 0x0F, depth, pos)
        if 0xA0 <= b <= 0xBF:
            return self._str(pos + 1, b & 0x1F)
        if b == 0xC0:
            return None, pos + 1
        if b == 0xC2:
            return False, pos + 1
        if b == 0xC3:
            return True, pos + 1
        if b == 0xCB:
            return self._unpack(_F64, pos + 1, "float64"), pos + 9
        if b == 0xCA:
            return self._unpack(_F32, pos + 1, "float32"), pos + 5
        ints = {0xCC: _U8, 0xCD: _U16, 0xCE: _U32, 0xCF: _U64, 0xD0: _I8, 0xD1: _I16, 0xD2: _I32, 0xD3: _I64}
        if b in ints:
            st = ints[b]
            return self._unpack(st, pos + 1, "integer"), pos + 1 + st.size
        if b in (0xD9, 0xDA, 0xDB):
            st = {0xD9: _U8, 0xDA: _U16, 0xDB: _U32}[b]
            return self._str(pos + 1 + st.size, self._unpack(st, pos + 1, "string length"))
        if b in (0xC4, 0xC5, 0xC6):
            st = {0xC4: _U8, 0xC5: _U16, 0xC6: _U32}[b]
            n = self._unpack(st, pos + 1, "binary length")
            start = pos + 1 + st.size
            self._need(start, n, "binary")
            return bytes(self.data[start : start + n]), start + n
        if b == 0xDC:
            return self._array(pos + 3, self._unpack(_U16, pos + 1, "array header"), depth, pos)
        if b == 0xDD:
            return self._array(pos + 5, self._unpack(_U32, pos + 1, "array header"), depth, pos)
        if b == 0xDE:
            return self._map(pos + 3, self._unpack(_U16, pos + 1, "map header"), depth, pos)
        if b == 0xDF:
            return self._map(pos + 5, self._unpack(_U32, pos + 1, "map header"), depth, pos)
        if b in (0xC7, 0xC8, 0xC9) or 0xD4 <= b <= 0xD8:
            raise MsgpackError(pos, "msgpack extension types are not allowed in motion files")
        raise MsgpackError(pos, f"invalid msgpack type byte 0x{b:02x}")

    def _str(self, pos: int, n: int) -> tuple[str, int]:
        self._need(pos, n, "string")
        try:
            return str(self.data[pos : pos + n], "utf-8"), pos + n
        except UnicodeDecodeError as exc:
            raise MsgpackError(pos + exc.start, "string is not valid UTF-8") from None

    def _map(self, pos: int, n: int, depth: int, start: int) -> tuple[dict[Any, Any], int]:
        if 2 * n > self.end - pos:
            raise MsgpackError(start, f"map of {n} entries cannot fit in the {self.end - pos} bytes left")
        out: dict[Any, Any] = {}
        for _ in range(n):
            key_pos = pos
            key, pos = self._obj(pos, depth + 1)
            if isinstance(key, (list, dict, np.ndarray)):
                raise MsgpackError(key_pos, "map key must be a string or number")
            out[key], pos = self._obj(pos, depth + 1)
        return out, pos

    def _array(self, pos: int, n: int, depth: int, start: int) -> tuple[Any, int]:
        if n > self.end - pos:
            raise MsgpackError(start, f"array of {n} elements cannot fit in the {self.end - pos} bytes left")
        if n >= 2:
            block = self._block(pos, n)
            if block is not None:
                return block
        items = []
        for _ in range(n):
            item, pos = self._obj(pos, depth + 1)
            items.append(item)
        return items, pos

    # -- numeric blocks -------------------------------------------------------------
    def _template(self, pos: int, depth: int = 0) -> _Template | None:
        if pos >= self.end or depth > 4:
            return None
        b = self.data[pos]
        if b in _FLOAT_MARKERS:
            size = _FLOAT_MARKERS[b][0]
            return _Template(size, (), [1], b) if pos + size <= self.end else None
        head = self._array_header(pos)
        if head is None:
            return None
        count, hsize = head
        if count == 0 or count > 4096:
            return None
        offsets: list[int] = []
        cursor = pos + hsize
        first: _Template | None = None
        for _ in range(count):
            child = self._template(cursor, depth + 1)
            if child is None or (first is not None and (child.shape != first.shape or child.marker != first.marker)):
                return None
            first = first or child
            offsets.extend(cursor - pos + o for o in child.value_offsets)
            cursor += child.size
        assert first is not None
        return _Template(cursor - pos, (count, *first.shape), offsets, first.marker)

    def _block(self, pos: int, n: int) -> tuple[np.ndarray, int] | None:
        """Decode n elements of identical float layout at once, or None if they differ."""
        tpl = self._template(pos)
        if tpl is None or pos + n * tpl.size > self.end:
            return None
        rows = np.frombuffer(self.data, dtype=np.uint8, count=n * tpl.size, offset=pos).reshape(n, tpl.size)
        vsize, dtype = _FLOAT_MARKERS[tpl.marker]
        value_offsets = np.asarray(tpl.value_offsets, dtype=np.intp)
        is_value = np.zeros(tpl.size, dtype=bool)
        for k in range(vsize - 1):
            is_value[value_offsets + k] = True
        fixed = np.flatnonzero(~is_value)
        if not np.array_equal(rows[:, fixed], np.broadcast_to(rows[0, fixed], (n, fixed.size))):
            return None
        strides = _affine_strides(value_offsets, tpl.shape)
        if strides is not None:
            view = np.ndarray(
                (n, *tpl.shape),
                dtype=dtype,
                buffer=self.data,
                offset=pos + int(value_offsets[0]),
                strides=(tpl.size, *strides),
            )
            values = view.astype(np.float64)
        else:
            gather = value_offsets[:, None] + np.arange(vsize - 1)
            values = np.ascontiguousarray(rows[:, gather]).view(dtype).astype(np.float64)
            values = values.reshape((n, *tpl.shape))
        return values, pos + n * tpl.size


def _affine_strides(offsets: np.ndarray, shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """Byte strides if ``offsets`` (row-major over ``shape``) form a regular grid."""
    if not shape:
        return ()
    grid = offsets.reshape(shape)
    strides = []
    for axis, count in enumerate(shape):
        if count == 1:
            strides.append(0)
            continue
        index = [0] * len(shape)
        index[axis] = 1
        strides.append(int(grid[tuple(index)] - grid[(0,) * len(shape)]))
    expected = offsets[0] + sum(
        np.arange(c).reshape([-1 if a == i else 1 for a in range(len(shape))]) * s
        for i, (c, s) in enumerate(zip(shape, strides, strict=True))
    )
    return tuple(strides) if np.array_equal(grid, expected) else None


def unpack(data: bytes | bytearray | memoryview) -> Any:
    """Decode ``data``; uniform float arrays come back as float64 numpy arrays."""
    return Decoder(data).decode()


# -------------------------------------------------------------------------- encoder
def _array_header(n: int) -> bytes:
    if n <= 15:
        return bytes([0x90 | n])
    if n <= 0xFFFF:
        return b"\xdc" + _U16.pack(n)
    return b"\xdd" + _U32.pack(n)


def _map_header(n: int) -> bytes:
    if n <= 15:
        return bytes([0x80 | n])
    if n <= 0xFFFF:
        return b"\xde" + _U16.pack(n)
    return b"\xdf" + _U32.pack(n)


#: Bytes of encoded rows produced at once (bounds the memory a large write needs).
CHUNK_BYTES = 1 << 20


def _pack_block(array: np.ndarray) -> Iterator[bytes | memoryview]:
    """A float array of any shape as nested msgpack arrays of float64, built in numpy.

    Yields the header, then the rows in chunks of about :data:`CHUNK_BYTES`, so writing
    a large array needs one chunk of memory, not a copy of the whole encoding.
    """
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 0:
        yield b"\xcb" + _F64.pack(float(a))
        return
    yield _array_header(a.shape[0])
    if a.shape[0] == 0:
        return
    if a.size == 0:
        for row in a:
            yield from _pack_block(row)
        return
    # Layout of one element of the outer axis, built once, then tiled.
    inner = a.shape[1:]
    template = bytearray()
    value_offsets: list[int] = []

    def build(shape: tuple[int, ...]) -> None:
        if not shape:
            template.append(0xCB)
            value_offsets.append(len(template))
            template.extend(b"\0" * 8)
            return
        template.extend(_array_header(shape[0]))
        for _ in range(shape[0]):
            build(shape[1:])

    build(inner)
    n, size = a.shape[0], len(template)
    offsets = np.asarray(value_offsets, dtype=np.intp)
    strides = _affine_strides(offsets, inner)
    assert strides is not None  # every template built above is a regular grid
    pattern = np.frombuffer(bytes(template), dtype=np.uint8)
    step = max(1, CHUNK_BYTES // size)
    for first in range(0, n, step):
        part = a[first : first + step]
        rows = np.empty((part.shape[0], size), dtype=np.uint8)
        rows[:] = pattern
        # Write the big-endian values straight into their slots (one strided pass).
        view = np.ndarray(part.shape, dtype=">f8", buffer=rows, offset=int(offsets[0]), strides=(size, *strides))
        view[...] = part
        yield rows.data.cast("B")


def pack(obj: Any) -> bytes:
    """Encode ``obj`` (dicts, lists, scalars, numpy arrays) as plain msgpack."""
    return b"".join(iter_pack(obj))


def iter_pack(obj: Any) -> Iterator[bytes | memoryview]:
    """:func:`pack` as chunks to write in turn: large arrays are encoded a chunk at a time."""
    import msgpack

    if isinstance(obj, np.ndarray):
        if obj.dtype.kind == "f":
            yield from _pack_block(obj)
        elif obj.dtype.kind in "iub":  # integers stay integers (as msgpack.packb writes the list)
            yield msgpack.packb(obj.tolist(), use_bin_type=True)
        else:
            yield from iter_pack(obj.tolist())
    elif isinstance(obj, dict):
        yield _map_header(len(obj))
        for key, value in obj.items():
            yield msgpack.packb(key, use_bin_type=True)
            yield from iter_pack(value)
    elif isinstance(obj, (list, tuple)):
        yield _array_header(len(obj))
        for item in obj:
            yield from iter_pack(item)
    elif isinstance(obj, np.generic):
        yield msgpack.packb(obj.item(), use_bin_type=True)
    else:
        yield msgpack.packb(obj, use_bin_type=True)
