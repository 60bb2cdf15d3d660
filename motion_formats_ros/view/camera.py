"""Where the page's camera stands: the robot framed whole, from the front, the side or above.

The robot faces +x (the ROS convention), z is up. A view looks at the centre of what is
framed from a direction, far enough that a sphere around it fills the view's height.
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
    centre: FloatArray, radius: float, direction: tuple[float, float, float], fov: float = DEFAULT_FOV
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(camera position, look-at point) seeing a sphere of ``radius`` around ``centre`` whole."""
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    distance = MARGIN * radius / math.sin(min(max(fov, 0.1), 3.0) / 2)
    position = np.asarray(centre, dtype=np.float64) + distance * d
    return (
        (float(position[0]), float(position[1]), float(position[2])),
        (float(centre[0]), float(centre[1]), float(centre[2])),
    )


__all__ = ["VIEWS", "framing", "view_from"]
