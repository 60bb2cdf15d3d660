"""The in-memory motion model every codec reads into and writes from.

A :class:`MotionFile` holds file-level metadata and one or more named groups (OMF's
``target`` / ``actual`` …), each a :class:`Motion`. A Motion is a set of time-indexed
numpy arrays in SI units (seconds, radians, metres, N·m, °C) that share one ``times``
vector. Quaternions are x, y, z, w (ROS order). Absent values are NaN.

Motions are immutable in spirit: operations return new Motions (validated again).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from . import timing
from .errors import MotionValueError, OutOfRangeError, SelectionError, listed, spelled
from .memory import require_room
from .notices import Notice, NoticeKind, notify

if TYPE_CHECKING:
    from .kinematics import Kinematics

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: Group name used by formats that hold a single motion (commanded motions).
DEFAULT_GROUP = "target"

#: Standard per-joint channels, in the order tools show them.
JOINT_CHANNELS = ("position", "velocity", "acceleration", "effort", "temperature")
#: Standard per-link channels and their widths.
LINK_CHANNELS: dict[str, int] = {
    "position": 3,
    "orientation": 4,
    "linear_velocity": 3,
    "angular_velocity": 3,
}
#: Standard per-IMU channels and their widths.
IMU_CHANNELS: dict[str, int] = {
    "position": 3,
    "orientation": 4,
    "angular_velocity": 3,
    "linear_acceleration": 3,
    "linear_velocity": 3,
}
#: Per-segment interpolation kinds (keyframe formats): ``step`` holds the segment's start
#: value until its end, ``next`` jumps to its end value right after its start and holds it
#: (``.mof`` rows without interpolation), ``cosine`` eases in and out: a + (b − a)(1 − cos πr)/2
#: at the elapsed fraction r (Nao Devils' ``.mof`` rows).
INTERPOLATIONS = ("linear", "step", "next", "cosine")


def _shape(a: np.ndarray) -> str:
    return "(" + ", ".join(str(s) for s in a.shape) + ")"


def _expect_shape(name: str, array: Any, expected: tuple[int, ...]) -> FloatArray:
    out = np.asarray(array, dtype=np.float64)
    if out.shape != expected:
        exp = "(" + ", ".join(str(s) for s in expected) + ")"
        raise MotionValueError(f"{name} has shape {_shape(out)}, expected {exp}")
    return out


@dataclasses.dataclass(frozen=True)
class Series:
    """An extra vector series sampled on the motion's times (ZMP, centre of mass …).

    Attributes:
        values: (N, k) array.
        frame: ``"world"`` or ``"root"`` (root-relative), or any frame name.
        components: Optional names of the k components (e.g. ``("x", "y", "z")``).
    """

    values: FloatArray
    frame: str = "world"
    components: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        if values.ndim == 1:
            values = values[:, None]
        if values.ndim != 2:
            raise MotionValueError(f"series values have shape {_shape(values)}, expected (N, k)")
        if self.components and len(self.components) != values.shape[1]:
            raise MotionValueError(f"series has {values.shape[1]} columns but {len(self.components)} component names")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "components", tuple(self.components))


@dataclasses.dataclass(frozen=True)
class JointLimit:
    """Limits of one joint (None = not stated, so not checked): position in rad (m for prismatic
    joints), speed in rad/s, acceleration in rad/s², jerk in rad/s³, effort in N·m (N)."""

    lower: float | None = None
    upper: float | None = None
    velocity: float | None = None
    acceleration: float | None = None
    jerk: float | None = None
    effort: float | None = None


class CodecRecord:
    """What one codec keeps of a file for its own round trip (and nothing else reads).

    Each codec defines its records as dataclasses deriving from this, with ``codec`` set
    to its name (``MofRecord``, ``SeqMotionRecord`` …): one for the file
    (:attr:`MotionFile.records`) and, where it keeps per-motion data, one for each motion
    (:attr:`Motion.records`). Both slots are keyed by the codec's name, so a file read
    from one format and written to another carries the first format's record along
    untouched (writing back to the first format still finds it). Only the owning codec
    reads its records, through :meth:`Motion.record` / :meth:`MotionFile.record`.
    """

    codec: ClassVar[str] = ""


R = TypeVar("R", bound=CodecRecord)


def _record_of(records: Mapping[str, CodecRecord], kind: type[R]) -> R | None:
    found = records.get(kind.codec)
    return found if isinstance(found, kind) else None


#: A file's own frame tree (objects and links it describes): world frame name → the core kinematic tree.
FrameTree = Callable[[str], "Kinematics"]


@dataclasses.dataclass(eq=False)
class Motion:
    """One motion: time-indexed joint, root, link, IMU and extra data.

    Every array's first axis is time and has length ``len(times)``. Joint channels are
    (N, sum(joint_dims)); link channels (N, L, k); IMU channels (N, I, k).

    Attributes:
        times: (N,) seconds, strictly increasing.
        joint_names: One name per joint.
        joint_dims: Degrees of freedom per joint (default all 1).
        position, velocity, acceleration, effort, temperature: Joint channels or None.
        joint_channels: Extra per-joint channels (stiffness, voltage …), (N, D) each.
        joint_masks: Per-joint boolean states where a format distinguishes them
            (e.g. ``"off"`` for a `.mof` joint switched off), (N, D) each.
        root_position: (N, 3) metres, or None.
        root_orientation: (N, 4) quaternions x, y, z, w, or None.
        link_names, links: Link names and channels (keys of :data:`LINK_CHANNELS` or others).
        imu_names, imus: IMU names and channels (keys of :data:`IMU_CHANNELS` or others).
        series: Extra vector series by name.
        time_columns: Extra per-frame time values by name (OMF ``time`` columns).
        interpolation: For keyframe motions, one kind per segment (N-1 entries of
            :data:`INTERPOLATIONS`); None means linear everywhere.
        loop: (start, end) seconds of the part that repeats, when the source loops.
        marks: Named instants of the motion, (seconds, name) in time order (the labels
            of a ``.mof`` motion net where the run passes them); viewers show them on
            the timeline.
        rate: Frames per second when frames are uniform; detected when not given.
        records: Codec name → what that codec keeps of this motion for writing it back
            (see :class:`CodecRecord`).
        joint_map: The joint map that named the joints (by name), when one did.
        joint_sources: Joint name → its column or locator in the file, where a joint map gave it.
        read_choices: What the reader settled that the file leaves open (``"joint map"``,
            ``"Int bits"``, timing …) → which choice and why.
        extras: Anything else a user attaches (no codec reads or writes it).
    """

    times: FloatArray
    joint_names: tuple[str, ...] = ()
    joint_dims: tuple[int, ...] = ()
    position: FloatArray | None = None
    velocity: FloatArray | None = None
    acceleration: FloatArray | None = None
    effort: FloatArray | None = None
    temperature: FloatArray | None = None
    joint_channels: dict[str, FloatArray] = dataclasses.field(default_factory=dict)
    joint_masks: dict[str, BoolArray] = dataclasses.field(default_factory=dict)
    root_position: FloatArray | None = None
    root_orientation: FloatArray | None = None
    link_names: tuple[str, ...] = ()
    links: dict[str, FloatArray] = dataclasses.field(default_factory=dict)
    imu_names: tuple[str, ...] = ()
    imus: dict[str, FloatArray] = dataclasses.field(default_factory=dict)
    series: dict[str, Series] = dataclasses.field(default_factory=dict)
    time_columns: dict[str, FloatArray] = dataclasses.field(default_factory=dict)
    interpolation: tuple[str, ...] | None = None
    loop: tuple[float, float] | None = None
    marks: tuple[tuple[float, str], ...] = ()
    rate: float | None = None
    joint_map: str | None = None
    joint_sources: dict[str, str] = dataclasses.field(default_factory=dict)
    read_choices: dict[str, str] = dataclasses.field(default_factory=dict)
    records: dict[str, CodecRecord] = dataclasses.field(default_factory=dict)
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)

    def record(self, kind: type[R]) -> R | None:
        """This motion's record of the codec that defines ``kind``, if it has one."""
        return _record_of(self.records, kind)

    # ------------------------------------------------------------------ validation
    def __post_init__(self) -> None:
        times = np.asarray(self.times, dtype=np.float64)
        if times.ndim != 1:
            raise MotionValueError(f"times has shape {_shape(times)}, expected (N,)")
        if not np.all(np.isfinite(times)):
            raise MotionValueError("times contain NaN or infinite values")
        if times.size > 1 and not math.isfinite(float(times[-1]) - float(times[0])):  # every step would overflow
            raise MotionValueError(f"times span more than a float holds: {times[0]:g} to {times[-1]:g} s")
        if times.size > 1:
            bad = np.flatnonzero(np.diff(times) <= 0)
            if bad.size:
                i = int(bad[0]) + 1
                raise MotionValueError(
                    f"times must be strictly increasing: times[{i}] = {float(times[i])!r} "
                    f"after times[{i - 1}] = {float(times[i - 1])!r}"
                )
        self.times = times
        n = times.size

        self.joint_names = tuple(str(s) for s in self.joint_names)
        if not self.joint_dims:
            self.joint_dims = (1,) * len(self.joint_names)
        self.joint_dims = tuple(int(d) for d in self.joint_dims)
        if len(self.joint_dims) != len(self.joint_names):
            raise MotionValueError(
                f"joint_dims has {len(self.joint_dims)} entries, joint_names {len(self.joint_names)}"
            )
        if any(d < 1 for d in self.joint_dims):
            raise MotionValueError(f"joint_dims must be positive, got {list(self.joint_dims)}")
        if len(set(self.joint_names)) != len(self.joint_names):
            raise MotionValueError(f"duplicate joint names: {_duplicates(self.joint_names)}")
        d = self.dof
        for name in JOINT_CHANNELS:
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, _expect_shape(name, value, (n, d)))
        self.joint_channels = {
            k: _expect_shape(f"joint_channels[{k!r}]", v, (n, d)) for k, v in self.joint_channels.items()
        }
        masks: dict[str, BoolArray] = {}
        for k, v in self.joint_masks.items():
            arr = np.asarray(v, dtype=bool)
            if arr.shape != (n, d):
                raise MotionValueError(f"joint_masks[{k!r}] has shape {_shape(arr)}, expected ({n}, {d})")
            masks[k] = arr
        self.joint_masks = masks
        if self.root_position is not None:
            self.root_position = _expect_shape("root_position", self.root_position, (n, 3))
        if self.root_orientation is not None:
            self.root_orientation = _expect_shape("root_orientation", self.root_orientation, (n, 4))

        self.link_names = tuple(str(s) for s in self.link_names)
        self.imu_names = tuple(str(s) for s in self.imu_names)
        self.links = self._validate_entities("links", self.links, len(self.link_names), LINK_CHANNELS)
        self.imus = self._validate_entities("imus", self.imus, len(self.imu_names), IMU_CHANNELS)

        for key, s in self.series.items():
            if not isinstance(s, Series):
                raise MotionValueError(f"series[{key!r}] must be a Series")
            if s.values.shape[0] != n:
                raise MotionValueError(
                    f"series[{key!r}] has shape {_shape(s.values)}, expected ({n}, {s.values.shape[1]})"
                )
        self.time_columns = {k: _expect_shape(f"time_columns[{k!r}]", v, (n,)) for k, v in self.time_columns.items()}
        if self.interpolation is not None:
            self.interpolation = tuple(self.interpolation)
            if len(self.interpolation) != max(n - 1, 0):
                raise MotionValueError(
                    f"interpolation has {len(self.interpolation)} segments, expected {max(n - 1, 0)}"
                )
            unknown = set(self.interpolation) - set(INTERPOLATIONS)
            if unknown:
                raise MotionValueError(f"unknown interpolation {sorted(unknown)}; known: {list(INTERPOLATIONS)}")
        if self.loop is not None:
            start, end = (float(x) for x in self.loop)
            if not start < end:
                raise MotionValueError(f"loop start {start} must be before loop end {end}")
            self.loop = (start, end)
        marks = tuple((float(t), str(name)) for t, name in self.marks)
        if not all(math.isfinite(t) for t, _ in marks):
            raise ValueError("marks must be at finite times")
        self.marks = tuple(sorted(marks, key=lambda mark: mark[0]))
        if self.rate is None:
            if self.interpolation is None:
                self.rate = timing.detect_rate(times)
        else:
            self.rate = float(self.rate)
            if not (math.isfinite(self.rate) and self.rate > 0):
                raise MotionValueError(f"rate must be positive, got {self.rate}")
            if n > 1 and timing.detect_rate(times, self.rate) is None:
                raise MotionValueError(f"times are not uniform at rate {self.rate} Hz")

    def _validate_entities(
        self, what: str, channels: Mapping[str, Any], count: int, widths: Mapping[str, int]
    ) -> dict[str, FloatArray]:
        n = self.times.size
        out: dict[str, FloatArray] = {}
        for key, value in channels.items():
            arr = np.asarray(value, dtype=np.float64)
            width = widths.get(key, arr.shape[-1] if arr.ndim == 3 else -1)
            out[key] = _expect_shape(f"{what}[{key!r}]", arr, (n, count, width))
        return out

    # ------------------------------------------------------------------ properties
    @property
    def num_frames(self) -> int:
        """Number of frames."""
        return int(self.times.size)

    def __len__(self) -> int:
        return self.num_frames

    @property
    def duration(self) -> float:
        """Seconds from the first to the last frame (0 for fewer than two frames)."""
        return float(self.times[-1]) - float(self.times[0]) if self.times.size > 1 else 0.0  # inf, not a numpy warning

    @property
    def dof(self) -> int:
        """Total number of joint values per frame (sum of joint_dims)."""
        return int(sum(self.joint_dims))

    @property
    def is_keyframed(self) -> bool:
        """True when the motion carries per-segment interpolation (keyframe formats)."""
        return self.interpolation is not None

    def _joint_table(self) -> dict[str, tuple[int, int]]:
        """Joint name → (its index, its first column), built once per list of joints.

        Looking a joint up is then constant time, so that going over every joint of a motion
        of a hundred thousand joints is linear in their number, not quadratic.
        """
        names, dims = self.joint_names, self.joint_dims
        cached = self.__dict__.get("_joint_table_cache")
        if cached is not None and cached[0] is names and cached[1] is dims:  # the same (immutable) tuples
            table: dict[str, tuple[int, int]] = cached[2]
            return table
        starts = np.concatenate([[0], np.cumsum(dims, dtype=np.int64)]).tolist()
        table = {name: (i, int(starts[i])) for i, name in enumerate(names)}
        self.__dict__["_joint_table_cache"] = (names, dims, table)
        return table

    def joint_index(self, name: str) -> int:
        """Index of joint ``name`` in :attr:`joint_names`.

        Raises:
            SelectionError: The motion has no such joint.
        """
        found = self._joint_table().get(name)
        if found is None:
            raise SelectionError(f"unknown joint {name!r}; joints: {listed(self.joint_names)}")
        return found[0]

    def joint_columns(self, name: str) -> slice:
        """Columns of joint ``name`` in the (N, D) joint channels."""
        i = self.joint_index(name)
        start = self._joint_table()[name][1]
        return slice(start, start + self.joint_dims[i])

    def channels(self) -> dict[str, FloatArray]:
        """Every present joint channel (standard and extra) by name."""
        out = {name: getattr(self, name) for name in JOINT_CHANNELS if getattr(self, name) is not None}
        out.update(self.joint_channels)
        return out

    def iter_arrays(self) -> Iterator[tuple[str, np.ndarray]]:
        """Yield (label, array) for every time-indexed array, e.g. ``("joint.position", …)``."""
        for name, arr in self.channels().items():
            yield f"joint.{name}", arr
        for name, mask in self.joint_masks.items():
            yield f"mask.{name}", mask
        if self.root_position is not None:
            yield "root.position", self.root_position
        if self.root_orientation is not None:
            yield "root.orientation", self.root_orientation
        for name, arr in self.links.items():
            yield f"link.{name}", arr
        for name, arr in self.imus.items():
            yield f"imu.{name}", arr
        for name, s in self.series.items():
            yield f"series.{name}", s.values
        for name, arr in self.time_columns.items():
            yield f"time.{name}", arr

    # ------------------------------------------------------------------ transforms
    def _map_arrays(
        self,
        times: FloatArray,
        fn: Callable[[np.ndarray, str], np.ndarray],
        **changes: Any,
    ) -> Motion:
        """New motion with every time-indexed array replaced by ``fn(array, kind)``.

        ``kind`` is ``"value"``, ``"quaternion"`` or ``"state"`` (boolean masks, held).
        """

        def f(a: np.ndarray | None, kind: str = "value") -> Any:
            return None if a is None else fn(a, kind)

        def entity_kind(key: str) -> str:
            return "quaternion" if key == "orientation" else "value"

        fields: dict[str, Any] = {name: f(getattr(self, name)) for name in JOINT_CHANNELS}
        fields.update(
            times=times,
            joint_channels={k: fn(v, "value") for k, v in self.joint_channels.items()},
            joint_masks={k: fn(v, "state") for k, v in self.joint_masks.items()},
            root_position=f(self.root_position),
            root_orientation=f(self.root_orientation, "quaternion"),
            links={k: fn(v, entity_kind(k)) for k, v in self.links.items()},
            imus={k: fn(v, entity_kind(k)) for k, v in self.imus.items()},
            series={k: dataclasses.replace(s, values=fn(s.values, "value")) for k, s in self.series.items()},
            time_columns={k: fn(v, "value") for k, v in self.time_columns.items()},
        )
        fields.update(changes)
        return dataclasses.replace(self, **fields)

    def slice_time(self, start: float | None = None, end: float | None = None) -> Motion:
        """Frames with ``start <= t <= end`` (times kept as they are)."""
        lo = -np.inf if start is None else start
        hi = np.inf if end is None else end
        keep = np.flatnonzero((self.times >= lo) & (self.times <= hi))
        return self.take(keep)

    def take(self, indices: Sequence[int] | np.ndarray) -> Motion:
        """The frames at ``indices`` (increasing)."""
        idx = np.asarray(indices, dtype=np.intp)
        interp = None
        if self.interpolation is not None:
            interp = tuple(self.interpolation[i] for i in idx[:-1]) if idx.size else ()
            if idx.size > 1 and np.any(np.diff(idx) != 1):
                raise MotionValueError("take() on a keyframed motion needs consecutive frames")
        loop = self.loop
        if loop is not None and idx.size and not (self.times[idx[0]] <= loop[0] and loop[1] <= self.times[idx[-1]]):
            loop = None
        marks: tuple[tuple[float, str], ...] = ()
        if idx.size:
            lo, hi = self.times[idx[0]], self.times[idx[-1]]
            marks = tuple(m for m in self.marks if lo <= m[0] <= hi)
        return self._map_arrays(
            self.times[idx],
            lambda a, kind: a[idx],
            interpolation=interp,
            loop=loop,
            marks=marks,
            rate=self.rate if idx.size > 1 else None,
        )

    def shifted(self, offset: float) -> Motion:
        """The same motion with ``offset`` seconds added to every time."""
        loop = None if self.loop is None else (self.loop[0] + offset, self.loop[1] + offset)
        marks = tuple((t + offset, name) for t, name in self.marks)
        return dataclasses.replace(self, times=self.times + offset, loop=loop, marks=marks)

    def sample(self, times: Sequence[float] | np.ndarray) -> Motion:
        """The motion evaluated at arbitrary increasing ``times``.

        Values are interpolated linearly (or held on ``step`` segments), quaternions by
        slerp; outside the motion's time range the first / last frame is held.
        """
        t = np.asarray(times, dtype=np.float64)
        if self.num_frames == 0:
            raise MotionValueError("cannot sample a motion with no frames")
        where = timing.locate(self.times, t, self.interpolation)
        return self._map_arrays(
            t,
            lambda a, kind: timing.interpolate(a, where, kind),
            interpolation=None,
            rate=None,
            loop=self.loop,
        )

    def frames_at(self, rate: float) -> int:
        """How many frames a resampling at ``rate`` makes (as :func:`.timing.uniform_times`
        counts them).

        Raises:
            OutOfRangeError: Too many to count (a duration near the end of the float range),
                naming the rate.
        """
        if self.num_frames == 0:
            return 0
        span = float(self.times[-1]) - float(self.times[0])  # Python floats: inf, not a numpy warning
        count = span * rate + 1e-9
        if not math.isfinite(count):
            raise OutOfRangeError(
                f"{spelled('rate')} {rate:g}: the motion's {span:g} s would make more frames than can be counted"
            )
        return math.floor(count) + 1

    def _check_end(self, frames: int, rate: float) -> None:
        """Refuse a rate that leaves one frame of a motion of several; say so when its frames
        leave out more than a quarter of the motion at its end (a rate of about one frame in
        the motion's duration: the last frame is always less than a period before the end)."""
        span = float(self.times[-1]) - float(self.times[0])
        if self.num_frames >= 2 and frames < 2:
            raise OutOfRangeError(
                f"{spelled('rate')} {rate:g} leaves 1 frame of a {span:g} s motion: "
                f"at least {1.0 / span:.3g} Hz keeps its first and last frames"
            )
        kept = (frames - 1) / rate
        if span - kept > 0.25 * span:
            notify(
                NoticeKind.RESAMPLED,
                f"{spelled('rate')} {rate:g} keeps {frames:,} frames, up to t = {kept:g} s of the motion's "
                f"{span:g} s: its last {span - kept:g} s are left out",
                stacklevel=3,
            )

    def _check_room(self, frames: int, rate: float) -> None:
        """Refuse, before allocating, a resampling whose arrays this machine cannot hold.

        The peak is the new arrays (frames × values), the new times and where each falls
        among the old ones (about a dozen values a frame), and the temporaries of one block
        of the widest array being interpolated (its two neighbouring samples, their
        difference and the mix; a slerp of quaternions about eight arrays as wide).
        """
        frames += 1  # hold's truncation may keep one more
        widths = {label: int(np.prod(a.shape[1:])) for label, a in self.iter_arrays()}
        columns = 1 + sum(widths.values())
        temporaries = [(8 if label.endswith("orientation") else 4) * w for label, w in widths.items()]
        block = min(frames, timing.BLOCK) * max(temporaries, default=0)
        require_room(
            f"{spelled('rate')} {rate:g}: {frames:,} frames × {columns:,} values",
            (frames * (columns + 12) + block) * 8,
        )

    def resample(self, rate: float, method: str = "linear") -> Motion:
        """Uniform frames at ``rate`` Hz from the first frame to the last.

        Args:
            rate: Target frames per second.
            method: ``"linear"`` (values linear, quaternions slerp, keyframe segments
                honoured) or ``"hold"`` (Choreonoid's import: source row i goes to frame
                ``int((t_i - t0) * rate)``, later rows win, gaps repeat the previous frame).

        Raises:
            OutOfRangeError: ``rate`` not positive and finite, leaving one frame of a motion
                of several, or making more frames than this process can hold.
        """
        if not (rate > 0 and math.isfinite(rate)):
            raise OutOfRangeError(f"{spelled('rate')} must be positive and finite, got {rate:g}")
        if self.num_frames == 0:
            return dataclasses.replace(self, rate=float(rate), interpolation=None)
        if method not in ("linear", "hold"):
            raise MotionValueError(f"unknown resampling method {method!r}; known: linear, hold")
        frames = self.frames_at(rate)
        self._check_end(frames, rate)
        self._check_room(frames, rate)
        if method == "linear":
            t = timing.uniform_times(self.times[0], self.times[-1], rate)
            return dataclasses.replace(self.sample(t), rate=float(rate))
        rows = timing.hold_rows(self.times, rate)
        t = self.times[0] + np.arange(rows.size) / rate
        return self._map_arrays(t, lambda a, kind: a[rows], interpolation=None, rate=float(rate))

    # ------------------------------------------------------------------ joints
    def select_joints(self, names: Sequence[str]) -> Motion:
        """Only the joints ``names``, in that order (also reorders)."""
        names = list(names)
        if len(set(names)) != len(names):
            raise MotionValueError(f"duplicate joint names: {_duplicates(names)}")
        cols = [np.arange(self.dof)[self.joint_columns(n)] for n in names]
        idx = np.concatenate(cols) if cols else np.zeros(0, dtype=np.intp)
        dims = tuple(self.joint_dims[self.joint_index(n)] for n in names)

        def pick(a: np.ndarray | None) -> Any:
            return None if a is None else a[:, idx]

        fields: dict[str, Any] = {name: pick(getattr(self, name)) for name in JOINT_CHANNELS}
        return dataclasses.replace(
            self,
            joint_names=tuple(names),
            joint_dims=dims,
            joint_channels={k: v[:, idx] for k, v in self.joint_channels.items()},
            joint_masks={k: v[:, idx] for k, v in self.joint_masks.items()},
            **fields,
        )

    reorder_joints = select_joints

    def rename_joints(self, mapping: Mapping[str, str] | Callable[[str], str]) -> Motion:
        """Joints renamed by a mapping (names not in it are kept) or a function."""
        if callable(mapping):
            new = tuple(mapping(n) for n in self.joint_names)
        else:
            unknown = set(mapping) - set(self.joint_names)
            if unknown:
                raise SelectionError(f"cannot rename unknown joints {listed(repr(n) for n in sorted(unknown))}")
            new = tuple(mapping.get(n, n) for n in self.joint_names)
        return dataclasses.replace(self, joint_names=new)


def _duplicates(names: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    dup = []
    for n in names:
        if n in seen and n not in dup:
            dup.append(n)
        seen.add(n)
    return dup


@dataclasses.dataclass(eq=False)
class MotionFile:
    """A file's content: metadata and named motion groups.

    Attributes:
        groups: Group name → Motion, in file order (OMF ``data_names``).
        name: Motion name.
        robot: Robot model (OMF recommends manufacturer + model).
        date: Recording / creation date.
        date_text: The file's date as it gives it, when that is no date and time (an OMF
            ``basic.date`` of a day alone, ``2026-01-01``): kept as text, which OMF and bags
            write back; None when ``date`` is set or the file gives none.
        source: The path this was read from, if any.
        format: The codec name this was read with, if any.
        start_time_ns: Absolute ROS time (ns since the epoch) of time 0 when the motion was
            recorded from ROS data: the first sample's. Frame times are relative to it (a
            slice such as ``convert --start 0.5`` keeps its times and this origin);
            OMF stores this as metadata ``start_time_ns``, ``.seq`` as the extra key
            ``startTimeNs`` (which Choreonoid ignores), and ``motion2bag`` restores stamps from it.
        robot_description: The robot's URDF when the source carries it (a bag's
            ``/robot_description``), else None.
        joint_limits: Joint name → limits, when the file states them (a scene's robots).
        frame_tree: When the file describes a frame tree of its own (a scene's objects and
            links), a function giving its kinematics under a world frame name.
        records: Codec name → what that codec keeps of the file for writing it back
            (see :class:`CodecRecord`).
        extras: Anything else a user attaches (no codec reads or writes it).
        notices: What reading it reported (:func:`motion_formats_ros.read` fills it).
    """

    groups: dict[str, Motion]
    name: str = ""
    robot: str = ""
    date: datetime | None = None
    date_text: str | None = None
    source: str | None = None
    format: str | None = None
    start_time_ns: int | None = None
    robot_description: str | None = None
    joint_limits: dict[str, JointLimit] = dataclasses.field(default_factory=dict)
    frame_tree: FrameTree | None = None
    records: dict[str, CodecRecord] = dataclasses.field(default_factory=dict)
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)
    notices: tuple[Notice, ...] = ()

    def __post_init__(self) -> None:
        if not self.groups:
            raise MotionValueError("a MotionFile needs at least one group")
        for key, m in self.groups.items():
            if not isinstance(m, Motion):
                raise MotionValueError(f"group {key!r} is not a Motion")

    @classmethod
    def single(cls, motion: Motion, group: str = DEFAULT_GROUP, **meta: Any) -> MotionFile:
        """A file holding one motion as ``group``."""
        return cls(groups={group: motion}, **meta)

    def record(self, kind: type[R]) -> R | None:
        """The file's record of the codec that defines ``kind``, if it has one."""
        return _record_of(self.records, kind)

    @property
    def motion(self) -> Motion:
        """The first group (the only one for most formats)."""
        return next(iter(self.groups.values()))

    def group(self, name: str | None = None) -> Motion:
        """The group ``name`` (the first when None)."""
        if name is None:
            return self.motion
        try:
            return self.groups[name]
        except KeyError:
            raise SelectionError(f"no group {name!r}; groups: {', '.join(self.groups)}") from None

    def map(self, fn: Callable[[Motion], Motion]) -> MotionFile:
        """The same file with ``fn`` applied to every group."""
        return dataclasses.replace(self, groups={k: fn(v) for k, v in self.groups.items()})
