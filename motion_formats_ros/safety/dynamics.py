"""Centre of mass and ZMP of a floating-base robot from its links' motion, and the support polygon.

The ZMP follows from the whole body's momentum (every link's mass, centre of mass and
inertia; the rates are taken from the motion's frames by second-order finite
differences). With gravity g = (0, 0, -9.81) m/s², the ground must supply the force
``f = dP/dt - M g`` and, about the world origin, the moment
``τ = dL/dt - M c × g``, where ``P = M dc/dt`` is the linear momentum, ``c`` the centre
of mass and ``L = Σ m_i c_i × v_i + R_i I_i R_iᵀ ω_i`` the angular momentum about the
origin. The ZMP is the point of the ground plane (z = 0) about which that moment has no
horizontal part: ``x = -τ_y / f_z``, ``y = τ_x / f_z`` (undefined where ``f_z ≤ 0``:
the robot would not press on the ground).

The support polygon of a frame is the convex hull of the points of the collision shapes
that are within a contact height of the ground; the ZMP's distance outside it is
measured along 32 directions (its distance to the hull's supporting lines, at least
99.5 % of the true distance).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..core.kinematics import RobotModel
from ..core.spatial import quat_to_matrix
from ..core.timing import derivative
from .findings import BeyondFloatRangeError, first_overflow
from .shapes import Shape

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

GRAVITY = 9.81
#: Directions the distance outside the support polygon is measured along.
_DIRECTIONS = 32
#: Frames evaluated together for the centre of mass and the support polygon (bounded memory:
#: frames × links × 9 rotation values).
CHUNK = 1024
#: The most frames × directions × points the support polygon's distances are measured over at once.
_SUPPORT_VALUES = 1 << 21


@dataclasses.dataclass(frozen=True)
class Masses:
    """The links that have mass: indices into the model's links, masses, centres and inertias (link frame)."""

    index: npt.NDArray[np.intp]
    mass: FloatArray
    com: FloatArray
    inertia: FloatArray

    @classmethod
    def of(cls, model: RobotModel) -> Masses:
        rows = [(i, link.inertial) for i, link in enumerate(model.links) if link.inertial and link.inertial.mass > 0]
        return cls(
            np.array([i for i, _ in rows], dtype=np.intp),
            np.array([float(x.mass) for _, x in rows]),
            np.array([x.com for _, x in rows]).reshape(-1, 3),
            np.array([x.inertia for _, x in rows]).reshape(-1, 3, 3),
        )

    @property
    def total(self) -> float:
        return float(self.mass.sum())


def centre_of_mass(masses: Masses, rotation: FloatArray, translation: FloatArray) -> FloatArray:
    """(N, 3) centre of mass in the world frame from link rotations (N, L, 3, 3) and translations (N, L, 3)."""
    centres = translation[:, masses.index] + np.einsum("nkij,kj->nki", rotation[:, masses.index], masses.com)
    return np.asarray(np.einsum("nki,k->ni", centres, masses.mass) / masses.total)


def _angular_velocity(quat: FloatArray, times: FloatArray) -> FloatArray:
    """World-frame angular velocity (N, 3) of unit quaternions (N, 4) x, y, z, w: ω = 2 (dq/dt ⊗ q*)."""
    q = quat.copy()
    flip = np.cumsum(np.concatenate([[0], (np.einsum("ni,ni->n", q[1:], q[:-1]) < 0).astype(int)])) % 2 == 1
    q[flip] *= -1  # a continuous sign, so that the differences are small
    dq = derivative(q, times)
    x, y, z, w = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    dx, dy, dz, dw = dq[:, 0], dq[:, 1], dq[:, 2], dq[:, 3]
    # vector part of dq ⊗ conj(q)
    return 2 * np.column_stack(
        [
            -dw * x + dx * w - dy * z + dz * y,
            -dw * y + dy * w - dz * x + dx * z,
            -dw * z + dz * w - dx * y + dy * x,
        ]
    )


def zmp(
    masses: Masses, quaternion: FloatArray, translation: FloatArray, times: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Centre of mass (N, 3) and ZMP (N, 2) on the ground plane (NaN where the ground is not pressed).

    The links' rotation matrices are made a link (or :data:`CHUNK` frames) at a time, never for
    every link at every frame at once (60 s of a humanoid at 500 Hz would hold 130 MB of them).

    Args:
        quaternion, translation: The links' poses ((N, L, 4) x, y, z, w; (N, L, 3)).
        times: (N,) seconds.

    Raises:
        BeyondFloatRangeError: The centre of mass, the ground's reaction or the ZMP of a frame
            whose link poses are finite is beyond the float range (links near ±1e308 m): the
            first such frame, without the motion's file (the caller knows it).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # overflows are found below
        com, force, moment = _momentum(masses, quaternion, translation, times)
        pressed = force[:, 2] > 1e-9
        fz = np.where(pressed, force[:, 2], 1.0)
        point = np.column_stack([-moment[:, 1] / fz, moment[:, 0] / fz])
    finite = np.asarray(np.isfinite(translation).all(axis=(1, 2)) & np.isfinite(quaternion).all(axis=(1, 2)))
    for what, values, reach in (
        ("the centre of mass", com, 0),
        ("the ground's reaction (the rate of change of the momentum)", np.column_stack([force, moment]), 2),
        ("the ZMP", np.where(pressed[:, None], point, 0.0), 2),
    ):
        frame = first_overflow(values, finite, reach)
        if frame is not None:
            raise BeyondFloatRangeError(what, frame, float(times[frame]))
    point[~pressed] = np.nan
    return com, point


def _momentum(
    masses: Masses, quaternion: FloatArray, translation: FloatArray, times: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Centre of mass (N, 3), and the force (N, 3) and moment about the origin (N, 3) the ground must supply."""
    n = times.size
    com = np.concatenate(
        [
            centre_of_mass(masses, quat_to_matrix(quaternion[lo : lo + CHUNK]), translation[lo : lo + CHUNK])
            for lo in range(0, n, CHUNK)
        ]
    ).reshape(n, 3)
    total = masses.total
    momentum_rate = total * derivative(derivative(com, times), times)
    angular = np.zeros_like(com)
    for k, link in enumerate(masses.index.tolist()):
        r = quat_to_matrix(quaternion[:, link])
        c = translation[:, link] + r @ masses.com[k]
        v = derivative(c, times)
        omega = _angular_velocity(quaternion[:, link], times)
        local = np.einsum("nji,nj->ni", r, omega)  # Rᵀ ω
        spin = np.einsum("nij,nj->ni", r, local @ masses.inertia[k].T)  # R I Rᵀ ω
        angular += masses.mass[k] * np.cross(c, v) + spin
    angular_rate = derivative(angular, times)
    g = np.array([0.0, 0.0, -GRAVITY])
    force = momentum_rate - total * g
    moment = angular_rate - total * np.cross(com, g)
    return com, force, moment


def support_distance(
    shapes: Sequence[Shape],
    rotation: FloatArray,
    translation: FloatArray,
    point: FloatArray,
    contact_height: float,
    lowest: FloatArray,
    polygons: list[FloatArray] | None = None,
) -> tuple[FloatArray, BoolArray]:
    """How far (m) each frame's ``point`` (N, 2) lies outside the support polygon (≤ 0: inside), and
    which frames have ground contact at all.

    Args:
        shapes: The collision shapes; ``rotation`` (N, S, 3, 3) and ``translation`` (N, S, 3) their poses.
        contact_height: Points of the shapes below this height (m) touch the ground.
        lowest: (N, S) the height of each shape's lowest point (only shapes that come this low take part).
        polygons: When given, each frame's support polygon is appended to it: (K, 2) x, y
            vertices counter-clockwise ((0, 2) without ground contact).
    """
    n = point.shape[0]
    outside = np.full(n, np.nan)
    touching = np.zeros(n, dtype=bool)
    angles = np.linspace(0.0, 2 * np.pi, _DIRECTIONS, endpoint=False)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])  # (D, 2)
    points = sum(s.support_points().shape[0] for s in shapes)
    rows = max(1, min(CHUNK, _SUPPORT_VALUES // max(1, points * _DIRECTIONS)))
    for lo in range(0, n, rows):
        hi = min(n, lo + rows)
        low = np.flatnonzero((lowest[lo:hi] < contact_height).any(axis=0)).tolist()
        if not low:
            if polygons is not None:
                polygons.extend(np.zeros((0, 2)) for _ in range(hi - lo))
            continue
        # Each point's height and its reach along every direction (one matrix product per shape).
        heights = np.concatenate(
            [translation[lo:hi, s, 2, None] + rotation[lo:hi, s, 2, :] @ shapes[s].support_points().T for s in low],
            axis=1,
        )  # (n, V)
        flat = np.concatenate(
            [
                translation[lo:hi, s, None, :2]
                + np.swapaxes(rotation[lo:hi, s, :2, :] @ shapes[s].support_points().T, 1, 2)
                for s in low
            ],
            axis=1,
        )  # (n, V, 2)
        ground = heights < contact_height
        reach = np.where(ground[:, :, None], flat @ directions.T, -np.inf).max(axis=1)  # support function (n, D)
        along = point[lo:hi] @ directions.T  # (n, D)
        has = ground.any(axis=1)
        touching[lo:hi] = has
        with np.errstate(invalid="ignore"):
            dist = (along - reach).max(axis=1)
        outside[lo:hi] = np.where(has, dist, np.nan)
        if polygons is not None:
            polygons.extend(_hull_2d(flat[k, ground[k]]) for k in range(hi - lo))
    return outside, touching


def _hull_2d(points: FloatArray) -> FloatArray:
    """The convex polygon (K, 2), counter-clockwise, of 2-D points (the points themselves when flat)."""
    from scipy.spatial import ConvexHull, QhullError

    if points.shape[0] < 3:
        return np.asarray(points, dtype=np.float64)
    try:
        return np.asarray(points[ConvexHull(points).vertices], dtype=np.float64)
    except (QhullError, ValueError):
        return np.asarray(points, dtype=np.float64)


__all__ = ["GRAVITY", "Masses", "centre_of_mass", "support_distance", "zmp"]
