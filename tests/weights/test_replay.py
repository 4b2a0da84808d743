"""Replay of a Frank-Wolfe run from its history: frames, input-space view, animation figure."""

import json
import warnings

import numpy as np
import plotly.graph_objects as go
import pytest

from teaching import figures
from covshift.data import sinc_shift
from covshift.exceptions import ConvergenceWarning
from covshift.kernels import gaussian_kernel
from covshift.weights import FCFWCS, KLIEP, PFWCS
from covshift.weights.replay import frame_rows, replay_frames
from teaching.figures import replay_figure


@pytest.fixture(scope="module")
def pfwcs_run():
    data = sinc_shift(n_tr=200, n_te=150, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = PFWCS(sigma=0.3, tol=1e-8, max_iter=400).fit(data.X_tr, data.X_te)
    return data, est


def test_frame_rows_are_bounded_and_keep_first_and_last():
    np.testing.assert_array_equal(frame_rows(5, 10), np.arange(5))
    rows = frame_rows(2001, 100)
    assert len(rows) == 100 and rows[0] == 0 and rows[-1] == 2000 and np.all(np.diff(rows) > 0)
    with pytest.raises(ValueError, match="max_frames"):
        frame_rows(10, 1)


def test_frames_describe_the_iterate_they_draw(pfwcs_run):
    data, est = pfwcs_run
    hist = est.history_
    grid = np.linspace(-1.0, 2.0, 40)[:, None]
    frames = replay_frames(est, grid, max_frames=50)
    assert len(frames) == 50 and frames[0].t == 0 and frames[-1].t == len(hist) - 1
    # t = 0 is the paper's starting vertex: one atom, and the caption's count is that iterate's
    assert len(frames[0].atoms) == 1 and frames[0].step == ""
    for frame in frames:
        alpha = hist.alpha_at(frame.t)
        np.testing.assert_array_equal(np.sort(frame.atoms), np.flatnonzero(alpha))
        np.testing.assert_allclose(frame.alpha, alpha[frame.atoms], rtol=1e-12)
        assert frame.objective == hist.objective[frame.t] and frame.gap == hist.gap[frame.t]
        # w_t(x) = sum_l alpha_l k(x, c_l), checked against the kernel directly
        expected = gaussian_kernel(grid, est.centers_, est.sigma_) @ alpha
        np.testing.assert_allclose(frame.curve, expected, rtol=1e-10, atol=1e-12)
        if frame.t > 0:
            before = np.flatnonzero(hist.mu_at(frame.t - 1))
            np.testing.assert_array_equal(frame.entered, np.setdiff1d(frame.atoms, before))
            np.testing.assert_array_equal(np.sort(frame.left), np.setdiff1d(before, frame.atoms))
            assert frame.step.startswith(hist.direction[frame.t - 1])
    # the last frame is the fitted solution
    np.testing.assert_allclose(frames[-1].curve, est.predict_weights(grid), rtol=1e-10)
    # a swap step of PFWCS shows one atom entering and one leaving
    swaps = np.flatnonzero(hist.step_kind[:-1] == "swap")
    assert swaps.size
    swap_frame = replay_frames(est, max_frames=len(hist))[swaps[0] + 1]
    assert len(swap_frame.entered) == 1 and len(swap_frame.left) == 1


def test_replay_needs_a_frank_wolfe_history(paper_data):
    kliep = KLIEP(sigma=0.3, n_centers=50).fit(paper_data.X_tr, paper_data.X_te)
    with pytest.raises(ValueError, match="Frank-Wolfe"):
        replay_frames(kliep)


def test_replay_animation_figure_in_input_space(pfwcs_run):
    data, est = pfwcs_run
    fig, n_frames, one_d = replay_figure(est, data.X_tr, data.X_te, data.density_ratio, max_frames=30)
    assert isinstance(fig, go.Figure) and one_d and n_frames == 30 == len(fig.frames)
    assert [f.name for f in fig.frames][:2] == ["0", str(frame_rows(len(est.history_), 30)[1])]
    slider = fig.layout.sliders[0]
    assert len(slider.steps) == 30 and list(slider.steps[1].args[0]) == [fig.frames[1].name]
    labels = [b.label for b in fig.layout.updatemenus[0].buttons]
    assert labels == ["Play", "Pause", "Back", "Step"]
    # Step in frame i animates to frame i + 1, Back to frame i - 1: exactly one
    for i in [0, 5, 29]:
        buttons = fig.frames[i].layout.updatemenus[0].buttons
        assert list(buttons[3].args[0]) == [fig.frames[min(i + 1, 29)].name]
        assert list(buttons[2].args[0]) == [fig.frames[max(i - 1, 0)].name]
    assert fig.layout.updatemenus[0].buttons[0].args[1]["frame"]["duration"] >= 200  # readable
    # the caption drawn in each frame names that frame's iteration
    for frame in fig.frames[:3]:
        assert f"iteration t = {frame.name}</b>" in frame.data[3].text[0]
    assert fig.data[-1].name == "true ratio" and fig.layout.xaxis.title.text == "x"


def test_replay_in_several_dimensions_names_its_index_axis(small_2d):
    X_tr, X_te = small_2d
    est = FCFWCS(sigma=1.0, tol=1e-6).fit(X_tr, X_te)
    fig, n_frames, one_d = replay_figure(est, X_tr, X_te)
    assert not one_d and n_frames == len(est.history_)
    assert "index" in fig.layout.xaxis.title.text
    plots_fig = figures.replay_animation(replay_frames(est), est.center_index_, "FCFWCS", start=1)
    assert plots_fig.layout.sliders[0].active == 1


def test_replay_figure_built_without_validation_equals_the_validated_figure(pfwcs_run):
    data, est = pfwcs_run
    fig, *_ = replay_figure(est, data.X_tr, data.X_te, data.density_ratio, max_frames=20)
    validated = go.Figure(fig.to_plotly_json())  # every property validated by plotly
    assert json.loads(fig.to_json()) == json.loads(validated.to_json())  # key order aside
    assert fig.layout.template.layout.paper_bgcolor == "white"  # plotly_white, as the other figures
    with pytest.raises(ValueError):  # later changes are validated again
        fig.update_layout(not_a_property=1)
