"""The bag reader's fast path: its planned fallbacks are said, and its faults are raised.

The package's own readers (``storage.direct``) hand a bag they do not read to rosbags'
readers by one signal, :class:`UnusualLayoutError` (or a :class:`ReadError` for damage,
whose wording is the general reader's); that fallback is an informational notice, which
is no warning and no reason for ``--strict`` to refuse the output. Anything else they
raise is a fault of theirs and reaches the caller, instead of passing for a slower read.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from test_bag_direct import _edit_metadata, _layout, _qos_of_tf

from motion_formats_ros import Motion, MotionFile, read, write
from motion_formats_ros.codecs.rosbag.storage import direct as _direct
from motion_formats_ros.core.errors import MotionFormatError
from motion_formats_ros.core.notices import NoticeKind, collect, notify


def _mcap_bag(path: Path) -> Path:
    rng = np.random.default_rng(1)
    motion = Motion(times=np.arange(200) / 100.0, joint_names=("a", "b"), position=rng.normal(size=(200, 2)))
    write(MotionFile.single(motion, name="m"), path, format="rosbag", storage="mcap")
    return path


#: QoS rosbags normalises before it compares them with the storage's: the own readers leave that to it.
_QOS = {
    "history": 1,
    "depth": 10,
    "reliability": 1,
    "durability": 2,
    "deadline": {"sec": 0, "nsec": 0},
    "lifespan": {"sec": 0, "nsec": 0},
    "liveliness": 1,
    "liveliness_lease_duration": {"sec": 0, "nsec": 0},
    "avoid_ros_namespace_conventions": False,
}


def _unusual_folder(tmp_path: Path) -> Path:
    """A folder the own readers hand to rosbags' (a planned fallback), which read it without a warning."""
    bag = _layout(tmp_path, "sqlite3-folder")
    _edit_metadata(bag, lambda info: _qos_of_tf(info, [_QOS]))
    return bag


def test_the_fallback_signal_is_not_a_user_facing_error() -> None:
    assert not issubclass(_direct.UnusualLayoutError, MotionFormatError)


def test_a_fault_in_the_own_readers_is_raised_not_read_around(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bag = _mcap_bag(tmp_path / "m")
    assert read(bag, progress=False).groups  # it reads (through the own readers)

    def broken(self: object, rec: object) -> None:
        raise KeyError("a fault of the own MCAP reader")

    monkeypatch.setattr(_direct.McapStorage, "_summary", broken)
    with pytest.raises(KeyError, match="a fault of the own MCAP reader"):
        read(bag, progress=False)


def test_a_planned_fallback_is_an_informational_notice(tmp_path: Path) -> None:
    bag = _unusual_folder(tmp_path)
    with warnings.catch_warnings(record=True) as caught, collect() as report:
        warnings.simplefilter("always")
        got = read(bag, progress=False)
    said = [n for n in got.notices if n.kind is NoticeKind.FALLBACK]
    assert len(said) == 1 and "QoS" in said[0].message, got.notices
    assert said[0].file == str(bag)
    assert report.by_kind(NoticeKind.FALLBACK) == said
    assert report.warned == []
    assert not [w for w in caught if "rosbags' readers" in str(w.message)]  # informational: no warning


def test_strict_does_not_fail_on_a_planned_fallback(tmp_path: Path) -> None:
    bag = _unusual_folder(tmp_path)
    out = tmp_path / "out.omf.json"
    cli = "import sys; from motion_formats_ros.cli.main import main; sys.exit(main())"
    command = [sys.executable, "-c", cli, "convert", str(bag), str(out), "--strict"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert out.exists()


def test_strict_still_refuses_an_output_after_a_warning(tmp_path: Path) -> None:
    from motion_formats_ros.core.notices import StrictNoticeError, check_commit

    with collect(strict=True, warn=False):
        notify(NoticeKind.FALLBACK, "another reader read it", file="x")
        check_commit(tmp_path / "a")  # informational only: the output may be written
        notify(NoticeKind.SKIPPED, "skipped 1 message", file="x")
        with pytest.raises(StrictNoticeError, match="1 warning with --strict"):
            check_commit(tmp_path / "b")


def test_a_fault_in_the_decoder_is_raised_not_counted_as_undecodable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A payload the deserializer refuses is skipped and counted; a fault of the decoding code is not a payload's."""
    from motion_formats_ros.codecs.rosbag.storage import typeload

    bag = _mcap_bag(tmp_path / "m")

    def faulty(*args: object) -> None:
        raise TypeError("a fault of the decoder")

    monkeypatch.setattr(typeload, "deserialize_cdr", faulty)
    monkeypatch.setattr(typeload.standard, "decode", faulty)
    with pytest.raises(TypeError, match="a fault of the decoder"):
        read(bag, progress=False, bulk=False)  # bulk=False: every message through the deserializer


def test_a_malformed_payload_is_still_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from motion_formats_ros.codecs.rosbag.storage import typeload

    bag = _mcap_bag(tmp_path / "m")

    def refused(*args: object) -> None:
        raise ValueError("not a message")

    monkeypatch.setattr(typeload, "deserialize_cdr", refused)
    monkeypatch.setattr(typeload.standard, "decode", refused)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(MotionFormatError):  # nothing left to convert
            read(bag, progress=False, bulk=False)
    said = [str(w.message) for w in caught]
    assert any("skipped 200 JointState messages that could not be decoded" in w for w in said), said
