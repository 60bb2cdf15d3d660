"""Deterministic mutation fuzzing of every codec through the public ``read()``.

Seeds are valid files written with the public API (and real corpus files where the
project has them). Each seed is mutated with a fixed random seed: truncation, byte
flips, insertions and deletions, swapped lines, numbers replaced by words or by huge
values (at the float range's end, or of more digits than Python converts), count/length
fields set to huge values, deep nesting, YAML aliases that multiply
(or contain themselves), an empty file, a file of zeros, and a folder in the file's place. For every
mutated file ``read()`` must succeed or raise a :class:`MotionFormatError`
(``ReadError`` / ``UnknownFormatError``), finish within a time budget and allocate
no memory out of proportion to the file. Anything else fails the test with the file,
the mutation and the traceback; ``FUZZ_KEEP=folder`` keeps the failing inputs.

CI runs the fixed :data:`MUTATIONS` counts. ``make fuzz`` runs a longer campaign: with
``FUZZ_SECONDS=600`` each format is mutated for that many seconds instead, from a new
random seed each run (``FUZZ_SEED`` repeats one; the report names it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import os
import random
import re
import shutil
import signal
import struct
import time
import traceback
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import numpy as np
import pytest
from conftest import corpus_path, make_file

from motion_formats_ros import MotionFile, MotionFormatError, ReadError, read, write
from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.recording.journal import JournalWriter
from motion_formats_ros.recording.recovery import recover

#: Fixed seed: the same mutations on every run.
SEED = 20260513
#: Seconds one read may take (a hang is a failure).
READ_BUDGET = 5.0
#: Without pyjson5 (``make test-min``), JSON5 is read by the pure-Python reference, which
#: under tracemalloc parses some 20 kB/s: a mutation that inserts 200 kB into a string is
#: slow, not hung. Fewer mutations keep that run short; ``make fuzz`` runs the long campaign.
JSON5_SECONDS_PER_BYTE = 1e-4
PURE_JSON5_MUTATIONS = 40


def read_budget(seed: Seed, size: int) -> float:
    """Seconds a read of ``seed`` (``size`` bytes) may take."""
    if seed.format == "scene" and importlib.util.find_spec("pyjson5") is None:
        return READ_BUDGET + size * JSON5_SECONDS_PER_BYTE
    return READ_BUDGET


#: Peak Python/numpy allocation one read may make, beyond a generous multiple of the file size.
MEMORY_BUDGET = 64 << 20
#: Mutations per format.
MUTATIONS = {
    "omf": 300,
    "seq": 200,
    "pseq": 80,
    "scene": 80,
    "mof": 300,
    "mtn": 300,
    "rosbag": 160,
    "compressed_bag": 40,
    "csv": 80,
    "parquet": 80,
    "journal": 150,
}
#: Seconds per format of a long campaign (``make fuzz``); 0: the fixed counts above.
FUZZ_SECONDS = float(os.environ.get("FUZZ_SECONDS") or 0)
#: The random seed of a long campaign.
FUZZ_SEED = os.environ.get("FUZZ_SEED") or str(random.SystemRandom().randrange(1 << 32))

TEXT_MUTATIONS = (
    "truncate",
    "flip",
    "insert",
    "delete",
    "swap_lines",
    "number_to_word",
    "huge_number",
    "nesting",
    "alias",
)
BINARY_MUTATIONS = ("truncate", "flip", "insert", "delete", "huge_count", "huge_count", "splice")
#: What every seed meets once, in this order, before the random mutations: nothing, zeros of
#: its size, and a folder of its name.
FIXED_MUTATIONS = ("empty", "zeros", "directory")
_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_WORDS = (b"nan", b"inf", b"-inf", b"true", b"null", b"abc", b"~", b'"7"', b"0x1F", b"1_000", b"", b"[]", b"{}")
#: Huge values: past 32 and 64 bits, at and past the float range, and an integer of more digits
#: than Python converts from text (4300).
_HUGE = (
    b"99999999999999999999",
    b"4294967295",
    b"2147483648",
    b"1e308",
    b"-1.7e308",
    b"1e999",
    b"-1",
    b"-2147483649",
    b"0",
    b"9" * 5000,
)


class Hang(BaseException):
    """Raised by the alarm when a read runs past its budget (not an Exception: nothing may swallow it)."""


@dataclasses.dataclass(frozen=True)
class Seed:
    """A valid input: ``path`` is read; ``target`` (a file in it, or itself) is mutated."""

    path: Path
    target: Path
    text: bool
    format: str | None = None  # forced format; None lets the registry decide
    reader: Callable[[Path], object] | None = None  # instead of read(): e.g. the journal reader

    def load(self) -> None:
        if self.reader is not None:
            self.reader(self.path)
        else:
            read(self.path, format=self.format)

    def label(self) -> str:
        return self.path.name if self.target == self.path else f"{self.path.name}/{self.target.name}"


# -- mutations -------------------------------------------------------------------------


def _numbers(data: bytes) -> list[re.Match[bytes]]:
    return list(_NUMBER.finditer(data))


def _nesting(data: bytes, rng: random.Random, name: str) -> tuple[bytes, str]:
    depth = rng.choice((200, 5_000, 100_000))
    if name.endswith(".msgpack"):
        pick = rng.randrange(3)
        opener = (b"\x91", b"\x81\xa1k", b"\xdc\x00\x01")[pick]
        body = opener * depth + b"\xc0"
    elif name.endswith((".yaml", ".yml", ".seq")):
        body = (
            (b"[" * depth + b"]" * depth) if rng.random() < 0.5 else b"".join(b"  " * i + b"- \n" for i in range(200))
        )
    else:
        body = b'{"a":' * depth + b"1" + b"}" * depth if rng.random() < 0.5 else b"[" * depth + b"]" * depth
    if data and rng.random() < 0.6:
        at = rng.randrange(len(data))
        return data[:at] + body + data[at:], f"nesting depth {depth} at {at}"
    return body, f"nesting depth {depth} as the whole file"


def _huge_count(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """Overwrite a likely count/length field (a small 1/2/4-byte integer) with a huge value."""
    if len(data) < 8:
        return data + b"\xff" * 4, "huge count appended"
    width = rng.choice((1, 2, 4, 4, 4))
    fmt = {1: "B", 2: "<H", 4: "<I"}[width]
    big = {1: 0xFF, 2: 0xFFFF, 4: rng.choice((0xFFFFFFFF, 0x7FFFFFFF, 0x10000000))}[width]
    if rng.random() < 0.5:
        fmt = fmt.replace("<", ">")
    size = struct.calcsize(fmt)
    # Prefer offsets whose current value is small but not zero: counts, lengths, sizes.
    candidates = rng.sample(range(len(data) - size), min(400, len(data) - size))
    small = [o for o in candidates if 0 < struct.unpack_from(fmt, data, o)[0] < 4096]
    at = rng.choice(small or candidates)
    mutated = bytearray(data)
    struct.pack_into(fmt, mutated, at, big)
    return bytes(mutated), f"huge count {big:#x} ({fmt}) at byte {at}"


def _alias(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A YAML alias bomb (levels of ten aliases each) or a recursive alias, put where a value goes."""
    if rng.random() < 0.2:
        anchors, value, what = b"", b"&loop [*loop]", "recursive alias"
    else:
        levels = rng.choice((3, 6, 9))
        lines = [b"zz0: &zz0 [0.5, 1.5]"]
        lines += [b"zz%d: &zz%d [%s]" % (i, i, b", ".join([b"*zz%d" % (i - 1)] * 10)) for i in range(1, levels + 1)]
        anchors, value, what = b"\n".join(lines) + b"\n", b"*zz%d" % levels, f"alias bomb of {levels} levels"
    numbers = _numbers(data)
    if numbers and rng.random() < 0.7:  # the bomb where a number was
        m = rng.choice(numbers)
        return anchors + data[: m.start()] + value + data[m.end() :], f"{what} in place of {m.group()!r} at {m.start()}"
    return anchors + data, f"{what} before the document"


def mutate(data: bytes, rng: random.Random, kind: str, name: str) -> tuple[bytes, str]:
    """``data`` mutated by ``kind``, and a description that reproduces the mutation."""
    n = len(data)
    if kind == "empty" or n == 0:
        return b"", "empty file"
    if kind == "zeros":
        return bytes(n), f"{n} zero bytes"
    if kind == "alias":
        return _alias(data, rng)
    if kind == "truncate":
        at = rng.randrange(n)
        return data[:at], f"truncated at byte {at}"
    if kind == "flip":
        mutated = bytearray(data)
        offsets = sorted(rng.randrange(n) for _ in range(rng.choice((1, 1, 2, 4, 16))))
        for at in offsets:
            mutated[at] ^= 1 << rng.randrange(8) if rng.random() < 0.7 else rng.randrange(1, 256)
        return bytes(mutated), f"bytes flipped at {offsets}"
    if kind == "insert":
        at = rng.randrange(n + 1)
        chunk = bytes(rng.randrange(256) for _ in range(rng.choice((1, 2, 4, 8))))
        if rng.random() < 0.3:
            chunk = rng.choice((b"\n", b"\r\n", b" ", b"\t", b":", b",", b"-", b'"', b"\\", b"\x00", b"\xff\xfe"))
        return data[:at] + chunk + data[at:], f"inserted {chunk!r} at byte {at}"
    if kind == "delete":
        at = rng.randrange(n)
        length = rng.choice((1, 1, 2, 4, 16, 64))
        return data[:at] + data[at + length :], f"deleted {length} bytes at byte {at}"
    if kind == "splice":  # a block of the file copied over another place of it
        length = rng.choice((4, 16, 64))
        src, dst = rng.randrange(n), rng.randrange(n)
        mutated = bytearray(data)
        block = data[src : src + length]
        mutated[dst : dst + len(block)] = block
        return bytes(mutated[:n]), f"{length} bytes from {src} copied to {dst}"
    if kind == "swap_lines":
        lines = data.splitlines(keepends=True)
        if len(lines) < 2:
            return data[::-1], "reversed"
        i, j = rng.sample(range(len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
        return b"".join(lines), f"lines {i + 1} and {j + 1} swapped"
    if kind in ("number_to_word", "huge_number"):
        numbers = _numbers(data)
        if not numbers:
            return data + b"1", "1 appended"
        m = rng.choice(numbers)
        word = rng.choice(_WORDS if kind == "number_to_word" else _HUGE)
        return data[: m.start()] + word + data[m.end() :], f"{m.group()!r} at byte {m.start()} replaced by {word!r}"
    if kind == "nesting":
        return _nesting(data, rng, name)
    if kind == "huge_count":
        return _huge_count(data, rng)
    raise AssertionError(kind)


# -- the read harness --------------------------------------------------------------------


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang(f"read took longer than {READ_BUDGET} s")


@contextlib.contextmanager
def alarm_guard() -> Iterator[None]:
    """SIGALRM interrupts a read that hangs (main thread only; pytest runs tests there)."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_read(seed: Seed, description: str) -> str | None:
    """None when reading ``seed.path`` behaves; else what went wrong, with the traceback."""
    size = (
        sum(p.stat().st_size for p in seed.path.rglob("*") if p.is_file())
        if seed.path.is_dir()
        else seed.path.stat().st_size
    )
    tracemalloc.reset_peak()  # traced from the campaign's start (see fuzz)
    held = tracemalloc.get_traced_memory()[0]
    start = time.monotonic()
    budget = read_budget(seed, size)
    signal.setitimer(signal.ITIMER_REAL, budget + 1.0)
    problem = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", RuntimeWarning)  # numpy's overflow warnings never leave a codec
            seed.load()
    except MotionFormatError:
        pass
    except Hang:
        problem = f"hang (over {budget:.3g} s)"
    except BaseException:
        problem = traceback.format_exc()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        elapsed = time.monotonic() - start
        peak = tracemalloc.get_traced_memory()[1] - held
    if problem is None and elapsed > budget:
        problem = f"read took {elapsed:.1f} s (budget {budget:.3g} s)"
    if problem is None and peak > MEMORY_BUDGET + 200 * size:
        problem = f"read allocated {peak >> 20} MiB for a {size}-byte input"
    if problem is None:
        return None
    return f"{seed.label()} ({description}):\n{problem}"


def fuzz(seeds: list[Seed], count: int, tmp: Path, salt: str) -> tuple[list[str], int]:
    """Mutate ``seeds`` ``count`` times in all; the failures and the number of reads."""
    rng = random.Random(f"{FUZZ_SEED if FUZZ_SECONDS else SEED}:{salt}")
    deadline = time.monotonic() + FUZZ_SECONDS if FUZZ_SECONDS else None
    keep = os.environ.get("FUZZ_KEEP")
    failures: list[str] = []
    reads = 0
    # Traced once for the whole campaign: stopping tracemalloc while a reader's native threads
    # (pyarrow's pool) still free memory crashes CPython before 3.12 (a race in its hooks).
    tracemalloc.start()
    with alarm_guard(), contextlib.ExitStack() as stack:
        stack.callback(tracemalloc.stop)
        for seed in seeds:  # every seed must read as it is
            problem = check_read(seed, "unmodified seed")
            assert problem is None, problem
            reads += 1
        originals = {seed.target: seed.target.read_bytes() for seed in seeds}
        i = -1
        while True:
            i += 1
            if (i >= count) if deadline is None else (time.monotonic() >= deadline):
                break
            seed = seeds[i % len(seeds)]
            original = originals[seed.target]
            kinds = TEXT_MUTATIONS if seed.text else BINARY_MUTATIONS
            fixed = i // len(seeds)
            kind = FIXED_MUTATIONS[fixed] if fixed < len(FIXED_MUTATIONS) else rng.choice(kinds)
            if kind == "directory":
                seed.target.unlink()
                seed.target.mkdir()
                try:
                    problem = check_read(seed, f"mutation {i}: a folder in place of the file")
                finally:
                    reads += 1
                    seed.target.rmdir()
                    seed.target.write_bytes(original)
                if problem is not None:
                    failures.append(problem)
                continue
            data, description = mutate(original, rng, kind, seed.target.name)
            if rng.random() < 0.15 and kind not in (*FIXED_MUTATIONS, "nesting", "alias"):  # sometimes two at once
                data, more = mutate(data, rng, rng.choice(kinds), seed.target.name)
                description += f", then {more}"
            description = f"mutation {i}: {description}"
            seed.target.write_bytes(data)
            try:
                problem = check_read(seed, description)
            finally:
                reads += 1
            if problem is not None:
                failures.append(problem)
                if keep:
                    dest = Path(keep) / f"{salt}-{i}-{seed.target.name}"
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(seed.target, dest)
            seed.target.write_bytes(original)
    return failures, reads


def _signature(failure: str) -> str:
    """The kind of a failure: the exception and the innermost project frame raising it."""
    lines = failure.splitlines()
    frames = [line.strip() for line in lines if line.strip().startswith('File "') and "motion_formats_ros" in line]
    return f"{lines[-1].split(':')[0]} @ {frames[-1] if frames else '?'}"


def report(failures: list[str], reads: int) -> None:
    """Fail with one example of each kind of failure."""
    if failures:
        kinds: dict[str, list[str]] = {}
        for failure in failures:
            kinds.setdefault(_signature(failure), []).append(failure)
        shown = "\n\n".join(f"[{len(v)}x] {k}\n{v[0]}" for k, v in kinds.items())
        campaign = f" (FUZZ_SEED={FUZZ_SEED}, {FUZZ_SECONDS:g} s)" if FUZZ_SECONDS else ""
        every = "\n".join(failure.splitlines()[0] for failure in failures)
        pytest.fail(
            f"{len(failures)} of {reads} reads misbehaved{campaign} ({len(kinds)} kinds):\n\n{shown}\n\n"
            f"every failing input:\n{every}",
            pytrace=False,
        )


# -- seeds per format --------------------------------------------------------------------


def _written(mf: MotionFile, path: Path, **options: object) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(mf, path, **options)
    return path


def _corpus(folder: str) -> Path:
    return corpus_path(folder)


def omf_seeds(tmp: Path) -> list[Seed]:
    walk, full = biped_walk(rate=20.0, cycles=1), make_file(frames=6)
    return [
        Seed(_written(mf, tmp / f"{tag}.{suffix}"), tmp / f"{tag}.{suffix}", text=suffix != "msgpack")
        for tag, mf in (("walk", walk), ("full", full))
        for suffix in ("msgpack", "omf.yaml", "omf.json", "yaml", "json")
    ]


def seq_seeds(tmp: Path) -> list[Seed]:
    paths = [
        _written(biped_walk(rate=20.0, cycles=1), tmp / "walk.seq"),
        _written(make_file(frames=6), tmp / "full.seq"),
    ]
    return [Seed(p, p, text=True) for p in paths]


def scene_seeds(tmp: Path) -> list[Seed]:
    seeds = [Seed(_written(biped_walk(rate=10.0, cycles=1), tmp / "walk.json5"), tmp / "walk.json5", text=True)]
    corpus = _corpus("scene_json5")
    for name in ("simple_test_scene.json", "waving_robot.json", "robot_with_pillars.json", "presy_scene.json"):
        src = corpus / name
        if src.is_file():
            dest = tmp / name
            shutil.copyfile(src, dest)
            dest.chmod(0o644)
            seeds.append(Seed(dest, dest, text=True, format="scene"))
    return seeds


def mof_seeds(tmp: Path) -> list[Seed]:
    seeds = []
    for src in sorted(_corpus("mof").glob("*/*.mof")):
        dest = tmp / f"{src.parent.name}_{src.name}"
        shutil.copyfile(src, dest)
        dest.chmod(0o644)
        seeds.append(Seed(dest, dest, text=True))
    return seeds


def mtn_seeds(tmp: Path) -> list[Seed]:
    walk = biped_walk(rate=5.0, cycles=1)
    paths = [
        _written(walk, tmp / "walk.mtn"),
        _written(MotionFile.single(make_file(frames=4).groups["target"]), tmp / "t.mtn"),
    ]
    return [Seed(p, p, text=False) for p in paths]


def rosbag_seeds(tmp: Path) -> list[Seed]:
    walk = biped_walk(rate=10.0, cycles=1)
    mcap = _written(walk, tmp / "walk.mcap")
    db3 = _written(walk, tmp / "walk.db3")
    folder = _written(walk, tmp / "walk_bag", format="rosbag", storage="mcap")
    inner = next(p for p in folder.iterdir() if p.suffix == ".mcap")
    seeds = [
        Seed(mcap, mcap, text=False),
        Seed(db3, db3, text=False),
        Seed(folder, inner, text=False),
        Seed(folder, folder / "metadata.yaml", text=True),
    ]
    ros1 = _corpus("rosbag") / "ros1"
    for name in ("tf_example.bag", "C-Shape-1_joints.bag"):
        if (ros1 / name).is_file():
            dest = tmp / name
            shutil.copyfile(ros1 / name, dest)
            dest.chmod(0o644)
            seeds.append(Seed(dest, dest, text=False))
    return seeds


#: A pose sequence with every kind of key pose (joints only, with IK links, with a transition time).
_PSEQ = """\
type: PoseSeq
name: "wave"
targetBody: "arm"
refs:
  - time: 0
    refer:
      type: Pose
      joints: [ 0, 1, 2 ]
      q: [ 0, 0.25, -0.5 ]
      ikLinks:
        - name: BASE
          index: 0
          isBaseLink: true
          translation: [ 0, 0, 0.5 ]
          rotation: [ 1, 0, 0, 0, 1, 0, 0, 0, 1 ]
  - time: 0.8
    maxTransitionTime: 0.5
    refer:
      type: Pose
      joints: [ 1 ]
      q: [ 1.25 ]
  - time: 1.6
    refer:
      type: Pose
      joints: [ 0, 2 ]
      q: [ 0.5, 1e-1 ]
"""


def pseq_seeds(tmp: Path) -> list[Seed]:
    seeds = [Seed(tmp / "wave.pseq", tmp / "wave.pseq", text=True)]
    seeds[0].path.write_text(_PSEQ, encoding="utf-8")
    corpus = _corpus("choreonoid") / "pseq" / "GR001" / "SampleMotion1.pseq"
    if corpus.is_file():
        dest = tmp / "sample.pseq"
        shutil.copyfile(corpus, dest)
        dest.chmod(0o644)
        seeds.append(Seed(dest, dest, text=True))
    return seeds


def csv_seeds(tmp: Path) -> list[Seed]:
    full = make_file(frames=6)
    paths = [_written(biped_walk(rate=20.0, cycles=1), tmp / "walk.csv")]
    paths += [_written(MotionFile.single(full.groups["target"], "target"), tmp / "full.csv")]
    return [Seed(p, p, text=True) for p in paths]


def parquet_seeds(tmp: Path) -> list[Seed]:
    pytest.importorskip("pyarrow", reason="needs pyarrow (the [parquet] extra; `make test-min` runs without it)")
    full = make_file(frames=6)
    paths = [_written(biped_walk(rate=20.0, cycles=1), tmp / "walk.parquet")]
    paths += [_written(MotionFile.single(full.groups["target"], "target"), tmp / "full.parquet")]
    return [Seed(p, p, text=False) for p in paths]


def compressed_bag_seeds(tmp: Path) -> list[Seed]:
    """A rosbag2 folder recorded with file compression (``NAME_0.mcap.zstd``)."""
    from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer
    from support.bags import JS, TS, joint_state

    folder = tmp / "zipped"
    writer = Writer(folder, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.set_compression(CompressionMode.FILE, CompressionFormat.ZSTD)
    with writer:
        conn = writer.add_connection("/joint_states", JS, typestore=TS)
        for k in range(30):
            ns = 1_000_000_000 + k * 10_000_000
            writer.write(conn, ns, TS.serialize_cdr(joint_state(ns, ["a", "b"], [k, -k]), JS))
    inner = next(folder.glob("*.zstd"))
    return [Seed(folder, inner, text=False), Seed(folder, folder / "metadata.yaml", text=True)]


def _recover(journal: Path) -> None:
    """``motion-formats recover``: read the journal, assemble it, write the motion file."""
    recover(journal, journal.with_suffix(".msgpack"), overwrite=True)


def journal_seeds(tmp: Path) -> list[Seed]:
    """A killed recording and a finished one with every record kind (the recover path)."""
    seeds = []
    for name, finished in (("killed.journal", False), ("done.journal", True)):
        journal = JournalWriter(tmp / name, {"output": str(tmp / "out.msgpack"), "name": "log"})
        for k in range(20):
            stamp = 1_000_000_000 + k * 10_000_000
            journal.joints("/joint_states", ["a", "b"], stamp, stamp, [k, -k], [1.0, 1.0], None)
            journal.pose("/base", stamp, stamp, [k, 0, 0], [0, 0, 0, 1])
            if finished:
                journal.imu("imu", stamp, stamp, [0, 0, 0, 1], [0, 0, k], [0, 0, 9.8])
        if finished:
            journal.trajectory(["a", "b"], stamp, stamp, [0, 10_000_000], [[0.0, 0.0], [1.0, 1.0]], [[0.0, 0.0]] * 2)
        journal.close(clean=finished)  # unclean: no END record, as after a crash
        seeds.append(Seed(tmp / name, tmp / name, text=False, reader=_recover))
    return seeds


SEEDS: dict[str, Callable[[Path], list[Seed]]] = {
    "omf": omf_seeds,
    "seq": seq_seeds,
    "scene": scene_seeds,
    "mof": mof_seeds,
    "mtn": mtn_seeds,
    "rosbag": rosbag_seeds,
    "journal": journal_seeds,
    "pseq": pseq_seeds,
    "csv": csv_seeds,
    "parquet": parquet_seeds,
    "compressed_bag": compressed_bag_seeds,
}


@pytest.mark.slow
@pytest.mark.parametrize("fmt", list(SEEDS))
def test_fuzz_read_fails_only_with_read_errors(tmp_path: Path, fmt: str) -> None:
    seeds = SEEDS[fmt](tmp_path)
    assert seeds
    count = MUTATIONS[fmt]
    if fmt == "scene" and importlib.util.find_spec("pyjson5") is None:
        count = PURE_JSON5_MUTATIONS
    failures, reads = fuzz(seeds, count, tmp_path, fmt)
    report(failures, reads)


# -- regressions: one focused test per bug the fuzzing found ------------------------------


def _read_error(path: Path, **options: object) -> ReadError:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ReadError) as err:
            read(path, **options)
    return err.value


def test_omf_json_nested_too_deep_is_a_read_error(tmp_path: Path) -> None:
    # json.loads raised RecursionError.
    path = tmp_path / "deep.omf.json"
    path.write_text('{"format": "omf",\n"groups": ' + "[" * 5000 + "]" * 5000 + "}")
    err = _read_error(path)
    assert err.line == 2 and "nested more than 100 levels" in err.reason


@pytest.mark.parametrize("suffix", ["omf.yaml", "seq"])
def test_yaml_nested_too_deep_is_a_read_error(tmp_path: Path, suffix: str) -> None:
    # libyaml's composer overflowed the C stack: the whole process died (SIGSEGV).
    path = _written(biped_walk(rate=10.0, cycles=1), tmp_path / f"walk.{suffix}")
    lines = path.read_text().splitlines(keepends=True)
    lines[3] = "deep: " + "[" * 100_000 + "]" * 100_000 + "\n" + lines[3]
    path.write_text("".join(lines))
    err = _read_error(path)
    assert err.line == 4 and "nested more than 100 levels" in err.reason


def test_yaml_moderate_nesting_still_reads(tmp_path: Path) -> None:
    path = _written(biped_walk(rate=10.0, cycles=1), tmp_path / "walk.omf.yaml")
    plain = read(path)
    path.write_text(path.read_text() + "extra_deep: " + "[" * 60 + "1" + "]" * 60 + "\n")
    nested = read(path)  # 60 levels are under the limit: the same motion, no error
    assert list(nested.groups) == list(plain.groups)
    for name, motion in plain.groups.items():
        assert np.array_equal(nested.groups[name].times, motion.times)
        assert np.array_equal(nested.groups[name].position, motion.position, equal_nan=True)


def test_seq_nested_list_inside_a_part_is_a_read_error(tmp_path: Path) -> None:
    # numpy raised ValueError ("setting an array element with a sequence").
    path = _written(biped_walk(rate=10.0, cycles=1), tmp_path / "walk.seq")
    text = path.read_text()
    row = next(line for line in text.splitlines() if line.startswith("      - [ [ "))
    line = text[: text.index(row)].count("\n") + 1
    first = row.split("[ [ ", 1)[1].split(",", 1)[0]
    path.write_text(text.replace(row, row.replace(f"[ [ {first},", "[ [ [],", 1), 1))
    err = _read_error(path)
    assert err.line == line and "expected numbers, got a nested list" in err.reason


def _scene(tmp_path: Path, name: str, old: bytes, new: bytes) -> Path:
    src = _corpus("scene_json5") / name
    data = src.read_bytes()
    assert old in data
    path = tmp_path / (src.stem + ".json5")
    path.write_bytes(data.replace(old, new, 1))
    return path


def test_scene_quaternion_with_an_overflowing_norm_is_its_rotation(tmp_path: Path) -> None:
    # The norm overflowed to inf, v / inf gave a zero quaternion and scipy raised ValueError;
    # scaled by its largest component first, it is the half turn about x it states.
    path = _scene(tmp_path, "robot_with_pillars.json", b'"qxyzw": [ 0, 0, 0, 1 ]', b'"qxyzw": [ 1e308, 0, 0, 1 ]')
    read(path)
    path = _scene(tmp_path, "robot_with_pillars.json", b'"qxyzw": [ 0, 0, 0, 1 ]', b'"qxyzw": [ Infinity, 0, 0, 1 ]')
    err = _read_error(path)
    assert "has norm inf" in str(err) and "qxyzw" in str(err)


def test_scene_joint_value_too_large_for_a_rotation_is_a_read_error(tmp_path: Path) -> None:
    # The DH rotation of theta = 1e308 was not a rotation: scipy raised ValueError.
    path = _scene(tmp_path, "presy_scene.json", b'"wrist1": -0.6', b'"wrist1": 1e308')
    err = _read_error(path)
    assert err.field == "models.ur5e.links.wrist1.pose.dh" and "no valid rotation" in err.reason


def test_mof_jump_to_a_name_too_long_for_a_file_is_a_read_error(tmp_path: Path) -> None:
    # Path.is_file() raised OSError (ENAMETOOLONG).
    src = _corpus("mof") / "bhuman2019" / "getUpEngineDummy.mof"
    path = tmp_path / src.name
    text = src.read_text()
    path.write_text(
        text.replace("getUpEngineDummy getUpEngineDummy repeat", "getUpEngineDummy " + "y" * 5000 + " start")
    )
    err = _read_error(path)
    assert err.line == 7 and "unknown target motion" in err.reason


def test_mof_jump_out_of_the_folder_is_a_read_error(tmp_path: Path) -> None:
    src = _corpus("mof") / "bhuman2019" / "getUpEngineDummy.mof"
    (tmp_path / "net").mkdir()
    path = tmp_path / "net" / src.name
    shutil.copyfile(src, tmp_path / "other.mof")
    path.write_text(
        src.read_text().replace("getUpEngineDummy getUpEngineDummy repeat", "getUpEngineDummy ../other start")
    )
    err = _read_error(path)
    assert err.line == 7 and "invalid target motion '../other'" in err.reason


def _bounded_read(path: Path) -> ReadError:
    tracemalloc.start()
    try:
        err = _read_error(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < MEMORY_BUDGET
    return err


def test_mcap_record_length_beyond_the_file_is_a_bounded_read_error(tmp_path: Path) -> None:
    # rosbags read a summary record with bio.read(length): MemoryError (or GBs) for a huge length.
    path = _written(biped_walk(rate=10.0, cycles=1), tmp_path / "walk.mcap")
    data = bytearray(path.read_bytes())
    (summary_start,) = struct.unpack_from("<Q", data, len(data) - 8 - 20)  # footer: summary start
    struct.pack_into("<Q", data, summary_start + 1, 1 << 40)  # length of the first summary record
    path.write_bytes(bytes(data))
    err = _bounded_read(path)
    assert "cannot read bag" in err.reason


def test_ros1_header_length_beyond_the_file_is_a_bounded_read_error(tmp_path: Path) -> None:
    # rosbags read a record header with bio.read(length): hundreds of MB for a 34 kB file.
    src = _corpus("rosbag") / "ros1" / "tf_example.bag"
    data = bytearray(src.read_bytes())
    struct.pack_into("<I", data, 13, 0x30000000)  # the bag header record's header length
    path = tmp_path / "tf.bag"
    path.write_bytes(bytes(data))
    err = _bounded_read(path)
    assert "cannot read bag" in err.reason


def test_ros1_damaged_chunk_is_a_read_error(tmp_path: Path) -> None:
    # lz4 raised RuntimeError (content checksum) while the messages were read.
    src = _corpus("rosbag") / "ros1" / "tf_example.bag"
    data = bytearray(src.read_bytes())
    data[6275] ^= 0x10
    path = tmp_path / "tf.bag"
    path.write_bytes(bytes(data))
    err = _read_error(path)
    assert "cannot read bag" in err.reason and "LZ4" in err.reason


def test_rosbag2_metadata_field_of_the_wrong_type_is_a_read_error(tmp_path: Path) -> None:
    # rosbags added a list to an int: TypeError.
    folder = _written(biped_walk(rate=10.0, cycles=1), tmp_path / "bag", format="rosbag", storage="mcap")
    meta = folder / "metadata.yaml"
    meta.write_text(re.sub(r"- message_count: \d+", "- message_count: []", meta.read_text(), count=1))
    err = _read_error(folder)
    assert "cannot read bag" in err.reason and "TypeError" in err.reason


def test_rosbag2_custom_data_nested_too_deep_is_ignored_with_a_warning(tmp_path: Path) -> None:
    # The project's JSON in custom_data (also embedded in each MCAP's rosbag2 metadata
    # record) went to json.loads unchecked: RecursionError. It is a hint the bag reads without.
    import yaml

    from motion_formats_ros.codecs.rosbag._messages import CUSTOM_KEY

    folder = _written(biped_walk(rate=10.0, cycles=1), tmp_path / "bag", format="rosbag", storage="mcap")
    meta = folder / "metadata.yaml"
    doc = yaml.safe_load(meta.read_text())
    info = doc["rosbag2_bagfile_information"]
    assert CUSTOM_KEY in info["custom_data"]  # the writer puts it there: the mutation hits a real field
    info["custom_data"][CUSTOM_KEY] = '{"a":' * 20_000 + "1" + "}" * 20_000
    meta.write_text(yaml.safe_dump(doc))
    with pytest.warns(UserWarning, match="nested more than 100 levels") as caught:
        motion_file = read(folder)
    (notice,) = [w.message.notice for w in caught if hasattr(w.message, "notice")]  # type: ignore[union-attr]
    assert notice.file == str(meta) and notice.field == f"custom_data.{CUSTOM_KEY}"
    assert "nested more than 100 levels" in notice.message and "(line 1 of its JSON)" in notice.message
    assert motion_file.motion.num_frames == biped_walk(rate=10.0, cycles=1).motion.num_frames


def test_rosbag_tf_definition_of_another_shape_is_skipped_with_a_warning(tmp_path: Path) -> None:
    # The bag's own TFMessage definition (here: a renamed field) decoded into objects
    # without `child_frame_id`: AttributeError escaped from the TF reading.
    import sqlite3

    bag = _written(biped_walk(rate=10.0, cycles=1), tmp_path / "walk.db3")
    with sqlite3.connect(bag) as con:
        (text,) = con.execute(
            "SELECT encoded_message_definition FROM message_definitions WHERE topic_type = ?",
            ("tf2_msgs/msg/TFMessage",),
        ).fetchone()
        assert "string child_frame_id" in text
        con.execute(
            "UPDATE message_definitions SET encoded_message_definition = ? WHERE topic_type = ?",
            (text.replace("string child_frame_id", "string child_frame_iX"), "tf2_msgs/msg/TFMessage"),
        )
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        motion_file = read(bag)
    messages = [str(w.message) for w in said]
    # the TF messages are skipped, saying so, and the root pose the custom data names cannot be
    # made from them: the joints are read, without a root pose, and a warning says why
    assert any("/tf: skipped 13 messages that are not usable transforms" in m for m in messages), messages
    assert any(
        "root pose the bag's custom data names has no TF path from 'world' to 'base_link'; frames in the bag: none" in m
        for m in messages
    ), messages
    assert motion_file.motion.root_position is None
    assert motion_file.motion.num_frames == biped_walk(rate=10.0, cycles=1).motion.num_frames


def test_rosbag_origin_beyond_int64_is_ignored_with_a_warning(tmp_path: Path) -> None:
    # A huge origin_ns in the writer's custom data overflowed numpy's int64 in the TF buffer: it is
    # a hint the bag reads without (the first sample is the origin then).
    folder = _written(biped_walk(rate=10.0, cycles=1), tmp_path / "bag", format="rosbag", storage="mcap")
    meta = folder / "metadata.yaml"
    text = meta.read_text()
    origin = re.search(r'"origin_ns":(\d+)', text)
    assert origin, text
    meta.write_text(text.replace(origin.group(0), '"origin_ns":99999999999999999999'))
    with pytest.warns(
        UserWarning, match=r"metadata\.yaml: custom_data\.motion_formats_ros\.origin_ns: 1e\+20: expected"
    ):
        motion_file = read(folder)
    assert motion_file.motion.num_frames == biped_walk(rate=10.0, cycles=1).motion.num_frames
