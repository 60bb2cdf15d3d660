"""Nothing of the user's is lost: no command's output is, holds or goes inside one of its inputs,
and ``--overwrite`` replaces a file with a file and a rosbag2 bag folder with a bag folder only.

Every test runs ``motion-formats`` as a user does, on the built-in example written into a
temporary folder, and then checks that every file the user had is still there, byte for byte.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from support.cli import run


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file and folder under ``folder``: its bytes (None for a folder)."""
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))}


def test_motion2bag_never_replaces_the_folder_holding_its_input(example: Path, tmp_path: Path) -> None:
    sub = tmp_path / "t" / "sub"
    sub.mkdir(parents=True)
    for f in example.iterdir():
        (sub / f.name).write_bytes(f.read_bytes())
    (sub / "notes.txt").write_text("my notes\n")
    (sub / "deep").mkdir()
    (sub / "deep" / "f").write_text("x\n")
    before = snapshot(tmp_path / "t")
    proc = run("motion2bag", "t/sub/walk.seq", "t/sub", "--body", "t/sub/biped.body", "--overwrite", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == (
        "error: t/sub: holds the input 't/sub/walk.seq': an output never is, holds or goes inside an input, "
        "which is never modified\n"
    )
    assert snapshot(tmp_path / "t") == before


def test_overwrite_never_replaces_a_folder_of_other_files(example: Path, tmp_path: Path) -> None:
    folder = tmp_path / "data.mcap"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep\n")
    (folder / "old").mkdir()
    walk, body = example / "walk.seq", example / "biped.body"
    for command in (
        ("convert", walk, folder, "--body", body),
        ("convert", walk, folder, "--to", "rosbag", "--body", body),
        ("motion2bag", walk, folder, "--body", body),
    ):
        proc = run(*command, "--overwrite")
        assert proc.returncode == 1, command
        assert proc.stderr.startswith(f"error: {folder}: is a folder holding keep.txt, old/: not a rosbag2 bag"), (
            proc.stderr
        )
        assert snapshot(folder) == {"keep.txt": b"keep\n", "old": None}


def test_overwrite_replaces_a_bag_with_a_bag_and_a_file_with_a_file_only(example: Path, tmp_path: Path) -> None:
    walk, body = example / "walk.seq", example / "biped.body"
    bag, bare = tmp_path / "run", tmp_path / "run.mcap"
    assert run("convert", walk, bag, "--to", "rosbag", "--body", body).returncode == 0
    assert run("convert", walk, bare, "--body", body).returncode == 0
    assert sorted(p.name for p in bag.iterdir()) == ["metadata.yaml", "run.mcap"]
    proc = run("motion2bag", walk, bag, "--body", body, "--overwrite", "--rate", "10")
    assert proc.returncode == 0, proc.stderr  # a bag folder replaces a bag folder
    assert "25 frames" in proc.stdout
    kept = snapshot(tmp_path)
    proc = run("convert", walk, bag, "--to", "omf", "--body", body, "--overwrite")
    assert proc.returncode == 1
    assert proc.stderr == f"error: {bag}: is a folder; this output is a file, which never replaces a folder\n"
    proc = run("convert", walk, bare, "--to", "rosbag", "--write-option", "storage=mcap", "--overwrite")
    assert proc.returncode == 0, proc.stderr  # a bare .mcap is a file: it replaces a file
    (tmp_path / "plain").write_text("mine\n")
    proc = run("convert", walk, tmp_path / "plain", "--to", "rosbag", "--body", body, "--overwrite")
    assert proc.returncode == 1
    assert "plain: is a file; this output is a folder (a rosbag2 bag), which never replaces a file" in proc.stderr
    assert (tmp_path / "plain").read_text() == "mine\n"
    assert snapshot(bag) == {k.removeprefix("run/"): v for k, v in kept.items() if k.startswith("run/")}


def test_batch_refuses_outputs_onto_its_inputs_before_any_work(example: Path, tmp_path: Path) -> None:
    bt = tmp_path / "bt"
    bt.mkdir()
    assert run("convert", example / "walk.seq", bt / "w.csv", "--body", example / "biped.body").returncode == 0
    assert run("convert", example / "walk.seq", bt / "v.msgpack", "--body", example / "biped.body").returncode == 0
    before = snapshot(bt)
    proc = run("batch", "bt", "-o", "bt", "--to", "csv", "--rate", "5", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == ""  # nothing planned, nothing converted: not even v.msgpack -> bt/v.csv
    assert proc.stderr.startswith("error: bt: output folder is the input folder bt"), proc.stderr
    assert snapshot(bt) == before
    proc = run("batch", "bt", "-o", "out", "--to", "csv", "--report", "bt/w.csv", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: bt/w.csv: is the input 'bt/w.csv'"), proc.stderr
    assert not (tmp_path / "out").exists() and snapshot(bt) == before


def test_bag2motion_never_replaces_its_bag_nor_writes_into_it(example: Path, tmp_path: Path) -> None:
    bare, bag = tmp_path / "w.mcap", tmp_path / "w"
    assert run("convert", example / "walk.seq", bare, "--body", example / "biped.body").returncode == 0
    assert run("convert", example / "walk.seq", bag, "--to", "rosbag", "--body", example / "biped.body").returncode == 0
    before = snapshot(tmp_path)
    proc = run("bag2motion", bare, bare, "--overwrite", "--rate", "5")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {bare}: is the input '{bare}'"), proc.stderr
    proc = run("bag2motion", bag, bag / "w.csv")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {bag / 'w.csv'}: is inside the input '{bag}'"), proc.stderr
    assert snapshot(tmp_path) == before


def test_the_robot_model_is_an_input_too(example: Path, tmp_path: Path) -> None:
    walk, body, urdf = example / "walk.seq", example / "biped.body", example / "biped.urdf"
    before = snapshot(example)
    proc = run("convert", walk, body, "--to", "seq", "--body", body, "--overwrite")
    assert proc.returncode == 1 and proc.stderr.startswith(f"error: {body}: is the input '{body}'"), proc.stderr
    proc = run("motion2bag", walk, urdf, "--urdf", urdf, "--overwrite")
    assert proc.returncode == 1 and proc.stderr.startswith(f"error: {urdf}: is the input '{urdf}'"), proc.stderr
    assert snapshot(example) == before


def test_an_output_through_a_link_or_a_hard_link_to_the_input_is_refused(example: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    walk = example / "walk.seq"
    (tmp_path / "link.png").symlink_to(walk)
    before = walk.read_bytes()
    proc = run("plot", walk, tmp_path / "link.png", "--body", example / "biped.body", "--overwrite")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {tmp_path / 'link.png'}: is the input '{walk}'"), proc.stderr
    (tmp_path / "same.seq").hardlink_to(walk)
    proc = run("convert", walk, tmp_path / "same.seq", "--body", example / "biped.body", "--overwrite")
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: {tmp_path / 'same.seq'}: is the input '{walk}'"), proc.stderr
    assert walk.read_bytes() == before and (tmp_path / "link.png").is_symlink()


def test_a_two_group_file_written_to_a_one_motion_format_reports_what_was_written(tmp_path: Path) -> None:
    from motion_formats_ros import read, write
    from motion_formats_ros.core.examples import biped_walk

    walk = biped_walk(rate=25.0, cycles=1)
    m = walk.motion
    short = type(m)(times=m.times[:10], joint_names=m.joint_names, position=m.position[:10], rate=m.rate)
    two = type(walk)(groups={"target": m, "actual": short})
    write(two, tmp_path / "two.msgpack")
    for suffix in (".seq", ".json5"):
        out = tmp_path / f"two{suffix}"
        proc = run("convert", tmp_path / "two.msgpack", out)
        assert proc.returncode == 0, proc.stderr
        written = read(out, **({"joint_names": list(m.joint_names)} if suffix == ".seq" else {}))
        assert list(written.groups) == ["target"]  # the scene's control points: one per frame of it
        assert suffix != ".seq" or written.motion.num_frames == m.num_frames
        fmt = "seq" if suffix == ".seq" else "scene"
        assert proc.stdout == f"wrote {out} ({fmt}, 1 group, {m.num_frames} frames)\n"


def test_no_output_goes_inside_an_existing_bag_folder(example: Path, tmp_path: Path) -> None:
    """A storage file written into a bag's folder joins the bag (its readers take every one there);
    anything else keeps the bag from being replaced: every command refuses, naming the bag."""
    walk, body = example / "walk.seq", example / "biped.body"
    bag = tmp_path / "bag"
    assert run("motion2bag", walk, bag, "--body", body).returncode == 0
    unclosed = tmp_path / "rec"  # a recording never closed: no metadata.yaml, rosbag2's names
    unclosed.mkdir()
    (unclosed / "rec_0.mcap").write_bytes(next(bag.glob("*.mcap")).read_bytes())
    before = snapshot(tmp_path)
    for folder in (bag, unclosed):
        for command in (
            ("motion2bag", walk, folder / "sub.mcap", "--body", body),
            ("motion2bag", walk, folder / "sub", "--body", body),
            ("convert", walk, folder / "w.csv", "--body", body),
            ("example", "walk", "-o", folder),
        ):
            proc = run(*command)
            assert proc.returncode == 1, (command, proc.stderr)
            line = proc.stderr.strip()
            assert line.startswith("error: ") and "\n" not in line, proc.stderr
            assert f"is inside the rosbag2 bag '{folder}'" in line, proc.stderr
        proc = run("batch", walk, "-o", folder, "--to", "csv", "--body", body, "--workers", "1")
        assert proc.returncode == 1 and proc.stderr.startswith(f"error: {folder}: output folder is a rosbag2 bag's")
    assert snapshot(tmp_path) == before  # the old code wrote bag/sub.mcap, which the bag's readers then took
    plain = tmp_path / "recordings"  # a folder of bare bag files is no bag: one more is welcome
    plain.mkdir()
    (plain / "a.mcap").write_bytes(next(bag.glob("*.mcap")).read_bytes())
    assert run("motion2bag", walk, plain / "b.mcap", "--body", body).returncode == 0


@pytest.fixture
def xacro_model(example: Path) -> Path:
    """The example's biped as a xacro model: ``robot.urdf.xacro`` includes ``part.xacro`` (the links
    and joints) and loads ``props.yaml`` (the base's mass); ``bag.urdf.xacro`` includes ``part.mcap``
    (the same links and joints), ``batch.urdf.xacro`` includes ``out/walk.mcap``."""
    pytest.importorskip("xacro")
    urdf = (example / "biped.urdf").read_text()
    body = urdf[urdf.index(">", urdf.index("<robot")) + 1 : urdf.rindex("</robot>")]
    start = body.index('<mass value="') + len('<mass value="')
    mass = body[start : body.index('"', start)]
    links = body[:start] + "${props['mass']}" + body[start + len(mass) :]
    part = f'<robot xmlns:xacro="http://www.ros.org/wiki/xacro">{links}</robot>\n'
    (example / "part.xacro").write_text(part)
    (example / "part.mcap").write_text(part)
    (example / "out").mkdir()
    (example / "out" / "walk.mcap").write_text(part)
    (example / "props.yaml").write_text(f"mass: {mass}\n")
    for name, include in (("robot", "part.xacro"), ("bag", "part.mcap"), ("batch", "out/walk.mcap")):
        (example / f"{name}.urdf.xacro").write_text(
            '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="mfr_mini_biped">'
            f'<xacro:property name="props" value="${{xacro.load_yaml(\'{example / "props.yaml"}\')}}"/>'
            f'<xacro:include filename="{include}"/></robot>\n'
        )
    return example / "robot.urdf.xacro"


def test_the_files_a_xacro_model_reads_are_inputs_too(xacro_model: Path) -> None:
    """Every file a xacro model's expansion reads (an include, a YAML file it loads) is an input of
    the command that reads the model, as the model's own file is: no output replaces one."""
    folder = xacro_model.parent
    assert run("convert", "walk.seq", "walk.msgpack", "--body", "biped.body", cwd=folder).returncode == 0
    before = snapshot(folder)
    commands = [
        ("motion2bag", "walk.msgpack", "part.mcap", "--urdf", "bag.urdf.xacro"),
        ("motion2bag", "walk.msgpack", "props.yaml", "--urdf", "robot.urdf.xacro", "--storage", "mcap"),
        ("convert", "walk.msgpack", "part.mcap", "--to", "rosbag", "--write-option", "robot_model=bag.urdf.xacro"),
        ("batch", "walk.msgpack", "-o", "out", "--to", "mcap", "--write-option", "robot_model=batch.urdf.xacro"),
    ]
    if importlib.util.find_spec("mujoco") is not None:
        commands += [
            ("simulate", "walk.msgpack", "--urdf", "robot.urdf.xacro", "--mjcf", "part.xacro"),
            ("simulate", "walk.msgpack", "--urdf", "robot.urdf.xacro", "-o", "props.yaml"),
            ("batch", "walk.msgpack", "-o", "out", "--to", "mcap", "--simulate", "--urdf", "batch.urdf.xacro"),
        ]
    for command in commands:
        proc = run(*command, "--overwrite", cwd=folder)
        assert proc.returncode == 1, (command, proc.stdout, proc.stderr)
        line = proc.stderr.strip()
        assert "\n" not in line and "an output never is, holds or goes inside an input" in line, (command, line)
        assert "is the input" in line and str(folder) in line, (command, line)
    assert snapshot(folder) == before  # the old code replaced part.xacro with MJCF, props.yaml with a motion


def test_batch_without_simulate_replaces_no_file_its_simulation_flags_name(xacro_model: Path) -> None:
    """Without --simulate, batch's simulation flags are a mistake said in one line: the gains file
    and the files a --urdf xacro model reads stay as they were, even where an input's output
    would be one of them (the old code ignored the flags, and so converted onto those files)."""
    folder = xacro_model.parent
    assert run("convert", "walk.seq", "walk.msgpack", "--body", "biped.body", cwd=folder).returncode == 0
    (folder / "in").mkdir()
    for name in ("gains", "props"):
        (folder / "in" / f"{name}.msgpack").write_bytes((folder / "walk.msgpack").read_bytes())
    (folder / "gains.yaml").write_text("gains:\n  left_hip_yaw: {p: 100, d: 1}\n")
    for kept in ("gains.yaml", "props.yaml"):  # older than the inputs: an output batch would redo
        os.utime(folder / kept, (1577836800, 1577836800))
    before = snapshot(folder)
    for flags, shown in (
        (("--gains", "gains.yaml"), "--gains"),
        (("--urdf", "robot.urdf.xacro"), "--urdf"),
        (("--kp", "800"), "--kp"),
    ):
        proc = run("batch", "in", "-o", ".", "--to", "yaml", *flags, "--workers", "1", cwd=folder)
        assert proc.returncode == 2, (flags, proc.stdout, proc.stderr)  # a usage error: the usage, then one line
        error = proc.stderr.strip().splitlines()[-1]
        assert error == f"motion-formats batch: error: {shown} is used only with --simulate", (flags, proc.stderr)
        assert "Traceback" not in proc.stderr and "converted" not in proc.stdout, (flags, proc.stdout)
    assert snapshot(folder) == before  # the old code replaced gains.yaml and props.yaml with motions


def test_no_output_goes_into_a_folder_inside_a_bag_folder(example: Path, tmp_path: Path) -> None:
    """A folder inside a bag's folder is part of the bag: no command makes one, nor writes into one
    that is there, however deep."""
    walk, body = example / "walk.seq", example / "biped.body"
    bag = tmp_path / "bag"
    assert run("motion2bag", walk, bag, "--body", body).returncode == 0
    (bag / "old" / "deep").mkdir(parents=True)  # left there by hand, or by an earlier release
    before = snapshot(tmp_path)
    for command, shown in (
        (("example", "walk", "-o", "bag/x"), "bag/x"),
        (("example", "walk", "-o", "bag/x/y"), "bag/x"),
        (("convert", walk, "bag/old/y.mcap", "--body", body), "bag/old/y.mcap"),
        (("convert", walk, "bag/old/deep/y.csv", "--body", body), "bag/old/deep/y.csv"),
        (("motion2bag", walk, "bag/old/deep/b", "--body", body), "bag/old/deep/b"),
        (("batch", walk, "-o", "bag/old", "--to", "csv", "--body", body, "--workers", "1"), "bag/old"),
    ):
        proc = run(*command, cwd=tmp_path)
        assert proc.returncode == 1, (command, proc.stdout, proc.stderr)
        assert proc.stderr.startswith(f"error: {shown}: is inside the rosbag2 bag 'bag', "), (command, proc.stderr)
        assert proc.stderr.count("\n") == 1, proc.stderr
    assert snapshot(tmp_path) == before  # the old code made bag/x and wrote the example into it


@pytest.mark.parametrize("flags", [("--sim-speed", "1"), ("--record-rate", "100"), ("--sim-speed", "1.0")])
def test_batch_without_simulate_refuses_a_simulation_flag_given_at_its_default(
    tmp_path: Path, flags: tuple[str, str]
) -> None:
    """A simulation flag is a mistake without --simulate whatever its value, its default's too."""
    (tmp_path / "in").mkdir()
    proc = run("batch", "in", "-o", "out", "--to", "yaml", *flags, "--workers", "1", cwd=tmp_path)
    assert proc.returncode == 2, (flags, proc.stdout, proc.stderr)
    assert (
        proc.stderr.strip().splitlines()[-1] == f"motion-formats batch: error: {flags[0]} is used only with --simulate"
    )


def test_batch_tells_every_simulation_flag_not_given_from_one_given() -> None:
    """Each simulation flag's value when not given is None, an empty list or the mark of "not given"."""
    from motion_formats_ros.cli import batch_command
    from motion_formats_ros.cli.main import build_parser

    args = build_parser(only="batch").parse_args(["batch", "in", "-o", "out", "--to", "yaml"])
    for dest, flag in batch_command._SIMULATION_ONLY:
        assert getattr(args, dest) in (None, [], batch_command._NOT_GIVEN), flag
