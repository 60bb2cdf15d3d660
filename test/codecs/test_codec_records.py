"""Every codec record names a registered codec and is owned by that codec's modules only."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil

import motion_formats_ros.codecs as codecs_pkg
from motion_formats_ros.core.model import CodecRecord
from motion_formats_ros.registry import CODECS


def records() -> list[type[CodecRecord]]:
    for info in pkgutil.walk_packages(codecs_pkg.__path__, codecs_pkg.__name__ + "."):
        importlib.import_module(info.name)
    found: list[type[CodecRecord]] = []
    todo = list(CodecRecord.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return [c for c in found if c.__module__.startswith(codecs_pkg.__name__ + ".")]


def test_each_record_belongs_to_a_registered_codec_and_lives_in_its_modules() -> None:
    found = records()
    assert {c.codec for c in found} >= {"mof", "mtn", "seq", "omf", "scene", "rosbag"}
    for cls in found:
        assert cls.codec in CODECS, cls
        assert dataclasses.is_dataclass(cls), cls
        assert "codec" not in {f.name for f in dataclasses.fields(cls)}, f"{cls}: codec must be a ClassVar"
        module = CODECS[cls.codec].module
        assert cls.__module__ == module or cls.__module__.startswith(module + "."), (cls, module)
