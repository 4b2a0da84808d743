"""Issue 31 items 1 and 2 on files written here from scikit-learn's bundled data: no number is silently
misread (decimal marks, thousands separators, Latin-1), identifier and date columns are recognised, and
a file whose test rows have no outputs is read, split and modelled."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes, load_wine

from teaching import catalog, fits, uploads

WINE = load_wine(as_frame=True).frame


def european_wine(thousands=True):
    """Wine as a spreadsheet in a decimal-comma locale writes it: semicolons, decimal commas, proline (278-1680)
    with a thousands dot ("1.065"), and a Latin-1 header ("degré")."""
    lines = ["degré alcool;malic_acid;magnesium;proline;target"]
    for row in WINE.itertuples(index=False):
        proline = f"{int(row.proline):,}".replace(",", ".") if thousands else str(int(row.proline))
        lines.append(";".join([f"{row.alcohol:.2f}".replace(".", ","), f"{row.malic_acid:.2f}".replace(".", ","),
                               str(int(row.magnesium)), proline, str(int(row.target))]))
    return ("\n".join(lines) + "\n").encode("latin-1")


def test_semicolon_decimal_comma_thousands_dots_and_latin1_are_read_as_meant():
    table = uploads.read_csv(european_wine())
    values = dict(zip(table.columns, table.values.T))
    assert table.columns[0] == "degré alcool"
    np.testing.assert_allclose(values["proline"], WINE["proline"])  # 1.065 = 1065, not 1.065
    np.testing.assert_allclose(values["degré alcool"], WINE["alcohol"], atol=0.005)
    assert values["proline"].mean() == pytest.approx(WINE["proline"].mean())  # 747, not about 1.7
    notes = " ".join(table.notes)
    assert "Latin-1" in notes and "semicolon" in notes
    assert "'.' as the thousands separator" in notes and "proline" in notes


def test_a_mark_that_could_be_either_is_refused_by_name_with_the_way_out():
    # no decimal comma anywhere: "1.065" could be 1.065 or 1065, and nothing in the file says which
    lines = ["magnesium;proline;target"] + [f"{int(m)};{int(p):,};{int(t)}".replace(",", ".")
                                             for m, p, t in zip(WINE.magnesium, WINE.proline, WINE.target)]
    table = uploads.read_csv(("\n".join(lines) + "\n").encode())
    assert "proline" not in table.columns and table.columns == ["magnesium", "target"]
    refusal = next(note for note in table.notes if "proline" in note)
    assert "could be" in refusal and "1065" in refusal.replace(".", "") and "Save the file" in refusal


def test_a_decimal_point_in_a_decimal_comma_file_is_refused_not_read_as_thousands():
    text = "x;w;y;z\n" + "".join(f"{i},5;{i / 7:.3f};{i}.25;{i % 3}\n".replace(".", ",", 1) for i in range(1, 40))
    table = uploads.read_csv(text.encode())  # pandas' thousands="." would read 3.25 as 325
    assert "y" not in table.columns
    assert any("y: '1.25'" in note and "thousands separator" in note for note in table.notes)


def test_identifier_and_date_columns_are_recognised_and_the_date_splits():
    rng = np.random.default_rng(0)
    X = load_diabetes(scaled=False).data
    days = pd.date_range("2020-01-01", periods=len(X), freq="D")
    frame = pd.DataFrame({"id": np.arange(1001, 1001 + len(X)), "date": days.strftime("%Y-%m-%d"),
                          "age": X[:, 0], "bmi": X[:, 2], "bp": X[:, 3], "y": rng.normal(size=len(X))})
    table = uploads.read_csv(frame.to_csv(index=False).encode())
    assert table.id_like == ["id"] and "date" in table.dates and "date" not in table.columns
    assert any("id" in note and "identifiers" in note for note in table.notes)
    assert "date" in uploads.split_choices(table, ["age", "bmi"], ["y"])
    median = uploads.csv_dataset(table, ["age", "bmi", "bp"], ["y"], "date")
    assert len(median.X_tr) == len(X) // 2  # before the median date
    chosen = uploads.csv_dataset(table, ["age", "bmi", "bp"], ["y"], ["date", "2020-03-01"], standardise=False)
    assert len(chosen.X_tr) == 31 + 29  # January and February 2020
    np.testing.assert_allclose(chosen.X_tr[:, 1], X[:60, 2])
    with pytest.raises(ValueError, match="not a date"):
        uploads.csv_dataset(table, ["age"], ["y"], ["date", "soon"])


def penguin_like(test_share=0.6, unlabelled_training=5, seed=0):
    """Diabetes in raw units, the usual covariate-shift file: test rows (chosen by a bias on bmi) have no
    output, and a few training rows have none either; a 0/1 column 'train'."""
    bunch = load_diabetes(scaled=False)
    frame = pd.DataFrame(bunch.data, columns=bunch.feature_names)
    rng = np.random.default_rng(seed)
    z = (frame["bmi"] - frame["bmi"].mean()) / frame["bmi"].std()
    test = rng.random(len(frame)) < np.clip(test_share + 0.25 * z, 0.05, 0.95)
    frame["target"] = np.where(test, np.nan, bunch.target)
    unlabelled = rng.choice(np.flatnonzero(~test), unlabelled_training, replace=False)
    frame.loc[unlabelled, "target"] = np.nan
    frame["train"] = (~test).astype(int)
    return frame, test


@pytest.mark.parametrize("test_share", [0.3, 0.7])
def test_unlabelled_test_rows_are_kept_and_split_off(test_share):
    frame, test = penguin_like(test_share)
    table = uploads.read_csv(frame.to_csv(index=False).encode())
    assert "target" in table.columns  # not "Ignored non-numeric column(s): target"
    assert not any("non-numeric" in note for note in table.notes)
    inputs = ["age", "bmi", "bp", "s1", "s5"]
    by_column = uploads.csv_dataset(table, inputs, ["target"], "train")
    assert len(by_column.X_te) == test.sum() and len(by_column.X_tr) == (~test).sum()  # no row dropped
    assert by_column.labelled_te.sum() == 0 and by_column.labelled_tr.sum() == (~test).sum() - 5
    by_missing = uploads.csv_dataset(table, inputs, ["target"], uploads.MISSING_OUTPUTS)
    assert len(by_missing.X_te) == test.sum() + 5 and by_missing.labelled_tr.all()
    sentences = " ".join(uploads.describe_rows(table, inputs, by_column))
    assert f"Outputs known on {(~test).sum() - 5} of {(~test).sum()} training rows and 0 of {test.sum()} test" \
        in sentences


def test_models_fit_on_labelled_rows_and_predict_every_test_row():
    frame, test = penguin_like(0.6)
    table = uploads.read_csv(frame.to_csv(index=False).encode())
    data = uploads.csv_dataset(table, ["age", "bmi", "bp", "s5"], ["target"], "train")
    hyper = fits.regression.data_hyper(data, True)
    assert all(np.isfinite(v) for v in hyper.values())
    outcome = fits.regression.fit_predict(data, "GPR", standardise_outputs=True, **hyper)
    assert outcome.model["mean"].shape == (len(data.X_te), 1) and np.all(np.isfinite(outcome.model["mean"]))
    weights = catalog.make_weight_estimator("FCFWCS", "auto").fit(data.X_tr, data.X_te).weights_
    assert len(weights) == len(data.X_tr)  # the weights use every training row, labelled or not
    weighted = fits.regression.fit_predict(data, "IW-GPR", weights, standardise_outputs=True, **hyper)
    assert np.all(np.isfinite(weighted.model["mean"]))


def test_a_split_that_leaves_too_few_rows_names_the_real_cause():
    frame, _ = penguin_like(0.6)
    frame.loc[frame.index[frame["train"] == 1][3:], "s1"] = np.nan  # s1 empty on all but 3 training rows
    table = uploads.read_csv(frame.to_csv(index=False).encode())
    with pytest.raises(ValueError, match=r"lack one of the chosen inputs .* empty cells in s1") as info:
        uploads.csv_dataset(table, ["age", "s1"], ["target"], "train")
    assert "train/test column leaves" not in str(info.value)
    empty_output = uploads.read_csv(b"a,b,c\n" + b"".join(b"%d,%d,%d\n" % (i, i * i, i % 2) for i in range(20)))
    frame = pd.DataFrame(empty_output.values, columns=empty_output.columns).assign(y=np.nan)
    table = uploads.read_csv(frame.to_csv(index=False).encode())
    assert "y" not in table.columns and any("empty column(s): y" in note for note in table.notes)


def test_day_first_dates_in_a_decimal_comma_file_are_dates_not_refused_numbers():
    days = pd.date_range("2022-01-01", periods=len(WINE)).strftime("%d.%m.%Y")
    text = european_wine().decode("latin-1").splitlines()
    rows = [text[0] + ";Datum"] + [line + ";" + day for line, day in zip(text[1:], days)]
    table = uploads.read_csv(("\n".join(rows) + "\n").encode("latin-1"))
    assert "Datum" in table.dates and not any("Refused" in note for note in table.notes)
    assert str(table.dates["Datum"][31].astype("datetime64[D]")) == "2022-02-01"
    np.testing.assert_allclose(dict(zip(table.columns, table.values.T))["proline"], WINE["proline"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-1e7, 1e7, allow_nan=False).map(lambda v: round(v, 2)), min_size=12, max_size=40),
       st.sampled_from([(";", ",", "."), (",", ".", ","), ("\t", ",", ".")]), st.booleans())
def test_numbers_written_with_any_mark_and_thousands_separator_read_back(values, marks, whole):
    """Whatever the locale wrote (decimal mark, thousands separator, whole numbers or two decimals), a column
    reads back as the numbers, or is refused by name: never silently misread."""
    sep, decimal, thousands = marks
    values = [float(round(v)) for v in values] if whole else values

    def written(v):
        text = f"{v:,.{0 if whole else 2}f}".replace(",", "\0").replace(".", decimal).replace("\0", thousands)
        return f'"{text}"' if sep in text else text

    lines = [sep.join(["x", "label", "group"])] + [sep.join([written(v), str(i % 2), str(i % 3)])
                                                   for i, v in enumerate(values)]
    table = uploads.read_csv(("\n".join(lines) + "\n").encode())
    if "x" in table.columns:
        np.testing.assert_allclose(table.values[:, table.columns.index("x")], values, rtol=0, atol=1e-6)
    else:
        assert any(note.startswith("Refused") and "x:" in note for note in table.notes)
