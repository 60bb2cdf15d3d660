"""Which link pairs a Choreonoid ``.body`` file says not to collide, as Choreonoid reads its rules.

A ``.body`` file may say which of its links collide, in one of two spellings:

- ``collision_detection_rules``: a list of one-key mappings applied in order:
  ``disabled_link_chain_level: N`` (pairs of links at most N joints apart along the tree
  are not checked against each other; the walk does not cross a free joint),
  ``disabled_links: [A, …]`` or ``all`` (those links collide with nothing, themselves
  included), ``enabled_links: [A, …]`` (undoes ``disabled_links`` and every left-out pair
  of those links), ``disabled_link_group: [A, B, …]`` (no pair within the group) and
  ``enabled_link_group: [A, B, …]`` (every pair within the group checked again);
- the older ``collisionDetection: {excludeTreeDepth: N, excludeLinks: […],
  excludeLinkGroups: [{links: […]}, …]}`` (tree depth 1 when not given).

Without either, Choreonoid leaves out the pairs of adjacent links; the package's own
rule (``check``'s: adjacent bodies and pairs touching in the zero pose) applies then.
Names of links the model lacks are ignored, as Choreonoid ignores them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ReadError

#: The rule names of ``collision_detection_rules`` (``enabled_link_group`` included).
RULES = ("disabled_link_chain_level", "disabled_links", "enabled_links", "disabled_link_group", "enabled_link_group")


@dataclasses.dataclass(frozen=True)
class CollisionRules:
    """The collision rules of a ``.body`` file, in file order: (rule, value) pairs, where the
    value is an int (chain level), a tuple of link names, or ``"all"``."""

    rules: tuple[tuple[str, int | str | tuple[str, ...]], ...]
    #: How the file spelt them (``collision_detection_rules`` or ``collisionDetection``), for messages.
    spelling: str = "collision_detection_rules"


@dataclasses.dataclass(frozen=True)
class CollisionFilter:
    """What the rules leave out: link pairs (unordered) and links that collide with nothing."""

    pairs: frozenset[frozenset[str]]
    links: frozenset[str]

    def keeps(self, a: str, b: str) -> bool:
        """Whether the pair of links ``a``, ``b`` is checked."""
        return a not in self.links and b not in self.links and frozenset((a, b)) not in self.pairs


def _names(value: Any, source: str | os.PathLike[str], field: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise ReadError(source, f"expected a list of link names, got {value!r}", field=field)
    return tuple(value)


def _level(value: Any, source: str | os.PathLike[str], field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ReadError(source, f"expected a chain level (a whole number >= 0), got {value!r}", field=field)
    return value


def read_collision_rules(doc: Mapping[str, Any], source: str | os.PathLike[str]) -> CollisionRules | None:
    """The collision rules a loaded ``.body`` document states, or None.

    Raises:
        ReadError: A rule whose value is not of its kind (naming the field).
    """
    listed = doc.get("collision_detection_rules", doc.get("collisionDetectionRules"))
    if listed is not None:
        if not isinstance(listed, Sequence) or isinstance(listed, str):
            raise ReadError(source, "expected a list of rules", field="collision_detection_rules")
        rules: list[tuple[str, int | str | tuple[str, ...]]] = []
        for i, node in enumerate(listed):
            field = f"collision_detection_rules[{i}]"
            if not isinstance(node, Mapping):
                raise ReadError(
                    source, f"expected a mapping such as {{disabled_link_chain_level: 1}}, got {node!r}", field=field
                )
            for rule, value in node.items():
                if rule == "disabled_link_chain_level":
                    rules.append((rule, _level(value, source, f"{field}.{rule}")))
                elif rule == "disabled_links" and value == "all":
                    rules.append((rule, "all"))
                elif rule in RULES:
                    rules.append((str(rule), _names(value, source, f"{field}.{rule}")))
                # other keys: Choreonoid passes over them too
        return CollisionRules(tuple(rules))
    old = doc.get("collisionDetection")
    if old is None:
        return None
    if not isinstance(old, Mapping):
        raise ReadError(source, "expected a mapping", field="collisionDetection")
    rules = [
        (
            "disabled_link_chain_level",
            _level(old.get("excludeTreeDepth", 1), source, "collisionDetection.excludeTreeDepth"),
        )
    ]
    if old.get("excludeLinks") is not None:
        rules.append(("excluded_links", _names(old["excludeLinks"], source, "collisionDetection.excludeLinks")))
    groups = old.get("excludeLinkGroups") or ()
    if not isinstance(groups, Sequence) or isinstance(groups, str):
        raise ReadError(source, "expected a list of {links: [...]}", field="collisionDetection.excludeLinkGroups")
    for i, group in enumerate(groups):
        field = f"collisionDetection.excludeLinkGroups[{i}].links"
        links = group.get("links") if isinstance(group, Mapping) else None
        rules.append(("disabled_link_group", _names(links, source, field)))
    return CollisionRules(tuple(rules), "collisionDetection")


def _within(start: str, level: int, neighbours: Mapping[str, list[tuple[str, bool]]]) -> set[str]:
    """Links at most ``level`` steps from ``start`` along the tree, never through a free joint."""
    seen = {start}
    frontier = [start]
    for _ in range(level):
        nxt = []
        for link in frontier:
            for other, free in neighbours.get(link, ()):
                if not free and other not in seen:
                    seen.add(other)
                    nxt.append(other)
        frontier = nxt
    seen.discard(start)
    return seen


def collision_filter(
    rules: CollisionRules, links: Sequence[str], joints: Sequence[tuple[str, str, str]]
) -> CollisionFilter:
    """The pairs and links the rules leave out.

    Args:
        links: The model's link names.
        joints: (parent, child, type) of every joint.
    """
    neighbours: dict[str, list[tuple[str, bool]]] = {}
    for parent, child, kind in joints:
        free = kind == "floating"
        neighbours.setdefault(parent, []).append((child, free))
        neighbours.setdefault(child, []).append((parent, free))
    known = set(links)
    pairs: set[frozenset[str]] = set()
    off: set[str] = set()
    for rule, value in rules.rules:
        if rule == "disabled_link_chain_level":
            assert isinstance(value, int)
            for link in links:
                pairs.update(frozenset((link, other)) for other in _within(link, value, neighbours))
            continue
        listed: Sequence[str] = links if isinstance(value, (str, int)) else value  # "all", or the names
        names = [n for n in listed if n in known]
        if rule in ("disabled_links", "excluded_links"):
            off.update(names)
            if rule == "disabled_links":
                pairs.update(frozenset((n, other)) for n in names for other in links if other != n)
        elif rule == "enabled_links":
            off.difference_update(names)
            pairs = {p for p in pairs if not p & set(names)}
        elif rule == "disabled_link_group":
            pairs.update(frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1 :])
        elif rule == "enabled_link_group":
            off.difference_update(names)
            pairs.difference_update(frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1 :])
    return CollisionFilter(frozenset(pairs), frozenset(off))


__all__ = ["CollisionFilter", "CollisionRules", "collision_filter", "read_collision_rules"]
