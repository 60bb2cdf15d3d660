"""The root pose's frames: a bag names a root only where it writes its transforms, a reader
does not fail on a bag that names one without them, and a root option that is no frame pair
is refused as an option."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from rosbags.highlevel import AnyReader

from motion_formats_ros import read, write
from motion_formats_ros.core.errors import MotionFormatError, OptionError
from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.core.model import Motion, MotionFile

KEY = "motion_formats_ros"


def _motion(orientation: np.ndarray, position: np.ndarray | None = None) -> MotionFile:
    n = orientation.shape[0]
    motion = Motion(
        times=np.arange(n) / 10.0,
        joint_names=("a",),
        position=np.zeros((n, 1)),
        root_position=position,
        root_orientation=orientation,
    )
    return MotionFile.single(motion, group="actual")


def test_a_root_whose_orientation_is_never_valid_is_written_with_its_position_only(tmp_path: Path) -> None:
    n = 5
    position = np.column_stack([np.arange(n) * 0.1, np.zeros(n), np.full(n, 0.3)])
    motion_file = _motion(np.full((n, 4), np.nan), position)
    with pytest.warns(UserWarning, match="the root orientation"):
        write(motion_file, tmp_path / "r.mcap")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning on reading what was written
        back = read(tmp_path / "r.mcap").motion
    assert back.root_orientation is None
    np.testing.assert_allclose(back.root_position, position)  # type: ignore[arg-type]


def test_a_root_without_any_valid_sample_is_not_named(tmp_path: Path) -> None:
    n = 5
    with pytest.warns(UserWarning, match="the root orientation"):
        write(_motion(np.full((n, 4), np.nan)), tmp_path / "r.mcap")
    with AnyReader([tmp_path / "r.mcap"]) as reader:
        assert "/tf" not in reader.topics
    back = read(tmp_path / "r.mcap")
    assert back.motion.root_orientation is None and back.motion.root_position is None
    assert back.motion.num_frames == n


def test_a_bag_naming_a_root_it_has_no_transforms_for_reads_without_one(tmp_path: Path) -> None:
    import yaml

    bag = tmp_path / "b"
    write(
        _motion(np.tile([0.0, 0.0, 0.0, 1.0], (5, 1))),
        bag,
        format="rosbag",
        tf_topic="/a_tf",
        tf_static_topic="/a_tf_static",
    )
    doc = yaml.safe_load((bag / "metadata.yaml").read_text())
    custom = doc["rosbag2_bagfile_information"]["custom_data"]
    entry = json.loads(custom[KEY])
    assert entry["root"] == "world:base_link"
    with pytest.warns(UserWarning, match="custom data names has no /tf; read without it"):
        back = read(bag)
    assert back.motion.root_orientation is None and back.motion.num_frames == 5


@pytest.mark.parametrize("value", ["abc", "base_link"])
def test_a_read_root_option_that_is_no_frame_pair_is_an_option_error(tmp_path: Path, value: str) -> None:
    write(biped_walk(rate=10.0, cycles=1), tmp_path / "w.mcap")
    with pytest.raises(OptionError) as caught:
        read(tmp_path / "w.mcap", root=value)
    assert isinstance(caught.value, MotionFormatError)
    assert str(caught.value) == (
        f"rosbag read option 'root' expects PARENT:CHILD (e.g. world:base_link) or none, got {value!r}"
    )


def test_a_write_root_option_that_is_no_frame_pair_is_an_option_error(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="rosbag write option 'root' expects WORLD:BASE"):
        write(biped_walk(rate=10.0, cycles=1), tmp_path / "w.mcap", root="abc")
    assert not (tmp_path / "w.mcap").exists()
