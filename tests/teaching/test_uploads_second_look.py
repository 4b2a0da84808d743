"""Issue 37 on the reading of uploaded files: no upload stalls the server (shape checked before parsing, the parse
bounded and not repeated for a new seed), identifiers only when they look like one, every bad file named by its
real problem (repeated names, ragged rows, constant inputs, split columns, inf cells), dates never wrapped, names
escaped in the reports and downloads, uploaded bytes forgotten, long link values shortened."""

import collections
import re
import time

import numpy as np
import pandas as pd
import pytest

from teaching import budget, csv_file, report, settings, steps, uploaded_files, uploads


def _cpu_seconds(call):
    start = time.thread_time()  # this thread's CPU time: a busy machine does not inflate it as it does wall time
    try:
        return call(), time.thread_time() - start
    except ValueError as exc:
        return exc, time.thread_time() - start


# ------------------------------------------------------------------ no upload stalls the server
def repeated_header(width=20_000):
    """A 40 KB header repeating one name ('a,1,1,1,...'), then ten rows (pandas renamed the duplicates in
    quadratic time: 19 s for 40 KB)."""
    header = "a," + ",".join(["1"] * width)
    row = ",".join(["0"] * (width + 1))
    return (header + "\n" + "\n".join([row] * 10) + "\n").encode()


def wide(columns=5_000, rows=40):
    rng = np.random.default_rng(0)
    lines = [",".join(f"c{j}" for j in range(columns))]
    lines += [",".join(f"{v:.3f}" for v in rng.normal(size=columns)) for _ in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def long_file(rows=2_000_000):
    """About 20 MB: 2 M rows of 3 columns (1 000 distinct rows repeated: the parse's cost is the same)."""
    rng = np.random.default_rng(0)
    block = "".join(f"{x:.1f},{a},{b}\n" for x, a, b in zip(rng.uniform(0, 10, 1000), rng.integers(0, 100, 1000),
                                                             rng.integers(0, 100, 1000)))
    return ("x1,x2,y\n" + block * (rows // 1000)).encode()


def test_a_header_of_repeated_names_is_refused_at_once_naming_the_limit():
    raw = repeated_header()
    assert len(raw.split(b"\n")[0]) >= 40_000
    refused, seconds = _cpu_seconds(lambda: uploads.parse_csv(raw))
    assert isinstance(refused, ValueError) and seconds < 5.0
    assert "20,001 fields" in str(refused) and f"At most {csv_file.MAX_COLUMNS} columns" in str(refused)
    assert "'1' alone appears 20,000 times" in str(refused)


def test_five_thousand_columns_are_refused_at_once_naming_the_limit():
    refused, seconds = _cpu_seconds(lambda: uploads.parse_csv(wide()))
    assert isinstance(refused, ValueError) and seconds < 5.0 and "5,000 fields" in str(refused)


def test_a_line_longer_than_the_limit_is_refused_naming_the_line():
    raw = b"a,b\n" + b"1,2\n" * 12 + b"3," + b"9" * (csv_file.MAX_LINE_CHARS + 1) + b"\n"
    with pytest.raises(ValueError, match=r"Line 14 has 100,00\d characters; lines of at most 100,000"):
        uploads.parse_csv(raw)


def test_two_million_rows_are_read_from_a_draw_once_for_every_seed(monkeypatch):
    raw = long_file()
    assert 19e6 < len(raw) <= 20 * 2**20  # within the app's upload limit (.streamlit/config.toml: 20 MB)
    table, seconds = _cpu_seconds(lambda: uploads.parse_csv(raw))
    assert not isinstance(table, ValueError) and seconds < 5.0, (table, seconds)
    assert len(table.values) == csv_file.MAX_PARSED_ROWS and table.columns == ["x1", "x2", "y"]
    assert any("2,000,000 data rows" in note and "the same for every seed" in note for note in table.notes)
    # the app parses once per file: a new seed draws other rows from the same parse
    parses = []
    monkeypatch.setattr(uploads, "parse_csv", lambda data: parses.append(1) or table)
    steps.use_cache()
    digest = uploaded_files.add_file(raw)
    first, second = steps.csv_table(digest, 0), steps.csv_table(digest, 1)
    assert len(parses) == 1 and len(first.values) == len(second.values) == budget.CSV_MAX_ROWS
    assert not np.array_equal(first.values, second.values)


def test_repeated_names_are_renamed_by_position_and_said():
    rows = "".join(f"{i},{i % 3},{i * i},{i % 2}\n" for i in range(20))
    table = uploads.parse_csv(("x,x,y,\n" + rows).encode())
    assert table.columns == ["x (column 1)", "x (column 2)", "y", "unnamed (column 4)"]
    notes = " ".join(table.notes)
    assert "Repeated column names ('x' at columns 1, 2)" in notes and "Column(s) 4 have no name" in notes


def test_ragged_rows_are_named_by_their_line():
    rows = [f"{i},{i % 3},{i * 2}" for i in range(20)]
    rows[6] += ",7"  # line 8 of the file
    with pytest.raises(ValueError, match=r"1 row\(s\) have more fields than the header's 3 \(line\(s\) 8, e\.g\. 4"):
        uploads.parse_csv(("a,b,y\n" + "\n".join(rows) + "\n").encode())
    rows = [f"{i},{i % 3},{i * 2}" for i in range(20)]
    rows[4] = "4,1"  # line 6: its last cell is empty
    table = uploads.parse_csv(("a,b,y\n" + "\n".join(rows) + "\n").encode())
    assert any("fewer fields than the header's 3 (line(s) 6)" in note for note in table.notes)
    assert np.isnan(table.values[4, 2])


# ------------------------------------------------------------------ identifiers only when they look like one
def houses(n=150, seed=0):
    """row_id, then measurements with a different whole number in every row."""
    rng = np.random.default_rng(seed)
    area = rng.choice(np.arange(400, 6000), n, replace=False)
    return pd.DataFrame({"row_id": rng.permutation(n) + 1, "area": area,
                         "population": rng.choice(np.arange(10_000, 900_000), n, replace=False),
                         "price_cents": rng.choice(np.arange(5_000_000, 90_000_000), n, replace=False),
                         "huge": rng.choice(1000, n, replace=False) * 1e154, "y": rng.normal(size=n)})


def test_measurements_are_not_identifiers_and_the_note_names_the_rule():
    frame = houses()
    frame["serial"] = np.arange(n := len(frame)) * 7 + 3  # increasing with the row order
    frame["k"] = np.random.default_rng(1).permutation(n)  # 0 .. n - 1 in some order
    table = uploads.parse_csv(frame.to_csv(index=False).encode())
    assert table.id_like == ["row_id", "serial", "k"]
    note = next(note for note in table.notes if "row identifiers" in note)
    assert "row_id (named like an identifier)" in note and "increasing with the row order" in note
    assert f"k (the whole numbers 0 to {n - 1}, each once)" in note
    assert not {"area", "population", "price_cents", "huge"} & set(table.id_like)
    frame["huge"] = frame["huge"] / 1e154 * 1e300  # floats that large are whole numbers, never identifiers
    assert "huge" not in uploads.parse_csv(frame.to_csv(index=False).encode()).id_like


# ------------------------------------------------------------------ the real problem first
def test_split_columns_with_one_value_or_three_name_their_values():
    frame = houses().drop(columns=["huge"]).assign(one=1, three=lambda f: np.arange(len(f)) % 3)
    table = uploads.parse_csv(frame.to_csv(index=False).encode())
    with pytest.raises(ValueError, match=r"'one' holds one value only: 1 \(150 rows\)"):
        uploads.csv_dataset(table, ["area"], ["y"], "one")
    with pytest.raises(ValueError, match=r"'three' holds 3 different values: 0 \(50 rows\), 1 \(50 rows\), 2 \(50"):
        uploads.csv_dataset(table, ["area"], ["y"], "three")


def test_a_constant_input_is_named_before_anything_else():
    frame = houses().assign(flat=2.5, one=1)
    table = uploads.parse_csv(frame.to_csv(index=False).encode())
    with pytest.raises(ValueError, match=r"Input column\(s\) flat are constant .* flat = 2\.5"):
        uploads.csv_dataset(table, ["area", "flat"], ["y"], "one")  # before the split column's own problem


def test_infinite_cells_are_counted_and_their_rows_left_out():
    frame = houses().drop(columns=["huge"])
    frame["area"] = frame["area"].astype(object)
    frame.loc[[3, 9, 20], "area"] = ["inf", "-inf", "inf"]
    table = uploads.parse_csv(frame.to_csv(index=False).encode())
    assert any("Infinite values (inf) in column(s) area (3)" in note for note in table.notes)
    data = uploads.csv_dataset(table, ["area", "population"], ["y"], "selection bias")
    assert len(data.X_tr) + len(data.X_te) == len(frame) - 3
    said = " ".join(uploads.describe_rows(table, ["area", "population"], data))
    assert "3 of 150 rows lack one of the chosen inputs and are left out (empty cells in area (3))" in said


@pytest.mark.parametrize("name,train_value", [("is_test", 0), ("TestSet", 0), ("in_train", 1), ("group", 0),
                                              ("batch", 1)])
def test_a_zero_one_column_trains_on_the_side_its_name_or_its_outputs_say(name, train_value):
    frame = houses().drop(columns=["huge"])
    marked = (np.arange(len(frame)) % 3 == 0).astype(int)
    frame[name] = marked
    if name != "batch":  # 'batch': outputs on both sides, nothing says which; 1 trains
        frame.loc[marked == 1 - train_value, "y"] = np.nan  # the test side has no outputs
    table = uploads.parse_csv(frame.to_csv(index=False).encode())
    data = uploads.csv_dataset(table, ["area", "population"], ["y"], name)
    assert len(data.X_tr) == int((marked == train_value).sum())
    said = uploads.describe_rows(table, ["area", "population"], data, name, ["y"])[0]
    assert said.startswith(f"Train/test split: '{name}' (1 = {'training' if train_value else 'test'}")


# ------------------------------------------------------------------ dates
def dated(n=120):
    days = pd.date_range("2021-01-01", periods=n).strftime("%Y-%m-%d")
    rng = np.random.default_rng(0)
    return pd.DataFrame({"day": days, "x": rng.normal(size=n), "z": rng.normal(size=n), "y": rng.normal(size=n)})


@pytest.mark.parametrize("typed,problem", [("2606-01-01", "after the last date of 'day' (2021-04-30)"),
                                           ("1500-01-01", "on or before the first date of 'day' (2021-01-01)"),
                                           ("99999-01-01", "is not a date the app can read")])
def test_a_first_test_date_outside_the_data_is_refused_never_wrapped(typed, problem):
    table = uploads.parse_csv(dated().to_csv(index=False).encode())
    with pytest.raises(ValueError, match=re.escape(problem)) as info:
        uploads.csv_dataset(table, ["x"], ["y"], ["day", typed])
    assert "2021-01-02 to 2021-04-30" in str(info.value)  # the way out: the dates that split
    inside = uploads.csv_dataset(table, ["x"], ["y"], ["day", "2021-03-01"])
    assert len(inside.X_tr) == 59


def test_dates_beyond_2262_are_read_as_written():
    frame = dated()
    frame["day"] = pd.Series(pd.date_range("2600-01-01", periods=len(frame)).astype(str)).str[:10]
    table = uploads.parse_csv(frame.to_csv(index=False).encode())
    assert str(table.dates["day"][0].astype("datetime64[D]")) == "2600-01-01"  # not 2021-06-12
    assert str(uploads.date_cutoff(table, "day").astype("datetime64[D]")) == "2600-03-02"  # 2600 has no 29 February


# ------------------------------------------------------------------ names escaped in the downloads
HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "[x](javascript:alert(3))",
           "![t](http://127.0.0.1:9/x.png)", "$\\href{javascript:alert(4)}{y}$", "=HYPERLINK(\"http://e\",\"z\")"]


def test_the_markdown_report_escapes_html_links_images_and_maths():
    blocks = report.document("covshift", [("inputs", ", ".join(HOSTILE))], "http://localhost:8501/check?seed=1",
                             [("Which inputs moved?", [("p", f"Most shifted input: {HOSTILE[2]}"),
                                                        ("table", ["input", "KS"], [[h, "0.5"] for h in HOSTILE])])])
    md = report.to_markdown(blocks)
    text = md.replace("<http://localhost:8501/check?seed=1>", "")  # the one autolink, the view's own address
    unescaped = re.findall(r"(?<!\\)[<>\[\]!$`*|]", text.replace("\\\\", ""))
    assert set(unescaped) <= {"|"}, unescaped  # only the table's own borders
    assert "\\<script\\>" in md and "\\!\\[t\\](http\\://127.0.0.1\\:9/x.png)" in md
    assert "<http://localhost:8501/check?seed=1>" in md
    page = report.to_html(blocks)
    assert "<script>" not in page and "<img" not in page and "&lt;script&gt;" in page


def test_the_weights_csv_prefixes_cells_a_spreadsheet_would_run():
    frame = pd.DataFrame({"training point": [0, 1], HOSTILE[5]: [-1.5, 2.0], "@cmd": ["+1", "ok"], "weight": [1, 1]})
    text = report.csv_text(frame)
    header, first = text.splitlines()[:2]
    assert header.startswith("training point,\"'=HYPERLINK(") and ",'@cmd," in header
    assert first == "0,-1.5,'+1,1"  # numbers stay numbers, the text cell is defused


def test_markdown_text_shows_every_name_as_written():
    for name in HOSTILE:
        escaped = report.markdown_text(name)
        assert escaped.replace("\\", "") == name.replace("\\", "")
        assert not re.search(r"(?<!\\)[<>\[\]!$`*]", escaped.replace("\\\\", "")), escaped


# ------------------------------------------------------------------ bytes forgotten, long values shortened
def test_uploaded_bytes_are_forgotten_after_a_bounded_time(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(uploaded_files.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(uploaded_files, "_FILES", collections.OrderedDict())  # other tests' files: on the real clock
    digest = uploaded_files.add_file(b"a,b\n1,2\n")
    clock[0] += uploaded_files.FILE_SECONDS / 2
    assert uploaded_files.file_bytes(digest) == b"a,b\n1,2\n"  # a use keeps it
    clock[0] += uploaded_files.FILE_SECONDS - 1
    assert uploaded_files.file_bytes(digest)
    clock[0] += uploaded_files.FILE_SECONDS + 1
    with pytest.raises(ValueError, match="Upload it on the Data & shift page"):
        uploaded_files.file_bytes(digest)


def test_a_long_link_value_is_repeated_only_shortened():
    _, notices = settings.parse_query({"seed": "x" * 100_000, "csv_split_date": "2" * 100_000,
                                       "csv_inputs": "z" * 100_000})
    assert len(notices) == 3 and max(len(n) for n in notices) < 300, [len(n) for n in notices]
