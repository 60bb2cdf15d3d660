"""Problems found in a scene, JSON paths, and the error that reports them all at once."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterable, Sequence

from ...core.errors import ReadError

_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")

PathPart = str | int


def json_path(parts: Sequence[PathPart]) -> str:
    """``("objects", "robot1", "pose", "xyz", 2)`` → ``objects.robot1.pose.xyz[2]``.

    Keys that are not identifiers are quoted: ``collisionIgnoreGroups["7"]``.
    """
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.match(part):
            out += ("." if out else "") + part
        else:
            escaped = part.replace("\\", "\\\\").replace('"', '\\"')
            out += f'["{escaped}"]'
    return out or "(top level)"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One thing wrong (or suspicious) in a scene.

    Attributes:
        path: JSON path in the (reference-resolved) top scene, e.g. ``objects.robot1.pose``.
        message: What is wrong and what was expected.
        severity: ``"error"`` or ``"warning"``.
        origin: Where the value came from when it was included by a ``uri`` reference.
    """

    path: str
    message: str
    severity: str = "error"
    origin: str = ""

    def __str__(self) -> str:
        where = self.path + (f" (from {self.origin})" if self.origin else "")
        prefix = "" if self.severity == "error" else "warning: "
        return f"{where}: {prefix}{self.message}"


class Problems:
    """Collects every problem instead of stopping at the first one."""

    def __init__(self, origins: dict[tuple[PathPart, ...], str] | None = None) -> None:
        self.items: list[Problem] = []
        self.origins = origins or {}

    def _origin(self, parts: Sequence[PathPart]) -> str:
        for n in range(len(parts), -1, -1):
            origin = self.origins.get(tuple(parts[:n]))
            if origin:
                return origin
        return ""

    def error(self, parts: Sequence[PathPart], message: str) -> None:
        """Record an error at ``parts``."""
        self.items.append(Problem(json_path(parts), message, "error", self._origin(parts)))

    def warning(self, parts: Sequence[PathPart], message: str) -> None:
        """Record a warning at ``parts``."""
        self.items.append(Problem(json_path(parts), message, "warning", self._origin(parts)))

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.items if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.items if p.severity == "warning"]


class SceneError(ReadError):
    """A scene is invalid; ``problems`` lists every error (and warning) found.

    ``field`` is the JSON path of the first error; the message lists all of them.
    """

    def __init__(self, path: str | os.PathLike[str] | None, problems: Iterable[Problem]) -> None:
        self.problems = list(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        if len(errors) == 1:
            first = errors[0]
            reason = first.message + (f" (from {first.origin})" if first.origin else "")
            super().__init__(path, reason, field=first.path)
        else:
            lines = [f"{len(errors)} problems:"] + [f"  {p}" for p in errors]
            super().__init__(path, "\n".join(lines), field=errors[0].path if errors else None)

    @property
    def paths(self) -> list[str]:
        """JSON paths of every error."""
        return [p.path for p in self.problems if p.severity == "error"]

    def _format(self) -> str:
        if len(self.paths) > 1:
            return f"{self.path}: {self.reason}"
        return super()._format()
