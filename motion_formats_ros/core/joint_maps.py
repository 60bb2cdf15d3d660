"""Joint maps: file columns / PRM locators → joint names (with sign and offset).

A joint map is a small YAML file in ``config/joint_maps/``::

    name: nao_bhuman_22
    format: mof                 # the codec it is for
    robot: NAO
    description: …
    design_labels: [DRX-910]    # optional (.mtn: robots whose files it fits)
    columns:
      - {source: HP, name: HeadPitch, sign: -1, offset: 0}

``source`` is what the file calls the column (a ``.mof`` column label, a ``.mtn`` PRM
locator), ``name`` the joint name in the model. A value ``v`` in the file's convention
becomes ``(v + offset) * sign`` in the standard one (offset in the file's unit).

The files are found in the source tree (``<checkout>/config/joint_maps``, also for an
editable install) and in the installed share folder
(``<prefix>/share/motion_formats_ros/config/joint_maps``, for pip and colcon installs:
the prefix of the installed package, ``sys.prefix`` and every ``AMENT_PREFIX_PATH`` entry).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .errors import MotionFormatError
from .options import option
from .serial.yaml import SafeLoader, YamlError, check_expansion

PACKAGE = "motion_formats_ros"
#: Folder of the joint maps relative to the source checkout or the share folder.
SUBDIR = Path("config") / "joint_maps"
SUFFIX = ".yaml"


class JointMapError(MotionFormatError, ValueError):
    """A joint map is missing or malformed."""


@dataclasses.dataclass(frozen=True)
class JointMapEntry:
    """One column of a joint map."""

    source: str
    name: str
    sign: float = 1.0
    offset: float = 0.0


@dataclasses.dataclass(frozen=True)
class JointMap:
    """Columns (or locators) of a file format → joint names, signs and offsets."""

    name: str
    entries: tuple[JointMapEntry, ...]
    format: str = ""
    robot: str = ""
    description: str = ""
    design_labels: tuple[str, ...] = ()
    path: Path | None = None

    def __post_init__(self) -> None:
        for what, values in (("source", self.sources), ("name", self.names)):
            seen: set[str] = set()
            for v in values:
                if v in seen:
                    raise JointMapError(f"joint map {self.name!r}: duplicate {what} {v!r}")
                seen.add(v)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def names(self) -> tuple[str, ...]:
        """Joint names in column order."""
        return tuple(e.name for e in self.entries)

    @property
    def sources(self) -> tuple[str, ...]:
        """Column labels / locators in column order."""
        return tuple(e.source for e in self.entries)

    @property
    def signs(self) -> np.ndarray:
        return np.array([e.sign for e in self.entries], dtype=np.float64)

    @property
    def offsets(self) -> np.ndarray:
        return np.array([e.offset for e in self.entries], dtype=np.float64)

    def name_for(self, source: str) -> str | None:
        """The joint name of ``source`` (None when the map does not list it)."""
        for e in self.entries:
            if e.source == source:
                return e.name
        return None

    def source_for(self, name: str) -> str | None:
        """The column label / locator of joint ``name`` (None when not listed)."""
        for e in self.entries:
            if e.name == name:
                return e.source
        return None

    def to_standard(self, values: np.ndarray) -> np.ndarray:
        """File-convention values (…, len(self)) → standard convention: (v + offset) · sign."""
        out: np.ndarray = (np.asarray(values, dtype=np.float64) + self.offsets) * self.signs
        return out

    def from_standard(self, values: np.ndarray) -> np.ndarray:
        """Standard-convention values (…, len(self)) → the file's convention."""
        out: np.ndarray = np.asarray(values, dtype=np.float64) * self.signs - self.offsets
        return out


def joint_map_option() -> Any:
    """The ``joint_map`` option of the formats whose columns a joint map names (``.mof``, ``.mtn``)."""
    return option(None, "a joint map: a name from config/joint_maps, a file, or a JointMap", metavar="NAME|FILE")


def _installed_prefix() -> Path | None:
    """The install prefix when this package is installed (…/lib/pythonX.Y/site-packages/pkg)."""
    here = Path(__file__).resolve().parent.parent  # core/ → the package folder
    parents = here.parents
    if len(parents) >= 4 and parents[0].name in ("site-packages", "dist-packages"):
        return parents[3]
    return None


def search_paths(prefixes: Iterable[str | os.PathLike[str]] | None = None) -> list[Path]:
    """Folders searched for joint maps, in order (existing or not).

    Args:
        prefixes: Install prefixes to search (``<prefix>/share/motion_formats_ros/…``);
            by default the installed package's prefix, ``sys.prefix`` and
            ``AMENT_PREFIX_PATH``. The source checkout is always searched first.
    """
    out: list[Path] = [Path(__file__).resolve().parents[2] / SUBDIR]
    if prefixes is None:
        candidates: list[str | os.PathLike[str]] = []
        installed = _installed_prefix()
        if installed is not None:
            candidates.append(installed)
        candidates.append(sys.prefix)
        candidates.extend(p for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p)
        prefixes = candidates
    for prefix in prefixes:
        out.append(Path(prefix) / "share" / PACKAGE / SUBDIR)
    unique: list[Path] = []
    for p in out:
        if p not in unique:
            unique.append(p)
    return unique


def available(paths: Sequence[Path] | None = None) -> dict[str, Path]:
    """Every joint map found (name → file); earlier folders win."""
    found: dict[str, Path] = {}
    for folder in search_paths() if paths is None else paths:
        if not folder.is_dir():
            continue
        for f in sorted(folder.glob("*" + SUFFIX)):
            found.setdefault(f.stem, f)
    return found


def find(name: str, paths: Sequence[Path] | None = None) -> Path:
    """The file of joint map ``name``."""
    maps = available(paths)
    try:
        return maps[name]
    except KeyError:
        folders = ", ".join(str(p) for p in (search_paths() if paths is None else paths))
        known = ", ".join(sorted(maps)) or "none"
        raise JointMapError(f"no joint map {name!r} (known: {known}; searched {folders})") from None


def load(spec: str | os.PathLike[str] | JointMap, paths: Sequence[Path] | None = None) -> JointMap:
    """A joint map by name (``nao_bhuman_22``), by path (``my_map.yaml``), or as given."""
    if isinstance(spec, JointMap):
        return spec
    text = os.fspath(spec)
    path = Path(text)
    if not (text.endswith((".yaml", ".yml")) or os.sep in text or (os.altsep and os.altsep in text)):
        path = find(text, paths)
    try:
        text = path.read_text(encoding="utf-8")
        doc = yaml.load(text, Loader=SafeLoader)  # noqa: S506 (safe loader)
        check_expansion(doc, text)
    except YamlError as exc:
        raise JointMapError(f"{path}:{exc.line}: {exc.reason}") from exc
    except OSError as exc:
        raise JointMapError(f"{path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise JointMapError(f"{path}: invalid YAML: {exc}") from exc
    except (UnicodeDecodeError, TypeError, ValueError) as exc:  # not UTF-8, or ``!!float word``
        raise JointMapError(f"{path}: {exc}") from exc
    return parse(doc, path)


def parse(doc: Any, path: Path | None = None) -> JointMap:
    """A joint map from its decoded YAML document."""
    where = str(path) if path is not None else "<joint map>"
    if not isinstance(doc, Mapping):
        raise JointMapError(f"{where}: expected a mapping with 'name' and 'columns'")
    columns = doc.get("columns")
    if not isinstance(columns, list) or not columns:
        raise JointMapError(f"{where}: 'columns' must be a non-empty list")
    entries = []
    for i, col in enumerate(columns):
        if not isinstance(col, Mapping) or "source" not in col or "name" not in col:
            raise JointMapError(f"{where}: columns[{i}] needs 'source' and 'name'")
        sign = col.get("sign", 1)
        offset = col.get("offset", 0)
        if sign not in (1, -1) or isinstance(sign, bool):
            raise JointMapError(f"{where}: columns[{i}].sign must be 1 or -1, got {sign!r}")
        if isinstance(offset, bool) or not isinstance(offset, (int, float)):
            raise JointMapError(f"{where}: columns[{i}].offset must be a number, got {offset!r}")
        entries.append(JointMapEntry(str(col["source"]), str(col["name"]), float(sign), float(offset)))
    labels = doc.get("design_labels") or ()
    name = doc.get("name") or (path.stem if path is not None else "")
    return JointMap(
        name=str(name),
        entries=tuple(entries),
        format=str(doc.get("format", "")),
        robot=str(doc.get("robot", "")),
        description=str(doc.get("description", "")),
        design_labels=tuple(str(x) for x in labels),
        path=path,
    )


def for_format(fmt: str, paths: Sequence[Path] | None = None) -> list[JointMap]:
    """Every available joint map for codec ``fmt``."""
    out = []
    for f in available(paths).values():
        m = load(f)
        if m.format == fmt:
            out.append(m)
    return out
