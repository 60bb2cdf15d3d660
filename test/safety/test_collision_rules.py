"""check honours a .body's own collision rules (collision_detection_rules, and the older collisionDetection)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path

from motion_formats_ros import read
from motion_formats_ros.core.model import Motion
from motion_formats_ros.safety import check

pytest.importorskip("coal")

#: A free base with a chain of three links hanging below it; C's wide plate reaches up around A.
BODY = """\
format: ChoreonoidBody
formatVersion: 2.0
angleUnit: radian
name: overlap
rootLink: BASE
links:
  - {name: BASE, jointType: free, mass: 2.0, elements: [{type: Shape, geometry: {type: Box, size: [0.1, 0.1, 0.1]}}]}
  - {name: A, parent: BASE, jointType: revolute, jointAxis: Y, jointId: 0, translation: [0, 0, -0.2], mass: 0.5,
     elements: [{type: Shape, geometry: {type: Box, size: [0.05, 0.05, 0.05]}}]}
  - {name: B, parent: A, jointType: revolute, jointAxis: Y, jointId: 1, translation: [0, 0, -0.02], mass: 0.5,
     elements: [{type: Shape, translation: [0.3, 0, 0], geometry: {type: Box, size: [0.02, 0.02, 0.02]}}]}
  - {name: C, parent: B, jointType: revolute, jointAxis: Y, jointId: 2, translation: [0, 0, 0], mass: 0.5,
     elements: [{type: Shape, geometry: {type: Box, size: [0.04, 0.04, 0.01]}}]}
"""


def body(tmp_path: Path, rules: str = "") -> Path:
    path = tmp_path / "overlap.body"
    path.write_text(BODY + textwrap.dedent(rules))
    return path


def still() -> Motion:
    times = np.linspace(0.0, 1.0, 11)
    return Motion(times=times, joint_names=("A", "B", "C"), position=np.zeros((11, 3)))


def collisions(report: object) -> set[frozenset[str]]:
    return {frozenset(f.links) for f in report.findings if f.kind == "self_collision"}  # type: ignore[attr-defined]


def test_without_rules_the_pair_two_links_apart_is_checked(tmp_path: Path) -> None:
    # A and C are two joints apart and overlap; A/B and B/C are adjacent (left out), A/C touches in the
    # zero pose too, so the package's own rule leaves it out: check it on a pose where it starts apart.
    report = check(still(), body(tmp_path))
    assert frozenset(("A", "C")) not in collisions(report)  # in contact in the zero pose: left out, and said
    assert any("in contact in the zero pose" in n for n in report.notes)


def test_a_chain_level_leaves_out_what_choreonoid_leaves_out_and_says_so(tmp_path: Path) -> None:
    level1 = check(still(), body(tmp_path, "collision_detection_rules:\n  - disabled_link_chain_level: 1\n"))
    assert frozenset(("A", "C")) in collisions(level1)  # only adjacent links are left out at level 1
    assert any("left out by the model's collision_detection_rules" in n for n in level1.notes)
    level2 = check(still(), body(tmp_path, "collision_detection_rules:\n  - disabled_link_chain_level: 2\n"))
    assert not collisions(level2)
    assert any("A/C" in n for n in level2.notes)


def test_the_older_spelling_and_links_taken_out_of_detection(tmp_path: Path) -> None:
    text = "collisionDetection:\n  excludeTreeDepth: 1\n  excludeLinks: [C]\n"
    report = check(still(), body(tmp_path, text))
    assert not collisions(report)
    assert any("take C out of collision detection" in n for n in report.notes)
    group = "collision_detection_rules:\n  - disabled_link_chain_level: 1\n  - disabled_link_group: [A, C]\n"
    assert not collisions(check(still(), body(tmp_path, group)))


def test_sr1_walks_without_a_self_collision_under_its_own_rules() -> None:
    model = corpus_path("choreonoid", "model", "SR1.body")
    walk = read(corpus_path("choreonoid", "v1", "SR1WalkPattern2.yaml"), body=model)
    report = check(walk, model)
    assert not collisions(report), [f.message() for f in report.findings]
    assert any("90 left out by the model's collision_detection_rules" in n for n in report.notes)
