"""Fast YAML for motion data: numeric blocks parsed with numpy, the rest by PyYAML.

Motion YAML is a small tree of mappings around large sequences of numbers, written
either in block style (``- - 1.0`` / ``  - 2.0``, what PyYAML dumps) or as one flow row
per frame (``- [1.0, 2.0]``, what we write). :func:`load` finds those numeric
sequences, checks that every row has the same layout and every token is a number in
YAML 1.1's sense (exactly what PyYAML's safe loader accepts as int or float), converts
them in one numpy call and hands the remaining skeleton (same line numbers) to PyYAML's
safe loader (the C one when present). Anything unusual stays in the skeleton, so the
result always equals a plain ``yaml.safe_load``, with numeric blocks as float64 arrays.
"""

from __future__ import annotations

import math
import re
import secrets
from typing import Any

import numpy as np
import yaml

from ._nesting import too_deep_reason, yaml_too_deep
from .errors import MotionFormatError

SafeLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# A numeric token as PyYAML's resolver sees it: decimal int or float, .inf, .nan.
_NUMBER_PATTERN = (
    r"[-+]?(?:0|[1-9][0-9]*)"
    r"|[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
_TOKENS = re.compile(rf"(?:{_NUMBER_PATTERN})(?: (?:{_NUMBER_PATTERN}))*")
_KEY_LINE = re.compile(r"^( *)([A-Za-z_][A-Za-z0-9_]*):[ \t]*$")
_SPECIALS = {".inf": "inf", "+.inf": "inf", "-.inf": "-inf", ".nan": "nan"}
_NUMBER_CHARS = str.maketrans("", "", "0123456789.eE+-naNIfF")
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
    joined = " ".join(tokens)
    if not _TOKENS.fullmatch(joined):
        return None
    if "." in joined and any(c in joined for c in "nNiI"):
        tokens = [_SPECIALS.get(t.lower(), t) for t in tokens]
    return np.array(tokens, dtype=np.float64)


def _parse_block_style(lines: list[str]) -> np.ndarray | None:
    """Rows like ``- - 1.0`` / ``  - 2.0`` (PyYAML's default dump of nested lists)."""
    prefixes: list[str] = []
    tokens: list[str] = []
    for line in lines:
        prefix, _, token = line.rpartition("- ")
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
    for line in lines:
        body = line.lstrip(" ")
        if not body.startswith("- ["):
            return None
        body = body[2:].rstrip()
        layout = body.translate(_NUMBER_CHARS).replace(" ", "")
        if skeleton is None:
            skeleton = layout
        elif layout != skeleton:
            return None
        tokens.extend(body.replace("[", " ").replace("]", " ").replace(",", " ").split())
    assert skeleton is not None
    if skeleton.startswith("[["):
        inner = skeleton[1:-1].split("],[")
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


def load(text: str) -> Any:
    """Parse ``text`` like ``yaml.safe_load``, with numeric blocks as float64 arrays.

    Raises:
        YamlError: The YAML is malformed (with its 1-based line).
    """
    lines = text.split("\n")
    arrays: dict[str, np.ndarray] = {}
    tag = "mfr-" + secrets.token_hex(8) + "-"
    i = 0
    n = len(lines)
    while i < n:
        m = _KEY_LINE.match(lines[i])
        if not m:
            i += 1
            continue
        key_indent = len(m.group(1))
        j = i + 1
        while j < n:
            line = lines[j]
            ind = _indent(line)
            if line.strip() == "" or ind < key_indent or (ind == key_indent and not line[ind:].startswith("- ")):
                break
            j += 1
        region = lines[i + 1 : j]
        if (len(region) >= _MIN_BLOCK_LINES and region[0][key_indent:].startswith("- ")) or (
            len(region) == 1 and region[0].lstrip(" ").startswith("- [")
        ):
            body = region[0].lstrip(" ")
            values = _parse_flow_rows(region) if body.startswith("- [") else _parse_block_style(region)
            if values is not None:
                name = f"{tag}{len(arrays)}"
                arrays[name] = values
                lines[i] = f"{lines[i].rstrip()} {name}"
                for k in range(i + 1, j):
                    lines[k] = ""
                i = j
                continue
        i += 1
    skeleton = "\n".join(lines) if arrays else text
    deep = yaml_too_deep(skeleton)
    if deep is not None:
        raise YamlError(deep, f"invalid YAML: {too_deep_reason()}")
    try:
        doc = yaml.load(skeleton, Loader=SafeLoader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line_number = mark.line + 1 if mark is not None else None
        raise YamlError(line_number, f"invalid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise YamlError(None, f"invalid YAML: {exc}") from None
    return _substitute(doc, arrays, tag) if arrays else doc


def _substitute(node: Any, arrays: dict[str, np.ndarray], tag: str) -> Any:
    if isinstance(node, dict):
        return {k: _substitute(v, arrays, tag) for k, v in node.items()}
    if isinstance(node, list):
        return [_substitute(v, arrays, tag) for v in node]
    if isinstance(node, str) and node.startswith(tag):
        return arrays[node]
    return node


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
    return text.removesuffix("\n...\n").strip()


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
