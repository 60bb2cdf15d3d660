"""Batch: each input's warnings come back as typed notices; --strict fails the inputs that warn (no output)."""

from __future__ import annotations

import json
from pathlib import Path

from motion_formats_ros.cli.main import main

ROW = " ".join(["0.1"] * 22 + ["1", "100"])


def inputs(folder: Path) -> tuple[Path, Path]:
    folder.mkdir()
    warns = folder / "open.mof"  # no closing transition: a notice on line 3
    warns.write_text(f"motion_id = open\nlabel start\n{ROW}\n")
    clean = folder / "closed.mof"
    clean.write_text(f"motion_id = closed\nlabel start\n{ROW}\ntransition allMotions extern start\n")
    return warns, clean


def run(src: Path, out: Path, report: Path, *more: str) -> int:
    args = ["batch", str(src), "-o", str(out), "--to", "csv", "--workers", "1", "--joint-map", "nao_bhuman_22"]
    return main([*args, "--report", str(report), *more])


def test_notices_are_in_the_report(tmp_path: Path) -> None:
    warns, _ = inputs(tmp_path / "in")
    report = tmp_path / "report.json"
    assert run(tmp_path / "in", tmp_path / "out", report) == 0
    entries = {Path(e["path"]).name: e for e in json.loads(report.read_text())["inputs"]}
    (notice,) = entries["open.mof"]["notices"]
    assert (notice["kind"], notice["file"], notice["line"]) == ("missing", str(warns), 3)
    assert entries["open.mof"]["warnings"] == [notice["text"]]
    assert entries["closed.mof"]["notices"] == []
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["closed.csv", "open.csv"]


def test_strict_fails_the_input_that_warns_and_writes_nothing_for_it(tmp_path: Path) -> None:
    inputs(tmp_path / "in")
    report = tmp_path / "report.json"
    assert run(tmp_path / "in", tmp_path / "out", report, "--strict") == 1
    entries = {Path(e["path"]).name: e for e in json.loads(report.read_text())["inputs"]}
    assert entries["open.mof"]["status"] == "failed" and "not written" in entries["open.mof"]["error"]
    assert entries["closed.mof"]["status"] == "converted"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["closed.csv"]
