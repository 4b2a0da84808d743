"""Issue 9, item 1: everything computed from an uploaded CSV is keyed by the file's content.

Two different files with the same column names used to share cached weights and predictions
(by column names), within a session and across sessions; with different sizes the pages raised.
"""


import numpy as np

from teaching import ui
from teaching import budget, catalog, settings, uploads
from tests.teaching.app.helpers import go, no_exception, open_link, table

COLUMNS = {"source": "csv", "csv_inputs": "x", "csv_outputs": "y", "csv_split": "train",
           "estimators": "FCFWCS", "sigma_mode": "manual", "sigma": "0.4", "models": "GPR,IW-GPR"}


def csv_file(n_rows, shift):
    """x, y = x^2 and a train column: training rows on the left, test rows shifted right."""
    x = np.linspace(-1.0, 1.0, n_rows) + shift
    rows = [f"{xi:.4f},{xi ** 2:.4f},{int(i % 3 != 0)}" for i, xi in enumerate(x)]
    return ("x,y,train\n" + "\n".join(rows)).encode()


FILE_A, FILE_B = csv_file(60, 0.0), csv_file(45, 0.7)


def expected_objective(raw):
    """The FCFWCS objective computed directly in the core, without the app or its caches."""
    data = uploads.csv_dataset(uploads.read_csv(raw), ["x"], ["y"], "train", 0)
    return catalog.make_weight_estimator("FCFWCS", 0.4).fit(data.X_tr, data.X_te).objective_


def with_file(raw):
    at = open_link(COLUMNS)
    at.session_state["csv_bytes"] = raw
    return at


def objective(at):
    return table(at).loc["FCFWCS", "objective"]


def test_two_files_with_the_same_columns_in_one_session():
    at = with_file(FILE_A)
    no_exception(go(at, "pages/weights.py"))
    first = objective(at)
    at.session_state["csv_bytes"] = FILE_B  # a second upload, same column names, other size
    no_exception(at.run())
    second = objective(at)
    assert np.isclose(first, expected_objective(FILE_A)) and np.isclose(second, expected_objective(FILE_B))
    assert not np.isclose(first, second)
    no_exception(go(at, "pages/regression.py"))  # different sizes: no shape error anywhere
    assert not at.error, [e.value for e in at.error]
    assert list(table(at).index) == ["GPR", "IW-GPR"]
    no_exception(go(at, "pages/data.py"))
    assert at.metric[0].value == str(int(uploads.read_csv(FILE_B).values[:, 2].sum()))


def test_two_concurrent_sessions_each_see_their_own_file():
    """Both sessions stay open and take turns (AppTest runs are not thread-safe, so the
    sessions interleave instead of running in parallel threads; the cache is shared as on a
    server)."""
    sessions = {FILE_A: with_file(FILE_A), FILE_B: with_file(FILE_B)}
    for page in ["pages/weights.py", "pages/regression.py", "pages/weights.py"]:
        for raw, at in sessions.items():
            no_exception(go(at, page))
            assert not at.error, [e.value for e in at.error]
            if page == "pages/weights.py":
                assert np.isclose(objective(at), expected_objective(raw))


def _large_file():
    n = budget.CSV_MAX_ROWS + 500
    x = np.random.default_rng(0).normal(size=n)
    return ("x,y,train\n" + "\n".join(f"{a:.5f},{a * 2:.5f},{int(i % 3 != 0)}" for i, a in enumerate(x))).encode()


def test_the_subsample_of_a_large_file_is_seeded_and_part_of_the_key():
    raw = _large_file()

    def training_rows(seed):
        at = open_link({**COLUMNS, "seed": str(seed)})
        at.session_state["csv_bytes"] = raw
        no_exception(go(at, "pages/data.py"))
        return int(at.metric[0].value)

    counts = {seed: training_rows(seed) for seed in (1, 2)}
    kept = budget.CSV_MAX_ROWS  # one number, whatever the methods and the width rule
    assert kept < len(raw.splitlines()) - 1
    for seed, count in counts.items():
        assert count == int(uploads.read_csv(raw, seed=seed, max_rows=kept).values[:, 2].sum())
    assert counts[1] != counts[2]
    assert ui.digest(raw) == ui.digest(bytes(raw)) != ui.digest(raw + b"\n")


def test_the_width_rule_and_the_methods_do_not_change_the_rows_of_an_upload():
    """Issue 38: the rows kept from a file longer than the cap depend on the file and the seed alone; switching the
    width rule auto/manual (and choosing slower models) on the pages keeps the same training and test rows."""
    at = open_link({**COLUMNS, "sigma_mode": "auto"})
    at.session_state["csv_bytes"] = _large_file()
    no_exception(go(at, "pages/weights.py"))

    def shown_rows():
        points = at.session_state["views"][None][1].data()  # the page's View (ui.view) and its data
        return points.X_tr.ravel(), points.X_te.ravel()

    auto = shown_rows()
    at.radio(key="w.sigma_mode").set_value("manual").run()
    no_exception(at)
    assert at.session_state["settings"]["sigma_mode"] == "manual"
    manual = shown_rows()
    no_exception(go(at, "pages/regression.py"))
    at.multiselect(key="w.models").set_value(["GPR", "SMTGP", "IW-SMTGP"]).run()
    no_exception(at)
    slow_models = shown_rows()
    assert len(auto[0]) + len(auto[1]) == budget.CSV_MAX_ROWS
    for rows in (manual, slow_models):
        assert np.array_equal(rows[0], auto[0]) and np.array_equal(rows[1], auto[1])


def test_the_step_cache_keys_a_data_spec_by_every_field():
    """ui.step_cache keys the data specs by their repr (issue 40): it names the class and every field, so that two specs
    that differ anywhere are two cache entries."""
    import dataclasses

    from teaching.steps import BuiltInData, UploadedData

    for kind in (BuiltInData, UploadedData):
        assert all(field.repr for field in dataclasses.fields(kind)), kind
    spec = BuiltInData("sinc", (("n_tr", 100), ("n_te", 60)), 0)
    others = [BuiltInData("sinc", (("n_tr", 100), ("n_te", 61)), 0), BuiltInData("sinc", (("n_tr", 100), ("n_te", 60)), 1),
              BuiltInData("sinc", (("n_tr", 100), ("n_te", 60.0)), 0), BuiltInData("arm", (("n_tr", 100), ("n_te", 60)), 0)]
    assert len({repr(spec), *map(repr, others)}) == 5
    assert repr(spec) == repr(BuiltInData("sinc", (("n_tr", 100), ("n_te", 60)), 0))
    upload = UploadedData("ab" * 32, ("x",), ("y",), "train", True, 0)
    assert repr(upload) != repr(dataclasses.replace(upload, standardise=False))
