"""Where each command's outputs go: never onto a file its options name (a ``.body``, a joint map),
nor onto the journal it recovers; and a ``.seq`` written with ``--body`` loses no joint names.

Every test runs ``motion-formats`` as a user does, on the built-in walk example (``walk.seq`` in
the joint-ID order of ``biped.body``) written into a temporary folder.
"""

from __future__ import annotations

import array
import importlib.util
from pathlib import Path

import pytest
from support.cli import run

from motion_formats_ros import read
from motion_formats_ros.recording.journal import JournalWriter


def _body_order(example: Path) -> list[str]:
    return list(read(example / "walk.seq", body=example / "biped.body").motion.joint_names)


def test_batch_writes_a_seq_in_the_body_order_without_saying_names_are_lost(example: Path, tmp_path: Path) -> None:
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    body = example / "biped.body"
    order = _body_order(example)
    assert run("convert", example / "walk.seq", src / "w.msgpack", "--body", body).returncode == 0
    reversed_order = ",".join(reversed(order))  # the columns in another order than the body's
    assert run("convert", src / "w.msgpack", src / "r.msgpack", "--joints", reversed_order).returncode == 0
    proc = run("batch", src, "-o", out, "--to", "seq", "--body", body, "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert "joint names" not in proc.stderr, proc.stderr  # the old batch warned: the body was not its writer's
    for name in ("w.seq", "r.seq"):  # the body read back gives every column its name
        assert list(read(out / name, body=body).motion.joint_names) == order


def test_simulate_writes_a_seq_in_the_body_order_without_saying_names_are_lost(example: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("mujoco") is None:
        pytest.skip("needs MuJoCo (the sim extra)")
    body, out = example / "biped.body", tmp_path / "did.seq"
    proc = run("simulate", example / "walk.seq", "--body", body, "-o", out, "--speed", "4")
    assert proc.returncode in (0, 3), proc.stderr
    assert "joint names" not in proc.stderr, proc.stderr
    assert list(read(out, body=body).motion.joint_names) == _body_order(example)


def test_plot_never_writes_through_a_link_onto_the_body_it_reads(example: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    body = example / "biped.body"
    kept = body.read_bytes()
    link = tmp_path / "walk.png"
    link.symlink_to(body)
    for output in (("-o", link), (link,)):
        proc = run("plot", example / "walk.seq", *output, "--body", body, "--overwrite")
        assert proc.returncode == 1
        assert proc.stderr.startswith(f"error: {link}: is the input '{body}'"), proc.stderr
    assert body.read_bytes() == kept  # the old plot replaced the body with the image


def test_simulate_never_writes_onto_a_file_a_read_option_names(example: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("mujoco") is None:
        pytest.skip("needs MuJoCo (the sim extra)")
    joint_map = tmp_path / "map.yaml"
    joint_map.write_text("".join(f"{i}: {name}\n" for i, name in enumerate(_body_order(example))))
    kept = joint_map.read_bytes()
    walk, urdf = example / "walk.seq", example / "biped.urdf"
    for flag in ("-o", "--mjcf"):
        proc = run(
            "simulate", walk, "--urdf", urdf, "--read-option", f"joint_map={joint_map}", flag, joint_map, "--overwrite"
        )
        assert proc.returncode == 1
        assert proc.stderr.startswith(f"error: {joint_map}: is the input '{joint_map}'"), proc.stderr
    assert joint_map.read_bytes() == kept


def test_recover_never_writes_onto_its_journal(tmp_path: Path) -> None:
    journal = tmp_path / "log.msgpack.journal"
    writer = JournalWriter(journal, {"output": str(tmp_path / "log.msgpack"), "name": "log"})
    for k in range(10):
        stamp = 5_000_000_000 + k * 10_000_000
        writer.joints("/joint_states", ["a"], stamp, stamp, array.array("d", [float(k)]), None, None)
    writer.flush()  # killed: no end record
    kept = journal.read_bytes()
    (tmp_path / "link.msgpack").symlink_to(journal)
    (tmp_path / "hard.msgpack").hardlink_to(journal)
    for output, reason in (
        (journal, f"is the input '{journal}'"),
        (tmp_path / "link.msgpack", f"is the input '{journal}'"),
        (tmp_path / "hard.msgpack", f"is the input '{journal}'"),
        (tmp_path, f"holds the input '{journal}'"),
    ):
        proc = run("recover", journal, output, "--overwrite")
        assert proc.returncode == 1
        assert proc.stderr.startswith(f"error: {output}: {reason}"), proc.stderr
    assert journal.read_bytes() == kept
    assert run("recover", journal).returncode == 0 and (tmp_path / "log.msgpack").is_file()


def test_example_makes_no_folder_through_a_link_to_nothing(tmp_path: Path) -> None:
    link = tmp_path / "examples"
    link.symlink_to(tmp_path / "unmounted" / "examples")
    proc = run("example", "walk", "-o", link)
    assert proc.returncode == 1
    assert proc.stderr == (
        f"error: {link}: is a symbolic link to '{tmp_path / 'unmounted' / 'examples'}', which does not exist: "
        "no folder is made through a link (make the folder it points to, or remove the link)\n"
    )  # the old message: "cannot make the folder (File exists)"
    assert not (tmp_path / "unmounted").exists()
