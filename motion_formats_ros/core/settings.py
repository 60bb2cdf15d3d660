"""Settings of a program part declared once, as the typed fields of a frozen dataclass.

A configuration (the player's, the recorder's) is a frozen dataclass whose fields are
made with :func:`setting`: the field's type and default are the setting's, and the
field carries its one-line help and what values are valid. Whatever offers the settings
to users (ROS parameters, launch arguments) reads them with :func:`settings_of`, checks
values with :meth:`Setting.problem` and builds the configuration with
:func:`make_config`, so that a setting is written in one place only.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

#: Value types a setting may have (a tuple holds names).
SettingValue = bool | int | float | str | tuple[str, ...]

_META = "setting"


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting: its type, default, help and the values it accepts.

    Attributes:
        name: The name users give it by (a parameter's): the field's, unless the field
            declares another one (``PlayerConfig.speed`` is the player's ``rate``).
        kind: ``bool``, ``int``, ``float``, ``str`` or ``tuple`` (a list of names);
            ``object`` for a setting that takes a number or a text (``dynamic``).
        default: The value when none is given.
        help: What it does, one line.
        choices: The allowed values, if only some are.
        minimum: Smallest allowed number (inclusive), if any.
        above: Numbers must be greater than this, if given.
        runtime: May change while the program runs; otherwise only at start.
        nonempty: A text or list that, when given, must not be empty.
    """

    name: str
    kind: type
    default: Any
    help: str
    choices: tuple[Any, ...] = ()
    minimum: float | None = None
    above: float | None = None
    runtime: bool = False
    nonempty: bool = False
    field: str = ""

    @property
    def attribute(self) -> str:
        """The dataclass field that holds the value."""
        return self.field or self.name

    @property
    def dynamic(self) -> bool:
        """True when both numbers and text are accepted."""
        return self.kind is object

    @property
    def type_name(self) -> str:
        """The type as users read it (``float``, ``list of names``, ``number or text``)."""
        if self.kind is tuple:
            return "list of names"
        return "number or text" if self.dynamic else self.kind.__name__

    def coerce(self, value: Any) -> Any:
        """``value`` as this setting's type (an int where a float goes), or raise ValueError naming it."""
        kind = self.kind
        if kind is object:
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                return value
        elif kind is bool:
            if isinstance(value, bool):
                return value
        elif kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        elif kind is float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
        elif kind is str:
            if isinstance(value, str):
                return value
        elif kind is tuple and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(v for v in value if v)
        raise ValueError(f"{self.name} must be a {self.type_name}, got {value!r}")

    def problem(self, value: Any, given: bool = False) -> str | None:
        """Why ``value`` (of this setting's type) is not valid, or None; ``given``: set by the user."""
        name = self.name
        if self.choices and value not in self.choices:
            return f"{name} must be one of {', '.join(str(c) for c in self.choices)}, got {value!r}"
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not math.isfinite(value):
                return f"{name} must be a finite number, got {value}"
            if self.minimum is not None and value < self.minimum:
                return f"{name} must be at least {self.minimum:g}, got {value:g}"
            if self.above is not None and not value > self.above:
                return f"{name} must be greater than {self.above:g}, got {value:g}"
        if given and self.nonempty and not value:
            return f"{name} is empty: give a value or leave the setting out"
        return None


def setting(
    default: Any,
    help: str,
    *,
    choices: tuple[Any, ...] = (),
    minimum: float | None = None,
    above: float | None = None,
    runtime: bool = False,
    nonempty: bool = False,
    name: str = "",
) -> Any:
    """A dataclass field declaring a setting (its type is the field's annotation).

    ``name`` is the name users give it by when that differs from the field's.
    """
    meta = {"help": help, "choices": choices, "minimum": minimum, "above": above, "runtime": runtime}
    meta["nonempty"] = nonempty
    meta["name"] = name
    return dataclasses.field(default=default, metadata={_META: meta})


def _kind(annotation: Any) -> type:
    origin = typing.get_origin(annotation)
    if origin is tuple:
        return tuple
    if origin in (typing.Union, types.UnionType):
        return object
    if annotation in (bool, int, float, str):
        return typing.cast(type, annotation)
    raise TypeError(f"unsupported setting type {annotation!r}")


C = TypeVar("C")


def settings_of(config: type) -> dict[str, Setting]:
    """The settings a configuration dataclass declares, by the names users give, in field order."""
    hints = typing.get_type_hints(config)
    out = {}
    for field in dataclasses.fields(config):
        meta = dict(field.metadata.get(_META) or {})
        if not meta:
            continue
        name = meta.pop("name") or field.name
        out[name] = Setting(name, _kind(hints[field.name]), field.default, **meta, field=field.name)
    return out


def build_config(config: type[C], values: Mapping[str, Any]) -> C:
    """The configuration from values already checked, by the names users give."""
    settings = settings_of(config)
    return config(**{settings[name].attribute: value for name, value in values.items()})


def make_config(config: type[C], values: Mapping[str, Any]) -> C:
    """The configuration from the settings' values (coerced to their types; unknown names refused).

    Raises:
        ValueError: A value of the wrong type, an invalid one, or an unknown name (all named).
    """
    settings = settings_of(config)
    unknown = sorted(set(values) - set(settings))
    if unknown:
        raise ValueError(f"unknown setting(s) {', '.join(unknown)}; valid: {', '.join(settings)}")
    typed = {}
    problems = []
    for name, value in values.items():
        spec = settings[name]
        try:
            typed[name] = spec.coerce(value)
        except ValueError as exc:
            problems.append(str(exc))
            continue
        problem = spec.problem(typed[name])
        if problem:
            problems.append(problem)
    if problems:
        raise ValueError("; ".join(problems))
    return build_config(config, typed)
