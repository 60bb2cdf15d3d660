"""Every codec option is listed with the command-line spelling that sets it, and ``convert`` takes it.

The listing comes from the command line itself (``formats --options --json``); each row
is then given to ``convert`` with a value of its type, in the spelling the listing shows,
on a file of that format (read options) or to a file of that format (write options).
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.core.errors import MissingDependencyError
from motion_formats_ros.core.examples import biped_body, biped_urdf, biped_walk

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "motion-formats"


def _listing(*extra: str) -> Any:
    proc = subprocess.run([str(EXE), "formats", "--options", *extra], capture_output=True, text=True, check=True)
    return proc.stdout if "--json" not in extra else json.loads(proc.stdout)


LISTING: list[dict[str, Any]] = _listing("--json")
#: One input per format whose read options are listed, and the output suffix of each writable one.
SUFFIX = {"omf": ".msgpack", "seq": ".seq", "pseq": ".pseq", "mof": ".mof", "mtn": ".mtn", "scene": ".json5"}
SUFFIX |= {"rosbag": ".mcap", "csv": ".csv", "parquet": ".parquet"}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One file of each format, and the model files options name, generated here."""
    folder = tmp_path_factory.mktemp("options")
    walk = biped_walk(rate=50.0, cycles=1)
    (folder / "biped.body").write_text(biped_body())
    (folder / "biped.urdf").write_text(biped_urdf())
    joints = list(walk.motion.joint_names)
    (folder / "map.yaml").write_text(yaml.safe_dump(dict(enumerate(joints))))
    t = np.array([0.0, 0.32, 0.64])
    nod = np.radians([[0.0, 10.0], [20.0, -10.0], [0.0, 0.0]])
    out = {
        "omf": folder / "walk.msgpack",
        "seq": folder / "walk.seq",
        "scene": folder / "walk.json5",
        "rosbag": folder / "walk.mcap",
        "csv": folder / "walk.csv",
        "mof": folder / "nod.mof",
        "mtn": folder / "nod.mtn",
        "pseq": folder / "wave.pseq",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # formats that cannot hold everything say so
        for key in ("omf", "seq", "scene", "rosbag", "csv"):
            write(walk, out[key])
        head = Motion(times=t, joint_names=("HeadYaw", "HeadPitch"), position=nod, interpolation=("linear",) * 2)
        write(MotionFile.single(head, name="nod"), out["mof"], joint_map="nao_26")
        aibo = Motion(times=t, joint_names=("head_tilt", "head_pan"), position=nod, interpolation=("linear",) * 2)
        write(MotionFile.single(aibo, name="nod"), out["mtn"], joint_map="aibo_ers7")
        try:
            write(walk, folder / "walk.parquet")
            out["parquet"] = folder / "walk.parquet"
        except MissingDependencyError:  # pyarrow absent: the parquet rows are skipped
            pass
    out["pseq"].write_text(
        "type: PoseSeq\nname: wave\ntargetBody: biped\nrefs:\n"
        "  - time: 0\n    refer:\n      type: Pose\n      joints: [ 0, 1 ]\n      q: [ 0, 0.5 ]\n"
        "  - time: 1.5\n    refer:\n      type: Pose\n      joints: [ 0, 1 ]\n      q: [ 0.25, -0.5 ]\n"
    )
    out["body"], out["urdf"], out["map"] = folder / "biped.body", folder / "biped.urdf", folder / "map.yaml"
    return out


def _value(row: dict[str, Any], files: dict[str, Path]) -> str:
    """A value of the option's type that makes sense for the generated files."""
    fmt, direction, name = row["format"], row["direction"], row["name"]
    joints = list(read(files["seq"], body=files["body"]).motion.joint_names)
    special: dict[tuple[str, str], str] = {
        ("joint_names", "read"): ",".join(joints),
        ("joint_map", "read"): {"mof": "nao_26", "mtn": "aibo_ers7"}.get(fmt, str(files["map"])),
        ("joint_map", "write"): {"mof": "nao_26", "mtn": "aibo_ers7"}.get(fmt, ""),
        ("body", "read"): str(files["body"]),
        ("body", "write"): str(files["body"]),
        ("urdf", "write"): str(files["urdf"]),
        ("joint_limits", "write"): json.dumps({joints[0]: [-3.0, 3.0]}),
        ("motion", "read"): "nod",
        ("motion_id", "write"): "nod",
        ("start_pose", "read"): "HeadYaw:0.1",
        ("group", "write"): "target",
        ("trajectory_group", "write"): "target",
        ("topics", "read"): "/joint_states",
        ("joints", "read"): ",".join(joints[:2]),
        ("links", "read"): "base_link" if fmt == "rosbag" else "true",
        ("root", "read"): "none",
        ("imu", "read"): "none",
        ("trajectory", "read"): "none",
        ("points", "read"): "none",
        ("storage", "write"): "mcap",
        ("root", "write"): "world:base_link",
        ("robot_model", "write"): str(files["urdf"]),
        ("progress", "read"): "false",
        ("frame_rate", "write"): "16",
        ("start_time", "write"): "1700000000.5",
        ("start", "read"): "0.1",
        ("end", "read"): "0.5",
        ("rate", "read"): "25",
        ("version", "write"): "4",
        ("se3_format", "write"): "XYZRPY",
        ("encoding", "read"): "msgpack",
        ("encoding", "write"): "msgpack",
    }
    if (name, direction) in special:
        return special[name, direction]
    if row["choices"]:
        return str(row["choices"][-1])
    if row["type"].startswith("bool"):
        return "true"
    assert row["default"] is not None, f"no sample value for {fmt} {direction} option {name}"
    return str(row["default"])


def _rows() -> list[Any]:
    return [pytest.param(r, id=f"{r['format']}-{r['direction']}-{r['name']}") for r in LISTING]


def test_the_listing_has_one_row_per_declared_option_with_its_flag() -> None:
    from motion_formats_ros import CODECS

    declared = [
        (name, direction, o.name)
        for name, codec in CODECS.items()
        for direction, options in (("read", codec.read_options), ("write", codec.write_options))
        for o in options
    ]
    assert [(r["format"], r["direction"], r["name"]) for r in LISTING] == declared
    for r in LISTING:
        assert {"format", "direction", "name", "type", "default", "help", "flag"} <= set(r)
        assert r["flag"].startswith(f"--{r['direction']}-option {r['name']}="), r
    # What used to be listed but not settable from the command line.
    for fmt, direction, name in [
        ("mof", "write", "tolerance"),
        ("mof", "write", "motion_id"),
        ("mtn", "write", "frame_rate"),
        ("mtn", "write", "tolerance"),
        ("omf", "write", "encoding"),
        ("scene", "read", "rate"),
        ("scene", "read", "links"),
    ]:
        assert any((r["format"], r["direction"], r["name"]) == (fmt, direction, name) for r in LISTING)


@pytest.mark.parametrize("row", _rows())
def test_every_listed_flag_is_accepted_by_convert(
    row: dict[str, Any], files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fmt = row["format"]
    if fmt not in files:
        pytest.skip(f"no {fmt} file here (optional package missing)")
    flag, spelled = row["flag"].split(" ", 1)
    setting = spelled.split("=", 1)[0] + "=" + _value(row, files)
    if row["direction"] == "read":
        src, out = files[fmt], tmp_path / "out.msgpack"
        naming = ["--body", str(files["body"])] if fmt in ("seq", "pseq") and row["name"] != "body" else []
    else:
        src = files["mof"] if fmt == "mof" else files["mtn"] if fmt == "mtn" else files["omf"]
        out, naming = tmp_path / f"out{SUFFIX[fmt]}", []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main(["convert", str(src), str(out), flag, setting, *naming])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "error" not in captured.err and out.exists()


def test_the_old_flags_are_aliases_of_the_declared_options(files: dict[str, Path], tmp_path: Path) -> None:
    a, b = tmp_path / "a.seq", tmp_path / "b.seq"
    assert main(["convert", str(files["omf"]), str(a), "--seq-version", "4", "--lossless"]) == 0
    pairs = ["--write-option", "version=4", "--write-option", "lossless=1"]
    assert main(["convert", str(files["omf"]), str(b), *pairs]) == 0
    assert a.read_bytes() == b.read_bytes() and b"format_version: 4" in b.read_bytes()


def test_a_write_option_really_reaches_the_codec(files: dict[str, Path], tmp_path: Path) -> None:
    fine, coarse, named = tmp_path / "fine.mtn", tmp_path / "coarse.mtn", tmp_path / "named.mof"
    assert main(["convert", str(files["mtn"]), str(fine), "--write-option", "frame_rate=8"]) == 0
    assert main(["convert", str(files["mtn"]), str(coarse), "--write-option", "frame_rate=32"]) == 0
    assert fine.read_bytes() != coarse.read_bytes()
    np.testing.assert_allclose(read(fine).motion.times, read(coarse).motion.times)
    assert main(["convert", str(files["mof"]), str(named), "--write-option", "motion_id=wave"]) == 0
    assert "motion_id = wave" in named.read_text()


def test_an_unknown_option_on_the_command_line_is_refused_with_the_valid_names(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o.mof"
    status = main(["convert", str(files["mof"]), str(out), "--write-option", "tolerence=0.5"])
    assert status == 1 and not out.exists()
    assert capsys.readouterr().err == (
        "error: mof write option 'tolerence' is not an option of this format; "
        "accepted: group, joint_map, tolerance, motion_id, int_bits\n"
    )


def test_a_mistyped_value_on_the_command_line_is_refused(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "o.mof"
    assert main(["convert", str(files["mof"]), str(out), "--write-option", "tolerance=fine"]) == 1
    assert capsys.readouterr().err == "error: mof write option 'tolerance' expects int | float, got 'fine'\n"
    assert main(["convert", str(files["mof"]), str(out), "--write-option", "int_bits=nao"]) == 1
    assert "expects bhuman|naodevils, got 'nao'" in capsys.readouterr().err
    assert not out.exists()


def test_formats_options_text_shows_how_to_set_each_option() -> None:
    text = _listing()
    for r in LISTING:
        assert f"set with: {r['flag']}\n" in text


def test_the_markdown_table_is_generated_from_the_declarations() -> None:
    from motion_formats_ros import CODECS
    from motion_formats_ros.core.options import markdown_table, rows

    table = _listing("--markdown")
    expected = markdown_table(
        [r for c in CODECS.values() for r in rows(c.name, c.read_options, c.write_options if c.writable else ())]
    )
    assert table == expected
    assert table.count("\n") == len(LISTING) + 2
    assert "| mof | write | `tolerance` | int \\| float | `0.1` | `--write-option tolerance=NUMBER` |" in table


def test_the_manual_shows_every_codec_s_generated_table() -> None:
    """Each format's page includes the table doc/generate.py makes from the declarations."""
    import importlib.util

    from motion_formats_ros.core.options import rows
    from motion_formats_ros.registry import CODECS

    spec = importlib.util.spec_from_file_location("doc_generate", ROOT / "doc" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    pages = "".join(p.read_text() for p in (ROOT / "doc").rglob("*.md"))
    for name, codec in CODECS.items():
        assert f"_generated/options_{name}.md" in pages, f"no page of the manual shows the {name} options"
        table = generate.options_table(name)
        for row in rows(name, codec.read_options, codec.write_options if codec.writable else ()):
            assert f"`{row['flag']}`".replace("|", "\\|") in table


def _alias_tables() -> dict[str, tuple[Any, ...]]:
    from motion_formats_ros.cli import flags

    names = ("READ_ALIASES", "WRITE_ALIASES", "BAG_READ_ALIASES", "MOTION2BAG_ALIASES")
    return {name: getattr(flags, name) for name in names}


def _copied(value: Any) -> bool:
    """A list written out, or a copy of a constant (``list(COMPRESSIONS)``); maps of formats are no copy."""
    import ast

    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return True
    if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "list" and value.args:
        return isinstance(value.args[0], ast.Name) and value.args[0].id != "CODECS"
    return False


def test_no_command_line_module_spells_out_choices() -> None:
    """Choices come from the codecs' declarations (or an enum), never a list written in cli/."""
    import ast

    literal = [
        f"{path.name}:{node.lineno}"
        for path in sorted((ROOT / "motion_formats_ros" / "cli").glob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.keyword) and node.arg == "choices" and _copied(node.value)
    ]
    assert literal == []


def test_every_alias_follows_a_declared_option() -> None:
    from motion_formats_ros.registry import codec_by_name

    for table, aliases in _alias_tables().items():
        assert aliases, table
        for alias in aliases:
            info = codec_by_name(alias.codec)
            declared = {o.name: o for o in (info.read_options if alias.direction == "read" else info.write_options)}
            assert alias.name in declared, f"{table} {alias.flag}"
            opt = declared[alias.name]
            assert alias.option() == opt
            assert alias.switch == (opt.types == (bool,) and opt.default is False), alias.flag
            assert opt.help in alias.help() and alias.help().startswith(alias.codec)


def test_an_alias_takes_its_help_choices_and_type_from_the_declaration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from motion_formats_ros.cli.flags import READ_ALIASES
    from motion_formats_ros.codecs import mof
    from motion_formats_ros.core.options import options_of

    int_bits = {o.name: o for o in options_of(mof.ReadOptions)}["int_bits"]
    with pytest.raises(SystemExit) as stop:
        main(["info", "--help"])
    assert stop.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "--int-bits {bhuman,naodevils}" in shown and f"mof: {int_bits.help}" in shown
    with pytest.raises(SystemExit) as stop:
        main(["info", str(ROOT / "examples" / "walk.seq"), "--int-bits", "bhumans"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --int-bits: invalid choice: 'bhumans' (choose from 'bhuman', 'naodevils')" in err
    alias = next(a for a in READ_ALIASES if a.flag == "--int-bits")
    assert alias("naodevils") is mof.IntBits.NAODEVILS
