"""Generated and corpus .mof nets for the tests of undefined joint values."""

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
