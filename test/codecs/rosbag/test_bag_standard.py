"""The standard messages known without rosbags agree with rosbags: fields, type hashes, definitions and decoding."""

from __future__ import annotations

import dataclasses
import struct
import types
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rosbags.typesys import Stores, get_typestore

from motion_formats_ros.codecs.rosbag.storage import standard
from motion_formats_ros.core.distros import DISTROS

ROS2_STORES = [Stores(v) for v in DISTROS.values() if v.startswith("ros2")]
JAZZY = get_typestore(Stores.ROS2_JAZZY)
NODE = {1: "BASE", 2: "NAME", 3: "ARRAY", 4: "SEQUENCE"}


def _as_fields(fielddefs: Any, name: str) -> tuple[tuple[str, str], ...]:
    """rosbags' parse tree of ``name`` in the (type, name) form of ``standard.FIELDS``."""
    out = []
    for field, (kind, spec) in fielddefs[name][1]:
        kind = NODE[int(kind)]
        if kind == "BASE":
            out.append((spec[0], field))
        elif kind == "NAME":
            out.append((spec, field))
        else:
            assert kind == "SEQUENCE" and spec[1] == 0, (name, field)
            inner_kind, inner = spec[0]
            out.append(((inner[0] if NODE[int(inner_kind)] == "BASE" else inner) + "[]", field))
    return tuple(out)


@pytest.mark.parametrize("store", ROS2_STORES, ids=lambda s: s.value)
def test_fields_and_hashes_are_those_of_every_ros2_distro(store: Stores) -> None:
    ts = get_typestore(store)
    for name, fields in standard.FIELDS.items():
        assert _as_fields(ts.fielddefs, name) == fields, name
    for name, digest in standard.HASHES.items():
        assert ts.hash_rihs01(name) == digest, name


@pytest.mark.parametrize("msgtype", sorted(standard.TOPIC_TYPES))
@pytest.mark.parametrize("store", ROS2_STORES, ids=lambda s: s.value)
def test_the_definitions_bags_carry_are_recognised(store: Stores, msgtype: str) -> None:
    text, _ = get_typestore(store).generate_msgdef(msgtype, ros_version=2)
    assert standard.is_standard(msgtype, text)
    # As rosbag2 writes them: comments, blank lines, package/Type names, a default value.
    commented = "# from the interface\n\n" + text.replace("/msg/", "/") + "\n# end\n"
    assert standard.is_standard(msgtype, commented)


def _mutations(text: str) -> list[str]:
    lines = text.splitlines()
    field = next(i for i, line in enumerate(lines) if line and not line.startswith(("#", "=", "MSG")))
    kind, name = lines[field].split()[:2]
    return [
        "\n".join([*lines[:field], f"{kind} {name}_renamed", *lines[field + 1 :]]),
        "\n".join([*lines[:field], f"float32 {name}", *lines[field + 1 :]]),
        "\n".join([*lines[:field], f"{kind} {name}", "int32 extra", *lines[field + 1 :]]),
        "\n".join([*lines[:field], "int32 LIMIT=3", *lines[field:]]),
        text + "\n" + "=" * 80 + "\nMSG: other_msgs/Extra\nint32 x\n",
        text.split("=" * 80)[0] if "=" * 80 in text else text + "\nint32 more",
    ]


@pytest.mark.parametrize("msgtype", sorted(standard.TOPIC_TYPES))
def test_any_other_definition_is_left_to_rosbags(msgtype: str) -> None:
    text, _ = JAZZY.generate_msgdef(msgtype, ros_version=2)
    for changed in _mutations(text):
        assert not standard.is_standard(msgtype, changed), changed
    assert not standard.is_standard(
        "sensor_msgs/msg/Imu", JAZZY.generate_msgdef("sensor_msgs/msg/Imu", ros_version=2)[0]
    )


# --------------------------------------------------------------------------- decoding
def plain(value: Any) -> Any:
    """A decoded message as comparable data (rosbags' dataclasses and the namespaces alike)."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, types.SimpleNamespace):
        return {k: plain(v) for k, v in vars(value).items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float):  # by its bits: NaN equals NaN, -0.0 differs from 0.0
        return ("float", struct.pack("<d", value))
    return (type(value).__name__, value)


names = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=6)
floats = st.lists(st.floats(allow_nan=True, width=64), max_size=4).map(lambda v: np.array(v, dtype=np.float64))
stamps = st.builds(
    JAZZY.types["builtin_interfaces/msg/Time"], sec=st.integers(-(2**31), 2**31 - 1), nanosec=st.integers(0, 2**32 - 1)
)
headers = st.builds(JAZZY.types["std_msgs/msg/Header"], stamp=stamps, frame_id=names)
joint_states = st.builds(
    JAZZY.types["sensor_msgs/msg/JointState"],
    header=headers,
    name=st.lists(names, max_size=4),
    position=floats,
    velocity=floats,
    effort=floats,
)
vectors = st.builds(JAZZY.types["geometry_msgs/msg/Vector3"], x=st.floats(), y=st.floats(), z=st.floats())
quaternions = st.builds(
    JAZZY.types["geometry_msgs/msg/Quaternion"], x=st.floats(), y=st.floats(), z=st.floats(), w=st.floats()
)
transforms = st.builds(
    JAZZY.types["geometry_msgs/msg/TransformStamped"],
    header=headers,
    child_frame_id=names,
    transform=st.builds(JAZZY.types["geometry_msgs/msg/Transform"], translation=vectors, rotation=quaternions),
)
tf_messages = st.builds(JAZZY.types["tf2_msgs/msg/TFMessage"], transforms=st.lists(transforms, max_size=3))
points = st.builds(
    JAZZY.types["trajectory_msgs/msg/JointTrajectoryPoint"],
    positions=floats,
    velocities=floats,
    accelerations=floats,
    effort=floats,
    time_from_start=st.builds(
        JAZZY.types["builtin_interfaces/msg/Duration"],
        sec=st.integers(-(2**31), 2**31 - 1),
        nanosec=st.integers(0, 2**32 - 1),
    ),
)
trajectories = st.builds(
    JAZZY.types["trajectory_msgs/msg/JointTrajectory"],
    header=headers,
    joint_names=st.lists(names, max_size=3),
    points=st.lists(points, max_size=3),
)
strings = st.builds(JAZZY.types["std_msgs/msg/String"], data=st.text(max_size=20))
MESSAGES = st.one_of(
    joint_states.map(lambda m: ("sensor_msgs/msg/JointState", m)),
    tf_messages.map(lambda m: ("tf2_msgs/msg/TFMessage", m)),
    trajectories.map(lambda m: ("trajectory_msgs/msg/JointTrajectory", m)),
    strings.map(lambda m: ("std_msgs/msg/String", m)),
)


def rosbags_outcome(raw: bytes, msgtype: str) -> Any:
    from motion_formats_ros.codecs.rosbag.storage import deserialize_cdr

    try:
        return plain(deserialize_cdr(JAZZY, raw, msgtype))
    except Exception as exc:  # rosbags refuses it: the own decoder must not decode it
        return ("refused", type(exc).__name__)


@settings(max_examples=300, deadline=None)
@given(MESSAGES, st.binary(max_size=3))
def test_decoding_equals_rosbags(pair: tuple[str, Any], tail: bytes) -> None:
    msgtype, message = pair
    raw = bytes(JAZZY.serialize_cdr(message, msgtype)) + tail  # rosbag2 may store bytes after the message
    got = standard.decode(raw, msgtype)
    assert got is not None
    assert plain(got) == rosbags_outcome(raw, msgtype)


@settings(max_examples=400, deadline=None)
@given(MESSAGES, st.data())
def test_a_damaged_payload_is_decoded_as_rosbags_does_or_left_to_it(pair: tuple[str, Any], data: st.DataObject) -> None:
    msgtype, message = pair
    raw = bytearray(JAZZY.serialize_cdr(message, msgtype))
    for _ in range(data.draw(st.integers(1, 3))):
        where = data.draw(st.integers(0, len(raw) - 1))
        raw[where] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    payload = bytes(raw[:cut])
    got = standard.decode(payload, msgtype)
    if got is not None:
        assert plain(got) == rosbags_outcome(payload, msgtype)
