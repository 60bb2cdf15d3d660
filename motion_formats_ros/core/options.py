"""Options a codec accepts: each declared once with its types and default, checked on every call.

A codec module declares ``READ_OPTIONS`` and ``WRITE_OPTIONS`` (tuples of :class:`Option`);
the registry checks what callers pass against them (:func:`check_options`), so that an
option a format does not know, or a value of the wrong type, is refused with an
:class:`~motion_formats_ros.core.errors.OptionError` that lists the accepted ones instead
of being silently ignored.
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import OptionError

#: Types of an option that takes a file name.
PATH = (str, os.PathLike)
#: Types of an option that takes a list of names (also ``"a,b,c"``).
NAMES = (str, list, tuple)
#: Types of a number option.
NUMBER = (int, float)


@dataclasses.dataclass(frozen=True)
class Option:
    """One keyword option of a codec's ``read`` or ``write``.

    Attributes:
        name: The keyword.
        types: Accepted value types (``None`` is accepted when the default is None);
            ``(object,)`` for anything the codec interprets itself.
        default: The value used when the option is not given.
        help: One line for ``motion-formats formats``.
        nullable: Whether None is accepted although the default is not None.
    """

    name: str
    types: tuple[type, ...]
    default: Any = None
    help: str = ""
    nullable: bool = False

    @property
    def type_name(self) -> str:
        """The types as text (``str | PathLike | None``)."""
        names = [t.__name__ for t in self.types]
        if (self.default is None or self.nullable) and object not in self.types:
            names.append("None")
        return " | ".join(names)

    def accepts(self, value: Any) -> bool:
        if value is None:
            return self.default is None or self.nullable or object in self.types
        if isinstance(value, bool) and bool not in self.types and object not in self.types:
            return False  # True is an int to isinstance, but never a number option
        return isinstance(value, self.types)


def check_options(codec: str, operation: str, given: Mapping[str, Any], accepted: Sequence[Option]) -> None:
    """Refuse an option not in ``accepted`` or a value of the wrong type.

    Raises:
        OptionError: naming the option and listing the accepted ones.
    """
    by_name = {o.name: o for o in accepted}
    for name, value in given.items():
        option = by_name.get(name)
        if option is None:
            raise OptionError(codec, operation, name, by_name)
        if not option.accepts(value):
            raise OptionError(
                codec, operation, name, by_name, f"expects {option.type_name}, got {type(value).__name__} {value!r}"
            )


def dataclass_options(cls: type, help: Mapping[str, str] | None = None) -> tuple[Option, ...]:
    """Options from the fields of an options dataclass: names, types and defaults from the fields."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else None
        hint = hints[f.name]
        nullable = type(None) in typing.get_args(hint)
        out.append(Option(f.name, runtime_types(hint), default, (help or {}).get(f.name, ""), nullable))
    return tuple(out)


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


__all__ = ["NAMES", "NUMBER", "PATH", "Option", "check_options", "dataclass_options", "runtime_types"]
