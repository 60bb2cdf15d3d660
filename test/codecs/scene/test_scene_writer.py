"""Writing motions as scenes: the trajectories reproduce the motion; CLI convert and validate."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import ELBOW_JUMP, corpus_path, elbow_jump, lossy_messages
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.spatial.transform import Rotation

from motion_formats_ros import Motion, MotionFile, WriteError, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.codecs.scene import load_scene
from motion_formats_ros.core.hermite import shape_preserving_velocities
from motion_formats_ros.core.notices import collect
from motion_formats_ros.core.spatial import unit_quaternions

REPO = Path(__file__).resolve().parents[3]


def arm_motion(frames: int = 30, with_velocity: bool = True, with_acceleration: bool = False) -> Motion:
    t = np.arange(frames) / 25.0
    pos = np.stack([np.sin(t), np.cos(2 * t), 0.1 * t], axis=1)
    vel = np.stack([np.cos(t), -2 * np.sin(2 * t), np.full_like(t, 0.1)], axis=1)
    acc = np.stack([-np.sin(t), -4 * np.cos(2 * t), np.zeros_like(t)], axis=1)
    return Motion(
        times=t,
        joint_names=("shoulder", "elbow", "wrist"),
        position=pos,
        velocity=vel if with_velocity else None,
        acceleration=acc if with_acceleration else None,
    )


@pytest.mark.parametrize(("velocity", "acceleration", "order"), [(False, False, 1), (True, False, 3), (True, True, 5)])
def test_round_trip_values_at_control_points(tmp_path: Path, velocity: bool, acceleration: bool, order: int) -> None:
    motion = arm_motion(with_velocity=velocity, with_acceleration=acceleration)
    path = tmp_path / "arm.json5"
    write(MotionFile.single(motion, robot="arm"), path)
    scene = load_scene(path)
    traj = scene.trajectories["motion"]
    assert set(traj.orders) == {order}
    np.testing.assert_array_equal(traj.times, motion.times)
    np.testing.assert_array_equal(traj.evaluate(motion.times), motion.position)
    back = read(path).motion
    assert back.joint_names == motion.joint_names
    np.testing.assert_array_equal(back.sample(motion.times).position, motion.position)
    if velocity:
        assert back.velocity is not None and motion.velocity is not None
        np.testing.assert_allclose(traj.evaluate(motion.times, 1), motion.velocity, atol=1e-12)
    if acceleration:
        assert motion.acceleration is not None
        np.testing.assert_allclose(traj.evaluate(motion.times, 2), motion.acceleration, atol=1e-10)


def test_velocities_are_written_when_one_joints_are_missing(tmp_path: Path) -> None:
    """A joint without velocities (an OMF group pads absent joints with NaN) loses no other joint's."""
    motion = arm_motion(frames=6)
    assert motion.velocity is not None
    velocity = motion.velocity.copy()
    velocity[:, 1] = np.nan  # elbow: none at all
    velocity[3, 2] = np.nan  # wrist: one frame
    gappy = dataclasses.replace(motion, velocity=velocity)
    with collect(warn=False) as report:
        write(MotionFile.single(gappy), tmp_path / "gappy.json5")
    (message,) = [m for m in lossy_messages(report) if "velocities" in m]
    assert "joints elbow, wrist at 6 frame(s)" in message and "shape-preserving velocities" in message
    traj = load_scene(tmp_path / "gappy.json5").trajectories["motion"]
    assert traj.df is not None and set(traj.orders) == {3}
    np.testing.assert_array_equal(traj.df[:, 0], motion.velocity[:, 0])  # written as they are
    np.testing.assert_array_equal(traj.df[[0, 1, 2, 4, 5], 2], motion.velocity[[0, 1, 2, 4, 5], 2])
    assert motion.position is not None
    slopes = shape_preserving_velocities(motion.position, motion.times)
    np.testing.assert_allclose(traj.df[:, 1], slopes[:, 1], rtol=1e-12)
    np.testing.assert_allclose(traj.df[3, 2], slopes[3, 2], rtol=1e-12)
    back = read(tmp_path / "gappy.json5").motion.sample(motion.times)
    assert back.velocity is not None
    np.testing.assert_allclose(back.velocity[:, 0], motion.velocity[:, 0], atol=1e-12)


def test_filled_velocities_keep_the_spline_within_the_frames(tmp_path: Path) -> None:
    """A joint's missing velocities are the player's shape-preserving ones: its spline peaks where
    its frames do (plain slopes of the positions, 0.5 then -0.1 around the peak of 1, overshoot it)."""
    motion = Motion(
        times=[0.0, 1, 2, 3],
        joint_names=("j1", "j2"),
        position=[[0.0, 0], [1, 0.5], [1.5, 1], [0.2, 0.3]],
        velocity=[[4.0, np.nan], [1, np.nan], [-3, np.nan], [0, np.nan]],
    )
    with collect(warn=False):
        write(MotionFile.single(motion), tmp_path / "v.json5")
    traj = load_scene(tmp_path / "v.json5").trajectories["motion"]
    assert traj.df is not None
    np.testing.assert_array_equal(traj.df[:, 0], [4.0, 1, -3, 0])  # the motion's, as they are
    assert traj.df[2, 1] == 0.0  # the peak of j2's frames
    j2 = traj.evaluate(np.linspace(0, 3, 3001))[:, 1]
    assert j2.max() <= 1.0 and j2.min() >= 0.0


def test_accelerations_are_written_when_one_joints_are_missing(tmp_path: Path) -> None:
    motion = arm_motion(frames=6, with_acceleration=True)
    assert motion.acceleration is not None
    acceleration = motion.acceleration.copy()
    acceleration[:, 0] = np.nan
    with collect(warn=False) as report:
        write(MotionFile.single(dataclasses.replace(motion, acceleration=acceleration)), tmp_path / "a.json5")
    assert any("no accelerations for joints shoulder at 6 frame(s)" in m for m in lossy_messages(report))
    traj = load_scene(tmp_path / "a.json5").trajectories["motion"]
    assert traj.ddf is not None and set(traj.orders) == {5}
    np.testing.assert_array_equal(traj.ddf[:, 1:], motion.acceleration[:, 1:])


def test_velocities_of_no_joint_are_no_derivatives(tmp_path: Path) -> None:
    motion = arm_motion(frames=4)
    assert motion.velocity is not None
    with collect(warn=False) as report:
        write(MotionFile.single(dataclasses.replace(motion, velocity=motion.velocity * np.nan)), tmp_path / "n.json5")
    assert not [m for m in lossy_messages(report) if "velocit" in m]  # nothing of them to lose
    assert set(load_scene(tmp_path / "n.json5").trajectories["motion"].orders) == {1}
    no_velocity = arm_motion(frames=4, with_velocity=False, with_acceleration=True)
    with collect(warn=False) as report:  # accelerations without velocities: ddf needs df
        write(MotionFile.single(no_velocity), tmp_path / "v.json5")
    assert any("accelerations not written" in m for m in lossy_messages(report))


def test_loop_becomes_repeat(tmp_path: Path) -> None:
    motion = Motion(times=[0, 1, 2], joint_names=("a",), position=[[0], [1], [0]], loop=(0.0, 2.0))
    write(MotionFile.single(motion), tmp_path / "loop.json5")
    assert load_scene(tmp_path / "loop.json5").trajectories["motion"].repeat_at == 2.0
    assert read(tmp_path / "loop.json5").motion.loop == (0.0, 2.0)


def test_joint_limits_from_the_option_and_from_a_urdf(tmp_path: Path) -> None:
    motion = arm_motion()
    write(
        MotionFile.single(motion),
        tmp_path / "a.json5",
        joint_limits={"shoulder": (-1.5, 1.5), "elbow": {"minValue": -2, "maxVelocity": 3}},
    )
    joints = load_scene(tmp_path / "a.json5").models["robot"].joints
    assert (joints["shoulder"].min_value, joints["shoulder"].max_value) == (-1.5, 1.5)
    assert (joints["elbow"].min_value, joints["elbow"].max_velocity) == (-2, 3)
    assert joints["wrist"].max_value == np.inf
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        '<robot name="arm"><link name="a"/><link name="b"/>'
        '<joint name="elbow" type="revolute"><parent link="a"/><child link="b"/>'
        '<limit lower="-0.5" upper="0.75" effort="1" velocity="2"/></joint></robot>'
    )
    write(MotionFile.single(motion), tmp_path / "b.json5", urdf=urdf)
    elbow = load_scene(tmp_path / "b.json5").models["robot"].joints["elbow"]
    assert (elbow.min_value, elbow.max_value, elbow.max_velocity) == (-0.5, 0.75, 2.0)


def test_root_pose_round_trip(tmp_path: Path) -> None:
    n = 20
    t = np.arange(n) / 10.0
    q = Rotation.from_euler("z", np.linspace(0, 3 * np.pi, n)[:, None]).as_quat()  # crosses the double cover
    motion = Motion(
        times=t, joint_names=("a",), position=np.zeros((n, 1)), root_position=np.c_[t, t, t], root_orientation=q
    )
    write(MotionFile.single(motion), tmp_path / "root.json5")
    back = read(tmp_path / "root.json5").motion.sample(t)
    assert back.root_position is not None and back.root_orientation is not None
    np.testing.assert_allclose(back.root_position, motion.root_position, atol=1e-15)
    dots = np.abs(np.sum(back.root_orientation * q, axis=1))
    np.testing.assert_allclose(dots, 1.0, atol=1e-12)


def test_a_motion_without_a_root_pose_reads_back_without_one(tmp_path: Path) -> None:
    motion = arm_motion()
    write(MotionFile.single(motion), tmp_path / "joints.json5")
    assert "pose" not in load_scene(tmp_path / "joints.json5").canonical()["objects"]["robot"]
    back = read(tmp_path / "joints.json5")
    assert back.motion.root_position is None and back.motion.root_orientation is None
    write(back, tmp_path / "again.json5")  # scene → scene keeps the object as it was
    again = read(tmp_path / "again.json5").motion
    assert again.root_position is None and again.root_orientation is None
    np.testing.assert_array_equal(again.position, back.motion.position)


def test_a_robot_placed_at_the_origin_has_a_root_pose(tmp_path: Path) -> None:
    """A pose given, even the identity, or a parent object place the robot: its root pose is read."""
    for obj in ({"model": "arm", "pose": {"xyz": [0, 0, 0]}}, {"model": "arm", "parent": "stand"}):
        path = tmp_path / "placed.json5"
        path.write_text(
            json.dumps(
                {
                    "models": {"arm": {"kind": "robot", "joints": {"a": {}}, "links": {}}, "box": {}},
                    "objects": {"stand": {"model": "box", "pose": {"xyz": [0, 0, 1]}}, "r": obj},
                }
            )
        )
        root = read(path).motion.root_position
        assert root is not None
        np.testing.assert_array_equal(root[0], [0, 0, 0] if "pose" in obj else [0, 0, 1])


def test_a_walk_without_a_root_pose_checks_the_same_as_a_scene(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("coal")
    body = corpus_path("choreonoid", "model", "SR1.body")
    seq, scene = tmp_path / "walk.seq", tmp_path / "walk.json5"
    walk = corpus_path("choreonoid", "v2", "SR1WalkPattern1.seq")
    assert main(["convert", str(walk), str(seq), "--body", str(body), "--end", "2"]) == 0
    assert main(["convert", str(seq), str(scene), "--body", str(body)]) == 0
    capsys.readouterr()
    reports = []
    for path in (seq, scene):
        status = main(["check", str(path), "--body", str(body), "--json"])
        reports.append((status, json.loads(capsys.readouterr().out)["findings"]))
    assert reports == [(0, []), (0, [])]  # the root placed as for the .seq: its feet on the ground


@pytest.mark.parametrize(("even", "odd"), [(1e-320, 1e-320), (1e-320, 1e-200), (1e200, 1e200), (1.7e308, 1.7e308)])
def test_root_orientations_of_any_finite_length_are_written_as_unit_quaternions(
    tmp_path: Path, even: float, odd: float
) -> None:
    n = 12
    t = np.arange(n) / 10.0
    q = Rotation.from_euler("z", np.linspace(0, 2.0, n)[:, None]).as_quat()
    scale = np.where(np.arange(n) % 2 == 0, even, odd)[:, None]
    scaled = q / np.abs(q).max() * scale
    motion = Motion(times=t, joint_names=("a",), position=np.zeros((n, 1)), root_orientation=scaled)
    out = tmp_path / "root.json5"
    with collect(warn=False) as report:
        write(MotionFile.single(motion), out)
        back = read(out).motion.sample(t)
    assert report.notices == []  # no overflow on the way
    points = load_scene(out).trajectories["root"].evaluate(t)[:, 3:]
    np.testing.assert_allclose(np.linalg.norm(points, axis=1), 1.0, rtol=1e-15)
    assert back.root_orientation is not None  # the rotations written (1e-320 * q keeps only ~11 bits of q)
    expected = unit_quaternions(motion.root_orientation)
    np.testing.assert_allclose(np.abs(np.sum(back.root_orientation * expected, axis=1)), 1.0, rtol=1e-12)


def test_strict_convert_of_huge_quaternions_writes_the_scene_without_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    n = 5
    q = np.tile([0.0, 0.0, 0.6, 0.8], (n, 1)) * 1e200
    motion = Motion(times=np.arange(n) / 10.0, joint_names=("a",), position=np.zeros((n, 1)), root_orientation=q)
    source = tmp_path / "big.omf.msgpack"
    write(MotionFile.single(motion), source)
    out = tmp_path / "big.json5"
    assert main(["convert", str(source), str(out), "--strict"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().err == ""
    back = read(out).motion.root_orientation
    assert back is not None
    np.testing.assert_allclose(back, np.tile([0.0, 0.0, 0.6, 0.8], (n, 1)), rtol=1e-15)


def test_scene_to_scene_keeps_models_and_objects(tmp_path: Path) -> None:
    mf = read(corpus_path("scene_json5", "waving_robot.json"))
    write(mf, tmp_path / "wave.json5")
    scene = load_scene(tmp_path / "wave.json5")
    assert set(scene.objects) == {"robot1", "pillar1", "pillar2", "pillar3", "pillar4"}
    assert len(scene.models["ur5e"].links) == 7
    back = read(tmp_path / "wave.json5").motion
    np.testing.assert_array_equal(back.position, mf.motion.position)
    assert back.loop == (0.0, 2.0)


def test_strict_json_output(tmp_path: Path) -> None:
    motion = arm_motion()
    write(MotionFile.single(motion), tmp_path / "a.json", format="scene")
    text = (tmp_path / "a.json").read_text()
    json.loads(text)  # plain JSON
    assert read(tmp_path / "a.json").format == "scene"
    bad = Motion(times=[0, 1], joint_names=("a",), position=[[np.nan], [1]])
    with pytest.raises(WriteError, match="strict JSON"):
        write(MotionFile.single(bad), tmp_path / "b.json", format="scene")
    write(MotionFile.single(bad), tmp_path / "b.json5")
    assert np.isnan(load_scene(tmp_path / "b.json5").trajectories["motion"].f[0, 0])


def test_lossy_writes_warn_and_existing_files_are_kept(tmp_path: Path) -> None:
    motion = Motion(
        times=[0, 1], joint_names=("ball",), joint_dims=(3,), position=np.zeros((2, 3)), effort=np.ones((2, 3))
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write(MotionFile.single(motion), tmp_path / "x.json5")
    messages = " ".join(str(w.message) for w in caught)
    assert "ball.0" in messages and "joint.effort" in messages
    assert list(load_scene(tmp_path / "x.json5").models["robot"].joints) == ["ball.0", "ball.1", "ball.2"]
    with pytest.raises(WriteError, match="already exists"):
        write(MotionFile.single(motion), tmp_path / "x.json5")
    with pytest.raises(WriteError, match="no frames"):
        write(MotionFile.single(Motion(times=np.zeros(0), joint_names=("a",))), tmp_path / "y.json5")


# ------------------------------------------------------------------------- CLI
def test_cli_convert_walk_to_json5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    candidates = [REPO / "examples" / name for name in ("walk.seq", "walk.msgpack")]
    walk = next((p for p in candidates if p.exists()), None)
    if walk is None:
        pytest.skip("examples/walk.seq is missing (make examples)")
    out = tmp_path / "walk.json5"
    assert main(["convert", str(walk), str(out)]) == 0
    original = read(walk).motion
    back = read(out).motion
    assert back.joint_names == original.joint_names
    np.testing.assert_array_equal(back.sample(original.times).position, original.position)
    assert main(["validate", str(out)]) == 0
    assert "valid scene (1 models, 1 objects, 2 trajectories" in capsys.readouterr().out


def test_cli_validate_reports_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json5"
    bad.write_text(
        "{models: {box: {mass: -1}}, objects: {a: {model: 'crate'}, b: {model: 'box', pose: {xzy: [0, 0, 0]}}}}"
    )
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}: models.box.mass: negative mass -1" in out
    assert f"{bad}: objects.a.model: unknown model 'crate'" in out
    assert f"{bad}: objects.b.pose.xzy: unknown transform key 'xzy'" in out
    assert f"{bad}: 3 error(s)" in out
    assert main(["validate", "--json", str(bad)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] is False and len(report["problems"]) == 3


def test_cli_validate_canonical_and_syntax_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json5"
    good.write_text("{models: {box: {}}, objects: {a: {model: 'box', pose: {qwxyz: [2, 0, 0, 0]}}}}")
    assert main(["validate", "--canonical", "--json", str(good)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["canonical"]["objects"]["a"]["pose"] == {"xyz": [0.0, 0.0, 0.0], "qxyzw": [0.0, 0.0, 0.0, 1.0]}
    broken = tmp_path / "broken.json5"
    broken.write_text("{\n  models: {,}\n}")  # json5 (the reference) points at the "}" after the stray comma
    assert main(["validate", str(broken)]) == 1
    assert f"error: {broken}:2: column 13: JSON5 syntax error" in capsys.readouterr().err


def test_a_jump_between_keyframes_written_as_a_line_names_the_joint_and_times(tmp_path: Path) -> None:
    with collect(warn=False) as report:
        write(elbow_jump(), tmp_path / "jump.json5")
    assert any(ELBOW_JUMP in m for m in lossy_messages(report))


def test_cli_validate_refuses_a_control_point_whose_spline_overflows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = tmp_path / "huge.json5"
    huge.write_text(
        "{models: {arm: {joints: {a: {}}, links: {l1: {pose: {axisAngle: {axis: 'z', angle: {joint: 'a'}}}}}}},"
        " objects: {o: {model: 'arm', jointValues: {a: {trajectory: 't'}}}},"
        " trajectories: {t: {controlPoints: [{t: 0, f: 0, df: 0}, {t: 1, f: 1e308, df: 0}]}}}"
    )
    assert main(["validate", str(huge)]) == 1
    captured = capsys.readouterr()
    assert f"{huge}: trajectories.t.controlPoints[1]: the spline from t = 0 to 1 overflows" in captured.out
    assert "1e+308" in captured.out and "encountered" not in captured.err


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=hnp.arrays(np.float64, st.integers(1, 6), elements=st.floats(1e-3, 10.0)),
    data=st.data(),
    quintic=st.booleans(),
)
def test_a_scene_round_trip_keeps_velocities_and_accelerations_exactly(
    tmp_path: Path, steps: np.ndarray, data: st.DataObject, quintic: bool
) -> None:
    """The derivatives read at a control point are the ones it gives, to the bit (not ``(df h) / h``)."""
    times = np.concatenate([[0.0], np.cumsum(steps)])
    values = st.floats(-1e3, 1e3, allow_subnormal=False)
    shape = (times.size, 2)
    position, velocity, acceleration = (data.draw(hnp.arrays(np.float64, shape, elements=values)) for _ in range(3))
    motion = Motion(
        times=times,
        joint_names=("a", "b"),
        position=position,
        velocity=velocity,
        acceleration=acceleration if quintic else None,
    )
    path = tmp_path / "r.json5"
    write(MotionFile.single(motion), path, overwrite=True)
    back = read(path).motion
    rows = np.flatnonzero(np.isin(back.times, times))
    assert back.velocity is not None
    np.testing.assert_array_equal(back.times[rows], times)
    np.testing.assert_array_equal(back.velocity[rows], velocity)
    if quintic:
        assert back.acceleration is not None
        np.testing.assert_array_equal(back.acceleration[rows], acceleration)
    write(read(path), tmp_path / "again.json5", overwrite=True)  # and the control points written again are the same
    again = load_scene(tmp_path / "again.json5").trajectories["motion"]
    assert again.df is not None
    np.testing.assert_array_equal(again.df[np.isin(again.times, times)], velocity)
