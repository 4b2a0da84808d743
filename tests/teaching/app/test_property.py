"""Issue 9, items 7 and 8: no query string, however broken, puts an exception on a page.

Hypothesis draws query dictionaries (garbage text, huge, negative, NaN and infinite numbers,
unknown keys, every known setting with valid and invalid values) and opens each page with it.
Data sizes are drawn small (negative, tiny or in-range values; the clamping of huge sizes is
checked without running the app in tests/teaching/test_settings.py), and ``scaling_run`` is never drawn,
so that each example stays fast and the whole test takes about a minute.
"""

from hypothesis import HealthCheck, given, settings as hyp_settings, strategies as st

from teaching.settings import SETTINGS, Choice, Multi, parse_query
from tests.teaching.app.helpers import PAGES, go, no_exception, open_link

SIZE_KEYS = {name for name in SETTINGS if name.endswith((".n_tr", ".n_te"))}
DRAWN_KEYS = sorted(set(SETTINGS) - SIZE_KEYS - {"scaling_run"})

garbage = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "1e308", "-1e308", "1e-320", "", ",", ",,",
                     "true", "none", "0x10", "1_0", "9" * 400, "💥", "<script>", "[x](y)", "$x$"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**20, 10**20).map(str),
)


def valid_or_not(name):
    """Values for one known setting: its options (alone or combined) or garbage."""
    setting = SETTINGS[name]
    if isinstance(setting, (Choice, Multi)):
        options = [str(option) for option in setting.options]
        valid = st.lists(st.sampled_from(options), max_size=4).map(",".join)
        return st.one_of(valid, garbage)
    return garbage


small_sizes = st.one_of(st.integers(-50, 60).map(str), st.sampled_from(["-1e300", "-inf", "nan", "0.5"]))
query = st.fixed_dictionaries(
    {},
    optional={**{name: valid_or_not(name) for name in DRAWN_KEYS},
              **{name: small_sizes for name in SIZE_KEYS}},
).flatmap(lambda known: st.dictionaries(st.text(max_size=10), garbage, max_size=3).map(
    lambda unknown: {**unknown, **known}))

# Sizes not drawn stay small too (the defaults would make every example slower).
SMALL = {name: "30" for name in SIZE_KEYS}


@hyp_settings(max_examples=45, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=st.sampled_from(PAGES), params=query)
def test_no_query_puts_an_exception_on_any_page(page, params):
    at = no_exception(open_link({**SMALL, **params}))
    no_exception(go(at, page))
    assert len([w for w in at.warning if "this link" in w.value]) <= 1
    # What the app wrote back into the address is a valid link.
    values, notices = parse_query(dict(at.query_params))
    assert notices == [], notices
    assert values == {**values, **at.session_state["settings"]}
