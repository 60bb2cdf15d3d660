"""Plots of motion files (matplotlib, the ``plot`` extra): one figure per group.

One panel per joint channel, then the root position and orientation, against time;
every axis names its quantity and unit (the model's SI units: joint positions in rad
— m for a prismatic joint —, velocities in rad/s, the root in m and rad, time in s).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.atomic import check_writable, write_bytes_atomic
from ..core.errors import require
from ..core.model import Motion, MotionFile


def _pyplot() -> Any:
    matplotlib = require("matplotlib", "plot", package="matplotlib", extra="plot", rosdep_key="python3-matplotlib")
    matplotlib.use("Agg")
    return require("matplotlib.pyplot", "plot", package="matplotlib", extra="plot", rosdep_key="python3-matplotlib")


#: Unit of each standard joint channel (the model's SI units).
CHANNEL_UNITS = {
    "position": "rad",
    "velocity": "rad/s",
    "acceleration": "rad/s²",
    "effort": "N·m",
    "temperature": "°C",
}
#: Units of extra joint channels the codecs produce.
EXTRA_UNITS = {"stiffness": "0–1"}


def channel_label(name: str) -> str:
    """The y-axis label of a joint channel: ``joint position (rad)``; extras without a known unit by name only."""
    unit = CHANNEL_UNITS.get(name) or EXTRA_UNITS.get(name)
    return f"joint {name} ({unit})" if unit else f"joint {name}"


def figure(m: Motion, title: str, joints: Sequence[str] | None = None) -> Any:
    """The matplotlib figure of one motion (one panel per channel, the root, against time)."""
    plt = _pyplot()
    if joints:
        m = m.select_joints(joints)
    channels = [(name, values) for name, values in m.channels().items()]
    panels = len(channels) + (m.root_position is not None) + (m.root_orientation is not None)
    panels = max(panels, 1)
    fig, axes = plt.subplots(panels, 1, figsize=(11, 2.6 * panels + 0.6), sharex=True, squeeze=False)
    axes = axes[:, 0]
    t = m.times
    labels = [
        name if dim == 1 else f"{name}[{k}]"
        for name, dim in zip(m.joint_names, m.joint_dims, strict=True)
        for k in range(dim)
    ]
    i = 0
    for name, values in channels:
        ax = axes[i]
        for col in range(values.shape[1]):
            ax.plot(t, values[:, col], label=labels[col], linewidth=1)
        ax.set_ylabel(channel_label(name))
        if values.shape[1] <= 24:
            ax.legend(fontsize=6, ncol=4, loc="upper right")
        i += 1
    if m.root_position is not None:
        for col, axis in enumerate("xyz"):
            axes[i].plot(t, m.root_position[:, col], label=axis)
        axes[i].set_ylabel("root position (m)")
        axes[i].legend(fontsize=7, loc="upper right")
        i += 1
    if m.root_orientation is not None:
        from scipy.spatial.transform import Rotation

        q = m.root_orientation
        ok = np.all(np.isfinite(q), axis=1) & (np.linalg.norm(q, axis=1) > 1e-9)
        rpy = np.full((q.shape[0], 3), np.nan)
        if ok.any():
            rpy[ok] = np.unwrap(Rotation.from_quat(q[ok]).as_euler("xyz"), axis=0)
        for col, axis in enumerate(("roll", "pitch", "yaw")):
            axes[i].plot(t, rpy[:, col], label=axis)
        axes[i].set_ylabel("root rpy (rad)")
        axes[i].legend(fontsize=7, loc="upper right")
        i += 1
    if i == 0:
        axes[0].text(0.5, 0.5, "no joint or root data", ha="center", transform=axes[0].transAxes)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_file(
    motion_file: MotionFile,
    output: Path,
    joints: Sequence[str] | None = None,
    group: str | None = None,
    overwrite: bool = False,
) -> list[Path]:
    """Write one image per group (``out.png``, or ``out-<group>.png`` for several)."""
    plt = _pyplot()
    groups = {group: motion_file.group(group)} if group else motion_file.groups
    outputs = []
    for name, m in groups.items():
        path = output if len(groups) == 1 else output.with_name(f"{output.stem}-{name}{output.suffix}")
        check_writable(path, overwrite)
        title = f"{Path(motion_file.source or '').name} — {name}"
        fig = figure(m, title, joints)
        buf = io.BytesIO()
        fig.savefig(buf, format=(path.suffix.lstrip(".") or "png"), dpi=110)
        plt.close(fig)
        write_bytes_atomic(path, buf.getvalue(), overwrite)
        outputs.append(path)
    return outputs
