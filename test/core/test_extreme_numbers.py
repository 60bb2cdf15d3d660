"""Numbers near the end of the float range (±1e308, 1e400, 401-digit integers) in the core:
one error naming the option or field, or a value that stays right, and never numpy's own warning."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from motion_formats_ros.core import timing
from motion_formats_ros.core.errors import OutOfRangeError, ReadError
from motion_formats_ros.core.joint_limits import JointLimits
from motion_formats_ros.core.kinematics import load_robot_model
from motion_formats_ros.core.model import Motion
from motion_formats_ros.core.notices import NoticeKind, collect


def _raw(caught: list[warnings.WarningMessage]) -> list[str]:
    """numpy's own warnings among those recorded (``overflow encountered in …``)."""
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


# --------------------------------------------------------------------------- resampling
def test_a_rate_over_a_duration_near_the_float_range_is_refused_naming_the_rate() -> None:
    m = Motion(times=np.array([0.0, 1e308]), joint_names=("a",), position=np.zeros((2, 1)))
    with pytest.raises(OutOfRangeError, match=r"^rate 10: the motion's 1e\+308 s would make more frames than"):
        m.resample(10.0)
    with pytest.raises(OutOfRangeError, match=r"^rate 10: "):
        m.resample(10.0, method="hold")


def test_neighbours_of_opposite_sign_near_the_float_range_interpolate_between_them() -> None:
    m = Motion(times=np.array([0.0, 1.0]), joint_names=("a", "b"), position=np.array([[1e308, -1e308], [-1e308, 0]]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = m.resample(10.0)
    assert not _raw(caught), _raw(caught)
    assert r.position is not None and np.all(np.isfinite(r.position))
    np.testing.assert_allclose(r.position[5], [0.0, -5e307], atol=1e293)
    f = np.arange(11) / 10
    np.testing.assert_allclose(r.position[:, 0], 1e308 * (1 - f) - 1e308 * f, rtol=1e-12, atol=1e293)


def test_a_rate_that_leaves_one_frame_of_a_long_motion_is_refused_naming_it() -> None:
    m = Motion(times=np.linspace(0.0, 600.0, 601), joint_names=("a",), position=np.zeros((601, 1)))
    with pytest.raises(OutOfRangeError, match=r"^rate 0\.001 leaves 1 frame of a 600 s motion: at least 0\.00167 Hz"):
        m.resample(1e-3)
    with pytest.raises(OutOfRangeError, match=r"^rate 0\.001 leaves 1 frame"):
        m.resample(1e-3, method="hold")


def test_a_rate_that_leaves_out_the_end_of_the_motion_says_so() -> None:
    m = Motion(times=np.linspace(0.0, 600.0, 601), joint_names=("a",), position=np.zeros((601, 1)))
    with collect(warn=False) as report:
        r = m.resample(0.003)  # frames at 0 and 333.3 s: the last 266.7 s are not in them
    assert r.num_frames == 2
    said = report.by_kind(NoticeKind.RESAMPLED)
    assert len(said) == 1 and "rate 0.003 keeps 2 frames, up to t = 333.333 s" in said[0].message, report.warnings
    assert "last 266.667 s are left out" in said[0].message
    with collect(warn=False) as report:
        m.resample(0.0101)  # 7 frames, to 594 s: a normal resampling, nothing to say
    assert not report.notices, report.warnings


def test_a_derivative_of_values_near_the_float_range_is_inf_not_nan() -> None:
    t = np.array([0.0, 0.01, 0.02, 0.03])
    q = np.array([[1e308], [-1e308], [1e308], [0.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = timing.derivative(q, t)
    assert not _raw(caught), _raw(caught)
    assert np.all(np.isinf(v)), v
    # a time step near the float range gives a slow, finite rate, not an overflowed weight
    t = np.array([0.0, 0.01, 0.02, 1e308])
    q = np.array([[0.0], [0.1], [0.2], [0.3]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = timing.derivative(q, t)
    assert not _raw(caught), _raw(caught)
    np.testing.assert_allclose(v[:3, 0], [10.0, 10.0, 10.0])
    assert math.isfinite(v[3, 0]) and abs(v[3, 0]) <= 10.0
    # ordinary values: exactly numpy's gradient
    t = np.cumsum(np.random.default_rng(1).uniform(0.01, 0.1, 30))
    q = np.random.default_rng(2).normal(size=(30, 3))
    np.testing.assert_array_equal(timing.derivative(q, t), np.gradient(q, t, axis=0, edge_order=2))


# --------------------------------------------------------------------------- joint_limits.yaml
def test_a_joint_limit_of_401_digits_is_refused_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "joint_limits.yaml"
    path.write_text(f"joint_limits:\n  j1:\n    has_velocity_limits: true\n    max_velocity: {'9' * 401}\n")
    with pytest.raises(ReadError, match=r"joint_limits\.j1\.max_velocity: max_velocity is not a finite number: an"):
        JointLimits({}).overlay(path)
    path.write_text(
        f"joint_limits:\n  j1:\n    has_position_limits: true\n    min_position: -{'9' * 401}\n    max_position: 1\n"
    )
    with pytest.raises(ReadError, match=r"joint_limits\.j1\.min_position: .* integer of about"):
        JointLimits({}).overlay(path)


def test_a_limit_its_flag_states_but_the_entry_lacks_is_missing_at_the_flags_line(tmp_path: Path) -> None:
    path = tmp_path / "joint_limits.yaml"
    path.write_text("joint_limits:\n  j1:\n    has_velocity_limits: false\n    has_position_limits: true\n")
    with pytest.raises(ReadError) as err:
        JointLimits({}).overlay(path)
    assert str(err.value) == f"{path}:4: joint_limits.j1: min_position is missing (has_position_limits is true)"


# --------------------------------------------------------------------------- URDF
URDF = """<robot name="r">
<link name="a"><inertial><mass value="{mass}"/>
<inertia ixx="{ixx}" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="{axis}"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/>{extra}</joint>
</robot>
"""


def _urdf(tmp_path: Path, mass: str = "1", ixx: str = "1", axis: str = "0 0 1", extra: str = "") -> Path:
    path = tmp_path / "robot.urdf"
    path.write_text(URDF.format(mass=mass, ixx=ixx, axis=axis, extra=extra))
    return path


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"mass": "-1.2"}, r"robot\.urdf:2: <mass>: link 'a': value='-1\.2': a mass must be from 0 to 1e\+09 kg"),
        ({"mass": "1e308"}, r"robot\.urdf:2: <mass>: link 'a': value='1e308': a mass must be from 0 to 1e\+09 kg"),
        ({"mass": "nan"}, r"robot\.urdf:2: <mass>: value='nan' is not 1 finite number"),
        ({"ixx": "1e308"}, r"robot\.urdf:3: <inertia>: link 'a': ixx='1e308': beyond ±1e\+21 kg·m²"),
        ({"ixx": "-inf"}, r"robot\.urdf:3: <inertia>: ixx='-inf' is not 1 finite number"),
        (
            {"extra": '\n<dynamics damping="-0.5" friction="0"/>'},
            r"robot\.urdf:7: <dynamics>: joint 'j': damping='-0\.5' is negative",
        ),
        (
            {"extra": '\n<dynamics damping="0.5" friction="-1"/>'},
            r"robot\.urdf:7: <dynamics>: joint 'j': friction='-1' is negative",
        ),
        (
            {"extra": '\n<safety_controller soft_lower_limit="0.5" soft_upper_limit="-0.5" k_velocity="1"/>'},
            r"robot\.urdf:7: <safety_controller>: joint 'j': soft_lower_limit='0\.5' is above soft_upper_limit='-0\.5'",
        ),
    ],
)
def test_impossible_urdf_values_are_refused_naming_the_element(
    tmp_path: Path, fields: dict[str, str], message: str
) -> None:
    with pytest.raises(ReadError, match=message):
        load_robot_model(_urdf(tmp_path, **fields))


def test_urdf_values_in_range_are_read(tmp_path: Path) -> None:
    extra = (
        '\n<dynamics damping="0.5" friction="0.1"/><safety_controller soft_lower_limit="-0.5" '
        'soft_upper_limit="0.5" k_velocity="1"/>'
    )
    model = load_robot_model(_urdf(tmp_path, mass="1e9", ixx="1e21", extra=extra))
    inertial = model.links[0].inertial
    assert inertial is not None and inertial.mass == 1e9 and inertial.inertia[0, 0] == 1e21


def test_an_axis_near_the_float_range_has_its_direction(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = load_robot_model(_urdf(tmp_path, axis="1e308 0 0"))
        np.testing.assert_array_equal(model.joint("j").axis, [1.0, 0.0, 0.0])
        model = load_robot_model(_urdf(tmp_path, axis="1.5e308 -1.5e308 0"))
        np.testing.assert_allclose(model.joint("j").axis, [math.sqrt(0.5), -math.sqrt(0.5), 0.0])
    assert not _raw(caught), _raw(caught)
    with pytest.raises(ReadError, match=r"the axis \[0\.0, 0\.0, 0\.0\] has no direction"):
        load_robot_model(_urdf(tmp_path, axis="0 0 0"))


# --------------------------------------------------------------------------- Choreonoid .body
BODY = """\
name: r
links:
  - {{name: base, jointType: free, mass: {mass}, centerOfMass: {com}}}
  - {{name: arm, parent: base, jointType: revolute, jointAxis: {axis}, rotation: {rotation}}}
"""


def _body(
    tmp_path: Path, mass: str = "1", com: str = "[0, 0, 0]", axis: str = "Z", rotation: str = "[0, 0, 1, 0]"
) -> Path:
    path = tmp_path / "robot.body"
    path.write_text(BODY.format(mass=mass, com=com, axis=axis, rotation=rotation))
    return path


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"mass": "9" * 401}, r"base\)\.mass: expected a mass from 0 to 1e\+09 kg, got an integer of about"),
        ({"mass": "1e308"}, r"base\)\.mass: expected a mass from 0 to 1e\+09 kg, got 1e\+308"),
        ({"com": f"[{'9' * 401}, 0, 0]"}, r"base\)\.centerOfMass: expected 3 finite numbers, got \[an integer of"),
        ({"com": "[1e300, 0, 0]"}, r"base\)\.centerOfMass: .* is farther than 1e\+06 m"),
    ],
)
def test_impossible_body_values_are_refused_naming_the_field(
    tmp_path: Path, fields: dict[str, str], message: str
) -> None:
    with pytest.raises(ReadError, match=message):
        load_robot_model(_body(tmp_path, **fields))


def test_body_axes_near_the_float_range_have_their_direction(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = load_robot_model(_body(tmp_path, axis="[1e308, 0, 0]", rotation="[1e308, 0, 0, 90]"))
    assert not _raw(caught), _raw(caught)
    np.testing.assert_array_equal(model.joint("arm").axis, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(model.joint("arm").origin_quat, [math.sqrt(0.5), 0, 0, math.sqrt(0.5)])


def test_limits_in_yaml_1_2_numbers_read_as_ros_reads_them(tmp_path: Path) -> None:
    from motion_formats_ros.core.examples import biped_urdf
    from motion_formats_ros.core.joint_limits import JointLimits

    limits = tmp_path / "joint_limits.yaml"
    limits.write_text("joint_limits:\n  left_knee:\n    has_velocity_limits: true\n    max_velocity: 5e-1\n")
    overlaid = JointLimits.from_urdf(biped_urdf()).overlay(limits)
    assert overlaid["left_knee"].velocity == 0.5


def test_times_a_few_subnormals_apart_have_no_rate() -> None:
    from motion_formats_ros.core.timing import detect_rate

    assert detect_rate(np.array([0.0, 5e-324, 1e-323, 1.5e-323])) is None


def test_a_step_of_a_few_subnormals_gives_no_rate_and_no_overflow_warning() -> None:
    from motion_formats_ros.core.timing import detect_rate

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "overflow encountered" would be an error here
        assert detect_rate(np.array([0.0, 5e-324])) is None


def test_a_joint_limits_file_is_read_as_yaml_1_2_with_each_key_once(tmp_path: Path) -> None:
    path = tmp_path / "joint_limits.yaml"
    path.write_text("joint_limits:\n  j1:\n    has_velocity_limits: true\n    max_velocity: 1_000\n")
    with pytest.raises(ReadError, match=r"joint_limits\.yaml:4: joint_limits\.j1\.max_velocity: .*not a number"):
        JointLimits({}).overlay(path)
    path.write_text("joint_limits:\n  j1:\n    has_velocity_limits: true\n    max_velocity: 1\n    max_velocity: 9\n")
    with pytest.raises(ReadError, match=r"joint_limits\.yaml:5: duplicate key 'max_velocity'"):
        JointLimits({}).overlay(path)
