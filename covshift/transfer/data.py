"""Digits with a visible domain shift, for domain transfer structured output learning.

Source domain: scikit-learn's bundled 8x8 digits (no download), pixels scaled to [0, 1].
Target domain: *other* images of the same digits, redrawn by a visible transformation
(scipy.ndimage), so that a model trained on the source loses accuracy on the target:

* ``"thicken"``: strokes thickened by a 2x2 grey-level dilation;
* ``"blur"``: Gaussian blur with standard deviation 0.8 pixel;
* ``"rotate"``: rotation by ``angle`` degrees (anticlockwise) about the centre;
* ``"invert"``: inverted contrast, x -> 1 - x (white digits become dark on light).

Transformations combine with "+", applied left to right, e.g. ``"thicken+rotate"``.

The multi-label version replaces the class by four binary labels defined from it
(``MULTILABEL_NAMES``): "even" (0, 2, 4, 6, 8), "greater than 4" (5-9),
"has a closed loop" (0, 6, 8, 9; the 4 of this data set is mostly written open, so it counts
as open) and "prime" (2, 3, 5, 7).
"""

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

from .._validation import as_generator, check_finite, check_open_interval

SHIFTS = ("thicken", "blur", "rotate", "invert")
MULTILABEL_NAMES = ("even", "greater than 4", "has a closed loop", "prime")
_MULTILABEL_CLASSES = ({0, 2, 4, 6, 8}, {5, 6, 7, 8, 9}, {0, 6, 8, 9}, {2, 3, 5, 7})


@dataclass(frozen=True)
class TransferData:
    """Source and target domains of one task.

    Parameters
    ----------
    X_source, y_source : ndarray
        All labelled source examples.
    X_pool, y_pool : ndarray
        Target examples from which the l labelled ones are drawn.
    X_test, y_test : ndarray
        Held-out target examples, used only for evaluation.
    digits_pool, digits_test : ndarray
        The digit classes (0-9) of the target examples (for display).
    images_test : ndarray of shape (n_test, 8, 8)
        The transformed target test images (for display).
    task : {"multiclass", "multilabel"}
        The outputs.
    shift : str
        The transformation.
    label_names : tuple of str
        Output names.
    """

    X_source: np.ndarray
    y_source: np.ndarray
    X_pool: np.ndarray
    y_pool: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    digits_pool: np.ndarray
    digits_test: np.ndarray
    images_test: np.ndarray
    task: str
    shift: str
    label_names: tuple


def digit_attributes(digits):
    """The four multi-label outputs of every digit class (see module doc).

    Parameters
    ----------
    digits : array-like of shape (n,)
        Digit classes 0-9.

    Returns
    -------
    ndarray of shape (n, 4)
        0/1 labels.
    """
    digits = np.asarray(digits)
    return np.column_stack([np.isin(digits, sorted(s)) for s in _MULTILABEL_CLASSES]).astype(int)


def transform_images(images, shift="thicken+rotate", angle=15.0):
    """Apply the target-domain transformation to 8x8 images with pixels in [0, 1].

    Parameters
    ----------
    images : array-like of shape (n, 8, 8)
        Pixels in [0, 1].
    shift : str, default "thicken+rotate"
        Steps joined by "+": "thicken", "blur", "rotate", "invert".
    angle : float, default 15.0
        Rotation in degrees.

    Returns
    -------
    ndarray of shape (n, 8, 8)
        The transformed images, pixels in [0, 1].
    """
    steps = [s for s in str(shift).split("+") if s]
    unknown = [s for s in steps if s not in SHIFTS]
    if not steps or unknown:
        raise ValueError(f"shift must combine {list(SHIFTS)} with '+'; got {shift!r}.")
    angle = check_finite(angle, "angle")
    out = np.array(images, dtype=float)
    for step in steps:
        if step == "thicken":
            out = ndimage.grey_dilation(out, size=(1, 2, 2))
        elif step == "blur":
            out = ndimage.gaussian_filter(out, sigma=(0, 0.8, 0.8))
        elif step == "rotate":
            out = ndimage.rotate(out, angle, axes=(2, 1), reshape=False, order=1)
        else:
            out = 1.0 - out
    return np.clip(out, 0.0, 1.0)


def digits_transfer(task="multiclass", shift="thicken+rotate", angle=15.0, test_fraction=0.5,
                    random_state=0):
    """Source digits vs transformed target digits (seeded split, no download).

    The bundled 1797 digits are split at random (``random_state``) into a source half and a
    target half, so no image appears in both domains; the target half is transformed by
    :func:`transform_images` and split again into a pool of labelled candidates and a test
    set (``test_fraction`` of the target half).

    Parameters
    ----------
    task : {"multiclass", "multilabel"}
        Outputs: the digit class 0-9, or the four labels of :func:`digit_attributes`.
    shift : str, default "thicken+rotate"
        The transformation, see :func:`transform_images`.
    angle : float, default 15.0
        Rotation in degrees, see :func:`transform_images`.
    test_fraction : float in (0, 1), default 0.5
        Share of the target half kept as the test set.
    random_state : None, int, RandomState or Generator, default 0
        Seed of both splits. Keep it fixed to reuse one source model across experiments.

    Returns
    -------
    TransferData
        Source, pool and test sets.

    Examples
    --------
    >>> from covshift.transfer.data import digits_transfer
    >>> d = digits_transfer(random_state=0)
    >>> d.X_source.shape[1], len(d.X_source) + len(d.X_pool) + len(d.X_test)
    (64, 1797)
    """
    from sklearn.datasets import load_digits

    if task not in ("multiclass", "multilabel"):
        raise ValueError(f"task must be 'multiclass' or 'multilabel'; got {task!r}.")
    check_open_interval(test_fraction, "test_fraction", 0, 1)
    digits = load_digits()
    images, classes = digits.images / 16.0, digits.target
    rng = as_generator(random_state)
    order = rng.permutation(len(images))
    source, target = order[: len(order) // 2], order[len(order) // 2:]
    n_test = int(round(test_fraction * len(target)))
    pool, test = target[n_test:], target[:n_test]
    target_images = transform_images(images[target], shift, angle)
    by_index = dict(zip(target, target_images))
    outputs = classes if task == "multiclass" else digit_attributes(classes)
    flat = lambda idx: np.array([by_index[i] for i in idx]).reshape(len(idx), -1)  # noqa: E731
    return TransferData(
        X_source=images[source].reshape(len(source), -1), y_source=outputs[source],
        X_pool=flat(pool), y_pool=outputs[pool], X_test=flat(test), y_test=outputs[test],
        digits_pool=classes[pool], digits_test=classes[test],
        images_test=np.array([by_index[i] for i in test]), task=task, shift=shift,
        label_names=tuple(str(k) for k in range(10)) if task == "multiclass" else MULTILABEL_NAMES)


def draw_labelled(n_pool, n_labelled, random_state=0):
    """Indices of ``n_labelled`` target examples drawn at random (seeded) from the pool.

    Parameters
    ----------
    n_pool : int
        Size of the pool.
    n_labelled : int
        l, how many to draw (1 to ``n_pool``).
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ndarray of shape (n_labelled,)
        Distinct pool indices.
    """
    if isinstance(n_labelled, (bool, np.bool_)) or not isinstance(n_labelled, (int, np.integer)) \
            or not 1 <= n_labelled <= n_pool:
        raise ValueError(f"n_labelled (the number of labelled target examples l) must be an integer between "
                         f"1 and {n_pool}; got {n_labelled!r}.")
    return as_generator(random_state).choice(n_pool, size=int(n_labelled), replace=False)
