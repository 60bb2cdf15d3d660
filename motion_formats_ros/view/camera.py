"""Where the page's camera stands: the robot framed whole, from the front, the side or above.

The robot faces +x (the ROS convention), z is up. A view looks from a direction at a
sphere around what is framed (every pose of the motion), far enough that the sphere fits
the part of the page left of the control panel, which floats over the view's right side:
the camera turns a little to the right of the sphere's centre so that the centre shows in
the middle of that part.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Directions from the framed centre to the camera (normalized when used).
VIEWS: dict[str, tuple[float, float, float]] = {
    "front": (1.0, 0.0, 0.15),
    "side": (0.0, -1.0, 0.15),  # the robot's right side
    "top": (-0.02, 0.0, 1.0),  # a little from behind: the robot's front is up on the screen
    "fit": (0.9, -1.1, 0.5),
}
#: viser's camera opening (vertical field of view) unless the page says otherwise.
DEFAULT_FOV = 75.0 * math.pi / 180.0
#: The framed sphere's radius never below this (m): a point still gets a view.
MIN_RADIUS = 0.1
#: Room around the framed sphere (a fraction of its radius): meshes reach beyond link origins.
MARGIN = 1.6
#: How far the page's control panel reaches in from the view's right edge (px: its 20em and margin).
PANEL_PX = 340
#: The page's size (px) assumed until a page says its own.
DEFAULT_PAGE = (1280, 800)
#: The part of the view left of the panel is taken as at least this fraction of its width.
MIN_VISIBLE = 0.35


def framing(points: FloatArray) -> tuple[FloatArray, float]:
    """Centre and radius of a sphere around ``points`` (N, 3) (NaN rows ignored)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    pts = pts[np.isfinite(pts).all(axis=1)]
    if not pts.size:
        return np.zeros(3), MIN_RADIUS
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    centre = (lo + hi) / 2
    return centre, max(float(np.linalg.norm(hi - lo)) / 2, MIN_RADIUS)


def view_from(
    centre: FloatArray,
    radius: float,
    direction: tuple[float, float, float],
    fov: float = DEFAULT_FOV,
    size: tuple[int, int] | None = None,
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(camera position, look-at point) seeing a sphere of ``radius`` around ``centre`` whole, left of the panel.

    ``fov`` is the vertical opening (rad), ``size`` the page's width and height in pixels.
    """
    width, height = size if size is not None and min(size) > 0 else DEFAULT_PAGE
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    tan_v = math.tan(min(max(fov, 0.1), 3.0) / 2)
    tan_h = tan_v * width / height
    visible = max(width - PANEL_PX, MIN_VISIBLE * width) / width
    fits = min(tan_h * visible, tan_v)  # half the visible part's width, or half its height
    distance = MARGIN * radius / math.sin(math.atan(fits))
    # The visible part's middle is tan_h * (1 - visible) left of the view's: look that far right.
    right = np.cross(-d, (0.0, 0.0, 1.0))
    right = right / np.linalg.norm(right) if np.linalg.norm(right) > 1e-9 else np.array([0.0, -1.0, 0.0])
    look_at = np.asarray(centre, dtype=np.float64) + right * tan_h * (1 - visible) * distance
    position = look_at + distance * d
    return (
        (float(position[0]), float(position[1]), float(position[2])),
        (float(look_at[0]), float(look_at[1]), float(look_at[2])),
    )


__all__ = ["VIEWS", "framing", "view_from"]
