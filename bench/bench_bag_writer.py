"""The package's MCAP storage writer against the mcap library's ``Writer`` and rosbags' own, in one run.

The package's write benchmark (``rosbag.write`` of 100,000 JointState frames × 30 joints,
position + velocity, ``/joint_states`` only) is run three times per chunk compression,
each time with another MCAP storage writer handed to rosbags' ``Writer``:

    ours    storage.plugins.McapStorageWriter (what the package writes with)
    mcap    an adapter over ``mcap.writer.Writer`` (the mcap library: chunks of the same
            size, the same compression, message indexes, summary, CRCs of chunks and
            summary), with the same ``rosbag2`` metadata record
    rosbags rosbags' own ``McapWriter`` (it writes uncompressed chunks only: row ``none``)

Each row prints the best of ``--repeat`` runs and the ratio peer / ours (above 1: ours is
faster). The library is to replace ours where it is within 1.2× (a ratio ≥ 1/1.2).

Run: ``.venv/bin/python bench/bench_bag_writer.py [--messages N] [--joints J] [--repeat R]``. Not a test.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from benchutil import best

from motion_formats_ros import Motion, MotionFile
from motion_formats_ros.codecs import rosbag
from motion_formats_ros.codecs.rosbag import _write
from motion_formats_ros.codecs.rosbag.storage import plugins
from motion_formats_ros.core.distros import Compression


class McapLibraryWriter:
    """rosbags' StorageWriter protocol over ``mcap.writer.Writer`` (one ``.mcap`` file of a rosbag2 folder)."""

    def __init__(self, path: Path, compression: Any, distro: str, chunk_compression: str) -> None:
        from mcap.writer import CompressionType, Writer

        del compression
        kind = {"zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4, "none": CompressionType.NONE}
        self.path = path / f"{path.name}.mcap"
        self.distro = distro
        self._fh = self.path.open("xb")
        self._writer = Writer(self._fh, chunk_size=plugins.CHUNK_SIZE, compression=kind[chunk_compression])
        self._writer.start(profile="ros2", library="motion_formats_ros")
        self._schemas: dict[str, int] = {}
        self._channels: dict[int, int] = {}
        self._sequence: dict[int, int] = {}

    def add_msgtype(self, connection: Any) -> None:
        encoding = plugins._definition_encoding(connection)
        self._schemas[connection.msgtype] = self._writer.register_schema(
            connection.msgtype, encoding, connection.msgdef.data.encode()
        )

    def add_connection(self, connection: Any, offered_qos_profiles: str) -> None:
        meta = {"offered_qos_profiles": offered_qos_profiles}
        if self.distro in plugins.HASH_DISTROS:
            meta["topic_type_hash"] = connection.digest
        self._channels[connection.id] = self._writer.register_channel(
            connection.topic, connection.ext.serialization_format, self._schemas[connection.msgtype], meta
        )

    def write(self, connection: Any, timestamp: int, data: bytes | memoryview) -> None:
        cid = self._channels[connection.id]
        seq = self._sequence.get(cid, 0)
        self._sequence[cid] = (seq + 1) & 0xFFFFFFFF
        self._writer.add_message(cid, timestamp, bytes(data), timestamp, seq)

    def close(self, version: int, metadata: str) -> None:
        del version
        text = plugins._with_distro(metadata, self.distro)
        self._writer.add_metadata("rosbag2", {"serialized_metadata": text, "ROS_DISTRO": self.distro})
        self._writer.finish()
        self._fh.close()

    def abort(self) -> None:
        self._fh.close()


def _library_plugins(distro: str, chunk_compression: str = "zstd") -> dict[Any, Callable[[Path, Any], Any]]:
    from rosbags.rosbag2 import StoragePlugin

    ours = plugins.storage_plugins(distro, chunk_compression)
    return {
        **ours,
        StoragePlugin.MCAP: lambda path, compression: McapLibraryWriter(path, compression, distro, chunk_compression),
    }


def _rosbags_plugins(distro: str, chunk_compression: str = "zstd") -> dict[Any, Callable[[Path, Any], Any]]:
    from rosbags.rosbag2 import StoragePlugin
    from rosbags.rosbag2.storage_mcap import McapWriter

    assert chunk_compression == "none"  # rosbags writes uncompressed chunks only
    return {**plugins.storage_plugins(distro, chunk_compression), StoragePlugin.MCAP: McapWriter}


WRITERS: dict[str, Callable[..., dict[Any, Callable[[Path, Any], Any]]]] = {
    "ours": plugins.storage_plugins,
    "mcap": _library_plugins,
    "rosbags": _rosbags_plugins,
}


def _motion(n: int, joints: int) -> MotionFile:
    rng = np.random.default_rng(1)
    m = Motion(
        times=np.arange(n) / 1000.0,
        joint_names=tuple(f"joint_{i}" for i in range(joints)),
        position=rng.normal(size=(n, joints)),
        velocity=rng.normal(size=(n, joints)),
    )
    return MotionFile.single(m, group="actual")


def _write_with(writer: str, mf: MotionFile, path: Path, compression: str) -> None:
    original = _write.storage_plugins
    _write.storage_plugins = WRITERS[writer]  # type: ignore[assignment]
    try:
        options = rosbag.WriteOptions(trajectory_topic=None, compression=Compression(compression), start_time=1.7e9)
        rosbag.write(mf, path, options, overwrite=True)
    finally:
        _write.storage_plugins = original


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--joints", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    mf = _motion(args.messages, args.joints)
    tmp = Path(tempfile.mkdtemp(prefix="bench_bag_writer."))
    print(f"rosbag.write, {args.messages} JointState x {args.joints} joints, MCAP, best of {args.repeat}:")
    try:
        warm = _motion(100, args.joints)
        for w in WRITERS:  # imports and first-call costs are not measured
            _write_with(w, warm, tmp / f"warm-{w}", "none")
        for compression in ("zstd", "lz4", "none"):
            peers = ["mcap", "rosbags"] if compression == "none" else ["mcap"]
            times: dict[str, list[float]] = {w: [] for w in ["ours", *peers]}
            for _ in range(args.repeat):  # alternating: a shared machine's load hits all alike
                for w in times:
                    bag = tmp / f"{w}-{compression}"
                    times[w].append(best(lambda w=w, bag=bag, c=compression: _write_with(w, mf, bag, c), 1))  # type: ignore[misc]
            ours = min(times["ours"])
            size = sum(p.stat().st_size for p in (tmp / f"ours-{compression}").iterdir())
            line = f"  {compression:<5} ours {ours:6.3f} s ({size / 1e6:5.1f} MB)"
            for w in peers:
                secs = min(times[w])
                peer_size = sum(p.stat().st_size for p in (tmp / f"{w}-{compression}").iterdir())
                verdict = "within 1.2x: use it" if ours / secs >= 1 / 1.2 else "keep ours"
                line += f"  {w} {secs:6.3f} s ({peer_size / 1e6:5.1f} MB) ratio {secs / ours:4.2f}x ({verdict})"
            print(line)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
