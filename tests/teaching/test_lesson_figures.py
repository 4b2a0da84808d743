"""Each lesson's figure shows its claim (issue 35): a student who does not read the green box sees it in the
picture. The figures are built here as their pages build them, from the lessons' own views, over seeds 0-2, and
what the eye is meant to see (``Lesson.eye``) is measured on the drawn traces: error panels whose curves differ
by the claimed amount, markers and lines that do not hide each other, colours of clearly different hues, shading
that covers the points it names."""

import colorsys
import itertools

import numpy as np
import plotly.graph_objects as go
import pytest

from teaching import figures, fits, lessons, readings
from teaching.figures import regression as regression_figures
from teaching.lessons import LessonRun, core, stage

SEEDS = (0, 1, 2)


# ------------------------------------------------------------------ the lessons' figures (teaching.lessons.stage)
@pytest.fixture(scope="module", params=SEEDS)
def seed(request):
    return request.param


def _lesson(key):
    return next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)


def _run(key, seed, revealed=False):
    """The lesson's run on ``seed``; ``revealed``: with the settings its "Show me" button applies."""
    return lessons.revealed_run(_lesson(key), seed) if revealed else LessonRun(_lesson(key), seed)


def _recipe(key, seed, revealed=False, cache={}):
    """The lesson's stage figure as the app draws it (:func:`teaching.lessons.stage.stage_figure`)."""
    if (key, seed, revealed) not in cache:
        cache[key, seed, revealed] = stage.stage_figure(_run(key, seed, revealed))
    return cache[key, seed, revealed]


def _figure(key, seed, revealed=False, cache={}):
    if (key, seed, revealed) not in cache:
        cache[key, seed, revealed] = _recipe(key, seed, revealed).build()
    return cache[key, seed, revealed]


def _map_data(key, seed, revealed=False):
    """The decision map's test inputs, grid abscissae and classifier scores (the recipe's arguments)."""
    args = _recipe(key, seed, revealed).args
    return args[2], args[4], args[6]


def _trace(fig, name):
    return next(t for t in fig.data if t.name == name)


def _panel_mean(fig, name):
    """The count-weighted mean of ``name``'s curve in the error panel (the mean error over the points it was drawn
    from), which the panel also draws as a dotted line ("mean error: name")."""
    trace = _trace(fig, f"error: {name}")
    mean = float(np.average(np.asarray(trace.y, dtype=float), weights=np.asarray(trace.customdata, dtype=float)))
    line = _trace(fig, f"mean error: {name}")
    assert list(line.y) == pytest.approx([mean, mean], rel=1e-12) and line.line.dash == "dot"
    return mean


def _hue(colour):
    return 360 * colorsys.rgb_to_hsv(*[int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])[0]


def _hue_distance(a, b):
    d = abs(_hue(a) - _hue(b))
    return min(d, 360 - d)


def _contrast(a, b):
    """WCAG contrast ratio of two #RRGGBB colours."""
    def luminance(colour):
        c = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
        c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(c @ [0.2126, 0.7152, 0.0722])
    high, low = sorted([luminance(a), luminance(b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


def _does_not_hide(fig):
    """Predictions drawn later are thinner (lines) and smaller (markers) than those under them, in the figure
    and in presentation mode."""
    for drawn in (fig, figures.presentation(fig)):
        lines = [t for t in drawn.data if t.mode == "lines" and t.yaxis in (None, "y") and t.fill is None
                 and t.showlegend is not False]
        markers = [t for t in drawn.data if t.mode == "markers" and t.name not in
                   ("training data", "test truth", "labelled target points")]
        widths = [t.line.width for t in lines]
        sizes = [t.marker.size for t in markers]
        assert all(a - b >= 1.5 for a, b in zip(widths, widths[1:])), widths
        assert all(a - b >= 3 for a, b in zip(sizes, sizes[1:])), sizes


# ------------------------------------------------------------------------------------------------ Why weights
def test_why_weights_the_error_panel_shows_the_weights_gain_as_a_shaded_area(seed):
    """Eye: the grey (unweighted) error line stands above the weighted ones, the area between them shaded."""
    fig = _figure("why-weights", seed)
    drawn = {name: _panel_mean(fig, name) for name in ("no weights", "true weights",
                                                                           "estimated weights")}
    run = LessonRun(lessons.WHY_WEIGHTS, seed)
    effect = run.view.weighting_effect(float(run.setting("home_width")), float(run.setting("lambda_x")))
    for name, mean in drawn.items():  # the test MAE the claim reads (the panel reads the fits off the drawn grid)
        assert mean == pytest.approx(effect[name][0], abs=1e-3)
    assert drawn["no weights"] - drawn["true weights"] >= 0.01 and drawn["no weights"] - drawn["estimated weights"] >= 0.01
    names = [t.name for t in fig.data]
    shaded = _trace(fig, "error: no weights")
    assert shaded.fill == "tonexty" and names[names.index("error: no weights") - 1] == "error: estimated weights"
    gap = np.asarray(shaded.y) - np.asarray(_trace(fig, "error: estimated weights").y)
    top = max(max(t.y) for t in fig.data if t.name.startswith("error: "))
    assert gap.max() >= 0.25 * top, (gap, top)  # the shaded area's widest stretch: a quarter of the panel or more
    assert np.argmax(gap) < len(gap) / 2, gap  # at the left of the test region
    print("\nMEASURE", seed, drawn, gap.max() / top)
    assert _trace(fig, "no weights").fill == "tonexty"  # the fits too: the shaded band between them


# ------------------------------------------------------------------------------------------ Structured output
def test_structured_output_gpr_error_stands_above_the_twin_gps_and_no_marker_hides_another(seed):
    """Eye: the grey dashed GPR line runs between the S's branches, the Twin GPs' markers (KLTGP's large
    triangles under SMTGP's small diamonds) on one; GPR's error line stands above theirs."""
    fig = _figure("structured-output", seed)
    drawn = {n: _panel_mean(fig, n) for n in ("GPR", "KLTGP", "SMTGP")}
    run = LessonRun(lessons.STRUCTURED_OUTPUT, seed)
    for name, mean in drawn.items():
        assert mean == pytest.approx(core.mae(run.view, name), abs=1e-9)
    assert drawn["GPR"] - max(drawn["KLTGP"], drawn["SMTGP"]) >= 0.03, drawn
    _does_not_hide(fig)
    truth, gpr = _trace(fig, "test truth"), _trace(fig, "GPR")
    assert truth.marker.color == figures.TEST and gpr.line.color == figures.color("GPR")
    saturation = [colorsys.rgb_to_hsv(*[int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)])[1]
                  for c in (truth.marker.color, gpr.line.color)]
    assert saturation[0] - saturation[1] >= 0.8, saturation  # orange truth, grey GPR: no longer two greys


# ----------------------------------------------------------------------------------------------------- IW-SMTGP
def test_iw_smtgp_error_panel_and_the_test_region_where_the_banner_points(seed):
    """Eye: in the orange test region SMTGP's green error line stands above IW-SMTGP's pink one; the blue
    training region holds the training points, the orange test region the test points."""
    fig = _figure("iw-smtgp", seed)
    run = LessonRun(lessons.IW_SMTGP, seed)
    data = run.view.data()
    drawn = {n: _panel_mean(fig, n) for n in ("SMTGP", "IW-SMTGP")}
    for name, mean in drawn.items():  # mean Euclidean error, as the claim
        assert mean == pytest.approx(core.errors(run.view, name).mean(), abs=1e-9)
    assert drawn["SMTGP"] - drawn["IW-SMTGP"] >= 0.05, drawn
    shapes = [(s.x0, s.x1, s.fillcolor) for s in fig.layout.shapes if s.yref == "y domain"]
    def share(points, kind):
        inside = np.zeros(len(points), dtype=bool)
        for x0, x1, fill in shapes:
            if fill == regression_figures.REGION_FILLS[kind]:
                inside |= (points >= x0) & (points <= x1)
        return inside.mean()
    shares = {"test points in the test region": share(data.X_te[:, 0], "test"),
              "training points in the training region": share(data.X_tr[:, 0], "training"),
              "test points in the training region": share(data.X_te[:, 0], "training")}
    assert shares["test points in the test region"] >= 0.85, shares
    assert shares["training points in the training region"] >= 0.55, shares  # the training points overlap the
    assert shares["test points in the training region"] <= 0.15, shares  # test region: most, not all, lie outside
    smtgp, iw = (np.asarray(_trace(fig, n).y) for n in ("SMTGP", "IW-SMTGP"))
    in_test = np.zeros(len(smtgp), dtype=bool)
    for x0, x1, fill in shapes:
        if fill == regression_figures.REGION_FILLS["test"]:
            in_test |= (data.X_te[:, 0] >= x0) & (data.X_te[:, 0] <= x1)
    errors = {n: core.errors(run.view, n)[in_test].mean() for n in ("SMTGP", "IW-SMTGP")}
    assert errors["SMTGP"] >= 2 * errors["IW-SMTGP"], errors  # in the shaded test region
    assert np.mean(np.abs(smtgp - iw)) >= 0.05  # in y0's units: the two markers apart, not on one curve
    _does_not_hide(fig)
    print("\nMEASURE", seed, drawn, shares, errors, np.mean(np.abs(smtgp - iw)))


# --------------------------------------------------------------------------------------------- A few target labels
def test_few_labels_error_panel_shows_both_adaptations_below_none_and_neither_line_hides_the_other(seed):
    """Eye: the grey no-adaptation error line above the green and pink ones; where importance weighting and delta
    adaptation coincide, the thin pink dotted line runs inside the wider green one."""
    fig = _figure("few-labels", seed)
    run = LessonRun(lessons.FEW_LABELS, seed)
    _, Y_eval, preds = run.view.few_labels(int(run.setting("n_labels")))
    drawn = {n: _panel_mean(fig, n) for n in preds}
    for name, mean in drawn.items():  # one output: the Euclidean error is the absolute error, its mean the MAE
        assert mean == pytest.approx(readings.metrics.mae(Y_eval, preds[name]), abs=1e-9)
    assert drawn["no adaptation"] - drawn["importance weighting"] >= 0.01, drawn
    assert drawn["no adaptation"] - drawn["delta adaptation"] >= 0.005, drawn
    _does_not_hide(fig)
    print("\nMEASURE", seed, drawn)


# ------------------------------------------------------------------------------------------- Estimators disagree
def test_estimators_disagree_the_error_panel_ranks_the_curves_in_hues_apart(seed):
    """Eye: three curves in three hues (pink FCFWCS, green LogisticRatio, indigo RuLSIF) against the dotted
    truth; in the error panel under them RuLSIF's indigo line runs below FCFWCS's pink one."""
    fig = _figure("estimators-disagree", seed)
    run = LessonRun(lessons.ESTIMATORS_DISAGREE, seed)
    truth = run.view.data().true_weights
    curves = [t.name for t in fig.data if t.name and t.name != "true ratio" and "error: " not in t.name]
    assert set(curves) == {"FCFWCS", "LogisticRatio", "RuLSIF"}, curves
    drawn = {n: _panel_mean(fig, n) for n in curves}
    for name, mean in drawn.items():  # the table's NMSE, which the claim compares
        assert mean == pytest.approx(readings.weight_error(run.view.weights(name).model.weights_, truth), rel=1e-9)
    assert drawn["RuLSIF"] < drawn["FCFWCS"], drawn
    colours = {n: _trace(fig, n).line.color for n in curves}
    hues = {(a, b): _hue_distance(colours[a], colours[b]) for a, b in itertools.combinations(curves, 2)}
    assert min(hues.values()) >= 60, hues
    assert all(_contrast(c, "#FFFFFF") >= 3 for c in colours.values()), colours
    print("\nMEASURE", seed, drawn, min(hues.values()))


# ------------------------------------------------------------------------------------- KLIEP and its Frank-Wolfe solvers
def test_kliep_gap_figure_rings_each_solver_at_equal_gap_with_its_atoms(seed):
    """Eye: on the dotted line of gap 1e-3, FCFWCS's ring comes first (leftmost) and says the fewest atoms."""
    fig = _figure("kliep-solvers", seed)
    run = LessonRun(lessons.KLIEP_SOLVERS, seed)
    level = lessons.EQUAL_GAPS[0]
    rings = {t.legendgroup: t for t in fig.data if t.name and t.name.endswith(f"atoms at gap {level:g}")}
    assert set(rings) == set(run.setting("estimators")), list(rings)
    labels = {(round(a.x, 9), round(a.y, 9)): a.text for a in fig.layout.annotations if a.text.endswith(" atoms")}
    for name, ring in rings.items():
        t, atoms = readings.first_at_gap(run.view.weights(name).model.history_, level)
        assert ring.x[0] == t + 1 and ring.name == f"{name}: {atoms} atoms at gap {level:g}"
        assert labels[round(np.log10(ring.x[0]), 9), round(np.log10(ring.y[0]), 9)] == f"{atoms} atoms"
    atoms = {n: int(r.name.split(": ")[1].split()[0]) for n, r in rings.items()}
    first = {n: r.x[0] for n, r in rings.items()}
    others = [n for n in rings if n != "FCFWCS"]
    assert first["FCFWCS"] <= 10 and all(first[n] >= 100 for n in others), first  # x = iteration + 1
    assert all(atoms[n] >= 4 * atoms["FCFWCS"] for n in others), atoms
    lines = sorted(s.y0 for s in fig.layout.shapes)
    assert lines == sorted(lessons.EQUAL_GAPS)
    print("\nMEASURE", seed, atoms, first)


# ----------------------------------------------------------------------------------------- The boundary turns
def _boundary_heights(xs, ys, grid):
    """x2 of a classifier's boundary f = 0 in each column of its score grid (NaN where it does not cross)."""
    heights = np.full(len(xs), np.nan)
    for j in range(len(xs)):
        crossing = np.flatnonzero(np.sign(grid[:-1, j]) != np.sign(grid[1:, j]))
        if crossing.size:
            k = crossing[0]
            heights[j] = ys[k] - grid[k, j] * (ys[k + 1] - ys[k]) / (grid[k + 1, j] - grid[k, j])
    return heights


def test_boundary_turns_the_weighted_lines_run_nearer_the_true_boundary_where_the_test_points_are(seed):
    """Eye: among the test crosses (x1 between their 10th and 90th percentile), the dashed two-stage and solid
    integrated lines run nearer the black true boundary than the dotted iid line; every line keeps 3:1 contrast
    on its white edge over the green selector."""
    fig = _figure("boundary-turns", seed)
    X_te, xs, scores = _map_data("boundary-turns", seed)
    _, true_heights = fits.classification.classification_true_boundary(xs)
    lo, hi = np.percentile(X_te[:, 0], [10, 90])
    among = (xs >= lo) & (xs <= hi)
    contours = {t.name: t for t in fig.data if isinstance(t, go.Contour)}
    distance = {}
    for name in scores:
        drawn = contours[name]
        heights = _boundary_heights(np.asarray(drawn.x), np.asarray(drawn.y), np.asarray(drawn.z))
        distance[name] = float(np.nanmean(np.abs(heights - true_heights)[among]))
        halo = contours[f"{name} (halo)"]
        assert halo.line.color == "#FFFFFF" and halo.line.width >= drawn.line.width + 4
        names = [t.name for t in fig.data]
        assert names.index(f"{name} (halo)") < min(names.index(n) for n in scores)  # under every line
        assert _contrast(drawn.line.color, halo.line.color) >= 3, (name, drawn.line.color)
    widths = [contours[name].line.width for name in scores]  # where lines coincide, the thinner ones lie inside
    assert all(a - b >= 1.5 for a, b in zip(widths, widths[1:])), widths
    iid, two_stage, integrated = (distance[n] for n in scores)
    assert iid >= 1.3 * max(two_stage, integrated), distance
    print("\nMEASURE", seed, distance, iid / max(two_stage, integrated))


# --------------------------------------------------------------------------- after the reveal ("Show me")
def _means(fig, names):
    return {n: _panel_mean(fig, n) for n in names}


def test_after_the_reveal_the_figures_show_the_changed_claims(seed):
    """What the eye sees after "Show me", on the same figures: Why weights (width 0.3) the weighted and unweighted
    error lines together (no shaded area to speak of); Structured output (GPR width 0.3) GPR's error line still
    above KLTGP's; IW-SMTGP (width 0.3) SMTGP's and IW-SMTGP's markers together; A few target labels (2 labels)
    the pink delta line above the green one; Estimators disagree (one width) the error lines still far apart."""
    why = _means(_figure("why-weights", seed, True), ("no weights", "true weights", "estimated weights"))
    assert max(abs(why["no weights"] - why[n]) for n in ("true weights", "estimated weights")) <= 0.005, why
    structured = _means(_figure("structured-output", seed, True), ("GPR", "KLTGP"))
    assert structured["GPR"] - structured["KLTGP"] >= 0.03, structured
    lesson, revealed = _figure("iw-smtgp", seed), _figure("iw-smtgp", seed, True)
    apart = {name: float(np.mean(np.abs(np.asarray(_trace(f, "SMTGP").y) - np.asarray(_trace(f, "IW-SMTGP").y))))
             for name, f in (("lesson", lesson), ("revealed", revealed))}
    assert apart["revealed"] <= 0.2 * apart["lesson"], apart  # in y0's units: the markers come together
    iw = _means(revealed, ("SMTGP", "IW-SMTGP"))
    assert abs(iw["SMTGP"] - iw["IW-SMTGP"]) <= 0.02, iw  # (lesson: 0.11 or more apart)
    few = _means(_figure("few-labels", seed, True), ("importance weighting", "delta adaptation"))
    assert few["delta adaptation"] - few["importance weighting"] >= 0.01, few
    estimators = _means(_figure("estimators-disagree", seed, True), ("FCFWCS", "LogisticRatio", "RuLSIF"))
    assert max(estimators.values()) >= 3 * min(estimators.values()), estimators
    print("\nMEASURE", seed, why, structured, apart, iw, few, estimators)


def test_after_the_reveal_the_boundaries_run_together(seed):
    """Boundary turns after "Show me" (steepness 0, no selection): the three lines run together among the test
    points; in the lesson's view the iid line is far from the weighted ones."""
    spread = {}
    for revealed in (False, True):
        fig = _figure("boundary-turns", seed, revealed)
        X_te, _, _ = _map_data("boundary-turns", seed, revealed)
        contours = [t for t in fig.data if isinstance(t, go.Contour) and not t.name.endswith("(halo)")]
        xs = np.asarray(contours[0].x)
        lo, hi = np.percentile(X_te[:, 0], [10, 90])
        among = (xs >= lo) & (xs <= hi)
        heights = [_boundary_heights(xs, np.asarray(t.y), np.asarray(t.z))[among] for t in contours]
        spread[revealed] = max(float(np.nanmean(np.abs(a - b))) for a, b in itertools.combinations(heights, 2))
    assert spread[True] <= 0.25 * spread[False], spread
    print("\nMEASURE", seed, spread)


def test_every_lesson_says_what_its_figure_shows_and_its_figure_is_measured_here():
    for lesson in lessons.LESSONS.values():
        assert lesson.eye.strip(), lesson.key
        assert lesson.key in stage.RECIPES, lesson.key
