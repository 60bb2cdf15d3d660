"""``batch`` plans no output onto an input: one refusal naming every such pair, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest

from motion_formats_ros import write
from motion_formats_ros.core.errors import WriteError
from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.pipeline import batch


def test_every_pair_whose_output_is_an_input_is_named_in_one_refusal(tmp_path: Path) -> None:
    src = tmp_path / "bt"
    src.mkdir()
    walk = biped_walk(rate=25.0, cycles=1)
    for name in ("a.csv", "b.csv", "c.msgpack"):
        write(walk, src / name)
    inputs = batch.find_inputs([src], exclude=[src])
    with pytest.raises(WriteError) as caught:
        batch.plan(inputs, src, batch.Settings(to="csv"))
    message = str(caught.value)
    assert message.startswith(f"{src}: nothing converted: 2 output(s) would replace an input: ")
    assert f"{src / 'a.csv'} -> {src / 'a.csv'} (is the input '{src / 'a.csv'}')" in message
    assert f"{src / 'b.csv'} -> {src / 'b.csv'}" in message and "c.msgpack ->" not in message
    jobs, skipped = batch.plan(inputs, src, batch.Settings(to="parquet"))  # beside the inputs: nothing lost
    assert len(jobs) == 3 and not skipped


def test_an_output_onto_a_protected_file_or_into_a_bag_is_refused(tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    walk = biped_walk(rate=25.0, cycles=1)
    write(walk, src / "w.msgpack")
    model = out / "w.seq"  # the robot model (or a joint map, a limits file) named as an output would be
    model.write_text("the model")
    inputs = batch.find_inputs([src])
    with pytest.raises(WriteError, match=rf"w\.msgpack -> {out / 'w.seq'} \(is the input '{model}'\)"):
        batch.plan(inputs, out, batch.Settings(to="seq"), protected=[model])
    assert model.read_text() == "the model"
    bag = tmp_path / "run"
    write(walk, bag, format="rosbag")
    inputs = batch.find_inputs([bag], exclude=[bag / "out"])
    with pytest.raises(WriteError, match=rf"^{bag / 'out'}: is inside the rosbag2 bag '{bag}'"):
        batch.plan(inputs, bag / "out", batch.Settings(to="csv"))  # a folder inside a bag is part of it


def test_the_report_is_never_one_of_the_batch_outputs(tmp_path: Path) -> None:
    from support.cli import cli

    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    write(biped_walk(rate=25.0, cycles=1), src / "jm.csv")
    status, _, err, _ = cli("batch", src, "-o", out, "--to", "json", "--report", out / "jm.json", blocked=())
    assert status == 1 and "is one of the batch's own outputs" in err, err
    assert not (out / "jm.json").exists()


def test_an_output_folder_in_the_input_tree_is_refused_naming_both(tmp_path: Path) -> None:
    """Outputs there would be inputs of the next batch of that folder: refused before any work."""
    from support.cli import cli

    src = tmp_path / "src"
    (src / "day").mkdir(parents=True)
    write(biped_walk(rate=25.0, cycles=1), src / "day" / "w.csv")
    (tmp_path / "link").symlink_to(src)
    before = sorted(p.relative_to(src) for p in src.rglob("*"))
    for out in (src, src / "out", src / "day" / "out", tmp_path / "link", tmp_path / "link" / "out"):
        status, _, err, _ = cli("batch", src, "-o", out, "--to", "msgpack", "--workers", "1", blocked=())
        lines = err.strip().splitlines()
        assert status == 1 and len(lines) == 1, err
        assert lines[0].startswith(f"error: {out}: output folder is ") and f"input folder {src}:" in lines[0], err
        assert sorted(p.relative_to(src) for p in src.rglob("*")) == before
    status, _, err, _ = cli("batch", src, "-o", src / ".tables", "--to", "msgpack", "--workers", "1", blocked=())
    assert status == 0 and (src / ".tables" / "day" / "w.msgpack").is_file(), err
    status, text, err, _ = cli("batch", src, "-o", src / ".tables", "--to", "msgpack", "--workers", "1", blocked=())
    assert status == 0 and "1 input(s), 1 up to date" in text, text + err  # the hidden folder is never searched


def test_a_tree_deeper_than_the_recursion_limit_is_searched_and_mirrored(tmp_path: Path) -> None:
    """Folders nested deeper than Python's recursion limit (lowered here to keep the tree small):
    found and converted, not a RecursionError out of the walk or of the output folders made."""
    import inspect
    import sys

    src, out = tmp_path / "src", tmp_path / "out"
    deepest = src
    for _ in range(300):
        deepest = deepest / "d"
    deepest.mkdir(parents=True)
    write(biped_walk(rate=25.0, cycles=1), deepest / "w.csv")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 200)
    try:
        inputs = batch.find_inputs([src], exclude=[out])
        jobs, skipped = batch.plan(inputs, out, batch.Settings(to="csv"))
        results = [batch.convert_one(job) for job in jobs]
    finally:
        sys.setrecursionlimit(limit)
    assert [rel for _, rel in inputs] == [deepest.relative_to(src) / "w.csv"] and not skipped
    assert [r.status for r in results] == ["converted"], [r.error for r in results]
    assert (out / deepest.relative_to(src) / "w.csv").is_file()


def test_the_search_of_a_deep_tree_looks_up_each_folder_a_few_times_not_each_level_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file system look-up of a path walks each of its levels: one per folder keeps the
    search linear in the depth, whereas resolving each folder's path anew (``resolve()``: a
    look-up per level) made a tree of 1,100 levels take 40 s. The look-ups are counted."""
    import os

    depth = 300
    src, out = tmp_path / "src", tmp_path / "out"
    deepest = src
    for _ in range(depth):
        deepest = deepest / "d"
    deepest.mkdir(parents=True)
    write(biped_walk(rate=25.0, cycles=1), deepest / "w.csv")
    (deepest / "link.csv").symlink_to(deepest / "w.csv")  # one input, reached twice
    calls = {"stat": 0, "lstat": 0}
    real_stat, real_lstat = os.stat, os.lstat

    def stat(*args: object, **kwargs: object) -> os.stat_result:
        calls["stat"] += 1
        return real_stat(*args, **kwargs)  # type: ignore[arg-type]

    def lstat(*args: object, **kwargs: object) -> os.stat_result:
        calls["lstat"] += 1
        return real_lstat(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "lstat", lstat)
    inputs = batch.find_inputs([src], exclude=[out])
    monkeypatch.undo()
    assert [rel for _, rel in inputs] == [deepest.relative_to(src) / "link.csv"]
    assert sum(calls.values()) < 10 * depth, calls  # the old search: about depth²/2 = 45,000
