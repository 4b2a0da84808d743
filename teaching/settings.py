"""Every setting of the teaching app, in one registry, and the reading of a shared link.

A setting is a name with a default and a domain: the range of a number, the options of a
choice. The app draws each widget from this domain and writes every non-default setting into
the page address, so a link carries the whole view; :func:`parse_query` reads a link back and
keeps every value inside the domain of the widget that shows it (numbers clamped and finite,
unknown options ignored), naming what it had to ignore or change.

To add a setting, add one entry to :data:`SETTINGS` (pure data: this module never imports
streamlit), then draw it in a page with ``ui.widget(st.slider, "label", "name")``.
"""

import math
import re
from dataclasses import dataclass
from urllib.parse import urlencode

from teaching import catalog, fits
from teaching.numbers import format_number

_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
#: Longest text a link may put into a free-text setting (CSV column names).
MAX_TEXT = 200
#: Most items a link may put into a list of free-text names.
MAX_ITEMS = 100


def _number_text(value):
    return repr(float(value)) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Float:
    """A finite real number in [min, max] (a slider or number input)."""

    default: float
    min: float
    max: float
    step: float = None

    def parse(self, text):
        value = float(text)
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return min(max(value, float(self.min)), float(self.max))

    def domain(self):
        return f"a number from {_number_text(self.min)} to {_number_text(self.max)}"

    def encode(self, value):
        return _number_text(float(value))


@dataclass(frozen=True)
class Int:
    """A whole number in [min, max]; text like "3.0" or "1e2" is read as the nearest integer."""

    default: int
    min: int
    max: int
    step: int = None

    def parse(self, text):
        text = text.strip()
        try:
            value = int(text)
        except ValueError:
            number = float(text)
            if not math.isfinite(number):
                raise ValueError("not a finite number") from None
            value = int(round(min(max(number, self.min - 1.0), self.max + 1.0)))
        return min(max(value, int(self.min)), int(self.max))

    def domain(self):
        return f"a whole number from {self.min} to {self.max}"

    def encode(self, value):
        return str(int(value))


@dataclass(frozen=True)
class Bool:
    """On or off (a toggle or checkbox)."""

    default: bool

    def parse(self, text):
        word = text.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise ValueError("not true or false")

    def domain(self):
        return "true or false"

    def encode(self, value):
        return "true" if value else "false"


def _spells(text, number):
    """True when text is a spelling of the number ("30", "3e1" or "30.0" for 30.0)."""
    try:
        return float(text) == float(number)
    except (ValueError, OverflowError):
        return False


@dataclass(frozen=True)
class Choice:
    """One of a fixed list of options (a select box or radio)."""

    default: object
    options: tuple

    def parse(self, text):
        text = text.strip()
        for option in self.options:
            if str(option) == text or (isinstance(option, float) and _spells(text, option)):
                return option
        raise ValueError("not one of the options")

    def domain(self):
        return "one of " + ", ".join(map(str, self.options))

    def encode(self, value):
        return str(value)


@dataclass(frozen=True)
class Multi:
    """Several of a fixed list of options (a multiselect), comma-separated in the link."""

    default: tuple
    options: tuple

    def parse(self, text):
        by_text = {str(option): option for option in self.options}
        items = [item.strip() for item in text.split(",") if item.strip()]
        chosen = list(dict.fromkeys(by_text[item] for item in items if item in by_text))
        if items and not chosen:
            raise ValueError("none of the options")
        return chosen

    def domain(self):
        return "some of " + ", ".join(map(str, self.options))

    def encode(self, value):
        return ",".join(map(str, value))


@dataclass(frozen=True)
class Names:
    """Names only known at run time (columns of an uploaded CSV); the widget checks them.

    Any text a column name can be (commas, spaces at either end, quotes, "&", "=", "%", "#", any script)
    goes into a link exactly: a list of names as one query key per name (``?csv_inputs=weight%2C+kg&
    csv_inputs=height``, as :func:`urllib.parse.urlencode` with ``doseq`` writes it and Streamlit's
    ``st.query_params.get_all`` reads it back). Links written before this (one value, names separated by
    ",", spaces around each stripped) keep their meaning: a single value is read that way, so a list of one
    name that this reading would change (it holds a comma or starts or ends with a space) is written with a
    second, empty value. The empty name is no column's (the app renames an empty header field).
    """

    default: tuple = ()
    single: bool = False

    def names(self, texts):
        """The names the values of one query key spell, before the bounds (see the class docstring)."""
        if self.single:
            return texts[-1]
        if len(texts) == 1:
            return [item.strip() for item in texts[0].split(",") if item.strip()]
        return [text for text in texts if text != ""]

    def parse(self, texts):
        """The bounded names of a link's values (``texts``: a str or the list of a repeated key):
        each at most :data:`MAX_TEXT` characters, at most :data:`MAX_ITEMS` different names."""
        names = self.names([texts] if isinstance(texts, str) else list(texts))
        if self.single:
            return names[:MAX_TEXT]
        return list(dict.fromkeys(name[:MAX_TEXT] for name in names))[:MAX_ITEMS]

    def domain(self):
        return "a column name" if self.single else "column names"

    def encode(self, value):
        """The value as the link writes it: the name, or a list of names (one query value per name)."""
        if self.single:
            return value
        texts = list(value)
        if len(texts) == 1 and self.names(texts) != texts:
            texts.append("")  # one name a link of before would split or strip: marked by a second value
        return texts


@dataclass(frozen=True)
class Code:
    """A short code of given characters (a poll's code, the instructor's key of "Ask the class"); anything
    else in a link is ignored with a notice."""

    pattern: str
    what: str
    default: str = ""

    def parse(self, text):
        text = text.strip()
        if len(text) > MAX_TEXT or not re.fullmatch(self.pattern, text):
            raise ValueError(f"not {self.what}")
        return text

    def domain(self):
        return self.what

    def encode(self, value):
        return value


#: A poll's code (the join address carries it) and the instructor's key (only the instructor's address).
POLL_CODE_ALPHABET, POLL_CODE_LENGTH = "abcdefghjkmnpqrstuvwxyz23456789", 6
POLL_CODE = f"[{POLL_CODE_ALPHABET}]{{{POLL_CODE_LENGTH}}}"
POLL_KEY = r"[A-Za-z0-9_-]{32}"


def _dataset_settings():
    """One setting per parameter of every built-in data set, with the catalog's ranges."""
    entries = {}
    for name, (_, params) in catalog.DATASETS.items():
        for param, (default, lo, hi, step) in params.items():
            kind = Int if isinstance(default, int) else Float
            number = int if kind is Int else float
            entries[f"{name}.{param}"] = kind(number(default), number(lo), number(hi), number(step))
    return entries


#: name -> setting. One entry per setting; widgets take their range and options from here.
SETTINGS = {
    # data (sidebar and Data & shift page)
    "source": Choice("built-in", ("built-in", "csv")),
    "dataset": Choice("sinc", tuple(catalog.DATASETS)),
    "seed": Int(0, 0, 10_000, 1),
    **_dataset_settings(),
    "csv_inputs": Names(()),
    "csv_outputs": Names(()),
    "csv_split": Names("selection bias", single=True),
    "csv_split_date": Names("", single=True),
    "csv_standardise": Bool(True),
    "csv_hyper": Choice("auto", ("auto", "manual")),
    # Check your data page
    "check_test": Choice("mmd", ("mmd", "classifier")),
    "check_weights": Choice("FCFWCS", tuple(catalog.WEIGHT_ESTIMATORS)),
    "check_model": Choice("GPR", tuple(catalog.CHECK_MODELS)),
    # Importance weights page
    "estimators": Multi(("FCFWCS", "PFWCS"), tuple(catalog.WEIGHT_ESTIMATORS)),
    "sigma_mode": Choice("auto", ("auto", "manual")),
    "sigma": Float(0.3, 0.01, 3.0, 0.01),
    "gap_axis": Choice("iteration", ("iteration", "seconds")),
    "replay": Choice("PFWCS", tuple(sorted(catalog.FRANK_WOLFE))),
    "step": Int(0, 0, 2000),  # the replay's iteration t (replay.js writes it into the address)
    "weights_stage": Choice("gaps", ("gaps", "replay")),  # the KLIEP lesson's stage: the solvers' gaps or the replay
    # Structured regression page
    "models": Multi(("GPR", "SMTGP", "IW-SMTGP"), tuple(catalog.REGRESSORS)),
    "weights_for_models": Choice("FCFWCS", tuple(catalog.WEIGHT_ESTIMATORS)),
    "theta": Float(0.9, 0.05, 0.99, 0.01),
    "gamma": Float(1.5, 0.1, 3.0, 0.01),
    "rho_x": Float(0.3, 1e-3, 100.0),
    "rho_y": Float(0.5, 1e-3, 100.0),
    "lambda_x": Float(1e-3, 1e-8, 10.0),
    "lambda_y": Float(1e-3, 1e-8, 10.0),
    "tgp_start": Choice("ridge", ("ridge", "linear")),
    "plot_output": Int(0, 0, 63),
    "plot_input": Int(0, 0, 1023),
    "few_labels": Bool(False),
    "n_labels": Int(10, 2, 50),
    # Home (the Why-weights lesson) and the sidebar
    "home_width": Float(2.0, 0.1, 3.0, 0.05),
    "presentation": Bool(False),
    # Ask the class (teaching/ui/poll.py): the poll shown, and on the instructor's address its key
    "poll": Code(POLL_CODE, f"a poll code ({POLL_CODE_LENGTH} letters and digits)"),
    "poll_key": Code(POLL_KEY, "an instructor key (32 letters, digits, - or _)"),
    # Scaling page
    "scaling_estimators": Multi(("KLIEP", "PFWCS", "FCFWCS"), tuple(catalog.WEIGHT_ESTIMATORS)),
    "scaling_sizes": Multi((100, 200, 500, 1000), (100, 200, 500, 1000, 2000)),
    "scaling_run": Bool(False),
    # Classification under shift page
    "clf.n": Int(400, *fits.classification.CLASSIFICATION_LIMITS["n"], 50),
    "clf.steepness": Float(1.5, 0.0, 4.0, 0.25),
    "clf.label_noise": Float(0.3, 0.05, 1.0, 0.05),
    "clf.kernel": Choice("linear", ("linear", "rbf")),
    "clf.sigma": Float(1.0, 0.2, 3.0, 0.1),
    "clf.C": Choice(1.0, (0.1, 0.3, 1.0, 3.0, 10.0)),
    "clf.C_v": Choice(1.0, (0.1, 0.3, 1.0, 3.0, 10.0)),
    "clf.weights": Choice("LogisticRatio", tuple(fits.classification.SHIFT_CLASSIFIER_WEIGHTS)),
    "clf.sized_by": Choice("integrated", ("integrated", "two-stage")),
    # Domain transfer page
    "dt_task": Choice("multiclass", tuple(fits.transfer.TRANSFER_TASKS)),
    "dt_shift": Choice("thicken+rotate", tuple(fits.transfer.TRANSFER_SHIFTS)),
    "dt_l": Int(10, 1, fits.transfer.TRANSFER_MAX_LABELLED),
    "dt_C": Choice("auto", ("auto", 0.1, 0.3, 1.0, 3.0, 10.0, 30.0)),
    "dt_epsilon": Choice(1e-3, (1e-2, 1e-3, 1e-4)),
}


def defaults():
    """name -> default value (lists for multi-choices, so they compare equal to widget values)."""
    return {name: list(s.default) if isinstance(s.default, tuple) else s.default
            for name, s in SETTINGS.items()}


def to_query(values):
    """The query parameters of a view: every setting that differs from its default, as text (a list of
    texts for a list of names: one query key per name, see :class:`Names`)."""
    base = defaults()
    return {name: SETTINGS[name].encode(value) for name, value in values.items()
            if name in SETTINGS and value != base[name]}


def query_string(values):
    """The query string of a view's link (:func:`to_query`, a list as a repeated key), for a link a page writes."""
    return urlencode(to_query(values), doseq=True)


def as_lists(query):
    """``query`` with every value a list of texts, as ``{key: st.query_params.get_all(key)}`` gives it: two
    spellings of one address compare equal."""
    return {name: [str(v) for v in raw] if isinstance(raw, (list, tuple)) else [str(raw)]
            for name, raw in query.items()}


def parse_query(params):
    """Settings of a link, each inside the domain of its widget, and notes on what was not kept.

    Parameters
    ----------
    params : mapping of str to str (or to a list of str: the last one counts, but a list of names
        (:class:`Names`) takes them all)
        The query parameters of the page address.

    Returns
    -------
    values : dict
        Every setting: the link's value where it is usable, else the default.
    notices : list of str
        One sentence per value that was ignored (unknown name, unreadable or not an option)
        or changed (clamped into range, rounded to a whole number, cut to the bounds of a name).
    """
    values, notices = defaults(), []
    for name, texts in as_lists(params).items():
        setting = SETTINGS.get(str(name))
        if setting is None:
            notices.append(f"unknown setting '{str(name)[:40]}' ignored")
            continue
        if not texts:
            continue
        listed = isinstance(setting, Names) and not setting.single
        given = texts if listed else texts[-1]
        shown = shorten(",".join(texts) if listed else given)
        try:
            value = setting.parse(given)
        except (ValueError, OverflowError) as exc:
            notices.append(f"{name}='{shown}' ignored ({shorten(str(exc), 120)}; expected {setting.domain()})")
            continue
        values[name] = value
        if _changed(setting, value, given):
            shown_value = ", ".join(value) if listed else setting.encode(value)
            notices.append(f"{name}='{shown}' changed to {shorten(shown_value)} ({setting.domain()})")
    return values, notices


def _changed(setting, value, given):
    """True when the link's text ``given`` means another value than ``value`` (clamped, rounded, cut)."""
    if isinstance(setting, Names):
        names = setting.names([given] if isinstance(given, str) else given)
        return value != (names if setting.single else list(dict.fromkeys(names)))
    return setting.encode(value) != given.strip() and not _same_number(setting, value, given)


def shorten(text, limit=40):
    """``text`` as a message repeats it: at most ``limit`` characters, cut with "..." (a link can carry 100 KB)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _same_number(setting, value, text):
    """True when text is another spelling of the same number ("1.0" for 1, "0.30" for 0.3)."""
    numeric = isinstance(setting, (Int, Float)) or (isinstance(setting, Choice) and isinstance(value, float))
    return numeric and _spells(text, value)


#: What a page calls a setting in words (banners, captions): never the setting's name.
LABELS = {
    "source": "the data source", "dataset": "the data set", "seed": "the seed",
    "estimators": "the estimators", "sigma_mode": "the kernel width rule", "sigma": "the kernel width sigma",
    "gap_axis": "the x axis of the gaps", "replay": "the replayed solver", "step": "the replay's step",
    "models": "the models", "weights_for_models": "the weights of the IW- models",
    "theta": "the Sharma-Mittal order theta", "gamma": "the Sharma-Mittal degree gamma",
    "rho_x": "the input width", "rho_y": "the output width", "lambda_x": "the input regulariser",
    "lambda_y": "the output regulariser", "tgp_start": "the Twin-GP start", "plot_output": "the output plotted",
    "plot_input": "the input along which to plot", "few_labels": "the few-labels comparison",
    "n_labels": "the number of labelled test points", "home_width": "the model width",
    "presentation": "presentation mode",
    "csv_inputs": "the input columns", "csv_outputs": "the output columns", "csv_split": "the train/test split",
    "csv_split_date": "the first test date",
    "clf.n": "the points in the pool", "clf.steepness": "the selection steepness", "clf.label_noise": "the label noise",
    "clf.kernel": "the classifiers' kernel", "clf.sigma": "the RBF width", "clf.C": "the classifier prior variance C",
    "clf.C_v": "the selector prior variance C_v", "clf.weights": "the two-stage weights",
    "clf.sized_by": "the weights that size the points",
}
#: Words for the values of choices whose options are names in code.
VALUE_WORDS = {
    "sigma_mode": {"auto": "each estimator's own rule", "manual": "one width for all"},
    "gap_axis": {"iteration": "iterations", "seconds": "seconds"},
    "tgp_start": {"linear": "linear least squares", "ridge": "kernel ridge"},
    "source": {"built-in": "built-in data", "csv": "your CSV file"},
}
#: Words for the parameters of the built-in data sets ("sinc.n_tr": the sinc data's training points).
_DATA_WORDS = {"n_tr": "training points", "n_te": "test points", "mean_tr": "training mean", "std_tr": "training spread",
               "mean_te": "test mean", "std_te": "test spread", "noise": "noise", "shift": "shift"}


def label(name):
    """Setting ``name`` in words ("the input width" for rho_x), as a banner says what differs."""
    if name in LABELS:
        return LABELS[name]
    data_set, _, param = name.partition(".")
    if data_set in catalog.DATASETS:
        return f"the {catalog.DATASETS[data_set][0].split(' (')[0]} data's {_DATA_WORDS.get(param, param.replace('_', ' '))}"
    return name.replace("_", " ").replace(".", " ")


def beyond_link(values):
    """Sentences on the names in ``values`` (settings) that a link cannot carry whole: each at most
    :data:`MAX_TEXT` characters, at most :data:`MAX_ITEMS` of them (a copied link of this view would
    give another view); empty when the link carries them all."""
    sentences = []
    for name, setting in SETTINGS.items():
        if not isinstance(setting, Names) or name not in values:
            continue
        names = [values[name]] if setting.single else list(values[name])
        for long in [text for text in names if len(text) > MAX_TEXT][:3]:
            sentences.append(f"'{shorten(long)}' ({len(long):,} characters), in {label(name)}, is longer than a link "
                             f"carries ({MAX_TEXT} characters): a copied link of this view cannot choose it. Shorten "
                             "the name in the file to share this view by its link.")
        if len(names) > MAX_ITEMS:
            sentences.append(f"{len(names)} names in {label(name)}: a link carries at most {MAX_ITEMS}, so a copied "
                             f"link of this view chooses only the first {MAX_ITEMS}.")
    return sentences


def spoken(name, value):
    """The value of setting ``name`` as a page writes it: numbers to at most 4 significant digits (one
    formatter, :func:`teaching.numbers.format_number`), an output as "output 1", choices in words, lists joined."""
    if name == "plot_output":
        return f"output {int(value) + 1}"
    if isinstance(value, (list, tuple)):
        return ", ".join(spoken(name, v) for v in value) or "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (int, float)):
        return format_number(value, ".4g")
    return VALUE_WORDS.get(name, {}).get(value, str(value))
