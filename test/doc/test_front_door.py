"""The README is a short front door whose Python example runs; nothing points outside the repository."""

from __future__ import annotations

import re
import shutil
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_is_short_and_starts_with_what_a_user_needs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 150
    first_two_screens = "\n".join(lines[:100])
    for needed in (
        "pip install",
        "motion-formats convert",
        "ros2 launch motion_formats_ros play.launch.py",
        "from motion_formats_ros import",
    ):
        assert needed in first_two_screens, needed
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (ROOT / image).is_file(), image
    for link in re.findall(r"\]\((doc/[^)#]+)", text):
        assert (ROOT / link).exists(), link


def test_the_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process, without the viewer's lines (test_quick_start runs the whole example, viewer included)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    (tmp_path / "examples").mkdir()
    for name in ("walk.seq", "biped.body"):
        shutil.copy(ROOT / "examples" / name, tmp_path / "examples" / name)
    monkeypatch.chdir(tmp_path)
    source = "\n".join(line for line in code.group(1).splitlines() if "viewer" not in line)
    namespace: dict[str, object] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(source, "README.md", "exec"), namespace)
        exec(compile(source, "README.md", "exec"), namespace)  # twice: the output is replaced, as the example says
    assert not [str(w.message) for w in caught if "not in the model" in str(w.message)]  # joints named by the body
    assert (tmp_path / "walk.msgpack").is_file()
    legs = namespace["legs"]
    assert list(legs.joint_names) == ["left_knee", "right_knee"]  # type: ignore[attr-defined]


OUTSIDE = re.compile(r"shared[/]specs|\bissues?[ ]#?[0-9]+")  # spec files or numbered issues


def test_code_tests_and_docs_point_at_nothing_a_user_lacks() -> None:
    offenders = []
    folders = [
        ROOT / "motion_formats_ros",
        ROOT / "test",
        ROOT / "doc",
        ROOT / "bench",
        ROOT / "tools",
        ROOT / "launch",
        ROOT / "config",
    ]
    files = [ROOT / "README.md", ROOT / "CHANGELOG.rst", ROOT / "package.xml", ROOT / "setup.py"]
    for folder in folders:
        files.extend(
            p
            for p in folder.rglob("*")
            if p.is_file()
            and "node_modules" not in p.parts
            and "_build" not in p.parts
            and p.suffix in {".py", ".md", ".rst", ".yaml", ".txt", ".xml"}
        )
    this = Path(__file__).resolve()
    for path in files:
        if path.resolve() == this:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not offenders, "\n".join(offenders[:50]) + f"\n({len(offenders)} in all)"


def test_versions_agree_and_the_changelog_has_this_release() -> None:
    import xml.etree.ElementTree as ET

    import motion_formats_ros

    package_xml = ET.parse(ROOT / "package.xml").getroot().findtext("version")
    setup_py = re.search(r'version="([^"]+)"', (ROOT / "setup.py").read_text())
    assert setup_py is not None
    changelog = (ROOT / "CHANGELOG.rst").read_text(encoding="utf-8")
    releases = re.findall(r"^(\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)\n-+$", changelog, re.M)
    assert package_xml == setup_py.group(1) == motion_formats_ros.__version__ == releases[0]
