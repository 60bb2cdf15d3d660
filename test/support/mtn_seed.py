"""The seed ``.mtn``: the complete 1,164-byte file printed as a hex dump in the spec.

The bytes are rebuilt at test time from the hex dump in the AIBO format's specification (the dump lines
``NNN. 00000000 : 4F 4D 54 4E … : OMTN…``); the mtn tests use :func:`seed_bytes`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import NO_SHARED, shared_path

SEED_SIZE = 1164
_DUMP_LINE = re.compile(r"^\s*\d+\.\s+([0-9A-F]{8})\s+:\s+((?:[0-9A-F]{2}\s+)+):")


def seed_bytes() -> bytes:
    """The spec's example file, byte for byte (skips the test when the spec is absent)."""
    specs = sorted(shared_path("specs").glob("004_*.txt"))
    if not specs:
        pytest.skip(NO_SHARED)
    text = specs[0].read_text(encoding="utf-8").replace("\xa0", " ")
    data = bytearray()
    for line in text.splitlines():
        m = _DUMP_LINE.match(line)
        if m is None:
            continue
        address = int(m.group(1), 16)
        assert address == len(data), f"dump line at {address:#x} does not follow byte {len(data):#x}"
        data += bytes.fromhex(m.group(2))
    return bytes(data)


def write_seed(folder: Path, name: str = "a_stand#sit_S.mtn") -> Path:
    path = folder / name
    path.write_bytes(seed_bytes())
    return path
