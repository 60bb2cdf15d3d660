"""Motion → bag: round trips to the ns, storages, distros, QoS, topics, and readers (rosbags, mcap)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import ELBOW_JUMP, elbow_jump, lossy_messages
from rosbags.highlevel import AnyReader
from rosbags.interfaces import QosDurability

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.codecs.rosbag import BagMotionRecord
from motion_formats_ros.core.errors import WriteError
from motion_formats_ros.core.model import Series
from motion_formats_ros.core.notices import collect


def _motion(n: int = 30, t0: float = 0.25) -> Motion:
    rng = np.random.default_rng(3)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    return Motion(
        times=t0 + np.arange(n) / 60.0,
        joint_names=("hip", "knee", "ankle"),
        position=rng.normal(size=(n, 3)),
        velocity=rng.normal(size=(n, 3)),
        effort=rng.normal(size=(n, 3)),
        root_position=rng.normal(size=(n, 3)),
        root_orientation=q,
        link_names=("foot", "camera"),
        links={
            "position": np.stack([rng.normal(size=(n, 3)), np.tile([0.1, 0.2, 0.3], (n, 1))], axis=1),
            "orientation": np.stack([q, np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))], axis=1),
        },
        imu_names=("torso_imu",),
        imus={
            "orientation": q[:, None],
            "angular_velocity": rng.normal(size=(n, 1, 3)),
            "linear_acceleration": rng.normal(size=(n, 1, 3)),
        },
        series={"zmp": Series(rng.normal(size=(n, 2)), frame="world", components=("x", "y"))},
    )


def _same(a: Motion, b: Motion) -> None:
    assert np.max(np.abs(a.times - b.times)) < 1e-9  # to the ns
    assert a.joint_names == b.joint_names
    for name in ("position", "velocity", "effort", "root_position", "root_orientation"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.link_names == b.link_names and a.imu_names == b.imu_names
    for key in a.links:
        assert np.array_equal(a.links[key], b.links[key]), key
    for key in a.imus:
        assert np.array_equal(a.imus[key], b.imus[key]), key
    for key in a.series:
        assert np.array_equal(a.series[key].values, b.series[key].values)
        assert a.series[key].frame == b.series[key].frame


@pytest.mark.parametrize("storage", ["mcap", "sqlite3"])
@pytest.mark.parametrize("distro", ["humble", "jazzy", "kilted"])
def test_bag_write_round_trip_to_the_ns(tmp_path: Path, storage: str, distro: str) -> None:
    m = _motion()
    mf = MotionFile.single(m, group="target", name="walk", robot="biped")
    out = tmp_path / "walk_bag"
    write(mf, out, format="rosbag", storage=storage, distro=distro)
    assert (out / "metadata.yaml").is_file()
    assert any(p.suffix == (".mcap" if storage == "mcap" else ".db3") for p in out.iterdir())
    back = read(out)
    assert list(back.groups) == ["target"] and back.name == "walk" and back.robot == "biped"
    _same(m, back.groups["target"])


@pytest.mark.parametrize("suffix", [".mcap", ".db3"])
def test_bag_write_bare_storage_file_round_trip(tmp_path: Path, suffix: str) -> None:
    m = _motion()
    out = tmp_path / f"walk{suffix}"
    write(MotionFile.single(m), out)  # the suffix picks the rosbag codec and the storage
    assert out.is_file()
    _same(m, read(out).groups["target"])


def test_bag_write_topics_stamps_and_qos(tmp_path: Path) -> None:
    m = _motion()
    out = tmp_path / "b"
    write(MotionFile.single(m), out, format="rosbag", start_time=1_700_000_000.5, joint_topic="/robot/joint_states")
    with AnyReader([out]) as reader:
        topics = reader.topics
        assert topics["/robot/joint_states"].msgcount == m.num_frames
        assert topics["/tf"].msgcount == m.num_frames  # root + moving link, one TFMessage per frame
        assert topics["/tf_static"].msgcount == 1  # the camera link never moves
        assert topics["/joint_trajectory"].msgcount == 1
        assert topics["/torso_imu"].msgtype == "sensor_msgs/msg/Imu"
        assert topics["/zmp"].msgtype == "geometry_msgs/msg/PointStamped"
        static = topics["/tf_static"].connections[0]
        assert static.ext.offered_qos_profiles[0].durability == QosDurability.TRANSIENT_LOCAL  # type: ignore[union-attr]
        first = None
        for conn, t, raw in reader.messages(connections=topics["/robot/joint_states"].connections):
            msg = reader.deserialize(raw, conn.msgtype)
            first = (t, msg.header.stamp.sec, msg.header.stamp.nanosec)  # type: ignore[attr-defined]
            break
        assert first == (1_700_000_000_500_000_000, 1_700_000_000, 500_000_000)
        traj_conn = topics["/joint_trajectory"].connections[0]
        for conn, _, raw in reader.messages(connections=[traj_conn]):
            traj = reader.deserialize(raw, conn.msgtype)
            assert len(traj.points) == m.num_frames  # type: ignore[attr-defined]
            assert list(traj.joint_names) == list(m.joint_names)  # type: ignore[attr-defined]
    back = read(out)
    assert back.motion.record(BagMotionRecord).time_origin_ns == 1_700_000_000_500_000_000 - 250_000_000
    _same(m, back.motion)


def test_bag_write_opens_with_the_mcap_library(tmp_path: Path) -> None:
    from mcap.reader import make_reader

    out = tmp_path / "b"
    write(MotionFile.single(_motion()), out, format="rosbag")
    with open(out / "b.mcap", "rb") as fh:
        reader = make_reader(fh)
        summary = reader.get_summary()
        assert summary is not None
        schemas = {s.name: s for s in summary.schemas.values()}
        js = schemas["sensor_msgs/msg/JointState"]
        assert js.encoding == "ros2msg"
        assert "string[] name" in js.data.decode() and "MSG: std_msgs/Header" in js.data.decode()
        counts = summary.statistics.channel_message_counts  # type: ignore[union-attr]
        by_topic = {c.topic: counts.get(cid, 0) for cid, c in summary.channels.items()}
        assert by_topic["/joint_states"] == 30
        assert sum(1 for _ in reader.iter_messages(topics=["/joint_states"])) == 30


def test_bag_write_never_clobbers_and_is_atomic(tmp_path: Path) -> None:
    out = tmp_path / "b"
    mf = MotionFile.single(_motion())
    write(mf, out, format="rosbag")
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(WriteError, match="already exists"):
        write(mf, out, format="rosbag")
    assert sorted(p.name for p in out.iterdir()) == before
    m2 = _motion(n=5)
    write(MotionFile.single(m2), out, format="rosbag", overwrite=True)
    assert read(out).motion.num_frames == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b"]  # no temporary leftovers
    with pytest.raises(WriteError, match="ROS 1"):
        write(mf, tmp_path / "x.bag")


def test_bag_write_warns_about_what_a_bag_cannot_hold(tmp_path: Path) -> None:
    m = Motion(
        times=np.arange(3) / 10,
        joint_names=("a",),
        position=np.zeros((3, 1)),
        temperature=np.ones((3, 1)),
    )
    with pytest.warns(UserWarning, match="temperature"):
        write(MotionFile.single(m), tmp_path / "b", format="rosbag")


def test_bag_write_separate_actual_and_target_groups(tmp_path: Path) -> None:
    actual = _motion()
    target = Motion(
        times=np.arange(4) / 10,
        joint_names=("hip", "knee"),
        position=np.arange(8.0).reshape(4, 2),
        acceleration=np.ones((4, 2)),
    )
    out = tmp_path / "b"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(MotionFile(groups={"actual": actual, "target": target}), out, format="rosbag")
    back = read(out)
    assert list(back.groups) == ["actual", "target"]
    _same(actual, back.groups["actual"])
    t = back.groups["target"]
    assert np.max(np.abs(t.times - target.times)) < 1e-9
    assert np.array_equal(t.position, target.position)
    assert np.array_equal(t.acceleration, target.acceleration)


@pytest.mark.parametrize("suffix", [".mcap", ".db3"])
def test_a_jump_between_keyframes_written_as_samples_names_the_joint_and_times(tmp_path: Path, suffix: str) -> None:
    with collect(warn=False) as report:
        write(elbow_jump(), tmp_path / f"jump{suffix}")
    assert any(ELBOW_JUMP in m for m in lossy_messages(report))


@pytest.mark.parametrize("suffix", [".mcap", ".db3"])
def test_times_beyond_the_stamps_of_a_bag_are_a_write_error(tmp_path: Path, suffix: str) -> None:
    endless = Motion(times=[0, 1, 1e300], joint_names=("a",), position=[[0], [1], [2]])
    with pytest.raises(WriteError, match=r"times up to 1e\+300 s do not fit a bag's stamps \(int64 nanoseconds"):
        write(MotionFile.single(endless), tmp_path / f"endless{suffix}")
    assert not (tmp_path / f"endless{suffix}").exists()
