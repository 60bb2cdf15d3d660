"""Plots of motion files (matplotlib, the ``plot`` extra): one figure per group.

One panel per joint channel, then the root position and orientation, against time;
every axis names its quantity and unit (the model's SI units: joint positions in rad
— m for a prismatic joint —, velocities in rad/s, the root in m and rad, time in s).
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.atomic import Inputs, check_group_names, check_output, write_bytes_atomic
from ..core.errors import MotionValueError, OutOfRangeError, WriteError, require, spelled
from ..core.model import Motion, MotionFile
from ..core.spatial import unit_quaternions
from ..pipeline.convert import select_joints


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


#: Colours of the joint curves (matplotlib's "tab20": ten hues, dark and light).
_COLOURS = 20
#: Line styles combined with the colours: solid for the first 20 curves, then dashed, dotted, dash-dotted.
_STYLES = ("-", "--", ":", "-.")
#: Markers added once every colour and style pair is taken (more than 80 curves in a panel).
_MARKERS = ("", "o", "s", "^", "v", "D", "x", "+")
#: The most names in one legend column; more curves take more columns.
LEGEND_ROWS = 30
#: Height of one legend row at the legend's font size (inches).
LEGEND_ROW_INCHES = 0.19


def line_style(index: int, count: int) -> dict[str, Any]:
    """Colour, line style and marker of curve ``index`` of ``count`` in one panel: no two alike.

    Up to ten curves: matplotlib's ten default colours, solid. Beyond: twenty colours, each
    with four line styles, then markers.
    """
    if count <= 10:
        return {"color": f"C{index}", "linestyle": "-"}
    import matplotlib

    colour = matplotlib.colormaps["tab20"](index % _COLOURS)
    style = _STYLES[(index // _COLOURS) % len(_STYLES)]
    marker = _MARKERS[(index // (_COLOURS * len(_STYLES))) % len(_MARKERS)]
    extra: dict[str, Any] = {"marker": marker, "markevery": 0.1, "markersize": 3} if marker else {}
    return {"color": colour, "linestyle": style, **extra}


def _legend_columns(count: int) -> int:
    return max(1, -(-count // LEGEND_ROWS))


def _legend_rows(count: int) -> int:
    return -(-count // _legend_columns(count))


def name_lines(ax: Any, count: int) -> None:
    """A legend naming every one of the panel's ``count`` curves, outside the axes on the right
    (never over the data), in as many columns as it needs."""
    if count:
        ax.legend(
            fontsize=7,
            ncol=_legend_columns(count),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            borderaxespad=0.0,
            handlelength=2.5,
        )


#: The largest magnitude a plotted time or value may have: far beyond any physical quantity,
#: and far below where matplotlib's axis arithmetic (a span, its margins, the tick steps) overflows.
PLOTTABLE = 1e300


def beyond_plot(m: Motion) -> str | None:
    """What of ``m`` no axis can be scaled to (a time or value beyond :data:`PLOTTABLE`), or None.

    The root orientation is not among them: it is drawn as angles of its unit quaternions
    (normalised whatever their length, :func:`~..core.spatial.unit_quaternions`).
    """
    arrays = [
        ("time", m.times),
        *((f"joint {name}", values) for name, values in m.channels().items()),
        ("root position", m.root_position),
    ]
    for label, values in arrays:
        if values is None or values.size == 0:
            continue
        finite = np.abs(values[np.isfinite(values)])
        if finite.size and finite.max() > PLOTTABLE:
            return f"{label} reaches {finite.max():g}, beyond the ±{PLOTTABLE:g} a plot's axis can be scaled to"
    return None


def figure(m: Motion, title: str) -> Any:
    """The matplotlib figure of one motion (one panel per channel, the root, against time)."""
    plt = _pyplot()
    channels = [(name, values) for name, values in m.channels().items()]
    panels = len(channels) + (m.root_position is not None) + (m.root_orientation is not None)
    panels = max(panels, 1)
    rows = max((_legend_rows(v.shape[1]) for _, v in channels), default=0)
    height = max(2.6, LEGEND_ROW_INCHES * rows + 0.5)  # each panel as tall as its legend
    fig, axes = plt.subplots(
        panels, 1, figsize=(11, height * panels + 0.6), sharex=True, squeeze=False, layout="constrained"
    )
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
            ax.plot(t, values[:, col], label=labels[col], linewidth=1, **line_style(col, values.shape[1]))
        ax.set_ylabel(channel_label(name))
        name_lines(ax, values.shape[1])
        i += 1
    if m.root_position is not None:
        for col, axis in enumerate("xyz"):
            axes[i].plot(t, m.root_position[:, col], label=axis)
        axes[i].set_ylabel("root position (m)")
        name_lines(axes[i], 3)
        i += 1
    if m.root_orientation is not None:
        from scipy.spatial.transform import Rotation

        q = unit_quaternions(m.root_orientation)  # scipy's own normalisation overflows near 1e200
        ok = np.all(np.isfinite(q), axis=1)
        rpy = np.full((q.shape[0], 3), np.nan)
        if ok.any():
            rpy[ok] = np.unwrap(Rotation.from_quat(q[ok]).as_euler("xyz"), axis=0)
        for col, axis in enumerate(("roll", "pitch", "yaw")):
            axes[i].plot(t, rpy[:, col], label=axis)
        axes[i].set_ylabel("root rpy (rad)")
        name_lines(axes[i], 3)
        i += 1
    if i == 0:
        axes[0].text(0.5, 0.5, "no joint or root data", ha="center", transform=axes[0].transAxes)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title)
    return fig


def image_format(path: Path) -> str:
    """The image format of ``path`` (its suffix; ``png`` without one).

    Raises:
        OutOfRangeError: matplotlib writes no such format.
    """
    _pyplot()
    from matplotlib.backend_bases import FigureCanvasBase

    fmt = path.suffix.lstrip(".").lower() or "png"
    known = FigureCanvasBase.get_supported_filetypes()
    if fmt not in known:
        raise OutOfRangeError(
            f"{spelled('output')} {str(path)!r}: .{fmt} is not an image format; "
            f"one of {', '.join('.' + k for k in sorted(known))}"
        )
    return fmt


def plot_file(
    motion_file: MotionFile,
    output: Path,
    joints: Sequence[str] | None = None,
    group: str | None = None,
    overwrite: bool = False,
    inputs: Inputs | Sequence[str | os.PathLike[str]] = (),
) -> list[Path]:
    """Write one image per group (``out.png``, or ``out-<group>.png`` for several).

    Every image is checked before the first is written: a group whose name cannot be part
    of a file name (``../x``) is refused (WriteError), none may be one of ``inputs`` (the
    plotted file, the files its options name) or hold one, and an existing one is replaced only with ``overwrite``.
    """
    plt = _pyplot()
    groups = {group: motion_file.group(group)} if group else motion_file.groups
    if joints:  # an unknown joint: one line naming the file
        groups = {name: select_joints(m, joints, motion_file) for name, m in groups.items()}
    image_format(output)
    if len(groups) > 1:
        problem = check_group_names(groups)
        if problem:
            raise WriteError(output, problem)
    paths = {
        name: output if len(groups) == 1 else output.with_name(f"{output.stem}-{name}{output.suffix}")
        for name in groups
    }
    for path in paths.values():
        check_output(path, inputs, overwrite, folder=False)
    for name, m in groups.items():
        problem = beyond_plot(m)
        if problem:
            raise MotionValueError(f"{motion_file.source or 'the motion'}: group {name}: {problem}")
    outputs = []
    for name, m in groups.items():
        path = paths[name]
        title = f"{Path(motion_file.source or '').name} — {name}"
        fig = figure(m, title)
        buf = io.BytesIO()
        fig.savefig(buf, format=image_format(path), dpi=110, bbox_inches="tight")  # the legends too
        plt.close(fig)
        write_bytes_atomic(path, buf.getvalue(), overwrite)
        outputs.append(path)
    return outputs
