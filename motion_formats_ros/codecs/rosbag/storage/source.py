"""An open bag, as the codec's mapping reads it: topics, types, and raw messages in time order or in blocks.

Everything the mapping needs from a bag goes through :class:`BagSource`: it opens the
files (``opening``), loads the types of the topics a command reads (``typeload``) and
iterates messages (rosbags' readers, the chunks of indexed MCAP storage directly, the
salvage scanner), or reads them in blocks (``chunks``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from ....core.errors import ReadError
from ....core.inputs import expansion_bound
from .chunks import Block, iter_chunks, mcap_blocks, sqlite_blocks
from .compression import ZSTD_MAGIC, Budget, OverexpansionError, bomb, declared_size, inflate
from .direct import UnusualLayoutError
from .opening import OpenedBag
from .readers import Topic, reason, storage_files
from .typeload import BagTypes


class BagSource:
    """An open bag (see the module docstring). Use as a context manager."""

    def __init__(self, path: Path, distro: str | None = None, direct: bool = False) -> None:
        self.path = path
        #: With ``direct`` (the package's own readers, see ``direct``): the sqlite3 storages
        #: of a rosbag2 folder that opened without counting their messages; :meth:`settle`
        #: pays what they owe.
        self.quick: list[Any] | None = [] if direct else None
        self.requested_distro = distro
        self.files = OpenedBag(path, self.quick, direct)
        self._types: BagTypes | None = None

    # ------------------------------------------------------------------ opening
    def __enter__(self) -> BagSource:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        self.files.open()
        self._types = BagTypes(self.files, self.requested_distro)

    def close(self) -> None:
        self.files.close()

    @property
    def ros1(self) -> bool:
        return self.files.ros1

    @property
    def topics(self) -> dict[str, Topic]:
        return self.files.topics

    @property
    def custom(self) -> dict[str, str]:
        return self.files.custom

    @property
    def distro(self) -> str | None:
        return self.files.distro

    @property
    def recovered(self) -> int | None:
        return self.files.recovered

    # ------------------------------------------------------------------ types
    @property
    def types(self) -> BagTypes:
        if self._types is None:
            raise RuntimeError("the bag is not open")
        return self._types

    @property
    def typestore(self) -> Any:
        return self.types.typestore

    def type_problem(self, topic: str) -> str | None:
        """See :meth:`BagTypes.type_problem`."""
        return self.types.type_problem(topic)

    def standard_joint_state(self, msgtype: str) -> bool:
        """See :meth:`BagTypes.standard_joint_state`."""
        return self.types.standard_joint_state(msgtype)

    def require_types(self, topics: Collection[str]) -> None:
        """See :meth:`BagTypes.require_types`."""
        self.types.require_types(topics)

    def deserialize(self, raw: bytes | memoryview, msgtype: str) -> Any:
        """See :meth:`BagTypes.deserialize`."""
        return self.types.deserialize(raw, msgtype)

    # ------------------------------------------------------------------ reading
    def messages(self, topics: Collection[str]) -> Iterator[tuple[str, int, bytes]]:
        """(topic, receive time ns, raw message) for ``topics``, in receive-time order.

        Raises:
            ReadError: The bag's data is damaged (a chunk does not decompress, a record
                is cut short …).
        """
        try:
            plan = self.files.plan
            if plan is not None and plan.message_compression is not False:
                budget = Budget(sum(f.stat().st_size for f in plan.files if f.is_file()))
                yield from self._unzstd(self._messages(topics), bool(plan.message_compression), budget)
            else:
                yield from self._messages(topics)
        except (ReadError, UnusualLayoutError):
            raise
        except Exception as exc:  # rosbags / decompressors on damaged data: see open()
            raise ReadError(self.path, f"cannot read bag messages: {reason(exc)}") from exc

    def _unzstd(
        self, stream: Iterator[tuple[str, int, bytes]], always: bool, budget: Budget
    ) -> Iterator[tuple[str, int, bytes]]:
        """Messages of ``compression_mode: message`` bags (or detected by their zstd magic).

        Each is decompressed bounded: to no more than its frame states, nor than its
        compressed size and the bag's (``budget``) can justify (see ``compression``).
        """
        for n, (topic, t, raw) in enumerate(stream):
            if always or raw[:4] == ZSTD_MAGIC:
                stated = declared_size(raw[:18])
                bound = min(expansion_bound(len(raw)), budget.left, stated if stated is not None else budget.left)
                try:
                    out = inflate("zstd", raw, bound)
                    budget.take(n, len(out), len(raw))
                except OverexpansionError as exc:
                    raise bomb(self.path, f"message {n + 1} (of topic {topic!r}, at {t} ns)", exc) from None
                raw = out
            yield topic, t, raw

    def _messages(self, topics: Collection[str]) -> Iterator[tuple[str, int, bytes]]:
        wanted = set(topics)
        fast = self._mcap_chunks(wanted)
        if fast is not None:
            yield from fast
            return
        if self.files.reader is not None:
            conns = [c for t in wanted for c in self.files.connections.get(t, [])]
            if not conns:
                return
            self.files.walk_chunks()  # rosbags decompresses MCAP chunks unbounded: refuse a bomb first
            for conn, timestamp, raw in self.files.reader.messages(conns):
                yield conn.topic, timestamp, raw
            return
        streams = []
        for scanner, names in self.files.scanners:
            ids = {cid for cid, name in names.items() if name in wanted}
            found = [(t, names[cid], data) for cid, t, data in scanner.messages(ids)]
            found.sort(key=lambda m: m[0])
            streams.append(found)
        import heapq  # the salvage scan only

        for t, topic, data in heapq.merge(*streams, key=lambda m: m[0]):
            yield topic, t, data

    def blocks(self, topics: Collection[str]) -> Iterator[Block] | None:
        """The messages of ``topics`` in blocks (per topic, in bag order within it), or None.

        Each block holds many messages of one topic, as one byte matrix when their sizes
        are equal, read without a Python step per message: from indexed MCAP chunks
        through their message indexes, from sqlite3 storage with one query per topic.
        The order within a topic is that of :meth:`messages`; across topics it is not
        kept. None when the bag is of another kind (ROS 1, split, compressed or recovered
        storage, a metadata.yaml read around): use :meth:`messages`.

        Raises:
            ReadError: The bag's data is damaged.
        """
        reader = self.files.reader
        if reader is None or not reader.is2 or len(reader.readers) != 1 or not topics:
            return None
        if self.files.plan is not None and self.files.plan.message_compression is not False:
            return None
        storages = self._storages()
        if storages is None or len(storages) != 1:
            return None
        storage, wanted = storages[0], set(topics)
        if getattr(storage, "chunks", None) and getattr(storage, "bio", None):
            return self._guard(mcap_blocks(storage, wanted))
        if getattr(storage, "dbconn", None) is not None:
            return self._guard(sqlite_blocks(storage, wanted))
        return None

    def _storages(self) -> list[Any] | None:
        """The storage file readers of a ROS 2 bag of one path, or None (ROS 1, a split or compressed folder)."""
        reader = self.files.reader
        if reader is None or not reader.is2 or len(reader.readers) != 1:
            return None
        inner = reader.readers[0]
        if getattr(getattr(inner.storage, "metadata", None), "compression_mode", None):
            return None
        return storage_files(inner)

    def settle(self) -> None:
        """Run the message-table scan that a quick open left out, unless a read has done it.

        Raises:
            UnusualLayoutError: The scan met a damaged table (the read is to be redone
                with rosbags' readers, which then fail as they always did).
        """
        for storage in self.quick or ():
            storage.check()

    def _guard(self, blocks: Iterator[Block]) -> Iterator[Block]:
        try:
            yield from blocks
        except (ReadError, UnusualLayoutError):
            raise
        except Exception as exc:  # sqlite / decompressors on damaged data: see open()
            raise ReadError(self.path, f"cannot read bag messages: {reason(exc)}") from exc

    def _mcap_chunks(self, wanted: set[str]) -> Iterator[tuple[str, int, bytes]] | None:
        """Raw messages straight from the chunks of indexed MCAP storage (file order), or None.

        The reader's index (chunk offsets, channel counts) is used, and each chunk is
        decompressed and checked against its CRC; the per-message generator stack of
        rosbags' reader is skipped, which is most of the cost of a raw read.
        """
        storages = self._storages()
        if not storages or not all(getattr(s, "chunks", None) and getattr(s, "bio", None) for s in storages):
            return None
        return iter_chunks(storages, wanted)
