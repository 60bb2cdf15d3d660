"""``motion-formats example NAME``: the built-in examples, written by the package's own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros import read
from motion_formats_ros.cli.example import EXAMPLES
from motion_formats_ros.cli.main import main
from motion_formats_ros.core.examples import NAO_JOINTS
from motion_formats_ros.core.kinematics import load_robot_model

ROOT = Path(__file__).resolve().parents[2]


def test_the_nao_example_is_a_mof_of_naos_joints_on_a_model_that_has_them_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["example", "nao", "-o", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(EXAMPLES["nao"])
    motion_file = read(tmp_path / "wave.mof")
    motion = motion_file.motion
    assert motion.joint_names == NAO_JOINTS and motion.is_keyframed and motion.num_frames == 6
    robot = load_robot_model(tmp_path / "mini_nao.urdf")
    limits = {j.name: (j.limit.lower, j.limit.upper) for j in robot.joints if j.limit is not None}
    assert set(limits) == set(NAO_JOINTS)
    assert motion.position is not None
    for col, name in enumerate(NAO_JOINTS):  # every pose within the model's limits
        lo, hi = limits[name]
        assert lo - 1e-6 <= motion.position[:, col].min() and motion.position[:, col].max() <= hi + 1e-6, name
    # The committed examples are what the command writes.
    for filename in EXAMPLES["nao"]:
        assert (ROOT / "examples" / filename).read_bytes() == (tmp_path / filename).read_bytes(), filename


def test_writing_again_is_up_to_date_and_another_file_is_not_replaced_unasked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["example", "walk", "-o", str(tmp_path)]) == 0
    assert main(["example", "walk", "-o", str(tmp_path)]) == 0
    assert capsys.readouterr().out.count("up to date") == 3
    (tmp_path / "biped.urdf").write_text("mine")
    assert main(["example", "walk", "-o", str(tmp_path)]) == 1
    assert "biped.urdf: already exists (pass --overwrite to replace it)" in capsys.readouterr().err
    assert (tmp_path / "biped.urdf").read_text() == "mine"
    assert main(["example", "walk", "-o", str(tmp_path), "--overwrite"]) == 0
    assert (tmp_path / "biped.urdf").read_text().startswith("<?xml")


def test_listing_and_an_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["example"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == list(EXAMPLES)
    assert main(["example", "nope"]) == 2
    assert "motion-formats example: error: NAME 'nope': no such example" in capsys.readouterr().err


def test_a_folder_named_as_one_of_the_files_stops_the_example_before_any_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "biped.urdf").mkdir()
    (tmp_path / "biped.urdf" / "mine.txt").write_text("mine")
    assert main(["example", "walk", "-o", str(tmp_path), "--overwrite"]) == 1
    folder = tmp_path / "biped.urdf"
    assert (
        capsys.readouterr().err
        == f"error: {folder}: is a folder; this output is a file, which never replaces a folder\n"
    )
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["biped.urdf", "mine.txt"]  # walk.seq was written first


def test_the_example_makes_its_folder_when_it_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "new" / "examples"
    assert main(["example", "walk", "-o", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == sorted(EXAMPLES["walk"])
    assert f"wrote {folder / 'walk.seq'}" in capsys.readouterr().out


def test_the_example_refuses_a_file_where_its_folder_should_be(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "taken"
    taken.write_text("mine")
    assert main(["example", "walk", "-o", str(taken)]) != 0
    assert capsys.readouterr().err.strip() == f"error: {taken}: is not a folder"
    assert taken.read_text() == "mine"


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_every_example_robot_has_collision_boxes_and_masses_for_check_and_simulate(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("coal", reason="check collides the boxes with coal (the check extra)")
    assert main(["example", name, "-o", str(tmp_path)]) == 0
    motion = next(f for f in EXAMPLES[name] if f.endswith((".seq", ".mof")))
    models = [f for f in EXAMPLES[name] if f.endswith((".urdf", ".body"))]
    for model_file in models:
        robot = load_robot_model(tmp_path / model_file)
        assert sum(bool(link.collisions) for link in robot.links) >= 7, model_file  # trunk, legs, feet at least
        assert all(link.inertial is not None and link.inertial.mass > 0 for link in robot.links), model_file
    model_file = models[0]  # the one that names the motion's joints (a .seq's columns are named by its .body)
    flag = "--urdf" if model_file.endswith(".urdf") else "--body"
    capsys.readouterr()
    code = main(["check", str(tmp_path / motion), flag, str(tmp_path / model_file)])
    out, err = capsys.readouterr()
    assert code == 0, out + err  # the example's own motion hurts neither the robot nor the floor
    assert "self_collision, floor" in out.splitlines()[0], out
