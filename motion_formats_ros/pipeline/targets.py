"""The output formats of ``batch --to``, apart so that the command line names them without loading the pipeline."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Target:
    """An output format of ``batch --to``: the codec and the suffix of the files it gets."""

    codec: str
    suffix: str  # "" for a rosbag2 folder


#: ``--to`` names: OMF by its encodings, every other writable codec, tables, bags.
TARGETS: dict[str, Target] = {
    "msgpack": Target("omf", ".msgpack"),
    "yaml": Target("omf", ".yaml"),
    "json": Target("omf", ".json"),
    "seq": Target("seq", ".seq"),
    "json5": Target("scene", ".json5"),
    "mof": Target("mof", ".mof"),
    "mtn": Target("mtn", ".mtn"),
    "bag": Target("rosbag", ""),
    "mcap": Target("rosbag", ".mcap"),
    "db3": Target("rosbag", ".db3"),
    "parquet": Target("parquet", ".parquet"),
    "csv": Target("csv", ".csv"),
}
