"""Requests that grow with a rate: refused in one line before allocating, or done; never numpy's MemoryError.

Each command runs under an address-space limit of 1 GiB (as a machine with little memory
would), with a keyframe motion of 26 joints over 3.5 s sampled at rates whose arrays range
from well within the limit to well beyond it. The pre-check counts what resampling, the
motion check and the writers hold at their peak: a rate it lets through completes; one it
refuses names the option and the size in one line.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WAVE = REPO / "examples" / "wave.mof"
NAO = REPO / "examples" / "mini_nao.urdf"
LIMIT = 1 << 30


def _limited(*args: str | Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import resource, sys\n"
        f"resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))\n"
        "from motion_formats_ros.cli.main import entry\n"
        "sys.argv[0] = 'motion-formats'\n"
        "entry()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=REPO
    )


def _done_or_refused(proc: subprocess.CompletedProcess[str], command: str) -> bool:
    """True when the command completed, False when the pre-check refused it (after checking each case)."""
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr, proc.stderr
    if proc.returncode == 2:
        last = proc.stderr.rstrip("\n").splitlines()[-1]
        assert last.startswith(f"motion-formats {command}: error: --rate "), proc.stderr
        assert "would need" in last and "more than the" in last, last
        return False
    # wave.mof is within the NAO's limits: a check finds nothing (exit 3 would be a finding it does not have)
    assert proc.returncode == 0, proc.stderr
    if command == "check":
        assert proc.stdout.rstrip().endswith("no findings"), proc.stdout
    return True


@pytest.mark.parametrize("suffix", ["msgpack", "csv"])
def test_convert_at_any_rate_completes_or_is_refused_before_allocating(tmp_path: Path, suffix: str) -> None:
    outcomes = {}
    for rate in ("1.5e5", "3e5", "1e6"):
        out = tmp_path / f"o{rate}.{suffix}"
        proc = _limited("convert", WAVE, out, "--rate", rate)
        outcomes[rate] = _done_or_refused(proc, "convert")
        assert out.exists() == outcomes[rate]
    # 525,001 frames fit; 3.5 million frames × 26 joints cannot.
    assert outcomes["1.5e5"] and not outcomes["1e6"], outcomes


def test_check_at_any_rate_completes_or_is_refused_before_allocating() -> None:
    pytest.importorskip("coal", reason="the model has collision geometry: checking it needs the check extra")
    outcomes = {}
    for rate in ("3e4", "1e5", "1e6"):  # the collisions of its boxes cost more a frame than the limits
        proc = _limited("check", WAVE, "--urdf", NAO, "--rate", rate)
        outcomes[rate] = _done_or_refused(proc, "check")
    assert outcomes["3e4"] and not outcomes["1e6"], outcomes


def test_a_text_output_too_big_to_encode_is_one_line(tmp_path: Path) -> None:
    """What the pre-check does not count (the text of an OMF YAML file, some 200 bytes a value
    while it is made) still ends in one line, exit 1, with no output and no temporary left."""
    out = tmp_path / "wave.yaml"
    proc = _limited("convert", WAVE, out, "--rate", "3e5")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr  # 1,050,001 frames × 27 values as YAML text: over 1 GiB
    assert proc.stderr.startswith("error: not enough memory for this command"), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not list(tmp_path.iterdir())
