"""Joint and link names for formats whose files carry none (Choreonoid ``.seq`` / ``.pseq``).

By precedence: names given by the user (a list or ``"a,b,c"``), a joint map (joint ID →
name, as data or a YAML file), a Choreonoid ``.body`` file (joints by ``jointId``, links
in link-index order), else none (the codec numbers them ``joint_0 …``).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import yaml

from .errors import OutOfRangeError, ReadError, excerpt, number, spelled
from .inputs import TEXT_PROBE, read_input, text_check
from .notices import NoticeKind, notify
from .options import option
from .serial.nesting import long_integer
from .serial.yaml import SafeLoader, YamlError, check_expansion, error_line


@dataclasses.dataclass(frozen=True)
class NamingOptions:
    """The read options of formats whose files carry no names (``.seq``, ``.pseq``)."""

    joint_names: str | list[str] | tuple[str, ...] | None = option(
        None, "joint names in joint-ID order (a list or 'a,b,c')", metavar="A,B,C"
    )
    joint_map: str | os.PathLike[str] | Mapping[Any, Any] | list[str] | tuple[str, ...] | None = option(
        None, "joint ID -> name: a YAML file or data", metavar="FILE"
    )
    body: str | os.PathLike[str] | None = option(
        None, "a Choreonoid .body file for joint and link names", metavar="FILE"
    )


class Names:
    """Joint and link names from the user or a body file (None: not given)."""

    def __init__(
        self,
        joints: list[str] | None = None,
        links: list[str] | None = None,
        robot: str = "",
        source: str = "",
        explicit: bool = False,
    ) -> None:
        self.joints = joints
        self.links = links
        self.robot = robot
        self.source = source
        self.explicit = explicit


def resolve_names(path: str | os.PathLike[str], options: NamingOptions) -> Names:
    """Names by precedence: explicit list / map > body file > none (``joint_0 …``).

    A body file given beside a list or map still gives the robot and its links; when its
    joint names differ from the ones used, an ``inconsistent`` notice says which were used.

    Raises:
        OutOfRangeError: A name of the list is empty (``"a,,c"``), naming its position.
    """
    joint_names, joint_map = options.joint_names, options.joint_map
    body_names = load_body(options.body) if options.body is not None else None
    links = body_names.links if body_names else None
    robot = body_names.robot if body_names else ""
    if joint_names is not None:
        names = _name_list(joint_names)
        _note_unused(path, spelled("joint_names", "="), names, body_names, joint_map is not None)
        return Names(names, links, robot, "joint_names", True)
    if joint_map is not None:
        names = load_joint_map(joint_map)
        _note_unused(path, spelled("joint_map", "="), names, body_names, False)
        return Names(names, links, robot, "joint_map", True)
    return body_names or Names()


def _name_list(joint_names: str | Sequence[Any]) -> list[str]:
    """``"a,b,c"`` or a list → the names; an empty one (blank: ``" "`` too) is refused, by its
    position. Only ``""`` itself is no names at all."""
    if isinstance(joint_names, str):
        names = [s.strip() for s in joint_names.split(",")]
    else:
        names = [str(s).strip() for s in joint_names]
    empty = [i for i, name in enumerate(names, 1) if not name]
    if empty and joint_names != "":
        shown = joint_names if isinstance(joint_names, str) else ",".join(map(str, joint_names))
        raise OutOfRangeError(
            f"joint names {excerpt(shown)}: name {empty[0]} of {len(names)} is empty; every joint needs a name"
        )
    return [name for name in names if name]


def _note_unused(
    path: str | os.PathLike[str], used: str, names: list[str], body: Names | None, joint_map: bool
) -> None:
    """Say which of the names given were not used: a joint map beside a list, a body file's joints that differ.

    ``used`` is the option that named the joints, as the caller spells it."""
    unused = [spelled("joint_map", "=")] if joint_map else []
    if body is not None and body.joints is not None and body.joints != names:
        unused.append(f"the {body.source}'s joint names, which differ (it gives the robot and its links only)")
    if unused:
        notify(
            NoticeKind.INCONSISTENT,
            f"the joints are named by {used}; not used: {'; '.join(unused)}",
            file=path,
            stacklevel=3,
        )


#: YAML 1.2's core-schema integers and floats. YAML 1.1 (PyYAML's resolver) also reads
#: ``1_000`` as 1000, ``1:30`` as 90 and ``010`` as 8; YAML 1.2 (ROS, Choreonoid) reads the
#: first two as strings and the last as 10.
YAML12_INT = re.compile(r"^(?:[-+]?[0-9]+|0x[0-9a-fA-F]+)$")
YAML12_FLOAT = re.compile(
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


class Located(dict[Any, Any]):
    """A mapping that knows the 1-based line of each key's value (:attr:`lines`)."""

    lines: dict[Any, int]


def line_of(mapping: Any, key: Any) -> int | None:
    """The 1-based line of ``key``'s value in a mapping read by :class:`Yaml12Loader` (None: unknown)."""
    lines: dict[Any, int] = getattr(mapping, "lines", None) or {}
    return lines.get(key)


class Yaml12Loader(SafeLoader):  # type: ignore[misc]
    """PyYAML's safe loader that reads as ROS and Choreonoid do (YAML 1.2): ``5e1`` is 50.0,
    ``1_000`` is a string, a key given twice in one mapping is an error; mappings are
    :class:`Located`, so that errors can name the line."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # ``<<`` merges are meant to be overridden
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, Hashable):
                if key in seen:
                    raise YamlError(key_node.start_mark.line + 1, f"duplicate key {key!r}")
                seen.add(key)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        return int(text, 16) if text.startswith("0x") else int(text, 10)


def _located_mapping(loader: Any, node: yaml.MappingNode) -> Any:
    data = Located()
    data.lines = {}
    yield data
    data.update(loader.construct_mapping(node))  # merges ``<<`` keys into node.value first
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node)  # already built: the loader keeps it
        if isinstance(key, Hashable):
            data.lines.setdefault(key, value_node.start_mark.line + 1)


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in _NUMBER_TAGS]
    for first, resolvers in getattr(SafeLoader, "yaml_implicit_resolvers", {}).items()
}
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:int", YAML12_INT, list("-+0123456789"))
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:float", YAML12_FLOAT, list("-+0123456789."))
Yaml12Loader.add_constructor("tag:yaml.org,2002:int", Yaml12Loader.construct_yaml_int)
Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _located_mapping)


def load_safe(path: str | os.PathLike[str], what: str, loader: type = SafeLoader) -> Any:
    """The YAML document of the file ``path`` (the ``what`` of the error messages), read by
    ``loader`` (PyYAML's safe loader, or one made from it)."""
    data = read_input(path, what=what, head=(TEXT_PROBE, text_check(path, what)))
    try:
        text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise ReadError(path, f"cannot read the {what}: {exc}") from None
    return parse_safe(text, path, what, loader)


def parse_safe(text: str, path: str | os.PathLike[str], what: str, loader: type = SafeLoader) -> Any:
    """The YAML document ``text`` of ``path``: safe loader, expansion limit, one-line errors."""
    try:
        doc = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader or one made from it
        check_expansion(doc, text)
        return doc
    except YamlError as exc:
        raise ReadError(path, f"{exc.reason} in the {what}", line=exc.line) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc)
        raise ReadError(path, f"invalid YAML in the {what}: {problem}", line=error_line(exc, text)) from None
    except (ValueError, TypeError, OverflowError) as exc:  # a constructor's own error (``!!float word``)
        if "integer string conversion" in str(exc):  # an int of more digits than Python converts
            line, reason = long_integer(text)
            raise ReadError(path, f"{reason} in the {what}", line=line) from None
        raise ReadError(path, f"invalid value in the {what}: {exc}") from None


def load_joint_map(source: str | os.PathLike[str] | Mapping[Any, Any] | Sequence[str]) -> list[str]:
    """Joint names in joint-ID order from a joint map.

    A map is a list of names, a mapping joint ID → name, or a mapping with a
    ``joint_names`` / ``joints`` entry holding either; given as data or a YAML file.
    """
    where = source if isinstance(source, (str, os.PathLike)) else "<joint map>"
    data: Any = load_safe(source, "joint map") if isinstance(source, (str, os.PathLike)) else source
    if isinstance(data, Mapping):
        for key in ("joint_names", "joints", "columns"):
            if key in data:
                data = data[key]
                break
    if isinstance(data, list) and data and all(isinstance(v, Mapping) and "name" in v for v in data):
        # The project's joint-map files: columns of {source, name}; source = joint ID here.
        sources = [v.get("source") for v in data]
        if all(isinstance(s, int) or (isinstance(s, str) and s.isdigit()) for s in sources):
            data = {int(s): v["name"] for s, v in zip(sources, data, strict=True)}
        else:
            data = [str(v["name"]) for v in data]
    if isinstance(data, Mapping):
        try:
            ids = {int(k): str(v) for k, v in data.items()}
        except (TypeError, ValueError):
            raise ReadError(where, "a joint map must map joint IDs (integers) to names") from None
        if not ids or min(ids) < 0:
            raise ReadError(where, "joint IDs must be non-negative integers")
        return [ids.get(i, f"joint_{i}") for i in range(max(ids) + 1)]
    if isinstance(data, Sequence) and not isinstance(data, str) and all(isinstance(v, str) for v in data):
        return list(data)
    raise ReadError(where, "a joint map must be a list of names or a mapping joint ID → name")


def note_unnamed(path: str | os.PathLike[str], count: int, *, stacklevel: int) -> None:
    """Say that a file's joints are known only by column (``joint_0 …``) and how to name them."""
    if count == 0:
        return
    notify(
        NoticeKind.READ_CHOICE,
        f"the file does not name its {count} joints: they are joint_0 … joint_{count - 1} by column; "
        f"give the robot's .body file ({spelled('body', '=FILE')}) or "
        f"{spelled('joint_names', '=[...]')} to name them",
        file=path,
        stacklevel=stacklevel + 1,
    )


#: The largest joint ID a ``.body`` may give (the largest robots number theirs below 100).
MAX_JOINT_ID = 9999


def load_body(path: str | os.PathLike[str]) -> Names:
    """Joint names (by ``jointId`` / ``joint_id``) and links (link-index order) of a ``.body`` file."""
    doc = load_safe(path, "body file")
    if not isinstance(doc, Mapping) or not isinstance(doc.get("links"), list):
        raise ReadError(path, "not a Choreonoid body file (a YAML mapping with a 'links' list)")
    links = [link for link in doc["links"] if isinstance(link, Mapping) and isinstance(link.get("name"), str)]
    ids: dict[int, str] = {}
    for link in links:
        jid = link.get("jointId", link.get("joint_id"))
        if isinstance(jid, int) and not isinstance(jid, bool) and jid >= 0:
            if jid > MAX_JOINT_ID:  # every ID up to the largest is a joint (a column of the motion)
                raise ReadError(
                    path,
                    f"link {link['name']!r}: jointId {number(jid)} is beyond {MAX_JOINT_ID} (joints are numbered "
                    "from 0, one per ID up to the largest)",
                )
            if jid in ids:
                raise ReadError(path, f"joint ID {jid} used by {ids[jid]!r} and {link['name']!r}")
            ids[jid] = link["name"]
    joints = [ids.get(i, f"joint_{i}") for i in range(max(ids) + 1)] if ids else []
    # Link-index order: depth first from the root, children in file order.
    names = [link["name"] for link in links]
    children: dict[str, list[str]] = {}
    for link in links:
        parent = link.get("parent")
        if isinstance(parent, str):
            children.setdefault(parent, []).append(link["name"])
    root = doc.get("rootLink") or doc.get("root_link")
    if root not in names:
        root = next((link["name"] for link in links if not isinstance(link.get("parent"), str)), None)
    order: list[str] = []
    stack = [root] if root is not None else []
    while stack:
        name = stack.pop()
        if name in order:
            continue
        order.append(name)
        stack.extend(reversed(children.get(name, [])))
    order.extend(n for n in names if n not in order)
    robot = doc.get("name")
    return Names(joints, order, str(robot) if robot is not None else "", f"body file {os.fspath(path)}")


__all__ = [
    "Names",
    "NamingOptions",
    "load_body",
    "load_joint_map",
    "load_safe",
    "note_unnamed",
    "parse_safe",
    "resolve_names",
]
