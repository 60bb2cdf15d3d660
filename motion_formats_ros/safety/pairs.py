"""Which link pairs are checked for self-collision.

Links joined by fixed joints form one rigid body; its links never move against each
other, so their pairs are never checked (pinocchio does the same). Of the other pairs:

- pairs of adjacent bodies (one movable joint between them, fixed joints looked across)
  are always left out: their shapes meet at the joint, and how far they turn is the joint
  limits' matter (MoveIt Setup Assistant disables each such pair with ``reason="Adjacent"``);
- with an SRDF, every pair its ``<disable_collisions link1=… link2=…/>`` lists is left
  out as well, as MoveIt does (whatever the ``reason``);
- without one, pairs already in contact in the model's zero pose are left out too.

The report says which. An SRDF that names links the model lacks, or another robot's name, is
for another robot (or another version of it), and one that names no robot cannot be matched
to the model: a warning (``--strict`` fails on it), as MoveIt reports an SRDF whose robot is
not the URDF's or is not named.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from pathlib import Path
from typing import NamedTuple

from ..core.errors import ReadError, listed
from ..core.inputs import TEXT_PROBE, interruptible, read_input, text_check
from ..core.kinematics import RobotModel
from ..core.kinematics.urdf import parse_xml
from ..core.notices import NoticeKind, notify


class SrdfPairs(NamedTuple):
    """What an SRDF says of self-collision: the link pairs it disables, the link names it uses
    that the model lacks, and the robot it names."""

    pairs: frozenset[frozenset[str]]
    unknown: tuple[str, ...]
    robot: str


def read_srdf(path: str | os.PathLike[str], model: RobotModel) -> SrdfPairs:
    """The link pairs an SRDF disables, and the link names it uses that the model lacks.

    The file is read as every input is (:func:`~motion_formats_ros.core.inputs.read_input`):
    a device, a FIFO or a folder is refused unread. Links the model lacks are warned about
    (naming the SRDF's robot when it is another): its pairs of them are ignored.

    Raises:
        ReadError: The file cannot be read or is not an SRDF (naming its line).
    """
    with interruptible():  # SIGTERM ends even a parse in native code
        data = read_input(path, what="SRDF", head=(TEXT_PROBE, text_check(path, "SRDF")))
        root = parse_xml(data, path, "SRDF")
    if root.tag != "robot":
        raise ReadError(path, f"not an SRDF: the root element is <{root.tag}>, expected <robot>", line=root.line)
    known = set(model.link_names)
    pairs: set[frozenset[str]] = set()
    unknown: list[str] = []
    for el in root.findall("disable_collisions"):
        a, b = el.attrib.get("link1"), el.attrib.get("link2")
        if not a or not b:
            raise ReadError(path, "<disable_collisions> needs link1 and link2", line=el.line)
        for name in (a, b):
            if name not in known and name not in unknown:
                unknown.append(name)
        pairs.add(frozenset((a, b)))
    robot = root.attrib.get("name", "").strip()
    # MoveIt (srdfdom) needs the SRDF's robot name and complains when it is missing or is not
    # the URDF's: an SRDF without one cannot be matched to the model, so it is warned about as
    # one of another robot's is (once), and its pairs of links the model has are still used.
    other = bool(robot) and robot != model.name
    if unknown:
        said = f" (it is the SRDF of {robot!r})" if other else "" if robot else " (it names no robot)"
        notify(
            NoticeKind.INCONSISTENT,
            f"the SRDF names {len(unknown)} link(s) the model {model.name!r} lacks{said}; its pairs of them are "
            f"ignored: {listed(unknown)}",
            file=os.fspath(path),
            stacklevel=2,
        )
    elif other or not robot:
        why = (
            f"the SRDF is for the robot {robot!r}, the model is {model.name!r}"
            if other
            else "the SRDF names no robot (its <robot> has no name), so it cannot be matched to the model "
            f"{model.name!r}"
        )
        notify(
            NoticeKind.INCONSISTENT,
            f"{why}: its {len(pairs)} disabled pair(s) name links the model has, and are left out as given",
            file=os.fspath(path),
            stacklevel=2,
        )
    return SrdfPairs(frozenset(pairs), tuple(unknown), robot)


def rigid_bodies(model: RobotModel) -> dict[str, int]:
    """Link → the index of its rigid body (links joined by fixed joints share one)."""
    body: dict[str, int] = {model.links[0].name: 0}
    count = 1
    for j in model.joints:  # parent before child
        if j.type == "fixed":
            body[j.child] = body[j.parent]
        else:
            body[j.child] = count
            count += 1
    return body


def adjacent_bodies(model: RobotModel, body: dict[str, int]) -> set[frozenset[int]]:
    """Pairs of rigid bodies joined by one movable joint."""
    return {frozenset((body[j.parent], body[j.child])) for j in model.joints if j.type != "fixed"}


@dataclasses.dataclass(frozen=True)
class PairChoice:
    """The pairs to check, and how they were chosen (for the report)."""

    pairs: tuple[tuple[str, str], ...]
    notes: tuple[str, ...]


def candidate_pairs(model: RobotModel, links_with_shapes: list[str]) -> list[tuple[str, str]]:
    """Pairs of links with shapes on different rigid bodies, in model order."""
    body = rigid_bodies(model)
    return [(a, b) for a, b in itertools.combinations(links_with_shapes, 2) if body[a] != body[b]]


def choose_pairs(
    model: RobotModel,
    links_with_shapes: list[str],
    srdf: str | os.PathLike[str] | None,
    touching_at_zero: set[frozenset[str]],
) -> PairChoice:
    """The link pairs to check: SRDF-disabled pairs left out; without one, the pairs a ``.body``'s own
    collision rules leave out (as Choreonoid reads them); else adjacency and zero-pose contact."""
    pairs = candidate_pairs(model, links_with_shapes)
    notes: list[str] = []
    rules = model.collision_filter() if srdf is None else None
    if rules is not None:
        assert model.collision_rules is not None
        left = [p for p in pairs if not rules.keeps(*p)]
        kept = [p for p in pairs if rules.keeps(*p)]
        text = f"{len(kept)} link pairs checked: {len(left)} left out by the model's {model.collision_rules.spelling}"
        if left:
            text += f" ({', '.join(f'{a}/{b}' for a, b in left[:8])}{' …' if len(left) > 8 else ''})"
        notes.append(text)
        return PairChoice(tuple(kept), tuple(notes))
    body = rigid_bodies(model)
    adjacent = adjacent_bodies(model, body)
    near = [p for p in pairs if frozenset((body[p[0]], body[p[1]])) in adjacent]
    if srdf is not None:
        return _srdf_pairs(model, pairs, near, srdf)
    if not links_with_shapes:
        return PairChoice((), ())
    left_out = set(near)  # sets: a model of many links has hundreds of thousands of pairs
    touching = [p for p in pairs if p not in left_out and frozenset(p) in touching_at_zero]
    left_out.update(touching)
    kept = [p for p in pairs if p not in left_out]
    text = (
        f"no SRDF: {len(kept)} link pairs checked; left out {len(near)} adjacent pairs (fixed joints looked across)"
        f" and {len(touching)} pairs in contact in the zero pose"
    )
    if touching:
        text += f" ({', '.join(f'{a}/{b}' for a, b in touching[:8])}{' …' if len(touching) > 8 else ''})"
    notes.append(text)
    return PairChoice(tuple(kept), tuple(notes))


def _srdf_pairs(
    model: RobotModel, pairs: list[tuple[str, str]], near: list[tuple[str, str]], srdf: str | os.PathLike[str]
) -> PairChoice:
    """The pairs to check with an SRDF: those it disables left out, and the adjacent ones it does not list."""
    given = read_srdf(srdf, model)
    name = Path(srdf).name
    disabled = [p for p in pairs if frozenset(p) in given.pairs]
    unlisted = [p for p in near if frozenset(p) not in given.pairs]
    left_out = set(disabled) | set(unlisted)
    kept = [p for p in pairs if p not in left_out]
    text = f"{len(kept)} link pairs checked: {len(disabled)} left out as the SRDF {name} disables them"
    if unlisted:
        text += (
            f", and {len(unlisted)} adjacent pairs it does not list ({_few(unlisted)}), as adjacent pairs always are"
        )
    return PairChoice(tuple(kept), (text,))


def _few(pairs: list[tuple[str, str]]) -> str:
    return f"{', '.join(f'{a}/{b}' for a, b in pairs[:8])}{' …' if len(pairs) > 8 else ''}"


__all__ = ["PairChoice", "SrdfPairs", "adjacent_bodies", "candidate_pairs", "choose_pairs", "read_srdf", "rigid_bodies"]
