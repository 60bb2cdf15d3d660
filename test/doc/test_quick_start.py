"""The README's quick start and Python example run as written, line by line, in a fresh clone.

The clone is ``git clone`` of this checkout, with its uncommitted changes laid over it (in CI
the checkout is clean: a plain clone). The commands are this venv's entry points, found on
``PATH`` as a user's ``pip install`` puts them. The ``ros2 launch`` lines run where the ROS 2
command line is installed; where only the runtime is (this repository's venv), the play
line's node runs exactly as the launch file describes it, on the real middleware.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.launchutil import describe, launch_context, launch_nodes, node_command, real_launch_available
from support.rosutil import have_ros, ros_session

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _section(name: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {name}\n(.*?)(?=^## )", text, re.S | re.M)
    assert match is not None, name
    return match.group(1)


def quick_start() -> list[str]:
    """The commands of the quick start's shell block, one per line, comments dropped."""
    block = re.search(r"```sh\n(.*?)```", _section("Quick start"), re.S)
    assert block is not None
    lines = [" ".join(shlex.split(line, comments=True)) for line in block.group(1).splitlines()]
    return [line for line in lines if line]


def python_example() -> str:
    block = re.search(r"```python\n(.*?)```", _section("Python API"), re.S)
    assert block is not None
    return block.group(1)


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout to clone")
    dest = tmp_path_factory.mktemp("fresh") / "motion_formats_ros"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(dest)], check=True, timeout=300)
    changed = subprocess.run(
        ["git", "ls-files", "-z", "--modified", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (os.fsdecode(n) for n in changed)):
        source, target = ROOT / name, dest / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif not source.exists():
            target.unlink(missing_ok=True)  # deleted here, not yet committed
    return dest


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["BROWSER"] = "true"  # view opens no browser tab on the machine running the tests
    return env


def _serve_then_interrupt(args: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run a command that serves until Ctrl-C: wait for its address, then send SIGINT."""
    proc = subprocess.Popen(args, cwd=cwd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    seen: list[str] = []
    try:
        for line in proc.stdout:  # ends when the process does (then the assertion below says why)
            seen.append(line)
            if "http://" in line:
                break
        # A person presses Ctrl-C after reading the address, not within the microseconds in which
        # the script goes from printing it to wait(): a signal there is Python's own traceback.
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, "".join(seen) + out, err


def test_the_quick_start_uses_only_what_a_fresh_clone_has_or_makes() -> None:
    from motion_formats_ros.cli.example import EXAMPLES
    from motion_formats_ros.cli.main import build_parser

    #: Per command: (the attribute naming what it reads, the one naming what it writes).
    files = {
        "info": ("file", None),
        "check": ("input", None),
        "convert": ("input", "output"),
        "plot": ("file", "output"),
        "motion2bag": ("input", "bag"),
        "bag2motion": ("bag", "output"),
        "view": ("input", None),
    }
    lines = quick_start()
    made: set[str] = set()
    for line in lines:
        words = shlex.split(line)
        if words[0] != "motion-formats":
            continue
        args = build_parser().parse_args(words[1:])  # the line parses, as the command will parse it
        if args.command == "example":
            made.update(str(args.output_dir / name) for name in EXAMPLES[args.name])
            continue
        read, written = files[args.command]
        needed = [getattr(args, read), getattr(args, "urdf", None), getattr(args, "body", None)]
        for path in filter(None, needed):
            assert str(path) in made or (ROOT / path).exists(), f"{line}: {path} is neither in the repository nor made"
        if written:
            made.add(str(getattr(args, written)))
    for line in lines:
        if line.startswith("ros2 launch"):
            for word in line.split()[4:]:
                key, _, value = word.partition(":=")
                if "/" in value and key != "output":  # what the launch reads; the recorder's output is made
                    assert (ROOT / value).exists(), f"{line}: {value}"
    assert any("body_file:=" in line for line in lines if "play.launch.py" in line)


def _status(clone: Path) -> list[str]:
    """``git status --porcelain`` of the clone, every untracked file listed."""
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone, capture_output=True, text=True, check=True
    )
    return proc.stdout.splitlines()


def test_the_quick_start_names_check_and_its_chapter() -> None:
    section = _section("Quick start")
    assert any(line.startswith("motion-formats check ") for line in quick_start())
    assert "(doc/checking.md)" in section and (ROOT / "doc" / "checking.md").is_file()


def test_the_quick_start_runs_verbatim_in_a_fresh_clone(clone: Path) -> None:
    pytest.importorskip("matplotlib", reason="the plot line needs the 'plot' extra")
    pytest.importorskip("viser", reason="the view line needs the 'view' extra")
    pytest.importorskip("coal", reason="the check line needs the 'check' extra")
    before = _status(clone)
    for _ in range(2):  # and again: the block runs twice in a row
        for line in quick_start():
            args = shlex.split(line)
            if args[0] == "ros2":
                continue  # below
            assert shutil.which(args[0], path=str(BIN)), f"{args[0]}: not an installed command"
            if args[:2] == ["motion-formats", "view"]:
                code, out, err = _serve_then_interrupt(args, clone)
                assert code == 0 and "http://127.0.0.1:" in out and "Traceback" not in err, (line, out, err)
                continue
            proc = subprocess.run(args, cwd=clone, env=_env(), capture_output=True, text=True, timeout=300)
            assert proc.returncode == 0, f"{line}\n{proc.stdout}{proc.stderr}"
            assert "Traceback" not in proc.stderr, line
    assert _status(clone) == before, "the quick start left files git does not ignore"
    assert (clone / "quickstart" / "wave.png").is_file()
    assert (clone / "quickstart" / "wave_bag" / "metadata.yaml").is_file()


def _launch_arguments(line: str) -> tuple[str, dict[str, str]]:
    words = shlex.split(line)
    assert words[:3] == ["ros2", "launch", "motion_formats_ros"], line
    return words[3], dict(w.split(":=", 1) for w in words[4:])


@pytest.mark.ros
def test_the_quick_starts_play_line_plays_the_walk_with_its_joint_names(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not have_ros():
        pytest.skip("ROS 2 runtime not in the venv (make ros)")
    if real_launch_available():
        pytest.skip("the ROS 2 launch tools are installed: the stand-in is not used")
    from sensor_msgs.msg import JointState

    from motion_formats_ros.core.examples import BIPED_JOINTS

    line = next(line for line in quick_start() if "play.launch.py" in line)
    launch_file, arguments = _launch_arguments(line)
    described = describe(ROOT / "launch" / launch_file, monkeypatch)
    absolute = {k: str(clone / v) if "/" in v else v for k, v in arguments.items()}  # the launch's cwd is the clone
    context = launch_context(described, **absolute)
    cmd = node_command(launch_nodes(described, context)[0], context, tmp_path)
    with ros_session(tmp_path) as ros:
        states = ros.collect(JointState, "/joint_states", 200)
        proc = subprocess.Popen(
            cmd, env=ros.env, cwd=clone, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            assert ros.spin_until(lambda: len(states) >= 5, timeout=60), "no JointState from the played walk"
        finally:
            proc.send_signal(signal.SIGINT)
            out = proc.communicate(timeout=30)[0]
        assert tuple(states[-1].name) == BIPED_JOINTS, out  # named by body_file:=, not joint_0 … joint_11


def test_the_python_example_runs_twice_in_a_row_and_serves_until_interrupted(clone: Path) -> None:
    pytest.importorskip("viser", reason="the example's view() needs the 'view' extra")
    script = clone / "readme_example.py"
    script.write_text(python_example(), encoding="utf-8")
    for run in range(2):
        started = time.monotonic()
        code, out, err = _serve_then_interrupt([sys.executable, str(script)], clone)
        assert "http://127.0.0.1:" in out, (run, out, err)
        assert code in (-signal.SIGINT, 128 + signal.SIGINT, 0), (run, code, err)  # Ctrl-C ends wait()
        assert "already exists" not in err
        assert (clone / "walk.msgpack").is_file()
        assert time.monotonic() - started < 120
