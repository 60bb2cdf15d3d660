"""A motion checked on its robot model before it reaches hardware (ROS-free).

:func:`check` (and :class:`Checker`, a model prepared once for many motions) finds
self-collisions (an SRDF's disabled pairs left out), collision geometry below the
ground, a ZMP outside the support polygon (floating-base robots, from the links' masses
and inertias) and joint position, velocity, acceleration, jerk and effort limits exceeded; each
:class:`Finding` carries the intervals of motion time where it holds. Used by
``motion-formats check``, the player and the viewer.

- :mod:`.check`: the check;
- :mod:`.frames`: the frames a motion is judged at (its keyframes always; ``check``, the player and the viewer);
- :mod:`.findings`: findings, intervals and the report;
- :mod:`.shapes`, :mod:`.pairs`, :mod:`.collide`: collision shapes, the pairs checked, coal;
- :mod:`.dynamics`: centre of mass, ZMP and the support polygon;
- :mod:`.limits`: a motion judged against its joint limits (:mod:`..core.joint_limits`):
  the findings ``check`` reports and the player's refusal;
- :mod:`.gate`: the player's check before playing (refuse collisions, warn of balance).
"""

from __future__ import annotations

from .check import DEFAULT_RATE, Checker, balance_series, check
from .findings import KINDS, BalanceSeries, CheckReport, Finding

__all__ = [
    "DEFAULT_RATE",
    "KINDS",
    "BalanceSeries",
    "CheckReport",
    "Checker",
    "Finding",
    "balance_series",
    "check",
]
