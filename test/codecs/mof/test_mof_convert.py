"""Every corpus ``.mof`` (and the seed ``.mtn``) to OMF and ``.seq`` and back."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, corpus_params, corpus_path
from support.mtn_seed import write_seed

from motion_formats_ros import read, write
from motion_formats_ros.codecs.mtn import MtnRecord

MOF = CORPUS / "mof"
MOTIONS = corpus_params("mof", "*/*.mof", exclude_stems=("extern",))
VIA = ["msgpack", "omf.json", "seq"]


def convert(src: Path, tmp_path: Path, suffix: str) -> Path:
    """src → src.<suffix> → back/src.name (the same format as src)."""
    middle = tmp_path / f"{src.stem}.{suffix}"
    back = tmp_path / "back" / src.name
    back.parent.mkdir()
    first = read(src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # OMF / .seq drop masks, loops, keyframe kinds (warned)
        write(first, middle)
        # .seq carries no joint names (joint-ID order): name them as the source did.
        options = {"joint_names": list(first.motion.joint_names)} if suffix == "seq" else {}
        write(read(middle, **options), back)
    return back


def assert_values_at_keyframes(src: Path, back: Path) -> None:
    """The round trip has the source's joints and, at the source's keyframe times, its values."""
    a, b = read(src).motion, read(back).motion
    assert b.joint_names == a.joint_names
    assert b.times[0] == 0 and b.duration == pytest.approx(a.duration, abs=1e-9)
    at = b.sample(a.times)
    assert at.position is not None and a.position is not None
    finite = np.isfinite(a.position)
    np.testing.assert_allclose(at.position[finite], a.position[finite], rtol=0, atol=1e-9)


@pytest.mark.parametrize("via", VIA)
@pytest.mark.parametrize("path", MOTIONS)
def test_mof_through_another_format_and_back(path: Path, via: str, tmp_path: Path) -> None:
    back = convert(path, tmp_path, via)
    assert_values_at_keyframes(path, back)
    a, b = read(path).motion, read(back).motion
    if "stiffness" in a.joint_channels and via != "seq":
        np.testing.assert_allclose(b.joint_channels["stiffness"], a.joint_channels["stiffness"], atol=1e-9)


@pytest.mark.parametrize("via", VIA)
def test_seed_mtn_through_another_format_and_back(via: str, tmp_path: Path) -> None:
    src = write_seed(tmp_path, "seed.mtn")
    back = convert(src, tmp_path, via)
    a, b = read(src).motion, read(back).motion
    assert b.joint_names == a.joint_names
    np.testing.assert_allclose(b.times, a.times, atol=1e-9)
    np.testing.assert_allclose(b.position, a.position, atol=5e-7)  # micro-radians
    # Body roll/pitch/yaw travel as the root orientation (OMF root, .seq LinkPosition part 0).
    assert np.abs(a.root_orientation[:, 1]).max() > 0.01  # type: ignore[index]
    np.testing.assert_allclose(b.root_orientation, a.root_orientation, atol=1e-9)
    np.testing.assert_allclose(b.series["body_rpy"].values, a.series["body_rpy"].values, atol=5e-7)
    assert read(back).record(MtnRecord).locators == read(src).record(MtnRecord).locators


def test_mof_to_mtn_and_back(tmp_path: Path) -> None:
    src = corpus_path("mof", "bhuman2009", "standUpBackNao.mof")
    mid = tmp_path / "stand.mtn"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(read(src), mid)
    a, b = read(src).motion, read(mid).motion
    assert b.joint_names == a.joint_names
    # 16 ms frames: the keyframe times of this motion (multiples of 100 ms) move by < 8 ms.
    assert np.max(np.abs(b.times - a.times)) <= 0.008 + 1e-9
    finite = np.isfinite(a.position)
    np.testing.assert_allclose(b.position[finite], a.position[finite], atol=5e-7)
