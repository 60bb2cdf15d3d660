"""The motion model: validation and the operations every codec and node relies on."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np
import pytest
from conftest import make_file, make_motion

from motion_formats_ros import Motion, MotionFile, Series
from motion_formats_ros.core.model import CodecRecord


def test_shape_mismatch_quotes_both_shapes() -> None:
    with pytest.raises(ValueError, match=r"position has shape \(3, 2\), expected \(3, 3\)"):
        Motion(times=[0, 1, 2], joint_names=("a", "b", "c"), position=np.zeros((3, 2)))


def test_multi_dof_joint_widths_are_checked() -> None:
    m = Motion(times=[0, 1], joint_names=("hip", "knee"), joint_dims=(3, 1), position=np.zeros((2, 4)))
    assert m.dof == 4
    assert m.joint_columns("hip") == slice(0, 3)
    with pytest.raises(ValueError, match=r"expected \(2, 4\)"):
        Motion(times=[0, 1], joint_names=("hip", "knee"), joint_dims=(3, 1), velocity=np.zeros((2, 2)))


@pytest.mark.parametrize("times", [[0.0, 0.0, 1.0], [0.0, 2.0, 1.0]])
def test_times_strictly_increasing(times: list[float]) -> None:
    with pytest.raises(ValueError, match="strictly increasing"):
        Motion(times=times)


def test_times_out_of_order_are_named_as_plain_numbers() -> None:
    with pytest.raises(
        ValueError, match=r"^times must be strictly increasing: times\[2\] = 0\.5 after times\[1\] = 2\.0$"
    ):
        Motion(times=np.array([0.0, 2.0, 0.5]))


def test_nan_time_rejected() -> None:
    with pytest.raises(ValueError, match="NaN"):
        Motion(times=[0.0, float("nan")])


def test_link_and_series_shapes_checked() -> None:
    with pytest.raises(ValueError, match=r"links\['position'\] has shape \(2, 1, 3\), expected \(2, 2, 3\)"):
        Motion(times=[0, 1], link_names=("a", "b"), links={"position": np.zeros((2, 1, 3))})
    with pytest.raises(ValueError, match=r"series\['zmp'\] has shape \(3, 3\)"):
        Motion(times=[0, 1], series={"zmp": Series(np.zeros((3, 3)))})
    with pytest.raises(ValueError, match="root_orientation"):
        Motion(times=[0, 1], root_orientation=np.zeros((2, 3)))


def test_duplicate_joint_names_rejected() -> None:
    with pytest.raises(ValueError, match="duplicate joint names"):
        Motion(times=[0], joint_names=("a", "a"))


def test_duration_and_rate_detection() -> None:
    m = make_motion(frames=101, rate=200.0)
    assert m.duration == pytest.approx(0.5)
    assert m.rate == 200.0
    odd = Motion(times=np.arange(10) / 29.97)
    assert odd.rate == pytest.approx(29.97)
    variable = Motion(times=[0.0, 0.1, 0.25])
    assert variable.rate is None
    assert Motion(times=[3.0]).rate is None
    # Real ROS stamps: uniform 1 kHz at epoch scale is still detected as uniform.
    stamps = 1.7e9 + np.arange(1000) * 1e-3
    assert Motion(times=stamps).rate == pytest.approx(1000.0, rel=1e-6)


def test_explicit_rate_must_match_times() -> None:
    with pytest.raises(ValueError, match="not uniform at rate 25"):
        Motion(times=np.arange(5) / 50, rate=25)


def test_select_rename_reorder_joints_multi_dof() -> None:
    m = make_motion(dims=(1, 3, 1))
    picked = m.select_joints(["j2", "j1"])
    assert picked.joint_names == ("j2", "j1")
    assert picked.joint_dims == (1, 3)
    assert picked.position is not None and m.position is not None
    np.testing.assert_array_equal(picked.position[:, 0], m.position[:, 4])
    np.testing.assert_array_equal(picked.position[:, 1:], m.position[:, 1:4])
    renamed = m.rename_joints({"j0": "hip"})
    assert renamed.joint_names == ("hip", "j1", "j2")
    assert m.rename_joints(str.upper).joint_names == ("J0", "J1", "J2")
    with pytest.raises(KeyError, match="unknown joint 'nope'"):
        m.select_joints(["nope"])
    with pytest.raises(KeyError, match="cannot rename unknown joints"):
        m.rename_joints({"nope": "x"})


def test_slice_by_time_keeps_times() -> None:
    m = make_motion(frames=50, rate=10.0)
    part = m.slice_time(1.0, 2.0)
    assert part.times[0] == pytest.approx(1.0)
    assert part.times[-1] == pytest.approx(2.0)
    assert part.num_frames == 11
    assert part.rate == 10.0
    assert part.links["position"].shape == (11, 2, 3)


def test_sample_linear_values_and_exact_at_samples() -> None:
    m = Motion(times=[0.0, 1.0, 3.0], joint_names=("a",), position=[[0.0], [10.0], [30.0]])
    s = m.sample([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0])
    assert s.position is not None
    np.testing.assert_allclose(s.position[:, 0], [0.0, 0.0, 5.0, 10.0, 20.0, 30.0, 30.0])


def test_sample_keeps_nan_neighbours_exact() -> None:
    m = Motion(times=[0.0, 1.0, 2.0], joint_names=("a",), position=[[1.0], [np.nan], [3.0]])
    s = m.sample([0.0, 0.5, 2.0])
    assert s.position is not None
    assert s.position[0, 0] == 1.0 and np.isnan(s.position[1, 0]) and s.position[2, 0] == 3.0


def test_sample_slerps_quaternions() -> None:
    from scipy.spatial.transform import Rotation

    q0 = Rotation.from_euler("z", 0.0).as_quat()
    q1 = Rotation.from_euler("z", 1.2).as_quat()
    m = Motion(times=[0.0, 1.0], root_orientation=[q0, -q1])  # -q1: same rotation, other hemisphere
    s = m.sample([0.25, 0.5])
    assert s.root_orientation is not None
    angles = Rotation.from_quat(s.root_orientation).as_euler("xyz")[:, 2]
    np.testing.assert_allclose(angles, [0.3, 0.6], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(s.root_orientation, axis=1), 1.0)


def test_step_segments_hold_until_next_keyframe() -> None:
    m = Motion(
        times=[0.0, 1.0, 2.0], joint_names=("a",), position=[[0.0], [1.0], [5.0]], interpolation=("step", "linear")
    )
    assert m.is_keyframed and m.rate is None
    s = m.sample([0.0, 0.5, 0.999, 1.0, 1.5, 2.0])
    assert s.position is not None
    np.testing.assert_allclose(s.position[:, 0], [0.0, 0.0, 0.0, 1.0, 3.0, 5.0])


def test_resample_linear() -> None:
    m = Motion(times=[0.0, 1.0], joint_names=("a",), position=[[0.0], [1.0]])
    r = m.resample(4.0)
    assert r.rate == 4.0
    np.testing.assert_allclose(r.times, [0, 0.25, 0.5, 0.75, 1.0])
    assert r.position is not None
    np.testing.assert_allclose(r.position[:, 0], [0, 0.25, 0.5, 0.75, 1.0])


def test_resample_hold_is_choreonoids_import() -> None:
    # Rows at 0, 0.004, 0.011, 0.035 s into 100 Hz frames 0, 0, 1, 3: the later row wins
    # frame 0, frame 2 repeats frame 1.
    m = Motion(times=[0.0, 0.004, 0.011, 0.035], joint_names=("a",), position=[[1.0], [2.0], [3.0], [4.0]])
    r = m.resample(100.0, method="hold")
    assert r.position is not None
    np.testing.assert_array_equal(r.position[:, 0], [2.0, 3.0, 3.0, 4.0])
    np.testing.assert_allclose(r.times, [0.0, 0.01, 0.02, 0.03])


def test_resample_rejects_bad_arguments() -> None:
    m = make_motion()
    with pytest.raises(ValueError, match="rate must be positive"):
        m.resample(0.0)
    with pytest.raises(ValueError, match="unknown resampling method"):
        m.resample(10.0, method="cubic")


def test_masks_are_held_not_interpolated() -> None:
    off = np.array([[False], [True], [False]])
    m = Motion(times=[0.0, 1.0, 2.0], joint_names=("a",), position=np.zeros((3, 1)), joint_masks={"off": off})
    s = m.sample([0.5, 1.0, 1.5, 2.0])
    np.testing.assert_array_equal(s.joint_masks["off"][:, 0], [False, True, True, False])


def test_every_array_follows_sampling() -> None:
    m = make_motion(frames=10)
    s = m.sample(np.linspace(0, m.duration, 7))
    labels = dict(s.iter_arrays())
    assert set(labels) == set(dict(m.iter_arrays()))
    assert all(a.shape[0] == 7 for a in labels.values())


def test_motion_file_groups() -> None:
    f = make_file()
    assert list(f.groups) == ["target", "actual"]
    assert f.motion is f.groups["target"]
    with pytest.raises(KeyError, match="no group 'x'; groups: target, actual"):
        f.group("x")
    with pytest.raises(ValueError, match="at least one group"):
        MotionFile(groups={})


def test_a_codec_record_is_found_by_its_class_only() -> None:
    @dataclasses.dataclass
    class ARecord(CodecRecord):
        codec: ClassVar[str] = "a"
        kept: int = 0

    @dataclasses.dataclass
    class BRecord(CodecRecord):
        codec: ClassVar[str] = "b"

    m = Motion(times=np.arange(2.0), records={"a": ARecord(7)})
    found = m.record(ARecord)
    assert isinstance(found, ARecord) and found.kept == 7
    assert m.record(BRecord) is None
    m.records["b"] = ARecord(1)  # under another codec's name: not that codec's record
    assert m.record(BRecord) is None
    f = MotionFile.single(m, records={"b": BRecord()})
    assert isinstance(f.record(BRecord), BRecord) and f.record(ARecord) is None
    assert f.map(lambda g: g.slice_time(0.0, 0.5)).motion.record(ARecord) is found  # carried along


def test_times_whose_span_overflows_are_refused() -> None:
    with pytest.raises(ValueError, match=r"times span more than a float holds: -1\.7e\+308 to 1\.7e\+308 s"):
        Motion(times=[-1.7e308, 0, 1.7e308], joint_names=("a",), position=[[0], [1], [2]])


def test_a_time_window_that_ends_before_it_starts_is_said_as_such() -> None:
    from motion_formats_ros.core.errors import OutOfRangeError, SelectionError
    from motion_formats_ros.pipeline.convert import transform

    motion_file = MotionFile.single(Motion(times=np.arange(5) * 0.25, joint_names=("a",), position=np.zeros((5, 1))))
    with pytest.raises(OutOfRangeError, match=r"^end 0.5 is before start 1$"):
        transform(motion_file, start=1.0, end=0.5)
    motion_file.source = "m.yaml"
    with pytest.raises(SelectionError, match=r"^m.yaml: unknown joint 'b'; joints: a$"):
        transform(motion_file, joints=["b"])
    assert transform(motion_file, start=0.5, end=0.5).motion.num_frames == 1
