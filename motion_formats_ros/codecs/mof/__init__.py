"""B-Human / GermanTeam motion nets ``.mof``.

A ``.mof`` file is one motion of a *motion net*: ``motion_id = NAME``, then labels,
rows of joint angles (22 or 26 joints in degrees, ``*`` = keep the previous target,
``-`` = joint off, then ``Int`` and ``Dur`` in ms), ``hardness``/``stiffness`` lines
(per-joint 0..100 or ``*`` = default, then a ramp time in ms) and transitions
``transition COND MOTION LABEL`` (taken when the requested motion is COND or COND is
``allMotions``; MOTION may be another ``.mof`` of the same folder, ``extern`` is the
net's entry and exit).

Reading expands one motion into keyframes the way B-Human's runtime plays it: start at
``label start`` with the motion itself requested, follow the transitions that fire
(also into other files of the folder) and stop when the net exits to ``extern`` or a
jump returns to a place already played (the loop, reported as ``Motion.loop``):

- keyframe 0 at t = 0 is the first row's target (the runtime interpolates from the
  robot's current pose; pass ``start_pose`` to start from a given pose instead), every
  row's target is a keyframe reached ``Dur`` ms after the previous one;
- ``Int`` is a bit field (:data:`INT_BITS`, per code base): bit 0 set: linear
  interpolation from the previous target (``"linear"``; Nao Devils' bit 1 with it:
  ``"cosine"`` easing); clear: jump to the target and hold it (``"next"``). deShake and
  unknown bits warn once each and are kept in the motion's :class:`MofMotionRecord` for writing back;
- ``*`` or 2000/20000 holds the previous target (mask ``keep``), ``-`` or 1000/10000
  gives NaN (mask ``off``);
- hardness/stiffness: the channel ``stiffness`` (0..1, NaN = default) holds the command in
  force at each keyframe, the time column ``stiffness_ramp`` (seconds) the ramp time of
  the line issued before that keyframe's row (NaN where none).

Columns are named by a joint map from ``config/joint_maps`` (26: ``nao_26``; 22: B-Human
2009's ``nao_bhuman2009_22`` or 2010–2014's ``nao_bhuman_22``, see
:func:`choose_joint_map`) or given as the ``joint_map`` option; values are converted to
the standard NAO convention and radians. ``Motion.read_choices`` says how each open
reading was settled (``info`` prints it); guesses also warn. A file with no keyframe
rows (``extern.mof``) raises :class:`NoMotionError`, which carries its description.

Writing produces one self-contained file: ``motion_id``, ``label start``, a header
comment naming the columns, hardness/stiffness lines where the channel changes or a
ramp was given, the rows, a loop label and transition when the motion loops, and the
closing ``transition allMotions extern start``. Reading a ``.mof`` and writing it gives
a file with the same keyframes. A write that loses something warns with the keyframes
dropped and the largest deviation of the written file (read back) from the source.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...core.atomic import check_writable, write_bytes_atomic
from ...core.errors import NoMotionError, spelled
from ...core.model import MotionFile
from ...core.notices import NoticeKind, notify
from .generations import (
    GENERATIONS_22,
    INT_BITS,
    INT_BITS_TEAMS,
    KEEP_NUMBERS,
    LIMITS_MARGIN_DEG,
    NAO_LIMITS_DEG,
    OFF_NUMBERS,
    Choice,
    IntBits,
    MofMotionRecord,
    MofRecord,
    _warn_flags,
    choose_int_bits,
    choose_joint_map,
    describe_net,
    segment_kind,
)
from .mof_reader import ReadOptions, _keyframes, _motion_record, _sentinel_spellings, _stiffness_keyword
from .mof_writer import WriteOptions, _encode, encode
from .net import Expansion, MotionNet
from .parser import (
    ALL_MOTIONS,
    DEFAULT_MAPS,
    EXTERN,
    JOINT_COUNTS,
    MASK_KEEP,
    MASK_OFF,
    STIFFNESS,
    STIFFNESS_KEYWORDS,
    STIFFNESS_RAMP,
    SUFFIX,
    MofFile,
    Node,
    Row,
    StiffnessLine,
    Transition,
    parse,
    parse_text,
)

_MOTION_ID = re.compile(r"^[ \t]*motion_id[ \t]*=", re.MULTILINE)


def sniff(path: Path, head: str) -> bool:
    """True when ``head`` has a ``motion_id = …`` line."""
    return _MOTION_ID.search(head) is not None


def read(path: Path, options: ReadOptions | None = None) -> MotionFile:
    """Read one motion of a motion net as keyframes.

    Args:
        path: A ``.mof`` file; jumps into other motions are followed in its folder.
        options: The requested motion (selects conditional transitions; default the
            file's own ``motion_id``), the joint map (default: see :func:`choose_joint_map`),
            whose meaning of the Int column's bits (default: see :func:`choose_int_bits`),
            the start pose (joint name → radians: keyframe 0 at t = 0 holds it and the
            first row interpolates from it; default the first row's target).

    Raises:
        NoMotionError: The file has no keyframe rows and leads to none (``extern.mof``).
    """
    opts = options or ReadOptions()
    mof = parse(path)
    net = MotionNet(path.parent)
    net.add(mof)
    run = net.expand(mof, opts.motion)
    if not run.rows:
        if not any(isinstance(n, Row) for n in mof.nodes):
            info = describe_net(mof)
            n_labels, n_trans = len(info["labels"]), len(info["transitions"])
            leads = f" (to {', '.join(info['targets'])})" if info["targets"] else ""
            raise NoMotionError(
                path,
                f"no motion in it: a motion net with no keyframe rows, only {n_labels} label(s) and "
                f"{n_trans} transition(s){leads}; convert one of the motions it leads to, "
                "or read it with motion=NAME",
                line=mof.first_line,
                net=info,
            )
        raise mof.fail(
            mof.label_lines["start"], f"the motion net plays no row for motion {opts.motion or mof.motion_id!r}"
        )
    first_file, first_row, _first_line = run.rows[0]
    joints = len(first_row.tokens)
    jmap, map_choice = choose_joint_map(run, joints, opts.joint_map)
    if len(jmap) != joints:
        raise first_file.fail(
            first_row.line, f"joint map {jmap.name!r} has {len(jmap)} columns, the rows have {joints} joint values"
        )
    bits = choose_int_bits(run, joints, opts.int_bits)
    for choice, what, override in (
        (map_choice, f"joint map {map_choice.value}", spelled("joint_map", "=")),
        (bits, f"the Int bits as {INT_BITS_TEAMS[bits.value]}'s code does", spelled("int_bits", "=")),
    ):
        if choice.guessed:
            notify(
                NoticeKind.READ_CHOICE,
                f"read with {what} ({choice.reason}); {override} overrides",
                file=path,
                stacklevel=2,
            )
    _warn_flags(run, bits.value)
    m = _keyframes(run, jmap, opts.start_pose, bits.value)
    m.read_choices = {"joint map": f"{jmap.name}: {map_choice.reason}"}
    if bits.how != "unused":
        m.read_choices["Int bits"] = f"{INT_BITS_TEAMS[bits.value]}'s: {bits.reason}"
    kept = _motion_record(m)
    kept.int_bits = bits.value
    kept.sentinels = _sentinel_spellings(run)
    record = MofRecord(
        motion_id=mof.motion_id,
        requested=opts.motion or mof.motion_id,
        files=[str(f.path) for f in run.files],
        stiffness_keyword=_stiffness_keyword(run),
        joint_map=map_choice,
        int_bits=bits,
    )
    return MotionFile.single(m, name=opts.motion or mof.motion_id, robot="NAO", records={MofRecord.codec: record})


def write(motion_file: MotionFile, path: Path, options: WriteOptions | None = None, *, overwrite: bool = False) -> int:
    """Write one group of ``motion_file`` as a ``.mof`` motion.

    Args:
        motion_file: What to write.
        path: The ``.mof`` file.
        options: The group to write (the first by default); the joint map (default: the
            motion's own map, else ``nao_26``, else ``nao_bhuman_22`` when the joints fit
            it better); the tolerance in degrees a dense motion is reduced to keyframes
            within; the motion name (default: the file name without ``.mof``, which is
            what transitions of other motions refer to); whose Int bits to write (default
            the motion's own, else ``naodevils`` when it has cosine-eased segments).
        overwrite: Replace an existing file.

    Returns:
        The number of keyframes in the written file (as reading it gives them).
    """
    opts = options or WriteOptions()
    out = check_writable(path, overwrite)
    text, frames = _encode(motion_file, out, opts)
    write_bytes_atomic(out, text.encode("utf-8"), overwrite)
    return frames


__all__ = [
    "ALL_MOTIONS",
    "DEFAULT_MAPS",
    "EXTERN",
    "GENERATIONS_22",
    "INT_BITS",
    "INT_BITS_TEAMS",
    "JOINT_COUNTS",
    "KEEP_NUMBERS",
    "LIMITS_MARGIN_DEG",
    "MASK_KEEP",
    "MASK_OFF",
    "NAO_LIMITS_DEG",
    "OFF_NUMBERS",
    "STIFFNESS",
    "STIFFNESS_KEYWORDS",
    "STIFFNESS_RAMP",
    "SUFFIX",
    "Choice",
    "Expansion",
    "IntBits",
    "MofFile",
    "MofMotionRecord",
    "MofRecord",
    "MotionNet",
    "Node",
    "ReadOptions",
    "Row",
    "StiffnessLine",
    "Transition",
    "WriteOptions",
    "choose_int_bits",
    "choose_joint_map",
    "describe_net",
    "encode",
    "parse",
    "parse_text",
    "read",
    "segment_kind",
    "sniff",
    "write",
]
