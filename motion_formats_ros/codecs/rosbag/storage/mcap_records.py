"""MCAP records as the package spells them: the opcodes and the byte layouts of their heads.

One home for what the own reader (``direct``), the chunk walk (``chunks``), the scanner of
damaged files (``mcap_scan``) and the writer (``plugins``) share. Every integer is little
endian; a record is its opcode (1 byte), its length (8 bytes) and that many bytes of body.
The opcodes are plain ``int`` constants (a comparison against an ``IntEnum`` member costs
seven times as much in the per-record loops that read a chunk).
"""

from __future__ import annotations

import struct

#: The 8 bytes that start and end an MCAP file.
MAGIC = b"\x89MCAP0\r\n"

OP_HEADER = 0x01
OP_FOOTER = 0x02
OP_SCHEMA = 0x03
OP_CHANNEL = 0x04
OP_MESSAGE = 0x05
OP_CHUNK = 0x06
OP_MESSAGE_INDEX = 0x07
OP_CHUNK_INDEX = 0x08
OP_STATISTICS = 0x0B
OP_METADATA = 0x0C
OP_METADATA_INDEX = 0x0D
OP_SUMMARY_OFFSET = 0x0E
OP_DATA_END = 0x0F

U16 = struct.Struct("<H")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
#: A record's head: opcode, body length.
RECORD = struct.Struct("<BQ")
#: A message record's body head: channel id, sequence, log time, publish time.
MESSAGE = struct.Struct("<HIQQ")
#: The part of it a reader of receive times needs: channel id, sequence, log time.
MESSAGE_LOGGED = struct.Struct("<HIQ")
#: A message record from its opcode to its log time.
MESSAGE_RECORD = struct.Struct("<BQHIQ")
#: A message index record's head: opcode, length, channel id, length of its (time, offset) entries.
MESSAGE_INDEX = struct.Struct("<BQHI")
#: One entry of the channel tables of chunk index and statistics records: channel id, a count or offset.
CHANNEL_ENTRY = struct.Struct("<HQ")
#: A chunk record's body head: message start and end time, uncompressed size, uncompressed CRC.
CHUNK = struct.Struct("<QQQI")
#: A whole footer record (opcode 0x02, length 20, summary start, summary offset start, summary CRC).
FOOTER_SIZE = 1 + 8 + 20
#: The footer's opcode and length, as every footer starts.
FOOTER_HEAD = bytes([OP_FOOTER]) + U64.pack(20)
#: What ends a file: the footer record and the closing magic.
TAIL_SIZE = FOOTER_SIZE + len(MAGIC)

__all__ = [
    "CHANNEL_ENTRY",
    "CHUNK",
    "FOOTER_HEAD",
    "FOOTER_SIZE",
    "MAGIC",
    "MESSAGE",
    "MESSAGE_INDEX",
    "MESSAGE_LOGGED",
    "MESSAGE_RECORD",
    "OP_CHANNEL",
    "OP_CHUNK",
    "OP_CHUNK_INDEX",
    "OP_DATA_END",
    "OP_FOOTER",
    "OP_HEADER",
    "OP_MESSAGE",
    "OP_MESSAGE_INDEX",
    "OP_METADATA",
    "OP_METADATA_INDEX",
    "OP_SCHEMA",
    "OP_STATISTICS",
    "OP_SUMMARY_OFFSET",
    "RECORD",
    "TAIL_SIZE",
    "U16",
    "U32",
    "U64",
]
