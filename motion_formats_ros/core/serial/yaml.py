"""Fast YAML for motion data: numeric blocks parsed with numpy, the rest by PyYAML.

The one home of YAML reading and writing for motion files. Motion YAML is a small tree
of mappings around large sequences of numbers, written either in block style
(``- - 1.0`` / ``  - 2.0``, what PyYAML dumps) or as one flow row per frame
(``- [1.0, 2.0]``, what we write). :func:`load` finds those numeric sequences, checks
that every row has the same layout and every token is a number in YAML 1.1's sense
(exactly what PyYAML's safe loader accepts as int or float), converts them in one numpy
call and hands the remaining skeleton (same line numbers) to PyYAML's safe loader (the C
one when present). Each block becomes a placeholder scalar; if the composed skeleton
does not have every placeholder as a plain block-mapping value on its key's line (the
"block" was inside a block or quoted scalar, a flow collection, ...), or anything else
is unusual, the whole text goes to PyYAML. So the result always equals a plain
``yaml.safe_load``, with numeric blocks as float64 arrays (``test_yaml_differential``
proves it over generated documents).

:func:`extract_rows` does the same for a format whose numbers follow another rule
(``.seq``: Choreonoid reads ``1e-08`` as a number, :func:`to_number`), on bytes, for
its codec's own line-aware YAML tree; :func:`misplaced_placeholders` is the shared check.
:func:`dump` writes what PyYAML loads back to the same values.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from ..errors import MotionFormatError
from .nesting import long_integer, too_deep_reason, yaml_too_deep

SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# A numeric token as PyYAML's resolver sees it: decimal int or float, .inf, .nan.
# Floats first: motion data is mostly floats, and the regex tries the branches in order.
_NUMBER_PATTERN = (
    r"[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?|\.[0-9]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?(?:0|[1-9][0-9]*)"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_TOKENS = re.compile(rf"(?:{_NUMBER_PATTERN})(?: (?:{_NUMBER_PATTERN}))*")
_KEY_LINE = re.compile(r"^( *)([A-Za-z_][A-Za-z0-9_]*):[ \t]*$")
_INT = re.compile(r"[-+]?[0-9]+")
_EXACT_INTS = 2.0**53  # every int below this is exactly a float64
_SPECIALS = {".inf": "inf", "+.inf": "inf", "-.inf": "-inf", ".nan": "nan"}
_NUMBER_CHARS = str.maketrans("", "", "0123456789.eE+-nNaAiIfF")
_MIN_BLOCK_LINES = 2


class YamlError(MotionFormatError, ValueError):
    """YAML that cannot be parsed; ``line`` is 1-based."""

    def __init__(self, line: int | None, reason: str) -> None:
        super().__init__(reason)
        self.line = line
        self.reason = reason


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _numbers(tokens: list[str]) -> np.ndarray | None:
    if any(" " in t or "\t" in t for t in tokens):
        return None  # one scalar with a space inside ("0. 5") is text to PyYAML, not two numbers
    joined = " ".join(tokens)
    if not _TOKENS.fullmatch(joined):
        return None  # not all numbers to PyYAML
    if "." in joined and any(c in joined for c in "nNiI"):
        tokens = [_SPECIALS.get(t.lower(), t) for t in tokens]
    values = np.array(tokens, dtype=np.float64)
    big = np.flatnonzero(np.abs(values) >= _EXACT_INTS)
    if big.size and any(_INT.fullmatch(tokens[k]) for k in big.tolist()):
        return None  # an int a float64 may not hold exactly: PyYAML's int it stays
    return values


def _parse_block_style(lines: list[str]) -> np.ndarray | None:
    """Rows like ``- - 1.0`` / ``  - 2.0`` (PyYAML's default dump of nested lists)."""
    prefixes: list[str] = []
    tokens: list[str] = []
    for line in lines:
        prefix, dash, token = line.rpartition("- ")
        if not dash:
            return None  # a line going on from the one before (a multi-line scalar)
        prefixes.append(prefix)
        tokens.append(token.strip())
    first = prefixes[0]
    depth = first.count("- ") + 1
    if first.replace("- ", "").strip(" ") or "#" in "".join(tokens[:1]):
        return None
    # One element of the outer sequence: from the first line to the next line like it.
    try:
        period = prefixes.index(first, 1)
    except ValueError:
        period = len(prefixes)
    if len(prefixes) % period or prefixes != prefixes[:period] * (len(prefixes) // period):
        return None
    pattern = prefixes[:period]
    # Every line's dashes sit in the columns of the first line's last dashes (the other
    # elements repeat the pattern exactly).
    first_dashes = first + "- "
    columns = {k for k in range(len(first_dashes)) if first_dashes.startswith("- ", k)}
    for prefix in pattern:
        dashes = prefix + "- "
        column = _indent(dashes)
        if column not in columns or dashes[column:] != first_dashes[column:]:
            return None
    # Shape of one element from the dash counts of its lines.
    counts = [p.count("- ") + 1 for p in pattern]
    shape = _shape_from_dash_counts(counts, depth)
    if shape is None:
        return None
    values = _numbers(tokens)
    if values is None:
        return None
    return values.reshape((len(lines) // period, *shape))


def _shape_from_dash_counts(counts: list[int], depth: int) -> tuple[int, ...] | None:
    """Shape of one element of a nested block sequence from the dashes on its lines.

    A line starts as many nested sequences as it has dashes; in row-major order over a
    regular shape, a line has 1 + (number of trailing zero indices) dashes.
    """
    starts = [sum(1 for c in counts if c > k) for k in range(depth)]
    dims = []
    for k in range(depth - 2, -1, -1):
        if starts[k + 1] == 0 or starts[k] % starts[k + 1]:
            return None
        dims.append(starts[k] // starts[k + 1])
    expected = []
    for flat in range(len(counts)):
        index = np.unravel_index(flat, dims)
        zeros = 0
        for i in reversed(index):
            if i:
                break
            zeros += 1
        expected.append(1 + zeros)
    return tuple(dims) if expected == counts else None


def _parse_flow_rows(lines: list[str]) -> np.ndarray | None:
    """Rows like ``- [1.0, 2.0]`` or ``- [[1, 2, 3], [4, 5, 6]]``."""
    skeleton: str | None = None
    tokens: list[str] = []
    indent = _indent(lines[0])
    prefix = " " * indent + "- ["  # every row at the first one's indentation
    for line in lines:
        if not line.startswith(prefix):
            return None
        body = line[indent + 2 :].rstrip()
        layout = body.translate(_NUMBER_CHARS).replace(" ", "")
        if skeleton is None:
            skeleton = layout
        elif layout != skeleton:
            return None
        tokens.extend(body.replace("[", " ").replace("]", " ").replace(",", " ").split())
    assert skeleton is not None
    if not _FLOW_LAYOUT.fullmatch(skeleton):
        return None
    if skeleton.startswith("[["):
        inner = skeleton[2:-2].split("],[")
        if len(set(inner)) != 1:
            return None
        per_group = inner[0].count(",") + 1
        groups = len(inner)
        shape: tuple[int, ...] = (groups, per_group)
    elif skeleton.startswith("[") and "[" not in skeleton[1:]:
        shape = (skeleton.count(",") + 1,)
    else:
        return None
    if len(tokens) != len(lines) * math.prod(shape):
        return None
    values = _numbers(tokens)
    if values is None:
        return None
    return values.reshape((len(lines), *shape))


_ALIAS = re.compile(r"(?<![\w&*])\*[^\s,\[\]{}]+")


def check_expansion(doc: Any, text: str) -> None:
    """Refuse a document whose aliases expand to more values than ``text`` has characters.

    A loader shares one object between an anchor and its aliases, so the document itself
    stays small; whatever walks it later (a copy, a conversion, a writer) would expand
    every alias: nine levels of ten aliases each are a billion values from a kilobyte.
    A recursive alias (a list that contains itself) is refused too.

    Raises:
        YamlError: At the line of the first alias.
    """
    if "*" not in text:
        return
    limit = len(text) + 16
    sizes: dict[int, int] = {}
    open_ids: set[int] = set()
    stack: list[tuple[Any, bool]] = [(doc, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if isinstance(node, dict):
            children: list[Any] = [*node.keys(), *node.values()]
        elif isinstance(node, list):
            children = node
        else:
            continue
        if done:
            open_ids.discard(key)
            size = 1 + sum(sizes.get(id(c), 1) for c in children)
            if size > limit:
                raise YamlError(
                    _first_alias_line(text),
                    f"invalid YAML: aliases expand to more than {limit} values (an alias bomb?)",
                )
            sizes[key] = size
            continue
        if key in sizes:
            continue
        if key in open_ids:
            raise YamlError(_first_alias_line(text), "invalid YAML: recursive alias (a node that contains itself)")
        open_ids.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if isinstance(c, (dict, list)))


def _first_alias_line(text: str) -> int | None:
    found = _ALIAS.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else None


def load(text: str) -> Any:
    """Parse ``text`` like ``yaml.safe_load``, with numeric blocks as float64 arrays.

    The numeric blocks hold exactly the values ``yaml.safe_load`` gives (ints as floats,
    exact below 2**53; larger ints stay with PyYAML). "Blocks" that turn out to be
    inside a block or quoted scalar are put back as text; whenever the fast path is not
    sure otherwise (rows continued after a blank line, a skeleton PyYAML refuses, ...),
    the whole text goes to PyYAML instead.

    Raises:
        YamlError: The YAML is malformed (with its 1-based line), or its aliases expand
            to more values than the text has characters (:func:`check_expansion`).
    """
    skeleton = _Skeleton.of(text)
    for _ in range(2):  # the second pass without the blocks found inside scalars
        if skeleton is None or not skeleton.arrays:
            break
        doc = skeleton.load()
        if not isinstance(doc, set):
            check_expansion(doc, text)
            return doc
        if not doc:
            break  # the skeleton is no good at all
        skeleton.restore(doc)
    doc = _safe_load(text)
    check_expansion(doc, text)
    return doc


#: Line breaks other than LF and CRLF (PyYAML counts them as lines; we would not).
_ODD_BREAKS = re.compile("[\r\x85\u2028\u2029]")
_FLOW_LAYOUT = re.compile(r"\[,*\]|\[(?:\[,*\],)*\[,*\]\]")


class _Skeleton:
    """A text with its numeric blocks replaced by placeholders (row lines blanked, so line numbers stay)."""

    def __init__(self, lines: list[str], bom: bool, tabs: bool) -> None:
        self.lines = lines
        self.bom = bom
        self.tabs = tabs
        self.tag = "mfr-" + os.urandom(8).hex() + "-"
        self.arrays: dict[str, np.ndarray] = {}  # by placeholder
        self.key_lines: dict[str, int] = {}  # 0-based line of each placeholder's key
        self.saved: dict[str, list[str]] = {}  # the lines each placeholder replaced

    @classmethod
    def of(cls, text: str) -> _Skeleton | None:
        """The skeleton of ``text``, or None when its line breaks are not all LF / CRLF."""
        bom = text.startswith("\ufeff")
        body = text[1:] if bom else text
        if "\r" in body:
            body = body.replace("\r\n", "\n")  # PyYAML reads CRLF as one line break, like LF
            if "\r" in body:
                return None  # a lone CR: a line break to PyYAML, not to ``str.split``
        if not body.isascii() and ("\x85" in body or "\u2028" in body or "\u2029" in body):
            return None  # likewise NEL, LS and PS
        skeleton = cls(body.split("\n"), bom, "\t" in body)
        skeleton.find_blocks()
        return skeleton

    def find_blocks(self) -> None:
        lines = self.lines
        i = 0
        n = len(lines)
        while i < n:
            m = _KEY_LINE.match(lines[i])
            if not m:
                i += 1
                continue
            key_indent = len(m.group(1))
            j = _region_end(lines, i + 1, key_indent)
            region = lines[i + 1 : j]
            values = _region_values(region, self.tabs) if region and not _continues(lines, j, key_indent) else None
            if values is None:
                i += 1
                continue
            name = f"{self.tag}{len(self.arrays)}"
            self.arrays[name] = values
            self.key_lines[name] = i
            self.saved[name] = lines[i:j]
            lines[i] = f"{lines[i].rstrip()} {name}"
            for k in range(i + 1, j):
                lines[k] = ""
            i = j

    def restore(self, names: set[str]) -> None:
        """Put the text of these blocks back."""
        for name in names:
            i = self.key_lines.pop(name)
            original = self.saved.pop(name)
            self.lines[i : i + len(original)] = original
            del self.arrays[name]

    def load(self) -> Any:
        """The document with its arrays, or the placeholders that are not plain block values.

        An empty set: the skeleton is no good at all (PyYAML refuses it, or it nests
        too deep): the whole text decides, with PyYAML's own words for any error.
        """
        text = ("\ufeff" if self.bom else "") + "\n".join(self.lines)
        if yaml_too_deep(text) is not None:
            return set()
        loader = SafeLoader(text)
        try:
            try:
                node = loader.get_single_node()
                if node is None:
                    return set()
                misplaced = misplaced_placeholders(node, self.tag, self.key_lines)
                if misplaced:
                    return misplaced
                doc = loader.construct_document(node)
            except (yaml.YAMLError, ValueError):  # e.g. an unknown tag, an int too long to convert
                return set()
        finally:
            loader.dispose()
        check_expansion(doc, text)  # before anything walks it
        return _substitute(doc, self.arrays, self.tag)


def _region_end(lines: list[str], start: int, key_indent: int) -> int:
    """The end of the lines after a ``key:`` line that could be its block sequence.

    That is the lines deeper than the key (not blank), or at its indentation starting
    with ``- `` (a sequence may sit at its mapping key's indentation).
    """
    deeper = " " * (key_indent + 1)
    entry = " " * key_indent + "- "
    j = start
    n = len(lines)
    while j < n:
        line = lines[j]
        if not (line.startswith(entry) or (line.startswith(deeper) and not line.isspace())):
            break
        j += 1
    return j


def _continues(lines: list[str], j: int, key_indent: int) -> bool:
    """True when the value of the key goes on after a blank or comment line at ``j``."""
    while j < len(lines):
        body = lines[j].lstrip(" ")
        if body and not body.startswith("#"):
            ind = len(lines[j]) - len(body)
            return ind > key_indent or (ind == key_indent and body.startswith("-"))
        j += 1
    return False


def _region_values(region: list[str], tabs: bool) -> np.ndarray | None:
    """The numbers of the rows under a ``key:`` line, or None when they are anything else."""
    body = region[0].lstrip(" ")
    if not body.startswith("- ") or (tabs and any("\t" in line for line in region)):
        return None
    if body.startswith("- ["):
        return _parse_flow_rows(region)
    return _parse_block_style(region) if len(region) >= _MIN_BLOCK_LINES else None


def misplaced_placeholders(root: Any, tag: str, key_lines: Mapping[str, int]) -> set[str]:
    """The placeholders (names starting with ``tag``) not where they were put; empty when all are.

    In place means: a plain scalar, the value of a key in a block mapping, on the key's
    line (``key_lines``, 0-based). Anything else (a placeholder swallowed by a block or
    quoted scalar, a flow collection around it, a key joined to another line) means the
    text around that numeric block is not what the fast path took it for.
    """
    found: set[str] = set()
    misplaced: set[str] = set()
    pattern = re.compile(re.escape(tag) + "[0-9]+")
    stack = [root]
    seen: set[int] = set()  # aliases share nodes: each once (an alias bomb stays small)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if tag in node.value:
                misplaced.update(pattern.findall(node.value))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if (
                    isinstance(value, yaml.ScalarNode)
                    and value.value in key_lines
                    and not value.style
                    and not node.flow_style
                    and value.start_mark.line == key_lines[value.value] == key.start_mark.line
                ):
                    found.add(value.value)
                    stack.append(key)
                else:
                    stack.extend((key, value))
    return misplaced | (set(key_lines) - found)


def _safe_load(text: str) -> Any:
    deep = yaml_too_deep(text)
    if deep is not None:
        raise YamlError(deep, f"invalid YAML: {too_deep_reason()}")
    try:
        return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line_number = mark.line + 1 if mark is not None else None
        raise YamlError(line_number, f"invalid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise YamlError(None, f"invalid YAML: {exc}") from None
    except ValueError:  # PyYAML's int() of more digits than Python converts
        raise YamlError(*long_integer(text)) from None


def _substitute(node: Any, arrays: dict[str, np.ndarray], tag: str) -> Any:
    if isinstance(node, dict):
        return {k: _substitute(v, arrays, tag) for k, v in node.items()}
    if isinstance(node, list):
        return [_substitute(v, arrays, tag) for v in node]
    if isinstance(node, str) and node.startswith(tag):
        return arrays[node]
    return node


# ------------------------------------------------------- rows by a format's own number rule
FloatArray = npt.NDArray[np.float64]

#: A number in a frame row: decimal with optional exponent (as C's strtod reads it,
#: without hex), or inf / infinity / nan in C or YAML spelling (``-.inf``, ``.nan``).
NUMBER = re.compile(r"[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|\.?(?i:inf(?:inity)?|nan))")

_DIGITS = b"0123456789.eE+- "
_DIGITS_AND_WORDS = b"0123456789.eE+- aAfFiInNtTyY"
_LAYOUT = re.compile(rb"\[(?:,|\[,*\])*\]")
#: Field boundaries with nothing between them, in a row with its spaces removed.
_EMPTY_FIELDS = (b",,", b"[,", b",]", b"[]")
#: Rows converted per numpy call (bounds the temporary copies of the text).
CHUNK_ROWS = 256


def to_number(text: str) -> float | None:
    """The value of a frame-row token, or None when it is not a number."""
    if not NUMBER.fullmatch(text):
        return None
    if text[-1] in "0123456789.":
        return float(text)
    return float(text.replace(".", ""))


@dataclasses.dataclass(frozen=True)
class Rows:
    """The rows of one ``frames:`` block.

    Attributes:
        values: (N, F) float64, every row's numbers in reading order.
        layout: The bracket-and-comma layout every row shares, e.g. ``[,,]`` (three
            values), ``[[,,,,,,]]`` (one group of seven), ``[,[,,,,,,]]`` (a time and a group).
        line: 1-based line of the first row.
        key_line: 0-based line of the key the rows belong to (set by :func:`extract_rows`).
    """

    values: FloatArray
    layout: str
    line: int
    key_line: int | None = None

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def array(self) -> FloatArray | None:
        """The rows as (N, w) or (N, k, w) when the layout is that regular, else None."""
        inner = self.layout[1:-1]
        if "[" not in inner:
            return self.values
        groups = inner[1:-1].split("],[") if inner.startswith("[") and inner.endswith("]") else []
        if groups and len(set(groups)) == 1 and "[" not in groups[0]:
            width = groups[0].count(",") + 1
            return self.values.reshape(len(self), len(groups), width)
        return None


def is_blank_or_comment(line: bytes) -> bool:
    body = line.lstrip(b" ")
    return not body or body.startswith(b"#")


def end_of_line(data: bytes, start: int) -> int:
    end = data.find(b"\n", start)
    return len(data) if end < 0 else end


def parse_block(data: bytes, chunks: list[tuple[int, int, int]], prefix: bytes, layout: bytes, words: bool) -> Rows:
    """Convert the rows in ``chunks`` ((start, end, rows) each, checked already); raises ValueError."""
    fields = layout.count(b",") + 1
    n = sum(rows for _, _, rows in chunks)
    out = np.empty((n, fields), dtype=np.float64)
    first = 0
    separator = b"\n" + prefix[:-1]
    for start, end, rows in chunks:
        text = data[start + len(prefix) - 1 : end].replace(separator, b",")
        payload = text.translate(None, b"[]")
        count = rows * fields
        if words:
            numbers = [to_number(token.strip(b" ").decode("ascii")) for token in payload.split(b",")]
            if len(numbers) != count or any(v is None for v in numbers):
                raise ValueError("not a number")
            values = np.array(numbers, dtype=np.float64)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    values = np.fromstring(payload, dtype=np.float64, sep=",")
                except DeprecationWarning:
                    raise ValueError("not a number") from None
            if values.size != count:
                raise ValueError("wrong count")
            if np.any(values == -1.0) and any(e in text.translate(None, b" ") for e in _EMPTY_FIELDS):
                # An empty field (``[ 1, , 3 ]``, ``[ 1, 2, ]``): numpy reads it as -1 and the
                # layout check cannot see it; YAML gives an error or another row width.
                raise ValueError("empty field")
        out[first : first + rows] = values.reshape(rows, fields)
        first += rows
    return Rows(out, layout.decode("ascii"), data.count(b"\n", 0, chunks[0][0]) + 1)


def scan_block(data: bytes, row_start: int, indent: int) -> tuple[list[tuple[int, int, int]], bytes, bool] | None:
    """Chunks (start, end, rows) of the rows from ``row_start`` on and their shared layout, or None."""
    prefix = data[row_start : row_start + indent + 3]
    first = data[row_start : end_of_line(data, row_start)]
    words = False
    layout = first.translate(None, _DIGITS)
    if not _LAYOUT.fullmatch(layout):
        layout = first.translate(None, _DIGITS_AND_WORDS)
        if not _LAYOUT.fullmatch(layout):
            return None
        words = True
    delete = _DIGITS_AND_WORDS if words else _DIGITS
    chunks: list[tuple[int, int, int]] = []
    pos = row_start
    size = len(data)
    chunk_start, rows, end = pos, 0, pos
    while pos < size and data.startswith(prefix, pos):
        end = end_of_line(data, pos)
        if data[pos:end].translate(None, delete) != layout:
            return None
        rows += 1
        if rows == CHUNK_ROWS:
            chunks.append((chunk_start, end, rows))
            chunk_start, rows = end + 1, 0
        pos = end + 1
    if rows:
        chunks.append((chunk_start, end, rows))
    return chunks, layout, words


def extract_rows(data: bytes | str, key: str, tag_prefix: str) -> tuple[str, dict[str, Rows]] | None:
    """The YAML skeleton of ``data`` with every ``key:`` block of flow rows parsed, or None to decline.

    Rows follow :func:`to_number` (a format's own number rule, not YAML 1.1's); the
    caller checks with :func:`misplaced_placeholders` that each placeholder landed as a
    plain block value (not inside a block or quoted scalar), else declines.

    Returns:
        The text with each block replaced by a placeholder scalar (row
        lines blanked, so line numbers stay), and the placeholders' rows.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\t" in data or b"\r" in data:
        return None
    tag = tag_prefix + os.urandom(6).hex() + "-"
    key_bytes = key.encode("ascii") + b":"
    key_line = re.compile(rb"( *)((?:- +)?)" + re.escape(key_bytes) + rb"[ \t]*")
    found: dict[str, Rows] = {}
    pieces: list[bytes] = []
    done = 0  # data[:done] is in pieces
    size = len(data)
    search = 0
    while True:
        hit = data.find(key_bytes, search)
        if hit < 0:
            break
        line_start = data.rfind(b"\n", 0, hit) + 1
        line_end = end_of_line(data, hit)
        search = line_end
        found_key = key_line.fullmatch(data, line_start, line_end)
        if found_key is None:
            continue
        key_indent = len(found_key.group(1)) + len(found_key.group(2))
        row_start = line_end + 1
        while row_start < size and is_blank_or_comment(data[row_start : end_of_line(data, row_start)]):
            row_start = end_of_line(data, row_start) + 1
        if row_start >= size:
            continue
        indent = 0
        while row_start + indent < size and data[row_start + indent] == 32:
            indent += 1
        if indent < key_indent or not data.startswith(b"- [", row_start + indent):
            continue
        scanned = scan_block(data, row_start, indent)
        if scanned is None:
            return None
        chunks, layout, words = scanned
        block_end = chunks[-1][1]
        after = block_end + 1
        while after < size and is_blank_or_comment(data[after : end_of_line(data, after)]):
            after = end_of_line(data, after) + 1
        if after < size:
            rest = data[after : end_of_line(data, after)]
            rest_indent = len(rest) - len(rest.lstrip(b" "))
            # What follows the rows must belong to the frames key's mapping or an outer node:
            # a deeper line would continue the placeholder (YAML reads it differently).
            if rest_indent > key_indent or (rest_indent == indent and rest.lstrip(b" ").startswith(b"-")):
                return None
        try:
            rows = parse_block(data, chunks, data[row_start : row_start + indent + 3], layout, words)
        except ValueError:
            return None
        rows = dataclasses.replace(rows, key_line=rows.line - 1 - data.count(b"\n", line_start, row_start))
        name = f"{tag}{len(found)}"
        found[name] = rows
        pieces.append(data[done:line_end].rstrip(b" "))
        pieces.append(b" " + name.encode("ascii"))
        pieces.append(b"\n" * data.count(b"\n", line_end, block_end))
        done = block_end
        search = block_end
    pieces.append(data[done:])
    try:
        skeleton = b"".join(pieces).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return skeleton, found


# ------------------------------------------------------------------------ writing
def format_float(value: float) -> str:
    """A float as PyYAML writes it (shortest repr; ``1e-05`` → ``1.0e-05``; .nan, .inf)."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(float(value))
    if "." not in text and "e" in text:
        text = text.replace("e", ".0e", 1)
    return text


_FIX_EXP = re.compile(r"(?<![\d.])(-?\d+)e")


def format_floats(values: np.ndarray, fmt: str | None = None) -> list[str]:
    """Every value of a float array as YAML float text (shortest round-trip by default)."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    texts = list(map(repr, flat.tolist())) if fmt is None else [fmt % v for v in flat.tolist()]
    joined = " ".join(texts)
    if "e" in joined or "n" in joined:
        texts = [format_float(v) for v in flat.tolist()] if fmt is None else [_yaml_number_text(t) for t in texts]
    return texts


def _yaml_number_text(text: str) -> str:
    low = text.lower()
    if low in ("nan", "-nan"):
        return ".nan"
    if low in ("inf", "+inf"):
        return ".inf"
    if low == "-inf":
        return "-.inf"
    if "e" in low:
        mantissa, _, exponent = low.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        if exponent[:1] not in "+-":
            exponent = "+" + exponent
        return f"{mantissa}e{exponent}"
    if "." not in text:
        return text + ".0"
    return text


def flow_rows(values: np.ndarray, indent: str) -> list[str]:
    """A float array (N, ...) as one ``- [..]`` flow row per frame (empty: ``[]``)."""
    a = np.asarray(values, dtype=np.float64)
    if a.ndim == 1:
        texts = format_floats(a)
        return [f"{indent}- {t}" for t in texts]
    n = a.shape[0]
    texts = format_floats(a)
    per_row = a[0].size if n else 0
    rows = []
    if a.ndim == 2:
        for r in range(n):
            rows.append(f"{indent}- [{', '.join(texts[r * per_row : (r + 1) * per_row])}]")
    else:
        group = int(np.prod(a.shape[2:]))
        groups = a.shape[1]
        for r in range(n):
            base = r * per_row
            parts = ["[" + ", ".join(texts[base + g * group : base + (g + 1) * group]) + "]" for g in range(groups)]
            rows.append(f"{indent}- [{', '.join(parts)}]")
    return rows


def dump_scalar(value: Any) -> str:
    """A scalar or small list in YAML flow form (quoted as PyYAML would)."""
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return yaml.safe_dump(value, default_flow_style=True).removesuffix("\n...\n").strip()
    text: str = yaml.safe_dump(value, default_flow_style=True, width=1 << 30, allow_unicode=True)
    text = text.removesuffix("\n...\n").rstrip("\n")  # not strip(): a no-break space is text
    if _ODD_BREAKS.search(text) or "\n" in text:  # a line break in a string: one double-quoted line instead
        text = yaml.safe_dump(value, default_flow_style=True, default_style='"', width=1 << 30, allow_unicode=True)
        text = text.removesuffix("\n...\n").rstrip("\n")
    return text


def dump(doc: Any) -> str:
    """A document of mappings, scalars and float arrays as block YAML with flow rows."""
    out: list[str] = []
    _dump_node(doc, "", out)
    out.append("")
    return "\n".join(out)


def _dump_node(node: dict[str, Any], indent: str, out: list[str]) -> None:
    for key, value in node.items():
        k = dump_scalar(key)
        if isinstance(value, dict):
            if value:
                out.append(f"{indent}{k}:")
                _dump_node(value, indent + "  ", out)
            else:
                out.append(f"{indent}{k}: {{}}")
        elif isinstance(value, np.ndarray) and value.dtype.kind in "fiu":
            if value.size == 0 and value.shape[:1] in ((0,), ()):
                out.append(f"{indent}{k}: []")
            elif value.ndim == 1:
                out.append(f"{indent}{k}: [{', '.join(format_floats(value))}]")
            else:
                out.append(f"{indent}{k}:")
                out.extend(flow_rows(value, indent))
        else:
            out.append(f"{indent}{k}: {dump_scalar(value)}")


def error_line(exc: yaml.YAMLError, text: str) -> int | None:
    """The 1-based line of ``text`` where PyYAML reports ``exc``, when it says."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        return mark.line + 1 if mark is not None else None
    position = getattr(exc, "position", None)
    if isinstance(position, int):
        return text.count("\n", 0, position) + 1
    return None
