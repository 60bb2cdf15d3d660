"""A changed byte in a Parquet file written here is an error on read, never a silently
different motion: Parquet's page checksums cover the pages, the CRC-32s this package keeps
in the schema metadata cover the values and the metadata whatever the footer says."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.core.errors import ReadError

pytest.importorskip("pyarrow", reason="needs pyarrow (the [parquet] extra; `make test-min` runs without it)")


def test_every_flipped_byte_fails_or_reads_back_the_same(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    motion = Motion(times=np.arange(30) / 10.0, joint_names=("a", "b"), position=rng.normal(size=(30, 2)))
    good = tmp_path / "m.parquet"
    write(MotionFile.single(motion, "target", name="m"), good)
    data = good.read_bytes()
    bad = tmp_path / "bad.parquet"
    silent: list[int] = []
    errors: list[str] = []
    for i in range(0, len(data), 3):  # every third byte: a few seconds, every part of the file
        changed = bytearray(data)
        changed[i] ^= 0x01
        bad.write_bytes(bytes(changed))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                back = read(bad)
        except ReadError as exc:
            errors.append(str(exc))
            continue
        got = back.groups.get("target")
        same = (
            got is not None
            and got.joint_names == motion.joint_names
            and np.array_equal(got.times, motion.times)
            and np.array_equal(got.position, motion.position)
        )
        if not same:
            silent.append(i)
    assert not silent, f"{len(silent)} flipped bytes changed the motion silently (at {silent[:10]})"
    assert len(errors) > len(data) // 6
    assert all("\n" not in e and e.startswith(str(bad)) for e in errors), [e for e in errors if "\n" in e][:3]
