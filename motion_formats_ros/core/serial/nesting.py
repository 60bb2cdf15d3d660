"""Nesting-depth checks run before a JSON or YAML text is parsed, and the place of an integer
too long for Python to convert (found after a parser refused it).

Parsers recurse once per nesting level: ``json.loads`` raises RecursionError on a few
thousand ``[``, and libyaml's composer (the C loader) overflows the C stack, killing
the process, on a deep enough ``[[[[…``. No motion file nests more than a handful of
levels, so a text that nests deeper than :data:`MAX_DEPTH` is rejected up front with
the line where it goes too deep.
"""

from __future__ import annotations

import re
import sys

#: Deepest nesting of lists / mappings a file may have (real files: under 10).
MAX_DEPTH = 100

#: Tokens of a JSON text that matter for its depth: strings (skipped) and brackets.
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
#: The same for JSON5: single-quoted strings and comments are skipped too.
_JSON5_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|//[^\n]*|/\*.*?\*/|[\[\]{}]', re.DOTALL)
#: What can open a YAML nesting level: flow brackets, block sequence / mapping indicators.
_YAML_OPENERS = re.compile(r"[\[{]|[-?:](?=[ \t\r\n])")


#: Every byte but the brackets and the double quote: what :func:`json_depth` leaves out.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
#: A string in what :func:`json_depth` keeps of a text (its escapes already gone).
_SKELETON_STRING = re.compile(rb'"[^"]*"')


def json_depth(text: str) -> int:
    """The deepest nesting of a JSON ``text``, from its skeleton: the escaped backslashes and
    quotes removed, then every byte but brackets and quotes, then the strings; the depth is
    the running sum of the brackets left, all in C (str.replace, bytes.translate, numpy).

    A motion's JSON is nearly all digits: walking every token of it took 0.23 s of a
    19 MB OMF file that ``json.loads`` reads in 0.8 s.
    """
    import numpy as np

    plain = text.replace("\\\\", "").replace('\\"', "")
    skeleton = plain.encode("utf-8", "surrogatepass").translate(None, _NOT_STRUCTURE)
    brackets = np.frombuffer(_SKELETON_STRING.sub(b"", skeleton), dtype=np.uint8)
    if brackets.size == 0:
        return 0
    step = np.where((brackets == ord("[")) | (brackets == ord("{")), 1, -1)
    return max(int(np.cumsum(step).max()), 0)


def json_too_deep(text: str, limit: int = MAX_DEPTH, json5: bool = False) -> int | None:
    """The 1-based line where ``text`` (JSON, or JSON5 with ``json5``) nests deeper than ``limit``, or None."""
    if text.count("[") + text.count("{") <= limit:
        return None
    if not json5 and json_depth(text) <= limit:
        return None  # the token walk below only to find the line
    depth = 0
    for m in (_JSON5_TOKENS if json5 else _JSON_TOKENS).finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, m.start()) + 1
        elif c in "]}":
            depth -= 1
    return None


def yaml_too_deep(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The 1-based line where ``text`` (YAML) nests deeper than ``limit``, or None.

    libyaml's parser (unlike its composer) keeps its state on the heap, so walking the
    events is safe at any depth; it stops at the first level too deep. Malformed YAML
    is left to the real parse, which reports it.
    """
    if len(_YAML_OPENERS.findall(text)) <= limit:
        return None
    import yaml  # only texts with many nesting openers get here

    depth = 0
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > limit:
                    mark = event.start_mark
                    return mark.line + 1 if mark is not None else None
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # PyYAML >= 6.0.4 stops at a nesting limit of its own: the same finding.
        mark = exc.problem_mark or exc.context_mark
        if "nesting depth" in str(exc.problem) and mark is not None:
            return mark.line + 1
        return None
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None


def too_deep_reason(limit: int = MAX_DEPTH) -> str:
    """The ReadError reason for a text nested too deeply."""
    return f"lists / mappings nested more than {limit} levels deep (expected a motion file's few levels)"


def first_long_digits(text: str) -> re.Match[str] | None:
    """The first run of more digits in ``text`` than Python turns into an ``int`` from text
    (``sys.get_int_max_str_digits``, 4300 by default), or None."""
    limit = sys.get_int_max_str_digits()
    return re.search(rf"[0-9]{{{limit + 1},}}", text) if limit else None


def long_integer(text: str) -> tuple[int | None, str]:
    """The 1-based line of the first integer in ``text`` longer than Python turns into an ``int``,
    and the reason for the error.

    The JSON and YAML parsers raise a bare ValueError for one, without its place; this finds it
    (None for the line when no such run of digits is found).
    """
    found = first_long_digits(text)
    if found is None:
        return None, "a number too long to convert"
    return text.count("\n", 0, found.start()) + 1, (
        f"an integer of {len(found.group()):,} digits (at most {sys.get_int_max_str_digits():,} are read)"
    )
