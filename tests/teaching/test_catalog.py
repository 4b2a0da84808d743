"""catalog: CSV messages that say what is wrong (issue 9, item 6) and the size limits."""

import numpy as np
import pytest

from covshift import metrics

from teaching import catalog, fits, settings, uploads
from covshift.model_selection import kliep_sigma


def _rows(n=20, sep=",", header=("x1", "x2", "y"), decimal="."):
    rng = np.random.default_rng(0)
    lines = [sep.join(header)]
    for a, b in rng.normal(size=(n, 2)):
        fields = [f"{v:.4f}".replace(".", decimal) for v in (a, b, a + b)]
        lines.append(sep.join(fields))
    return "\n".join(lines) + "\n"


def test_comma_utf8_file_is_read_without_notes():
    table = uploads.read_csv(_rows().encode())
    assert table.columns == ["x1", "x2", "y"] and table.values.shape == (20, 3)
    assert table.notes == []


@pytest.mark.parametrize("sep,name", [(";", "semicolon"), ("\t", "tab"), ("|", "vertical bar")])
def test_other_separators_are_detected_and_named(sep, name):
    table = uploads.read_csv(_rows(sep=sep).encode())
    assert table.columns == ["x1", "x2", "y"]
    np.testing.assert_allclose(table.values, uploads.read_csv(_rows().encode()).values)
    assert any(name in note for note in table.notes)


def test_semicolon_file_with_decimal_commas():
    table = uploads.read_csv(_rows(sep=";", decimal=",").encode())
    np.testing.assert_allclose(table.values, uploads.read_csv(_rows().encode()).values)


def test_header_only_file_says_it_has_no_data_rows():
    with pytest.raises(ValueError, match="no data rows") as info:
        uploads.read_csv(b"x1,x2,y\n")
    assert "non-numeric" not in str(info.value) and "x1, x2, y" in str(info.value)


@pytest.mark.parametrize("raw", [b"", b"\n\n  \n"])
def test_empty_file(raw):
    with pytest.raises(ValueError, match="empty"):
        uploads.read_csv(raw)


def test_latin1_and_bom_files_are_read_and_the_encoding_named():
    latin = _rows(header=("température", "x2", "y")).encode("latin-1")
    table = uploads.read_csv(latin)
    assert table.columns[0] == "température"
    assert any("Latin-1" in note for note in table.notes)
    bom = b"\xef\xbb\xbf" + _rows().encode()
    table = uploads.read_csv(bom)
    assert table.columns == ["x1", "x2", "y"]  # no BOM glued to the first name
    assert any("UTF-8 with BOM" in note for note in table.notes)


@pytest.mark.parametrize("codec,name", [("utf-16", "UTF-16 with BOM"), ("utf-16-le", "UTF-16 (little-endian, no BOM)"),
                                        ("utf-16-be", "UTF-16 (big-endian, no BOM)")])
def test_utf16_files_are_read_and_the_encoding_named(codec, name):
    """What spreadsheet programs save as "Unicode text": UTF-16, tab-separated, with or without BOM."""
    table = uploads.read_csv(_rows(sep="\t", header=("température", "x2", "y")).encode(codec))
    assert table.columns == ["température", "x2", "y"]
    np.testing.assert_allclose(table.values, uploads.read_csv(_rows().encode()).values)
    assert any(name in note for note in table.notes), table.notes


def test_binary_file_is_named_binary():
    with pytest.raises(ValueError, match="binary") as info:
        uploads.read_csv(b"PK\x03\x04\x00\x00" + bytes(range(256)))
    assert "UTF-16" in str(info.value) and "Excel" in str(info.value)


def test_ragged_file_message_names_encoding_and_separator():
    raw = b"a;b;c\n1;2;3\n4;5;6;7;8\n"
    with pytest.raises(ValueError, match="semicolon") as info:
        uploads.read_csv(raw)
    assert "UTF-8" in str(info.value) and "comma-separated" not in str(info.value)


def test_too_few_numeric_columns_names_the_count():
    raw = ("name,y\n" + "".join(f"n{i},{i}\n" for i in range(20))).encode()
    with pytest.raises(ValueError, match=r"found 1 .* non-numeric: name"):
        uploads.read_csv(raw)


def test_constant_input_column_is_named_as_constant():
    text = "x1,x2,y\n" + "".join(f"{i},3.0,{i * 2}\n" for i in range(30))
    table = uploads.read_csv(text.encode())
    with pytest.raises(ValueError, match="x2 are constant") as info:
        uploads.csv_dataset(table, ["x1", "x2"], ["y"])
    assert "more rows" not in str(info.value)
    uploads.csv_dataset(table, ["x1"], ["y"])  # without it the data set builds


def test_inputs_too_large_to_compute_with_are_named():
    text = "x1,x2,y\n" + "".join(f"{i},{i}e200,{i}\n" for i in range(1, 31))
    table = uploads.read_csv(text.encode())
    with pytest.raises(ValueError, match=r"x2 \(up to 3e\+201\) are too large"):
        uploads.csv_dataset(table, ["x1", "x2"], ["y"])
    with pytest.raises(ValueError, match="Output column"):
        uploads.csv_dataset(table, ["x1"], ["x2"])


def test_unknown_column_is_named():
    table = uploads.read_csv(_rows().encode())
    with pytest.raises(ValueError, match="Unknown column.*nope"):
        uploads.csv_dataset(table, ["nope"], ["y"])


def test_subsample_is_seeded_and_bounded():
    raw = _rows(n=300).encode()
    a, b = uploads.read_csv(raw, max_rows=50, seed=1), uploads.read_csv(raw, max_rows=50, seed=1)
    c = uploads.read_csv(raw, max_rows=50, seed=2)
    assert a.values.shape == (50, 3)
    np.testing.assert_array_equal(a.values, b.values)
    assert not np.array_equal(a.values, c.values)
    assert any("50 of 300" in note for note in a.notes)


# ------------------------------------------------------------------ values from a URL
@pytest.mark.parametrize("seed,params,message", [
    (float("inf"), {}, "seed must be a whole number"), (0, {"n_tr": -5}, "n_tr"),
    (0, {"n_tr": 2.5}, "n_tr must be a whole number"), ("abc", {}, "seed"),
    (0, {"sigma": 1.0}, "Unknown parameter"), (0, {"std_tr": float("inf")}, "std_tr"),
    (0, {"mean_tr": float("nan")}, "mean_tr"),
])
def test_make_dataset_refuses_bad_values_by_name(seed, params, message):
    with pytest.raises(ValueError, match=message):
        catalog.make_dataset("sinc", seed=seed, **params)


def test_make_dataset_accepts_integer_valued_floats():
    assert len(catalog.make_dataset("sinc", seed=3.0, n_tr=40.0, n_te=20).X_tr) == 40


@pytest.mark.parametrize("sigma", ["abc", float("inf"), -1.0, True])
def test_make_weight_estimator_names_sigma(sigma):
    with pytest.raises(ValueError, match="sigma"):
        catalog.make_weight_estimator("FCFWCS", sigma)


def test_make_regressor_and_few_labels_refuse_by_name():
    with pytest.raises(ValueError, match="Unknown regression model"):
        catalog.make_regressor("NOPE")
    with pytest.raises(ValueError, match="lambda_x"):
        catalog.make_regressor("GPR", lambda_x="abc")
    data = catalog.make_dataset("sinc", n_tr=30, n_te=20)
    with pytest.raises(ValueError, match="n_labels"):
        fits.regression.few_labels_comparison(data, np.ones(30), n_labels=float("nan"))
    tiny = catalog.make_dataset("sinc", n_tr=30, n_te=3)
    with pytest.raises(ValueError, match="at least 4 test points"):
        fits.regression.few_labels_comparison(tiny, np.ones(30))


# ------------------------------------------------------------------ shared sigma
def test_shared_kliep_sigma_is_the_model_selection_choice_and_names_its_rule(paper_data):
    shared = fits.regression.shared_kliep_sigma(paper_data)
    assert shared.sigma == kliep_sigma(paper_data.X_tr, paper_data.X_te)["best_sigma"]
    assert shared.rule == "lcv" and shared.rule_label == "likelihood cross-validation"
    assert shared.seconds > 0 and "mean_log_likelihood" in shared.cv_results
    manual = fits.regression.shared_kliep_sigma(paper_data, sigma=0.4)
    assert (manual.sigma, manual.rule, manual.cv_results) == (0.4, "manual", None)
    iwcv = fits.regression.shared_kliep_sigma(paper_data, rule="iwcv")
    assert iwcv.rule_label == "importance-weighted cross-validation"
    assert iwcv.sigma in iwcv.cv_results["sigma"]


@pytest.mark.parametrize("name", sorted(catalog.KLIEP_FAMILY))
def test_kliep_family_fitted_with_the_shared_sigma_uses_it(name, paper_data):
    shared = fits.regression.shared_kliep_sigma(paper_data)
    model = catalog.make_weight_estimator(name, shared.sigma).fit(paper_data.X_tr, paper_data.X_te)
    assert model.sigma_ == shared.sigma


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_regression_page_caption_on_the_twin_gp_start_holds_on_sinc(seed):
    """pages/regression.py says the linear start can trap a Twin GP on Sinc and kernel ridge avoids it."""
    defaults = settings.defaults()
    hyper = {k: defaults[k] for k in ["theta", "gamma", "rho_x", "rho_y", "lambda_x", "lambda_y"]}
    data = catalog.make_dataset("sinc", seed=seed)
    for name in ["KLTGP", "SMTGP"]:
        mae = {start: metrics.mae(data.Y_te, fits.regression.fit_predict(data, name, None, tgp_start=start,
                                                                  **hyper).model["mean"])
               for start in catalog.TGP_STARTS}
        assert mae["ridge"] < 0.5 * mae["linear"], (name, mae)


def test_unknown_twin_gp_start_is_refused_by_name():
    with pytest.raises(ValueError, match="tgp_start"):
        catalog.make_regressor("SMTGP", tgp_start="zero")


@pytest.mark.parametrize("name", ["SMTGP", "IW-SMTGP"])
def test_smtgp_with_the_linear_start_is_the_weighted_kltgp_chain(name, paper_data):
    """The app's SMTGP with the original start (tgp_start "linear") computes its KLTGP start inside its own fit
    (issue 40): the same prediction as an SMTGP started from the app's KLTGP prediction with the same weights
    (linear -> KLTGP -> SMTGP); the kernel-ridge start is another start."""
    rng = np.random.default_rng(0)
    w = rng.uniform(0.2, 3.0, len(paper_data.X_tr))
    hyper = dict(theta=0.9, gamma=1.5, rho_x=1.0, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3)
    kltgp = fits.regression.fit_predict(paper_data, name.replace("SMTGP", "KLTGP"), w, tgp_start="linear", **hyper)
    chained = catalog.make_regressor(name, tgp_start="linear", **hyper).set_params(init=kltgp.model["mean"])
    own_weights = w if name.startswith("IW-") else None
    chained = chained.fit(paper_data.X_tr, paper_data.Y_tr, sample_weight=own_weights).predict(paper_data.X_te,
                                                                                               return_certainty=True)
    own = fits.regression.fit_predict(paper_data, name, w, tgp_start="linear", **hyper)
    np.testing.assert_allclose(own.model["mean"], np.reshape(chained[0], own.model["mean"].shape), rtol=1e-12,
                               atol=1e-14)
    np.testing.assert_allclose(own.model["certainty"], chained[1], rtol=1e-12)
    ridge = fits.regression.fit_predict(paper_data, name, w, tgp_start="ridge", **hyper)
    assert not np.allclose(ridge.model["mean"], own.model["mean"], rtol=1e-6)


def test_leave_one_out_error_is_that_of_refits_without_each_point():
    from covshift.regression import GPR

    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(25, 2)), rng.normal(size=(25, 2))
    refits = [Y[i] - GPR(rho_x=0.8, lambda_x=0.05).fit(np.delete(X, i, 0), np.delete(Y, i, 0)).predict(X[i:i + 1])[0]
              for i in range(len(X))]
    assert fits.regression.leave_one_out_error(X, Y, 0.8, 0.05) == pytest.approx(np.mean(np.sum(np.square(refits), 1)),
                                                                         rel=1e-8)


def test_data_hyper_follows_the_outputs_scale_and_standardised_fits_map_back():
    from covshift.data import ShiftData

    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 2))
    y = np.sin(2 * X[:, :1]) + 0.1 * rng.normal(size=(80, 1))
    small, large = (ShiftData(X[:60], y[:60] * a + b, X[60:], y[60:] * a + b, None, "toy") for a, b in [(1, 0),
                                                                                                      (50, 300)])
    auto = fits.regression.data_hyper(large)
    assert auto == pytest.approx(fits.regression.data_hyper(small), rel=1e-12)  # standardised outputs: the same at any scale
    assert auto["rho_y"] == pytest.approx(fits.regression.OUTPUT_WIDTH * np.sqrt(np.mean(np.var(
        (small.Y_tr - small.Y_tr.mean()) / small.Y_tr.std(), 0))))
    raw = fits.regression.data_hyper(large, standardise_outputs=False)
    spread = float(np.var(large.Y_tr))  # without standardising: relative to the outputs' variance in their units
    assert raw["rho_y"] == pytest.approx(fits.regression.OUTPUT_WIDTH * np.sqrt(spread))
    assert min(abs(raw["lambda_x"] / spread - lam) for lam in fits.regression.NOISE_GRID) < 1e-12
    for name in ["GPR", "SMTGP"]:
        a = fits.regression.fit_predict(small, name, standardise_outputs=True, **auto).model["mean"]
        b = fits.regression.fit_predict(large, name, standardise_outputs=True, **auto).model["mean"]
        np.testing.assert_allclose(b, 50 * a + 300, rtol=1e-6, atol=1e-6)
