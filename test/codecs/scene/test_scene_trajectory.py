"""Scene trajectories: control point times, every interpolation order (exact values), repeat."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from motion_formats_ros.codecs.scene.problems import Problems
from motion_formats_ros.codecs.scene.trajectory import Trajectory, parse_trajectory


def parse(node: Any) -> Trajectory:
    problems = Problems()
    traj = parse_trajectory(node, ["trajectories", "x"], problems, "x")
    assert traj is not None, [str(p) for p in problems.items]
    return traj


def problems_of(node: Any) -> list[str]:
    problems = Problems()
    assert parse_trajectory(node, ["trajectories", "x"], problems, "x") is None
    return [str(p) for p in problems.errors]


# ------------------------------------------------------------------------- exact values
def test_cubic_zero_slopes_quarter_is_0_15625() -> None:
    traj = parse({"controlPoints": [{"f": 0, "df": 0}, {"f": 1, "df": 0}]})
    assert traj.orders == (3,)
    assert traj.evaluate(0.25)[0] == 0.15625
    assert traj.evaluate(0.75)[0] == 0.84375
    assert traj.evaluate(0.5)[0] == 0.5


def test_quintic_zero_slopes_and_curvatures_quarter_is_0_103515625() -> None:
    traj = parse({"controlPoints": [{"f": 0, "df": 0, "ddf": 0}, {"f": 1, "df": 0, "ddf": 0}]})
    assert traj.orders == (5,)
    assert traj.evaluate(0.25)[0] == 0.103515625
    assert traj.evaluate(0.5)[0] == 0.5


def test_linear_exact_values() -> None:
    traj = parse({"controlPoints": [{"t": 1, "f": 2}, {"t": 3, "f": 4}]})
    assert traj.orders == (1,)
    np.testing.assert_array_equal(traj.evaluate([1.0, 1.5, 2.0, 3.0]).ravel(), [2.0, 2.5, 3.0, 4.0])
    np.testing.assert_array_equal(traj.evaluate([1.5, 2.5], 1).ravel(), [1.0, 1.0])


def test_cubic_with_slopes_exact_values_and_derivatives() -> None:
    # Slopes 1 at both ends of a unit ramp: the cubic degenerates to the line itself.
    traj = parse({"controlPoints": [{"f": 0, "df": 1}, {"f": 1, "df": 1}]})
    assert traj.evaluate(0.25)[0] == 0.25
    # f = 0 → 0 with slopes 1 and -1 over h = 2: p(s) = 2 s (1 - s) ... evaluated exactly.
    traj = parse({"controlPoints": [{"t": 0, "f": 0, "df": 1}, {"t": 2, "f": 0, "df": -1}]})
    assert traj.evaluate(1.0)[0] == 0.5
    assert traj.evaluate(0.0, 1)[0] == 1.0
    assert traj.evaluate(2.0, 1)[0] == -1.0
    assert traj.evaluate(1.0, 2)[0] == -1.0


def test_quintic_with_curvature_exact_value() -> None:
    # f, df zero at both ends, ddf 1 at the start: p(s) = s²/2 - 3s³/2 + 3s⁴/2 - s⁵/2.
    traj = parse({"controlPoints": [{"f": 0, "df": 0, "ddf": 1}, {"f": 0, "df": 0, "ddf": 0}]})
    assert traj.evaluate(0.5)[0] == 0.015625
    assert traj.evaluate(0.0, 2)[0] == 1.0
    assert traj.evaluate(1.0, 2)[0] == 0.0


def test_segment_order_needs_both_ends() -> None:
    traj = parse(
        {
            "controlPoints": [
                {"f": 0},
                {"f": 1, "df": 0},
                {"f": 0, "df": 0, "ddf": 0},
                {"f": 1, "df": 0, "ddf": 0},
                {"f": 0, "df": 0},
            ]
        }
    )
    assert traj.orders == (1, 3, 5, 3)
    np.testing.assert_array_equal(
        traj.evaluate([0.5, 1.25, 2.25, 3.25]).ravel(), [0.5, 1 - 0.15625, 0.103515625, 1 - 0.15625]
    )


def test_derivatives_match_finite_differences() -> None:
    traj = parse(
        {
            "controlPoints": [
                {"t": 0, "f": [0, 1], "df": [1, 0], "ddf": [0, 1]},
                {"t": 0.7, "f": [1, 3], "df": [0.5, 2], "ddf": [3, 0]},
                {"t": 2, "f": [-1, 2], "df": [0, 0], "ddf": [1, 1]},
            ]
        }
    )
    t = np.linspace(0.01, 1.99, 50)
    e = 1e-6
    np.testing.assert_allclose((traj.evaluate(t + e) - traj.evaluate(t - e)) / (2 * e), traj.evaluate(t, 1), atol=1e-6)
    np.testing.assert_allclose(
        (traj.evaluate(t + e, 1) - traj.evaluate(t - e, 1)) / (2 * e), traj.evaluate(t, 2), atol=1e-5
    )
    # Hermite data is met exactly at the control points.
    np.testing.assert_allclose(traj.evaluate([0, 0.7, 2]), [[0, 1], [1, 3], [-1, 2]], atol=1e-15)
    np.testing.assert_allclose(traj.evaluate([0, 0.7], 1), [[1, 0], [0.5, 2]], atol=1e-12)
    np.testing.assert_allclose(traj.evaluate([0, 0.7], 2), [[0, 1], [3, 0]], atol=1e-12)


def test_hold_outside_the_range() -> None:
    traj = parse({"controlPoints": [{"t": 1, "f": [1, 2]}, {"t": 2, "f": [3, 4]}]})
    np.testing.assert_array_equal(traj.evaluate([-5.0, 0.999, 2.0, 100.0]), [[1, 2], [1, 2], [3, 4], [3, 4]])
    np.testing.assert_array_equal(traj.evaluate([0.0, 5.0], 1), [[0, 0], [0, 0]])


def test_vectorised_evaluation_equals_point_by_point() -> None:
    rng = np.random.default_rng(3)
    points = [{"dt": 0.3, "f": list(rng.normal(size=4)), "df": list(rng.normal(size=4))} for _ in range(12)]
    traj = parse({"controlPoints": points, "repeat": {"dt": 0.5}})
    t = np.linspace(-1, 10, 333)
    many = traj.evaluate(t)
    assert many.shape == (333, 4)
    one_by_one = np.array([traj.evaluate(x) for x in t])
    np.testing.assert_array_equal(many, one_by_one)


# ------------------------------------------------------------------------- times
def test_times_from_t_dt_and_dt_default() -> None:
    traj = parse(
        {
            "dtDefault": 0.5,
            "controlPoints": [
                {"f": 0},
                {"f": 1},
                {"dt": 2, "f": 2},
                {"t": 10, "f": 3},
                {"f": 4},
                {"t": 11, "dt": 5, "f": 5},
            ],
        }
    )
    np.testing.assert_array_equal(traj.times, [0, 0.5, 2.5, 10, 10.5, 11])


def test_default_dt_is_one_and_first_point_is_at_zero() -> None:
    traj = parse({"controlPoints": [{"f": 0}, {"f": 1}, {"f": 2}]})
    np.testing.assert_array_equal(traj.times, [0, 1, 2])
    problems = Problems()
    traj2 = parse_trajectory({"controlPoints": [{"dt": 3, "f": 0}, {"f": 1}]}, ["t"], problems)
    assert traj2 is not None
    np.testing.assert_array_equal(traj2.times, [0, 1])
    assert any("ignored" in p.message for p in problems.warnings)


def test_scalar_and_vector_f() -> None:
    scalar = parse({"controlPoints": [{"f": 1}, {"f": 2}]})
    vector = parse({"controlPoints": [{"f": [1, 10]}, {"f": [2, 20]}]})
    assert scalar.scalar and scalar.dims == 1
    assert not vector.scalar and vector.dims == 2
    np.testing.assert_array_equal(vector.evaluate(0.5), [1.5, 15])


# ------------------------------------------------------------------------- repeat
def test_repeat_true_closes_with_dt_default() -> None:
    traj = parse({"controlPoints": [{"f": 0, "df": 0}, {"f": 1, "df": 0}], "repeat": True})
    assert traj.repeat_at == 2.0 and traj.period == 2.0
    assert traj.orders == (3, 3)
    np.testing.assert_array_equal(
        traj.evaluate([0.25, 1.25, 1.75, 2.25, 4.25, 101.75]).ravel(),
        [0.15625, 0.84375, 0.15625, 0.15625, 0.15625, 0.15625],
    )


def test_repeat_dt_and_t() -> None:
    by_dt = parse({"controlPoints": [{"t": 1, "f": 0}, {"t": 2, "f": 1}], "repeat": {"dt": 2}})
    by_t = parse({"controlPoints": [{"t": 1, "f": 0}, {"t": 2, "f": 1}], "repeat": {"t": 4}})
    for traj in (by_dt, by_t):
        assert traj.repeat_at == 4.0 and traj.period == 3.0
        # closing segment 1 → 0 over [2, 4]; before the first point: held.
        np.testing.assert_array_equal(traj.evaluate([0.0, 1.5, 3.0, 4.0, 4.5, 6.0]).ravel(), [0, 0.5, 0.5, 0, 0.5, 0.5])


def test_repeat_with_zero_closing_segment_jumps_back() -> None:
    traj = parse({"controlPoints": [{"t": 0, "f": 1}, {"t": 1, "f": -1}], "dtDefault": 0.0, "repeat": True})
    assert traj.period == 1.0
    np.testing.assert_array_equal(traj.evaluate([0.5, 1.0, 1.5]).ravel(), [0.0, 1.0, 0.0])


# ------------------------------------------------------------------------- bad trajectories
def test_time_going_backwards_is_an_error_with_its_path() -> None:
    errors = problems_of({"controlPoints": [{"t": 0, "f": 0}, {"t": 2, "f": 1}, {"t": 1, "f": 2}]})
    assert errors == [
        "trajectories.x.controlPoints[2]: time goes backwards or stands still: t = 1 after 2 "
        "(times must strictly increase)"
    ]


def test_ddf_without_df_is_an_error() -> None:
    errors = problems_of({"controlPoints": [{"f": 0, "ddf": 1}, {"f": 1}]})
    assert errors == ["trajectories.x.controlPoints[0].ddf: ddf without df (a quintic segment needs f, df and ddf)"]


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"controlPoints": []}, "trajectories.x.controlPoints: expected a non-empty array"),
        ({"controlPoints": [{"f": "1"}]}, "trajectories.x.controlPoints[0].f: expected a number"),
        ({"controlPoints": [{"f": [1, True]}]}, "trajectories.x.controlPoints[0].f: expected a number"),
        (
            {"controlPoints": [{"f": [1, 2]}, {"f": [1]}]},
            "controlPoints[1].f: has 1 values but f of the first point has 2",
        ),
        (
            {"controlPoints": [{"f": 1, "df": [1, 2]}]},
            "controlPoints[0].df: has 2 values but f of the first point has a scalar",
        ),
        ({"controlPoints": [{"f": 1, "g": 2}]}, "controlPoints[0].g: unknown control point key 'g'"),
        ({"controlPoints": [{"t": 1}]}, "controlPoints[0]: missing f"),
        ({"controlPoints": [{"f": 1}], "repeat": "yes"}, "trajectories.x.repeat: expected true, false"),
        (
            {"controlPoints": [{"t": 0, "f": 1}, {"t": 2, "f": 1}], "repeat": {"t": 1}},
            "repeat.t: repeat time 1 is before",
        ),
        ({"controlPoints": [{"f": 1}], "dtDefault": -1}, "trajectories.x.dtDefault: expected a non-negative number"),
        ({"controlPoints": [{"f": 1}], "repeat": True, "dtDefault": 0}, "needs a positive period"),
    ],
)
def test_bad_trajectories(node: Any, expected: str) -> None:
    errors = problems_of(node)
    assert any(expected in e for e in errors), errors


def test_trajectory_class_rejects_bad_arrays() -> None:
    with pytest.raises(ValueError, match="strictly increase"):
        Trajectory([0, 0], [1, 2])
    with pytest.raises(ValueError, match="ddf without df"):
        Trajectory([0, 1], [1, 2], df=[[np.nan], [0]], ddf=[[0], [0]])


# ------------------------------------------------------------------------- overflow
@pytest.mark.parametrize(
    ("points", "blamed"),
    [
        ([{"t": 0, "f": 0, "df": 0}, {"t": 1, "f": 1e308, "df": 0}], 1),  # cubic: 3 f overflows
        ([{"t": 0, "f": -1e308}, {"t": 1, "f": 1e308}], 0),  # linear: f1 - f0 overflows
        ([{"t": 0, "f": 0}, {"t": 1e-310, "f": 1e10}], 1),  # its slope overflows
    ],
)
def test_control_points_whose_spline_overflows_are_refused_by_path(points: list[Any], blamed: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # found, not computed into inf / NaN
        errors = problems_of({"controlPoints": points})
    assert len(errors) == 1
    assert errors[0].startswith(f"trajectories.x.controlPoints[{blamed}]: the spline from t = 0 to ")
    assert "overflows" in errors[0] and "e+" in errors[0] and "0" * 20 not in errors[0]


def test_large_values_whose_spline_stays_in_range_are_kept() -> None:
    traj = parse({"controlPoints": [{"t": 0, "f": 1e300, "df": 0}, {"t": 1, "f": -1e300, "df": 0}]})
    assert np.all(np.isfinite(traj.evaluate(np.linspace(0, 1, 11), 2)))
