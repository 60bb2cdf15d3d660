"""A motion played on a physical model of its robot (MuJoCo, the ``sim`` extra).

- :mod:`.builder`: the package's robot model built into MuJoCo (bodies, joints, masses,
  collision shapes, mimic constraints, a floor, one PD servo per driven joint);
- :mod:`.gains`: servo gains from a ros2_control gains file, ``--kp/--kd`` or a default;
- :mod:`.physics`: the loop: controls set in bulk, MuJoCo steps in C, results per chunk;
- :mod:`.summary`: the findings (falls, effort limits), tracking and effort per joint;
- :mod:`.preview`: :func:`simulate`, the one call that does it all.
"""

from __future__ import annotations

from .preview import Simulation, simulate
from .summary import JointStats, SimulationReport

__all__ = ["JointStats", "Simulation", "SimulationReport", "simulate"]
