"""teaching.settings: every value a link can carry ends inside its widget's domain, with a note."""

import math
import re
from urllib import parse

import pytest
from hypothesis import given, settings as hyp_settings, strategies as st

from teaching import catalog
from teaching import settings as settings_module
from teaching.settings import (SETTINGS, Bool, Choice, Code, Float, Int, Multi, Names, defaults, parse_query,
                               query_string, to_query)

# The fifteen out-of-range values of issue 9 that used to raise on a page, and seed=inf.
ISSUE_CASES = {"sinc.n_tr": "-5", "sigma": "inf", "theta": "5", "step": "-5", "n_labels": "1000",
               "seed": "inf", "gamma": "-1e300", "rho_x": "0", "lambda_y": "1e308", "sinc.std_tr": "0",
               "circle.std_tr": "0", "digits.n_tr": "100000", "sinc.noise": "nan", "few_labels": "-inf",
               "plot_output": "99", "sinc.n_te": "1e400", "replay": "KMM"}


def in_domain(setting, value):
    if isinstance(setting, (Float, Int)):
        kind = float if isinstance(setting, Float) else int
        return type(value) is kind and setting.min <= value <= setting.max and math.isfinite(value)
    if isinstance(setting, Bool):
        return type(value) is bool
    if isinstance(setting, Choice):
        return value in setting.options
    if isinstance(setting, Multi):
        return isinstance(value, list) and all(v in setting.options for v in value)
    if isinstance(setting, Code):
        return value == setting.default or re.fullmatch(setting.pattern, value) is not None
    assert isinstance(setting, Names)
    return isinstance(value, str) if setting.single else all(isinstance(v, str) for v in value)


def test_defaults_are_inside_their_domains():
    for name, value in defaults().items():
        assert in_domain(SETTINGS[name], value), name


def test_dataset_ranges_come_from_the_catalog():
    for name, (_, params) in catalog.DATASETS.items():
        for param, (default, lo, hi, _) in params.items():
            setting = SETTINGS[f"{name}.{param}"]
            assert (setting.default, setting.min, setting.max) == (default, lo, hi)


def test_issue_cases_are_clamped_or_ignored_with_a_notice():
    values, notices = parse_query(ISSUE_CASES)
    for name, value in values.items():
        assert in_domain(SETTINGS[name], value), (name, value)
    assert values["sinc.n_tr"] == 20 and values["theta"] == 0.99 and values["step"] == 0
    assert values["seed"] == 0 and values["sigma"] == 0.3  # ignored: the defaults stay
    assert values["digits.n_tr"] == SETTINGS["digits.n_tr"].max and values["plot_output"] == 63
    for name in ISSUE_CASES:
        assert any(note.startswith(f"{name}=") for note in notices), name


def test_unknown_keys_and_options_outside_the_list_are_named():
    values, notices = parse_query({"nonsense": "1", "dataset": "mnist", "estimators": "KMM,nope",
                                   "few_labels": "perhaps"})
    assert values["dataset"] == "sinc" and values["estimators"] == ["KMM"] and values["few_labels"] is False
    assert len(notices) == 4
    assert "nonsense" in notices[0] and "mnist" in notices[1] and "nope" in notices[2]


def test_valid_link_gives_no_notice_and_round_trips():
    chosen = {"dataset": "circle", "seed": 7, "circle.n_tr": 120, "sigma": 0.47, "estimators": ["KMM", "FWCS"],
              "few_labels": True, "lambda_x": 1.5e-7, "scaling_sizes": [2000, 100], "csv_inputs": ["a b", "c"],
              "csv_split": "train"}
    values = {**defaults(), **chosen}
    query = to_query(values)
    assert set(query) == set(chosen)
    parsed, notices = parse_query(query)
    assert parsed == values and notices == []


def test_other_spellings_of_a_number_need_no_notice():
    values, notices = parse_query({"seed": "3.0", "sigma": "0.50", "n_labels": "1e1"})
    assert (values["seed"], values["sigma"], values["n_labels"]) == (3, 0.5, 10) and notices == []


def test_fractional_integer_is_rounded_with_a_notice():
    values, notices = parse_query({"seed": "2.6"})
    assert values["seed"] == 3 and "changed to 3" in notices[0]


def test_a_query_value_given_twice_counts_once():
    values, _ = parse_query({"seed": ["1", "2"]})
    assert values["seed"] == 2


texts = st.one_of(st.text(max_size=30), st.sampled_from(["nan", "inf", "-inf", "1e400", "-1e400", "", ",",
                                                         "9" * 5000, "1e-320", "true", "0x1f", "None"]),
                  st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.integers(-10**30, 10**30).map(str))
names = st.one_of(st.sampled_from(sorted(SETTINGS)), st.text(max_size=15))


@hyp_settings(max_examples=300, deadline=None)
@given(st.dictionaries(names, texts, max_size=12))
def test_any_query_gives_values_inside_every_domain(query):
    values, notices = parse_query(query)
    assert set(values) == set(SETTINGS)
    for name, value in values.items():
        assert in_domain(SETTINGS[name], value), (name, value)
    assert all(isinstance(n, str) for n in notices)
    # What the app writes back is a valid link that reads back to the same values.
    again, second_notes = parse_query(to_query(values))
    assert again == values and second_notes == []


def test_a_poll_code_or_key_that_is_not_one_is_ignored_with_a_notice():
    # Ask the class: an edited join address (another alphabet, markup, 10 KB) never becomes a setting
    values, notices = parse_query({"poll": "<b>x</b>", "poll_key": "k" * 10_240})
    assert values["poll"] == "" and values["poll_key"] == ""
    assert any(n.startswith("poll='<b>x</b>' ignored (not a poll code") for n in notices), notices
    assert any(n.startswith("poll_key='kkk") and "ignored" in n for n in notices), notices
    values, notices = parse_query({"poll": "k3m9xa", "poll_key": "A" * 31 + "_"})
    assert (values["poll"], values["poll_key"], notices) == ("k3m9xa", "A" * 31 + "_", [])


# ------------------------------------------------------------ column names in a link (teaching.settings.Names)
#: Names a CSV header can hold that a link of the old comma-separated form could not carry.
HARD_NAMES = ["weight, kg", "x,1", ",", " lead", "trail ", " both ", "\"quoted\"", "a & b", "k=v", "50%", "%2C",
              "#1", "naïve Größe", "体重", "\u200b", "+", "a+b c", "x\\,y", "[1, 2]"]
column_names = st.one_of(st.sampled_from(HARD_NAMES), st.text(min_size=1, max_size=settings_module.MAX_TEXT))
name_lists = st.lists(column_names, unique=True, max_size=8)


def through_address(values):
    """``values`` through the address as the browser holds it: the query string a page writes
    (settings.query_string, urllib's doseq) read back as Streamlit reads it (parse_qs, blank values kept)."""
    return parse_query(parse.parse_qs(query_string(values), keep_blank_values=True))


@hyp_settings(max_examples=300, deadline=None)
@given(name_lists)
def test_any_list_of_column_names_round_trips_exactly(names):
    setting = Names(())
    assert setting.parse(setting.encode(names)) == names


@hyp_settings(max_examples=200, deadline=None)
@given(name_lists, column_names, column_names)
def test_column_names_round_trip_through_the_address(inputs, split, date):
    chosen = {"source": "csv", "csv_inputs": inputs, "csv_outputs": inputs[::-1], "csv_split": split,
              "csv_split_date": date}
    values = {**defaults(), **chosen}
    parsed, notices = through_address(values)
    assert parsed == values and notices == []


def test_one_name_with_a_comma_or_an_outer_space_is_marked_by_a_second_empty_value():
    assert Names(()).encode(["weight, kg"]) == ["weight, kg", ""]
    assert Names(()).encode([" x"]) == [" x", ""]
    assert Names(()).encode(["x"]) == ["x"]  # one plain name: one value, as before
    assert query_string({"csv_inputs": ["weight, kg"]}) == "csv_inputs=weight%2C+kg&csv_inputs="


def test_plain_names_stay_readable_in_the_link():
    assert query_string({"source": "csv", "csv_inputs": ["age", "bmi"], "csv_outputs": ["y"]}) == \
        "source=csv&csv_inputs=age&csv_inputs=bmi&csv_outputs=y"


@pytest.mark.parametrize("old, names", [("age,bmi", ["age", "bmi"]), ("x", ["x"]), ("a b,c", ["a b", "c"]),
                                        ("age, bmi", ["age", "bmi"]), ("a,,b,a", ["a", "b"])])
def test_links_of_before_with_comma_separated_names_keep_their_meaning(old, names):
    values, notices = parse_query({"source": "csv", "csv_inputs": old})
    assert values["csv_inputs"] == names and notices == []
    # the same address as the browser sends it (the comma written %2C or not)
    for address in (f"csv_inputs={old}", parse.urlencode({"csv_inputs": old})):
        assert parse_query(parse.parse_qs(address, keep_blank_values=True))[0]["csv_inputs"] == names


@hyp_settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=30).map(str.strip).filter(lambda n: n and "," not in n),
                unique=True, max_size=8))
def test_any_old_link_of_plain_names_reads_as_it_did(names):
    """Every link the app wrote before (plain names joined by ",") still names the same columns."""
    assert parse_query({"csv_inputs": ",".join(names)})[0]["csv_inputs"] == names


def test_a_link_carries_at_most_max_items_names_of_max_text_characters_each_with_a_notice():
    many = [f"c{i}, kg" for i in range(settings_module.MAX_ITEMS + 50)]
    values, notices = parse_query({"csv_inputs": many})
    assert values["csv_inputs"] == many[:settings_module.MAX_ITEMS]
    assert len(notices) == 1 and notices[0].startswith("csv_inputs=") and "changed to" in notices[0]
    long = "w, " + "x" * 2 * settings_module.MAX_TEXT
    values, notices = parse_query({"csv_inputs": [long, "y"], "csv_split": long})
    assert values["csv_inputs"] == [long[:settings_module.MAX_TEXT], "y"]
    assert values["csv_split"] == long[:settings_module.MAX_TEXT]
    assert len(notices) == 2


def test_names_a_link_cannot_carry_whole_are_named():
    long = "w, " + "x" * settings_module.MAX_TEXT
    said = settings_module.beyond_link({**defaults(), "csv_inputs": [long, "y"], "csv_split": "train"})
    assert len(said) == 1 and f"({len(long)} characters), in the input columns" in said[0]
    many = [f"c{i}" for i in range(settings_module.MAX_ITEMS + 1)]
    said = settings_module.beyond_link({**defaults(), "csv_outputs": many})
    assert said == [f"{len(many)} names in the output columns: a link carries at most 100, so a copied link of this "
                    "view chooses only the first 100."]
    assert settings_module.beyond_link({**defaults(), "csv_inputs": ["a" * settings_module.MAX_TEXT]}) == []
