"""Warnings on the command line: printed as before, listed by --json, fatal with --strict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

EXE = Path(sys.executable).parent / "motion-formats"
ROW = " ".join(["0.1"] * 22 + ["1", "100"])


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )


def unclosed_mof(folder: Path) -> Path:
    path = folder / "a.mof"
    path.write_text(f"motion_id = a\nlabel start\n{ROW}\n")
    return path


def test_warnings_print_as_before_and_json_lists_them(tmp_path: Path) -> None:
    path = unclosed_mof(tmp_path)
    text = run("info", path)
    assert text.returncode == 0
    assert f"warning: {path}:3: missing final `transition allMotions extern start`" in text.stderr.splitlines()
    as_json = run("info", path, "--json")
    assert as_json.returncode == 0 and as_json.stderr == text.stderr
    notices = json.loads(as_json.stdout)["notices"]
    missing = [n for n in notices if n["kind"] == "missing"]
    assert missing == [
        {
            "kind": "missing",
            "file": str(path),
            "line": 3,
            "field": None,
            "message": "missing final `transition allMotions extern start`",
            "text": f"{path}:3: missing final `transition allMotions extern start`",
        }
    ]
    printed = [line.removeprefix("warning: ") for line in text.stderr.splitlines() if line.startswith("warning: ")]
    assert printed == [n["text"] for n in notices]


def test_convert_json_summary(tmp_path: Path) -> None:
    out = tmp_path / "a.csv"
    proc = run("convert", unclosed_mof(tmp_path), out, "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["output"] == str(out) and summary["format"] == "csv" and summary["frames"] > 0
    assert any(n["kind"] == "missing" for n in summary["notices"])


def test_strict_fails_and_writes_nothing(tmp_path: Path) -> None:
    path = unclosed_mof(tmp_path)
    out = tmp_path / "a.csv"
    proc = run("convert", path, out, "--strict")
    assert proc.returncode == 1
    assert f"warning: {path}:3: missing final" in proc.stderr
    assert f"error: {out}: not written:" in proc.stderr and "with --strict" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.mof"]
    info = run("info", path, "--strict")
    assert info.returncode == 1 and "group " in info.stdout  # the summary is printed, the status says it failed
    assert info.stderr.splitlines()[-1].startswith("error: ") and info.stderr.splitlines()[-1].endswith("--strict")


def test_strict_without_warnings_succeeds(tmp_path: Path) -> None:
    path = tmp_path / "a.mof"
    path.write_text(f"motion_id = a\nlabel start\n{ROW}\ntransition allMotions extern start\n")
    proc = run("convert", path, tmp_path / "a.csv", "--strict", "--joint-map", "nao_bhuman_22")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr and (tmp_path / "a.csv").exists()


def test_validate_json_of_a_motion_file(tmp_path: Path) -> None:
    path = unclosed_mof(tmp_path)
    proc = run("validate", path, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["valid"], report["format"], report["groups"]) == (True, "mof", 1)
    assert any(n["kind"] == "missing" and n["line"] == 3 for n in report["notices"])
    assert run("validate", path, "--strict").returncode == 1
