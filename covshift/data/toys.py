"""The Twin-GP papers' structured-output toys (the S-shape, the double S, outputs on a circle) and the digits with
a shifted input centre, each a :class:`covshift.data.shift.ShiftData` with its training and test split."""

import numpy as np

from .._validation import as_generator, check_int, check_positive
from .shift import SelectionRatio, ShiftData, LeftSelection, check_location, check_scale, gaussian_ratio, selection_bias


def _s_curve(y, noise, rng):
    return y + 0.3 * np.sin(2 * np.pi * y) + rng.normal(0.0, noise, size=y.shape)


def _shifted_split(x_tr, y_tr, x_te, y_te, shift, rng, name):
    """Optionally bias the training inputs towards small x (keeps p(y|x): selection on x)."""
    if not shift:
        return ShiftData(x_tr, y_tr, x_te, y_te, None, name)
    probability = LeftSelection(float(x_tr.min()), float(x_tr.max()), float(shift))
    keep = rng.random(len(x_tr)) < probability(x_tr)
    if keep.sum() < 2:
        raise ValueError(f"shift={shift:.3g} kept {int(keep.sum())} of {len(x_tr)} training points (each is "
                         "kept with probability exp(-shift (x - min) / range), so a large shift keeps only "
                         "the leftmost); at least 2 are needed. Use a smaller shift (0 to about 10) or "
                         "a larger n_tr.")
    ratio = SelectionRatio(probability, float(np.mean(probability(x_tr))), test_is_rest=False)
    return ShiftData(x_tr[keep], y_tr[keep], x_te, y_te, ratio, name)


def s_shape(n_tr=250, n_te=250, noise=0.005, shift=0.0, random_state=0):
    """Toy 1 of sharma-mittal-tgp (section 5.1.1): y ~ U(0, 1), x = y + 0.3 sin(2 pi y) + noise.

    The test set is n_te equally spaced y in (0, 1) mapped the same way. ``shift`` > 0
    biases the training inputs towards small x by selection with probability
    exp(-shift * (x - min) / range), which keeps p(y|x) (a covariate shift); the
    density ratio is then known up to the sampled pool.

    Parameters
    ----------
    n_tr : int, default 250
        Training points (before the shift's selection).
    n_te : int, default 250
        Test points.
    noise : float, default 0.005
        Standard deviation of the input noise.
    shift : float, default 0.0
        Strength of the selection towards small x (0: none).
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        Inputs x and outputs y, one column each.
    """
    n_tr, n_te = check_int(n_tr, "n_tr", minimum=2), check_int(n_te, "n_te")
    check_scale(noise, "noise", allow_zero=True)
    check_positive(shift, "shift", allow_zero=True)
    rng = as_generator(random_state)
    y_tr = rng.uniform(0.0, 1.0, size=(n_tr, 1))
    y_te = np.linspace(0.0, 1.0, n_te + 2)[1:-1, None]
    return _shifted_split(_s_curve(y_tr, noise, rng), y_tr, _s_curve(y_te, noise, rng), y_te,
                          shift, rng, "S-shape (Toy 1)")


def double_s(n_tr=250, n_te=500, noise=0.005, shift=0.0, random_state=0):
    """Toy 2 of sharma-mittal-tgp (section 5.1.2): two S shapes end to end on y in (-1, 1).

    x = y + 0.3 sin(2 pi y) + noise with y ~ U(-1, 1); 2 n_tr points are drawn and
    every second kept (the paper's down-sampling). Test: n_te equally spaced y.

    Parameters
    ----------
    n_tr : int, default 250
        Training points.
    n_te : int, default 500
        Test points.
    noise : float, default 0.005
        Standard deviation of the input noise.
    shift : float, default 0.0
        Strength of the selection towards small x (0: none).
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        Inputs x and outputs y, one column each.
    """
    n_tr, n_te = check_int(n_tr, "n_tr", minimum=2), check_int(n_te, "n_te")
    check_scale(noise, "noise", allow_zero=True)
    check_positive(shift, "shift", allow_zero=True)
    rng = as_generator(random_state)
    y_tr = np.sort(rng.uniform(-1.0, 1.0, size=(2 * n_tr, 1)), axis=0)[::2]
    y_te = np.linspace(-1.0, 1.0, n_te + 2)[1:-1, None]
    return _shifted_split(_s_curve(y_tr, noise, rng), y_tr, _s_curve(y_te, noise, rng), y_te,
                          shift, rng, "Double S (Toy 2)")


def circle_outputs(n_tr=300, n_te=200, noise=0.03, mean_tr=0.0, std_tr=0.6, mean_te=0.5,
                   std_te=0.3, random_state=0):
    """A 2-output toy with structure: x ~ N, y = (cos(pi x), sin(pi x)) + noise.

    The outputs lie on the unit circle, so they are strongly correlated (structured
    prediction matters); the inputs are shifted between training and test as in
    :func:`sinc_shift`, and the true ratio is known.

    Parameters
    ----------
    n_tr : int, default 300
        Training points.
    n_te : int, default 200
        Test points.
    noise : float, default 0.03
        Standard deviation of the output noise.
    mean_tr : float, default 0.0
        Mean of the training inputs.
    std_tr : float, default 0.6
        Their standard deviation.
    mean_te : float, default 0.5
        Mean of the test inputs.
    std_te : float, default 0.3
        Their standard deviation.
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        Outputs of shape (n, 2), with the true ratio.
    """
    n_tr, n_te = check_int(n_tr, "n_tr"), check_int(n_te, "n_te")
    check_scale(noise, "noise", allow_zero=True)
    for value, name in [(mean_tr, "mean_tr"), (mean_te, "mean_te")]:
        check_location(value, name)
    for value, name in [(std_tr, "std_tr"), (std_te, "std_te")]:
        check_scale(value, name)
    rng = as_generator(random_state)
    x_tr = rng.normal(mean_tr, std_tr, size=(n_tr, 1))
    x_te = rng.normal(mean_te, std_te, size=(n_te, 1))

    def outputs(x):
        return np.hstack([np.cos(np.pi * x), np.sin(np.pi * x)]) + rng.normal(0, noise, (len(x), 2))

    return ShiftData(x_tr, outputs(x_tr), x_te, outputs(x_te),
                     gaussian_ratio(mean_tr, std_tr, mean_te, std_te), "Circle (2 outputs)")


def digits_center(shift="selection", n_tr=500, n_max=None, train_classes=(0, 1, 2, 3, 4),
                  random_state=0):
    """scikit-learn's bundled 8x8 digits: predict the 4x4 centre pixels from the other 48.

    The image-reconstruction task of sharma-mittal-tgp (USPS, section 5.1.3) in small.
    Pixels are scaled to [0, 1]. ``shift="selection"`` splits by the selection-bias
    sampler with about ``n_tr`` training images (true ratio known); ``shift="class"`` trains mostly on ``train_classes``
    (80 % of their images, 10 % of the others) and tests on the rest; ``None`` is a
    random half split.

    Parameters
    ----------
    shift : {"selection", "class", None}, default "selection"
        How the images are split (above).
    n_tr : int, default 500
        About this many training images with ``shift="selection"``.
    n_max : int or None, default None
        Use a seeded subset of at most this many images.
    train_classes : tuple of int, default (0, 1, 2, 3, 4)
        The favoured classes of ``shift="class"``.
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        48 input pixels, 16 output pixels.
    """
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = digits.images / 16.0
    centre = np.zeros((8, 8), dtype=bool)
    centre[2:6, 2:6] = True
    X = images[:, ~centre].reshape(len(images), -1)
    Y = images[:, centre].reshape(len(images), -1)
    labels = digits.target
    rng = as_generator(random_state)
    if n_max is not None:
        keep = rng.choice(len(X), size=min(check_int(n_max, "n_max", minimum=4), len(X)), replace=False)
        X, Y, labels = X[keep], Y[keep], labels[keep]
    if shift == "selection":
        return selection_bias(X, Y, n_tr=min(n_tr, len(X) // 2), random_state=random_state,
                              name="Digits centre pixels")
    if shift == "class":
        favoured = np.isin(labels, train_classes)
        train = rng.random(len(X)) < np.where(favoured, 0.8, 0.1)
    elif shift is None:
        train = rng.random(len(X)) < 0.5
    else:
        raise ValueError(f"shift must be 'selection', 'class' or None; got {shift!r}.")
    return ShiftData(X[train], Y[train], X[~train], Y[~train], None, "Digits centre pixels")
