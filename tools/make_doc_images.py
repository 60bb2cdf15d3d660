"""(Re)draw the manual's pictures that are not screenshots: a plot of the example walk and
the package's layers.

    .venv/bin/python tools/make_doc_images.py

The viewer screenshots (doc/images/view_*.png) come from the browser tests of the viewer.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "doc" / "images"

#: The layers, top to bottom, with what each holds (the import rule: arrows point down only).
LAYERS = [
    ("cli/", "motion-formats commands", "ros/", "player and recorder nodes (rclpy)"),
    ("__init__", "read, write, view: the public API", None, None),
    ("view/", "the browser viewer, driven by the playback clock and sampler", None, None),
    (
        "pipeline/",
        "convert, batch",
        "playback/ recording/ safety/ simulation/",
        "playing (ROS-free); the journal; the check; physics",
    ),
    ("registry", "the codec map, detection, read(), write(), option checks", None, None),
    ("codecs/", "seq, pseq, omf, scene, mof, mtn, rosbag, tables: one unit each, never each other", None, None),
    ("core/", "model, errors, notices, options, timing, TF, kinematics, serial fast paths", None, None),
]


def draw_plot(out: Path) -> None:
    from motion_formats_ros.cli.main import main

    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "walk.png"
        joints = "left_hip_pitch,left_knee,left_ankle_pitch,right_hip_pitch,right_knee,right_ankle_pitch"
        walk, body = str(ROOT / "examples" / "walk.seq"), str(ROOT / "examples" / "biped.body")
        status = main(["plot", walk, "--body", body, "--joints", joints, "-o", str(png)])
        if status != 0:
            raise SystemExit(status)
        produced = sorted(Path(tmp).glob("*.png"))
        out.write_bytes(produced[0].read_bytes())


def draw_layers(out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    fig, ax = plt.subplots(figsize=(9, 7.2))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, len(LAYERS) * 1.2)
    ax.axis("off")
    colours = ["#dbe9f6", "#e8f1e4", "#d9f0ee", "#fdf2d0", "#f6e0dc", "#e9e1f3", "#e0e0e0"]
    for i, (name, text, name2, text2) in enumerate(LAYERS):
        y = (len(LAYERS) - 1 - i) * 1.2 + 0.15
        boxes = [(0.2, 9.6, name, text)] if name2 is None else [(0.2, 4.65, name, text), (5.15, 4.65, name2, text2)]
        for x, width, title, body in boxes:
            ax.add_patch(FancyBboxPatch((x, y), width, 0.85, boxstyle="round,pad=0.02", fc=colours[i], ec="#555555"))
            ax.text(x + 0.15, y + 0.55, title, fontsize=11, fontweight="bold", family="monospace", va="center")
            ax.text(x + 0.15, y + 0.22, body, fontsize=8.5, va="center")
        if i < len(LAYERS) - 1:
            ax.annotate(
                "", xy=(5.0, y - 0.33), xytext=(5.0, y + 0.02), arrowprops={"arrowstyle": "->", "color": "#333333"}
            )
    ax.set_title("motion_formats_ros: layers (imports point down only)", fontsize=12)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main() -> int:
    IMAGES.mkdir(parents=True, exist_ok=True)
    draw_plot(IMAGES / "plot_walk.png")
    draw_layers(IMAGES / "architecture.png")
    for name in ("plot_walk.png", "architecture.png"):
        print(f"wrote {IMAGES / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
