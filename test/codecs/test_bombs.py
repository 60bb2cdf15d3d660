"""Inputs built to expand: aliases that multiply, zeros where text belongs, a line of
megabytes. Each is refused quickly, with a short message, in little memory, leaving no
temporary file behind."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core.errors import ReadError

REPO = Path(__file__).resolve().parents[2]
CLI = "import sys; from motion_formats_ros.cli.main import main; sys.exit(main(sys.argv[1:]))"


def _omf_yaml(tmp_path: Path) -> str:
    ok = tmp_path / "ok.yaml"
    m = Motion(times=np.arange(3) / 10.0, joint_names=("a", "b"), position=np.zeros((3, 2)))
    write(MotionFile.single(m, "target"), ok)
    return ok.read_text(encoding="utf-8")


def _alias_levels(levels: int) -> str:
    lines = ["x0: &x0 [0.0, 0.0]"]
    lines += [f"x{i}: &x{i} [{', '.join([f'*x{i - 1}'] * 10)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def _temporaries() -> set[str]:
    return set(os.listdir(tempfile.gettempdir()))


@pytest.mark.parametrize("where", ["unknown key", "joint names"])
def test_an_omf_yaml_alias_bomb_is_refused_at_once(tmp_path: Path, where: str) -> None:
    text = _omf_yaml(tmp_path)
    if where == "unknown key":
        text = _alias_levels(9) + text
    else:
        text = _alias_levels(9) + text.replace("joint_names: [a, b]", "joint_names: *x9")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(text, encoding="utf-8")
    before = _temporaries()
    started = time.perf_counter()
    with pytest.raises(ReadError, match=r"bomb.yaml:2: invalid YAML: aliases expand to more than \d+ values"):
        read(bomb, format="omf")
    assert time.perf_counter() - started < 5.0
    assert _temporaries() == before


def test_a_recursive_alias_is_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "loop.yaml"
    bomb.write_text("a: &a [*a]\n" + _omf_yaml(tmp_path), encoding="utf-8")
    with pytest.raises(ReadError, match="recursive alias"):
        read(bomb, format="omf")


@pytest.mark.parametrize("suffix", [".mof", ".csv", ".seq", ".pseq", ".json5"])
def test_zeros_in_a_text_format_are_refused_before_loading(tmp_path: Path, suffix: str) -> None:
    zeros = tmp_path / f"zeros{suffix}"
    zeros.write_bytes(bytes(8 << 20))
    with pytest.raises(ReadError) as info:
        read(zeros)
    assert len(str(info.value)) < 200, str(info.value)[:400]
    assert "byte 0" in str(info.value)


def test_a_huge_first_line_is_quoted_as_a_short_excerpt(tmp_path: Path) -> None:
    line = tmp_path / "line.mof"
    line.write_bytes(b"x" * (5 << 20) + b"\n")
    with pytest.raises(ReadError, match="expected `motion_id = NAME` first") as info:
        read(line)
    assert len(str(info.value)) < 400, len(str(info.value))


_MEASURED = (
    "import sys; from motion_formats_ros.cli.main import main; code = main(sys.argv[1:]); "
    # VmHWM: this process's own peak (ru_maxrss would count the forked pytest's pages before exec)
    "peak = next(x for x in open('/proc/self/status') if x.startswith('VmHWM')).split()[1]; "
    "print('PEAK', int(peak), file=sys.stderr); sys.exit(code)"
)


def _peak_mib(*args: str | Path) -> tuple[int, list[str]]:
    """Peak memory (MiB) of a command-line run in a child, and its error lines."""
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURED, *(str(a) for a in args)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    *error, peak = proc.stderr.strip().splitlines()
    assert proc.returncode == 1, proc.stderr[:400]
    return int(peak.split()[1]) // 1024, error


@pytest.mark.skipif(sys.platform != "linux", reason="peak memory from getrusage in KiB (Linux)")
def test_the_command_line_on_50_mb_of_zeros_stays_small(tmp_path: Path) -> None:
    small = tmp_path / "small.csv"
    small.write_bytes(bytes(16))
    zeros = tmp_path / "zeros.csv"
    zeros.write_bytes(bytes(50 << 20))
    baseline, _ = _peak_mib("info", small)  # the interpreter and the modules the command imports
    peak, error = _peak_mib("info", zeros)
    assert len(error) == 1 and len(error[0]) < 300, error
    assert peak - baseline < 32, f"{peak - baseline} MiB more for a 50 MiB input than for 16 bytes"


def test_a_parquet_file_whose_columns_decode_to_far_more_than_its_size_is_refused_before_reading(
    tmp_path: Path,
) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    bomb = tmp_path / "bomb.parquet"
    zeros = pa.table({"time": np.zeros(2_000_000), "a": np.zeros(2_000_000)})
    with pq.ParquetWriter(bomb, zeros.schema, compression="zstd") as writer:
        for _ in range(10):  # 320 MB of values in a few hundred kB
            writer.write_table(zeros)
    assert bomb.stat().st_size < 1 << 20
    started = time.perf_counter()
    with pytest.raises(ReadError, match=r"decode to more than 67108864 bytes.*decompression bomb") as info:
        read(bomb)
    assert time.perf_counter() - started < 2.0
    assert info.value.field is not None and info.value.field.startswith("row group ")


def test_a_parquet_motion_that_compresses_well_reads(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    frames = 200_000
    m = Motion(times=np.arange(frames) / 1000.0, joint_names=("a", "b", "c"), position=np.zeros((frames, 3)))
    path = tmp_path / "still.parquet"
    write(MotionFile.single(m, "target"), path)
    assert path.stat().st_size * 10 < frames * 4 * 8  # compressed well (the times do not)
    assert read(path).motion.position.shape == (frames, 3)
