"""The sampler: a motion at one time, as the motion itself samples it."""

from __future__ import annotations

import numpy as np

from motion_formats_ros.core.examples import biped_walk
from motion_formats_ros.playback.sampler import FrameSampler


def test_sampler_matches_motion_sample() -> None:
    m = biped_walk(rate=50.0, cycles=1).motion
    s = FrameSampler(m)
    for t in (0.0, 0.013, 0.5, 1.19, 5.0):
        frame = s.frame(t)
        ref = m.sample([t])
        assert ref.position is not None and ref.root_orientation is not None
        np.testing.assert_array_equal(frame["position"], ref.position[0])
        np.testing.assert_array_equal(frame["root_orientation"], ref.root_orientation[0])


def test_a_stream_of_ticks_at_once_equals_tick_by_tick() -> None:
    from motion_formats_ros.core.model import Motion

    times = np.array([0.0, 0.5, 1.0, 1.5, 2.0])
    values = np.array([[0.0], [1.0], [0.5], [0.5], [2.0]])
    keyed = Motion(times=times, joint_names=("j",), position=values, interpolation=("linear", "step", "next", "cosine"))
    for m in (keyed, biped_walk(rate=50.0, cycles=1).motion):
        s = FrameSampler(m)
        ticks = np.linspace(-0.1, float(m.times[-1]) + 0.1, 97)
        assert m.position is not None
        at_once = s.at(m.position, ticks)
        for k, t in enumerate(ticks):
            np.testing.assert_array_equal(at_once[k], s.values(m.position, float(t)))
