"""Joint maps: found in the source tree and in an installed share folder, all valid."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros.core import joint_maps

REPO = Path(__file__).resolve().parents[3]
CONFIG = REPO / "config" / "joint_maps"
EXPECTED = {"nao_bhuman_22", "nao_bhuman2009_22", "nao_22", "nao_26", "aibo_ers210", "aibo_ers7"}


def test_maps_are_found_in_the_source_tree() -> None:
    found = joint_maps.available()
    assert set(found) >= EXPECTED
    assert found["nao_26"] == CONFIG / "nao_26.yaml"
    assert joint_maps.search_paths()[0] == CONFIG


def test_maps_are_found_in_an_installed_prefix(tmp_path: Path) -> None:
    share = tmp_path / "share" / "motion_formats_ros" / "config" / "joint_maps"
    share.mkdir(parents=True)
    # What setup.py's data_files installs: config/joint_maps/*.yaml → share/<pkg>/config/joint_maps.
    for f in CONFIG.glob("*.yaml"):
        shutil.copy(f, share)
    paths = joint_maps.search_paths(prefixes=[tmp_path])[1:]  # without the source tree
    assert paths == [share]
    found = joint_maps.available(paths)
    assert set(found) == {f.stem for f in CONFIG.glob("*.yaml")}
    assert joint_maps.load("aibo_ers7", paths).path == share / "aibo_ers7.yaml"


def test_ament_prefix_path_is_searched(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path))
    assert tmp_path / "share" / "motion_formats_ros" / "config" / "joint_maps" in joint_maps.search_paths()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_map_is_valid(name: str) -> None:
    m = joint_maps.load(name)
    assert m.name == name
    assert m.format in ("mof", "mtn")
    assert len(m) in (20, 22, 26)
    assert len(set(m.names)) == len(m)


def test_nao_maps_convert_b_human_signs() -> None:
    m = joint_maps.load("nao_bhuman_22")
    negative = {n for n, s in zip(m.names, m.signs, strict=True) if s < 0}
    assert negative == {
        "HeadPitch",
        "LShoulderPitch",
        "RShoulderPitch",
        "RShoulderRoll",
        "RElbowYaw",
        "RElbowRoll",
        "LHipRoll",
        "LAnkleRoll",
    }
    values = np.arange(22.0)
    np.testing.assert_allclose(m.from_standard(m.to_standard(values)), values)
    old = joint_maps.load("nao_bhuman2009_22")
    np.testing.assert_allclose(old.to_standard(np.zeros(22))[2:4], [90.0, 90.0])


def test_unknown_map_and_map_file_by_path(tmp_path: Path) -> None:
    with pytest.raises(joint_maps.JointMapError, match="no joint map 'nope'"):
        joint_maps.load("nope")
    own = tmp_path / "mine.yaml"
    own.write_text("columns:\n  - {source: A, name: a, sign: -1}\n")
    m = joint_maps.load(own)
    assert (m.name, m.names, m.sources) == ("mine", ("a",), ("A",))
    own.write_text("columns:\n  - {source: A, name: a, sign: 2}\n")
    with pytest.raises(joint_maps.JointMapError, match="sign"):
        joint_maps.load(own)
