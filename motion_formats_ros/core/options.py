"""Options a codec accepts: declared once, as frozen dataclasses, and checked on every call.

A codec declares ``ReadOptions`` and ``WriteOptions``: frozen dataclasses whose fields are
its keyword options, each made with :func:`option` (default, one line of help, unit,
choices). Everything else is generated from those fields: the registry's checks
(:func:`check_options` refuses an option the codec does not declare, or a value of the
wrong type or outside its choices, with an :class:`~motion_formats_ros.core.errors.OptionError`
that lists the accepted ones), the command line's ``--read-option NAME=VALUE`` /
``--write-option NAME=VALUE`` (:meth:`Option.parse` turns the text into the declared type),
``motion-formats formats --options`` and the manual's tables (:func:`markdown_table`).
A fixed set of values is a :class:`ChoiceEnum`, checked here and nowhere else.

A node's settings (the player's, the recorder's, the simulated robot's) are the fields of
a configuration dataclass declared the same way, with :func:`option` (bounds, run-time
changes): one :class:`Option` each, checked by the one :meth:`Option.problem`. The node's
ROS parameters and their descriptions, its ``--help``, its config file and the launch
arguments are made from them (:func:`settings_of`, :func:`make_config`). This is the
package's one field-metadata module.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import math
import os
import sys
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from .errors import OptionError, number
from .ros_names import topic_problem

#: Types of an option that takes a file name.
PATH = (str, os.PathLike)
#: Types of an option that takes a list of names (also ``"a,b,c"``).
NAMES = (str, list, tuple)
#: Types of a number option.
NUMBER = (int, float)
#: The command-line flag that sets a read / write option (followed by ``NAME=VALUE``).
FLAGS = {"read": "--read-option", "write": "--write-option"}

T = TypeVar("T")

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


class ChoiceEnum(str, enum.Enum):
    """A value of a fixed set an option takes (a compression, a storage, …): a str-valued enum.

    A field annotated with a subclass accepts its members or their texts (checked, and
    turned into members, by :func:`build_options`); the choices, the command line's values
    and the manual's tables come from the members. A member compares, hashes and prints as
    its text, so it goes wherever the text went.
    """

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The texts of every member, in declaration order."""
        return tuple(str(m.value) for m in cls)


class Resample(ChoiceEnum):
    """How frames are resampled to a rate (``convert --resample``, :meth:`Motion.resample`'s ``method``).

    ``linear``: values linear, quaternions slerp, keyframe segments honoured; ``hold``:
    Choreonoid's import (each source row goes to one frame, gaps repeat the previous frame).
    """

    LINEAR = "linear"
    HOLD = "hold"


def option(
    default: Any,
    help: str,
    *,
    unit: str = "",
    choices: Sequence[Any] = (),
    metavar: str = "",
    minimum: float | None = None,
    above: float | None = None,
    maximum: float | None = None,
    smallest_on: float | None = None,
    runtime: bool = False,
    nonempty: bool = False,
    topic: bool = False,
    name: str = "",
) -> Any:
    """A field of an options dataclass: one keyword option of a codec, or one setting (parameter) of a node.

    Args:
        default: The value used when the option is not given (immutable: None, a number,
            a string, a bool, a tuple).
        help: One line for ``formats --options``, the manual, a parameter's description,
            a config file's comment and a node's ``--help``.
        unit: The unit of a number (``deg``, ``ms``, ``Hz``, ``s``), shown after the help.
        choices: The only values accepted (None too, when the default is None); a field
            annotated with a :class:`ChoiceEnum` takes its members' texts without them.
        metavar: How the value is written on the command line (default: from the type).
        minimum: The smallest number accepted (inclusive), if any.
        above: Numbers must be greater than this, if given.
        maximum: The largest number accepted (inclusive), if any.
        maximum: The largest number accepted (inclusive), if any.
        smallest_on: For a number whose 0 means "off": its smallest value other than 0.
        runtime: A node's parameter that may change while it runs (otherwise only at start).
        nonempty: A text or list that, when given on purpose, must not be empty.
        topic: A text or list of ROS topic names (relative ones too; empty: none), each
            checked by ROS 2's rules (:mod:`.ros_names`).
        name: The name users give the option by, when it is not the field's.
    """
    metadata: dict[str, Any] = {"help": help, "unit": unit, "choices": tuple(choices), "metavar": metavar, "name": name}
    metadata |= {"minimum": minimum, "above": above, "maximum": maximum, "smallest_on": smallest_on, "runtime": runtime}
    metadata |= {"nonempty": nonempty, "topic": topic}
    return dataclasses.field(default=default, metadata=metadata)


class Option(NamedTuple):
    """One option, as its dataclass field declares it: a codec's keyword option or a node's parameter.

    Attributes:
        name: The name users give it by: the keyword, the parameter's name.
        types: Accepted value types (``None`` is accepted when the default is None);
            ``(object,)`` for anything the codec interprets itself.
        default: The value used when the option is not given.
        help: One line of help.
        nullable: Whether None is accepted although the default is not None.
        unit: The unit of a number option ("" when none).
        choices: The only values accepted (empty: any value of the types).
        metavar: How the value is written on the command line.
        enum: The :class:`ChoiceEnum` whose members' texts are the choices, if any.
        minimum: The smallest number accepted (inclusive), if any.
        above: Numbers must be greater than this, if given.
        smallest_on: For a number whose 0 means "off": its smallest value other than 0.
        runtime: A node's parameter that may change while it runs.
        nonempty: A text or list that, when given on purpose, must not be empty.
        topic: A text or list of ROS topic names (relative ones too), checked by ROS 2's rules.
        field: The dataclass field holding the value, when it is not ``name``
            (``PlayerConfig.speed`` is the player's ``rate``).
    """

    name: str
    types: tuple[type, ...]
    default: Any = None
    help: str = ""
    nullable: bool = False
    unit: str = ""
    choices: tuple[Any, ...] = ()
    metavar: str = ""
    enum: type[ChoiceEnum] | None = None
    minimum: float | None = None
    above: float | None = None
    maximum: float | None = None
    smallest_on: float | None = None
    runtime: bool = False
    nonempty: bool = False
    topic: bool = False
    field: str = ""

    @property
    def attribute(self) -> str:
        """The dataclass field that holds the value."""
        return self.field or self.name

    @property
    def kind(self) -> type:
        """The one type a ROS parameter of this option has: ``bool``, ``int``, ``float``, ``str``,
        ``tuple`` (a list of names) or ``object`` (a number or a text: a dynamically typed parameter).

        Raises:
            TypeError: The option's types make no ROS parameter (a path, a mapping …).
        """
        kinds = {frozenset({bool}): bool, frozenset({int}): int, frozenset(NUMBER): float, frozenset({str}): str}
        kinds |= {frozenset({tuple}): tuple, frozenset({str, *NUMBER}): object}
        found = kinds.get(frozenset(self.types))
        if found is None:
            raise TypeError(f"option {self.name}: no ROS parameter type for {self.type_name}")
        return found

    @property
    def dynamic(self) -> bool:
        """True when both numbers and text are accepted."""
        return set(self.types) == {str, *NUMBER}

    @property
    def type_name(self) -> str:
        """The types as text (``str | PathLike | None``)."""
        names = [t.__name__ for t in self.types]
        if (self.default is None or self.nullable) and object not in self.types:
            names.append("None")
        return " | ".join(names)

    @property
    def value_name(self) -> str:
        """How the value is written on the command line (``NUMBER``, ``a|b``, ``A,B,C`` …)."""
        if self.metavar:
            return self.metavar
        if self.choices:
            return "|".join(str(c) for c in self.choices)
        first = self.types[0]
        if first is bool:
            return "true|false"
        if first in (int, float):
            return "NUMBER" if float in self.types else "INTEGER"
        if issubclass(first, Mapping):
            return "JSON"
        if first in (list, tuple) or first is Sequence:
            return "A,B,C"
        if first is object:
            return "JSON"
        return "TEXT"

    def flag(self, direction: str) -> str:
        """The exact command-line spelling that sets this option (``--write-option tolerance=NUMBER``)."""
        return f"{FLAGS[direction]} {self.name}={self.value_name}"

    @property
    def parameter_type(self) -> str:
        """The type as a message about a node's parameter names it (``float``, ``list of names``)."""
        try:
            kind = self.kind
        except TypeError:
            return self.type_name
        if kind is tuple:
            return "list of names"
        return "number or text" if kind is object else kind.__name__

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is of the declared types (and among the choices, when there are some)."""
        if value is None:
            return self.default is None or self.nullable or object in self.types
        if isinstance(value, bool) and bool not in self.types and object not in self.types:
            return False  # True is an int to isinstance, but never a number option
        if self.types == (tuple,):  # a list of names: a list or a tuple of texts
            return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        if not isinstance(value, self.types):
            return False
        return not self.choices or value in self.choices

    def problem(self, value: Any, given: bool = False) -> str | None:
        """Why ``value`` is not a value of this option, in one line naming it, or None.

        The one check of every option: its type, its choices, a finite number within its
        bounds, a text or list not empty when it must not be (``given``: set on purpose).
        """
        name = self.name
        if not self.accepts(value):
            if self.choices and (value is None or isinstance(value, self.types)):
                return f"{name} must be one of {', '.join(str(c) for c in self.choices)}, got {number(value)}"
            return f"{name} must be a {self.parameter_type}, got {number(value)}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value) if isinstance(value, float) else abs(value) > sys.float_info.max:
                return f"{name} must be a finite number, got {number(value)}"
            shown = f"{value:g}"
            if self.minimum is not None and value < self.minimum:
                return f"{name} must be at least {self.minimum:g}, got {shown}"
            if self.above is not None and not value > self.above:
                return f"{name} must be greater than {self.above:g}, got {shown}"
            if self.maximum is not None and value > self.maximum:
                return f"{name} must be at most {self.maximum:g}, got {shown}"
            if self.smallest_on is not None and 0 < value < self.smallest_on:
                return f"{name} must be 0 (off) or at least {self.smallest_on:g}, got {shown}"
        if given and self.nonempty and not value:
            return f"{name} is empty: give a value or leave the setting out"
        if self.topic:
            for topic in value if isinstance(value, (list, tuple)) else (value,):
                problem = topic_problem(topic, relative=True) if topic else None
                if problem is not None:
                    return f"{name} {topic!r} is not a ROS topic name: {problem}"
        return None

    def typed(self, value: Any) -> Any:
        """``value`` (accepted) as the field holds it: a choice's text becomes its :class:`ChoiceEnum`
        member, a list of names a tuple."""
        if self.enum is not None and isinstance(value, str):
            return self.enum(value)
        if self.types == (tuple,) and isinstance(value, list):
            return tuple(value)
        return value

    def parse(self, text: str, codec: str = "", operation: str = "") -> Any:
        """The value the command-line text ``text`` stands for, in the declared type.

        Raises:
            OptionError: The text is not a value of this option.
        """
        value = self._parse(text)
        if value is _INVALID or not self.accepts(value):
            expected = self.value_name if self.choices or self.metavar else self.type_name
            raise OptionError(codec, operation, self.name, None, f"expects {expected}, got {text!r}")
        return value

    def _parse(self, text: str) -> Any:
        for t in self.types:
            if t is bool:
                lowered = text.strip().lower()
                if lowered in _TRUE or lowered in _FALSE:
                    return lowered in _TRUE
            elif t is int:
                try:
                    return int(text)
                except ValueError:
                    continue
            elif t is float:
                try:
                    return float(text)
                except ValueError:
                    continue
            elif t is str:
                return text
            elif t is os.PathLike:
                return Path(text)
            elif t in (list, tuple) or t is Sequence:
                if text.strip().lower() == "none":
                    return []
                return [item.strip() for item in text.split(",") if item.strip()]
            elif isinstance(t, type) and issubclass(t, Mapping):
                return _mapping(text)
            elif t is object:
                import json  # a command line's JSON value only

                try:
                    return json.loads(text)
                except ValueError:
                    return text
        return _INVALID


_INVALID = object()


def _mapping(text: str) -> Any:
    """A JSON object, or ``KEY:NUMBER,KEY:NUMBER``."""
    if text.lstrip().startswith("{"):
        import json

        try:
            return json.loads(text)
        except ValueError:
            return _INVALID
    out: dict[str, Any] = {}
    for item in text.split(","):
        key, sep, value = item.partition(":")
        if not sep or not key.strip():
            return _INVALID
        try:
            out[key.strip()] = float(value)
        except ValueError:
            return _INVALID
    return out


@functools.cache
def options_of(cls: type | None) -> tuple[Option, ...]:
    """The options a dataclass declares (a codec's ``ReadOptions`` / ``WriteOptions``, a node's
    configuration), in field order."""
    if cls is None:
        return ()
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else None
        hint = hints[f.name]
        nullable = type(None) in typing.get_args(hint)
        meta = f.metadata
        kinds = runtime_types(hint)
        choice = next((t for t in kinds if issubclass(t, ChoiceEnum)), None)
        choices = tuple(meta.get("choices", ()))
        if choice is not None:
            kinds = tuple(str if t is choice else t for t in kinds)
            choices = choices or choice.values()
            default = default.value if isinstance(default, ChoiceEnum) else default
        name = meta.get("name") or f.name
        out.append(
            Option(
                name,
                kinds,
                default,
                meta.get("help", ""),
                nullable,
                meta.get("unit", ""),
                choices,
                meta.get("metavar", ""),
                choice,
                minimum=meta.get("minimum"),
                above=meta.get("above"),
                maximum=meta.get("maximum"),
                smallest_on=meta.get("smallest_on"),
                runtime=meta.get("runtime", False),
                nonempty=meta.get("nonempty", False),
                topic=meta.get("topic", False),
                field=f.name if name != f.name else "",
            )
        )
    return tuple(out)


def check_options(codec: str, operation: str, given: Mapping[str, Any], accepted: Iterable[Option] | type) -> None:
    """Refuse an option not in ``accepted`` (options, or the dataclass declaring them) or a wrong value.

    Raises:
        OptionError: naming the option and listing the accepted ones.
    """
    declared = options_of(accepted) if isinstance(accepted, type) else tuple(accepted)
    by_name = {o.name: o for o in declared}
    for name, value in given.items():
        opt = by_name.get(name)
        if opt is None:
            raise OptionError(codec, operation, name, by_name)
        if not opt.accepts(value):
            if opt.choices and isinstance(value, opt.types):
                reason = f"expects one of {', '.join(map(repr, opt.choices))}, got {value!r}"
            else:
                reason = f"expects {opt.type_name}, got {type(value).__name__} {value!r}"
            raise OptionError(codec, operation, name, by_name, reason)
        problem = opt.problem(value)
        if problem is not None:  # a number out of its bounds, or not finite
            raise OptionError(codec, operation, name, by_name, problem.removeprefix(f"{name} "))


def build_options(codec: str, operation: str, cls: type[T], given: Mapping[str, Any]) -> T:
    """The options dataclass ``cls`` holding ``given`` (checked as :func:`check_options` does).

    A choice's text becomes its :class:`ChoiceEnum` member: this is the one place options are
    checked and typed, so a codec gets its dataclass with every value valid.

    Raises:
        OptionError: naming the option and listing the accepted ones.
    """
    declared = options_of(typing.cast(type, cls))
    check_options(codec, operation, given, declared)
    by_name = {o.name: o for o in declared}
    return cls(**{by_name[name].attribute: by_name[name].typed(value) for name, value in given.items()})


def parse_pairs(codec: str, operation: str, pairs: Iterable[str], accepted: Iterable[Option]) -> dict[str, Any]:
    """``NAME=VALUE`` texts from the command line → options of the declared types.

    Raises:
        OptionError: A name the codec does not declare, text without ``=``, or a value
            that is not of the option's type.
    """
    by_name = {o.name: o for o in accepted}
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name = name.strip().replace("-", "_")
        opt = by_name.get(name)
        if opt is None:
            raise OptionError(codec, operation, name, by_name)
        if not sep:
            raise OptionError(codec, operation, name, by_name, f"needs a value: {name}={opt.value_name}")
        out[name] = opt.parse(text, codec, operation)
    return out


def rows(name: str, read: Iterable[Option], write: Iterable[Option]) -> list[dict[str, Any]]:
    """One row per option of a codec: what ``formats --options --json`` gives."""
    return [
        {
            "format": name,
            "direction": direction,
            "name": o.name,
            "type": o.type_name,
            "default": o.default,
            "help": o.help,
            "unit": o.unit,
            "choices": list(o.choices),
            "flag": o.flag(direction),
        }
        for direction, declared in (("read", read), ("write", write))
        for o in declared
    ]


def markdown_table(option_rows: Iterable[Mapping[str, Any]]) -> str:
    """The options (rows as :func:`rows` gives them) as a Markdown table for the manual."""

    def cell(text: Any) -> str:
        return str(text).replace("|", "\\|")

    lines = [
        "| Format | Direction | Option | Type | Default | Command line | Description |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in option_rows:
        help_text = r["help"] + (f" ({r['unit']})" if r["unit"] else "")
        lines.append(
            f"| {r['format']} | {r['direction']} | `{r['name']}` | {cell(r['type'])} | `{r['default']!r}` "
            f"| `{cell(r['flag'])}` | {cell(help_text)} |"
        )
    return "\n".join(lines) + "\n"


def runtime_types(hint: Any) -> tuple[type, ...]:
    """The classes ``isinstance`` can check for a type hint (``float`` takes ints too).

    ``Sequence[str] | None`` → ``(Sequence,)``; ``float`` → ``(int, float)``; anything
    it cannot express (``Any``, ``Literal``) → ``(object,)``.
    """
    if hint is Any:
        return (object,)
    if hint is float:
        return NUMBER
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        out: list[type] = []
        for arg in typing.get_args(hint):
            if arg is type(None):
                continue
            for t in runtime_types(arg):
                if t not in out:
                    out.append(t)
        return tuple(out) if out else (object,)
    if origin is not None:
        return (origin,) if isinstance(origin, type) else (object,)
    return (hint,) if isinstance(hint, type) else (object,)


# --------------------------------------------------------------------------- a node's settings
def settings_of(config: type) -> dict[str, Option]:
    """The options of a node's configuration dataclass, by the names users give them, in field order."""
    return {o.name: o for o in options_of(config)}


def make_config(config: type[T], values: Mapping[str, Any]) -> T:
    """The configuration holding ``values`` (by the names users give), each checked by :meth:`Option.problem`.

    Raises:
        ValueError: Unknown names, or values of the wrong type or out of bounds: all of them, in one message.
    """
    settings = settings_of(config)
    unknown = sorted(set(values) - set(settings))
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)}; valid: {', '.join(settings)}")
    problems = [p for name, value in values.items() if (p := settings[name].problem(value)) is not None]
    if problems:
        raise ValueError("; ".join(problems))
    return build_config(config, values)


def build_config(config: type[T], values: Mapping[str, Any]) -> T:
    """The configuration from values already checked (by the names users give)."""
    settings = settings_of(config)
    return config(**{settings[name].attribute: settings[name].typed(value) for name, value in values.items()})


__all__ = [
    "FLAGS",
    "NAMES",
    "NUMBER",
    "PATH",
    "ChoiceEnum",
    "Option",
    "Resample",
    "build_config",
    "build_options",
    "check_options",
    "make_config",
    "markdown_table",
    "option",
    "options_of",
    "parse_pairs",
    "rows",
    "runtime_types",
    "settings_of",
]
