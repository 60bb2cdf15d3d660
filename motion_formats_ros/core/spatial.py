"""Rotations and SE(3) value layouts (ROS-free, vectorised).

Quaternions in the model are x, y, z, w (ROS order). File formats lay poses out in
other ways; Choreonoid's ``SE3Format`` names three of them:

- ``XYZQWQXQYQZ``: position, then the quaternion w-first (Choreonoid's default);
- ``XYZQXQYQZQW``: position, then the quaternion x-first;
- ``XYZRPY``: position, then roll, pitch, yaw with R = Rz(yaw)·Ry(pitch)·Rx(roll).

Quaternion layouts are pure column permutations (exact, no normalisation); roll-pitch-yaw
becomes a quaternion as :class:`scipy.spatial.transform.Rotation` makes it, and back through it.
"""

from __future__ import annotations

import os

import numpy as np
import numpy.typing as npt

from .errors import ReadError
from .options import ChoiceEnum

FloatArray = npt.NDArray[np.float64]


class SE3Format(ChoiceEnum):
    """An SE(3) pose layout: position, then the quaternion (w first or last) or roll, pitch, yaw."""

    XYZQWQXQYQZ = "XYZQWQXQYQZ"
    XYZQXQYQZQW = "XYZQXQYQZQW"
    XYZRPY = "XYZRPY"


#: SE(3) layouts and the number of values each uses.
SE3_FORMATS: dict[str, int] = {
    SE3Format.XYZQWQXQYQZ.value: 7,
    SE3Format.XYZQXQYQZQW.value: 7,
    SE3Format.XYZRPY.value: 6,
}
DEFAULT_SE3_FORMAT = "XYZQWQXQYQZ"


def se3_width(fmt: str) -> int:
    """Values per pose in ``fmt``."""
    try:
        return SE3_FORMATS[fmt]
    except KeyError:
        raise ValueError(f"unknown SE3 format {fmt!r}; known: {', '.join(SE3_FORMATS)}") from None


def unit_rows(values: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Each row (last axis) divided by its length, and the lengths (``inf`` beyond the float range).

    Every row is scaled by its largest absolute entry before the length is taken, so no
    square overflows or underflows: any finite non-zero row (``1e300`` or ``1e-300`` times a
    unit vector) gives its direction. A row that is zero or has a non-finite entry gives
    NaN (and a length of 0, ``inf`` or NaN): it has no direction.
    """
    v = np.asarray(values, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        norm = np.linalg.norm(v, axis=-1, keepdims=True)
        plain = (norm > 1e-150) & (norm < 1e150)  # no square under- or overflowed: divided as it is
        scale = np.max(np.abs(v), axis=-1, keepdims=True, initial=0.0)
        ok = np.isfinite(scale) & (scale > 0)
        scaled = v / np.where(ok & ~plain, scale, 1.0)
        length = np.where(plain, norm, np.linalg.norm(scaled, axis=-1, keepdims=True))
        unit = np.where(ok, scaled / np.where(ok, length, 1.0), np.nan)
        norm = np.where(plain, norm, np.where(ok, scale * length, scale))[..., 0]
    return np.asarray(unit, dtype=np.float64), np.asarray(norm, dtype=np.float64)


def unit_quaternions(quat: npt.ArrayLike) -> FloatArray:
    """Quaternions (..., 4) scaled to length 1; a zero or non-finite one gives NaN (see :func:`unit_rows`)."""
    return unit_rows(quat)[0]


def no_rotation_rows(quat: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """Rows (..., 4) that are values but no rotation: all four zero, or a component infinite.

    A row with a NaN is an absent value (a pose a file does not state), not one of these.
    """
    q = np.asarray(quat, dtype=np.float64)
    absent = np.isnan(q).any(axis=-1)
    zero = np.all(q == 0.0, axis=-1)
    infinite = np.isinf(q).any(axis=-1)
    return np.asarray(~absent & (zero | infinite))


def require_rotations(
    quat: npt.ArrayLike | None,
    source: str | os.PathLike[str] | None,
    field: str,
    times: npt.ArrayLike | None = None,
) -> None:
    """Refuse quaternions (N, 4) x, y, z, w of which a row is no rotation (:func:`no_rotation_rows`).

    Raises:
        ReadError: Naming ``source``, the first such frame (and its time) and ``field``.
    """
    reason = no_rotation_reason(quat, times)
    if reason is not None:
        raise ReadError(source, reason, field=field)


def no_rotation_reason(quat: npt.ArrayLike | None, times: npt.ArrayLike | None = None) -> str | None:
    """Where and why quaternions (N, 4) x, y, z, w are no rotation (:func:`no_rotation_rows`); None if all are."""
    if quat is None:
        return None
    q = np.asarray(quat, dtype=np.float64).reshape(-1, 4)
    bad = np.flatnonzero(no_rotation_rows(q))
    if not bad.size:
        return None
    i = int(bad[0])
    at = f"frame {i}"
    if times is not None:
        at += f" (t = {float(np.asarray(times)[i]):.6g} s)"
    what = "all zero" if np.all(q[i] == 0.0) else "infinite"
    shown = ", ".join(repr(float(x)) for x in q[i])
    more = f" (and {bad.size - 1} more frame(s))" if bad.size > 1 else ""
    return f"at {at}, [{shown}] (x, y, z, w): {what}, no rotation{more}"


def rpy_to_quat(rpy: np.ndarray) -> FloatArray:
    """Roll, pitch, yaw (..., 3) → quaternions x, y, z, w (..., 4); R = Rz(y)·Ry(p)·Rx(r).

    The rotations about x, y and z as quaternions, composed z ⊗ (y ⊗ x) term by term as
    :class:`scipy.spatial.transform.Rotation` composes them (the same values to the last bit;
    scipy itself takes longer to import than a robot model takes to read). Rows with
    non-finite angles give NaN quaternions.
    """
    a = np.asarray(rpy, dtype=np.float64)
    flat = a.reshape(-1, 3)
    out = np.full((flat.shape[0], 4), np.nan)
    ok = np.all(np.isfinite(flat), axis=1)
    half = flat[ok] / 2.0
    sine, cosine = np.sin(half), np.cos(half)
    zero = np.zeros(half.shape[0])
    about_x = np.stack([sine[:, 0], zero, zero, cosine[:, 0]], axis=-1)
    about_y = np.stack([zero, sine[:, 1], zero, cosine[:, 1]], axis=-1)
    about_z = np.stack([zero, zero, sine[:, 2], cosine[:, 2]], axis=-1)
    out[ok] = _compose(about_z, _compose(about_y, about_x))
    return out.reshape((*a.shape[:-1], 4))


def _compose(p: FloatArray, q: FloatArray) -> FloatArray:
    """p ⊗ q of x, y, z, w quaternions (N, 4), in scipy's order of operations."""
    px, py, pz, pw = p.T
    qx, qy, qz, qw = q.T
    return np.stack(
        [
            pw * qx + qw * px + (py * qz - pz * qy),
            pw * qy + qw * py + (pz * qx - px * qz),
            pw * qz + qw * pz + (px * qy - py * qx),
            pw * qw - px * qx - py * qy - pz * qz,
        ],
        axis=-1,
    )


def quat_to_rpy(quat: np.ndarray) -> FloatArray:
    """Quaternions x, y, z, w (..., 4) → roll, pitch, yaw (..., 3) (inverse of :func:`rpy_to_quat`).

    Rows that are not finite or have zero norm give NaN angles.
    """
    q = np.asarray(quat, dtype=np.float64)
    flat = q.reshape(-1, 4)
    out = np.full((flat.shape[0], 3), np.nan)
    unit = unit_quaternions(flat)  # scipy's own normalisation overflows for components near 1e200
    ok = np.all(np.isfinite(unit), axis=1)
    if ok.any():
        from scipy.spatial.transform import Rotation

        out[ok] = Rotation.from_quat(unit[ok]).as_euler("xyz")
    return out.reshape((*q.shape[:-1], 3))


def se3_to_pose(values: np.ndarray, fmt: str = DEFAULT_SE3_FORMAT) -> tuple[FloatArray, FloatArray]:
    """SE(3) values (..., w) in ``fmt`` → positions (..., 3) and quaternions x, y, z, w (..., 4)."""
    width = se3_width(fmt)
    v = np.asarray(values, dtype=np.float64)
    if v.shape[-1] != width:
        raise ValueError(f"{fmt} poses have {width} values, got {v.shape[-1]}")
    position = v[..., 0:3].copy()
    if fmt == "XYZQWQXQYQZ":
        quat = v[..., [4, 5, 6, 3]]
    elif fmt == "XYZQXQYQZQW":
        quat = v[..., 3:7].copy()
    else:
        quat = rpy_to_quat(v[..., 3:6])
    return position, quat


def pose_to_se3(position: np.ndarray, quat: np.ndarray, fmt: str = DEFAULT_SE3_FORMAT) -> FloatArray:
    """Positions (..., 3) and quaternions x, y, z, w (..., 4) → SE(3) values (..., w) in ``fmt``."""
    se3_width(fmt)
    p = np.asarray(position, dtype=np.float64)
    q = np.asarray(quat, dtype=np.float64)
    if fmt == "XYZQWQXQYQZ":
        return np.concatenate([p, q[..., 3:4], q[..., 0:3]], axis=-1)
    if fmt == "XYZQXQYQZQW":
        return np.concatenate([p, q], axis=-1)
    return np.concatenate([p, quat_to_rpy(q)], axis=-1)


__all__ = [
    "DEFAULT_SE3_FORMAT",
    "SE3_FORMATS",
    "SE3Format",
    "no_rotation_reason",
    "no_rotation_rows",
    "pose_to_se3",
    "quat_to_matrix",
    "quat_to_rpy",
    "require_rotations",
    "rpy_to_quat",
    "se3_to_pose",
    "se3_width",
    "unit_quaternions",
    "unit_rows",
]


# --------------------------------------------------------------------------- quaternions, poses
def quat_multiply(a: np.ndarray, b: np.ndarray) -> FloatArray:
    """Hamilton product a ⊗ b of x, y, z, w quaternions (last axis)."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ],
        axis=-1,
    )


def quat_rotate(q: np.ndarray, v: np.ndarray) -> FloatArray:
    """Rotate vectors ``v`` (…, 3) by unit quaternions ``q`` (…, 4)."""
    u = q[..., :3]
    w = q[..., 3:4]
    t = 2.0 * np.cross(u, v)
    return np.asarray(v + w * t + np.cross(u, t))


def quat_to_matrix(q: np.ndarray) -> FloatArray:
    """Rotation matrices (…, 3, 3) of unit quaternions ``q`` (…, 4), x, y, z, w."""
    x, y, z, w = np.moveaxis(np.asarray(q, dtype=np.float64), -1, 0)
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def quat_conjugate(q: np.ndarray) -> FloatArray:
    return np.concatenate([-q[..., :3], q[..., 3:4]], axis=-1)


def compose(a: tuple[FloatArray, FloatArray], b: tuple[FloatArray, FloatArray]) -> tuple[FloatArray, FloatArray]:
    """T_a ∘ T_b for (translation, rotation) pairs."""
    return a[0] + quat_rotate(a[1], b[0]), quat_multiply(a[1], b[1])


def invert(a: tuple[FloatArray, FloatArray]) -> tuple[FloatArray, FloatArray]:
    qi = quat_conjugate(a[1])
    return -quat_rotate(qi, a[0]), qi
