"""The View: one hashable value naming what a page shows, whose methods compute it through the one pipeline.

A :class:`View` holds a named data spec (:class:`teaching.steps.BuiltInData` or
:class:`teaching.steps.UploadedData`), the kernel-width setting, the regression hyper-parameters and
the selected methods. It is built once per run, from the session's settings (``teaching.ui``) or
from a lesson's (:class:`teaching.lessons.LessonRun`), by the same :meth:`View.from_settings`; a
page, a claim, a benchmark and a worker then compute through the same cached steps
(:mod:`teaching.steps`) with the same arguments, so they share every fit.

The pages that compute apart from the data spec carry their settings in a small hashable part of the
View: :class:`ClassificationSettings` (Classification under shift), :class:`TransferSettings` (Domain transfer)
and :class:`ScalingSettings` (Scaling); their methods take no page argument.

The kernel width: ``sigma`` is a number or ``"auto"`` (the one spelling). The KLIEP family's
shared width is resolved once per View (:attr:`View.shared_sigma`, on first use, so a page that
fits no weights never pays for it) and passed on as a number; the other estimators get the number,
or ``"auto"`` (their own rule). :meth:`View.admit` is the one time-budget check, before any step runs.
"""

import dataclasses

import numpy as np

from covshift import diagnostics
from teaching import budget, catalog, fits, steps, uploads
from teaching.settings import defaults as setting_defaults
from teaching.steps import BuiltInData, UploadedData  # noqa: F401  (the data specs a View names)

AUTO = "auto"

#: The largest weights listed by the Check your data page.
TOP_WEIGHTS = 10

#: The regression hyper-parameters of a view (numbers).
HYPER_NUMBERS = ("theta", "gamma", "rho_x", "rho_y", "lambda_x", "lambda_y")


def sigma_setting(settings):
    """The kernel-width setting: "auto", or the slider's number in manual mode."""
    return AUTO if settings["sigma_mode"] == AUTO else float(settings["sigma"])


def selected_methods(settings):
    """Every weight estimator and regression model the settings run somewhere in the app."""
    names = [*settings.get("estimators", ()), *settings.get("models", ()), settings.get("weights_for_models"),
             settings.get("check_weights"), settings.get("check_model")]
    return tuple(dict.fromkeys(n for n in names if n))


def hyper_items(settings, **overrides):
    """The regression hyper-parameters of a view as a sorted tuple of items (a cache key).

    For an uploaded CSV two more items say how the models follow the data's scale (resolved by
    :meth:`View.model_hyper`): ``standardise_outputs`` (the "Standardise" switch) and ``widths`` ("auto":
    rho_x, rho_y, lambda_x and lambda_y from the data, :func:`teaching.fits.regression.data_hyper`; "manual").
    """
    numbers = {k: float(settings[k]) for k in HYPER_NUMBERS}
    if settings["source"] == "csv":
        numbers.update(standardise_outputs=bool(settings["csv_standardise"]), widths=settings["csv_hyper"])
    return tuple(sorted({**numbers, "tgp_start": settings["tgp_start"], **overrides}.items()))


def csv_split(settings):
    """The train/test choice of an uploaded CSV as :func:`teaching.uploads.csv_dataset` takes it: None for
    selection bias, a column name, or (date column, first test date) when a date is typed."""
    split = settings["csv_split"]
    if split == "selection bias":
        return None
    date = settings.get("csv_split_date", "")
    return (split, date) if date else split


def data_spec(settings, file_digest=None, dataset=None):
    """The data spec the settings name; ``file_digest``: the uploaded file's (:func:`teaching.uploaded_files.add_file`)
    for a CSV source; ``dataset`` forces a built-in data set with its current parameters."""
    seed = int(settings["seed"])
    if dataset is None and settings["source"] == "csv":
        return UploadedData(file_digest, tuple(settings["csv_inputs"]), tuple(settings["csv_outputs"]),
                            csv_split(settings), bool(settings["csv_standardise"]), seed)
    name = dataset or settings["dataset"]
    return BuiltInData(name, tuple((p, settings[f"{name}.{p}"]) for p in catalog.DATASETS[name][1]), seed)


_DEFAULTS = setting_defaults()


def _setting(settings, name):
    """Setting ``name`` of ``settings``, or its default (a lesson's settings name only what its page reads)."""
    return settings.get(name, _DEFAULTS[name])


@dataclasses.dataclass(frozen=True)
class ClassificationSettings:
    """The Classification page's toy and classifiers (the ``clf.*`` settings): pool size, selection steepness,
    label noise, the classifiers' kernel and RBF width, the prior variances C and C_v, the two-stage weights."""

    n: int
    steepness: float
    label_noise: float
    kernel: str
    sigma: float
    C: float
    C_v: float
    weights: str

    @classmethod
    def from_settings(cls, settings):
        def get(name):
            return _setting(settings, f"clf.{name}")
        return cls(int(get("n")), float(get("steepness")), float(get("label_noise")), get("kernel"),
                   float(get("sigma")), float(get("C")), float(get("C_v")), get("weights"))


@dataclasses.dataclass(frozen=True)
class TransferSettings:
    """The Domain transfer page's task (the ``dt_*`` settings): the task, the target's transformation, the
    number l of labelled target examples, the delta function's C (a number or "auto") and the cutting-plane
    stopping threshold epsilon."""

    task: str
    shift: str
    n_labelled: int
    C: object
    epsilon: float

    @classmethod
    def from_settings(cls, settings):
        C = _setting(settings, "dt_C")
        return cls(_setting(settings, "dt_task"), _setting(settings, "dt_shift"), int(_setting(settings, "dt_l")),
                   C if C == AUTO else float(C), float(_setting(settings, "dt_epsilon")))


@dataclasses.dataclass(frozen=True)
class ScalingSettings:
    """The Scaling page's timings: the weight estimators, the sample sizes n (= n_tr = n_te, ascending) and the
    fixed kernel width they are timed at (the ``sigma`` setting's number, the width of the manual mode; 0.3 by
    default, the width of the paper's Fig. 2g)."""

    estimators: tuple
    sizes: tuple
    sigma: float

    @classmethod
    def from_settings(cls, settings):
        return cls(tuple(_setting(settings, "scaling_estimators")),
                   tuple(sorted(int(n) for n in _setting(settings, "scaling_sizes"))), float(_setting(settings, "sigma")))


def _part(kind):
    """A part of the View with the registry's default settings."""
    return kind.from_settings({})


@dataclasses.dataclass(frozen=True)
class View:
    """What a view computes: its data, kernel width, hyper-parameters and methods, and the settings of the
    Classification, Domain transfer and Scaling pages (see the module docstring)."""

    data_spec: object
    sigma: object = AUTO
    hyper: tuple = ()
    methods: tuple = ()
    weights_for_models: str = "FCFWCS"
    classification: ClassificationSettings = dataclasses.field(default_factory=lambda: _part(ClassificationSettings))
    domain_transfer: TransferSettings = dataclasses.field(default_factory=lambda: _part(TransferSettings))
    scaling: ScalingSettings = dataclasses.field(default_factory=lambda: _part(ScalingSettings))

    @classmethod
    def from_settings(cls, settings, file_digest=None, dataset=None):
        """The View of a settings dict (the app's, or a lesson's): the one place settings become arguments."""
        return cls(data_spec(settings, file_digest, dataset), sigma_setting(settings), hyper_items(settings),
                   selected_methods(settings), settings["weights_for_models"],
                   ClassificationSettings.from_settings(settings), TransferSettings.from_settings(settings),
                   ScalingSettings.from_settings(settings))

    def with_hyper(self, **overrides):
        """The same view with some regression hyper-parameters changed (a lesson's comparison)."""
        return dataclasses.replace(self, hyper=tuple(sorted({**dict(self.hyper), **overrides}.items())))

    @property
    def seed(self):
        return self.data_spec.seed

    # -------------------------------------------------------------- data, width, budget
    def data(self):
        """The view's data set (a :class:`covshift.data.ShiftData`)."""
        return self._kept(("data",), steps.data, self.data_spec)

    def new_run(self):
        """Forget the answers :meth:`_kept` kept for the previous run (``teaching.ui.view`` calls it once a run)."""
        self.__dict__.pop("_answers", None)
        return self

    def _kept(self, key, step, *args):
        """``step(*args)`` (a step of :mod:`teaching.steps`), its answer kept beside the fields under ``key`` for this
        View's later calls, as :attr:`shared_sigma` is: a page reads a view's data and predictions many times a run
        (14 and 16 times on the regression page), and the View lives on in its session while the settings stay, so
        each later call was a hit of the step cache, whose hashing of the arguments and unpickling of the answer cost
        0.2-0.4 ms (issue 40). Read the answer, do not change it (the cache gave every call its own copy). A failure
        is not kept. Kept for one run of the page: :meth:`new_run` forgets them (a run asks the step cache again,
        so that it sees a cache emptied or filled since)."""
        kept = self.__dict__.setdefault("_answers", {})
        found = kept.get(key)
        if found is None:
            found = kept.setdefault(key, step(*args))
        return found

    def csv_table(self):
        """The parsed uploaded file (:class:`teaching.uploads.CsvTable`) of a CSV view."""
        return steps.csv_table(self.data_spec.digest, self.data_spec.seed)

    def csv_rows(self):
        """Sentences on the rows of an uploaded CSV view: rows left out and why, how many have outputs
        (:func:`teaching.uploads.describe_rows`); [] for built-in data."""
        if not isinstance(self.data_spec, UploadedData):
            return []
        spec = self.data_spec
        split = list(spec.split) if isinstance(spec.split, tuple) else spec.split
        return uploads.describe_rows(self.csv_table(), list(spec.inputs), self.data(), split, list(spec.outputs))

    @property
    def shared_sigma(self):
        """The one width of the KLIEP family on this view (:class:`teaching.fits.regression.SharedSigma`), resolved
        once per View: the number set, or ("auto") likelihood cross-validation within the time budget.

        Kept beside the fields, not by ``functools.cached_property``: before Python 3.12 that holds one lock per
        property for all instances, so every session's View waited while one computed its width on a worker."""
        resolved = self.__dict__.get("_shared_sigma")
        if resolved is None:
            if self.sigma == AUTO:
                self._check([budget.SHARED_SIGMA], AUTO)
            resolved = self.__dict__.setdefault("_shared_sigma", steps.shared_sigma(self.data_spec, self.sigma))
        return resolved

    def sigma_for(self, name):
        """The width estimator ``name`` is fitted with: the shared one for the KLIEP family; with "auto", the data's
        median heuristic (computed once, :func:`teaching.steps.median_sigma`) for the estimators whose rule it is;
        else the setting."""
        if name in catalog.KLIEP_FAMILY:
            return self.shared_sigma.sigma
        if self.sigma == AUTO and name in catalog.MEDIAN_RULE:
            return steps.median_sigma(self.data_spec)
        return self.sigma

    def admit(self, names):
        """The one time-budget check: ValueError naming the limit and the way out when a method of
        ``names`` (weight estimators and models), or the width choice it needs, would take too long here."""
        for name in names:
            if name in catalog.KLIEP_FAMILY and self.sigma == AUTO:
                self._check([budget.SHARED_SIGMA], AUTO)
            self._check([name], self.sigma)

    def _check(self, names, sigma):
        """:func:`teaching.budget.check_size` on this view's data, each distinct check once per View: its answer
        depends only on the View (the shared width's check, asked by :meth:`admit` and then by
        :attr:`shared_sigma` on first use, runs once)."""
        passed = self.__dict__.setdefault("_passed_checks", set())  # beside the fields, as shared_sigma keeps
        if (tuple(names), sigma) in passed:
            return
        points = self.data()
        budget.check_size(names, len(points.X_tr), len(points.X_te), sigma)
        passed.add((tuple(names), sigma))

    def refused_at_size(self, n_tr, n_te):
        """{method: limit} of the view's methods that would be refused at this size (before anything runs)."""
        return budget.refused(self.methods, n_tr, n_te, self.sigma)

    # -------------------------------------------------------------- weights and predictions
    def weights(self, name):
        """The weight fit of estimator ``name`` (a :class:`teaching.outcomes.Outcome`), within the budget."""
        self.admit([name])
        return steps.fitted_weights(self.data_spec, name, self.sigma_for(name))

    def replay(self, name, presentation=False):
        """The step-by-step replay of the Frank-Wolfe fit of ``name`` on this view, within the budget
        (:func:`teaching.steps.replay_document`): (html, height in pixels, the payload's meta)."""
        self.admit([name])
        return steps.replay_document(self.data_spec, name, self.sigma_for(name), bool(presentation))

    def prediction(self, model, weights=None):
        """The fit and test predictions of regression model ``model`` (an Outcome), IW- models with the
        weights of ``weights`` (default: the view's), within the budget."""
        weights = weights or self.weights_for_models
        if model not in catalog.REGRESSORS:
            raise ValueError(f"Unknown regression model {model!r}; choose one of {list(catalog.REGRESSORS)}.")
        if not catalog.REGRESSORS[model]:
            self.admit([model])
            return self._kept(("prediction", model), steps.fitted_prediction, self.data_spec, model, None, None,
                              self.hyper)
        self.admit([model, weights])
        return self._kept(("prediction", model, weights), steps.fitted_prediction, self.data_spec, model, weights,
                          self.sigma_for(weights), self.hyper)

    def model_hyper(self):
        """(hyper-parameters the models use, whether outputs are standardised for fitting): for an uploaded
        CSV with automatic widths, those chosen from the data (:func:`teaching.steps.model_hyper`)."""
        return steps.model_hyper(self.data_spec, self.hyper)

    def weighting_effect(self, width, lambda_x):
        """Home's Why-weights figure data: a GPR of input width ``width`` without, with true and with the
        view's estimated weights: {label: (test MAE, predictions on :meth:`effect_grid`)}
        (:func:`teaching.steps.weighting_effect`)."""
        self.admit([self.weights_for_models, "GPR"])
        return steps.weighting_effect(self.data_spec, self.weights_for_models, self.sigma_for(self.weights_for_models),
                                      float(width), float(lambda_x))

    def effect_grid(self):
        """The inputs of :meth:`weighting_effect`'s predictions (:func:`teaching.fits.regression.effect_grid`)."""
        return fits.regression.effect_grid(self.data())

    def weighting_by_width(self, widths, lambda_x):
        """Test MAE without, with true and with estimated weights, per GP width."""
        self.admit([self.weights_for_models, "GPR"])
        return steps.weighting_by_width(self.data_spec, self.weights_for_models,
                                        self.sigma_for(self.weights_for_models),
                                        tuple(float(w) for w in widths), float(lambda_x))

    def few_labels(self, n_labels):
        """No adaptation, importance weighting and delta adaptation with ``n_labels`` labelled test points."""
        self.admit([self.weights_for_models, "GPR"])
        hyper, standardise = self.model_hyper()
        return steps.few_labels(self.data_spec, self.weights_for_models, self.sigma_for(self.weights_for_models),
                                n_labels, float(hyper["rho_x"]), float(hyper["lambda_x"]), standardise)

    def labelled_points(self, n_labels):
        """Mask of the test points whose labels :meth:`few_labels` reveals."""
        return fits.regression.labelled_test_points(len(self.data().X_te), n_labels, self.seed)

    # -------------------------------------------------------------- Check your data
    def input_units(self):
        """(names, mean, scale) of the inputs: original units = x * scale + mean (the standardisation
        of an uploaded CSV, :func:`teaching.uploads.input_scaling`; identity otherwise)."""
        d = self.data().X_tr.shape[1]
        if not isinstance(self.data_spec, UploadedData):
            return [f"x{j}" for j in range(d)], np.zeros(d), np.ones(d)
        inputs = list(self.data_spec.inputs)
        mean, scale = uploads.input_scaling(self.csv_table(), inputs, self.data_spec.standardise)
        return inputs, mean, scale

    def inputs_in_units(self):
        """(names, X_tr, X_te) with the inputs in the units of the file (:meth:`input_units`)."""
        points = self.data()
        names, mean, scale = self.input_units()
        return names, points.X_tr * scale + mean, points.X_te * scale + mean

    def output_names(self):
        """The output names (the CSV's columns, else y0, y1, ...)."""
        if isinstance(self.data_spec, UploadedData):
            return list(self.data_spec.outputs)
        return [f"y{k}" for k in range(self.data().Y_tr.shape[1])]

    def shift_test(self, method):
        """The two-sample test of training against test inputs (an Outcome)."""
        return steps.shift_test(self.data_spec, method)

    def column_shift(self):
        """The KS statistic of each input (:func:`covshift.diagnostics.feature_shift`)."""
        return steps.column_shift(self.data_spec)

    def weight_check(self, name):
        """The weights of estimator ``name`` on the mean-1 scale, their :func:`covshift.diagnostics.weight_summary`
        and the training points with the :data:`TOP_WEIGHTS` largest weights (indices, largest first)."""
        w = np.asarray(self.weights(name).model.weights_, dtype=float)
        w = w / w.mean()
        top = np.argsort(-w, kind="stable")[:TOP_WEIGHTS]
        points = self.data()
        return {"weights": w, "summary": diagnostics.weight_summary(w, points.X_tr, points.X_te), "top": top}

    def cv_errors(self, model, weights):
        """Ordinary and importance-weighted CV error of ``model`` and its test error
        (:func:`teaching.steps.fitted_cv_errors`), within the budget."""
        self.admit([model, weights])
        return steps.fitted_cv_errors(self.data_spec, model, weights, self.sigma_for(weights), self.hyper)

    # -------------------------------------------------------------- Classification, Domain transfer, Scaling
    def classification_toy(self):
        """The Classification page's 2-D toy (:attr:`classification`) with this view's seed."""
        c = self.classification
        return steps.classification_toy(c.n, c.steepness, c.label_noise, self.seed)

    def classifiers(self):
        """The iid, two-stage and integrated classifiers of :attr:`classification` on :meth:`classification_toy`'s
        data: (score rows, grid, {name: training weights}, {name: warnings})."""
        c = self.classification
        return steps.classifiers(c.n, c.steepness, c.label_noise, self.seed, c.kernel, c.sigma, c.C, c.C_v, c.weights)

    def transfer_data(self):
        """The source and transformed target digits of the Domain transfer task (:attr:`domain_transfer`)."""
        return steps.transfer_data(self.domain_transfer.task, self.domain_transfer.shift)

    def transfer_source(self):
        """The source structural SVM of the Domain transfer task (an Outcome)."""
        return steps.transfer_source(self.domain_transfer.task, self.domain_transfer.shift)

    def transfer(self):
        """The delta-function transfer of :attr:`domain_transfer`, its l target labels drawn with this view's seed
        (an Outcome)."""
        t = self.domain_transfer
        return steps.transfer_fit(t.task, t.shift, t.n_labelled, self.seed, t.C, t.epsilon)

    def timing(self, name, n):
        """(seconds per run, iterations, at the iteration limit) of weight estimator ``name`` at n_tr = n_te = ``n``
        on the sinc data, with the fixed width of :attr:`scaling` (:func:`teaching.steps.timing`), within the budget."""
        sigma = self.scaling.sigma
        budget.check_size([name], int(n), int(n), sigma)
        return steps.timing(name, int(n), sigma)
