"""What to send at motion time t, as plain data: joint values and every transform.

:class:`Emitter` turns the session's clock and sampler into one :class:`Tick` per
stream tick: the motion time shown, the time played (for ``/clock``), the joint values,
and the transforms, parent → child — the root pose (or a scene's moving frames), every
link of the robot model as robot_state_publisher makes them (:class:`LinkFrames`), and
the link poses a file stores. :meth:`Emitter.static_transforms` is what never moves
(``/tf_static``). The player node only stamps these and turns them into messages.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..core.kinematics import Kinematics, MovingTransform, RobotModel, StaticTransform
from ..core.model import Motion
from .clock import PlaybackClock
from .config import Log, PlayerConfig, silent
from .sampler import FrameSampler

FloatArray = npt.NDArray[np.float64]
#: One transform: parent frame, child frame, translation (x, y, z), rotation (x, y, z, w).
Transform = tuple[str, str, "FloatArray | Sequence[float]", "FloatArray | Sequence[float]"]

IDENTITY = (0.0, 0.0, 0.0, 1.0)
ORIGIN = (0.0, 0.0, 0.0)


@dataclasses.dataclass(frozen=True)
class Transforms:
    """Transforms as arrays: what a ``tf2_msgs/TFMessage`` carries, one row per transform.

    The frames of a stream's ticks are the same at every tick, so a message layout can
    be made once for them.

    Attributes:
        frames: (parent, child) of each transform.
        translation: (K, 3) x, y, z.
        rotation: (K, 4) x, y, z, w.
    """

    frames: tuple[tuple[str, str], ...]
    translation: FloatArray
    rotation: FloatArray

    def __len__(self) -> int:
        return len(self.frames)

    def rows(self) -> list[Transform]:
        """One (parent, child, translation, rotation) per transform."""
        return [(parent, child, self.translation[i], self.rotation[i]) for i, (parent, child) in enumerate(self.frames)]

    @staticmethod
    def of(rows: Sequence[Transform]) -> Transforms:
        """The transforms ``rows`` hold."""
        return Transforms(
            tuple((parent, child) for parent, child, _, _ in rows),
            np.array([xyz for _, _, xyz, _ in rows], dtype=np.float64).reshape(len(rows), 3),
            np.array([xyzw for _, _, _, xyzw in rows], dtype=np.float64).reshape(len(rows), 4),
        )

    @staticmethod
    def join(parts: Sequence[Transforms]) -> Transforms:
        """One after the other."""
        parts = [p for p in parts if len(p)]
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return NONE
        return Transforms(
            tuple(f for p in parts for f in p.frames),
            np.concatenate([p.translation for p in parts]),
            np.concatenate([p.rotation for p in parts]),
        )


#: No transform.
NONE = Transforms((), np.zeros((0, 3)), np.zeros((0, 4)))


class Playing(Protocol):
    """What the emitter reads of a playback session (:class:`~.session.PlaybackSession`)."""

    config: PlayerConfig
    motion: Motion
    scene: Kinematics | None
    clock: PlaybackClock
    sampler: FrameSampler

    def constant_root(self) -> tuple[FloatArray, FloatArray] | None: ...


#: Values (frames × movable joints × 7) up to which every frame's link transforms are computed ahead.
PRECOMPUTE_VALUES = 20_000_000


class LinkFrames:
    """A robot model's frames for one motion: fixed joints once, movable joints at any time.

    As robot_state_publisher makes them: one transform per joint, parent link → child
    link, named with ``prefix``. The movable joints' transforms of every frame of the
    motion are computed at once (vectorised) when they fit in :data:`PRECOMPUTE_VALUES`;
    a time between frames is computed from its interpolated joint values.

    Args:
        model: The robot model.
        motion: The motion played (single-valued joints drive the model's joints).
        prefix: Put before every link name.
        log: Where the joints that model and motion do not share are said.
        precompute: Compute every frame's transforms now (else each is computed when asked for).
    """

    def __init__(
        self, model: RobotModel, motion: Motion, prefix: str, log: Log = silent, precompute: bool = True
    ) -> None:
        starts = np.concatenate([[0], np.cumsum(motion.joint_dims)[:-1]]).astype(int)
        joints = zip(motion.joint_names, motion.joint_dims, starts, strict=True)
        single = [(name, int(col)) for name, dim, col in joints if dim == 1]  # what a model's joint takes
        self.model = model
        self.prefix = prefix
        self.names = [name for name, _ in single]
        self.columns = np.array([col for _, col in single], dtype=int)
        self.times = motion.times
        values = motion.position[:, self.columns] if motion.position is not None else None
        first = values[:1] if values is not None else np.zeros((1, len(self.names)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            static, moving = model.joint_transforms(self.names, first, prefix)
        for w in caught:
            log("warning", str(w.message))
        self.static: list[StaticTransform] = static
        #: (parent, child) of every movable joint, in the order :meth:`pose_at` gives them.
        self.frames: tuple[tuple[str, str], ...] = tuple((mt.parent, mt.child) for mt in moving)
        self._table: tuple[FloatArray, FloatArray] | None = None  # (N, L, 3), (N, L, 4)
        if precompute and values is not None and motion.num_frames * len(moving) * 7 <= PRECOMPUTE_VALUES:
            self._table = _stacked(model.joint_transforms(self.names, values, prefix, warn=False)[1], len(self.times))

    def at(self, t: float, position: FloatArray | None) -> list[Transform]:
        """(parent, child, translation, rotation x y z w) of every movable joint at motion time ``t``.

        ``position`` is the motion's joint values at ``t`` (its columns).
        """
        return self.pose_at(t, position).rows()

    def pose_at(self, t: float, position: FloatArray | None) -> Transforms:
        """Every movable joint's transform at motion time ``t`` (``position``: the motion's values there)."""
        table = self._table
        if table is not None:
            i = int(np.searchsorted(self.times, t))
            for k in (i, i - 1):
                if 0 <= k < len(self.times) and abs(float(self.times[k]) - t) <= 1e-9:
                    return Transforms(self.frames, table[0][k], table[1][k])
        values = position[self.columns] if position is not None else np.zeros(len(self.names))
        moving = self.model.joint_transforms(self.names, values[None, :], self.prefix, warn=False)[1]
        return Transforms(self.frames, *(a[0] for a in _stacked(moving, 1)))


def _stacked(moving: Sequence[MovingTransform], frames: int) -> tuple[FloatArray, FloatArray]:
    """(N, L, 3) translations and (N, L, 4) rotations of L moving transforms at N frames."""
    translation = np.empty((frames, len(moving), 3))
    rotation = np.empty((frames, len(moving), 4))
    for j, mt in enumerate(moving):
        translation[:, j] = mt.translation
        rotation[:, j] = mt.rotation
    return translation, rotation


@dataclasses.dataclass(frozen=True)
class Tick:
    """What goes out at one tick of the stream.

    Attributes:
        time: The motion time shown.
        played: Motion seconds played (never moves back: what ``/clock`` follows).
        finished: A non-looping motion has reached its end.
        position, velocity, effort: The joint values (the motion's columns), or None.
        transforms: Every moving transform at ``time`` (the same frames at every tick).
    """

    time: float
    played: float
    finished: bool
    position: FloatArray | None
    velocity: FloatArray | None
    effort: FloatArray | None
    transforms: Transforms


class Emitter:
    """A session's stream as plain data: :meth:`at` gives the tick at an elapsed time.

    Args:
        session: The playback session (its clock, sampler and motion are read at each tick,
            so a session prepared again is followed).
        link_frames: The robot model's frames (``publish_link_tf``), or None.
    """

    def __init__(self, session: Playing, link_frames: LinkFrames | None = None) -> None:
        config = session.config
        self.session = session
        self.link_frames = link_frames
        self.prefix = config.frame_prefix
        self.world_frame = config.world_frame
        self.root_frame = config.frame_prefix + config.root_frame
        self.stored_links = [config.frame_prefix + name for name in session.motion.link_names]
        self.publish_links = config.publish_links and bool(self.stored_links)
        self._stored_frames = tuple((self.world_frame, child) for child in self.stored_links)
        self.static_root = None if session.scene is not None else session.constant_root()

    def frame(self, name: str) -> str:
        """A scene frame with the frame prefix (the world frame keeps its name)."""
        return name if name == self.world_frame else self.prefix + name

    @property
    def sends_joints(self) -> bool:
        m = self.session.motion
        return m.position is not None or m.velocity is not None or m.effort is not None

    def static_transforms(self) -> Transforms:
        """What never moves: the model's fixed joints, a root that never moves, a scene's static frames."""
        rows: list[Transform] = []
        if self.link_frames is not None:
            rows += [(t.parent, t.child, t.translation, t.rotation) for t in self.link_frames.static]
        if self.static_root is not None:  # a fixed-base arm
            rows.append((self.world_frame, self.root_frame, *self.static_root))
        scene = self.session.scene
        if scene is not None:
            rows += [
                (self.frame(t.parent), self.frame(t.child), t.translation, t.rotation)
                for t in scene.static_transforms()
            ]
        return Transforms.of(rows)

    def at(self, elapsed: float) -> Tick:
        """The tick at ``elapsed`` seconds of playback."""
        session = self.session
        t, played, finished = session.clock.state(elapsed)
        frame = session.sampler.frame(t)
        position = frame.get("position")
        return Tick(
            t,
            played,
            finished,
            position,
            frame.get("velocity"),
            frame.get("effort"),
            self.transforms(t, frame, position),
        )

    def transforms(self, t: float, frame: dict[str, FloatArray], position: FloatArray | None) -> Transforms:
        """Every moving transform at motion time ``t`` (``frame``: the sampler's values there)."""
        parts: list[Transforms] = []
        scene = self.session.scene
        if scene is not None:
            parts.append(
                Transforms.of(
                    [
                        (self.frame(mt.parent), self.frame(mt.child), mt.translation[0], mt.rotation[0])
                        for mt in scene.moving_transforms([t])
                    ]
                )
            )
        elif self.static_root is None and ("root_position" in frame or "root_orientation" in frame):
            parts.append(
                Transforms(
                    ((self.world_frame, self.root_frame),),
                    np.asarray(frame.get("root_position", ORIGIN), dtype=np.float64).reshape(1, 3),
                    np.asarray(frame.get("root_orientation", IDENTITY), dtype=np.float64).reshape(1, 4),
                )
            )
        if self.link_frames is not None:
            parts.append(self.link_frames.pose_at(t, position))
        if self.publish_links:
            count = len(self.stored_links)
            pos = frame.get("link.position")
            rot = frame.get("link.orientation")
            parts.append(
                Transforms(
                    self._stored_frames,
                    pos.reshape(count, 3) if pos is not None else np.zeros((count, 3)),
                    rot.reshape(count, 4) if rot is not None else np.tile(IDENTITY, (count, 1)),
                )
            )
        return Transforms.join(parts)
