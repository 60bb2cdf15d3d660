"""The format registry: suffixes, compound suffixes, sniffing, unknown formats."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import make_file

import motion_formats_ros
from motion_formats_ros import CODECS, Motion, MotionFile, ReadError, UnknownFormatError, read, write
from motion_formats_ros.core.notices import NoticeKind, collect, overflow_noted
from motion_formats_ros.registry import codec_for_path


def test_top_level_api() -> None:
    assert motion_formats_ros.read is read and motion_formats_ros.write is write


def test_codecs_declared_in_one_map_and_loadable() -> None:
    for name, info in CODECS.items():
        assert info.name == name
        module = info.load()
        assert callable(module.read)
        if info.writable:
            assert callable(module.write)
        if info.shared:
            assert callable(module.sniff)


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a.msgpack", "omf"), ("A.MSGPACK", "omf"), ("a.omf.json", "omf"), ("a.omf.yaml", "omf")],
)
def test_suffixes(tmp_path: Path, name: str, expected: str) -> None:
    assert codec_for_path(tmp_path / name, for_write=True).name == expected


def test_shared_suffix_defaults_to_omf_on_write(tmp_path: Path) -> None:
    assert codec_for_path(tmp_path / "x.yaml", for_write=True).name == "omf"
    assert codec_for_path(tmp_path / "x.json", for_write=True).name == "omf"


def test_sniffing_shared_suffix_reads_content(tmp_path: Path) -> None:
    f = make_file()
    write(f, tmp_path / "a.yaml")
    assert codec_for_path(tmp_path / "a.yaml").name == "omf"
    # Key order is free: a sorted dump puts `format:` after the big sections.
    doc = yaml.safe_load((tmp_path / "a.yaml").read_text())
    (tmp_path / "sorted.yaml").write_text(yaml.safe_dump(doc, sort_keys=True))
    assert read(tmp_path / "sorted.yaml").name == "walk"


def test_yaml_of_another_kind_is_an_unknown_format(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("robot: {name: x}\nformat: urdf\n")
    with pytest.raises(
        UnknownFormatError, match=r"config\.yaml: unknown format.*content matches none.*known formats: "
    ):
        read(tmp_path / "config.yaml")


def test_unknown_suffix_lists_known_formats(tmp_path: Path) -> None:
    (tmp_path / "walk.bvh").write_text("HIERARCHY")
    with pytest.raises(UnknownFormatError, match=r"unknown suffix '\.bvh'\); known formats: .*omf"):
        read(tmp_path / "walk.bvh")
    with pytest.raises(UnknownFormatError, match="format 'bvh': unknown format"):
        write(make_file(), tmp_path / "x.msgpack", format="bvh")


def test_forced_format_overrides_suffix(tmp_path: Path) -> None:
    write(make_file(), tmp_path / "log.dat", format="omf")  # msgpack by default
    assert read(tmp_path / "log.dat", format="omf").name == "walk"
    json_path = tmp_path / "log.txt"
    write(make_file(), json_path, format="omf", encoding="json")
    assert json.loads(json_path.read_text())["format"] == "omf"
    assert read(json_path, format="omf").name == "walk"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReadError, match=r"nope\.msgpack: no such file"):
        read(tmp_path / "nope.msgpack")


def test_numpys_floating_point_warnings_in_a_codec_are_one_notice_on_the_file(tmp_path: Path) -> None:
    # The net the registry puts under every codec's read and write, for what no codec refuses by name.
    out = tmp_path / "huge.mtn"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with collect(warn=False) as report, overflow_noted(out, "writing"):
            big = np.array([1.7e308, -1.7e308]) * 10.0
            assert np.isnan(big.sum())
    overflow = report.by_kind(NoticeKind.OVERFLOW)
    assert [(n.file, n.message) for n in overflow] == [
        (
            str(out),
            "overflow/invalid value in arithmetic while writing values near the end of the float range: "
            "some results are infinite or NaN",
        )
    ]


def test_velocities_near_the_float_range_sampled_on_mtns_grid_stay_finite(tmp_path: Path) -> None:
    # .mtn writes a dense motion as keyframes on its frame grid: the velocities are sampled there,
    # between ±1.7e308 (their difference overflows; the sampled values never leave the range).
    huge = Motion(times=[0, 1], joint_names=("a",), position=[[0], [1]], velocity=[[1.7e308], [-1.7e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with collect(warn=False) as report:
            write(MotionFile.single(huge), tmp_path / "huge.mtn")
    assert not report.by_kind(NoticeKind.OVERFLOW), report.warnings


def test_the_body_rule_is_one_function_every_reader_of_a_body_uses() -> None:
    """A robot's ``.body`` given beside a motion goes to a codec that takes it and to no other
    (:func:`~motion_formats_ros.registry.with_body`); nothing else in the package decides it."""
    import re

    from motion_formats_ros.registry import CODECS, with_body

    seq, omf = CODECS["seq"], CODECS["omf"]
    body = Path("robot.body")
    # The robot model beside a motion: only a .seq reader is given it.
    assert with_body({"joint_map": "x"}, seq, body=body) == ({"joint_map": "x", "body": body}, {})
    assert with_body({"body": body}, omf) == ({}, {})
    assert with_body({}, omf, body=None) == ({}, {})
    # convert: a .seq output orders its columns by it; given for neither, the read refuses it.
    assert with_body({"body": body}, omf, writer=seq) == ({}, {"body": body})
    assert with_body({"body": body}, seq, writer=seq) == ({"body": body}, {"body": body})
    assert with_body({"body": body}, omf, writer=omf) == ({"body": body}, {})
    package = Path(motion_formats_ros.__file__).parent
    deciding = re.compile(r"""accepted\(\{["']body["']""")
    where = sorted(
        str(p.relative_to(package)) for p in package.rglob("*.py") if deciding.search(p.read_text(encoding="utf-8"))
    )
    assert where == ["registry.py"], where
