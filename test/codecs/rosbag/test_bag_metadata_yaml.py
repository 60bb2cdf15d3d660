"""rosbag2's metadata.yaml read without a YAML library gives what PyYAML and rosbags' parser give, or steps aside."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import corpus_params
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from motion_formats_ros.codecs.rosbag.storage import metadata_yaml


def theirs(text: str) -> tuple[Any, Any]:
    """(PyYAML's document, rosbags' parser's document) of ``text``; an exception's type where one fails."""
    out = []
    for parse in (lambda t: yaml.load(t, Loader=yaml.SafeLoader), lambda t: YAML(typ="safe").load(t)):
        try:
            out.append(parse(text))
        except Exception as exc:
            out.append(type(exc))
    return out[0], out[1]


def typed(value: Any) -> Any:
    """``value`` with the type of every leaf (True is not 1, "1" is not 1)."""
    if isinstance(value, dict):
        return {(type(k).__name__, k): typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)


def agrees(text: str) -> bool:
    """Whether ``load`` gives both libraries' document (True), or steps aside (False)."""
    try:
        ours = metadata_yaml.load(text)
    except metadata_yaml.NotPlainYaml:
        return False
    pyyaml, ruamel = theirs(text)
    assert typed(ours) == typed(pyyaml) == typed(ruamel), text
    return True


words = st.text(
    st.sampled_from("abcXYZ_/ .-:#'\"\\0123456789[]{},&*!|>%@`yesnoTrueflsNul~\x07\x85\xa0é\t"), min_size=0, max_size=12
)
leaves = st.one_of(
    st.integers(-(2**63), 2**64),
    st.booleans(),
    st.none(),
    words,
    st.sampled_from(["yes", "No", "on", "1e3", "0o17", "007", "1:30", "null", "~", "true", "2001-12-14", "a: b"]),
    st.just([]),
    st.just({}),
)
keys = st.one_of(words.filter(bool), st.sampled_from(["version", "true", "yes", "1", "null", "a b"]))
documents = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)),
    max_leaves=12,
).map(lambda d: {"rosbag2_bagfile_information": d})


def dumped(doc: Any, how: str) -> str:
    if how == "pyyaml":
        return yaml.safe_dump(doc, default_flow_style=False, sort_keys=False)
    if how == "pyyaml-indented":
        return yaml.safe_dump(doc, default_flow_style=False, indent=4, width=20)
    stream = io.StringIO()
    YAML(typ="safe", pure=True).dump(doc, stream)
    return stream.getvalue()


@settings(max_examples=400, deadline=None)
@given(documents, st.sampled_from(["pyyaml", "pyyaml-indented", "ruamel"]))
def test_what_writers_write_is_read_as_the_libraries_read_it(doc: Any, how: str) -> None:
    agrees(dumped(doc, how))


LINES = ["k:", "k: v", "j: 2", "- a", "- k: 1", "-", "x", "k: 'q''", 'k: "a\\tb"', "k: []", "k: yes", "k: 007"]
LINES += ["# c", "k: a # b", "---", "k: 'it''s'", 'k: "q\\"', "- - 1", "k: {a: 1}", "k: &a 1", "k: !!str 1"]
LINES += ["k: a\x07b", "k: a\x85b", "k: caf\xe9", "k: a\xa0b", "k: 'a\x07'"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from(LINES)), max_size=8))
def test_any_text_is_read_as_the_libraries_read_it_or_left_to_them(lines: list[tuple[int, str]]) -> None:
    agrees("\n".join(" " * indent + body for indent, body in lines) + "\n")


def test_the_metadata_recorders_write_needs_no_library(tmp_path: Path) -> None:
    """Written by rosbag2 (yaml-cpp: QoS as one quoted line, a long hash on the next line), rosbags and this package."""
    yaml_cpp = (
        "rosbag2_bagfile_information:\n"
        "  version: 8\n"
        "  storage_identifier: sqlite3\n"
        "  duration:\n"
        "    nanoseconds: 1500\n"
        "  relative_file_paths:\n"
        "    - rec_0.db3\n"
        "  topics_with_message_count:\n"
        "    - topic_metadata:\n"
        "        name: /joint_states\n"
        "        type: sensor_msgs/msg/JointState\n"
        "        serialization_format: cdr\n"
        '        offered_qos_profiles: "- history: 3\\n  depth: 0\\n  reliability: 1\\n  deadline:\\n    sec: 9"\n'
        "        type_description_hash: \n"
        "          RIHS01_a13ee3a330e346c9d87b5aa18d24e11690752bd33a0350f11c5882bc9179260e\n"
        "      message_count: 20\n"
        '  compression_format: ""\n'
        "  compression_mode: ''\n"
        "  custom_data: ~\n"
        "  ros_distro: jazzy\n"
    )
    assert agrees(yaml_cpp)
    from test_bag_direct import _layout

    for kind in ("mcap-folder", "sqlite3-folder", "package-mcap"):
        (tmp_path / kind).mkdir()
        assert agrees((_layout(tmp_path / kind, kind) / "metadata.yaml").read_text()), kind


@pytest.mark.parametrize("bag", corpus_params("rosbag", "ros2/*"))
def test_the_corpus_metadata_is_read_alike(bag: Path) -> None:
    meta = bag / "metadata.yaml"
    if meta.is_file():
        agrees(meta.read_text())
