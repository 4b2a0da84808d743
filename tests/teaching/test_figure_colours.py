"""The method colours stay apart for colour-blind viewers: the eight estimators of a lesson drawn together."""

import itertools

import numpy as np
import pytest

from teaching import lessons
from teaching.figures.base import METHOD_STYLES

#: Machado, Oliveira & Fernandes (2009), severity 1.0: linear-RGB simulation matrices.
SIMULATIONS = {
    "normal": np.eye(3),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}


def _linear(hex_colour):
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb):
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear_rgb
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > 0.008856, np.cbrt(t), 7.787 * t + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


@pytest.mark.parametrize("vision", list(SIMULATIONS))
def test_estimators_of_a_lesson_differ_for_colour_blind_viewers(vision):
    names = lessons.ESTIMATORS_DISAGREE.settings["estimators"]
    lab = {n: _lab(np.clip(SIMULATIONS[vision] @ _linear(METHOD_STYLES[n][0]), 0, 1)) for n in names}
    closest = min((float(np.linalg.norm(lab[a] - lab[b])), a, b) for a, b in itertools.combinations(names, 2))
    assert closest[0] >= 20, closest


def test_estimators_of_a_lesson_have_distinct_markers():
    names = lessons.ESTIMATORS_DISAGREE.settings["estimators"]
    assert len({METHOD_STYLES[n][1] for n in names}) == len(names)
