"""``motion-formats plot``: the naming options of ``convert``, and axes with units."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros import Motion, MotionFile, write
from motion_formats_ros.cli import plot
from motion_formats_ros.core.examples import BIPED_JOINTS

pytest.importorskip("matplotlib", reason="plotting needs the 'plot' extra (matplotlib)")

ROOT = Path(__file__).resolve().parents[2]
EXE = Path(sys.executable).parent / "motion-formats"
WALK = ROOT / "examples" / "walk.seq"
BODY = ROOT / "examples" / "biped.body"


def _motion() -> Motion:
    t = np.arange(20) / 10.0
    q = np.column_stack([np.zeros(20), np.zeros(20), np.sin(t / 4), np.cos(t / 4)])
    return Motion(
        times=t,
        joint_names=("knee", "hip"),
        position=np.column_stack([np.sin(t), np.cos(t)]),
        velocity=np.column_stack([np.cos(t), -np.sin(t)]),
        acceleration=np.column_stack([-np.sin(t), -np.cos(t)]),
        effort=np.column_stack([t, -t]),
        temperature=np.full((20, 2), 40.0),
        joint_channels={"stiffness": np.full((20, 2), 0.5), "custom": np.ones((20, 2))},
        root_position=np.column_stack([t, 0 * t, 0 * t + 0.5]),
        root_orientation=q,
    )


def test_every_axis_names_its_unit() -> None:
    fig = plot.figure(_motion(), "t")
    try:
        axes = fig.get_axes()
        assert [ax.get_ylabel() for ax in axes] == [
            "joint position (rad)",
            "joint velocity (rad/s)",
            "joint acceleration (rad/s²)",
            "joint effort (N·m)",
            "joint temperature (°C)",
            "joint stiffness (0–1)",
            "joint custom",  # an extra channel of unknown unit says so by having none
            "root position (m)",
            "root rpy (rad)",
        ]
        assert axes[-1].get_xlabel() == "time (s)"
        assert [t.get_text() for t in axes[0].get_legend().get_texts()] == ["knee", "hip"]
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def _svg_texts(path: Path) -> set[str]:
    # Matplotlib's SVG backend writes every text as a comment before its glyphs.
    return set(re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8")))


def _plot(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), "plot", *args], capture_output=True, text=True, cwd=tmp_path)


def test_plot_of_a_seq_takes_the_body_file(tmp_path: Path) -> None:
    out = tmp_path / "walk.svg"
    proc = _plot(tmp_path, str(WALK), "-o", str(out), "--body", str(BODY))
    assert proc.returncode == 0, proc.stderr
    texts = _svg_texts(out)
    assert set(BIPED_JOINTS) <= texts
    assert {"joint position (rad)", "root position (m)", "root rpy (rad)", "time (s)"} <= texts
    # Without names the file's joints are numbered: the option is what named them.
    bare = tmp_path / "bare.svg"
    assert _plot(tmp_path, str(WALK), "-o", str(bare)).returncode == 0
    assert "joint_0" in _svg_texts(bare) and not set(BIPED_JOINTS) & _svg_texts(bare)


def test_plot_takes_joint_names_and_selects_by_them(tmp_path: Path) -> None:
    names = [f"j{i}" for i in range(len(BIPED_JOINTS))]
    out = tmp_path / "named.svg"
    proc = _plot(tmp_path, str(WALK), "-o", str(out), "--joint-names", ",".join(names), "--joints", "j3,j1")
    assert proc.returncode == 0, proc.stderr
    texts = _svg_texts(out)
    assert {"j3", "j1"} <= texts and not {"j0", "j2"} & texts


def test_plot_takes_a_joint_map(tmp_path: Path) -> None:
    jmap = tmp_path / "map.yaml"
    jmap.write_text("".join(f"{i}: mapped_{name}\n" for i, name in enumerate(BIPED_JOINTS)))
    out = tmp_path / "mapped.svg"
    proc = _plot(tmp_path, str(WALK), "-o", str(out), "--joint-map", str(jmap))
    assert proc.returncode == 0, proc.stderr
    assert {f"mapped_{n}" for n in BIPED_JOINTS} <= _svg_texts(out)


def test_plot_refuses_a_naming_option_the_format_does_not_take(tmp_path: Path) -> None:
    src = tmp_path / "m.msgpack"
    write(MotionFile.single(_motion()), src)
    proc = _plot(tmp_path, str(src), "-o", str(tmp_path / "m.png"), "--body", str(BODY))
    assert proc.returncode == 1
    assert "error: omf read option 'body' is not an option of this format; accepted: encoding" in proc.stderr
    assert not (tmp_path / "m.png").exists()


def _many(joints: int) -> Motion:
    t = np.arange(50) / 25.0
    q = np.column_stack([np.sin(t + k / 3) for k in range(joints)])
    return Motion(times=t, joint_names=tuple(f"limb_{k}_joint" for k in range(joints)), position=q)


@pytest.mark.parametrize("joints", [29, 26, 95])
def test_every_line_is_named_beside_the_axes_and_no_two_look_alike(joints: int) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    fig = plot.figure(_many(joints), "t")
    try:
        fig.canvas.draw()
        ax = fig.get_axes()[0]
        legend = ax.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == [f"limb_{k}_joint" for k in range(joints)]
        box, axes_box = legend.get_window_extent(), ax.get_window_extent()
        assert box.x0 >= axes_box.x1  # outside the axes: it covers no data
        assert box.y0 >= 0 and box.y1 <= fig.bbox.y1  # and fits in the figure
        looks = {(to_hex(line.get_color()), line.get_linestyle(), line.get_marker()) for line in ax.get_lines()}
        assert len(looks) == joints
    finally:
        plt.close(fig)


def test_plot_takes_the_image_as_a_second_argument_like_convert(tmp_path: Path) -> None:
    out = tmp_path / "walk.svg"
    proc = _plot(tmp_path, str(WALK), str(out), "--body", str(BODY))
    assert proc.returncode == 0, proc.stderr
    assert set(BIPED_JOINTS) <= _svg_texts(out)
    proc = _plot(tmp_path, str(WALK), "--body", str(BODY))
    assert proc.returncode == 2 and "give one image file" in proc.stderr


def test_a_group_name_that_is_no_file_name_is_refused_before_any_image(tmp_path: Path) -> None:
    """A group named ``../../evil_group`` would put its image two folders up: one line, no image at all."""
    motion = tmp_path / "in" / "two.omf.msgpack"
    motion.parent.mkdir()
    write(MotionFile(groups={"target": _motion(), "../../evil_group": _motion()}), motion)
    out_dir = tmp_path / "a" / "b"
    out_dir.mkdir(parents=True)
    proc = _plot(tmp_path, str(motion), "-o", str(out_dir / "out.png"))
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "'../../evil_group'" in lines[0], proc.stderr
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()) == [Path("in/two.omf.msgpack")]


def test_a_root_orientation_near_the_float_range_is_plotted_as_its_rotation(tmp_path: Path) -> None:
    """Quaternions of any finite length are rotations: drawn as the angles of their unit ones."""
    t = np.arange(5) / 10.0
    yaw = np.linspace(0.0, 1.0, 5)
    unit = np.column_stack([0 * t, 0 * t, np.sin(yaw / 2), np.cos(yaw / 2)])
    huge = unit / np.abs(unit).max(axis=1, keepdims=True) * 1.7e308
    motion = Motion(times=t, joint_names=("a",), position=np.zeros((5, 1)), root_orientation=huge)
    source = tmp_path / "huge.omf.msgpack"
    write(MotionFile.single(motion), source)
    proc = _plot(tmp_path, str(source), "-o", str(tmp_path / "huge.png"))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert (tmp_path / "huge.png").stat().st_size > 0
    fig = plot.figure(motion, "huge")
    yaw_line = next(line for line in fig.axes[-1].get_lines() if line.get_label() == "yaw")
    np.testing.assert_allclose(yaw_line.get_ydata(), yaw, atol=1e-12)
