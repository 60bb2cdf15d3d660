"""The simulator's parts on robots written here: collision rules, gains files, chunks, the base, the command line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli

from motion_formats_ros import read, write
from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.core.kinematics import RobotModel
from motion_formats_ros.core.model import Motion, MotionFile

mujoco = pytest.importorskip("mujoco")

from motion_formats_ros.simulation import physics, simulate  # noqa: E402
from motion_formats_ros.simulation.gains import read_gains  # noqa: E402

#: A two-legged chain of boxes: a free root, four revolute links in a row, an arm off the root.
BODY = """\
format: ChoreonoidBody
formatVersion: 2.0
angleUnit: radian
name: chain
rootLink: BASE
links:
  - {name: BASE, jointType: free, mass: 2.0, centerOfMass: [0, 0, 0],
     inertia: [0.01, 0, 0, 0, 0.01, 0, 0, 0, 0.01],
     elements: [{type: Shape, geometry: {type: Box, size: [0.2, 0.2, 0.1]}}]}
  - {name: A, parent: BASE, jointType: revolute, jointAxis: Y, jointId: 0, translation: [0, 0, -0.1],
     jointRange: [-1, 1],
     mass: 0.5, centerOfMass: [0, 0, -0.05], inertia: [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001],
     elements: [{type: Shape, translation: [0, 0, -0.05], geometry: {type: Box, size: [0.05, 0.05, 0.1]}}]}
  - {name: B, parent: A, jointType: revolute, jointAxis: Y, jointId: 1, translation: [0, 0, -0.1], jointRange: [-1, 1],
     mass: 0.5, centerOfMass: [0, 0, -0.05], inertia: [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001],
     elements: [{type: Shape, translation: [0, 0, -0.05], geometry: {type: Box, size: [0.05, 0.05, 0.1]}}]}
  - {name: C, parent: B, jointType: revolute, jointAxis: Y, jointId: 2, translation: [0, 0, -0.1], jointRange: [-1, 1],
     mass: 0.5, centerOfMass: [0, 0, -0.05], inertia: [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001],
     elements: [{type: Shape, translation: [0, 0, -0.05], geometry: {type: Box, size: [0.3, 0.3, 0.1]}}]}
  - {name: D, parent: C, jointType: revolute, jointAxis: Y, jointId: 3, translation: [0, 0, -0.1], jointRange: [-1, 1],
     mass: 0.5, centerOfMass: [0, 0, -0.05], inertia: [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001],
     elements: [{type: Shape, translation: [0, 0, -0.05], geometry: {type: Box, size: [0.05, 0.05, 0.1]}}]}
  - {name: ARM, parent: BASE, jointType: revolute, jointAxis: X, jointId: 4, translation: [0, 0.15, 0],
     jointRange: [-2, 2],
     mass: 0.3, centerOfMass: [0, 0, 0], inertia: [0.001, 0, 0, 0, 0.001, 0, 0, 0, 0.001],
     elements: [{type: Shape, geometry: {type: Box, size: [0.05, 0.05, 0.05]}}]}
"""


def chain(tmp_path: Path, rules: str = "") -> Path:
    path = tmp_path / "chain.body"
    path.write_text(BODY + textwrap.dedent(rules))
    return path


def test_chain_level_rules_leave_out_pairs_as_choreonoid_counts_them(tmp_path: Path) -> None:
    model = RobotModel.from_body(chain(tmp_path, "collision_detection_rules:\n  - disabled_link_chain_level: 2\n"))
    rules = model.collision_filter()
    assert rules is not None
    assert not rules.keeps("BASE", "B") and not rules.keeps("A", "C") and not rules.keeps("ARM", "A")
    assert rules.keeps("BASE", "C") and rules.keeps("A", "D") and rules.keeps("ARM", "B")


def test_later_rules_enable_and_disable_links_and_groups(tmp_path: Path) -> None:
    text = """\
    collision_detection_rules:
      - disabled_link_chain_level: 1
      - disabled_links: [D]
      - disabled_link_group: [ARM, C]
      - enabled_links: [D]
    """
    rules = RobotModel.from_body(chain(tmp_path, text)).collision_filter()
    assert rules is not None
    assert rules.keeps("D", "BASE") and rules.keeps("D", "A")  # D enabled again, and every pair of it
    assert not rules.keeps("ARM", "C") and not rules.keeps("A", "B")


def test_the_older_spelling_and_its_excluded_links(tmp_path: Path) -> None:
    text = """\
    collisionDetection:
      excludeTreeDepth: 3
      excludeLinks: [ARM]
      excludeLinkGroups: [{name: g, links: [BASE, D]}]
    """
    rules = RobotModel.from_body(chain(tmp_path, text)).collision_filter()
    assert rules is not None
    assert rules.links == frozenset({"ARM"})
    assert not rules.keeps("BASE", "C") and not rules.keeps("BASE", "D") and not rules.keeps("A", "ARM")


def test_a_rule_of_the_wrong_kind_is_one_error_naming_the_field(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match=r"collision_detection_rules\[0\].disabled_link_chain_level"):
        RobotModel.from_body(chain(tmp_path, "collision_detection_rules:\n  - disabled_link_chain_level: two\n"))


def test_pairs_the_rules_leave_out_do_not_collide_in_the_simulation(tmp_path: Path) -> None:
    # C's wide box overlaps A's neighbourhood when bent: with level 3 no pair within three links collides
    times = np.linspace(0, 1, 11)
    motion = Motion(times=times, joint_names=("A", "B", "C", "D"), position=np.zeros((11, 4)))
    level3 = simulate(
        motion, chain(tmp_path, "collision_detection_rules:\n  - disabled_link_chain_level: 3\n"), kp=50, kd=2
    )
    built = level3.built
    excluded = {
        frozenset((built.model.body(int(b1)).name, built.model.body(int(b2)).name))
        for b1, b2 in (divmod(int(s), 1 << 16) for s in built.model.exclude_signature)
    }
    assert frozenset(("BASE", "C")) in excluded and frozenset(("A", "D")) in excluded
    assert frozenset(("BASE", "D")) not in excluded
    assert any("collision_detection_rules" in n for n in level3.report.notes)


def test_a_gains_file_in_ros2_control_layout(tmp_path: Path) -> None:
    path = tmp_path / "gains.yaml"
    path.write_text(
        "jtc:\n  ros__parameters:\n    gains:\n      A: {p: 10.0, d: 1.0, i: 0.5}\n      B: {p: 20, d: 2}\n"
    )
    gains = read_gains(path, ("A", "B", "C"))
    assert (gains["A"].p, gains["A"].d, gains["B"].p) == (10.0, 1.0, 20.0)
    path.write_text("gains:\n  E: {p: 1, d: 1}\n")
    with pytest.raises(ReadError, match=r"gains\.E"):
        read_gains(path, ("A",))
    path.write_text("gains:\n  A: {p: -1, d: 1}\n")
    with pytest.raises(ReadError, match=r"gains\.A\.p"):
        read_gains(path, ("A",))
    path.write_text("gains:\n  A: {p: 1e3, d: 5E-1}\n")  # YAML 1.2 numbers, as ROS reads them
    assert (read_gains(path, ("A",))["A"].p, read_gains(path, ("A",))["A"].d) == (1000.0, 0.5)


def test_chunks_give_the_same_run_as_one_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    times = np.linspace(0, 2, 201)
    swing = 0.5 * np.sin(np.pi * times)[:, None] * np.ones((1, 4))
    motion = Motion(times=times, joint_names=("A", "B", "C", "D"), position=swing)
    body = chain(tmp_path)
    whole = simulate(motion, body, kp=40, kd=1)
    monkeypatch.setattr(physics, "CHUNK", 37)
    pieces = simulate(motion, body, kp=40, kd=1)
    np.testing.assert_allclose(pieces.position, whole.position, atol=1e-9)
    np.testing.assert_allclose(pieces.root_position, whole.root_position, atol=1e-9)


def test_a_rootless_motion_starts_on_the_floor_and_a_fixed_base_stays(tmp_path: Path) -> None:
    times = np.linspace(0, 1, 11)
    motion = Motion(times=times, joint_names=("ARM",), position=np.zeros((11, 1)))
    free = simulate(motion, chain(tmp_path), kp=40, kd=1)
    # the lowest box (D's, 0.5 m of chain below the base) rests on the floor: the base is 0.5 m up
    assert free.root_position is not None
    assert free.root_position[0, 2] == pytest.approx(0.5, abs=0.003)
    fixed = simulate(motion, chain(tmp_path), kp=40, kd=1, floating=False)
    assert fixed.root_position is None and not fixed.report.floating


def test_command_line_exit_status_output_and_refusals(tmp_path: Path) -> None:
    times = np.linspace(0, 1, 11)
    motion = Motion(times=times, joint_names=("A", "ARM"), position=np.zeros((11, 2)))
    source = tmp_path / "still.csv"
    write(MotionFile(groups={"g": motion}), source)
    body = chain(tmp_path)
    out = tmp_path / "did.csv"
    status, text, err, _ = cli("simulate", source, "--body", body, "--kp", "40", "--kd", "1", "-o", out, blocked=())
    assert status == 0, err
    assert "stood" in text and out.exists()
    status, _, err, _ = cli("simulate", source, "--body", body, "--kp", "40", "--kd", "1", "-o", out, blocked=())
    assert status == 1 and "exists" in err
    status, _, err, _ = cli("simulate", source, "--body", body, "--speed", "0", blocked=())
    assert status == 2


def test_batch_simulates_every_input_and_ends_with_one_table(tmp_path: Path) -> None:
    times = np.linspace(0, 2, 201)
    still = Motion(times=times, joint_names=("ARM",), position=np.zeros((201, 1)))
    kick = Motion(
        times=times, joint_names=("A", "B", "C", "D"), position=0.9 * np.sin(3 * times)[:, None] * np.ones((1, 4))
    )
    folder = tmp_path / "in"
    folder.mkdir()
    write(MotionFile(groups={"g": still}), folder / "still.csv")
    write(MotionFile(groups={"g": kick}), folder / "kick.csv")
    out = tmp_path / "out"
    body = chain(tmp_path)
    status, text, err, _ = cli(
        "batch",
        folder,
        "-o",
        out,
        "--to",
        "csv",
        "--simulate",
        "--body",
        body,
        "--kp",
        "40",
        "--kd",
        "1",
        "--workers",
        "2",
        blocked=(),
    )
    assert status == 3, err  # one input fell
    table = text[text.index("input ") :].splitlines()
    verdicts = {line.split()[0].rsplit("/", 1)[-1]: line.split()[1] for line in table[1:]}
    assert verdicts == {"kick.csv": "FELL", "still.csv": "stood"}, text
    assert (out / "still.csv").exists() and (out / "kick.csv").exists()


def test_a_body_whose_root_joint_is_fixed_stays_fixed(tmp_path: Path) -> None:
    path = tmp_path / "bolted.body"
    path.write_text(BODY.replace("{name: BASE, jointType: free", "{name: BASE, jointType: fixed"))
    times = np.linspace(0, 1, 11)
    motion = Motion(times=times, joint_names=("A",), position=np.zeros((11, 1)))
    done = simulate(motion, path, kp=40, kd=1)
    assert not done.report.floating and any("root joint is fixed" in n for n in done.report.notes)
    assert not simulate(motion, chain(tmp_path), kp=40, kd=1).report.notes[-1].startswith("the base is fixed")


def test_the_result_in_a_bag_has_efforts_and_the_base_pose(tmp_path: Path) -> None:
    from motion_formats_ros import read

    times = np.linspace(0, 1, 101)
    motion = Motion(times=times, joint_names=("A", "ARM"), position=np.column_stack([0.2 * times, 0.5 * times]))
    source = tmp_path / "move.csv"
    write(MotionFile(groups={"g": motion}), source)
    out = tmp_path / "did.mcap"
    status, _, err, _ = cli(
        "simulate", source, "--body", chain(tmp_path), "--kp", "40", "--kd", "1", "-o", out, blocked=()
    )
    assert status == 0, err
    did = read(out).motion
    assert did.effort is not None and np.isfinite(did.effort).all() and np.abs(did.effort).max() > 0
    assert did.root_position is not None and did.root_position[0, 2] == pytest.approx(0.5, abs=0.01)
    assert did.position is not None and did.position[-1, list(did.joint_names).index("ARM")] == pytest.approx(
        0.5, abs=0.05
    )


def test_a_mesh_format_mujoco_lacks_is_converted_with_a_note(tmp_path: Path) -> None:
    trimesh = pytest.importorskip("trimesh")
    trimesh.creation.box(extents=(0.1, 0.1, 0.1)).export(tmp_path / "cube.ply")
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        '<robot name="arm"><link name="world"/>'
        '<joint name="fix" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/>'
        "</joint>"
        '<link name="base"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'
        '</inertial><collision><geometry><mesh filename="cube.ply"/></geometry></collision></link>'
        '<joint name="j" type="revolute"><parent link="base"/><child link="tip"/><axis xyz="0 0 1"/>'
        '<limit lower="-1" upper="1" effort="5" velocity="1"/></joint>'
        '<link name="tip"><inertial><mass value="0.2"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" '
        'iyz="0"/></inertial></link></robot>'
    )
    times = np.linspace(0, 1, 11)
    done = simulate(Motion(times=times, joint_names=("j",), position=np.zeros((11, 1))), urdf, kp=10, kd=1)
    assert not done.report.floating  # the root link is "world"
    assert any("converted to triangles: cube.ply" in n for n in done.report.notes), done.report.notes
    assert done.built.model.nmesh == 1


def test_a_nearly_flat_mesh_is_simulated_as_a_flat_one_in_the_package_s_words(tmp_path: Path) -> None:
    """A mesh a nanometre thick: MuJoCo's hull of it would be imprecise (qhull's warnings), so it is
    simulated as a flat mesh is, and said so in one line."""
    trimesh = pytest.importorskip("trimesh")
    trimesh.creation.box(extents=(0.1, 0.1, 1e-9)).export(tmp_path / "sheet.stl")  # 1e-8 of its extent thick
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        '<robot name="arm"><link name="world"/><link name="base"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<collision><geometry><mesh filename="sheet.stl"/></geometry></collision></link>'
        '<joint name="j" type="revolute"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="1"/></joint></robot>'
    )
    times = np.linspace(0, 1, 11)
    source = tmp_path / "still.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("j",), position=np.zeros((11, 1)))}), source)
    mjcf = tmp_path / "arm.xml"
    status, text, err, _ = cli("simulate", source, "--urdf", urdf, "--kp", "10", "--mjcf", mjcf, blocked=())
    assert status == 0 and "stood" in text and mjcf.exists(), err
    assert err.strip() == (
        f"warning: {urdf}: link 'base': collision mesh sheet.stl is flat (no convex hull): simulated as the hull "
        "of its triangles 0.0001 m thick"
    ), err
    assert "QH" not in err and "MuJoCo's convex hull" not in err


def test_no_output_of_simulate_lands_on_one_of_its_inputs(tmp_path: Path) -> None:
    times = np.linspace(0, 1, 11)
    source = tmp_path / "still.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=np.zeros((11, 1)))}), source)
    body = chain(tmp_path)
    before = (source.read_bytes(), body.read_bytes())
    for flag, target in (("-o", source), ("--mjcf", body), ("-o", tmp_path)):
        status, _, err, _ = cli("simulate", source, "--body", body, flag, target, "--overwrite", blocked=())
        assert status == 1 and ("is the input" in err or "holds the input" in err), err
    assert (source.read_bytes(), body.read_bytes()) == before


def test_a_simulation_too_big_for_memory_is_refused_before_it_allocates(tmp_path: Path) -> None:
    times = np.linspace(0, 10, 11)
    source = tmp_path / "long.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=np.zeros((11, 1)))}), source)
    status, _, err, _ = cli("simulate", source, "--body", chain(tmp_path), "--timestep", "1e-9", blocked=())
    assert status == 2 and "--timestep 1e-09" in err and "would need" in err and "Traceback" not in err, err


def test_a_speed_too_slow_for_memory_is_refused_naming_the_speed_and_what_fits(tmp_path: Path) -> None:
    times = np.linspace(0, 10, 11)
    source = tmp_path / "long.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=np.zeros((11, 1)))}), source)
    status, _, err, _ = cli("simulate", source, "--body", chain(tmp_path), "--speed", "1e-9", blocked=())
    line = err.strip().splitlines()[-1]  # after the usage, one line
    assert status == 2 and "Traceback" not in err and line.startswith("motion-formats simulate: error: "), err
    assert "--speed 1e-09" in line and "would need" in line and "--speed must be at least" in line, err
    assert "--timestep 0.001" in line and "--timestep at least" in line, err


def test_a_mimic_joint_follows_its_leader_in_the_physics(tmp_path: Path) -> None:
    urdf = tmp_path / "gripper.urdf"
    inertial = (
        '<inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>'
    )
    urdf.write_text(
        f'<robot name="gripper"><link name="world"/><link name="palm">{inertial}</link>'
        '<joint name="mount" type="fixed"><parent link="world"/><child link="palm"/><origin xyz="0 0 1"/></joint>'
        f'<link name="left">{inertial}</link><link name="right">{inertial}</link>'
        '<joint name="finger" type="prismatic"><parent link="palm"/><child link="left"/><axis xyz="0 1 0"/>'
        '<limit lower="0" upper="0.04" effort="20" velocity="0.2"/></joint>'
        '<joint name="finger_mirror" type="prismatic"><parent link="palm"/><child link="right"/><axis xyz="0 1 0"/>'
        '<limit lower="-0.04" upper="0" effort="20" velocity="0.2"/><mimic joint="finger" multiplier="-1"/></joint>'
        "</robot>"
    )
    times = np.linspace(0, 1, 101)
    done = simulate(Motion(times=times, joint_names=("finger",), position=0.03 * times[:, None]), urdf, kp=500, kd=20)
    model = done.built.model
    assert done.built.servo_joints == ("finger",) and model.neq == 1
    data = mujoco.MjData(model)
    data.ctrl[0] = 0.03
    for _ in range(2000):
        mujoco.mj_step(model, data)
    leader = data.qpos[model.jnt_qposadr[model.joint("finger").id]]
    follower = data.qpos[model.jnt_qposadr[model.joint("finger_mirror").id]]
    assert leader == pytest.approx(0.03, abs=2e-3) and follower == pytest.approx(-leader, abs=1e-3)


def test_a_simulation_that_diverges_is_one_error_line_not_a_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo's default warning handler would write MUJOCO_LOG.TXT here
    times = np.linspace(0, 1, 11)
    source = tmp_path / "move.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=np.zeros((11, 1)))}), source)
    # The stiffest servo a gains option takes (1e9) on links of a few hundred grams: MuJoCo's steps blow up.
    status, text, err, _ = cli("simulate", source, "--body", chain(tmp_path), "--kp", "1e9", "--json", blocked=())
    assert status == 1 and text == "", text
    assert err.strip().startswith("error: ") and "diverged" in err and len(err.strip().splitlines()) == 1, err
    assert "WARNING" not in err
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


def test_the_model_meshes_are_inputs_and_the_two_outputs_must_differ(tmp_path: Path) -> None:
    trimesh = pytest.importorskip("trimesh")
    trimesh.creation.box(extents=(0.1, 0.1, 0.1)).export(tmp_path / "cube.stl")
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        '<robot name="arm"><link name="world"/><link name="base"><inertial><mass value="1"/>'
        '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
        '<collision><geometry><mesh filename="cube.stl"/></geometry></collision></link>'
        '<joint name="j" type="revolute"><parent link="world"/><child link="base"/><origin xyz="0 0 0.5"/>'
        '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="1"/></joint></robot>'
    )
    times = np.linspace(0, 1, 11)
    source = tmp_path / "still.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("j",), position=np.zeros((11, 1)))}), source)
    mesh = (tmp_path / "cube.stl").read_bytes()
    status, _, err, _ = cli(
        "simulate", source, "--urdf", urdf, "--mjcf", tmp_path / "cube.stl", "--overwrite", blocked=()
    )
    assert status == 1 and "is the input" in err and (tmp_path / "cube.stl").read_bytes() == mesh, err
    same = tmp_path / "out.csv"
    status, _, err, _ = cli("simulate", source, "--urdf", urdf, "-o", same, "--mjcf", same, blocked=())
    assert status == 2 and "name one file" in err and not same.exists(), err


def test_gains_beyond_any_servo_and_endless_motions_are_one_line(tmp_path: Path) -> None:
    times = np.array([0.0, 1e308])
    source = tmp_path / "endless.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=np.zeros((2, 1)))}), source)
    status, _, err, _ = cli("simulate", source, "--body", chain(tmp_path), "--kp", "40", blocked=())
    assert status == 1 and "than can be counted" in err and "Traceback" not in err, err
    source = tmp_path / "still.csv"
    write(MotionFile(groups={"g": Motion(times=times[:1], joint_names=("A",), position=np.zeros((1, 1)))}), source)
    gains = tmp_path / "gains.yaml"
    gains.write_text("gains:\n  A: {p: " + "9" * 401 + ", d: 1}\n")
    status, _, err, _ = cli("simulate", source, "--body", chain(tmp_path), "--gains", gains, blocked=())
    assert status == 1 and "gains.A.p" in err and "Traceback" not in err, err
    status, _, err, _ = cli("simulate", source, "--body", chain(tmp_path), "--kp", "1e308", blocked=())
    assert status == 1 and "kp must be a number from 0 to 1e+09" in err, err


def test_positions_near_the_float_range_are_one_line_not_numpys_warnings(tmp_path: Path) -> None:
    times = np.linspace(0, 0.04, 5)
    source = tmp_path / "wide.csv"
    q = np.array([[1e308], [-1e308], [1e308], [-1e308], [1e308]])
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=q)}), source)
    status, _, err, _ = cli("simulate", source, "--body", chain(tmp_path), blocked=())
    assert status == 1 and "overflow encountered" not in err and "Traceback" not in err, err
    assert (
        err.strip() == f"error: {source}: its positions change faster than the float range holds (values near ±1e308)"
    )


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--timestep", "1e308", "argument --timestep: must be at most 0.01"),
        ("--timestep", "10", "argument --timestep: must be at most 0.01"),
        ("--speed", "1e308", "argument --speed: expected a number above 0 and at most 100"),
        ("--record-rate", "1e9", "argument --record-rate: expected a number above 0 and at most 100000"),
    ],
)
def test_a_step_speed_or_record_rate_no_simulation_can_use_is_a_usage_error(
    tmp_path: Path, flag: str, value: str, said: str
) -> None:
    times = np.linspace(0, 1, 11)
    source = tmp_path / "move.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=np.zeros((11, 1)))}), source)
    status, _, err, _ = cli("simulate", source, "--body", chain(tmp_path), flag, value, blocked=())
    assert status == 2 and said in err and "Traceback" not in err, err


def test_a_record_rate_below_one_frame_of_the_run_keeps_its_ends(tmp_path: Path) -> None:
    times = np.linspace(0, 1, 11)
    source, out = tmp_path / "move.csv", tmp_path / "did.csv"
    write(MotionFile(groups={"g": Motion(times=times, joint_names=("A",), position=np.zeros((11, 1)))}), source)
    status, _, err, _ = cli(
        "simulate", source, "--body", chain(tmp_path), "--record-rate", "1e-308", "-o", out, blocked=()
    )
    assert status in (0, 3) and "Traceback" not in err and "error" not in err, err
    assert read(out).motion.num_frames >= 1


def test_a_gains_file_is_read_as_yaml_1_2_with_each_joint_once(tmp_path: Path) -> None:
    path = tmp_path / "gains.yaml"
    path.write_text("gains:\n  A:\n    p: 1_000\n    d: 1\n")  # YAML 1.2: a string, not 1000
    with pytest.raises(ReadError, match=r"gains\.yaml:3: gains\.A\.p: expected a gain .*got '1_000'"):
        read_gains(path, ("A",))
    path.write_text("gains:\n  A: {p: 1, d: 1}\n  B: {p: 2, d: 2}\n  A: {p: 3, d: 3}\n")
    with pytest.raises(ReadError, match=r"gains\.yaml:4: duplicate key 'A' in the gains file"):
        read_gains(path, ("A", "B"))
    path.write_text("gains:\n  A: {p: 010, d: 0x10}\n")  # YAML 1.2: decimal 10, hex 16
    assert (read_gains(path, ("A",))["A"].p, read_gains(path, ("A",))["A"].d) == (10.0, 16.0)


def test_batch_simulates_every_input_on_the_model_as_it_was_before_any_output(tmp_path: Path) -> None:
    """A xacro model including ``parts/*`` and the outputs going into parts/: the model is read
    once, before any output exists, so no output becomes part of the model (read again for each
    input, the second found the first's output among its parts and failed to expand)."""
    pytest.importorskip("xacro")
    from motion_formats_ros.core.examples import biped_urdf, biped_walk

    text = biped_urdf()
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "biped.xacro").write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
        + text[text.index("<link") : text.rindex("</robot>")]
        + "</robot>\n"
    )
    (tmp_path / "robot.urdf.xacro").write_text(
        '<robot name="mfr_mini_biped" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
        '  <xacro:include filename="parts/*"/>\n</robot>\n'
    )
    (tmp_path / "in").mkdir()
    walk = biped_walk(cycles=1)
    for name in ("a", "b"):
        write(walk, tmp_path / "in" / f"{name}.msgpack")
    status, out, err, _ = cli(
        "batch", tmp_path / "in", "-o", tmp_path / "parts", "--to", "yaml", "--simulate",
        "--urdf", tmp_path / "robot.urdf.xacro", "--workers", "1", blocked=(),
    )  # fmt: skip
    assert status == 0, out + err
    assert "2 converted, 0 skipped (up to date), 0 failed" in out, out
