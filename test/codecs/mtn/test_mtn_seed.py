"""The seed ``.mtn`` rebuilt by support.mtn_seed is the whole file."""

from __future__ import annotations

from support.mtn_seed import SEED_SIZE, seed_bytes


def test_seed_dump_is_the_whole_file() -> None:
    data = seed_bytes()
    assert len(data) == SEED_SIZE
    assert data[:4] == b"OMTN"
    assert data.endswith(bytes.fromhex("ECF32300") + b"\0" * 8)
