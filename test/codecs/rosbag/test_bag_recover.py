"""Crashed recordings: MCAP without footer/summary, rosbag2 folder without metadata.yaml."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rosbags.highlevel import AnyReader, AnyReaderError
from rosbags.rosbag2 import StoragePlugin
from support.bags import JS, joint_state, write_bag

from motion_formats_ros import read

BASE = 1_650_000_000 * 1_000_000_000
N = 3000


def _bag(tmp_path: Path, storage: StoragePlugin) -> tuple[Path, np.ndarray]:
    values = np.arange(N * 4, dtype=np.float64).reshape(N, 4)
    msgs = [
        ("/joint_states", JS, BASE + k * 1_000_000, joint_state(BASE + k * 1_000_000, ["a", "b", "c", "d"], values[k]))
        for k in range(N)
    ]
    return write_bag(tmp_path / "rec", msgs, storage), values


def test_bag_recover_truncated_mcap(tmp_path: Path) -> None:
    bag, values = _bag(tmp_path, StoragePlugin.MCAP)
    storage_file = bag / "rec.mcap"
    (bag / "metadata.yaml").unlink()
    size = storage_file.stat().st_size
    with open(storage_file, "r+b") as fh:
        fh.truncate(int(size * 0.55))  # killed mid-chunk: no chunk end, no summary, no footer
    with pytest.raises(AnyReaderError):  # rosbags alone refuses it
        AnyReader([storage_file]).open()
    with pytest.warns(UserWarning, match=r"recording was not closed .*recovered (\d+) messages") as rec:
        m = read(bag).motion
    count = m.num_frames
    assert 0 < count < N
    assert f"recovered {count} messages" in str(rec[-1].message)
    assert np.array_equal(m.position, values[:count])  # every recovered message intact
    # the bare file reads the same
    with pytest.warns(UserWarning, match="recovered"):
        assert read(storage_file).motion.num_frames == count


def test_bag_recover_db3_without_metadata(tmp_path: Path) -> None:
    bag, values = _bag(tmp_path, StoragePlugin.SQLITE3)
    (bag / "metadata.yaml").unlink()
    with pytest.raises(FileNotFoundError):  # rosbags alone refuses the folder
        AnyReader([bag]).open()
    with pytest.warns(UserWarning, match=f"no metadata.yaml .*recovered {N} messages"):
        m = read(bag).motion
    assert m.num_frames == N
    assert np.array_equal(m.position, values)


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
def test_bag_without_metadata_yaml_keeps_what_the_storage_embeds(tmp_path: Path, storage: str) -> None:
    # rosbag2 keeps a copy of metadata.yaml inside each storage file (MCAP: a 'rosbag2'
    # metadata record; sqlite3: the metadata table); ours carries the motion's name and robot.
    from motion_formats_ros import Motion, MotionFile, write

    times = np.arange(50) / 50.0
    motion = Motion(times=times, joint_names=("a", "b"), position=np.stack([np.sin(times), np.cos(times)], axis=1))
    bag = tmp_path / "walk_bag"
    write(MotionFile(groups={"actual": motion}, name="walk", robot="acme_biped"), bag, "rosbag", storage=storage)
    (bag / "metadata.yaml").unlink()
    with pytest.warns(UserWarning, match="no metadata.yaml"):
        back = read(bag)
    assert (back.name, back.robot) == ("walk", "acme_biped")
    assert np.allclose(back.motion.position, motion.position)
