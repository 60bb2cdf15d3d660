"""core.nonfinite: nothing undefined reaches a robot; held values are the ones promised."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import corpus_path
from support.mof import CORPUS_MOF, generated_mof

from motion_formats_ros import Motion, read
from motion_formats_ros.core.model import JointLimit
from motion_formats_ros.core.nonfinite import MissingJointError, first_nonfinite, needs_state, resolve
from motion_formats_ros.playback.sampler import FrameSampler
from motion_formats_ros.safety.limits import LimitViolationError, check_limits


def test_generated_mof_holds_what_each_symbol_promises(tmp_path: Path) -> None:
    m = read(generated_mof(tmp_path), joint_map="nao_22").motion
    assert m.position is not None and np.isnan(m.position).any()
    assert needs_state(m) == ("HeadYaw", "HeadPitch", "LShoulderPitch")
    r = resolve(m)
    out = r.motion
    assert out.position is not None and first_nonfinite(out) is None
    assert r.left_out == ("LShoulderPitch",) and "LShoulderPitch" not in out.joint_names
    deg = np.degrees(out.position)
    # Keyframe 0 (t = 0) is the first row's target, then one keyframe per row.
    np.testing.assert_allclose(deg[:, out.joint_names.index("HeadYaw")], [20, 20, 20, 20, 40, 40])
    np.testing.assert_allclose(deg[:, out.joint_names.index("HeadPitch")], [10, 10, 10, 10, 30, 30])
    texts = [n.text for n in r.notes]
    assert any("'HeadYaw' is undefined until t = 0.2 s" in t and "first value 0.349066" in t for t in texts)
    assert any("'HeadYaw' is switched off ('-') from t = 0.3 s" in t for t in texts)
    assert any("'HeadPitch' is switched off ('-') from t = 0.5 s" in t for t in texts)
    assert any("'LShoulderPitch' has no defined value in the file: it is left out" in t for t in texts)
    # With the robot's state heard: the leading values come from it, the rest as before.
    r = resolve(m, current={"HeadYaw": 0.1, "HeadPitch": -0.2})
    assert r.from_state == ("HeadYaw", "HeadPitch")
    assert r.motion.position is not None
    np.testing.assert_allclose(r.motion.position[:2, 0], [0.1, 0.1])
    np.testing.assert_allclose(np.degrees(r.motion.position[2:, 0]), [20, 20, 40, 40])
    np.testing.assert_allclose(r.motion.position[:2, 1], [-0.2, -0.2])
    # Dense playback (the JointState stream, seek anywhere) of the resolved keyframes is finite.
    sampler = FrameSampler(r.motion)
    for t in np.linspace(-1.0, 1.0, 201):
        assert np.all(np.isfinite(sampler.frame(float(t))["position"]))


@pytest.mark.parametrize("name", CORPUS_MOF)
def test_corpus_mof_resolves_to_held_values(name: str) -> None:
    path = corpus_path("mof", *name.split("/"))
    m = read(path).motion
    assert m.position is not None and np.isnan(m.position).any()  # what the issue is about
    r = resolve(m)
    out = r.motion
    assert out.position is not None and np.all(np.isfinite(out.position)) and not r.left_out
    for j, joint in enumerate(m.joint_names):
        col = m.position[:, j]
        got = out.position[:, out.joint_names.index(joint)]
        finite = np.isfinite(col)
        np.testing.assert_array_equal(got[finite], col[finite])  # defined values untouched
        first = int(np.argmax(finite))
        np.testing.assert_array_equal(got[:first], col[first])  # leading: the first defined value
        for k in np.flatnonzero(~finite):
            if k > first:
                assert got[k] == got[k - 1]  # keep / off: the last commanded value
    dense = out.resample(100.0)
    assert dense.position is not None and np.all(np.isfinite(dense.position))


def test_joints_order_subset_and_held_joints() -> None:
    m = Motion(
        times=[0.0, 0.5, 1.0],
        joint_names=("a", "b", "c"),
        position=[[0.0, 1.0, 2.0], [0.5, 1.5, np.nan], [1.0, 2.0, 2.5]],
        velocity=[[1.0, 1.0, 0.0], [1.0, 1.0, np.nan], [0.0, 0.0, 0.0]],
        effort=[[0.1, 0.2, 0.3], [0.1, np.inf, 0.3], [0.1, 0.2, 0.3]],
    )
    r = resolve(m, current={"arm": 0.7, "c": 9.0}, joints=["c", "arm", "a"])
    out = r.motion
    assert out.joint_names == ("c", "arm", "a") and r.held == ("arm",)
    np.testing.assert_array_equal(out.position, [[2.0, 0.7, 0.0], [2.0, 0.7, 0.5], [2.5, 0.7, 1.0]])
    np.testing.assert_array_equal(out.velocity, [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    assert out.effort is None  # b's effort is undefined: no effort channel is sent
    assert any("effort of joint 'b'" in n.text for n in resolve(m).notes)
    assert any("'c' has 1 undefined value(s) (NaN first at t = 0.5 s)" in n.text for n in r.notes)
    with pytest.raises(MissingJointError, match=r"'arm', 'leg' not in the file"):
        resolve(m, current={}, joints=["a", "arm", "leg"])
    with pytest.raises(ValueError, match="'a' more than once"):
        resolve(m, joints=["a", "b", "a"])
    # A joint asked for by name but never defined holds the current position.
    empty = Motion(times=[0.0, 1.0], joint_names=("x", "y"), position=[[np.nan, 1.0], [np.nan, 2.0]])
    assert resolve(empty).left_out == ("x",)
    held = resolve(empty, current={"x": 0.3}, joints=["x", "y"])
    assert held.held == ("x",)
    np.testing.assert_array_equal(held.motion.position, [[0.3, 1.0], [0.3, 2.0]])


def test_root_and_link_poses_hold_and_infinite_values_count_as_undefined() -> None:
    n = 4
    quat = np.tile([0.0, 0.0, 0.0, 1.0], (n, 1))
    quat[2] = np.nan
    root = np.arange(12, dtype=float).reshape(n, 3)
    root[0] = np.inf
    links = {"position": np.zeros((n, 2, 3)), "orientation": np.tile([0.0, 0.0, 0.0, 1.0], (n, 2, 1))}
    links["position"][:, 1] = np.nan
    links["position"][3, 0] = np.nan
    m = Motion(
        times=np.arange(n) * 0.1,
        joint_names=("a",),
        position=[[0.0], [math.inf], [1.0], [1.0]],
        root_position=root,
        root_orientation=quat,
        link_names=("l0", "l1"),
        links=links,
    )
    r = resolve(m)
    out = r.motion
    assert first_nonfinite(out) is None
    np.testing.assert_array_equal(out.position[:, 0], [0.0, 0.0, 1.0, 1.0])  # type: ignore[index]
    np.testing.assert_array_equal(out.root_position[0], [3.0, 4.0, 5.0])  # type: ignore[index]
    np.testing.assert_array_equal(out.root_orientation[2], [0.0, 0.0, 0.0, 1.0])  # type: ignore[index]
    assert out.link_names == ("l0",) and out.links["position"].shape == (n, 1, 3)
    assert any("link(s) 'l1' never have a defined pose" in note.text for note in r.notes)
    assert first_nonfinite(m) == "position of joint 'a' at t = 0.1 s"


def test_limit_check_treats_non_finite_values_as_violations() -> None:
    m = Motion(times=[0.0, 1.0, 2.0], joint_names=("a", "b"), position=[[0.0, 0.0], [0.1, np.nan], [0.2, 0.0]])
    with pytest.raises(LimitViolationError, match=r"joint 'b' has an undefined value \(NaN\) at t = 1 s"):
        check_limits(m, {"a": JointLimit(-1.0, 1.0)})
    check_limits(resolve(m).motion, {"a": JointLimit(-1.0, 1.0)})
