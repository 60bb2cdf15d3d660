"""Generated and corpus .mof nets: undefined joint values, and a keyframe beyond a limit off the grid."""

from __future__ import annotations

from pathlib import Path

CORPUS_MOF = ["bhuman2009/standUpBackNao.mof", "bhuman2013/sitDown.mof", "bhuman2019/sitDown.mof"]


def generated_mof(folder: Path) -> Path:
    """A .mof whose joints are undefined (`*` keep, `-` off) at their start, middle and end.

    HeadYaw: `*` first, `-` in the middle, `*` last; HeadPitch: `-` first, `*` in the middle,
    `-` last; LShoulderPitch: `-` throughout; the other 19 joints: numbers.
    """
    columns = [
        ["*", "20", "-", "40", "*"],
        ["-", "10", "*", "30", "-"],
        ["-", "-", "-", "-", "-"],
    ]
    rows = []
    for r in range(5):
        tokens = [c[r] for c in columns] + [str(5 * r)] * 19
        rows.append(" ".join(tokens) + " 1 100")
    (folder / "extern.mof").write_text("motion_id = extern\nlabel start\ntransition allMotions extern start\n")
    path = folder / "gaps.mof"
    path.write_text("motion_id = gaps\nlabel start\n" + "\n".join(rows) + "\ntransition allMotions extern start\n")
    return path


#: The keyframe lines of the example wave (0-based line numbers of ``wave.mof``).
WAVE_RAISED, WAVE_PEAK, WAVE_LOWERED = 7, 8, 9


def wave_peak(folder: Path, head_yaw: float, first_dur: int) -> tuple[Path, Path]:
    """The example wave (``motion-formats example nao``) with HeadYaw at ``head_yaw`` degrees in its
    peak keyframe, reached ``first_dur`` ms after the keyframe before it (1000 ms to the next), and
    the example's URDF (HeadYaw within ±2.08 rad): ``(peak.mof, mini_nao.urdf)``."""
    from motion_formats_ros.cli.example import contents

    files = contents("nao")
    lines = files["wave.mof"].decode().splitlines()
    for number, dur in ((WAVE_RAISED, first_dur), (WAVE_PEAK, 1000), (WAVE_LOWERED, 1000)):
        fields = lines[number].split()
        fields[-1] = str(dur)
        if number == WAVE_PEAK:
            fields[0] = f"{head_yaw:g}"
        lines[number] = " ".join(fields)
    mof = folder / "peak.mof"
    mof.write_text("\n".join(lines) + "\n")
    urdf = folder / "mini_nao.urdf"
    urdf.write_bytes(files["mini_nao.urdf"])
    return mof, urdf
