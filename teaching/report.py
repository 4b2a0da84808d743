"""The words of the Check your data page and its downloadable report (Markdown or HTML), from the diagnostics' results.

Pure functions (no Streamlit): a report is a list of blocks (``("h2", text)``, ``("p", text)``,
``("table", header, rows)``) that :func:`to_markdown` and :func:`to_html` render alike, so the
two downloads always say the same thing.
"""

import html

import numpy as np

from covshift.diagnostics import CORRECTIONS
from teaching.numbers import format_number

#: The level of the shift test's verdict.
ALPHA = 0.05
#: Fewer training points than this make every estimate on the page shaky (a warning says so).
FEW_TRAINING_POINTS = 30

METHOD_NAMES = {"mmd": "MMD", "classifier": "classifier"}


def p_text(result):
    """The p-value as a reader needs it: "p = 0.002", with "(the smallest ... can give)" at the floor."""
    floor = 1.0 / (1 + result.n_permutations)
    text = f"p = {result.p_value:.2g}"
    if result.p_value <= floor * (1 + 1e-9):
        text += f" (the smallest {result.n_permutations} permutations can give)"
    return text


def test_sentence(result):
    """The verdict of :func:`covshift.diagnostics.two_sample_test` in one sentence."""
    name = METHOD_NAMES[result.method]
    as_extreme = int(round(result.p_value * (1 + result.n_permutations))) - 1
    resplits = (f"{'None' if as_extreme == 0 else as_extreme} of {result.n_permutations} random re-splits of the "
                f"pooled inputs looked {'this' if as_extreme == 0 else 'at least this'} different.")
    if result.p_value < ALPHA:
        return f"The training and test inputs differ: {name} {p_text(result)}. {resplits}"
    return (f"No difference between the training and test inputs was detected: {name} {p_text(result)} "
            f"(at least {ALPHA:g}). This does not prove there is none: with {result.n_tr} training and "
            f"{result.n_te} test points a small shift can go unseen.")


def statistic_sentence(result):
    """What the statistic means, with its value."""
    if result.method == "mmd":
        return (f"MMD² = {result.statistic:.3g}: the squared distance between the mean kernel embeddings of the two "
                "samples (inputs standardised together, Gaussian kernel of median-heuristic width); about 0 "
                "without shift.")
    return (f"Held-out AUC = {result.statistic:.3f}: how well a linear classifier tells a training from a test "
            "input on points it was not fitted on (0.5 = no better than chance); it sees shifts of the means.")


def ranking_rows(names, shift, top=None):
    """Table rows (input, KS statistic, p-value, corrected p-value) from most to least shifted."""
    order = list(shift.ranking[:top] if top else shift.ranking)
    return [[names[j], f"{shift.statistic[j]:.3f}", f"{shift.p_value[j]:.2g}", f"{shift.p_value_adjusted[j]:.2g}"]
            for j in order]


def correction_name(shift):
    """The correction of :func:`covshift.diagnostics.feature_shift`'s p-values, by name."""
    return CORRECTIONS[shift.correction]


#: Characters of Markdown (and Streamlit's Markdown: maths, icons, colours) that a text shown as it is must
#: have escaped with a backslash: emphasis, code, links and images, HTML, tables, headings, maths, directives.
#: Parentheses need none once the brackets are escaped; an underscore only where it could open or close emphasis,
#: a colon only where it could open a shortcode (":smile:", ":material/icon:"): before a character that is no space.
MARKDOWN_SPECIAL = frozenset("\\`*{}[]#!|<>$~&")


def markdown_text(text):
    """``text`` (a column name, a note quoting a file or a link) escaped to show as itself in Markdown: no
    link, image, HTML tag, emphasis or maths can come from it (CommonMark's backslash escapes)."""
    text = str(text)
    out = []
    for i, c in enumerate(text):
        inside_word = 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()
        shortcode = c == ":" and i < len(text) - 1 and not text[i + 1].isspace()
        out.append("\\" + c if c in MARKDOWN_SPECIAL or (c == "_" and not inside_word) or shortcode else c)
    return "".join(out)


#: First characters that make a spreadsheet read a CSV cell as a formula (=HYPERLINK(...), +cmd, -2+3, @SUM).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_text(frame):
    """The DataFrame as CSV text for a download, every text cell and header that a spreadsheet would run as a
    formula prefixed with an apostrophe (numbers stay numbers)."""
    def safe(value):
        return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value

    frame = frame.rename(columns=safe)
    for name in frame.columns:
        if frame[name].dtype == object or str(frame[name].dtype).startswith("str"):
            frame[name] = frame[name].map(safe)
    return frame.to_csv(index=False)


def shift_sentence(names, shift, markdown=True):
    """Which input moved most, named only when its corrected p-value is below :data:`ALPHA`; otherwise the
    ranking is said to be only a ranking. ``markdown``: for the page (the name escaped and in bold), else
    plain text (the report)."""
    first = int(shift.ranking[0])
    name = f"**{markdown_text(names[first])}**" if markdown else names[first]
    d = len(names)
    corrected = (f"p = {shift.p_value_adjusted[first]:.2g} after {correction_name(shift)}'s correction for testing "
                 f"{d} input{'s' if d > 1 else ''}")
    if shift.most_shifted(ALPHA) is not None:
        return (f"Most shifted input: {name} (Kolmogorov-Smirnov statistic {shift.statistic[first]:.2f}: "
                "the largest gap between the training and test cumulative distributions, 0 = identical, 1 = "
                f"disjoint; {corrected}).")
    return (f"No single input can be named as shifted: the largest gap, {name}'s (Kolmogorov-Smirnov "
            f"statistic {shift.statistic[first]:.2f}), has {corrected}, not below {ALPHA:g}. The table ranks the "
            "inputs by their statistic; with several inputs one of them is always first, even without any shift.")


#: Weights this close to uniform (ESS / n at least this) do not move the training sample noticeably.
NEAR_UNIFORM = 0.9
#: ESS / n more than this above the bound implied by the mean shift: the weights do not correct it.
ESS_SLACK = 0.1


def weights_sentence(name, summary):
    """What the weights of estimator ``name`` cost and, given the inputs (``summary.ess_bound``), how that
    compares with what the shift of the input means implies; from a :class:`covshift.diagnostics.WeightSummary`."""
    text = (f"The {name} weights are worth {summary.ess:.0f} of the {summary.n} training points (effective "
            f"sample size {summary.ess:.0f}, {100 * summary.ess_fraction:.0f} %): estimates weighted by them are "
            f"about as noisy as unweighted ones from {summary.ess:.0f} points. The largest weight is "
            f"{summary.max_weight:.1f} times the mean; the heaviest 1 % of the points carry "
            f"{100 * summary.top_share:.0f} % of the total weight.")
    if summary.ess_bound is None:
        return text + (" What ESS does not tell: whether the weights correct the shift; equal weights have the "
                       "largest ESS and correct nothing.")
    return text + (f" What ESS does not tell is whether they correct the shift: weights that move every training "
                   f"input's mean onto the test mean can keep at most {100 * summary.ess_bound:.0f} % of the points "
                   "(1 / (1 + Δ²), Δ the largest shift of an input's mean in training standard deviations, less its "
                   f"sampling noise). The largest mean shift is {_largest(summary.mean_shift)} without the weights "
                   f"and {_largest(summary.weighted_mean_shift)} with them.")


def _largest(shifts):
    return f"{np.max(np.abs(shifts)):.2f} standard deviations"


def weights_warning(name, summary, test):
    """A warning when the shift test detected a shift but the weights of ``name`` do not correct it (near
    uniform, or an ESS well above what the mean shift allows while the means stay apart); else None."""
    if test is None or test.p_value >= ALPHA:
        return None
    if summary.ess_fraction >= NEAR_UNIFORM and (summary.ess_bound is None or summary.ess_bound < NEAR_UNIFORM):
        return (f"The test detects a shift, but the {name} weights are nearly uniform (ESS "
                f"{100 * summary.ess_fraction:.0f} %): they hardly move the training sample, so they do not correct "
                "the shift. A high ESS here means the estimator failed, not that weighting is cheap. Try another "
                "estimator or kernel width.")
    if summary.ess_bound is not None and summary.ess_fraction > summary.ess_bound + ESS_SLACK \
            and np.max(np.abs(summary.weighted_mean_shift)) > 0.5 * np.max(np.abs(summary.mean_shift)):
        return (f"The test detects a shift, and the {name} weights keep {100 * summary.ess_fraction:.0f} % of the "
                f"points where moving the input means allows at most {100 * summary.ess_bound:.0f} %; they leave "
                f"the largest mean shift at {_largest(summary.weighted_mean_shift)} (from "
                f"{_largest(summary.mean_shift)}): they correct the shift only in part.")
    return None


def _short(value, digits=3):
    """``value`` to ``digits`` significant digits without an exponent (:func:`teaching.numbers.format_number`)."""
    return format_number(value, "plain" if digits == 3 else f"plain{digits}", missing="nan")


def cv_sentence(model, cv, test, baseline, n_scored=None, n_test=None):
    """Ordinary vs importance-weighted cross-validation error of ``model`` with their standard errors, whether
    they can be told apart, its actual test error on the ``n_scored`` test rows with outputs (``test`` None:
    none has one), and the ``baseline`` (the training outputs' variance: the error of predicting their mean)."""
    ratio = cv.weighted / cv.unweighted if cv.unweighted > 0 else float("nan")
    text = (f"Ordinary {cv.n_folds}-fold cross-validation says {model}'s mean squared error is "
            f"{_short(cv.unweighted)} ± {_short(cv.unweighted_se, 2)}; importance-weighted cross-validation estimates "
            f"{_short(cv.weighted)} ± {_short(cv.weighted_se, 2)} on the test inputs ({ratio:.2g} times as much; "
            "± one standard error over the folds). ")
    if cv.distinguishable:
        text += (f"The two differ by more than twice the standard error of their difference "
                 f"({_short(cv.difference_se, 2)}): the weights change the estimate. ")
    else:
        text += (f"They cannot be told apart: they differ by less than twice the standard error of their "
                 f"difference ({_short(cv.difference_se, 2)}). ")
    if test is None:
        text += "No test row has outputs, so the actual test error cannot be measured here. "
    elif n_scored is not None and n_test is not None and n_scored < n_test:
        text += (f"The actual error on the {n_scored} of {n_test} test rows that have outputs is {test:.3g} (the "
                 "others are predicted, not scored). ")
    else:
        text += f"The actual error on the test points, known here because the test rows have outputs, is {test:.3g}. "
    text += f"For scale: predicting the mean of the training outputs has error {baseline:.3g} on the training points."
    if cv.unweighted > baseline:
        text += (f" {model} does worse than that even where it was trained: its widths do not suit the data "
                 "(try other rho_x and lambda_x on the Structured regression page).")
    return text


def scale_sentence(values, standardise_outputs, auto):
    """How the models fit an uploaded CSV, in words: the outputs' scale and where the widths come from.

    ``values``: the hyper-parameters used (:func:`teaching.steps.model_hyper`); ``auto``: whether they
    were chosen from the data (:func:`teaching.fits.regression.data_hyper`)."""
    text = ("The models are fitted to the outputs centred and scaled to standard deviation 1; their predictions "
            "are mapped back, so every table and plot is in your file's units." if standardise_outputs else
            "The models are fitted to the outputs in your file's units (Standardise is off on Data & shift), so "
            "lambda_x, lambda_y and rho_y are in those units.")
    if not auto:
        return text + " rho_x, rho_y, lambda_x and lambda_y are the values set above."
    return text + (f" Chosen from your data: rho_x = {values['rho_x']:.3g}, the median distance between two "
                   f"training inputs; lambda_x = lambda_y = {values['lambda_x']:.3g}, the noise level that best "
                   "predicts each training output from the others (leave-one-out, tried from 0.001 to 1 times the "
                   f"outputs' variance); rho_y = {values['rho_y']:.3g}, a quarter of the outputs' standard deviation.")


def small_sample_warning(n_tr):
    """A sentence when there are fewer than :data:`FEW_TRAINING_POINTS` training points, else None."""
    if n_tr >= FEW_TRAINING_POINTS:
        return None
    return (f"Only {n_tr} training points: every estimate here (the test, the weights, the errors) is shaky with "
            f"fewer than {FEW_TRAINING_POINTS}. Mark more rows as training or upload more data.")


def document(title, facts, link, sections):
    """The report's blocks: a title, the facts of the data (list of (name, value)), the link, then
    ``sections`` (list of (heading, blocks))."""
    blocks = [("h1", title), ("table", ["", "value"], [[k, str(v)] for k, v in facts]),
              ("p", "Open this view again (the settings are in the link; an uploaded file has to be uploaded "
                    "again):"), ("link", link)]
    for heading, content in sections:
        blocks.append(("h2", heading))
        blocks.extend(content)
    return blocks


def _cell(text):
    return markdown_text(text)


def _autolink(link):
    """A link as a Markdown autolink (characters that would end or break it percent-encoded), or escaped text
    when it is not an http(s) address."""
    import urllib.parse

    if not str(link).startswith(("http://", "https://")):
        return markdown_text(link)
    return "<" + urllib.parse.quote(str(link), safe=":/?&=%#+,;@!$'*~.-_") + ">"


def to_markdown(blocks):
    """The report as Markdown, every text escaped (:func:`markdown_text`: no HTML, link or image from a column
    name), the view's link as an autolink."""
    lines = []
    for block in blocks:
        kind = block[0]
        if kind == "h1":
            lines += [f"# {markdown_text(block[1])}", ""]
        elif kind == "h2":
            lines += [f"## {markdown_text(block[1])}", ""]
        elif kind == "p":
            lines += [markdown_text(block[1]), ""]
        elif kind == "link":
            lines += [_autolink(block[1]), ""]
        elif kind == "table":
            header, rows = block[1], block[2]
            lines.append("| " + " | ".join(_cell(h) for h in header) + " |")
            lines.append("|" + "---|" * len(header))
            lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
            lines.append("")
        else:
            raise ValueError(f"Unknown report block {kind!r}.")
    return "\n".join(lines)


def to_html(blocks, title="covshift data check"):
    """The report as one self-contained HTML page."""
    body = []
    for block in blocks:
        kind = block[0]
        if kind in ("h1", "h2"):
            body.append(f"<{kind}>{html.escape(block[1])}</{kind}>")
        elif kind in ("p", "link"):
            body.append(f"<p>{html.escape(block[1])}</p>")
        elif kind == "table":
            head = "".join(f"<th>{html.escape(str(h))}</th>" for h in block[1])
            rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>"
                           for row in block[2])
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        else:
            raise ValueError(f"Unknown report block {kind!r}.")
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.45}"
             "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #bbb;padding:0.2em 0.6em;"
             "text-align:left}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>")
