"""A motion played on a physical model of its robot (MuJoCo, the ``sim`` extra).

- :mod:`.builder`: the package's robot model built into MuJoCo (bodies, joints, masses,
  collision shapes, mimic constraints, a floor, one PD servo per driven joint);
- :mod:`.gains`: servo gains from a ros2_control gains file, ``--kp/--kd`` or a default;
- :mod:`.physics`: the loop: controls set in bulk, MuJoCo steps in C, results per chunk;
- :mod:`.report`: the findings (falls, effort limits), tracking and effort per joint;
- :mod:`.simulate`: :func:`simulate`, the one call that does it all.
"""

from __future__ import annotations

from .report import JointStats, SimulationReport
from .simulate import Simulation, simulate

__all__ = ["JointStats", "Simulation", "SimulationReport", "simulate"]
