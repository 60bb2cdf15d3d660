"""Shared fixtures: paths to ../shared, motions to round-trip, DDS confinement for ROS tests."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from motion_formats_ros import Motion, MotionFile
from motion_formats_ros.core.notices import Notice, NoticeKind

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
SPECS = SHARED / "specs"

#: The one reason every test that needs the real files gives when they are absent.
NO_SHARED = "needs ../shared beside the checkout (real files from the field; only this project's CI has them)"


def shared_path(*parts: str) -> Path:
    """A file or folder under ../shared, or skip the calling test with :data:`NO_SHARED`."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(NO_SHARED)
    return path


def corpus_path(*parts: str) -> Path:
    """A file or folder of ../shared/corpus, or skip the calling test with :data:`NO_SHARED`."""
    return shared_path("corpus", *parts)


def corpus_params(folder: str, pattern: str, exclude_stems: tuple[str, ...] = ()) -> list[object]:
    """Corpus files as pytest params (ids relative to the folder); one skipped param without them."""
    root = CORPUS / folder
    paths = sorted(p for p in root.glob(pattern) if p.stem not in exclude_stems)
    if not paths:
        return [pytest.param(None, marks=pytest.mark.skip(reason=NO_SHARED), id="corpus")]
    return [pytest.param(p, id=str(p.relative_to(root))) for p in paths]


# Property tests: CI runs a fixed sequence of examples (derandomized, no example database),
# so a green main stays green; `make test-explore` (HYPOTHESIS_PROFILE=explore) draws new
# random examples each run and keeps the failures it finds in .hypothesis/.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Any test process that starts DDS stays on this machine (see DEVELOPERS.md); the
# Makefile sets the same, this covers pytest started by hand.
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("ROS_DOMAIN_ID", "77")


def _guard_rclpy_init() -> None:
    """Make every rclpy.init in the test process check DDS confinement first."""
    try:
        import rclpy
    except ImportError:
        return
    if getattr(rclpy.init, "_mfr_guarded", False):
        return
    original = rclpy.init

    def guarded_init(*args: object, **kwargs: object) -> None:
        from support.rosutil import assert_confined

        assert_confined(os.environ)
        if "domain_id" not in kwargs:
            raise AssertionError("tests must give rclpy.init a domain_id of their own")
        original(*args, **kwargs)  # type: ignore[arg-type]

    guarded_init._mfr_guarded = True  # type: ignore[attr-defined]
    rclpy.init = guarded_init


_guard_rclpy_init()


@pytest.fixture
def corpus() -> Path:
    return corpus_path()


def make_motion(frames: int = 40, rate: float = 50.0, seed: int = 0, dims: tuple[int, ...] = (1, 3, 1)) -> Motion:
    """A motion with every kind of data the model holds (values random but reproducible)."""
    rng = np.random.default_rng(seed)
    d = sum(dims)
    angles = rng.uniform(-np.pi, np.pi, size=(frames, 3))
    from scipy.spatial.transform import Rotation

    quats = Rotation.from_euler("xyz", angles).as_quat()
    return Motion(
        times=np.arange(frames) / rate,
        joint_names=tuple(f"j{i}" for i in range(len(dims))),
        joint_dims=dims,
        position=rng.normal(size=(frames, d)),
        velocity=rng.normal(size=(frames, d)),
        acceleration=rng.normal(size=(frames, d)),
        effort=rng.normal(size=(frames, d)),
        temperature=rng.uniform(20, 60, size=(frames, d)),
        root_position=rng.normal(size=(frames, 3)),
        root_orientation=quats,
        link_names=("foot_l", "foot_r"),
        links={
            "position": rng.normal(size=(frames, 2, 3)),
            "orientation": np.stack([quats, quats], axis=1),
            "linear_velocity": rng.normal(size=(frames, 2, 3)),
            "angular_velocity": rng.normal(size=(frames, 2, 3)),
        },
        imu_names=("base",),
        imus={
            "position": rng.normal(size=(frames, 1, 3)),
            "orientation": quats[:, None, :],
            "angular_velocity": rng.normal(size=(frames, 1, 3)),
            "linear_acceleration": rng.normal(size=(frames, 1, 3)),
            "linear_velocity": rng.normal(size=(frames, 1, 3)),
        },
    )


def elbow_jump() -> MotionFile:
    """Keyframes whose middle segment jumps (``next``, a ``.mof`` row with Int 0): RElbowRoll is
    1.30 from just after 0.5 s, where a line through the keyframes is still at 0.52 and reaches
    0.91 at 1 s; RElbowYaw does not move."""
    return MotionFile.single(
        Motion(
            times=[0.0, 0.5, 1.5, 2.5],
            joint_names=("RElbowYaw", "RElbowRoll"),
            position=[[0.2, 0.52], [0.2, 0.52], [0.2, 1.3], [0.2, 0.52]],
            interpolation=("linear", "next", "linear"),
        )
    )


#: What a lossy-write notice says of :func:`elbow_jump` written as lines through its keyframes
#: (the joint that jumps, and only it).
ELBOW_JUMP = "next interpolation between keyframes of RElbowRoll at 0.5–1.5 s (written as linear"


def lossy_messages(report: Iterable[Notice]) -> list[str]:
    """The lossy-write notices' messages of a collected report."""
    return [n.message for n in report if n.kind is NoticeKind.LOSSY_WRITE]


def make_file(**kwargs: object) -> MotionFile:
    """A two-group file (target at 50 Hz, actual variable-rate) named like a real log."""
    target = make_motion(**kwargs)  # type: ignore[arg-type]
    rng = np.random.default_rng(7)
    times = np.cumsum(rng.uniform(0.005, 0.03, size=25)) + 0.1
    actual = target.sample(times)
    return MotionFile(groups={"target": target, "actual": actual}, name="walk", robot="acme_biped")


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The walk example (walk.seq, biped.body, biped.urdf) in its own folder, as `example walk` writes it."""
    from support.cli import run

    folder = tmp_path / "example"
    folder.mkdir()
    proc = run("example", "walk", "-o", folder)
    assert proc.returncode == 0, proc.stderr
    return folder
