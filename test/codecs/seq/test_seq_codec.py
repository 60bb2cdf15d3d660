"""Choreonoid .seq: corpus files, every format generation, names, round trips, warnings."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import CORPUS, ELBOW_JUMP, corpus_path, elbow_jump, lossy_messages

from motion_formats_ros import Motion, MotionFile, ReadError, Series, WriteError, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs import seq
from motion_formats_ros.codecs.seq import SeqMotionRecord
from motion_formats_ros.core.errors import OptionError
from motion_formats_ros.core.notices import collect
from motion_formats_ros.registry import codec_for_path

CHOREONOID = CORPUS / "choreonoid"
SR1_BODY = CHOREONOID / "model" / "SR1.body"
SR1_FILES = ["v1/SR1WalkPattern2.yaml", "v2/SR1WalkPattern1.seq", "v2/SR1WalkPattern2.seq"]
#: SR1's joints in joint-ID order (from SR1.body).
SR1_JOINTS = [
    "RLEG_HIP_R",
    "RLEG_HIP_P",
    "RLEG_HIP_Y",
    "RLEG_KNEE",
    "RLEG_ANKLE_P",
    "RLEG_ANKLE_R",
    "RARM_SHOULDER_P",
    "RARM_SHOULDER_R",
    "RARM_SHOULDER_Y",
    "RARM_ELBOW",
    "RARM_WRIST_Y",
    "RARM_WRIST_P",
    "RARM_WRIST_R",
    "LLEG_HIP_R",
    "LLEG_HIP_P",
    "LLEG_HIP_Y",
    "LLEG_KNEE",
    "LLEG_ANKLE_P",
    "LLEG_ANKLE_R",
    "LARM_SHOULDER_P",
    "LARM_SHOULDER_R",
    "LARM_SHOULDER_Y",
    "LARM_ELBOW",
    "LARM_WRIST_Y",
    "LARM_WRIST_P",
    "LARM_WRIST_R",
    "WAIST_P",
    "WAIST_R",
    "CHEST",
]


@pytest.fixture
def choreonoid() -> Path:
    return corpus_path("choreonoid")


def doc(text: str, tmp_path: Path, name: str = "m.seq") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# ----------------------------------------------------------------------------- corpus
@pytest.mark.parametrize(
    ("name", "frames", "has_root", "zmp_frame"),
    [
        ("v1/SR1WalkPattern2.yaml", 7146, True, "world"),
        ("v2/SR1WalkPattern1.seq", 6701, False, None),
        ("v2/SR1WalkPattern2.seq", 7146, False, "root"),
    ],
)
def test_seq_corpus_files_read_with_sr1_names(
    choreonoid: Path, name: str, frames: int, has_root: bool, zmp_frame: str | None
) -> None:
    mf = read(choreonoid / name, body=SR1_BODY)
    m = mf.motion
    assert mf.format == "seq"
    assert mf.robot == "SR1"
    assert m.num_frames == frames
    assert m.rate == 500.0
    assert m.duration == pytest.approx((frames - 1) / 500.0)
    assert m.times[1] == 1 / 500
    assert m.joint_names == tuple(SR1_JOINTS)
    assert m.position is not None and m.position.shape == (frames, 29)
    assert (m.root_position is not None) is has_root
    if zmp_frame is None:
        assert "zmp" not in m.series
    else:
        assert m.series["zmp"].frame == zmp_frame
        assert m.series["zmp"].values.shape == (frames, 3)


def test_seq_corpus_values_match_the_text(choreonoid: Path) -> None:
    m = read(choreonoid / "v1/SR1WalkPattern2.yaml").motion
    assert m.joint_names[:2] == ("joint_0", "joint_1")
    assert m.position is not None and m.root_position is not None and m.root_orientation is not None
    assert m.position[1, 0] == 5.67643841e-08
    assert m.position[0, 3] == 0.07854
    # XYZQWQXQYQZ [9.14417338e-06, 0, 0.707499435, 1, 0, -6.9388939e-18, 0] → x, y, z, w
    np.testing.assert_array_equal(m.root_position[0], [9.14417338e-06, 0, 0.707499435])
    np.testing.assert_array_equal(m.root_orientation[0], [0, -6.9388939e-18, 0, 1])
    assert m.series["zmp"].values[-1].tolist() == [0.489949223, -0.00123313529, 0.0]


def test_seq_v1_and_v2_of_the_same_pattern_agree(choreonoid: Path) -> None:
    v1 = read(choreonoid / "v1/SR1WalkPattern2.yaml").motion
    v2 = read(choreonoid / "v2/SR1WalkPattern2.seq").motion
    assert v1.record(SeqMotionRecord).format_version == 1
    assert v2.record(SeqMotionRecord).format_version == 2
    np.testing.assert_array_equal(v1.position, v2.position)


@pytest.mark.parametrize("name", SR1_FILES)
def test_seq_cli_info_on_corpus(choreonoid: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", str(choreonoid / name), "--body", str(SR1_BODY), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    group = info["groups"]["target"]
    frames = read(choreonoid / name).motion.num_frames
    assert info["format"] == "seq"
    assert group["frames"] == frames
    assert group["rate"] == 500.0
    assert group["duration"] == pytest.approx((frames - 1) / 500)
    assert [j["name"] for j in group["joints"]] == SR1_JOINTS


def test_seq_cli_joint_names_beat_the_body(choreonoid: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = ",".join(f"n{i}" for i in range(29))
    path = choreonoid / SR1_FILES[1]
    assert main(["info", str(path), "--body", str(SR1_BODY), "--joint-names", names, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert [j["name"] for j in info["groups"]["target"]["joints"]] == names.split(",")


def test_seq_cli_convert_v4_lossless(choreonoid: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.seq"
    src = choreonoid / SR1_FILES[2]
    assert main(["convert", str(src), str(out), "--seq-version", "4", "--lossless"]) == 0
    assert "format_version: 4" in out.read_text()
    np.testing.assert_array_equal(read(out).motion.position, read(src).motion.position)


def test_seq_suffix_and_sniffing(choreonoid: Path, tmp_path: Path) -> None:
    assert codec_for_path(choreonoid / SR1_FILES[0]).name == "seq"
    assert codec_for_path(tmp_path / "x.yaml", for_write=True).name == "omf"
    flow = doc("{type: CompositeSeq, content: BodyMotion, frameRate: 10, components: []}\n", tmp_path, "f.yaml")
    assert codec_for_path(flow).name == "seq"
    assert not seq.sniff(flow, "format: omf\nversion: 1\n")


# ----------------------------------------------------------------------------- names
def test_seq_body_files_give_joint_ids_and_link_order(choreonoid: Path) -> None:
    sr1 = seq.load_body(SR1_BODY)
    assert sr1.joints == SR1_JOINTS
    assert sr1.links is not None and sr1.links[:5] == ["WAIST", "WAIST_P", "WAIST_R", "CHEST", "LARM_SHOULDER_P"]
    gr001 = seq.load_body(choreonoid / "model" / "GR001.body")  # jointId spelling
    assert gr001.joints is not None and gr001.joints[:2] == ["R_HIP_Y", "R_HIP_R"] and len(gr001.joints) == 20
    hrp4c = seq.load_body(choreonoid / "model" / "HRP4C.body")  # joint_id spelling
    assert hrp4c.joints is not None and hrp4c.joints[0] == "L_HIP_Y" and hrp4c.joints[31] == "R_WRIST_R"
    assert hrp4c.robot == "HRP-4C"


TWO_JOINTS = """\
type: CompositeSeq
content: BodyMotion
formatVersion: 2
frameRate: 10
numFrames: 2
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    numParts: 2
    frames:
      - [ 1, 2 ]
      - [ 3, 4 ]
"""


def test_seq_joint_name_precedence(tmp_path: Path) -> None:
    path = doc(TWO_JOINTS, tmp_path)
    assert read(path).motion.joint_names == ("joint_0", "joint_1")
    assert read(path, joint_names=["a", "b"]).motion.joint_names == ("a", "b")
    assert read(path, joint_names="a, b").motion.joint_names == ("a", "b")
    columns = tmp_path / "columns.yaml"
    columns.write_text("name: r\nformat: seq\ncolumns:\n  - {source: 1, name: knee}\n  - {source: 0, name: hip}\n")
    assert read(path, joint_map=columns).motion.joint_names == ("hip", "knee")
    jmap = tmp_path / "map.yaml"
    jmap.write_text("joint_names:\n  1: knee\n  0: hip\n")
    assert read(path, joint_map=jmap).motion.joint_names == ("hip", "knee")
    assert read(path, joint_map=["x", "y"], joint_names=["a", "b"]).motion.joint_names == ("a", "b")
    body = tmp_path / "r.body"
    body.write_text(
        "format: ChoreonoidBody\nname: R\nrootLink: B\nlinks:\n"
        "  - {name: B, jointType: free}\n  - {name: K, parent: B, jointId: 1}\n  - {name: H, parent: B, jointId: 0}\n"
    )
    assert read(path, body=body).motion.joint_names == ("H", "K")
    assert read(path, body=body).robot == "R"
    assert read(path, body=body, joint_names=["a", "b"]).motion.joint_names == ("a", "b")
    with pytest.raises(ReadError, match="3 joint names but the file has 2"):
        read(path, joint_names=["a", "b", "c"])


def test_seq_part_labels_name_joints(tmp_path: Path) -> None:
    text = TWO_JOINTS.replace("    numParts: 2\n", "    numParts: 2\n    partLabels: [ hip, knee ]\n")
    assert read(doc(text, tmp_path)).motion.joint_names == ("hip", "knee")


# ----------------------------------------------------------------------------- generations
V1 = """\
# Body motion data set format version 1.0 defined by cnoid-Robotics

type: BodyMotion
components: \n\
  - \n\
    type: "MultiValueSeq"
    purpose: "JointPosition"
    frameRate: 100
    numFrames: 2
    numParts: 2
    frames: \n\
      - [ 0.5, 1.5 ]   \n\
      - [ 2.5, 3.5 ]
  - \n\
    type: "MultiSE3Seq"
    content: "LinkPosition"
    frameRate: 100
    numFrames: 2
    numParts: 1
    format: XYZQXQYQZQW
    frames: \n\
      - [ [ 1, 2, 3, 0, 0, 0, 1 ] ]
      - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]
  - \n\
    type: "Vector3Seq"
    content: "RelativeZMP"
    frameRate: 100
    numFrames: 2
    frames: \n\
      - [ 0.1, 0.2, 0.3 ]
      - [ 0.4, 0.5, 0.6 ]
"""

V3 = """\
type: CompositeSeq
content: BodyMotion
formatVersion: 3
frameRate: 100
numFrames: 2
components:
  - type: MultiValueSeq
    content: MultiJointDisplacementSeq
    numParts: 2
    frames: [ [ 0.5, 1.5 ], [ 2.5, 3.5 ] ]
  - type: MultiSE3Seq
    content: MultiLinkPositionSeq
    numParts: 1
    SE3Format: XYZQWQXQYQZ
    frames:
    - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]   # a comment
    - [ [ 1, 2, 3, 0, 1, 0, 0 ] ]
  - type: Vector3Seq
    content: ZMPSeq
    isRootRelative: true
    frames:
      - [ 0.1, 0.2, 0.3 ]
      - [ 0.4, 0.5, 0.6 ]
"""

V4 = """\
type: CompositeSeq
content: BodyMotion
format_version: 4
frame_rate: 100
num_frames: 2
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    num_parts: 2
    frames:
      - [ 0.5, 1.5 ]
      - [ 2.5, 3.5 ]
  -
    type: MultiSE3Seq
    content: LinkPosition
    num_parts: 1
    SE3Format: XYZQWQXQYQZ
    frames:
      - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]
      - [ [ 1, 2, 3, 0, 1, 0, 0 ] ]
  -
    type: Vector3Seq
    content: ZMP
    isRootRelative: true
    frames:
      - [ 0.1, 0.2, 0.3 ]
      - [ 0.4, 0.5, 0.6 ]
"""

FLOW = (
    '{"type": "CompositeSeq", "content": "BodyMotion", "formatVersion": 2, "frameRate": 100,'
    ' "components": [{"type": "MultiValueSeq", "content": "JointDisplacement", "numParts": 2,'
    ' "frames": [[0.5, 1.5], [2.5, 3.5]]}, {"type": "MultiSE3Seq", "content": "LinkPosition",'
    ' "numParts": 1, "SE3Format": "XYZRPY", "frames": [[[1, 2, 3, 0, 0, 0]], [[1, 2, 3, 3.141592653589793, 0, 0]]]},'
    ' {"type": "Vector3Seq", "content": "ZMP", "is_root_relative": true,'
    ' "frames": [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]}]}'
)


@pytest.mark.parametrize(("text", "version"), [(V1, 1), (V3, 3), (V4, 4), (FLOW, 2)], ids=["v1", "v3", "v4", "flow"])
def test_seq_every_generation_reads_the_same_motion(tmp_path: Path, text: str, version: int) -> None:
    m = read(doc(text, tmp_path)).motion
    assert m.record(SeqMotionRecord).format_version == version
    assert m.rate == 100.0
    assert m.times.tolist() == [0.0, 0.01]
    np.testing.assert_array_equal(m.position, [[0.5, 1.5], [2.5, 3.5]])
    np.testing.assert_array_equal(m.root_position, [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_allclose(m.root_orientation, [[0, 0, 0, 1], [1, 0, 0, 0]], atol=1e-15)
    np.testing.assert_array_equal(m.series["zmp"].values, [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    assert m.series["zmp"].frame == "root"


def test_seq_version_5_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match="format version 5 is not supported") as err:
        read(doc(V4.replace("format_version: 4", "format_version: 5"), tmp_path))
    assert err.value.line == 3


def test_seq_variable_frame_times_are_kept(tmp_path: Path) -> None:
    text = """\
type: CompositeSeq
content: BodyMotion
formatVersion: 2
frameRate: 10
hasFrameTime: true
components:
  -
    type: MultiValueSeq
    content: JointDisplacement
    numParts: 2
    frames:
      - [ 0.0, 0.0,  0.0  ]
      - [ 0.1, 0.01, 0.01 ]
      - [ 0.3, 0.01, 0.02 ]
      - [ 0.4, 0.02, 0.03 ]
      - [ 0.7, 2,    0.04 ]
  -
    type: MultiSE3Seq
    content: LinkPosition
    numParts: 1
    SE3Format: XYZQWQXQYQZ
    frames:
      - [ 0.0, [ -2, -0.5, 0.1, 1, 0, 0, 0 ] ]
      - [ 0.1, [ -2, -0.5, 0.1, 1, 0, 0, 0 ] ]
      - [ 0.3, [ -2, -0.5, 0.1, 1, 0, 0, 0 ] ]
      - [ 0.4, [ -2, -0.5, 0.1, 1, 0, 0, 0 ] ]
      - [ 0.7, [ -2, -0.5, 0.1, 1, 0, 0, 0 ] ]
"""
    path = doc(text, tmp_path)
    m = read(path).motion
    assert m.times.tolist() == [0.0, 0.1, 0.3, 0.4, 0.7]
    assert m.rate is None
    assert m.record(SeqMotionRecord).frame_rate == 10.0
    np.testing.assert_array_equal(m.position[4], [2, 0.04])
    # Choreonoid's import: row i → frame int(t·rate), gaps repeat the previous frame.
    held = m.resample(10, method="hold")
    assert held.num_frames == 8
    np.testing.assert_array_equal(held.position[:, 1], [0.0, 0.01, 0.01, 0.02, 0.03, 0.03, 0.03, 0.04])
    # Written back with its times.
    out = tmp_path / "out.seq"
    write(read(path), out)
    assert "hasFrameTime: true" in out.read_text()
    back = read(out).motion
    np.testing.assert_array_equal(back.times, m.times)
    np.testing.assert_array_equal(back.position, m.position)


def test_seq_component_frame_rate_overrides_the_top(tmp_path: Path) -> None:
    text = TWO_JOINTS.replace("    numParts: 2\n", "    numParts: 2\n    frameRate: 4\n")
    m = read(doc(text, tmp_path)).motion
    assert m.rate == 4.0
    assert m.times.tolist() == [0.0, 0.25]


def test_seq_components_at_different_rates_are_put_on_one_time_base(tmp_path: Path) -> None:
    text = (
        TWO_JOINTS.replace("      - [ 3, 4 ]\n", "      - [ 3, 4 ]\n      - [ 5, 6 ]\n").replace(
            "numFrames: 2", "numFrames: 3"
        )
        + "  -\n    type: Vector3Seq\n    content: ZMP\n    frameRate: 5\n    numFrames: 2\n    frames:\n"
        + "      - [ 0, 0, 0 ]\n      - [ 1, 2, 3 ]\n"
    )
    with pytest.warns(UserWarning, match="interpolated"):
        m = read(doc(text, tmp_path)).motion
    assert m.rate == 10.0
    np.testing.assert_allclose(m.series["zmp"].values, [[0, 0, 0], [0.5, 1, 1.5], [1, 2, 3]])


UNKNOWN = (
    TWO_JOINTS
    + """\
  -
    type: MultiValueSeq
    content: JointEffort
    numParts: 2
    frames:
      - [ 10, 20 ]
      - [ 30, 40 ]
  -
    type: MultiValueSeq
    content: JointVelocity
    numParts: 2
    frames:
      - [ -1, -2 ]
      - [ -3, -4 ]
  -
    type: MultiValueSeq
    content: JointTemperatureOfMyRobot
    numParts: 2
    myKey: { a: 1, b: [ x, y ] }
    frames:
      - [ 36.5, 37.5 ]
      - [ 38.5, 39.5 ]
  -
    type: Vector3Seq
    content: CoM
    frames: []
"""
)


def test_seq_unknown_components_are_kept_and_written_back(tmp_path: Path) -> None:
    m = read(doc(UNKNOWN, tmp_path)).motion
    np.testing.assert_array_equal(m.effort, [[10, 20], [30, 40]])
    np.testing.assert_array_equal(m.velocity, [[-1, -2], [-3, -4]])
    kept = m.record(SeqMotionRecord).components
    assert [c["content"] for c in kept] == ["JointTemperatureOfMyRobot", "CoM"]
    assert kept[0]["myKey"] == {"a": 1, "b": ["x", "y"]}
    np.testing.assert_array_equal(kept[0]["frames"], [[36.5, 37.5], [38.5, 39.5]])
    out = tmp_path / "out.seq"
    write(read(doc(UNKNOWN, tmp_path, "again.seq")), out)
    back = read(out).motion
    np.testing.assert_array_equal(back.effort, m.effort)
    np.testing.assert_array_equal(back.velocity, m.velocity)
    assert back.record(SeqMotionRecord).components[0]["myKey"] == {"a": 1, "b": ["x", "y"]}
    np.testing.assert_array_equal(back.record(SeqMotionRecord).components[0]["frames"], kept[0]["frames"])
    assert back.record(SeqMotionRecord).components[1]["frames"] == []


def test_seq_zero_frame_components(tmp_path: Path) -> None:
    empty = TWO_JOINTS.replace("    frames:\n      - [ 1, 2 ]\n      - [ 3, 4 ]\n", "    frames: []\n")
    empty = empty.replace("numFrames: 2", "numFrames: 0")
    m = read(doc(empty, tmp_path)).motion
    assert m.num_frames == 0
    assert m.position is not None and m.position.shape == (0, 2)
    out = tmp_path / "out.seq"
    write(MotionFile.single(m), out)
    assert read(out).motion.position.shape == (0, 2)  # type: ignore[union-attr]
    # A zero-frame ZMP beside joints is kept as it was.
    text = TWO_JOINTS + "  -\n    type: Vector3Seq\n    content: ZMP\n    numFrames: 0\n    frames:\n"
    m = read(doc(text, tmp_path, "z.seq")).motion
    assert m.num_frames == 2 and "zmp" not in m.series
    assert m.record(SeqMotionRecord).components[0]["content"] == "ZMP"


def test_seq_scientific_numbers_without_a_dot_are_numbers(tmp_path: Path) -> None:
    # %.9g writes 1e-08; YAML 1.1 would call it a string, Choreonoid reads a number.
    m = read(doc(TWO_JOINTS.replace("[ 1, 2 ]", "[ 1e-08, -2E+3 ]"), tmp_path)).motion
    assert m.position is not None and m.position[0].tolist() == [1e-08, -2000.0]


def test_seq_nan_and_inf_values(tmp_path: Path) -> None:
    m = read(doc(TWO_JOINTS.replace("[ 1, 2 ]", "[ nan, -.inf ]"), tmp_path)).motion
    assert m.position is not None and np.isnan(m.position[0, 0]) and m.position[0, 1] == -np.inf
    out = tmp_path / "out.seq"
    write(read(doc(TWO_JOINTS.replace("[ 1, 2 ]", "[ nan, -.inf ]"), tmp_path, "n.seq")), out)
    back = read(out).motion.position
    assert back is not None and np.isnan(back[0, 0]) and back[0, 1] == -np.inf


# ----------------------------------------------------------------------------- writing
def motion(frames: int = 30, rate: float = 50.0, links: int = 2, seed: int = 1) -> Motion:
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(seed)
    quats = Rotation.random(frames * (links + 1), random_state=seed).as_quat().reshape(frames, links + 1, 4)
    return Motion(
        times=np.arange(frames) / rate,
        joint_names=("a", "b", "c"),
        position=rng.normal(size=(frames, 3)),
        velocity=rng.normal(size=(frames, 3)),
        effort=rng.normal(size=(frames, 3)),
        root_position=rng.normal(size=(frames, 3)),
        root_orientation=quats[:, 0],
        link_names=tuple(f"l{i}" for i in range(links)),
        links={"position": rng.normal(size=(frames, links, 3)), "orientation": quats[:, 1:]},
        series={"zmp": Series(rng.normal(size=(frames, 3)), frame="root")},
    )


def assert_same(a: Motion, b: Motion, exact: bool) -> None:
    check = np.testing.assert_array_equal if exact else np.testing.assert_allclose
    assert a.num_frames == b.num_frames
    check(a.times, b.times)
    for name in ("position", "velocity", "effort", "root_position", "root_orientation"):
        check(getattr(a, name), getattr(b, name))
    for key in a.links:
        check(a.links[key], b.links[key])
    check(a.series["zmp"].values, b.series["zmp"].values)
    assert a.series["zmp"].frame == b.series["zmp"].frame


def rounded(m: Motion) -> Motion:
    """``m`` with every value as %.9g would write it."""

    def r(a: np.ndarray) -> np.ndarray:
        return np.array([float(f"{v:.9g}") for v in a.ravel()]).reshape(a.shape)

    return m._map_arrays(m.times, lambda a, kind: r(a))


@pytest.mark.parametrize("version", [2, 4])
@pytest.mark.parametrize("lossless", [False, True])
def test_seq_round_trip(tmp_path: Path, version: int, lossless: bool) -> None:
    m = motion()
    first = tmp_path / "first.seq"
    write(MotionFile.single(m), first, version=version, lossless=lossless)
    text = first.read_text()
    assert ("format_version: 4" in text) if version == 4 else ("formatVersion: 2" in text)
    assert not any(line != line.rstrip() for line in text.splitlines()), "trailing spaces"
    a = read(first).motion
    assert_same(rounded(m) if not lossless else m, a, exact=True)
    # v2 → v2 (v4 → v4): the same numbers to the digit.
    second = tmp_path / "second.seq"
    write(read(first), second, version=version, lossless=lossless)
    assert second.read_bytes() == first.read_bytes()
    assert_same(a, read(second).motion, exact=True)


def test_seq_corpus_round_trip_is_exact(choreonoid: Path, tmp_path: Path) -> None:
    for name in SR1_FILES:
        src = read(choreonoid / name)
        out = tmp_path / Path(name).with_suffix(".seq").name
        write(src, out, overwrite=True)
        back = read(out).motion
        np.testing.assert_array_equal(back.position, src.motion.position)
        if src.motion.root_orientation is not None:
            np.testing.assert_array_equal(back.root_orientation, src.motion.root_orientation)
        if "zmp" in src.motion.series:
            np.testing.assert_array_equal(back.series["zmp"].values, src.motion.series["zmp"].values)


def test_seq_writes_choreonoids_layout(tmp_path: Path) -> None:
    m = Motion(
        times=np.arange(2) / 100,
        joint_names=("a", "b"),
        position=[[0.0, 1.5], [1e-08, -2.0]],
        root_position=[[1, 2, 3], [1, 2, 3]],
        root_orientation=[[0, 0, 0, 1], [0, 0, 0, 1]],
    )
    out = tmp_path / "x.seq"
    write(MotionFile.single(m), out)
    assert out.read_text() == (
        "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: 100\nnumFrames: 2\ncomponents:\n"
        "  -\n    type: MultiValueSeq\n    content: JointDisplacement\n    numParts: 2\n    frameRate: 100\n"
        "    numFrames: 2\n    frames:\n      - [ 0, 1.5 ]\n      - [ 1e-08, -2 ]\n"
        "  -\n    type: MultiSE3Seq\n    content: LinkPosition\n    numParts: 1\n    frameRate: 100\n"
        "    numFrames: 2\n    SE3Format: XYZQWQXQYQZ\n    frames:\n"
        "      - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]\n      - [ [ 1, 2, 3, 1, 0, 0, 0 ] ]\n"
    )


@pytest.mark.parametrize("fmt", ["XYZQWQXQYQZ", "XYZQXQYQZQW", "XYZRPY"])
def test_seq_se3_formats_on_request(tmp_path: Path, fmt: str) -> None:
    m = motion(frames=10, links=1)
    out = tmp_path / "x.seq"
    write(MotionFile.single(m), out, se3_format=fmt, lossless=True)
    assert f"SE3Format: {fmt}" in out.read_text()
    back = read(out).motion
    assert back.root_orientation is not None and m.root_orientation is not None
    # Same rotation (q and -q are the same rotation).
    dots = np.abs(np.sum(back.root_orientation * m.root_orientation, axis=1))
    np.testing.assert_allclose(dots, 1.0, atol=1e-12)
    if fmt != "XYZRPY":
        np.testing.assert_array_equal(back.root_orientation, m.root_orientation)


def test_seq_write_warns_naming_what_is_dropped(tmp_path: Path) -> None:
    from conftest import make_file

    out = tmp_path / "x.seq"
    with pytest.warns(UserWarning, match="cannot hold") as record:
        write(make_file(), out)
    message = " ".join(str(w.message) for w in record)
    for word in ("'actual'", "temperatures", "accelerations", "IMUs", "'base'", "linear_velocity"):
        assert word in message
    back = read(out).motion
    assert back.num_frames == make_file().motion.num_frames


def test_seq_variable_rate_motion_is_written_with_frame_times(tmp_path: Path) -> None:
    times = np.array([0.0, 0.01, 0.035, 0.05])
    m = Motion(times=times, joint_names=("a",), position=[[1.0], [2.0], [3.0], [4.0]])
    out = tmp_path / "x.seq"
    write(MotionFile.single(m), out)
    text = out.read_text()
    assert "hasFrameTime: true" in text and "      - [ 0.035, 3 ]" in text
    np.testing.assert_array_equal(read(out).motion.times, times)


def test_seq_write_options_are_checked(tmp_path: Path) -> None:
    mf = MotionFile.single(motion(frames=3))
    with pytest.raises(OptionError, match="'version' expects one of 2, 4, got 3"):
        write(mf, tmp_path / "a.seq", version=3)
    with pytest.raises(OptionError, match="'se3_format' expects one of 'XYZQWQXQYQZ', 'XYZQXQYQZQW', 'XYZRPY'"):
        write(mf, tmp_path / "b.seq", se3_format="XYZ")
    with pytest.raises(TypeError, match="bogus"):
        write(mf, tmp_path / "c.seq", bogus=1)
    out = tmp_path / "d.seq"
    write(mf, out)
    with pytest.raises(WriteError, match="already exists"):
        write(mf, out)


def test_seq_numframes_mismatch_warns(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        m = read(doc(TWO_JOINTS.replace("numFrames: 2", "numFrames: 5"), tmp_path)).motion
    assert m.num_frames == 2
    assert any("numFrames 5" in str(w.message) for w in record)


def test_seq_link_parts_are_named_from_the_body(tmp_path: Path) -> None:
    body = tmp_path / "r.body"
    body.write_text(
        "format: ChoreonoidBody\nname: R\nrootLink: B\nlinks:\n  - {name: B, jointType: free}\n"
        "  - {name: L, parent: B, jointId: 1}\n  - {name: L2, parent: L, jointId: 2}\n"
        "  - {name: K, parent: B, jointId: 0}\n"
    )
    m = Motion(
        times=np.arange(2) / 10,
        root_position=np.zeros((2, 3)),
        root_orientation=np.tile([0.0, 0, 0, 1], (2, 1)),
        link_names=("x", "y", "z"),
        links={"position": np.ones((2, 3, 3)), "orientation": np.tile([0.0, 0, 1, 0], (2, 3, 1))},
    )
    out = tmp_path / "links.seq"
    write(MotionFile.single(m), out)
    assert "numParts: 4" in out.read_text()
    assert read(out).motion.link_names == ("link_1", "link_2", "link_3")
    named = read(out, body=body).motion
    assert named.link_names == ("L", "L2", "K")  # depth first from the root, children in file order
    np.testing.assert_array_equal(named.links["orientation"], m.links["orientation"])


def test_seq_cli_hold_resampling_of_frame_times(tmp_path: Path) -> None:
    text = (
        "type: CompositeSeq\ncontent: BodyMotion\nformatVersion: 2\nframeRate: 10\nhasFrameTime: true\n"
        "components:\n  -\n    type: MultiValueSeq\n    content: JointDisplacement\n    numParts: 1\n"
        "    frames:\n      - [ 0.0, 1 ]\n      - [ 0.12, 2 ]\n      - [ 0.15, 3 ]\n      - [ 0.41, 4 ]\n"
    )
    src = doc(text, tmp_path)
    out = tmp_path / "held.seq"
    assert main(["convert", str(src), str(out), "--rate", "10", "--resample", "hold"]) == 0
    m = read(out).motion
    assert m.rate == 10.0 and "hasFrameTime" not in out.read_text()
    np.testing.assert_array_equal(m.position[:, 0], [1, 3, 3, 3, 4])  # type: ignore[index]


def test_a_jump_between_keyframes_written_as_a_line_names_the_joint_and_times(tmp_path: Path) -> None:
    with collect(warn=False) as report:
        write(elbow_jump(), tmp_path / "jump.seq")
    assert any(ELBOW_JUMP in m for m in lossy_messages(report))
