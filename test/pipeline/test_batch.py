"""``motion-formats batch``: a tree of real bags (MCAP and sqlite3, nested, one damaged).

The bags are written by this project with the rosbags library; every good one must come
out equal to a one-by-one ``bag2motion``, the damaged one named with exit status 1, a
second run must rewrite nothing, and a real ``distributed.LocalCluster`` (two worker
processes on 127.0.0.1) must give the same outputs as local workers.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.cli.main import main
from motion_formats_ros.pipeline import batch as batch_mod

NO_DASK = "needs dask.distributed (the [batch] extra; `make test-min` runs without it)"
NO_PYARROW = "needs pyarrow (the [parquet] extra; `make test-min` runs without it)"
#: (path under the source root, storage): rosbag2 folders, bare files, nested folders.
GOOD = {
    "site_a/day1/run_a": "mcap",
    "site_a/day1/run_b": "sqlite3",
    "site_a/day2/morning.mcap": "mcap",
    "site_b/arm.db3": "sqlite3",
    "site_b/nested/deeper/run_c": "mcap",
}
DAMAGED = "site_b/broken.mcap"


def joint_states(seed: int, frames: int = 300, joints: int = 6) -> MotionFile:
    rng = np.random.default_rng(seed)
    t = np.arange(frames) / 100.0
    names = tuple(f"joint_{i}" for i in range(joints))
    m = Motion(
        times=t,
        joint_names=names,
        position=np.cumsum(rng.normal(0, 0.01, (frames, joints)), axis=0),
        velocity=rng.normal(size=(frames, joints)),
        effort=rng.normal(size=(frames, joints)),
    )
    return MotionFile.single(m, "actual", name=f"run{seed}")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """src/ with the good bags, the damaged one, and files that are not recordings."""
    src = tmp_path_factory.mktemp("fleet") / "src"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (rel, storage) in enumerate(GOOD.items()):
            path = src / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            write(joint_states(i), path, "rosbag", storage=None if path.suffix else storage)
    good = (src / "site_a/day2/morning.mcap").read_bytes()
    rng = np.random.default_rng(99)
    # The MCAP magic, then garbage: a reader finds no record to recover.
    (src / DAMAGED).write_bytes(good[:8] + rng.integers(0, 256, 4000, dtype=np.uint8).tobytes())
    (src / "site_b/notes.yaml").write_text("operator: ana\n")
    (src / "site_b/readme.txt").write_text("not a recording\n")
    (src / "site_b/battery.csv").write_text("stamp,voltage\n0,24.1\n")
    return src


def _batch(*args: str | Path) -> int:
    return main(["batch", *(str(a) for a in args)])


def _outputs(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _expected_name(rel: str, suffix: str) -> str:
    for old in (".mcap", ".db3"):
        if rel.endswith(old):
            return rel[: -len(old)] + suffix
    return rel + suffix


@pytest.fixture(scope="module")
def one_by_one(tree: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Each good bag converted by ``bag2motion`` on its own."""
    out = tmp_path_factory.mktemp("one_by_one")
    for rel in GOOD:
        target = out / _expected_name(rel, ".msgpack")
        target.parent.mkdir(parents=True, exist_ok=True)
        assert main(["bag2motion", str(tree / rel), str(target)]) == 0
    return _outputs(out)


def test_inputs_are_the_recordings_a_rosbag2_folder_is_one(tree: Path, tmp_path: Path) -> None:
    inputs = batch_mod.find_inputs([tree], exclude=[tree / "site_a"])
    assert sorted(str(rel) for _, rel in inputs) == [
        "site_b/arm.db3",
        "site_b/broken.mcap",
        "site_b/nested/deeper/run_c",
    ]
    found = {str(rel) for _, rel in batch_mod.find_inputs([tree])}
    assert found == set(GOOD) | {DAMAGED}  # not run_a/run_a_0.mcap, not notes.yaml, readme.txt or battery.csv


def test_batch_converts_every_good_bag_like_bag2motion_and_names_the_damaged_one(
    tree: Path, one_by_one: dict[str, bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    report = tmp_path / "report.json"
    assert _batch(tree, "-o", out, "--to", "msgpack", "--workers", "2", "--report", report) == 1
    captured = capsys.readouterr()
    assert _outputs(out) == one_by_one  # byte for byte; nothing else (no temporary files)
    assert f"{tree / DAMAGED}" in captured.err and "failed (1):" in captured.err
    assert "5 converted, 0 skipped (up to date), 1 failed" in captured.out
    assert captured.out.count("] converted ") == 5  # not a terminal: one plain line per input
    entries = {Path(e["path"]).relative_to(tree).as_posix(): e for e in json.loads(report.read_text())["inputs"]}
    assert set(entries) == set(GOOD) | {DAMAGED}
    assert entries[DAMAGED]["status"] == "failed" and "broken.mcap" in entries[DAMAGED]["error"]
    for rel in GOOD:
        e = entries[rel]
        assert e["status"] == "converted" and e["error"] is None and e["frames"] == 300
        assert e["duration"] == pytest.approx(2.99) and e["seconds"] > 0
        assert e["output"] == str(out / _expected_name(rel, ".msgpack"))

    # Again: nothing rewritten, the damaged one tried again.
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*.msgpack")}
    assert _batch(tree, "-o", out, "--to", "msgpack", "--report", report) == 1
    captured = capsys.readouterr()
    assert "0 converted, 5 skipped (up to date), 1 failed" in captured.out
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*.msgpack")} == stamps
    statuses = {Path(e["path"]).name: e["status"] for e in json.loads(report.read_text())["inputs"]}
    assert sorted(statuses.values()) == ["failed"] + ["skipped"] * 5

    # A newer input is converted again; --overwrite redoes every one.
    newer = tree / "site_b/arm.db3"
    os.utime(newer, ns=(newer.stat().st_atime_ns, max(stamps.values()) + 10**9))
    assert _batch(tree, "-o", out, "--to", "msgpack", "--workers", "1") == 1
    assert "1 converted, 4 skipped (up to date), 1 failed" in capsys.readouterr().out
    assert _batch(tree, "-o", out, "--to", "msgpack", "--workers", "1", "--overwrite") == 1
    assert "5 converted, 0 skipped (up to date), 1 failed" in capsys.readouterr().out
    assert _outputs(out) == one_by_one


def test_batch_of_only_good_inputs_exits_0_and_applies_the_options(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    good = [tree / "site_a", tree / "site_b/arm.db3"]
    assert _batch(*good, "-o", out, "--to", "csv", "--joints", "joint_3,joint_1", "--rate", "50", "--workers", "2") == 0
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*.csv")) == [
        "arm.csv",
        "day1/run_a.csv",
        "day1/run_b.csv",
        "day2/morning.csv",
    ]
    m = read(out / "day1/run_b.csv").motion
    direct = read(tree / "site_a/day1/run_b", joints=["joint_3", "joint_1"], rate=50.0).motion
    assert m.joint_names == ("joint_3", "joint_1") and m.num_frames == direct.num_frames == 150
    assert np.array_equal(m.position, direct.position)  # a CSV holds every value exactly


def test_batch_to_parquet_reads_back_with_pyarrow(tree: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason=NO_PYARROW)
    out = tmp_path / "out"
    assert _batch(tree / "site_b/nested", "-o", out, "--to", "parquet") == 0
    table = pq.read_table(out / "deeper/run_c.parquet")
    direct = read(tree / "site_b/nested/deeper/run_c").motion
    assert table.num_rows == 300 and table.column_names[:2] == ["time", "joint_0.position"]
    assert np.array_equal(table.column("joint_5.effort").to_numpy(), direct.effort[:, 5])  # type: ignore[index]
    meta = table.schema.metadata
    assert json.loads(meta[b"joint_names"]) == list(direct.joint_names)
    assert meta[b"source"].decode() == str(tree / "site_b/nested/deeper/run_c")


def test_two_inputs_with_one_output_name_keep_their_suffixes(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(joint_states(1, frames=20), src / "a.mcap", "rosbag")
        write(joint_states(2, frames=20), src / "a.db3", "rosbag")
    assert _batch(src, "-o", src / ".out", "--to", "msgpack", "--workers", "1") == 0
    assert sorted(p.name for p in (src / ".out").iterdir()) == ["a.db3.msgpack", "a.mcap.msgpack"]
    # A hidden output folder inside the source is not searched on the next run.
    assert _batch(src, "-o", src / ".out", "--to", "msgpack", "--workers", "1") == 0
    assert len(list((src / ".out").iterdir())) == 2


def test_scheduler_without_dask_is_one_line_naming_the_extra(tree: Path, tmp_path: Path) -> None:
    from support.cli import cli

    status, out, err, _ = cli(
        "batch", tree / "site_b/arm.db3", "-o", tmp_path, "--to", "msgpack", "--scheduler", "tcp://127.0.0.1:1",
        blocked=("dask", "distributed"),
    )  # fmt: skip
    assert status == 1 and out == ""
    assert err.strip() == (
        "error: --scheduler (a Dask cluster) needs the optional package dask[distributed]: "
        "pip install 'motion_formats_ros[batch]'"
    )
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def cluster() -> object:
    distributed = pytest.importorskip("distributed", reason=NO_DASK)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as c:
        yield c


def test_the_same_batch_on_a_dask_local_cluster_gives_the_same_outputs(
    tree: Path, one_by_one: dict[str, bytes], cluster: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    address = cluster.scheduler_address  # type: ignore[attr-defined]
    assert address.startswith("tcp://127.0.0.1:")
    out = tmp_path / "out"
    report = tmp_path / "report.json"
    assert _batch(tree, "-o", out, "--to", "msgpack", "--scheduler", address, "--report", report) == 1
    captured = capsys.readouterr()
    assert f"on Dask scheduler {address}" in captured.out
    assert _outputs(out) == one_by_one
    assert str(tree / DAMAGED) in captured.err
    statuses = sorted(e["status"] for e in json.loads(report.read_text())["inputs"])
    assert statuses == ["converted"] * 5 + ["failed"]


def test_the_scheduler_address_can_come_from_dasks_configuration(
    tree: Path, cluster: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import dask.config

    address = cluster.scheduler_address  # type: ignore[attr-defined]
    with dask.config.set({"scheduler-address": address}):
        assert _batch(tree / "site_a/day2", "-o", tmp_path, "--to", "msgpack") == 0
        assert f"on Dask scheduler {address}" in capsys.readouterr().out
        # --workers asks for local workers explicitly.
        assert _batch(tree / "site_a/day2", "-o", tmp_path / "local", "--to", "msgpack", "--workers", "1") == 0
        assert "on 1 local worker(s)" in capsys.readouterr().out
    assert (tmp_path / "morning.msgpack").read_bytes() == (tmp_path / "local/morning.msgpack").read_bytes()


def test_progress_bar_when_asked_and_its_missing_extra(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tqdm", reason="needs tqdm (the [progress] extra; `make test-min` runs without it)")
    assert _batch(tree / "site_a", "-o", tmp_path / "bar", "--to", "msgpack", "--workers", "1", "--progress") == 0
    captured = capsys.readouterr()
    assert "] converted" not in captured.out and "3/3" in captured.err and "failed=0" in captured.err


def test_progress_asked_without_tqdm_is_one_line(tree: Path, tmp_path: Path) -> None:
    from support.cli import cli

    status, _, err, _ = cli(
        "batch", tree / "site_a", "-o", tmp_path / "out", "--to", "msgpack", "--progress", blocked=("tqdm",)
    )  # fmt: skip
    assert status == 1
    assert err.strip() == (
        "error: --progress needs the optional package tqdm: pip install 'motion_formats_ros[progress]' "
        "(ROS: rosdep key python3-tqdm)"
    )
    assert not (tmp_path / "out").exists()


def test_an_interrupted_batch_leaves_only_whole_outputs_and_resumes(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    src = tmp_path / "src"
    src.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(6):
            write(joint_states(i, frames=20_000, joints=10), src / f"run_{i}", "rosbag")
    out = tmp_path / "out"
    exe = Path(sys.executable).parent / "motion-formats"
    command = [str(exe), "batch", str(src), "-o", str(out), "--to", "msgpack"]
    proc = subprocess.Popen([*command, "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    proc.stdout.readline()  # the plan
    proc.stdout.readline()  # the first input converted
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    written = sorted(p.name for p in out.iterdir())
    assert (proc.returncode, err.strip()) == (130, "interrupted") or len(written) == 6
    assert written and all(name.endswith(".msgpack") for name in written)  # no temporary file left
    for name in written:
        assert_equal_motion(read(out / name).motion, read(src / name[: -len(".msgpack")]).motion)
    # Again: what was written is skipped, the rest converted.
    done = subprocess.run([*command, "--workers", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{6 - len(written)} converted, {len(written)} skipped (up to date), 0 failed" in done.stdout
    assert len(list(out.iterdir())) == 6


def assert_equal_motion(a: Motion, b: Motion) -> None:
    assert a.joint_names == b.joint_names and np.array_equal(a.times, b.times)
    for label, values in a.iter_arrays():
        assert np.array_equal(values, dict(b.iter_arrays())[label], equal_nan=True), label


def test_a_bag_of_two_groups_gives_one_table_per_group_and_is_skipped_next_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # JointState (actual) and a commanded motion as a JointTrajectory (the target group).
        two = MotionFile(
            groups={"actual": joint_states(1, frames=50).motion, "target": joint_states(3, frames=40).motion}
        )
        write(two, src / "arm.mcap", "rosbag")
        write(joint_states(2, frames=50), src / "arm.target.mcap", "rosbag", trajectory_topic=None)
    out = tmp_path / "out"
    assert _batch(src, "-o", out, "--to", "csv", "--workers", "1") == 0
    # arm.target.csv is the other input's table: arm.mcap's tables keep its suffix, nothing is overwritten.
    assert sorted(p.name for p in out.iterdir()) == ["arm.mcap.actual.csv", "arm.mcap.target.csv", "arm.target.csv"]
    assert read(out / "arm.mcap.target.csv").motion.num_frames == 40
    assert read(out / "arm.target.csv").motion.num_frames == 50
    capsys.readouterr()
    stamps = {p: p.stat().st_mtime_ns for p in out.iterdir()}
    assert _batch(src, "-o", out, "--to", "csv", "--workers", "1") == 0
    assert "0 converted, 2 skipped (up to date), 0 failed" in capsys.readouterr().out
    assert {p: p.stat().st_mtime_ns for p in out.iterdir()} == stamps
