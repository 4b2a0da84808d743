"""The words of the Check your data page and its report (teaching.report), numpy's warnings in one sentence
(teaching.outcomes.run_with_warnings) and the standardisation of uploaded inputs (teaching.uploads)."""

import warnings

import numpy as np
import pytest

from covshift.diagnostics import two_sample_test, weight_summary
from teaching import outcomes, report, uploads


def test_numpy_warnings_become_one_sentence_with_the_fix():
    def noisy():
        with np.errstate(over="warn", invalid="warn", divide="warn"):
            np.exp(np.array([1000.0]))
            np.array([0.0]) / np.array([0.0])
        warnings.warn("something else", UserWarning)
        return 1

    result, _, messages = outcomes.run_with_warnings(noisy)
    assert result == 1 and len(messages) == 2 and messages[0] == "something else"
    assert "overflow encountered in exp" in messages[1] and "invalid value encountered" in messages[1]
    assert "Standardise the inputs" in messages[1]


def test_verdict_names_the_test_and_its_p_value():
    rng = np.random.default_rng(0)
    shifted = two_sample_test(rng.normal(size=(80, 2)), rng.normal(size=(80, 2)) + 2, n_permutations=99,
                              random_state=0)
    assert report.test_sentence(shifted).startswith("The training and test inputs differ: MMD p = 0.01 "
                                                    "(the smallest 99 permutations can give). None of 99")
    same = two_sample_test(rng.normal(size=(80, 2)), rng.normal(size=(80, 2)), method="classifier",
                           n_permutations=99, random_state=0)
    assert same.p_value >= report.ALPHA
    assert report.test_sentence(same).startswith(f"No difference between the training and test inputs was "
                                                 f"detected: classifier p = {same.p_value:.2g}")


def test_weights_sentence_uses_the_summary():
    text = report.weights_sentence("KMM", weight_summary(np.r_[np.ones(99), 100.0]))
    ess = 199.0 ** 2 / (99 + 100.0 ** 2)
    assert f"worth {ess:.0f} of the 100 training points" in text and "largest weight is 50.3 times" in text


def test_markdown_and_html_reports_hold_the_same_content():
    blocks = report.document("Title <x>", [("data", "sinc"), ("seed", 3)], "http://host/check?seed=3",
                             [("Shift", [("p", "a | b"), ("table", ["input", "KS"], [["bmi", "0.5"]])])])
    md, page = report.to_markdown(blocks), report.to_html(blocks)
    # Markdown escapes what would be HTML or a table border (the renderer shows "<x>" and "a | b" as written)
    assert md.startswith("# Title \\<x\\>") and "| bmi | 0.5 |" in md and "a \\| b" in md
    assert "<http://host/check?seed=3>" in md  # the view's link as an autolink
    assert "<h1>Title &lt;x&gt;</h1>" in page and "<td>bmi</td><td>0.5</td>" in page and "?seed=3" in page
    with pytest.raises(ValueError, match="block"):
        report.to_markdown([("h9", "x")])


def test_standardised_inputs_map_back_to_the_file_units():
    rows = "\n".join(f"{i},{1000 + 50 * i},{i % 7},{int(i % 3 != 0)}" for i in range(40))
    table = uploads.read_csv(("a,b,y,train\n" + rows).encode())
    raw = uploads.csv_dataset(table, ["a", "b"], ["y"], "train", standardise=False)
    scaled = uploads.csv_dataset(table, ["a", "b"], ["y"], "train")
    mean, scale = uploads.input_scaling(table, ["a", "b"])
    assert np.allclose(scaled.X_tr * scale + mean, raw.X_tr)
    pooled = np.vstack([scaled.X_tr, scaled.X_te])
    assert np.allclose(pooled.mean(axis=0), 0) and np.allclose(pooled.std(axis=0), 1)


def _shifted_wine(seed=0):
    from sklearn.datasets import load_wine

    X = load_wine().data
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rng = np.random.default_rng(seed)
    train = rng.random(len(X)) < 1 / (1 + np.exp(2 * X[:, 12]))  # proline selects
    return X[train], X[~train]


def test_a_shifted_input_is_named_only_below_the_corrected_level():
    from covshift.diagnostics import feature_shift

    names = [f"c{j}" for j in range(13)]
    X_tr, X_te = _shifted_wine()
    shifted = feature_shift(X_tr, X_te)
    assert report.shift_sentence(names, shifted).startswith("Most shifted input: **c12**")
    assert "Holm's correction for testing 13 inputs" in report.shift_sentence(names, shifted)
    rng = np.random.default_rng(0)
    X = np.vstack([X_tr, X_te])
    order = rng.permutation(len(X))
    null = feature_shift(X[order[:89]], X[order[89:]])
    assert null.most_shifted(report.ALPHA) is None  # a random split of this seed
    text = report.shift_sentence(names, null)
    assert text.startswith("No single input can be named as shifted") and "ranks the inputs" in text
    assert len(report.ranking_rows(names, null)[0]) == 4  # input, KS, p-value, corrected p


def test_weights_that_do_not_move_a_detected_shift_are_warned_about():
    X_tr, X_te = _shifted_wine()
    detected = two_sample_test(X_tr, X_te, n_permutations=99, random_state=0)
    assert detected.p_value < report.ALPHA
    uniform = weight_summary(np.ones(len(X_tr)), X_tr, X_te)
    warning = report.weights_warning("FCFWCS", uniform, detected)
    assert warning and "nearly uniform" in warning and "failed" in warning
    assert "at most" in report.weights_sentence("FCFWCS", uniform)
    rng = np.random.default_rng(1)
    X = np.vstack([X_tr, X_te])[rng.permutation(len(X_tr) + len(X_te))]
    same = two_sample_test(X[:89], X[89:], n_permutations=99, random_state=0)
    assert same.p_value >= report.ALPHA  # a random split of this seed
    assert report.weights_warning("FCFWCS", weight_summary(np.ones(89), X[:89], X[89:]), same) is None
    assert "What ESS does not tell" in report.weights_sentence("KMM", weight_summary(np.ones(5)))


def test_cv_sentence_gives_standard_errors_and_whether_the_two_differ():
    from sklearn.linear_model import Ridge

    from covshift.diagnostics import iw_cv_error

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    same = iw_cv_error(Ridge(), X, y, np.ones(60), random_state=0)
    text = report.cv_sentence("GPR", same, None, 1.0)
    assert "±" in text and "cannot be told apart" in text and "No test row has outputs" in text
    text = report.cv_sentence("GPR", same, 0.5, 1.0, n_scored=20, n_test=50)
    assert "on the 20 of 50 test rows that have outputs is 0.5" in text
