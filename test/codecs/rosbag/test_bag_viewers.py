"""Our MCAP bags as the viewers read them: Foxglove's own libraries (node) and the mcap library.

Every variant of the bag writer (chunk compressions, a message bigger than a chunk, long
and short motions, static and moving TF, sensors, every distro, a robot description) is
read by Foxglove's ``@mcap/core`` (CRCs checked), its messages decoded by
``@foxglove/rosmsg`` + ``@foxglove/rosmsg2-serialization`` as the Foxglove and Lichtblick
viewers decode them, and compared with what the Python side wrote: no chunk without
messages, the timeline starting at the first message, every message equal.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import struct
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rosbags.typesys import Stores, get_typestore

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.core.distros import DISTROS
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Series

FOXGLOVE = Path(__file__).resolve().parents[2] / "support" / "foxglove"
#: Header stamp of the first frame of every bag here (s since the epoch).
START = 1_700_000_000.5
START_NS = 1_700_000_000_500_000_000
URDF = '<?xml version="1.0"?>\n<robot name="two"><link name="base_link"/><link name="arm"/>\n' + (
    '<joint name="j0" type="revolute"><parent link="base_link"/><child link="arm"/>'
    '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>\n'
)


@dataclasses.dataclass
class Bag:
    """A bag a variant wrote: its MCAP file, what it holds and how its chunks are compressed."""

    mcap: Path
    compression: str  # as MCAP names it: "" for none
    motion: Motion | None = None
    distro: str = "jazzy"
    strings: dict[str, str] = dataclasses.field(default_factory=dict)  # String topics → text
    model: RobotModel | None = None  # the robot model the writer was given (link TF)


def _motion(n: int, joints: int, *, root: str = "moving", velocity: bool = False, sensors: bool = False) -> Motion:
    t = np.arange(n) / 100.0
    rng = np.random.default_rng(n + joints)
    fields: dict[str, Any] = {}
    if root == "moving":
        q = rng.normal(size=(n, 4))
        fields["root_position"] = np.stack([t, np.sin(t), 0.3 + 0 * t], axis=1)
        fields["root_orientation"] = q / np.linalg.norm(q, axis=1, keepdims=True)
    elif root == "static":
        fields["root_position"] = np.tile([0.1, -0.2, 0.3], (n, 1))
        fields["root_orientation"] = np.tile([0.0, 0.0, np.sin(0.4), np.cos(0.4)], (n, 1))
    if velocity:
        fields["velocity"] = np.cos(t[:, None] + np.arange(joints))
    if sensors:
        fields["link_names"] = ("hand",)
        fields["links"] = {"position": rng.normal(size=(n, 1, 3)), "orientation": np.tile([0, 0, 0, 1.0], (n, 1, 1))}
        fields["imu_names"] = ("torso_imu",)
        fields["imus"] = {
            "orientation": np.tile([0, 0, 0, 1.0], (n, 1, 1)),
            "angular_velocity": rng.normal(size=(n, 1, 3)),
            "linear_acceleration": rng.normal(size=(n, 1, 3)),
        }
        fields["series"] = {"zmp": Series(rng.normal(size=(n, 2)), frame="world", components=("x", "y"))}
    return Motion(
        times=t,
        joint_names=tuple(f"joint_{i}" for i in range(joints)),
        position=np.sin(t[:, None] + np.arange(joints)) + rng.normal(scale=1e-3, size=(n, joints)),
        **fields,
    )


def _written(
    motion: Motion, out: Path, compression: str | None = None, distro: str = "jazzy", **options: Any
) -> Callable[[Path], Bag]:
    def build(tmp: Path) -> Bag:
        target = tmp / out
        if compression is not None:
            options["compression"] = compression
        motion_file = MotionFile.single(motion, group="actual")
        write(motion_file, target, format="rosbag", start_time=START, distro=distro, **options)
        mcap = target if target.suffix == ".mcap" else target / f"{target.name}.mcap"
        label = {None: "zstd", "none": ""}.get(compression, compression)
        return Bag(mcap, str(label), motion, distro)

    return build


def _big_message(compression: str | None) -> Callable[[Path], Bag]:
    """A JointTrajectory over a chunk's size right after its schema records: the joint states
    before it end exactly where a chunk does, so the trajectory's schema and channel records
    open the next chunk (which once closed, without any message, before the big one)."""

    def build(tmp: Path) -> Bag:
        from mcap.reader import make_reader

        probe = tmp / "probe.mcap"
        write(MotionFile.single(_motion(5000, 30, root="none")), probe, format="rosbag", start_time=START)
        with open(probe, "rb") as fh:
            summary = make_reader(fh).get_summary()
        assert summary is not None
        first, second = ((c.message_end_time - c.message_start_time) // 10**7 + 1 for c in summary.chunk_indexes[:2])
        motion = _motion(first + 2 * second, 30, root="none")
        bag = _written(motion, Path("big"), compression)(tmp)
        with open(bag.mcap, "rb") as fh:
            summary = make_reader(fh).get_summary()
        assert summary is not None
        sizes = [c.uncompressed_size for c in summary.chunk_indexes if 2 in c.message_index_offsets]
        assert sizes and sizes[0] > (1 << 20)  # the trajectory (channel 2) is bigger than a chunk
        return bag

    return build


def _robot_description(tmp: Path) -> Bag:
    """/robot_description (latched, as robot_state_publisher offers it), /tf_static and joint states,
    through the same MCAP storage writer."""
    from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
    from rosbags.rosbag2 import StoragePlugin, Writer

    from motion_formats_ros.codecs.rosbag.storage.plugins import storage_plugins

    ts = get_typestore(Stores.ROS2_JAZZY)
    t = ts.types
    zero = QosTime(0, 0)
    latched = Qos(
        QosHistory.KEEP_LAST,
        1,
        QosReliability.RELIABLE,
        QosDurability.TRANSIENT_LOCAL,
        zero,
        zero,
        QosLiveliness.AUTOMATIC,
        zero,
        False,
    )
    bag = Writer(tmp / "described", version=9, storage_plugin=StoragePlugin.MCAP)
    bag.STORAGE_PLUGINS = storage_plugins("jazzy", "zstd")  # type: ignore[assignment]
    stamp = t["builtin_interfaces/msg/Time"](sec=START_NS // 10**9, nanosec=START_NS % 10**9)
    with bag as writer:
        string, tf = "std_msgs/msg/String", "tf2_msgs/msg/TFMessage"
        desc = writer.add_connection("/robot_description", string, typestore=ts, offered_qos_profiles=[latched])
        writer.write(desc, START_NS, ts.serialize_cdr(t[string](data=URDF), string))
        static = writer.add_connection("/tf_static", tf, typestore=ts, offered_qos_profiles=[latched])
        transform = t["geometry_msgs/msg/TransformStamped"](
            header=t["std_msgs/msg/Header"](stamp=stamp, frame_id="base_link"),
            child_frame_id="arm",
            transform=t["geometry_msgs/msg/Transform"](
                translation=t["geometry_msgs/msg/Vector3"](x=0.0, y=0.0, z=0.25),
                rotation=t["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0),
            ),
        )
        writer.write(static, START_NS, ts.serialize_cdr(t[tf](transforms=[transform]), tf))
        joints = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        for i in range(20):
            ns = START_NS + i * 10_000_000
            header = t["std_msgs/msg/Header"](
                stamp=t["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9), frame_id=""
            )
            empty = np.zeros(0)
            state = t["sensor_msgs/msg/JointState"](
                header=header, name=["j0"], position=np.array([i / 20]), velocity=empty, effort=empty
            )
            writer.write(joints, ns, ts.serialize_cdr(state, "sensor_msgs/msg/JointState"))
    return Bag(tmp / "described" / "described.mcap", "zstd", strings={"/robot_description": URDF})


BODY = """name: two
links:
  - {name: base_link, jointType: free}
  - {name: arm, parent: base_link, jointType: revolute, jointAxis: -Y, translation: [0, 0, 0.25],
     elements: {Shape: {geometry: {type: Cylinder, radius: 0.02, height: 0.25}}}}
  - {name: hand, parent: arm, jointType: fixed, translation: [0, 0, 0.25]}
"""


def _robot_model(kind: str) -> Callable[[Path], Bag]:
    """The writer given a robot model: /robot_description and every link's TF, as robot_state_publisher makes them."""

    def build(tmp: Path) -> Bag:
        model = RobotModel.from_urdf(URDF) if kind == "urdf" else RobotModel.from_body(BODY, source="two.body")
        motion = dataclasses.replace(_motion(300, 1), joint_names=("j0",) if kind == "urdf" else ("arm",))
        target = tmp / f"robot-{kind}.mcap"
        write(MotionFile.single(motion, group="actual"), target, format="rosbag", start_time=START, robot_model=model)
        return Bag(target, "zstd", motion, strings={"/robot_description": model.description}, model=model)

    return build


#: Every variant of the writer: chunk compressions, a message over a chunk right after the
#: schema records, long and short motions, static and moving TF, sensors, every distro, a
#: robot description.
VARIANTS: dict[str, Callable[[Path], Bag]] = {
    "none": _written(_motion(600, 24, velocity=True), Path("b"), "none"),
    "zstd-default": _written(_motion(600, 24, velocity=True), Path("b")),
    "lz4": _written(_motion(600, 24, velocity=True), Path("b"), "lz4"),
    "big-message-zstd": _big_message(None),
    "big-message-none": _big_message("none"),
    "long": _written(_motion(12_000, 20), Path("long.mcap")),
    "short-one-frame": _written(_motion(1, 3), Path("one.mcap"), "lz4"),
    "short-three-frames": _written(_motion(3, 2), Path("three.mcap"), "none"),
    "static-tf": _written(_motion(200, 6, root="static"), Path("static")),
    "sensors": _written(_motion(150, 4, sensors=True), Path("sensors")),
    "humble": _written(_motion(100, 5), Path("h.mcap"), "none", distro="humble"),
    "kilted": _written(_motion(100, 5), Path("k.mcap"), distro="kilted"),
    "robot-description": _robot_description,
    "robot-model-urdf": _robot_model("urdf"),
    "robot-model-body": _robot_model("body"),
}


# ---------------------------------------------------------------------------------- expected
def _plain(value: Any) -> Any:
    """A decoded rosbags message as JSON data, in the form the node script prints."""
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "__msgtype__"}
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def _python_side(bag: Bag) -> list[dict[str, Any]]:
    """Every message as the mcap library reads it (CRCs checked), decoded with rosbags, in log-time order."""
    from mcap.reader import make_reader

    ts = get_typestore(Stores(DISTROS[bag.distro]))
    out = []
    with open(bag.mcap, "rb") as fh:
        reader = make_reader(fh, validate_crcs=True)
        for schema, channel, message in reader.iter_messages(log_time_order=True):
            assert schema is not None
            out.append(
                {
                    "topic": channel.topic,
                    "log_time": message.log_time,
                    "message": _plain(ts.deserialize_cdr(message.data, schema.name)),
                }
            )
    return out


def _stamp(ns: int) -> dict[str, int]:
    return {"sec": ns // 10**9, "nanosec": ns % 10**9}


def _check_values(bag: Bag, by_topic: dict[str, list[dict[str, Any]]]) -> None:
    """The values the bag was written from, where the viewer decoded them."""
    for topic, text in bag.strings.items():
        assert [m["message"]["data"] for m in by_topic[topic]] == [text]
    m = bag.motion
    if m is None:
        return
    stamps = START_NS + np.round(m.times * 1e9).astype(np.int64)
    states = by_topic["/joint_states"]
    assert [s["log_time"] for s in states] == stamps.tolist()
    for i, s in enumerate(states):
        msg = s["message"]
        assert msg["header"]["stamp"] == _stamp(int(stamps[i]))
        assert msg["name"] == list(m.joint_names)
        assert msg["position"] == m.position[i].tolist()
        assert msg["velocity"] == ([] if m.velocity is None else m.velocity[i].tolist())
    [trajectory] = by_topic["/joint_trajectory"]
    points = trajectory["message"]["points"]
    assert [p["positions"] for p in points] == m.position.tolist()
    assert [p["time_from_start"] for p in points] == [_stamp(int(s - stamps[0])) for s in stamps]
    if m.root_position is None:
        assert "/tf" not in by_topic and "/tf_static" not in by_topic
        return
    moving = not np.all(m.root_position == m.root_position[0]) and m.num_frames > 1
    frames = by_topic["/tf" if moving else "/tf_static"]
    assert len(frames) == (m.num_frames if moving else 1)
    for i, f in enumerate(frames):
        [root] = [x for x in f["message"]["transforms"] if x["child_frame_id"] == "base_link"]
        assert root["header"] == {"stamp": _stamp(int(stamps[i])), "frame_id": "world"}
        translation, rotation = root["transform"]["translation"], root["transform"]["rotation"]
        assert [translation[k] for k in "xyz"] == m.root_position[i].tolist()
        assert [rotation[k] for k in "xyzw"] == m.root_orientation[i].tolist()  # type: ignore[index]
    if bag.model is not None:  # every link's frame at every frame, as the model makes them
        static, moving = bag.model.joint_transforms(m.joint_names, m.position)
        latched = [x["child_frame_id"] for f in by_topic.get("/tf_static", []) for x in f["message"]["transforms"]]
        assert latched == [s.child for s in static]
        for i, f in enumerate(frames):
            links = {x["child_frame_id"]: x for x in f["message"]["transforms"]}
            assert set(links) | set(latched) == {link.name for link in bag.model.links}  # the root: world -> it
            for mt in moving:
                tr = links[mt.child]
                assert tr["header"] == {"stamp": _stamp(int(stamps[i])), "frame_id": mt.parent}
                assert [tr["transform"]["translation"][k] for k in "xyz"] == mt.translation[i].tolist()
                assert [tr["transform"]["rotation"][k] for k in "xyzw"] == mt.rotation[i].tolist()


# ---------------------------------------------------------------------------------- the viewers
def _node_reason() -> str | None:
    if shutil.which("node") is None:
        return "needs node (Foxglove's MCAP libraries run on it; `make test` installs them where node is)"
    if not (FOXGLOVE / "node_modules" / "@mcap" / "core").is_dir():
        return f"Foxglove's npm packages are not installed: `make foxglove` (npm ci in {FOXGLOVE})"
    return None


def _foxglove(paths: list[Path]) -> list[dict[str, Any]]:
    reason = _node_reason()
    if reason is not None:
        pytest.skip(reason)
    done = subprocess.run(
        ["node", str(FOXGLOVE / "check_mcap.mjs"), *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]

    def ints(value: Any) -> Any:  # bigints come as strings
        if isinstance(value, dict):
            return {k: ints(v) for k, v in value.items()}
        return int(value) if isinstance(value, str) and value.isdigit() else value

    for r in results:
        for m in r.get("messages", []):
            m["log_time"], m["publish_time"] = int(m["log_time"]), int(m["publish_time"])
        for key in ("chunks", "statistics", "timeline"):
            if r.get(key) is not None:
                r[key] = [ints(c) for c in r[key]] if key == "chunks" else ints(r[key])
    return results


def _in_order(messages: list[dict[str, Any]]) -> list[tuple[str, int, Any]]:
    """(topic, log time, decoded message), by time and then topic (several topics share stamps)."""
    return sorted(((m["topic"], m["log_time"], m["message"]) for m in messages), key=lambda m: (m[1], m[0]))


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_foxglove_reads_every_bag_variant_as_written(tmp_path: Path, variant: str) -> None:
    if (reason := _node_reason()) is not None:
        pytest.skip(reason)
    bag = VARIANTS[variant](tmp_path)
    [seen] = _foxglove([bag.mcap])
    assert "error" not in seen, seen.get("error")
    assert seen["profile"] == "ros2" and seen["data_crc_ok"] is True  # chunk and summary CRCs: checked on reading
    messages = seen["messages"]
    times = [m["log_time"] for m in messages]
    # No chunk without messages; the timeline (the span of the chunk indexes) is the messages' span.
    assert seen["chunks"] and all(c["messages"] > 0 and c["channels"] > 0 for c in seen["chunks"]), seen["chunks"]
    assert all(c["compression"] == bag.compression for c in seen["chunks"])
    assert seen["timeline"] == {"start": min(times), "end": max(times)}
    stats = seen["statistics"]
    assert (stats["start"], stats["end"]) == (min(times), max(times))
    assert stats["message_count"] == len(messages) == seen["stream_messages"]
    if bag.motion is not None and bag.motion.num_frames > 1:
        assert min(times) == START_NS  # the first frame's stamp, not 1970
    # Every message decodes to what the Python side serialized, field for field.
    python = _python_side(bag)
    assert _in_order(messages) == _in_order(python)
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for m in messages:
        by_topic.setdefault(m["topic"], []).append(m)
    _check_values(bag, by_topic)
    if "/robot_description" in by_topic:  # latched, as robot_state_publisher offers it
        assert "transient_local" in seen["channels"]["/robot_description"]["offered_qos_profiles"]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_mcap_library_reads_every_bag_variant_with_crcs(tmp_path: Path, variant: str) -> None:
    from mcap.reader import make_reader

    bag = VARIANTS[variant](tmp_path)
    with open(bag.mcap, "rb") as fh:
        reader = make_reader(fh, validate_crcs=True)
        summary = reader.get_summary()
        assert summary is not None and summary.statistics is not None
        count = sum(1 for _ in reader.iter_messages())  # chunk CRCs checked on every chunk
    stats = summary.statistics
    assert count == stats.message_count
    assert all(c.message_index_offsets and c.message_start_time for c in summary.chunk_indexes)
    assert all(c.compression == bag.compression for c in summary.chunk_indexes)
    assert min(c.message_start_time for c in summary.chunk_indexes) == stats.message_start_time
    assert max(c.message_end_time for c in summary.chunk_indexes) == stats.message_end_time
    data = bag.mcap.read_bytes()
    summary_start, _, summary_crc = struct.unpack_from("<QQI", data, len(data) - 8 - 20)
    data_end = summary_start - 13  # the data-end record: opcode, length, CRC of everything before it
    assert data[data_end] == 0x0F and struct.unpack_from("<I", data, data_end + 9)[0] == zlib.crc32(data[:data_end])
    assert summary_crc == zlib.crc32(data[summary_start : len(data) - 8 - 4])
    python = _python_side(bag)
    assert python[0]["log_time"] == stats.message_start_time
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for m in python:
        by_topic.setdefault(m["topic"], []).append(m)
    _check_values(bag, by_topic)


def test_foxglove_reads_the_corpus_robots_with_every_link_frame(tmp_path: Path) -> None:
    """A NAO motion net with the NAO URDF and the SR1 walk with its Choreonoid model, as motion2bag writes them."""
    from conftest import corpus_path

    from motion_formats_ros.cli.main import main
    from motion_formats_ros.core.kinematics import load_robot_model

    if (reason := _node_reason()) is not None:
        pytest.skip(reason)
    cases = [
        (corpus_path("mof", "bhuman2009", "standUpBackNao.mof"), ["--urdf", str(corpus_path("urdf", "nao.urdf"))]),
        (
            corpus_path("choreonoid", "v1", "SR1WalkPattern2.yaml"),
            ["--body", str(corpus_path("choreonoid", "model", "SR1.body")), "--end", "1"],
        ),
    ]
    bags = []
    for i, (src, flags) in enumerate(cases):
        out = tmp_path / f"robot{i}.mcap"
        assert main(["motion2bag", str(src), str(out), *flags]) == 0  # warnings go to stderr
        bags.append((out, load_robot_model(flags[1])))
    for seen, (path, model) in zip(_foxglove([b for b, _ in bags]), bags, strict=True):
        assert "error" not in seen and seen["data_crc_ok"] is True, seen.get("error")
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for m in seen["messages"]:
            by_topic.setdefault(m["topic"], []).append(m)
        assert _in_order(seen["messages"]) == _in_order(_python_side(Bag(path, "zstd")))
        [description] = by_topic["/robot_description"]
        assert description["message"]["data"] == model.description
        latched = {x["child_frame_id"] for f in by_topic.get("/tf_static", []) for x in f["message"]["transforms"]}
        states = by_topic["/joint_states"]
        assert len(by_topic["/tf"]) == len(states) > 1
        for frame in by_topic["/tf"]:
            children = {x["child_frame_id"] for x in frame["message"]["transforms"]} | latched
            assert children >= {link.name for link in model.links if link.name != model.root_link}
