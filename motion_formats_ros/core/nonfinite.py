"""Non-finite values (NaN, ±Inf) resolved before anything of a motion is sent to a robot.

Keyframe formats leave joint values undefined on purpose: a ``.mof`` row's ``*`` keeps
the previous target (mask ``keep``), ``-`` switches the joint off (mask ``off``, value
NaN). Neither a JointTrajectory nor a JointState can say either, and a controller given
NaN passes it to the hardware or rejects the whole motion. :func:`resolve` gives every
joint that is sent a finite value at every frame:

- a non-finite value after a finite one holds the last commanded (finite) value; for
  ``off`` that is reported once per joint, as "stiffness off" cannot be expressed;
- a leading non-finite value takes the robot's current position when it is known, else
  the joint's first finite value (reported);
- a joint with no finite value at all is left out (reported), unless it is asked for by
  name: then it is treated like a joint the file lacks and holds the current position;
- velocities and accelerations are 0 where the position is held; an effort, velocity or
  acceleration channel that still has a non-finite value is not sent (reported);
- root and link poses hold their last finite pose (leading: the first finite one); a pose
  channel with none is not sent (reported).

Everything derived from the resolved motion (the JointState stream, the trajectory,
``seek``, loops) is then finite, because it only interpolates finite values.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import MotionFormatError, listed
from .model import Motion, MotionFile
from .notices import NoticeKind, notify
from .spatial import unit_quaternions

FloatArray = npt.NDArray[np.float64]

MASK_OFF = "off"
MASK_KEEP = "keep"


@dataclasses.dataclass(frozen=True)
class Note:
    """Something the resolution did that the user should hear about."""

    level: str  # "info" or "warning"
    text: str


@dataclasses.dataclass(frozen=True)
class Resolution:
    """A motion whose sent channels are finite everywhere, and what it took.

    Attributes:
        motion: The resolved motion (the joints to send, in the order to send them).
        notes: One note per joint and event, in joint order.
        left_out: Joints of the file that are not sent because they have no finite value.
        held: Joints not in the file (or without any finite value) that hold the current
            position for the whole motion.
        from_state: Joints whose leading undefined values came from the current position.
    """

    motion: Motion
    notes: tuple[Note, ...]
    left_out: tuple[str, ...]
    held: tuple[str, ...]
    from_state: tuple[str, ...]


class MissingJointError(MotionFormatError, ValueError):
    """A joint asked for by name is neither in the file nor in the current state."""


def needs_state(motion: Motion, joints: Sequence[str] | None = None) -> tuple[str, ...]:
    """Joints whose resolution would use the current position (leading gaps, held joints)."""
    wanted = _wanted(motion, joints)
    out = []
    for name in wanted:
        if name not in motion.joint_names or motion.position is None:
            out.append(name)
            continue
        cols = motion.position[:, motion.joint_columns(name)]
        if cols.shape[0] and not np.all(np.isfinite(cols[0])):
            out.append(name)
    return tuple(out)


def defined_joints(motion: Motion) -> tuple[str, ...]:
    """Joints of ``motion`` with at least one defined position (in every column)."""
    if motion.position is None:
        return ()
    ok: npt.NDArray[np.bool_] = np.asarray(np.isfinite(motion.position).any(axis=0))
    return tuple(name for name in motion.joint_names if ok[motion.joint_columns(name)].all())


def resolve(
    motion: Motion,
    current: Mapping[str, float] | None = None,
    joints: Sequence[str] | None = None,
) -> Resolution:
    """Resolve every non-finite value of the channels a player sends (see the module doc).

    Args:
        motion: The motion as read (NaN where a format leaves a value undefined).
        current: The robot's current joint positions by name, when known.
        joints: The joints to send, in that order (None or empty: every joint of the file).
            A listed joint the file lacks holds its current position.

    Raises:
        MissingJointError: A listed joint is not in the file and ``current`` lacks it.
        ValueError: ``joints`` names a joint twice.
    """
    state = {k: float(v) for k, v in (current or {}).items() if np.isfinite(v)}
    notes: list[Note] = []
    joints_done = _resolve_positions(motion, _wanted(motion, joints), bool(joints), state, notes)
    held = joints_done.held
    missing = [name for name in held if name not in state]
    if missing:
        names = listed(repr(m) for m in missing)
        raise MissingJointError(
            f"joint(s) {names} not in the file (or never defined there), and their current position, "
            "to hold, is not known"
        )
    for name in held:
        if name not in motion.joint_names:
            notes.append(
                Note("info", f"joint {name!r} is not in the file: it holds its current position {state[name]:.6g}")
            )
    sent = [name for name in joints_done.wanted if name in joints_done.columns or name in held]
    base = motion.select_joints([name for name in sent if name in joints_done.columns])
    fields = _Assembly(motion, base, sent, joints_done, state).fields(notes)
    fields["root_position"] = _hold_rows(motion.root_position, motion.times, "root position", notes)
    fields["root_orientation"] = _hold_rows(
        motion.root_orientation, motion.times, "root orientation", notes, quaternion=True
    )
    link_names, links = _hold_links(motion, notes)
    resolved = dataclasses.replace(base, joint_names=tuple(sent), link_names=link_names, links=links, **fields)
    return Resolution(
        resolved, tuple(notes), tuple(joints_done.left_out), tuple(held), tuple(dict.fromkeys(joints_done.from_state))
    )


@dataclasses.dataclass
class _Joints:
    """The positions of the joints to send, resolved joint by joint (see :func:`_resolve_positions`)."""

    wanted: list[str]
    columns: dict[str, FloatArray] = dataclasses.field(default_factory=dict)  # resolved positions
    held_cols: dict[str, npt.NDArray[np.bool_]] = dataclasses.field(default_factory=dict)  # True where held
    left_out: list[str] = dataclasses.field(default_factory=list)
    held: list[str] = dataclasses.field(default_factory=list)
    from_state: list[str] = dataclasses.field(default_factory=list)


def _resolve_positions(
    motion: Motion, wanted: list[str], explicit: bool, current: Mapping[str, float], notes: list[Note]
) -> _Joints:
    """Each wanted joint's position columns made finite, or the joint held or left out."""
    out = _Joints(wanted)
    position = motion.position
    for name in wanted:
        if name not in motion.joint_names or position is None:
            out.held.append(name)
            continue
        sl = motion.joint_columns(name)
        block = position[:, sl].copy()
        hold_block = np.zeros(block.shape, dtype=bool)
        empty = False
        for c in range(block.shape[1]):
            col = block[:, c]
            finite = np.isfinite(col)
            if finite.all():
                continue
            if not finite.any():
                empty = True
                break
            state = current.get(name) if block.shape[1] == 1 else None
            block[:, c] = _fill_column(motion, name, sl, c, finite, state, notes)
            if state is not None and not finite[0]:
                out.from_state.append(name)
            hold_block[:, c] = ~finite
        if empty:
            if explicit:
                out.held.append(name)
                notes.append(
                    Note("warning", f"joint {name!r} has no defined value in the file: it holds its current position")
                )
            else:
                out.left_out.append(name)
                notes.append(Note("warning", f"joint {name!r} has no defined value in the file: it is left out"))
            continue
        out.columns[name] = block
        out.held_cols[name] = hold_block
    return out


def _fill_column(
    motion: Motion,
    name: str,
    sl: slice,
    c: int,
    finite: npt.NDArray[np.bool_],
    state: float | None,
    notes: list[Note],
) -> FloatArray:
    """Column ``c`` of joint ``name`` (some but not all values finite) with every gap filled, and the notes."""
    times = motion.times
    assert motion.position is not None
    col = motion.position[:, sl][:, c]
    first = int(np.argmax(finite))
    filled = _fill_rows(col, finite)
    if first > 0:
        if state is not None:
            filled[:first] = state
            notes.append(
                Note(
                    "info",
                    f"joint {name!r} is undefined until t = {times[first]:.6g} s: "
                    f"it starts from its current position {state:.6g}",
                )
            )
        else:
            notes.append(
                Note(
                    "warning",
                    f"joint {name!r} is undefined until t = {times[first]:.6g} s and its "
                    f"current position is not known: it holds its first value {col[first]:.6g} from the start",
                )
            )
    after = ~finite
    after[:first] = False
    off_mask, keep_mask = motion.joint_masks.get(MASK_OFF), motion.joint_masks.get(MASK_KEEP)
    off = after & (off_mask[:, sl][:, c] if off_mask is not None else False)
    keep = after & (keep_mask[:, sl][:, c] if keep_mask is not None else False)
    if off.any():
        k = int(np.argmax(off))
        notes.append(
            Note(
                "warning",
                f"joint {name!r} is switched off ('-') from t = {times[k]:.6g} s: a "
                "JointTrajectory or JointState cannot switch a joint off, so it holds its last "
                "commanded value",
            )
        )
    other = after & ~off & ~keep
    if other.any():
        k = int(np.argmax(other))
        notes.append(
            Note(
                "warning",
                f"joint {name!r} has {int(other.sum())} undefined value(s) "
                f"({_kind(col[k])} first at t = {times[k]:.6g} s): each holds the previous value",
            )
        )
    return filled


class _Assembly:
    """The joint channels of the joints sent, in order: held joints' columns filled in."""

    def __init__(
        self, motion: Motion, base: Motion, sent: list[str], joints: _Joints, current: Mapping[str, float]
    ) -> None:
        self.motion, self.base, self.sent, self.joints, self.current = motion, base, sent, joints, current
        self.n = motion.num_frames
        in_file = [name for name in sent if name in joints.columns]
        held = set(joints.held)
        self.held = held
        dim_of = dict(zip(in_file, base.joint_dims, strict=False))
        self.dims = tuple(1 if name in held else dim_of[name] for name in sent)

    def channel(self, channel: FloatArray | None, fill_held: float) -> FloatArray | None:
        """``channel`` of the base motion with a constant column for each held joint."""
        if channel is None:
            return None
        parts = [
            np.full((self.n, 1), fill_held) if name in self.held else channel[:, self.base.joint_columns(name)]
            for name in self.sent
        ]
        return np.concatenate(parts, axis=1) if parts else np.zeros((self.n, 0))

    def _stacked(self, held_part: Any, part: Any, dtype: Any = np.float64) -> Any:
        if not self.sent:
            return np.zeros((self.n, 0), dtype=dtype)
        return np.concatenate([held_part(name) if name in self.held else part(name) for name in self.sent], axis=1)

    def _undefined(self, channel: str, arr: FloatArray, notes: list[Note]) -> None:
        k, j = (int(v[0]) for v in np.nonzero(~np.isfinite(arr)))
        notes.append(
            Note(
                "warning",
                f"{channel} of joint {_column_joint(self.sent, self.dims, j)!r} is undefined at "
                f"t = {self.motion.times[k]:.6g} s: the {channel} channel is not sent",
            )
        )

    def fields(self, notes: list[Note]) -> dict[str, Any]:
        """The resolved motion's joint fields (``dataclasses.replace`` keywords)."""
        n, base, joints = self.n, self.base, self.joints
        position: FloatArray | None
        if self.sent:
            position = self._stacked(
                lambda name: np.full((n, 1), self.current[name]), lambda name: joints.columns[name]
            )
        else:
            position = None if self.motion.position is None else np.zeros((n, 0))
        hold_all = self._stacked(
            lambda name: np.ones((n, 1), dtype=bool), lambda name: joints.held_cols[name], dtype=bool
        )
        fields: dict[str, Any] = {"position": position, "joint_dims": self.dims}
        for channel in ("velocity", "acceleration"):
            arr = self.channel(getattr(base, channel), 0.0)
            if arr is not None:
                arr = np.where(hold_all & ~np.isfinite(arr), 0.0, arr)
                if not np.all(np.isfinite(arr)):
                    self._undefined(channel, arr, notes)
                    arr = None
            fields[channel] = arr
        effort = self.channel(base.effort, np.nan)
        if effort is not None and not np.all(np.isfinite(effort)):
            self._undefined("effort", effort, notes)
            effort = None
        fields["effort"] = effort
        fields["temperature"] = self.channel(base.temperature, np.nan)
        fields["joint_channels"] = {
            key: a for key, value in base.joint_channels.items() if (a := self.channel(value, np.nan)) is not None
        }
        fields["joint_masks"] = {
            key: self._stacked(
                lambda name: np.zeros((n, 1), dtype=bool),
                lambda name, value=value: value[:, base.joint_columns(name)],
                dtype=bool,
            )
            for key, value in base.joint_masks.items()
        }
        return fields


def first_nonfinite(motion: Motion) -> str | None:
    """Where a sent channel of ``motion`` is not finite ("position of joint 'a' at t = …"), or None."""
    for channel in ("position", "velocity", "acceleration", "effort"):
        arr = getattr(motion, channel)
        if arr is None:
            continue
        bad = ~np.isfinite(arr)
        if bad.any():
            k, j = (int(v[0]) for v in np.nonzero(bad))
            return (
                f"{channel} of joint {_column_joint(motion.joint_names, motion.joint_dims, j)!r} at t = "
                f"{motion.times[k]:.6g} s"
            )
    for label, arr in (("root position", motion.root_position), ("root orientation", motion.root_orientation)):
        if arr is not None and not np.all(np.isfinite(arr)):
            return f"{label} at t = {motion.times[int(np.argmax(~np.all(np.isfinite(arr), axis=1)))]:.6g} s"
    for key, arr in motion.links.items():
        if not np.all(np.isfinite(arr)):
            return f"link {key}"
    return None


# --------------------------------------------------------------------------- helpers
def _wanted(motion: Motion, joints: Sequence[str] | None) -> list[str]:
    names = [j for j in (joints or ()) if j]
    if not names:
        return list(motion.joint_names)
    seen: set[str] = set()
    dup = [j for j in names if j in seen or seen.add(j)]  # type: ignore[func-returns-value]
    if dup:
        raise ValueError(f"joints lists {', '.join(repr(d) for d in dict.fromkeys(dup))} more than once")
    return names


def _kind(value: float) -> str:
    return "NaN" if np.isnan(value) else "infinite"


def _column_joint(names: Sequence[str], dims: Sequence[int], column: int) -> str:
    edges = np.cumsum(dims)
    return names[int(np.searchsorted(edges, column, side="right"))]


def _row_ok(arr: np.ndarray, quaternion: bool) -> npt.NDArray[np.bool_]:
    """Rows (first axis) whose values are all finite (quaternions: and not of zero length)."""
    ok: npt.NDArray[np.bool_] = np.all(np.isfinite(arr), axis=-1)
    if quaternion:
        ok = ok & np.isfinite(unit_quaternions(arr)).all(axis=-1)
    return ok


def _fill_rows(arr: np.ndarray, ok: npt.NDArray[np.bool_]) -> np.ndarray:
    n = ok.shape[0]
    first = int(np.argmax(ok))
    idx = np.where(ok, np.arange(n), -1)
    np.maximum.accumulate(idx, out=idx)
    return arr[np.maximum(idx, first)]


def _hold_rows(
    arr: FloatArray | None, times: FloatArray, label: str, notes: list[Note], quaternion: bool = False
) -> FloatArray | None:
    """(N, k) rows: a non-finite row holds the previous finite one (leading: the first)."""
    if arr is None:
        return None
    ok = _row_ok(arr, quaternion)
    if ok.all():
        return arr
    if not ok.any():
        notes.append(Note("warning", f"the {label} is never defined: it is not sent"))
        return None
    k = int(np.argmax(~ok))
    notes.append(
        Note(
            "warning",
            f"the {label} is undefined at {int((~ok).sum())} frame(s) (first at "
            f"t = {times[k]:.6g} s): each holds the previous defined pose",
        )
    )
    return _fill_rows(arr, ok)


def _hold_links(motion: Motion, notes: list[Note]) -> tuple[tuple[str, ...], dict[str, FloatArray]]:
    """Link channels (N, L, k) held like root rows; a link never defined in a channel is dropped."""
    if not motion.links:
        return motion.link_names, motion.links
    keep = np.ones(len(motion.link_names), dtype=bool)
    filled: dict[str, FloatArray] = {}
    for key, arr in motion.links.items():
        out = arr.copy()
        for i, link in enumerate(motion.link_names):
            ok = _row_ok(arr[:, i, :], key == "orientation")
            if ok.all():
                continue
            if not ok.any():
                keep[i] = False
                continue
            k = int(np.argmax(~ok))
            notes.append(
                Note(
                    "warning",
                    f"link {link!r} {key} is undefined at {int((~ok).sum())} frame(s) (first "
                    f"at t = {motion.times[k]:.6g} s): each holds the previous defined value",
                )
            )
            out[:, i, :] = _fill_rows(arr[:, i, :], ok)
        filled[key] = out
    if not keep.all():
        dropped = [name for name, k in zip(motion.link_names, keep, strict=True) if not k]
        notes.append(
            Note("warning", f"link(s) {', '.join(repr(d) for d in dropped)} never have a defined pose: not sent")
        )
    names = tuple(name for name, k in zip(motion.link_names, keep, strict=True) if k)
    return names, {key: arr[:, keep, :] for key, arr in filled.items()}


@dataclasses.dataclass(frozen=True)
class NonFinite:
    """Non-finite values of one channel that no mask explains (a ``.mof`` ``-`` or ``*`` does)."""

    channel: str  # joint.position, root.orientation, link.position …
    nan: int
    inf: int
    first: str  # where the first one is: "joint 'a' at t = 0.2 s (frame 4)"

    def describe(self) -> str:
        counts = ", ".join(f"{n} {what}" for n, what in ((self.nan, "NaN"), (self.inf, "infinite")) if n)
        return f"{self.channel}: {counts} (first: {self.first})"


def unexplained(motion: Motion) -> list[NonFinite]:
    """Every channel's NaN / ±Inf values that are not marked as intended by a joint mask."""
    explained = np.zeros((motion.num_frames, sum(motion.joint_dims)), dtype=bool)
    for mask in motion.joint_masks.values():
        if mask.shape == explained.shape:
            explained |= mask
    out = []
    for label, arr in motion.iter_arrays():
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.floating):
            continue
        bad = ~np.isfinite(arr)
        if label.startswith("joint.") and bad.shape == explained.shape:
            bad &= ~explained
        if not bad.any():
            continue
        nan = int(np.count_nonzero(np.isnan(arr) & bad))
        index = tuple(int(v[0]) for v in np.nonzero(bad))
        frame = index[0]
        where = f"t = {motion.times[frame]:.6g} s (frame {frame})"
        if label.startswith("joint.") and len(index) > 1 and motion.joint_names:
            where = f"joint {_column_joint(motion.joint_names, motion.joint_dims, index[1])!r} at {where}"
        out.append(NonFinite(label, nan, int(np.count_nonzero(bad)) - nan, where))
    return out


def warn_nonfinite(motion_file: MotionFile, source: str | os.PathLike[str]) -> None:
    """Warn, per group and channel, about NaN / ±Inf values no mask explains (they are
    written as they are; a reader of the output may not expect them). Every command that
    reads a motion says it, so that ``--strict`` fails the same file in each."""
    for name, motion in motion_file.groups.items():
        for bad in unexplained(motion):
            notify(
                NoticeKind.MISSING, f"group {name}: non-finite values in {bad.describe()}", file=source, stacklevel=2
            )
