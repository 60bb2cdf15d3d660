"""Scene transforms: exact values for every kind, all 24 Euler conventions, references, errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from motion_formats_ros.codecs.scene.problems import Problems
from motion_formats_ros.codecs.scene.transforms import Ref, Transform, euler_conventions, parse_transform

S = math.sqrt(0.5)


def parse(node: Any) -> Transform:
    problems = Problems()
    t = parse_transform(node, ["pose"], problems)
    assert t is not None, [str(p) for p in problems.items]
    return t


def errors(node: Any) -> list[str]:
    problems = Problems()
    assert parse_transform(node, ["objects", "a", "pose"], problems) is None
    return [str(p) for p in problems.errors]


def pose(node: Any) -> tuple[np.ndarray, np.ndarray]:
    return parse(node).static_pose()


def rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def ry(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


ELEMENTARY = {"x": rx, "y": ry, "z": rz}


def matrix_of(q: np.ndarray) -> np.ndarray:
    """Rotation matrix of a quaternion x, y, z, w, written out (no scipy)."""
    x, y, z, w = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


# ------------------------------------------------------------------------- every kind
def test_identity_for_missing_and_empty_pose() -> None:
    for node in (None, {}):
        t, q = pose(node)
        np.testing.assert_array_equal(t, [0, 0, 0])
        np.testing.assert_array_equal(q, [0, 0, 0, 1])


def test_xyz() -> None:
    t, q = pose({"xyz": [1, -2.5, 3]})
    np.testing.assert_array_equal(t, [1, -2.5, 3])
    np.testing.assert_array_equal(q, [0, 0, 0, 1])


def test_axis_distance_normalises_the_axis() -> None:
    t, _ = pose({"axisDistance": {"axis": [0, 0, 2], "distance": 3}})
    np.testing.assert_array_equal(t, [0, 0, 3])
    t, _ = pose({"axisDistance": {"axis": "y", "distance": -1.5}})
    np.testing.assert_array_equal(t, [0, -1.5, 0])


def test_qxyzw_normalised() -> None:
    _, q = pose({"qxyzw": [0, 0, 0, 2]})
    np.testing.assert_array_equal(q, [0, 0, 0, 1])
    _, q = pose({"qxyzw": [0, 0, 3, 3]})
    np.testing.assert_allclose(q, [0, 0, S, S], rtol=0, atol=2e-16)


def test_qwxyz_is_w_first() -> None:
    _, q = pose({"qwxyz": [1, 1, 0, 0]})
    np.testing.assert_allclose(q, [S, 0, 0, S], rtol=0, atol=2e-16)


def test_rows3x3_and_cols3x3() -> None:
    rows = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]  # Rz(90°)
    _, q_rows = pose({"rows3x3": rows})
    _, q_cols = pose({"cols3x3": np.array(rows).T.tolist()})
    np.testing.assert_allclose(q_rows, [0, 0, S, S], atol=1e-15)
    np.testing.assert_allclose(q_cols, [0, 0, S, S], atol=1e-15)


def test_rows4x4_and_cols4x4_spec_examples() -> None:
    rows = [[1.0, 0.0, 0.0, 5.0], [0.0, 1.0, 0.0, 6.0], [0.0, 0.0, 1.0, 7.0], [0.0, 0.0, 0.0, 1.0]]
    cols = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [5.0, 6.0, 7.0, 1.0]]
    for node in ({"rows4x4": rows}, {"cols4x4": cols}):
        t, q = pose(node)
        np.testing.assert_array_equal(t, [5, 6, 7])
        np.testing.assert_array_equal(q, [0, 0, 0, 1])
    t, q = pose({"rows4x4": [[0, 0, 1, 1], [0, 1, 0, 2], [-1, 0, 0, 3], [0, 0, 0, 1]]})  # Ry(90°)
    np.testing.assert_array_equal(t, [1, 2, 3])
    np.testing.assert_allclose(q, [0, S, 0, S], atol=1e-15)


def test_axis_angle() -> None:
    _, q = pose({"axisAngle": {"axis": "z", "angle": math.pi / 2}})
    np.testing.assert_allclose(q, [0, 0, S, S], atol=2e-16)
    _, q = pose({"axisAngle": {"axis": [0, 0, -5], "angle": math.pi}})
    np.testing.assert_allclose(q, [0, 0, -1, 0], atol=2e-16)


def test_rotvec() -> None:
    _, q = pose({"rotvec": [math.pi / 2, 0, 0]})
    np.testing.assert_allclose(q, [S, 0, 0, S], atol=2e-16)
    _, q = pose({"rotvec": [0, 0, 0]})
    np.testing.assert_array_equal(q, [0, 0, 0, 1])


def test_classic_dh() -> None:
    a, alpha, theta, s = 0.5, math.pi / 2, math.pi / 3, 0.25
    t, q = pose({"dh": {"a": a, "alpha": alpha, "theta": theta, "s": s}})
    # Rz(theta) · Tz(s) · Tx(a) · Rx(alpha), multiplied out by hand.
    tz = np.eye(4)
    tz[2, 3] = s
    tx = np.eye(4)
    tx[0, 3] = a
    rz4, rx4 = np.eye(4), np.eye(4)
    rz4[:3, :3], rx4[:3, :3] = rz(theta), rx(alpha)
    expected = rz4 @ tz @ tx @ rx4
    np.testing.assert_allclose(t, expected[:3, 3], atol=1e-15)
    np.testing.assert_allclose(matrix_of(q), expected[:3, :3], atol=1e-15)
    np.testing.assert_allclose(t, [0.25, 0.5 * math.sin(math.pi / 3), 0.25], atol=2e-16)


def test_dh_defaults_to_zero_and_accepts_the_spec_spelling_alhpa() -> None:
    t, q = pose({"dh": {"a": 2}})
    np.testing.assert_array_equal(t, [2, 0, 0])
    np.testing.assert_array_equal(q, [0, 0, 0, 1])
    _, q = pose({"dh": {"alhpa": math.pi / 2}})
    np.testing.assert_allclose(q, [S, 0, 0, S], atol=2e-16)


def test_translation_then_rotation() -> None:
    # pose = Translation · Rotation: the point (1, 0, 0) goes to t + R p = (1, 1, 0).
    t, q = pose({"xyz": [1, 0, 0], "axisAngle": {"axis": "z", "angle": math.pi / 2}})
    np.testing.assert_allclose(t + matrix_of(q) @ [1, 0, 0], [1, 1, 0], atol=1e-15)
    # key order in the file does not matter
    t2, q2 = pose({"axisAngle": {"axis": "z", "angle": math.pi / 2}, "xyz": [1, 0, 0]})
    np.testing.assert_array_equal(t, t2)
    np.testing.assert_array_equal(q, q2)


# ------------------------------------------------------------------------- euler
ANGLES = (0.3, -0.7, 1.1)


@pytest.mark.parametrize("convention", euler_conventions())
def test_euler_all_24_conventions_in_both_syntaxes(convention: str) -> None:
    axes = convention[0::2]
    a, b, c = ANGLES
    if convention[1::2] == "000":  # extrinsic: first rotation about the first fixed axis
        expected = ELEMENTARY[axes[2]](c) @ ELEMENTARY[axes[1]](b) @ ELEMENTARY[axes[0]](a)
    else:  # intrinsic: R = R1(a) · R2(b) · R3(c)
        expected = ELEMENTARY[axes[0]](a) @ ELEMENTARY[axes[1]](b) @ ELEMENTARY[axes[2]](c)
    _, q1 = pose({"euler": {convention: list(ANGLES)}})
    _, q2 = pose({"euler": {"order": convention, "angles": list(ANGLES)}})
    np.testing.assert_allclose(matrix_of(q1), expected, atol=1e-15)
    np.testing.assert_array_equal(q1, q2)


def test_there_are_24_conventions() -> None:
    conventions = euler_conventions()
    assert len(set(conventions)) == 24
    assert "x0y0z0" in conventions and "z0y1x2" in conventions and "z0x1z2" in conventions


def test_euler_spec_examples_exact() -> None:
    # x0y0z0 = Rz(c)·Ry(b)·Rx(a); z0y1x2 = Rz(a)·Ry(b)·Rx(c): the same rotation for swapped angles.
    _, q1 = pose({"euler": {"x0y0z0": [0.1, 0.2, 0.3]}})
    _, q2 = pose({"euler": {"z0y1x2": [0.3, 0.2, 0.1]}})
    np.testing.assert_allclose(q1, q2, atol=2e-16)
    _, q = pose({"euler": {"x0y0z0": [0, 0, math.pi / 2]}})
    np.testing.assert_allclose(q, [0, 0, S, S], atol=2e-16)


# ------------------------------------------------------------------------- references
def test_components_can_be_value_references_and_evaluate_vectorised() -> None:
    t = parse(
        {
            "xyz": [{"joint": "slide"}, 0, {"trajectory": "path", "index": 1}],
            "axisAngle": {"axis": "z", "angle": {"joint": "turn"}},
        }
    )
    assert not t.is_static
    assert t.refs == {Ref("joint", "slide"), Ref("joint", "turn"), Ref("trajectory", "path", 1)}
    values = {
        Ref("joint", "slide"): np.array([0.0, 1.0, 2.0]),
        Ref("joint", "turn"): np.array([0.0, math.pi / 2, math.pi]),
        Ref("trajectory", "path", 1): np.array([5.0, 6.0, 7.0]),
    }
    tr, q = t.evaluate(lambda ref: values[ref], 3)
    np.testing.assert_array_equal(tr, [[0, 0, 5], [1, 0, 6], [2, 0, 7]])
    np.testing.assert_allclose(q, [[0, 0, 0, 1], [0, 0, S, S], [0, 0, 1, 0]], atol=2e-16)


def test_references_in_every_kind() -> None:
    j = {"joint": "q"}
    nodes = [
        {"axisDistance": {"axis": [0, 0, 1], "distance": j}},
        {"qxyzw": [0, 0, j, 1]},
        {"qwxyz": [1, j, 0, 0]},
        {"rows3x3": [[1, 0, 0], [0, 1, 0], [0, 0, j]]},
        {"cols3x3": [[j, 0, 0], [0, 1, 0], [0, 0, 1]]},
        {"rows4x4": [[1, 0, 0, j], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]},
        {"cols4x4": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, j, 0, 1]]},
        {"euler": {"z0y1x2": [j, 0, 0]}},
        {"rotvec": [0, j, 0]},
        {"dh": {"theta": j, "a": 1}},
    ]
    for node in nodes:
        t = parse(node)
        assert t.refs == {Ref("joint", "q")}, node
        t.evaluate(lambda ref: np.array([1.0]), 1)


def test_dependent_pose_fails_at_evaluation_when_degenerate() -> None:
    t = parse({"qxyzw": [0, 0, 0, {"joint": "w"}]})
    with pytest.raises(ValueError, match="cannot normalise"):
        t.evaluate(lambda ref: np.array([1.0, 0.0]), 2)


def test_canonical_static_and_chain() -> None:
    static = parse({"xyz": [1, 2, 3], "euler": {"x0y0z0": [0, 0, math.pi / 2]}})
    canon = static.canonical()
    assert canon["xyz"] == [1.0, 2.0, 3.0]
    np.testing.assert_allclose(canon["qxyzw"], [0, 0, S, S], atol=2e-16)
    moving = parse({"xyz": [1, 2, 3], "axisAngle": {"axis": [0, 0, 2], "angle": {"joint": "a"}}})
    assert moving.canonical() == {
        "chain": [
            {"xyz": [1.0, 2.0, 3.0], "qxyzw": [0.0, 0.0, 0.0, 1.0]},
            {"axisAngle": {"axis": [0.0, 0.0, 2.0], "angle": {"joint": "a"}}},
        ]
    }
    again = parse(moving.canonical())
    values = lambda ref: np.array([0.4])  # noqa: E731
    for x, y in zip(moving.evaluate(values), again.evaluate(values), strict=True):
        np.testing.assert_array_equal(x, y)


# ------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"xyz": [0, 0, 0], "quat": [0, 0, 0, 1]}, "objects.a.pose.quat: unknown transform key 'quat'"),
        ({"qxyzw": [0, 0, 0, 1], "rotvec": [0, 0, 0]}, "objects.a.pose: more than one rotation"),
        ({"xyz": [0, 0, 0], "axisDistance": {"axis": "x", "distance": 1}}, "more than one translation"),
        ({"dh": {"a": 1}, "xyz": [0, 0, 0]}, "dh is a complete transform"),
        ({"qxyzw": [0, 0, 0, 1e-9]}, "objects.a.pose.qxyzw: the quaternion"),
        ({"qxyzw": [0, 0, 1e-200, 1e-200]}, "objects.a.pose.qxyzw: the quaternion"),
        ({"axisAngle": {"axis": [0, 0, 0], "angle": 1}}, "objects.a.pose.axisAngle: the axis"),
        ({"axisAngle": {"axis": "w", "angle": 1}}, "objects.a.pose.axisAngle.axis: unknown axis 'w'"),
        ({"rows3x3": [[1, 0, 0], [0, 2, 0], [0, 0, 1]]}, "objects.a.pose.rows3x3: the matrix"),
        ({"rows3x3": [[-1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "is a reflection"),
        ({"rows4x4": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 1]]}, "the last row must be [0, 0, 0, 1]"),
        ({"euler": {"x0x1y2": [0, 0, 0]}}, "objects.a.pose.euler.x0x1y2: unknown Euler convention"),
        ({"euler": {"order": "x0y1z1", "angles": [0, 0, 0]}}, "pose.euler.order: unknown Euler convention"),
        ({"xyz": [0, 0]}, "objects.a.pose.xyz: expected an array of 3 values, got 2 elements"),
        ({"xyz": [0, "1", 0]}, "objects.a.pose.xyz[1]: expected a number or a Value reference, got a string"),
        ({"xyz": [0, True, 0]}, "objects.a.pose.xyz[1]: expected a number, got a boolean"),
        ({"xyz": [0, {"joint": 3}, 0]}, "objects.a.pose.xyz[1].joint: expected a joint name"),
        ({"xyz": [0, {"trajectory": "t", "index": -1}, 0]}, "xyz[1].index: expected a non-negative integer index"),
        ({"dh": {"a": 1, "d": 2}}, "objects.a.pose.dh.d: unknown key 'd'"),
        ([1, 2, 3], "objects.a.pose: expected a transform object, got an array"),
    ],
)
def test_bad_transforms_name_their_json_path(node: Any, expected: str) -> None:
    found = errors(node)
    assert any(expected in e for e in found), found


def test_static_only_where_required() -> None:
    problems = Problems()
    assert parse_transform({"xyz": [{"joint": "a"}, 0, 0]}, ["shape", "pose"], problems, allow_refs=False) is None
    assert "shape.pose.xyz: must be static here" in str(problems.errors[0])
