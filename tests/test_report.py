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
    assert md.startswith("# Title <x>") and "| bmi | 0.5 |" in md and "a | b" in md and "?seed=3" in md
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
