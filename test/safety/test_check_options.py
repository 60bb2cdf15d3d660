"""One set of check options for ``check``, ``view`` and the player: the same arguments, the same findings.

The robot is a small fixed arm of the tests' own (``support.robots.FOLDED_URDF``) whose tip
hangs into its base: a self-collision only its SRDF's pair list makes visible.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from support.cli import cli
from support.robots import FOLDED_SRDF, FOLDED_URDF

from motion_formats_ros import write
from motion_formats_ros.cli.main import build_parser
from motion_formats_ros.core.model import Motion, MotionFile
from motion_formats_ros.safety import check

pytest.importorskip("coal")

#: The arguments that say what the check is made on, as ``check`` defines them.
CHECK_ARGUMENTS = ("--urdf", "--body", "--package-path", "--srdf", "--limits")


@pytest.fixture
def folded(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """The arm's URDF and SRDF, a joint_limits.yaml slowing j2 down, and a motion turning both joints."""
    urdf, srdf, limits = tmp_path / "folded.urdf", tmp_path / "folded.srdf", tmp_path / "joint_limits.yaml"
    urdf.write_text(FOLDED_URDF)
    srdf.write_text(FOLDED_SRDF)
    limits.write_text("joint_limits:\n  j2: {has_velocity_limits: true, max_velocity: 0.5}\n")
    t = np.arange(50) * 0.02
    position = np.column_stack([0.5 * t, 1.0 * t])  # j2 at 1 rad/s: beyond the 0.5 of joint_limits.yaml
    motion = tmp_path / "turn.csv"
    write(MotionFile.single(Motion(times=t, joint_names=("j1", "j2"), position=position), name="turn"), motion)
    return urdf, srdf, limits, motion


def _same(findings: list[dict[str, object]]) -> list[dict[str, object]]:
    """Findings as compared: every field, the worst value to 9 digits (collision depths computed in
    two processes may differ in the last bits of a float)."""
    out = []
    for f in findings:
        worst = dict(f["worst"])  # type: ignore[call-overload]
        worst["value"] = float(f"{worst['value']:.9g}")
        out.append({**f, "worst": worst})
    return out


def _actions(command: str) -> dict[str, tuple[object, ...]]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {
        flag: (
            type(a).__name__,
            a.dest,
            getattr(a.type, "__qualname__", a.type),
            a.default,
            a.help,
            a.required,
            a.nargs,
        )
        for a in sub._actions
        for flag in a.option_strings
        if flag in CHECK_ARGUMENTS
    }


def test_view_takes_the_check_arguments_as_check_does() -> None:
    check_args = _actions("check")
    assert set(check_args) == set(CHECK_ARGUMENTS)
    assert _actions("view") == check_args


def test_only_the_srdf_pair_list_shows_the_collision(folded: tuple[Path, Path, Path, Path]) -> None:
    urdf, srdf, _, motion = folded
    from motion_formats_ros import read

    assert check(read(motion), urdf).of_kind("self_collision") == []  # base / tip touch in the zero pose
    found = check(read(motion), urdf, srdf=srdf).of_kind("self_collision")
    assert [f.links for f in found] == [("base", "tip")] and found[0].intervals == ((0.0, 0.98),)


def test_the_viewers_check_finds_what_check_finds(folded: tuple[Path, Path, Path, Path]) -> None:
    pytest.importorskip("viser", reason="needs the view extra (viser)")
    from support.browser import free_port

    from motion_formats_ros import view

    urdf, srdf, limits, motion = folded
    status, out, err, _ = cli("check", motion, "--urdf", urdf, "--srdf", srdf, "--limits", limits, "--json", blocked=())
    assert status == 3, err
    expected = json.loads(out)["findings"]
    assert {f["kind"] for f in expected} == {"self_collision", "velocity_limit"}
    v = view(motion, urdf=urdf, srdf=srdf, limits=limits, port=free_port(), paused=True, announce=False)
    try:
        assert v.findings is not None and v.findings.ready.wait(120), "the check did not finish"
        report = v.findings.report
        assert report is not None, v.findings.error
        assert _same(report.to_dict()["findings"]) == _same(expected)
    finally:
        v.stop()


def test_view_on_the_command_line_says_what_check_says(folded: tuple[Path, Path, Path, Path]) -> None:
    """``view --srdf --limits`` prints the counts of the findings ``check`` lists with the same arguments."""
    pytest.importorskip("viser", reason="needs the view extra (viser)")
    import signal
    import subprocess
    import sys

    from support.browser import free_port

    urdf, srdf, limits, motion = folded
    given = ["--urdf", str(urdf), "--srdf", str(srdf), "--limits", str(limits)]
    entry = "import sys; from motion_formats_ros.cli.main import entry; sys.argv[0] = 'motion-formats'; entry()"
    command = [sys.executable, "-c", entry, "view", str(motion), *given, "--no-browser"]
    proc = subprocess.Popen(
        [*command, "--port", str(free_port())], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(2)]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    assert lines[1] == "check: 2 error(s), 0 warning(s), shown on the page\n", lines


def test_the_players_check_says_only_what_it_checked(folded: tuple[Path, Path, Path, Path]) -> None:
    """A fixed-base arm's balance is not checked: the player's line names self-collision and the floor only."""
    from motion_formats_ros import read
    from motion_formats_ros.core.kinematics import load_robot_model
    from motion_formats_ros.safety.gate import CollisionRefusedError, check_before_playing

    urdf, srdf, _, motion = folded
    said: list[tuple[str, str]] = []
    with pytest.raises(CollisionRefusedError, match="self-collision between base and tip"):
        check_before_playing(load_robot_model(urdf), read(motion).motion, lambda *m: said.append(m), srdf=srdf)
    (line,) = [text for _, text in said if text.startswith("collision check:")]
    assert line.startswith("collision check: 50 frames, 1 link pairs, floor in "), line
    assert "balance" not in line
    assert ("info", "balance not checked: the base does not float (no root pose)") in said


TETRAHEDRON = """solid tip
facet normal 0 0 -1
 outer loop
  vertex 0 0 0
  vertex 0.05 0 0
  vertex 0 0.05 0
 endloop
endfacet
facet normal 0 -1 0
 outer loop
  vertex 0 0 0
  vertex 0 0 0.05
  vertex 0.05 0 0
 endloop
endfacet
facet normal -1 0 0
 outer loop
  vertex 0 0 0
  vertex 0 0.05 0
  vertex 0 0 0.05
 endloop
endfacet
facet normal 1 1 1
 outer loop
  vertex 0.05 0 0
  vertex 0 0 0.05
  vertex 0 0.05 0
 endloop
endfacet
endsolid tip
"""


def test_the_player_finds_package_meshes_in_its_package_path(
    folded: tuple[Path, Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player's ``package_path`` parameter is where ``package://`` meshes are found, and the
    refusal without it names that parameter (not a flag the node does not have)."""
    from motion_formats_ros.playback.config import PlayerConfig, PlayerError
    from motion_formats_ros.playback.session import open_session

    for name in ("AMENT_PREFIX_PATH", "ROS_PACKAGE_PATH"):
        monkeypatch.delenv(name, raising=False)
    _, srdf, _, motion = folded
    (tmp_path / "packages" / "arm_meshes" / "meshes").mkdir(parents=True)
    (tmp_path / "packages" / "arm_meshes" / "meshes" / "tip.stl").write_text(TETRAHEDRON)
    meshed = tmp_path / "meshed.urdf"
    upper = '<box size="0.05 0.05 0.1"/>'
    assert upper in FOLDED_URDF
    meshed.write_text(FOLDED_URDF.replace(upper, '<mesh filename="package://arm_meshes/meshes/tip.stl"/>'))
    config = PlayerConfig(file=str(motion), urdf_file=str(meshed), srdf_file=str(srdf), ignore_collisions=True)
    with pytest.raises(PlayerError, match=r"not found \(searched no package folders \(set package_path:=\[DIR\]\)\)"):
        open_session(config)
    found = dataclasses.replace(config, package_path=(str(tmp_path / "packages"),))
    said: list[tuple[str, str]] = []
    open_session(found, lambda *m: said.append(m))
    assert any(text.startswith("collision check: 50 frames") for _, text in said), said


def test_flags_that_mirror_a_node_parameter_take_its_declaration() -> None:
    """``--srdf`` / ``--package-path`` say what the player's ``srdf_file`` / ``package_path`` say;
    ``simulate --timestep`` is read and bounded as ``motion_sim``'s ``timestep`` is."""
    from motion_formats_ros.core.options import settings_of
    from motion_formats_ros.playback.config import PlayerConfig
    from motion_formats_ros.simulation.sim_config import SimConfig

    player, sim = settings_of(PlayerConfig), settings_of(SimConfig)
    for command in ("check", "view"):
        status, out, _, _ = cli(command, "--help", blocked=())
        shown = " ".join(out.split())
        assert status == 0 and f"--srdf SRDF {player['srdf_file'].help}" in shown, shown
        assert f"{player['package_path'].help} (repeatable)" in shown
    status, _, err, _ = cli("simulate", "x.csv", "--body", "b.body", "--timestep", "0", blocked=())
    assert status == 2 and "argument --timestep: must be greater than 0, got 0" in err, err
    status, out, _, _ = cli("simulate", "--help", blocked=())
    assert sim["timestep"].help in " ".join(out.split())


# --------------------------------------------------------------------------- an SRDF and the model
#: The folded arm with its upper link reaching down into the base at joint j1: the two adjacent
#: links' shapes meet at the joint in every pose.
SUNK_URDF = FOLDED_URDF.replace('<box size="0.05 0.05 0.1"/>', '<box size="0.05 0.05 0.3"/>')


def test_adjacent_links_an_srdf_does_not_list_are_left_out_as_without_one(tmp_path: Path) -> None:
    """An SRDF that disables upper/tip as adjacent but says nothing of base/upper (written for an
    older model, say): base/upper meet at their joint and are not reported; base/tip still are."""
    from motion_formats_ros import read

    urdf, srdf, motion = tmp_path / "sunk.urdf", tmp_path / "sunk.srdf", tmp_path / "turn.csv"
    assert SUNK_URDF != FOLDED_URDF
    urdf.write_text(SUNK_URDF)
    srdf.write_text(
        '<robot name="folded">\n  <disable_collisions link1="upper" link2="tip" reason="Adjacent"/>\n</robot>\n'
    )
    t = np.arange(20) * 0.05
    write(MotionFile.single(Motion(times=t, joint_names=("j1", "j2"), position=np.column_stack([t, t]))), motion)
    report = check(read(motion), urdf, srdf=srdf)
    assert [f.links for f in report.of_kind("self_collision")] == [("base", "tip")]
    assert ("base", "upper") not in report.pairs and ("base", "tip") in report.pairs
    assert any("1 adjacent pairs it does not list (base/upper)" in n for n in report.notes), report.notes


def _srdf_of(tmp_path: Path, robot: str, *pairs: tuple[str, str]) -> Path:
    path = tmp_path / f"{robot}.srdf"
    rows = "".join(f'  <disable_collisions link1="{a}" link2="{b}" reason="Never"/>\n' for a, b in pairs)
    path.write_text(f'<robot name="{robot}">\n{rows}</robot>\n')
    return path


def test_an_srdf_of_another_robot_is_a_warning_that_strict_fails_on(folded: tuple[Path, Path, Path, Path]) -> None:
    urdf, _, _, motion = folded
    other = _srdf_of(motion.parent, "panda", ("panda_link0", "panda_link1"), ("base", "tip"))
    status, _, err, _ = cli("check", motion, "--urdf", urdf, "--srdf", other, blocked=())
    assert status == 0, err
    assert err.strip() == (
        f"warning: {other}: the SRDF names 2 link(s) the model 'folded' lacks (it is the SRDF of 'panda'); "
        "its pairs of them are ignored: panda_link0, panda_link1"
    ), err
    status, _, err, _ = cli("check", motion, "--urdf", urdf, "--srdf", other, "--strict", blocked=())
    assert status == 1 and "error: 1 warning with --strict" in err, (status, err)


def test_an_srdf_of_another_robot_name_is_a_warning_even_when_its_links_match(
    folded: tuple[Path, Path, Path, Path],
) -> None:
    """Its pairs may hide a real collision of this robot (a stale or borrowed SRDF): --strict fails."""
    urdf, _, _, motion = folded
    renamed = _srdf_of(motion.parent, "panda", ("base", "tip"), ("upper", "tip"))
    status, _, err, _ = cli("check", motion, "--urdf", urdf, "--srdf", renamed, blocked=())
    assert status == 0, (status, err)  # the one collision, base/tip, is among the pairs it disables
    assert err.strip() == (
        f"warning: {renamed}: the SRDF is for the robot 'panda', the model is 'folded': its 2 disabled pair(s) "
        "name links the model has, and are left out as given"
    ), err
    status, _, err, _ = cli("check", motion, "--urdf", urdf, "--srdf", renamed, "--strict", blocked=())
    assert status == 1 and "error: 1 warning with --strict" in err, (status, err)


def test_an_srdf_that_names_no_robot_is_one_warning_that_strict_fails_on(
    folded: tuple[Path, Path, Path, Path],
) -> None:
    """MoveIt cannot match it to the URDF either; its pairs are still used (they name this model's links)."""
    urdf, _, _, motion = folded
    nameless = motion.parent / "nameless.srdf"
    nameless.write_text('<robot>\n  <disable_collisions link1="base" link2="tip" reason="Never"/>\n</robot>\n')
    status, _, err, _ = cli("check", motion, "--urdf", urdf, "--srdf", nameless, blocked=())
    assert status == 0, (status, err)  # base/tip, the one collision, is the pair it disables
    assert err.strip() == (
        f"warning: {nameless}: the SRDF names no robot (its <robot> has no name), so it cannot be matched to the "
        "model 'folded': its 1 disabled pair(s) name links the model has, and are left out as given"
    ), err
    status, _, err, _ = cli("check", motion, "--urdf", urdf, "--srdf", nameless, "--strict", blocked=())
    assert status == 1 and "error: 1 warning with --strict" in err, (status, err)


@pytest.mark.parametrize("flag", ["--srdf", "--limits"])
@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_view_refuses_an_unusable_check_file_before_serving_as_check_does(
    folded: tuple[Path, Path, Path, Path], flag: str, kind: str
) -> None:
    """A FIFO, /dev/zero or a folder given as the check's SRDF or limits: ``view`` says what
    ``check`` says, in one line, and serves nothing (it used to serve and say "check: not done")."""
    pytest.importorskip("viser", reason="needs the view extra (viser)")
    import os
    import subprocess
    import sys

    from support.browser import free_port

    urdf, _, _, motion = folded
    bad = {"fifo": motion.parent / "pipe", "device": Path("/dev/zero"), "folder": motion.parent / "dir"}[kind]
    if kind == "fifo":
        os.mkfifo(bad)  # no writer ever comes
    elif kind == "folder":
        bad.mkdir()
    status, _, said, _ = cli("check", motion, "--urdf", urdf, flag, bad, blocked=())
    assert status == 1 and said.startswith(f"error: {bad}: cannot read the "), said
    port = free_port()
    entry = "import sys; from motion_formats_ros.cli.main import entry; sys.argv[0] = 'motion-formats'; entry()"
    command = [sys.executable, "-c", entry, "view", str(motion), "--urdf", str(urdf), flag, str(bad)]
    proc = subprocess.run(
        [*command, "--no-browser", "--port", str(port)], capture_output=True, text=True, timeout=60, check=False
    )
    assert (proc.returncode, proc.stdout, proc.stderr.strip()) == (1, "", said.strip())


@pytest.mark.parametrize("flag", ["--floor-tolerance", "--balance-margin"])
@pytest.mark.parametrize("value", ["1e308", "1.5", "-0.001"])
def test_a_tolerance_that_would_turn_its_check_off_is_a_usage_error(
    folded: tuple[Path, Path, Path, Path], flag: str, value: str
) -> None:
    """A floor tolerance or balance margin beyond a metre would let every frame pass without a word."""
    urdf, _, _, motion = folded
    status, text, err, _ = cli("check", motion, "--urdf", urdf, flag, value, blocked=())
    assert status == 2 and text == "" and "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == (
        f"motion-formats check: error: argument {flag}: expected a length from 0 to 1 m, got {value}"
    ), err


def test_a_tolerance_of_a_metre_is_taken(folded: tuple[Path, Path, Path, Path]) -> None:
    urdf, _, _, motion = folded
    status, _, err, _ = cli("check", motion, "--urdf", urdf, "--floor-tolerance", "1", "--balance-margin", "0")
    assert status in (0, 3) and "error: argument" not in err, err
