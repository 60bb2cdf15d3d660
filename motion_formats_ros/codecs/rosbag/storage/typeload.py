"""Message types of an open bag: the definitions it carries, parsed per topic, and deserializing.

Definitions are parsed only for the topics a command reads (:meth:`BagTypes.type_problem`),
so that a definition rosbags cannot parse (a Jazzy service event's) concerns its own topic
only; types the bag does not define come from the distro's typestore and
:data:`.msgtypes.KNOWN`. CDR payloads are deserialized with rosbags, accepting bytes after
the message as rosbag2 stores them (:func:`deserialize_cdr`).
"""

from __future__ import annotations

import struct
from collections.abc import Collection
from pathlib import Path
from typing import Any

from ....core.distros import DEFAULT_DISTRO, DISTROS
from ....core.errors import MotionFormatError, ReadError
from ....core.notices import NoticeKind, notify
from . import msgtypes, standard
from .opening import OpenedBag
from .readers import reason


def typestore_for(distro: str) -> Any:
    """The rosbags typestore of ``distro`` (``humble``, ``jazzy``, ``kilted`` …)."""
    from rosbags.typesys import Stores, get_typestore

    try:
        return get_typestore(Stores(DISTROS[distro.lower()]))
    except KeyError:
        raise ValueError(f"unknown ROS distro {distro!r}; known: {', '.join(DISTROS)}") from None


class BagTypes:
    """The types of an opened bag (see the module docstring).

    The standard types (``standard``) of a ROS 2 bag are answered without rosbags: a
    topic whose definition is the standard one (or that has none, in a ROS 2 distro)
    needs no typestore, and its payloads decode with :func:`.standard.decode`. The
    typestore is made on first need (:attr:`typestore`), with the types of the topics
    answered before registered as rosbags' parse of their definitions registers them.
    """

    def __init__(self, opened: OpenedBag, requested_distro: str | None = None) -> None:
        self.path: Path = opened.path
        self.requested_distro = requested_distro
        self.ros1 = opened.ros1
        self.distro = opened.distro
        self.topics = opened.topics
        self._store: Any = None
        self._definitions = opened.definitions
        self._digests = opened.digests
        self._problems: dict[str, str | None] = {}
        self._defaults_loaded = False
        #: Topics answered without the typestore, in order, and the (standard) types they loaded.
        self._answered: list[str] = []
        self._standard_loaded: set[str] = set()

    @property
    def typestore(self) -> Any:
        """rosbags' typestore of the types loaded so far (made on first use)."""
        if self._store is None:
            from rosbags.typesys import Stores, get_typestore

            self._store = get_typestore(Stores.EMPTY)
            self._standard_loaded = set()
            for topic in self._answered:  # what their definitions register, in the same order
                self._load_types(topic, quiet=True)
            self._answered = []
        return self._store

    def _default_store(self) -> Any:
        if self.requested_distro is not None:
            return typestore_for(self.requested_distro)
        if self.distro in DISTROS:
            return typestore_for(str(self.distro))
        return typestore_for("noetic" if self.ros1 else DEFAULT_DISTRO)

    def _load_defaults(self) -> None:
        """Types the bag does not define: the distro's typestore, then :data:`.msgtypes.KNOWN`."""
        if self._defaults_loaded:
            return
        self._defaults_loaded = True
        have = self.typestore.fielddefs
        default = self._default_store()
        self.typestore.register({k: v for k, v in default.fielddefs.items() if k not in have})
        self.typestore.register({k: v for k, v in msgtypes.known_types().items() if k not in have})

    def type_problem(self, topic: str) -> str | None:
        """Why ``topic``'s messages cannot be decoded, or None when they can (its types are loaded).

        Only this topic's definition is parsed (once); a definition that rosbags cannot parse
        (a service event's, a damaged one) concerns its topic only.
        """
        if topic not in self._problems:
            if self._store is None and self._standard_types(topic):
                self._problems[topic] = None
                self._answered.append(topic)
            else:
                self._problems[topic] = self._load_types(topic)
        return self._problems[topic]

    def _standard_types(self, topic: str) -> bool:
        """Whether ``topic``'s types are loaded without rosbags: a standard type with its standard
        definition, or none in a ROS 2 distro (see ``standard``); False leaves them to rosbags."""
        info = self.topics.get(topic)
        if info is None or self.ros1 or info.msgtype not in standard.TOPIC_TYPES:
            return False
        msgtype = info.msgtype
        definitions = self._definitions.get(topic, [])
        if definitions:
            kind, text = definitions[0]  # rosbags registers the first definition that parses
            if kind != "msg" or not standard.is_standard(msgtype, text):
                return False
            self._standard_loaded |= standard.closure(msgtype)
            digest = self._digests.get(topic)
            if digest and digest != standard.HASHES[msgtype]:
                self._hash_mismatch(msgtype, topic)
            return True
        # No definition: the distro's types are loaded, where all standard types are the same.
        if self.requested_distro is not None:
            distro = self.requested_distro.lower()
        else:
            distro = str(self.distro) if self.distro in DISTROS else DEFAULT_DISTRO
        if not DISTROS.get(distro, "").startswith("ros2"):
            return False
        self._standard_loaded |= set(standard.FIELDS)
        return True

    def _hash_mismatch(self, msgtype: str, topic: str) -> None:
        notify(
            NoticeKind.INCONSISTENT,
            f"the bag's definition of {msgtype} does not match the type hash "
            "recorded with it; its messages may decode wrongly",
            file=self.path,
            field=topic,
            stacklevel=6,
        )

    def _load_types(self, topic: str, quiet: bool = False) -> str | None:
        info = self.topics.get(topic)
        if info is None:
            return "no such topic"
        msgtype = info.msgtype
        if not msgtype:
            return "its connections have different message types"
        if msgtypes.is_service_event(msgtype):
            return "service events (service requests and responses), not convertible"
        store = self.typestore
        failed = ""
        for kind, text in self._definitions.get(topic, []):
            try:
                parsed = msgtypes.parse_definition(kind, text, msgtype)
                new = {k: v for k, v in parsed.items() if k not in store.fielddefs}
                if new:
                    store.register(new)
            except _refused() as exc:  # this definition is unusable
                failed = reason(exc)
                continue
            break
        if msgtypes.missing_types(store.fielddefs, msgtype):
            self._load_defaults()
        missing = msgtypes.missing_types(store.fielddefs, msgtype)
        if missing:
            if failed:
                return f"cannot parse its definition: {failed}"
            distro = self.requested_distro or self.distro or DEFAULT_DISTRO
            return f"no definition of {', '.join(sorted(missing))} (neither in the bag nor the {distro} types)"
        digest = self._digests.get(topic)
        if digest and not failed and self._definitions.get(topic):
            try:
                mismatch = store.hash_rihs01(msgtype) != digest
            except _refused():  # a type the store lacks, or one rosbags cannot hash: no check
                mismatch = False
            if mismatch and not quiet:
                self._hash_mismatch(msgtype, topic)
        return None

    def standard_joint_state(self, msgtype: str) -> bool:
        """Whether the loaded definition of ``msgtype`` (and its header's) is JointState's own.

        Only then does the bulk decoder read what rosbags' deserializer would (with a
        damaged or different definition in the bag, messages are decoded one by one).
        """
        names = (msgtype, "sensor_msgs/msg/JointState", "std_msgs/msg/Header", "builtin_interfaces/msg/Time")
        if msgtype != names[1]:
            return False
        if self._store is None:
            return not self.ros1 and set(names) <= self._standard_loaded
        reference = typestore_for("noetic" if self.ros1 else DEFAULT_DISTRO).fielddefs
        have = self.typestore.fielddefs
        return all(name in have and have[name][1] == reference[name][1] for name in names[1:])

    def standard_tf(self, topic: str) -> bool:
        """Whether ``topic``'s TF types are ROS 2's own (a CDR bag; the same definitions field by field)."""
        if self.ros1 or self.type_problem(topic) is not None:
            return False
        if self._store is None:
            return standard.closure("tf2_msgs/msg/TFMessage") <= self._standard_loaded
        reference = typestore_for("jazzy").fielddefs
        defs = self.typestore.fielddefs
        return all(t in defs and defs[t] == reference[t] for t in standard.closure("tf2_msgs/msg/TFMessage"))

    def require_types(self, topics: Collection[str]) -> None:
        """Load the types of ``topics``.

        Raises:
            ReadError: A topic's messages cannot be decoded (names the topic and why).
        """
        for topic in topics:
            problem = self.type_problem(topic)
            if problem is not None:
                raise ReadError(self.path, f"topic {topic!r} ({self.topics[topic].msgtype}): {problem}")

    # ------------------------------------------------------------------ reading
    def deserialize(self, raw: bytes | memoryview, msgtype: str) -> Any:
        """A message object from its payload.

        A CDR payload may carry bytes after the message (what
        ``rclpy.serialization.serialize_message`` returns with Fast DDS, stored as it is
        by rosbag2): they are ignored. A payload too short for its message is refused.

        Raises:
            PayloadTooShortError: The payload ends inside the message.
            UndecodableMessageError: Another malformed payload (rosbags' error is its cause).
        """
        try:
            if self.ros1:
                return self.typestore.deserialize_ros1(raw, msgtype)
            if (
                self._store is None
                and msgtype in standard.TOPIC_TYPES
                and standard.closure(msgtype) <= self._standard_loaded
            ):
                message = standard.decode(raw, msgtype)
                if message is not None:
                    return message
            return deserialize_cdr(self.typestore, raw, msgtype)
        except PayloadTooShortError:
            raise
        except _malformed() as exc:  # evaluated only when something was raised: rosbags stays unloaded until then
            raise UndecodableMessageError(f"{msgtype}: {type(exc).__name__}: {exc}") from exc


class PayloadTooShortError(MotionFormatError, ValueError):
    """A CDR payload that ends before its message does (counted and reported by the reader)."""


class UndecodableMessageError(MotionFormatError, ValueError):
    """A payload the deserializer refuses for another reason (counted and reported by the reader)."""


def _refused() -> tuple[type[BaseException], ...]:
    """What rosbags raises on a definition it cannot parse, register or hash: its parser and type
    store raise TypesysError, a lookup of a type it lacks KeyError, its code generator (names it
    cannot compile) ValueError or SyntaxError. Used in ``except`` clauses, which evaluate it only
    when something was raised."""
    from rosbags.typesys import TypesysError

    return (TypesysError, KeyError, ValueError, SyntaxError)


def _malformed() -> tuple[type[BaseException], ...]:
    """What rosbags' deserializers raise on a malformed payload (any other error is a fault, and goes on)."""
    from rosbags.serde import SerdeError

    return (SerdeError, ValueError, struct.error, IndexError, OverflowError)


def deserialize_cdr(typestore: Any, raw: bytes | memoryview, msgtype: str) -> Any:
    """rosbags' CDR deserializer, accepting bytes after the message (see :meth:`BagTypes.deserialize`)."""
    from rosbags.serde import SerdeError

    if len(raw) < 4:
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype}")
    if bytes(raw[:2]) not in (b"\x00\x00", b"\x00\x01"):
        return typestore.deserialize_cdr(raw, msgtype)  # rosbags names the problem
    msgdef = typestore.get_msgdef(msgtype)
    func = msgdef.deserialize_cdr_le if raw[1] else msgdef.deserialize_cdr_be
    try:
        message, pos = func(memoryview(raw)[4:], 0, msgdef.cls, typestore)
    except (struct.error, IndexError) as exc:
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype}") from exc
    except (SerdeError, ValueError) as exc:
        text = str(exc)
        past_end = text.startswith(("Invalid string length", "Invalid sequence length"))  # rosbags' bound checks
        if not past_end and "buffer is smaller" not in text:  # numpy.frombuffer past the end
            raise
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype} ({text})") from exc
    if pos + 4 > len(raw):  # defensive: the generated code checks its reads, this checks the end
        raise PayloadTooShortError(f"{len(raw)}-byte payload is too short for {msgtype} (needs {pos + 4})")
    return message
