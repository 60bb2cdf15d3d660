"""Flags that contradict each other, or an output name no command writes to, are one line saying
so; and what a selection or a derived name gets wrong names the file it concerns.

The commands run in this process on the example walk (``walk.seq`` and the ``biped.body`` that
names its columns), as a user types them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros import read, write
from motion_formats_ros.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WALK, BODY, WAVE = EXAMPLES / "walk.seq", EXAMPLES / "biped.body", EXAMPLES / "wave.mof"
#: The walk's 12 columns.
NAMES = [f"j{i}" for i in range(12)]


def _usage_error(status: int, err: str, command: str) -> str:
    """The one error line of a usage error of ``command`` (its usage shown, exit status 2)."""
    assert status == 2, err
    assert err.startswith(f"usage: motion-formats {command} "), err
    assert "Traceback" not in err
    last = err.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"motion-formats {command}: error: "), err
    return last.removeprefix(f"motion-formats {command}: error: ")


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str]:
    try:
        status = main([str(a) for a in args])
    except SystemExit as stop:  # argparse's own usage errors
        status = int(stop.code or 0)
    return status, capsys.readouterr().err


@pytest.mark.parametrize("command", ["convert", "batch"])
def test_an_end_before_the_start_is_said_as_such(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / ("w.yaml" if command == "convert" else "out")
    args = [WALK, out] if command == "convert" else [WALK, "-o", out, "--to", "yaml"]
    status, err = _run(capsys, command, *args, "--start", "1", "--end", "0.5")
    assert _usage_error(status, err, command) == "--end 0.5 is before --start 1"
    assert not out.exists()


def test_resample_without_a_rate_is_a_usage_error_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _run(capsys, "convert", WALK, tmp_path / "w.yaml", "--resample", "hold")
    assert _usage_error(status, err, "convert") == "--resample hold needs --rate: the rate to resample to"
    status, err = _run(capsys, "batch", WALK, "-o", tmp_path / "out", "--to", "yaml", "--resample", "linear")
    assert "--resample linear needs --rate" in _usage_error(status, err, "batch")
    assert not (tmp_path / "w.yaml").exists() and not (tmp_path / "out").exists()
    assert _run(capsys, "convert", WALK, tmp_path / "h.yaml", "--resample", "hold", "--rate", "10")[0] == 0
    assert read(tmp_path / "h.yaml").motion.rate == 10.0


def test_a_to_that_contradicts_the_suffix_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _run(capsys, "convert", WALK, tmp_path / "x.seq", "--to", "omf")
    line = _usage_error(status, err, "convert")
    assert line.startswith("--to omf contradicts the output's suffix .seq (seq): give it a suffix of omf (.msgpack"), (
        line
    )
    assert not (tmp_path / "x.seq").exists()
    # --to settles a suffix that names no format, or several
    assert _run(capsys, "convert", WALK, tmp_path / "x.yaml", "--to", "seq")[0] == 0
    assert read(tmp_path / "x.yaml", body=BODY).format == "seq"
    assert _run(capsys, "convert", WALK, tmp_path / "x.out", "--to", "omf")[0] == 0
    assert read(tmp_path / "x.out", format="omf").motion.num_frames == read(WALK, body=BODY).motion.num_frames


@pytest.mark.parametrize(("name", "to", "said"), [("a.txt", "csv", "the suffix '.txt'"), ("a", "seq", "no suffix")])
def test_a_to_whose_output_no_reader_recognises_says_how_to_read_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, to: str, said: str
) -> None:
    """Written, with a warning naming the --from that reads it back (info alone cannot tell its format)."""
    out = tmp_path / name
    status, err = _run(capsys, "convert", WALK, out, "--to", to, "--strict")
    assert status != 0 and "needs --from" in err and not out.exists()  # said before writing: --strict writes nothing
    status, err = _run(capsys, "convert", WALK, out, "--to", to)
    assert status == 0, err
    (line,) = [x for x in err.splitlines() if "--from" in x]
    assert line.startswith(f"warning: {out}: the name has {said}, none of {to}'s (.")
    assert line.endswith(f"reading it back (info, convert, check …) needs --from {to}")
    assert _run(capsys, "info", out)[0] != 0  # as the warning says
    names = ["--joint-names", ",".join(NAMES)] if to == "seq" else []  # a .seq names no joints
    assert _run(capsys, "info", out, "--from", to, *names)[0] == 0
    status, err = _run(capsys, "convert", WALK, tmp_path / "bag", "--to", "rosbag")  # a bag folder is recognised
    assert status == 0 and "--from" not in err


@pytest.mark.parametrize(
    ("command", "args"),
    [("convert", [WALK, "-", "--to", "omf"]), ("plot", [WALK, "-"]), ("plot", [WALK, "-o", "-"])],
)
def test_a_dash_is_no_output_name(
    command: str,
    args: list[str | Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    status, err = _run(capsys, command, *args)
    assert _usage_error(status, err, command).endswith("'-' (standard output) cannot be written to here: name a file")
    assert list(tmp_path.iterdir()) == []


def test_an_empty_joint_name_is_refused_by_its_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    given = ",".join(["a", "", *NAMES[2:]])
    status, err = _run(capsys, "convert", WALK, tmp_path / "w.yaml", "--joint-names", given)
    assert _usage_error(status, err, "convert") == (
        f"joint names {given!r}: name 2 of 12 is empty; every joint needs a name"
    )


def test_joint_names_beside_a_body_say_the_body_names_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "w.yaml"
    status, err = _run(capsys, "convert", WALK, out, "--body", BODY, "--joint-names", ",".join(NAMES))
    assert status == 0, err
    assert (
        f"warning: {WALK}: the joints are named by --joint-names a,b,c; not used: the body file {BODY}'s joint "
        "names, which differ (it gives the robot and its links only)"
    ) in err
    motion_file = read(out)
    assert list(motion_file.motion.joint_names) == NAMES and motion_file.robot == "mfr_mini_biped"
    body_names = ",".join(read(WALK, body=BODY).motion.joint_names)  # the body's own names: nothing to say
    status, err = _run(capsys, "convert", WALK, tmp_path / "same.yaml", "--body", BODY, "--joint-names", body_names)
    assert status == 0 and "warning" not in err, err


def test_a_mof_named_with_a_dot_gets_an_identifier_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "wave.v2.mof"
    status, err = _run(capsys, "convert", WAVE, out)
    assert status == 0, err
    assert (
        f"warning: {out}: motion id 'wave_v2' made from the file name 'wave.v2', as a motion id is letters, "
        "digits and _ (another one: --write-option motion_id=NAME)"
    ) in err
    assert out.read_text().startswith("motion_id = wave_v2\n")
    assert read(out).name == "wave_v2"


@pytest.mark.parametrize("command", ["convert", "plot"])
def test_an_unknown_joint_names_the_file(command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if command == "plot":
        pytest.importorskip("matplotlib")
    out = tmp_path / ("w.yaml" if command == "convert" else "w.png")
    status, err = _run(capsys, command, WALK, out, "--body", BODY, "--joints", "left_knee,nose")
    assert status == 1, err
    assert f"error: {WALK}: unknown joint 'nose'; joints: left_hip_yaw" in err
    assert not out.exists()


def test_bag2motion_names_the_bag_of_an_unknown_joint_and_checks_its_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("mcap")
    bag = tmp_path / "w.mcap"
    write(read(WALK, body=BODY), bag)
    status, err = _run(capsys, "bag2motion", bag, tmp_path / "w.yaml", "--joints", "left_knee,nose")
    assert status == 1 and f"error: {bag}: unknown joints ['nose'] in group 'target'; joints: left_hip_yaw" in err, err
    status, err = _run(capsys, "bag2motion", bag, tmp_path / "w.mof", "--to", "seq")
    assert _usage_error(status, err, "bag2motion").startswith("--to seq contradicts the output's suffix .mof (mof)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.mcap"]


@pytest.mark.parametrize("command", ["convert", "batch"])
def test_an_empty_name_in_joints_is_refused_by_its_position(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """--joints a,,b kept a and b without a word (the empty item was dropped)."""
    out = tmp_path / ("w.yaml" if command == "convert" else "out")
    args = [WALK, out] if command == "convert" else [WALK, "-o", out, "--to", "yaml"]
    status, err = _run(capsys, command, *args, "--body", BODY, "--joints", "left_knee,,right_knee")
    assert "name 2 of 3 is empty" in _usage_error(status, err, command)
    assert not out.exists()
