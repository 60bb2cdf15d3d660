"""The check on robot models and motions from the field (used in place)."""

from __future__ import annotations

import json

import pytest
from conftest import corpus_path
from support.cli import cli
from support.robots import share

pytest.importorskip("coal")


def test_sr1_walk_on_its_body_model() -> None:
    seq = corpus_path("choreonoid", "v2", "SR1WalkPattern2.seq")
    body = corpus_path("choreonoid", "model", "SR1.body")
    status, out, err, _ = cli("check", seq, "--body", body, "--json", blocked=())
    assert status == 0, err
    report = json.loads(out)
    assert report["frames"] > 7000 and "self_collision" in report["checked"]
    # No SRDF: the body's own rules (chain level 3) leave out 90 pairs, and the report says so;
    # Choreonoid's own walk sample then has no finding.
    assert any("90 left out by the model's collision_detection_rules" in note for note in report["notes"])
    assert report["findings"] == []


@pytest.mark.parametrize("name", ["GR001", "HRP4C"])
def test_a_body_whose_meshes_are_absent_cannot_be_checked(name: str) -> None:
    motion = next(corpus_path("choreonoid", "pseq", name).glob("*.pseq"))
    body = corpus_path("choreonoid", "model", f"{name}.body")
    status, _, err, _ = cli("check", motion, "--body", body, blocked=())
    assert status == 1
    assert err.startswith(f"error: {body}: link ") and "collision mesh" in err and "not found" in err


def test_panda_urdf_from_the_field() -> None:
    urdf = corpus_path("urdf", "panda.urdf")
    from motion_formats_ros.safety import Checker

    checker = Checker(urdf, package_paths=[share()])
    assert len(checker.shapes) == 17 and checker.pairs
