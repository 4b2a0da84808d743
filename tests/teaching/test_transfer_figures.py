"""The domain-transfer figures of teaching.figures: pure functions with the data they are given."""

import numpy as np

from teaching import figures
from covshift.transfer import CuttingPlaneHistory


def test_transfer_curves_draw_every_method_with_error_bars():
    curves = {"metric": "accuracy", "l": [2, 5], "n_seeds": 3,
              "methods": {"source only": {"mean": [0.2, 0.2], "sd": [0.0, 0.0]},
                          "domain transfer": {"mean": [0.3, 0.5], "sd": [0.05, 0.04]}}}
    fig = figures.transfer_curves(curves)
    assert [t.name for t in fig.data] == ["source only", "domain transfer"]
    np.testing.assert_allclose(fig.data[1].y, [0.3, 0.5])
    np.testing.assert_allclose(fig.data[1].error_y.array, [0.05, 0.04])
    assert "higher is better" in fig.layout.yaxis.title.text


def test_digit_grid_marks_mistakes():
    images = np.random.default_rng(0).uniform(size=(3, 8, 8))
    fig = figures.transfer_digit_grid(images, ["1", "2", "3"], {"source only": ["1", "7", "3"],
                                                              "transfer": ["1", "2", "3"]})
    titles = [a.text for a in fig.layout.annotations]
    assert len(fig.data) == 3 and len(titles) == 3
    assert "✗" in titles[1] and "✗" not in titles[0] and "✗" not in titles[2]


def test_cutting_plane_progress_plots_the_history():
    history = CuttingPlaneHistory(np.array([0.5, 0.1, 1e-4]), np.array([1, 2, 3]), np.array([0.0, 0.2, 0.3]),
                                  np.array([0.01, 0.02, 0.03]))
    fig = figures.cutting_plane_progress(history, 1e-3)
    np.testing.assert_allclose(fig.data[0].y, [0.5, 0.1, 1e-4])
    np.testing.assert_array_equal(fig.data[1].y, [1, 2, 3])
