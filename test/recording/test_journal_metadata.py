"""A journal's metadata and stamps as ``recover`` meets them: every field it reads is checked
(type and range, as the recorder's own settings are) and refused in one line naming the journal
and the field; stamps that int64 time arithmetic cannot hold are refused naming the sample."""

from __future__ import annotations

import array
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from motion_formats_ros.core.errors import ReadError
from motion_formats_ros.recording.journal import MAGIC, JournalWriter
from motion_formats_ros.recording.recovery import recover

EXE = Path(sys.executable).parent / "motion-formats"


def journal(path: Path, metadata: Any, stamps: list[int] | None = None) -> Path:
    """A journal of two joints (five samples unless ``stamps`` says) whose recorder was killed."""
    j = JournalWriter(path, metadata)
    for k, stamp in enumerate(stamps or [1_000_000_000 + k * 10_000_000 for k in range(5)]):
        j.joints("/js", ["a", "b"], stamp, stamp, array.array("d", [k, -k]))
    j.flush()
    return path


BAD_FIELDS = [
    ("rate", 5e-324, r"rate must be 0 \(off\) or at least 1e-09, got 4\.94066e-324"),
    ("rate", -5, r"rate must be at least 0, got -5"),
    ("rate", 1e308, r"rate must be at most 1e\+06, got 1e\+308"),
    ("rate", 10**400, r"rate must be a finite number, got an integer of about 401 digits"),
    ("rate", "abc", r"rate must be a float, got 'abc'"),
    ("joints", 5, r"joints must be a list of names, got 5"),
    ("joints", [1, 2], r"joints must be a list of names, got \[1, 2\]"),
    ("topics", 5, r"topics must be a list of names, got 5"),
    ("stamps", "bogus", r"stamps must be one of auto, header, receive, got 'bogus'"),
    ("name", [1], r"name must be a str, got \[1\]"),
    ("world_frame", 5, r"world_frame must be a str, got 5"),
    ("date", "2026-13-01", r"'2026-13-01' is not an ISO 8601 date \(month must be in 1\.\.12\)"),
    ("date", 5, r"expected a text, got 5"),
    ("output", 5, r"expected a text, got 5"),
    ("format", ["seq"], r"expected a text, got \['seq'\]"),
    ("write_options", 5, r"expected a mapping of option names to values, got 5"),
]


@pytest.mark.parametrize(
    ("field", "value", "reason"), BAD_FIELDS, ids=[f"{f}-{i}" for i, (f, _, _) in enumerate(BAD_FIELDS)]
)
def test_a_metadata_field_of_the_wrong_type_or_range_is_refused_naming_it(
    tmp_path: Path, field: str, value: Any, reason: str
) -> None:
    path = journal(tmp_path / "r.msgpack.journal", {"output": str(tmp_path / "r.msgpack"), field: value})
    with pytest.raises(ReadError, match=rf"^{path}: byte {len(MAGIC)}: metadata {field}: {reason}$"):
        recover(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.msgpack.journal"]


def test_metadata_that_is_no_object_is_refused(tmp_path: Path) -> None:
    path = journal(tmp_path / "r.msgpack.journal", [1, 2])
    with pytest.raises(ReadError, match=r"byte 14: the metadata is not a JSON object but \[1, 2\]$"):
        recover(path, tmp_path / "r.msgpack")


def test_the_command_line_refuses_a_bad_rate_in_one_line_without_numpy_warnings(tmp_path: Path) -> None:
    path = journal(tmp_path / "r.msgpack.journal", {"output": str(tmp_path / "r.msgpack"), "rate": 5e-324})
    proc = subprocess.run([str(EXE), "recover", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr == (
        f"error: {path}: byte 14: metadata rate: rate must be 0 (off) or at least 1e-09, got 4.94066e-324\n"
    )
    assert proc.stdout == ""


def test_a_rate_the_recorder_accepts_still_resamples(tmp_path: Path) -> None:
    path = journal(tmp_path / "r.msgpack.journal", {"output": str(tmp_path / "r.msgpack"), "rate": 200.0})
    _, motion_file, _ = recover(path)
    assert motion_file.motion.num_frames == 9  # 40 ms at 200 Hz


@pytest.mark.parametrize("stamp", [-(2**63), 2**63 - 1, 2**62 + 1], ids=["lowest", "highest", "past-2116"])
def test_a_stamp_beyond_int64_time_arithmetic_is_refused_naming_the_sample(tmp_path: Path, stamp: int) -> None:
    path = journal(tmp_path / "s.msgpack.journal", {"output": "s.msgpack"}, [1_000_000_000, stamp, 2_000_000_000])
    with pytest.raises(ReadError) as caught:
        recover(path)
    text = str(caught.value)
    assert text.startswith(f"{path}: byte ")
    assert f"a sample of stream '/js' has the stamp {stamp} ns, outside 0 to 2^62 ns (1970 to 2116)" in text
    assert "overflow" not in text


def test_a_relative_output_naming_the_file_beside_the_journal_gives_no_notice(tmp_path: Path) -> None:
    path = journal(tmp_path / "r.msgpack.journal", {"output": "r.msgpack"})
    proc = subprocess.run([str(EXE), "recover", path.name], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    other = journal(tmp_path / "q.msgpack.journal", {"output": "r.msgpack"})  # names another file: said
    proc = subprocess.run([str(EXE), "recover", other.name], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "the journal names 'r.msgpack' as its output; written beside the journal instead" in proc.stderr
