"""Typed codecs: each declares its options once, as frozen dataclasses; anything else is refused by name."""

from __future__ import annotations

import dataclasses
import inspect
import json
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import CODECS, Motion, MotionFile, MotionFormatError, read, write
from motion_formats_ros.core.errors import OptionError
from motion_formats_ros.core.options import Option, check_options, options_of, runtime_types

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "motion-formats"
#: Parameters of read/write that are not options.
NOT_OPTIONS = {"path", "motion_file", "overwrite"}


def _motion_file() -> MotionFile:
    t = np.arange(5) / 10.0
    m = Motion(times=t, joint_names=("a", "b"), position=np.column_stack([np.sin(t), np.cos(t)]), rate=10.0)
    return MotionFile.single(m, name="walk")


@pytest.mark.parametrize("name", list(CODECS))
def test_options_are_frozen_dataclasses_with_help_for_every_field(name: str) -> None:
    module = CODECS[name].load()
    for cls in (module.ReadOptions, module.WriteOptions):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        instance = cls()
        for f in dataclasses.fields(cls):
            assert f.metadata.get("help"), f"{name} {cls.__name__}.{f.name} has no help"
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(instance, f.name, f.default)


@pytest.mark.parametrize("name", list(CODECS))
def test_read_and_write_take_their_options_dataclass_and_relist_none_of_its_fields(name: str) -> None:
    info = CODECS[name]
    module = info.load()
    classes = {"ReadOptions": module.ReadOptions, "WriteOptions": module.WriteOptions}
    for fn, cls in ((module.read, module.ReadOptions), (module.write, module.WriteOptions)):
        declared = options_of(cls)
        assert declared == (info.read_options if cls is module.ReadOptions else info.write_options)
        assert len({o.name for o in declared}) == len(declared)
        params = inspect.signature(fn).parameters
        assert set(params) - NOT_OPTIONS == {"options"}, f"{name}.{fn.__name__}{inspect.signature(fn)}"
        assert params["options"].default is None
        assert typing.get_type_hints(fn, localns=classes)["options"] == cls | None, f"{name}.{fn.__name__}"


def test_the_rosbag_options_are_its_dataclasses() -> None:
    from motion_formats_ros.codecs.rosbag import ReadOptions, WriteOptions

    for cls in (ReadOptions, WriteOptions):
        declared = options_of(cls)
        assert {o.name: o.default for o in declared} == {k: getattr(cls(), k) for k in cls.__dataclass_fields__}
    by_name = {o.name: o for o in options_of(WriteOptions)}
    assert by_name["trajectory_topic"].accepts(None) and not by_name["joint_topic"].accepts(None)
    assert by_name["start_time"].accepts(3) and by_name["start_time"].accepts(2.5)
    assert not by_name["start_time"].accepts("soon")


@pytest.mark.parametrize("name", list(CODECS))
def test_an_unknown_read_option_is_refused_naming_it_and_the_accepted_ones(tmp_path: Path, name: str) -> None:
    path = tmp_path / "any.file"
    path.write_bytes(b"")  # never parsed: the options are checked first
    with pytest.raises(OptionError) as err:
        read(path, format=name, bogus_option=1)
    accepted = [o.name for o in CODECS[name].read_options]
    assert err.value.option == "bogus_option" and err.value.accepted == accepted
    assert f"{name} read option 'bogus_option'" in str(err.value)
    assert "accepted: " + (", ".join(accepted) or "none") in str(err.value)
    assert isinstance(err.value, MotionFormatError) and isinstance(err.value, TypeError)


@pytest.mark.parametrize("name", [n for n, c in CODECS.items() if c.writable])
def test_an_unknown_write_option_is_refused_and_nothing_is_written(tmp_path: Path, name: str) -> None:
    out = tmp_path / f"out{CODECS[name].suffixes[0]}"
    with pytest.raises(OptionError, match=rf"{name} write option 'lossles' .*accepted: "):
        write(_motion_file(), out, format=name, lossles=True)
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_an_option_of_another_format_is_refused() -> None:
    # --body means something for a .seq, nothing for a .mof: it used to be dropped silently.
    with pytest.raises(OptionError, match=r"mof read option 'body' .*accepted: motion, joint_map, start_pose"):
        read(ROOT / "examples" / "walk.seq", format="mof", body="x.body")


def test_a_value_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match=r"seq write option 'lossless' expects bool, got str 'yes'"):
        write(_motion_file(), tmp_path / "a.seq", lossless="yes")
    with pytest.raises(OptionError, match=r"scene read option 'rate' expects int \| float \| None, got bool"):
        read(ROOT / "examples" / "walk.seq", format="scene", rate=True)
    assert not (tmp_path / "a.seq").exists()


def test_a_value_outside_the_declared_choices_is_refused_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match=r"mof write option 'int_bits' expects one of 'bhuman', 'naodevils'"):
        write(_motion_file(), tmp_path / "a.mof", int_bits="bhumans")
    with pytest.raises(OptionError, match=r"omf read option 'encoding' expects one of 'msgpack', 'yaml', 'json'"):
        read(ROOT / "examples" / "walk.seq", format="omf", encoding="toml")
    assert not (tmp_path / "a.mof").exists()


def test_command_line_text_becomes_the_declared_type() -> None:
    from motion_formats_ros.codecs import mof, mtn, rosbag, seq
    from motion_formats_ros.core.options import parse_pairs

    assert parse_pairs("mof", "write", ["tolerance=0.5", "motion_id=nod"], options_of(mof.WriteOptions)) == {
        "tolerance": 0.5,
        "motion_id": "nod",
    }
    assert parse_pairs("mtn", "write", ["frame_rate=8"], options_of(mtn.WriteOptions)) == {"frame_rate": 8}
    assert parse_pairs("seq", "write", ["lossless=yes", "version=4"], options_of(seq.WriteOptions)) == {
        "lossless": True,
        "version": 4,
    }
    assert parse_pairs("mof", "read", ["start_pose=HeadYaw:0.5,HeadPitch:-1"], options_of(mof.ReadOptions)) == {
        "start_pose": {"HeadYaw": 0.5, "HeadPitch": -1.0}
    }
    read_options = options_of(rosbag.ReadOptions)
    given = parse_pairs("rosbag", "read", ["imu=none", "topics=/a,/b"], read_options)
    assert given == {"imu": [], "topics": ["/a", "/b"]}
    with pytest.raises(OptionError, match=r"mtn write option 'frame_rate' expects int \| None, got '8.5'"):
        parse_pairs("mtn", "write", ["frame_rate=8.5"], options_of(mtn.WriteOptions))
    with pytest.raises(OptionError, match=r"mof write option 'tolerence' is not an option .*accepted: group, joint"):
        parse_pairs("mof", "write", ["tolerence=1"], options_of(mof.WriteOptions))
    with pytest.raises(OptionError, match=r"'hold' needs a value: hold=true\|false"):
        parse_pairs("rosbag", "read", ["hold"], read_options)


def test_declared_options_still_work(tmp_path: Path) -> None:
    write(_motion_file(), tmp_path / "a.seq", version=4, lossless=True, se3_format="XYZRPY")
    assert "format_version: 4" in (tmp_path / "a.seq").read_text()
    m = read(tmp_path / "a.seq", joint_names="x,y").motion
    assert m.joint_names == ("x", "y")
    write(_motion_file(), tmp_path / "b.json", encoding="yaml")
    assert read(tmp_path / "b.json", format="omf", encoding="yaml").name == "walk"


def test_check_options_on_its_own() -> None:
    accepted = (Option("n", (int,), 1), Option("s", (str,), None))
    check_options("x", "read", {"n": 2, "s": None}, accepted)
    with pytest.raises(OptionError, match=r"x read option 'm' is not an option of this format; accepted: n, s"):
        check_options("x", "read", {"m": 1}, accepted)
    with pytest.raises(OptionError, match=r"'n' expects int, got NoneType None"):
        check_options("x", "read", {"n": None}, accepted)
    with pytest.raises(OptionError, match=r"'n' expects int, got bool True"):
        check_options("x", "read", {"n": True}, accepted)
    with pytest.raises(OptionError, match="accepted: none"):
        check_options("x", "write", {"n": 1}, ())


def test_runtime_types_of_hints() -> None:
    from collections.abc import Sequence
    from typing import Any, Literal

    assert runtime_types(float) == (int, float)
    assert runtime_types(Sequence[str] | None) == (Sequence,)
    assert runtime_types(str | None) == (str,)
    assert runtime_types(Any) == (object,)
    assert runtime_types(Literal["a"]) == (object,)


def test_the_cli_refuses_an_option_the_output_format_does_not_take(tmp_path: Path) -> None:
    proc = subprocess.run(
        [str(EXE), "convert", str(ROOT / "examples" / "walk.seq"), str(tmp_path / "w.omf.json"), "--lossless"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "error: omf write option 'lossless' is not an option of this format; accepted: encoding" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "w.omf.json").exists()


def test_the_cli_lists_each_formats_options_in_the_codec_rows() -> None:
    rows = {
        r["name"]: r
        for r in json.loads(
            subprocess.run([str(EXE), "formats", "--json"], capture_output=True, text=True, check=True).stdout
        )
    }
    assert [o["name"] for o in rows["seq"]["read_options"]] == ["joint_names", "joint_map", "body"]
    lossless = next(o for o in rows["seq"]["write_options"] if o["name"] == "lossless")
    assert lossless == {"name": "lossless", "type": "bool", "default": False, "help": lossless["help"]}
    assert rows["pseq"]["write_options"] == []
    text = subprocess.run([str(EXE), "formats", "--options"], capture_output=True, text=True, check=True).stdout
    assert "    write tolerance" in text and "default 0.1" in text
    assert "keyframe reduction tolerance (deg)\n          set with: --write-option tolerance=NUMBER\n" in text


def test_a_fixed_set_is_an_enum_the_options_layer_checks_and_types() -> None:
    from motion_formats_ros.codecs import mof, omf, rosbag, seq
    from motion_formats_ros.core.distros import WRITE_DISTROS, Compression, Distro, Storage
    from motion_formats_ros.core.options import build_options
    from motion_formats_ros.core.spatial import SE3Format
    from motion_formats_ros.core.stamps import Stamps

    fields = {
        (mof.ReadOptions, "int_bits"): mof.IntBits,
        (mof.WriteOptions, "int_bits"): mof.IntBits,
        (omf.ReadOptions, "encoding"): omf.Encoding,
        (omf.WriteOptions, "encoding"): omf.Encoding,
        (seq.WriteOptions, "se3_format"): SE3Format,
        (rosbag.ReadOptions, "stamps"): Stamps,
        (rosbag.WriteOptions, "storage"): Storage,
        (rosbag.WriteOptions, "compression"): Compression,
        (rosbag.ReadOptions, "distro"): Distro,
    }
    for (cls, name), kind in fields.items():
        declared = {o.name: o for o in options_of(cls)}[name]
        assert declared.enum is kind and declared.choices == kind.values() and "str" in declared.type_name
        assert not isinstance(declared.default, kind)  # shown as text by `formats --options`
        for member in kind:
            built = build_options("x", "write", cls, {name: member.value})
            assert getattr(built, name) is member  # the codec gets the member, given its text
            assert build_options("x", "write", cls, {name: member}) == built
            assert f"{member}" == str(member) == member.value and json.dumps(member) == json.dumps(member.value)
    with pytest.raises(OptionError, match=r"'compression' expects one of 'zstd', 'lz4', 'none', got 'gzip'"):
        build_options("rosbag", "write", rosbag.WriteOptions, {"compression": "gzip"})
    assert rosbag.ReadOptions().stamps is Stamps.AUTO
    written_for = {o.name: o for o in options_of(rosbag.WriteOptions)}["distro"]
    assert written_for.enum is Distro and written_for.choices == WRITE_DISTROS  # a subset of the members
    assert build_options("rosbag", "write", rosbag.WriteOptions, {"distro": "kilted"}).distro is Distro.KILTED
    with pytest.raises(OptionError, match=r"'distro' expects one of 'humble', 'jazzy', 'kilted', got 'noetic'"):
        build_options("rosbag", "write", rosbag.WriteOptions, {"distro": "noetic"})


def test_an_enum_member_or_its_text_writes_the_same_file(tmp_path: Path) -> None:
    from motion_formats_ros.core.distros import Compression
    from motion_formats_ros.core.spatial import SE3Format

    mf = read(ROOT / "examples" / "walk.seq", joint_names=[f"j{i}" for i in range(12)])
    write(mf, tmp_path / "text.seq", se3_format="XYZRPY")
    write(mf, tmp_path / "member.seq", se3_format=SE3Format.XYZRPY)
    assert (tmp_path / "text.seq").read_bytes() == (tmp_path / "member.seq").read_bytes()
    assert "SE3Format: XYZRPY" in (tmp_path / "member.seq").read_text()
    for folder, compression in (("text", "lz4"), ("member", Compression.LZ4)):
        (tmp_path / folder).mkdir()
        write(mf, tmp_path / folder / "walk.mcap", compression=compression, start_time=1.0)
    assert (tmp_path / "text" / "walk.mcap").read_bytes() == (tmp_path / "member" / "walk.mcap").read_bytes()


def test_node_settings_and_codec_options_are_one_option_system() -> None:
    """One declaration (``option``), one class (``Option``) and one check (``Option.problem``) for a
    codec's keyword options and a node's parameters alike: bounds hold for both."""
    import importlib.util

    from motion_formats_ros.core import options
    from motion_formats_ros.playback.config import PlayerConfig

    assert importlib.util.find_spec("motion_formats_ros.core.settings") is None
    assert not hasattr(options, "setting") and not hasattr(options, "Setting")
    settings = options.settings_of(PlayerConfig)
    declared = {o.attribute: o for o in options_of(PlayerConfig)}
    assert settings and set(settings.values()) == set(declared.values())
    assert all(type(o) is Option for o in settings.values())
    assert settings["rate"].attribute == "speed" and settings["rate"].above == 0.0 and settings["rate"].runtime

    @dataclasses.dataclass(frozen=True)
    class Bounded:
        tolerance: float = options.option(0.1, "a codec option with a bound", minimum=0.0)

    with pytest.raises(OptionError, match="must be at least 0, got -1"):
        options.build_options("x", "write", Bounded, {"tolerance": -1.0})
    with pytest.raises(OptionError, match="must be a finite number, got nan"):
        options.build_options("x", "write", Bounded, {"tolerance": float("nan")})
    assert options.build_options("x", "write", Bounded, {"tolerance": 2}).tolerance == 2  # kept as given


def test_a_settings_fixed_set_is_an_enum_whose_text_is_the_parameter() -> None:
    from motion_formats_ros.core.options import make_config, settings_of
    from motion_formats_ros.playback.config import PlayerConfig, PlayMode
    from motion_formats_ros.playback.plan import Interpolation

    settings = settings_of(PlayerConfig)
    for name, kind in (("mode", PlayMode), ("trajectory_interpolation", Interpolation)):
        spec = settings[name]
        assert spec.kind is str and spec.enum is kind and spec.choices == kind.values()
        assert type(spec.default) is str  # a ROS parameter's default: the text
        assert spec.problem("sideways") == f"{name} must be one of {', '.join(kind.values())}, got 'sideways'"
    config = make_config(PlayerConfig, {"mode": "stream", "trajectory_interpolation": "quintic"})
    assert config.mode is PlayMode.STREAM and config.trajectory_interpolation is Interpolation.QUINTIC
    assert PlayerConfig().mode is PlayMode.BOTH and PlayerConfig().mode == "both"
    with pytest.raises(ValueError, match="mode must be one of both, stream, trajectory, got 'x'"):
        make_config(PlayerConfig, {"mode": "x"})
