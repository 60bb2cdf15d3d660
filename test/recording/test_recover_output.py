"""Where ``motion-formats recover`` writes: beside the journal, never where its metadata points."""

from __future__ import annotations

import array
import subprocess
import sys
from pathlib import Path

import pytest

from motion_formats_ros import read
from motion_formats_ros.core.errors import WriteError
from motion_formats_ros.recording.journal import JournalWriter
from motion_formats_ros.recording.recovery import recover

EXE = Path(sys.executable).parent / "motion-formats"


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd)


def killed_journal(path: Path, metadata: dict[str, object]) -> Path:
    """A journal of five frames of two joints whose recorder was killed (no END record)."""
    journal = JournalWriter(path, metadata)
    for k in range(5):
        stamp = 1_000_000_000 + k * 10_000_000
        journal.joints("/js", ["a", "b"], stamp, stamp, array.array("d", [k, -k]))
    journal.flush()
    return path


def test_a_relative_path_in_the_metadata_is_not_followed(tmp_path: Path) -> None:
    here = tmp_path / "a" / "b"
    here.mkdir(parents=True)
    killed_journal(here / "rel.journal", {"output": "../../x.csv", "name": "log"})
    proc = run("recover", "rel.journal", cwd=here)
    assert proc.returncode == 0, proc.stderr
    assert "wrote rel.csv: actual: 5 frames" in proc.stdout
    assert proc.stderr == (
        "warning: rel.csv: the journal names '../../x.csv' as its output; written beside the journal instead "
        "(give OUTPUT to choose)\n"
    )
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["rel.csv", "rel.journal"]
    assert read(here / "rel.csv").motion.num_frames == 5


def test_an_absolute_path_in_the_metadata_is_not_written(tmp_path: Path) -> None:
    mine = tmp_path / "elsewhere" / "precious.msgpack"
    mine.parent.mkdir()
    mine.write_bytes(b"the user's own file")
    (tmp_path / "rec").mkdir()
    journal = killed_journal(tmp_path / "rec" / "crash.journal", {"output": str(mine)})
    proc = run("recover", journal, "--overwrite", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {tmp_path / 'rec' / 'crash.msgpack'}: actual: 5 frames" in proc.stdout
    assert mine.read_bytes() == b"the user's own file"
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == ["crash.journal", "crash.msgpack"]


def test_the_recorders_own_journal_is_written_where_it_was_recording(tmp_path: Path) -> None:
    out = tmp_path / "run.seq"
    journal = killed_journal(tmp_path / "run.seq.journal", {"output": str(out), "format": "seq"})
    with pytest.warns(UserWarning, match="a .seq cannot hold") as caught:
        path, _, _ = recover(journal)
    assert path == out and out.is_file()
    assert not [w for w in caught if "journal names" in str(w.message)]  # no notice: it is the same file
    formatted = killed_journal(tmp_path / "other.journal", {"format": "seq"})  # no output named: the format's suffix
    with pytest.warns(UserWarning, match="a .seq cannot hold"):
        assert recover(formatted)[0] == tmp_path / "other.seq"


def test_the_journal_is_never_the_output(tmp_path: Path) -> None:
    journal = killed_journal(tmp_path / "j.journal", {"output": str(tmp_path / "j.msgpack")})
    data = journal.read_bytes()
    for output in (journal, tmp_path):
        proc = run("recover", journal, output, "--overwrite", cwd=tmp_path)
        assert proc.returncode == 1
        relation = "is" if output == journal else "holds"
        assert proc.stderr.startswith(f"error: {output}: {relation} the input '{journal}'"), proc.stderr
        with pytest.raises(WriteError, match=f"{relation} the input"):
            recover(journal, output, overwrite=True)
    assert journal.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.journal"]


def test_a_fifo_named_as_the_journal_is_refused_at_once(tmp_path: Path) -> None:
    import os

    from support.cli import cli

    fifo = tmp_path / "f.journal"
    os.mkfifo(fifo)
    status, _, err, _ = cli("recover", fifo, blocked=())  # opening it would wait for a writer for ever
    assert status == 1 and "a FIFO, not a regular file" in err, err


def test_streams_of_new_joint_names_each_are_refused_before_their_merge_is_allocated(tmp_path: Path) -> None:
    """12,000 one-joint samples, each naming a joint of its own: a file of about a megabyte whose
    merge by joint name is 12,000 × 12,000 values. Refused in one line, under an address-space
    limit that the merge itself would exceed."""
    journal = tmp_path / "wide.journal"
    writer = JournalWriter(journal, {"name": "wide"}, flush_interval=1e9)
    for k in range(12_000):
        writer.joints("joint_states", [f"j{k}"], k * 1_000_000, k * 1_000_000, position=array.array("d", [0.0]))
    writer.close()
    assert journal.stat().st_size < 2 << 20
    limited = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "from motion_formats_ros.cli.main import main; sys.exit(main(sys.argv[1:]))"
    )
    out = tmp_path / "wide.csv"
    proc = subprocess.run(
        [sys.executable, "-c", limited, "recover", str(journal), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert "12,000 sample times × 12,000 joints would need" in lines[0], proc.stderr
    assert not out.exists()
