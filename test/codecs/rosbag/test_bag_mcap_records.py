"""MCAP opcodes and record layouts have one home (``storage.mcap_records``).

The own reader, the chunk walk, the scanner and the writer use its names, and what the
writer puts in a file is the records it names.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.codecs.rosbag import storage
from motion_formats_ros.codecs.rosbag.storage import mcap_records as rec
from motion_formats_ros.codecs.rosbag.storage.mcap_scan import McapScanner

STORAGE = Path(storage.__file__).parent
#: A comparison, a set or a record built with an opcode written as a number.
SPELLED = re.compile(
    r"(op\w*\s*(==|!=|in)\s*\(?\s*0x0[0-9A-Fa-f]|_record\(\s*0x|group\(\s*0x|bytes\(\[0x0|b\"\\x0[1-9A-Fa-f]\")"
)


def test_the_storage_modules_name_every_opcode() -> None:
    for name in ("direct.py", "chunks.py", "mcap_scan.py", "plugins.py", "opening.py"):
        text = (STORAGE / name).read_text()
        found = [m.group(0) for m in SPELLED.finditer(text)]
        assert not found, f"{name}: {found}"


def test_a_written_file_is_the_records_the_module_names(tmp_path: Path) -> None:
    motion = Motion(times=np.arange(10) / 10.0, joint_names=("a",), position=np.zeros((10, 1)))
    write(MotionFile.single(motion, name="m"), tmp_path / "m.mcap", format="rosbag")
    data = (tmp_path / "m.mcap").read_bytes()
    assert data[: len(rec.MAGIC)] == rec.MAGIC and data[-len(rec.MAGIC) :] == rec.MAGIC
    assert data[len(rec.MAGIC)] == rec.OP_HEADER
    tail = data[-rec.TAIL_SIZE :]
    assert tail[: len(rec.FOOTER_HEAD)] == rec.FOOTER_HEAD
    (summary_start,) = rec.U64.unpack_from(tail, len(rec.FOOTER_HEAD))
    ops = []
    pos = summary_start
    while True:
        op, length = rec.RECORD.unpack_from(data, pos)
        ops.append(op)
        if op == rec.OP_FOOTER:
            break
        pos += rec.RECORD.size + length
    assert {rec.OP_SCHEMA, rec.OP_CHANNEL, rec.OP_CHUNK_INDEX, rec.OP_STATISTICS, rec.OP_SUMMARY_OFFSET} <= set(ops)
    assert McapScanner(tmp_path / "m.mcap").metadata()["rosbag2"]["ROS_DISTRO"]
